// Splat constants of more than 64 KiB in a function that MLIR's own
// pipeline lowers: a divisor of 16384 x 4 sevens (512 KiB, an operand of
// the division's generic) and a returned 2.5 of 20000 floats (80 KB). They
// become linalg.fill of their value at run time, not globals of every
// element in the object: test/Codegen/large_splat.test.
// emb-run inputs: ids<100
func.func @large_splat(%x: tensor<4xi64>) -> (tensor<16384x4xi64>, tensor<20000xf32>) {
  %seven = arith.constant dense<7> : tensor<16384x4xi64>
  %half = arith.constant dense<2.5> : tensor<20000xf32>
  %0 = tensor.empty() : tensor<16384x4xi64>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %seven : tensor<4xi64>, tensor<16384x4xi64>) outs(%0 : tensor<16384x4xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %q = arith.floordivsi %a, %b : i64
    linalg.yield %q : i64
  } -> tensor<16384x4xi64>
  return %1, %half : tensor<16384x4xi64>, tensor<20000xf32>
}

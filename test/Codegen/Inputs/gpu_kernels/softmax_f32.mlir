// A row softmax as torch-mlir writes it (max, exp of the difference, sum,
// division), then its transpose: reductions over rows of 1000 (a block a
// row), a broadcast of the row results and a transposed copy.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_f32(%x: tensor<64x1000xf32>) -> (tensor<64x1000xf32>, tensor<1000x64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1000xf32>) outs(%f1 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x1000xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<64x1000xf32>, tensor<64xf32>) outs(%e2 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.subf %a, %c : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<64x1000xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<64x1000xf32>) outs(%f2 : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e3 = tensor.empty() : tensor<64x1000xf32>
  %sm = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<64x1000xf32>, tensor<64xf32>) outs(%e3 : tensor<64x1000xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.divf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<64x1000xf32>
  %e4 = tensor.empty() : tensor<1000x64xf32>
  %tr = linalg.transpose ins(%sm : tensor<64x1000xf32>) outs(%e4 : tensor<1000x64xf32>) permutation = [1, 0]
  return %sm, %tr : tensor<64x1000xf32>, tensor<1000x64xf32>
}

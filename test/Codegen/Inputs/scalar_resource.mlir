// A model with two rank-0 dense_resource constants (a scalar f32 weight of
// 1.5 and an i64 of -7) in a function that MLIR's own pipeline lowers:
// test/Codegen/scalar_resource.test.
// emb-run inputs: data ids<100
func.func @scalar_resource(%x: tensor<3xf32>, %n: tensor<3xi64>) -> (tensor<3xf32>, tensor<3xi64>) {
  %w = arith.constant dense_resource<scale> : tensor<f32>
  %k = arith.constant dense_resource<shift> : tensor<i64>
  %0 = tensor.empty() : tensor<3xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %w : tensor<3xf32>, tensor<f32>) outs(%0 : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  %2 = tensor.empty() : tensor<3xi64>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%n, %k : tensor<3xi64>, tensor<i64>) outs(%2 : tensor<3xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %s = arith.addi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<3xi64>
  return %1, %3 : tensor<3xf32>, tensor<3xi64>
}

{-#
  dialect_resources: {
    builtin: {
      scale: "0x040000000000C03F",
      shift: "0x08000000F9FFFFFFFFFFFFFF"
    }
  }
#-}

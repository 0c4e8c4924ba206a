// Reshapes of dynamic size after a generic, with no emb op: each becomes a
// memref.collapse_shape whose sizes expand-strided-metadata computes with
// affine.apply, which lower-affine must then lower (dynamic_reshape_run.test).

// torch.flatten(x * x, 0, 1) on a dynamic batch.
func.func @flatten(%x: tensor<?x3x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x4xf32>
  %e = tensor.empty(%n) : tensor<?x3x4xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<?x3x4xf32>) outs(%e : tensor<?x3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<?x3x4xf32>
  %f = tensor.collapse_shape %sq [[0, 1], [2]] : tensor<?x3x4xf32> into tensor<?x4xf32>
  return %f : tensor<?x4xf32>
}

// examples/torch/fixed_ratio.mlir with a dynamic number of users U (and so
// of candidates, 6 U): the expand of the users is a generic, its reshape into
// the batch a collapse of dynamic size.
#map = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @fixed_ratio(%arg0: tensor<?x3x16xf32>, %arg1: tensor<?x5x16xf32>, %arg2: tensor<8x8xf32>) -> tensor<?x8x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %c0 = arith.constant 0 : index
  %u = tensor.dim %arg0, %c0 : tensor<?x3x16xf32>
  %0 = tensor.empty(%u) : tensor<?x6x3x16xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<?x3x16xf32>) outs(%0 : tensor<?x6x3x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x6x3x16xf32>
  %collapsed = tensor.collapse_shape %1 [[0, 1], [2], [3]] : tensor<?x6x3x16xf32> into tensor<?x3x16xf32>
  %concat = tensor.concat dim(1) %collapsed, %arg1 : (tensor<?x3x16xf32>, tensor<?x5x16xf32>) -> tensor<?x8x16xf32>
  %b = tensor.dim %concat, %c0 : tensor<?x8x16xf32>
  %2 = tensor.empty(%b) : tensor<?x8x8xf32>
  %3 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : tensor<8x8xf32>) outs(%2 : tensor<?x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x8x8xf32>
  %4 = tensor.empty(%b) : tensor<?x8x16xf32>
  %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<?x8x16xf32>) -> tensor<?x8x16xf32>
  %6 = linalg.batch_matmul ins(%3, %concat : tensor<?x8x8xf32>, tensor<?x8x16xf32>) outs(%5 : tensor<?x8x16xf32>) -> tensor<?x8x16xf32>
  return %6 : tensor<?x8x16xf32>
}

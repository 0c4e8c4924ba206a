// A fixed number of candidates per user, without an index tensor, in the form
// torch-mlir emits:
//
//   def forward(self, user, cand, w):                   # user [4, 3, 16]
//       u = user.unsqueeze(1).expand(4, 6, 3, 16).reshape(24, 3, 16)
//       return torch.matmul(w, torch.cat([u, cand], dim=1))
//
// The expand is a copy generic that leaves out the candidate loop, the
// reshape a collapse of it into the batch. emb-raise-broadcast makes it an
// emb.broadcast with a generated cand_to_user (candidate b is user b / 6),
// and emb-ikbo fuses it into emb.ikbo_lce.
// emb-run inputs: data data data
#map = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
module {
  func.func @fixed_ratio(%arg0: tensor<4x3x16xf32>, %arg1: tensor<24x5x16xf32>, %arg2: tensor<8x8xf32>) -> tensor<24x8x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x6x3x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<4x3x16xf32>) outs(%0 : tensor<4x6x3x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x6x3x16xf32>
    %collapsed = tensor.collapse_shape %1 [[0, 1], [2], [3]] : tensor<4x6x3x16xf32> into tensor<24x3x16xf32>
    %concat = tensor.concat dim(1) %collapsed, %arg1 : (tensor<24x3x16xf32>, tensor<24x5x16xf32>) -> tensor<24x8x16xf32>
    %2 = tensor.empty() : tensor<24x8x8xf32>
    %3 = linalg.generic {indexing_maps = [#map2, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : tensor<8x8xf32>) outs(%2 : tensor<24x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<24x8x8xf32>
    %4 = tensor.empty() : tensor<24x8x16xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
    %6 = linalg.batch_matmul ins(%3, %concat : tensor<24x8x8xf32>, tensor<24x8x16xf32>) outs(%5 : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
    return %6 : tensor<24x8x16xf32>
  }
}


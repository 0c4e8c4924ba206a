// A user-only transform before the broadcast, in the form torch-mlir emits:
//
//   def forward(self, user, cand, cand_to_user, w):
//       u = torch.tanh(user)                                  # [4, 3, 16]
//       x = torch.cat([u[cand_to_user], cand], dim=1)         # [24, 8, 16]
//       return torch.matmul(w, x)
//
// The tanh stays a linalg.generic on the 4 user rows; the gather becomes an
// emb.broadcast of its result and emb-ikbo fuses it into emb.ikbo_lce, so
// nothing user-sized is copied per candidate.
// emb-run inputs: data data index<4 data
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @user_transform(%arg0: tensor<4x3x16xf32>, %arg1: tensor<24x5x16xf32>, %arg2: tensor<24xi64>, %arg3: tensor<8x8xf32>) -> tensor<24x8x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x3x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<4x3x16xf32>) outs(%0 : tensor<4x3x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = math.tanh %in : f32
      linalg.yield %9 : f32
    } -> tensor<4x3x16xf32>
    %2 = tensor.empty() : tensor<24x3x16xf32>
    %3 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : tensor<24xi64>) outs(%2 : tensor<24x3x16xf32>) {
    ^bb0(%in: i64, %out: f32):
      %9 = arith.index_cast %in : i64 to index
      %10 = linalg.index 1 : index
      %11 = linalg.index 2 : index
      %extracted = tensor.extract %1[%9, %10, %11] : tensor<4x3x16xf32>
      linalg.yield %extracted : f32
    } -> tensor<24x3x16xf32>
    %concat = tensor.concat dim(1) %3, %arg1 : (tensor<24x3x16xf32>, tensor<24x5x16xf32>) -> tensor<24x8x16xf32>
    %4 = tensor.empty() : tensor<24x8x8xf32>
    %5 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg3 : tensor<8x8xf32>) outs(%4 : tensor<24x8x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<24x8x8xf32>
    %6 = tensor.empty() : tensor<24x8x16xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
    %8 = linalg.batch_matmul ins(%5, %concat : tensor<24x8x8xf32>, tensor<24x8x16xf32>) outs(%7 : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
    return %8 : tensor<24x8x16xf32>
  }
}


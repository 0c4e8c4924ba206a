// Two user pieces gathered by different index tensors, in torch-mlir's form
// (ikbo_unfused_pieces_run.test):
//
//   def forward(self, u1, u2, cand, i1, i2, w):   # u1 [4, 3, 16], u2 [4, 2, 16]
//       x = torch.cat([torch.tanh(u1)[i1], u2[i2], cand], dim=1)
//       return torch.matmul(w, x)                  # [24, 8, 16]
//
// emb-ikbo fuses the broadcast by i1 into emb.ikbo_lce (i1 is its
// cand_to_user) and leaves the one by i2 among the candidate pieces; the
// tanh generic keeps the function mixed on the cpu target.
// emb-run inputs: data data data index<4 index<4 data
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @two_users(%u1: tensor<4x3x16xf32>, %u2: tensor<4x2x16xf32>, %cand: tensor<24x5x16xf32>, %i1: tensor<24xi64>, %i2: tensor<24xi64>, %w: tensor<8x10xf32>) -> tensor<24x8x16xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x3x16xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%u1 : tensor<4x3x16xf32>) outs(%0 : tensor<4x3x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = math.tanh %in : f32
      linalg.yield %9 : f32
    } -> tensor<4x3x16xf32>
    %2 = tensor.empty() : tensor<24x3x16xf32>
    %3 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%i1 : tensor<24xi64>) outs(%2 : tensor<24x3x16xf32>) {
    ^bb0(%in: i64, %out: f32):
      %9 = arith.index_cast %in : i64 to index
      %10 = linalg.index 1 : index
      %11 = linalg.index 2 : index
      %extracted = tensor.extract %1[%9, %10, %11] : tensor<4x3x16xf32>
      linalg.yield %extracted : f32
    } -> tensor<24x3x16xf32>
    %12 = tensor.empty() : tensor<24x2x16xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%i2 : tensor<24xi64>) outs(%12 : tensor<24x2x16xf32>) {
    ^bb0(%in: i64, %out: f32):
      %9 = arith.index_cast %in : i64 to index
      %10 = linalg.index 1 : index
      %11 = linalg.index 2 : index
      %extracted = tensor.extract %u2[%9, %10, %11] : tensor<4x2x16xf32>
      linalg.yield %extracted : f32
    } -> tensor<24x2x16xf32>
    %concat = tensor.concat dim(1) %3, %13, %cand : (tensor<24x3x16xf32>, tensor<24x2x16xf32>, tensor<24x5x16xf32>) -> tensor<24x10x16xf32>
    %4 = tensor.empty() : tensor<24x8x10xf32>
    %5 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<8x10xf32>) outs(%4 : tensor<24x8x10xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<24x8x10xf32>
    %6 = tensor.empty() : tensor<24x8x16xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
    %8 = linalg.batch_matmul ins(%5, %concat : tensor<24x8x10xf32>, tensor<24x10x16xf32>) outs(%7 : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
    return %8 : tensor<24x8x16xf32>
  }
}

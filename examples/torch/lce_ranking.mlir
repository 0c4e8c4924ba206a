// User features broadcast to candidates, concatenated with candidate features
// and compressed, in the form torch-mlir emits (fp16):
//
//   def forward(self, cand_a, user, cand_b, cand_to_user, w):
//       user_b = torch.index_select(user, 0, cand_to_user)   # [24, 2, 16]
//       x = torch.cat([cand_a, user_b, cand_b], dim=1)       # [24, 6, 16]
//       return torch.matmul(w, x)                            # [24, 8, 16]
//
// 24 candidates of 4 users; the user piece sits between two candidate pieces.
// The gather becomes emb.broadcast, the matmul (w copied to every row,
// batch_matmul into an f32 zero fill, truncf) emb.lce; emb-ikbo then splits
// w's columns by piece into one emb.ikbo_lce whose user product runs on 4
// users.
// emb-run inputs: data data data index<4 data
#map = affine_map<(d0, d1, d2) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @lce_ranking(%arg0: tensor<24x3x16xf16>, %arg1: tensor<4x2x16xf16>, %arg2: tensor<24x1x16xf16>, %arg3: tensor<24xi64>, %arg4: tensor<8x6xf16>) -> tensor<24x8x16xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<24x2x16xf16>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg3 : tensor<24xi64>) outs(%0 : tensor<24x2x16xf16>) {
    ^bb0(%in: i64, %out: f16):
      %9 = arith.index_cast %in : i64 to index
      %10 = linalg.index 1 : index
      %11 = linalg.index 2 : index
      %extracted = tensor.extract %arg1[%9, %10, %11] : tensor<4x2x16xf16>
      linalg.yield %extracted : f16
    } -> tensor<24x2x16xf16>
    %concat = tensor.concat dim(1) %arg0, %1, %arg2 : (tensor<24x3x16xf16>, tensor<24x2x16xf16>, tensor<24x1x16xf16>) -> tensor<24x6x16xf16>
    %2 = tensor.empty() : tensor<24x8x6xf16>
    %3 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg4 : tensor<8x6xf16>) outs(%2 : tensor<24x8x6xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<24x8x6xf16>
    %4 = tensor.empty() : tensor<24x8x16xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
    %6 = linalg.batch_matmul ins(%3, %concat : tensor<24x8x6xf16>, tensor<24x6x16xf16>) outs(%5 : tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
    %7 = tensor.empty() : tensor<24x8x16xf16>
    %8 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<24x8x16xf32>) outs(%7 : tensor<24x8x16xf16>) {
    ^bb0(%in: f32, %out: f16):
      %9 = arith.truncf %in : f32 to f16
      linalg.yield %9 : f16
    } -> tensor<24x8x16xf16>
    return %8 : tensor<24x8x16xf16>
  }
}


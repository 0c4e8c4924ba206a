// The linear compression of Meta's in-kernel broadcast (IKBO) benchmark, the
// model of examples/ikbo_benchmark.mlir (same shapes, same math) in the form
// torch-mlir emits it:
//
//   def forward(self, user, cand, cand_to_user, w):
//       x = torch.cat([torch.index_select(user, 0, cand_to_user), cand], 1)
//       return torch.matmul(w, x)
//
// fp16, B = 1024 candidates from 15 users, N = 256; K = 1178 user rows +
// 866 candidate rows compressed to M = 433. The gather copies the users'
// rows to every candidate (600 MiB), the matmul copies w to every candidate
// and accumulates in f32. emb-from-torch (or emb-raise then emb-ikbo) makes
// it the single emb.ikbo_lce that `emb-opt --emb-ikbo
// examples/ikbo_benchmark.mlir` gives.
// emb-run inputs: data data index<15 data
#map = affine_map<(d0, d1, d2) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @ikbo_benchmark(%arg0: tensor<15x1178x256xf16>, %arg1: tensor<1024x866x256xf16>, %arg2: tensor<1024xi32>, %arg3: tensor<433x2044xf16>) -> tensor<1024x433x256xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1024x1178x256xf16>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : tensor<1024xi32>) outs(%0 : tensor<1024x1178x256xf16>) {
    ^bb0(%in: i32, %out: f16):
      %9 = arith.index_cast %in : i32 to index
      %10 = linalg.index 1 : index
      %11 = linalg.index 2 : index
      %extracted = tensor.extract %arg0[%9, %10, %11] : tensor<15x1178x256xf16>
      linalg.yield %extracted : f16
    } -> tensor<1024x1178x256xf16>
    %concat = tensor.concat dim(1) %1, %arg1 : (tensor<1024x1178x256xf16>, tensor<1024x866x256xf16>) -> tensor<1024x2044x256xf16>
    %2 = tensor.empty() : tensor<1024x433x2044xf16>
    %3 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg3 : tensor<433x2044xf16>) outs(%2 : tensor<1024x433x2044xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<1024x433x2044xf16>
    %4 = tensor.empty() : tensor<1024x433x256xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<1024x433x256xf32>) -> tensor<1024x433x256xf32>
    %6 = linalg.batch_matmul ins(%3, %concat : tensor<1024x433x2044xf16>, tensor<1024x2044x256xf16>) outs(%5 : tensor<1024x433x256xf32>) -> tensor<1024x433x256xf32>
    %7 = tensor.empty() : tensor<1024x433x256xf16>
    %8 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<1024x433x256xf32>) outs(%7 : tensor<1024x433x256xf16>) {
    ^bb0(%in: f32, %out: f16):
      %9 = arith.truncf %in : f32 to f16
      linalg.yield %9 : f16
    } -> tensor<1024x433x256xf16>
    return %8 : tensor<1024x433x256xf16>
  }
}


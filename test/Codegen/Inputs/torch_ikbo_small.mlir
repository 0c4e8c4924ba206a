// The IKBO benchmark's structure in torch-mlir's form (examples/torch/
// ikbo_benchmark.mlir) at the size of Inputs/ikbo_small.mlir, which the CPU
// reference runs quickly: f16, 32 candidates of 4 users, Ku = 13, Kc = 11.
// emb-run inputs: data data index<4 data
#map = affine_map<(d0, d1, d2) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
module {
  func.func @ikbo_small(%arg0: tensor<4x13x16xf16>, %arg1: tensor<32x11x16xf16>, %arg2: tensor<32xi32>, %arg3: tensor<24x24xf16>) -> tensor<32x24x16xf16> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<32x13x16xf16>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg2 : tensor<32xi32>) outs(%0 : tensor<32x13x16xf16>) {
    ^bb0(%in: i32, %out: f16):
      %9 = arith.index_cast %in : i32 to index
      %10 = linalg.index 1 : index
      %11 = linalg.index 2 : index
      %extracted = tensor.extract %arg0[%9, %10, %11] : tensor<4x13x16xf16>
      linalg.yield %extracted : f16
    } -> tensor<32x13x16xf16>
    %concat = tensor.concat dim(1) %1, %arg1 : (tensor<32x13x16xf16>, tensor<32x11x16xf16>) -> tensor<32x24x16xf16>
    %2 = tensor.empty() : tensor<32x24x24xf16>
    %3 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg3 : tensor<24x24xf16>) outs(%2 : tensor<32x24x24xf16>) {
    ^bb0(%in: f16, %out: f16):
      linalg.yield %in : f16
    } -> tensor<32x24x24xf16>
    %4 = tensor.empty() : tensor<32x24x16xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<32x24x16xf32>) -> tensor<32x24x16xf32>
    %6 = linalg.batch_matmul ins(%3, %concat : tensor<32x24x24xf16>, tensor<32x24x16xf16>) outs(%5 : tensor<32x24x16xf32>) -> tensor<32x24x16xf32>
    %7 = tensor.empty() : tensor<32x24x16xf16>
    %8 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<32x24x16xf32>) outs(%7 : tensor<32x24x16xf16>) {
    ^bb0(%in: f32, %out: f16):
      %9 = arith.truncf %in : f32 to f16
      linalg.yield %9 : f16
    } -> tensor<32x24x16xf16>
    return %8 : tensor<32x24x16xf16>
  }
}


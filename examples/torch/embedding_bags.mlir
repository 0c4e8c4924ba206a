// Sum and mean embedding bags of 8 candidates, in the form torch-mlir emits:
//
//   def forward(self, table_a, ids_a, offsets_a, table_b, ids_b, offsets_b):
//       a = F.embedding_bag(ids_a, table_a, offsets_a, mode="sum")
//       s = F.embedding_bag(ids_b, table_b, offsets_b, mode="sum")
//       n = torch.cat([offsets_b, torch.tensor([24])]).diff().clamp(min=1)
//       b = s / n.to(s.dtype).unsqueeze(1)                    # the mean
//       return torch.cat([a, b], dim=1)                       # [8, 32]
//
// torch-mlir lowers only sum mode, as one masked-select generic over (bag,
// id, column); a mean is written by hand as above. emb-raise-embedding-bag
// makes the first emb.embedding_bag {mode = "sum"} and the second, the sum
// and its division by the clamped lengths, one {mode = "mean"}.
// emb-run inputs: data ids<100 offsets<1 data ids<50 offsets<4
#map = affine_map<(d0, d1, d2) -> (d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @embedding_bags(%arg0: tensor<100x16xf32>, %arg1: tensor<40xi64>, %arg2: tensor<8xi64>, %arg3: tensor<50x16xf32>, %arg4: tensor<24xi64>, %arg5: tensor<8xi64>) -> tensor<8x32xf32> {
    %cst = arith.constant dense<24> : tensor<1xi64>
    %c24_i64 = arith.constant 24 : i64
    %c40_i64 = arith.constant 40 : i64
    %c8_i64 = arith.constant 8 : i64
    %c0 = arith.constant 0 : index
    %c1_i64 = arith.constant 1 : i64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<8x16xf32>
    %1 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg1, %arg2 : tensor<40xi64>, tensor<8xi64>) outs(%1 : tensor<8x16xf32>) {
    ^bb0(%in: i64, %in_3: i64, %out: f32):
      %14 = linalg.index 0 : index
      %15 = arith.index_cast %14 : index to i64
      %16 = arith.addi %15, %c1_i64 : i64
      %17 = arith.index_cast %16 : i64 to index
      %18 = arith.cmpi eq, %16, %c8_i64 : i64
      %19 = arith.select %18, %c0, %17 : index
      %extracted = tensor.extract %arg2[%19] : tensor<8xi64>
      %20 = arith.select %18, %c40_i64, %extracted : i64
      %21 = linalg.index 1 : index
      %22 = arith.index_cast %21 : index to i64
      %23 = arith.cmpi slt, %in_3, %22 : i64
      %24 = arith.cmpi eq, %in_3, %22 : i64
      %25 = arith.ori %23, %24 : i1
      %26 = arith.cmpi slt, %22, %20 : i64
      %27 = arith.andi %25, %26 : i1
      %28 = arith.index_cast %in : i64 to index
      %29 = linalg.index 2 : index
      %extracted_4 = tensor.extract %arg0[%28, %29] : tensor<100x16xf32>
      %30 = arith.addf %extracted_4, %out : f32
      %31 = arith.select %27, %30, %out : f32
      linalg.yield %31 : f32
    } -> tensor<8x16xf32>
    %3 = tensor.empty() : tensor<8x16xf32>
    %4 = linalg.fill ins(%cst_0 : f32) outs(%3 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg4, %arg5 : tensor<24xi64>, tensor<8xi64>) outs(%4 : tensor<8x16xf32>) {
    ^bb0(%in: i64, %in_3: i64, %out: f32):
      %14 = linalg.index 0 : index
      %15 = arith.index_cast %14 : index to i64
      %16 = arith.addi %15, %c1_i64 : i64
      %17 = arith.index_cast %16 : i64 to index
      %18 = arith.cmpi eq, %16, %c8_i64 : i64
      %19 = arith.select %18, %c0, %17 : index
      %extracted = tensor.extract %arg5[%19] : tensor<8xi64>
      %20 = arith.select %18, %c24_i64, %extracted : i64
      %21 = linalg.index 1 : index
      %22 = arith.index_cast %21 : index to i64
      %23 = arith.cmpi slt, %in_3, %22 : i64
      %24 = arith.cmpi eq, %in_3, %22 : i64
      %25 = arith.ori %23, %24 : i1
      %26 = arith.cmpi slt, %22, %20 : i64
      %27 = arith.andi %25, %26 : i1
      %28 = arith.index_cast %in : i64 to index
      %29 = linalg.index 2 : index
      %extracted_4 = tensor.extract %arg3[%28, %29] : tensor<50x16xf32>
      %30 = arith.addf %extracted_4, %out : f32
      %31 = arith.select %27, %30, %out : f32
      linalg.yield %31 : f32
    } -> tensor<8x16xf32>
    %concat = tensor.concat dim(0) %arg5, %cst : (tensor<8xi64>, tensor<1xi64>) -> tensor<9xi64>
    %extracted_slice = tensor.extract_slice %concat[1] [8] [1] : tensor<9xi64> to tensor<8xi64>
    %extracted_slice_1 = tensor.extract_slice %concat[0] [8] [1] : tensor<9xi64> to tensor<8xi64>
    %6 = tensor.empty() : tensor<8xi64>
    %7 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel"]} ins(%extracted_slice, %extracted_slice_1 : tensor<8xi64>, tensor<8xi64>) outs(%6 : tensor<8xi64>) {
    ^bb0(%in: i64, %in_3: i64, %out: i64):
      %14 = arith.subi %in, %in_3 : i64
      linalg.yield %14 : i64
    } -> tensor<8xi64>
    %8 = tensor.empty() : tensor<8xi64>
    %9 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%7 : tensor<8xi64>) outs(%8 : tensor<8xi64>) {
    ^bb0(%in: i64, %out: i64):
      %14 = arith.cmpi slt, %in, %c1_i64 : i64
      %15 = arith.select %14, %c1_i64, %in : i64
      linalg.yield %15 : i64
    } -> tensor<8xi64>
    %10 = tensor.empty() : tensor<8xf32>
    %11 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%9 : tensor<8xi64>) outs(%10 : tensor<8xf32>) {
    ^bb0(%in: i64, %out: f32):
      %14 = arith.sitofp %in : i64 to f32
      linalg.yield %14 : f32
    } -> tensor<8xf32>
    %expanded = tensor.expand_shape %11 [[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
    %12 = tensor.empty() : tensor<8x16xf32>
    %13 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel"]} ins(%5, %expanded : tensor<8x16xf32>, tensor<8x1xf32>) outs(%12 : tensor<8x16xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %14 = arith.divf %in, %in_3 : f32
      linalg.yield %14 : f32
    } -> tensor<8x16xf32>
    %concat_2 = tensor.concat dim(1) %2, %13 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>
    return %concat_2 : tensor<8x32xf32>
  }
}


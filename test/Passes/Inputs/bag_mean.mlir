// A mean written by hand over torch-mlir's sum bag: the sum divided by
// (offsets ++ [N]).diff().clamp(min=1).float().unsqueeze(1), as
// raise_embedding_bag.mlir's @mean (emb-raise makes it one mean bag).
// emb-run inputs: data ids<100 offsets<1
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
func.func @mean(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  %n = arith.constant dense<20> : tensor<1xi64>
  %ext = tensor.concat dim(0) %offsets, %n : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
  %hi = tensor.extract_slice %ext[1] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %lo = tensor.extract_slice %ext[0] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e1 = tensor.empty() : tensor<6xi64>
  %len = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%hi, %lo : tensor<6xi64>, tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %s = arith.subi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %clamped = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%len : tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %o: i64):
    %p = arith.cmpi slt, %a, %c1_i64 : i64
    %s = arith.select %p, %c1_i64, %a : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %e2 = tensor.empty() : tensor<6xf32>
  %count = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%clamped : tensor<6xi64>) outs(%e2 : tensor<6xf32>) {
  ^bb0(%a: i64, %o: f32):
    %s = arith.sitofp %a : i64 to f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %unsq = tensor.expand_shape %count [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  %mean = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %unsq : tensor<6x16xf32>, tensor<6x1xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.divf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<6x16xf32>
  return %mean : tensor<6x16xf32>
}

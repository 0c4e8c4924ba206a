// The padding form of bag_padding.mlir with padding_idx = 10, one past the
// table's 10 rows (PyTorch refuses it; a generic can say it). The body reads
// weight[id] for every id before its mask drops a padding id, so an id of
// 10 is an error as written, where emb.embedding_bag would skip it:
// emb-raise-embedding-bag leaves it alone.
// emb-run inputs: data ids<10 offsets<1
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @padding_outside(%weight: tensor<10x8xf32>, %ids: tensor<24xi64>, %offsets: tensor<5xi64>) -> tensor<5x8xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c5_i64 = arith.constant 5 : i64
  %c24_i64 = arith.constant 24 : i64
  %c10_i64 = arith.constant 10 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<5x8xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<5x8xf32>) -> tensor<5x8xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<24xi64>, tensor<5xi64>) outs(%acc : tensor<5x8xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %0 = linalg.index 0 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.addi %1, %c1_i64 : i64
    %3 = arith.index_cast %2 : i64 to index
    %4 = arith.cmpi eq, %c5_i64, %2 : i64
    %5 = arith.select %4, %c0, %3 : index
    %extracted = tensor.extract %offsets[%5] : tensor<5xi64>
    %6 = arith.select %4, %c24_i64, %extracted : i64
    %7 = linalg.index 1 : index
    %8 = arith.index_cast %7 : index to i64
    %9 = arith.cmpi slt, %in_0, %8 : i64
    %10 = arith.cmpi eq, %in_0, %8 : i64
    %11 = arith.ori %9, %10 : i1
    %12 = arith.cmpi slt, %8, %6 : i64
    %13 = arith.andi %11, %12 : i1
    %14 = arith.index_cast %in : i64 to index
    %15 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%14, %15] : tensor<10x8xf32>
    %pad = arith.cmpi ne, %in, %c10_i64 : i64
    %mask = arith.andi %13, %pad : i1
    %16 = arith.addf %extracted_1, %out : f32
    %17 = arith.select %mask, %16, %out : f32
    linalg.yield %17 : f32
  } -> tensor<5x8xf32>
  return %sum : tensor<5x8xf32>
}

// TorchRec's weighted EmbeddingBagCollection (is_weighted=True): one table,
// F.embedding_bag(ids, weight, offsets, mode="sum", per_sample_weights=w).
// torch-mlir's TorchToLinalg drops per_sample_weights (its sum generic
// reads ids and offsets only, so its IR is the unweighted sum); this is the
// generic a lowering that keeps them writes: the weights a third input
// read at the id loop, each row multiplied by its weight before the add.
// emb-run inputs: data ids<100 offsets<1 data
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @weighted(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>, %psw: tensor<20xf32>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %c20_i64 = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #ids, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets, %psw : tensor<20xi64>, tensor<6xi64>, tensor<20xf32>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %in_w: f32, %out: f32):
    %0 = linalg.index 0 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.addi %1, %c1_i64 : i64
    %3 = arith.index_cast %2 : i64 to index
    %4 = arith.cmpi eq, %c6_i64, %2 : i64
    %5 = arith.select %4, %c0, %3 : index
    %extracted = tensor.extract %offsets[%5] : tensor<6xi64>
    %6 = arith.select %4, %c20_i64, %extracted : i64
    %7 = linalg.index 1 : index
    %8 = arith.index_cast %7 : index to i64
    %9 = arith.cmpi slt, %in_0, %8 : i64
    %10 = arith.cmpi eq, %in_0, %8 : i64
    %11 = arith.ori %9, %10 : i1
    %12 = arith.cmpi slt, %8, %6 : i64
    %13 = arith.andi %11, %12 : i1
    %14 = arith.index_cast %in : i64 to index
    %15 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%14, %15] : tensor<100x16xf32>
    %scaled = arith.mulf %extracted_1, %in_w : f32
    %16 = arith.addf %scaled, %out : f32
    %17 = arith.select %13, %16, %out : f32
    linalg.yield %17 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

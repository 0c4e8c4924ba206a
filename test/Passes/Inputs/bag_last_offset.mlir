// TorchRec's EmbeddingBagCollection: one table, nn.EmbeddingBag(100, 16,
// mode="sum", include_last_offset=True), its offsets in CSR form (B + 1 =
// 7 entries, the last the ids' count). torch-mlir does not lower
// include_last_offset=True (TorchToLinalg: "include last offset is not yet
// supported"), so the model passes the bag starts:
//
//   def forward(self, weight, ids, offsets):      # offsets: [B + 1]
//       return F.embedding_bag(ids, weight, offsets[:-1], mode="sum")
//
// which torch-mlir lowers to the slice and its sum generic below.
// emb-run inputs: data ids<100 csr<1
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @last_offset(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<7xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %c20_i64 = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %starts = tensor.extract_slice %offsets[0] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %starts : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %0 = linalg.index 0 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.addi %1, %c1_i64 : i64
    %3 = arith.index_cast %2 : i64 to index
    %4 = arith.cmpi eq, %c6_i64, %2 : i64
    %5 = arith.select %4, %c0, %3 : index
    %extracted = tensor.extract %starts[%5] : tensor<6xi64>
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
    %16 = arith.addf %extracted_1, %out : f32
    %17 = arith.select %13, %16, %out : f32
    linalg.yield %17 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// A model that mixes emb ops with linalg-on-tensors in torch-mlir's form,
// compiled ahead of time at build time (emb-run-aot-mixed): a frozen
// nn.Embedding(6, 8) of each user (with torch-mlir's bounds checks), plus
// the mean bag of the user's other ids, through a linear layer and a relu.
#ids = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mixed_model(%user_ids: tensor<4xi64>, %table: tensor<20x8xf32>, %bag_ids: tensor<?xi64>, %offsets: tensor<5xi64>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %frozen = arith.constant dense_resource<torch_tensor_6_8_torch.float32> : tensor<6x8xf32>
  %c6 = arith.constant 6 : index
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#ids, #id], iterator_types = ["parallel", "parallel"]} ins(%user_ids : tensor<4xi64>) outs(%0 : tensor<4x8xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %4 = arith.cmpi slt, %2, %c6 : index
    cf.assert %4, "index must be smaller than dim size"
    %5 = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %5, "index must be larger or equal to 0"
    %extracted = tensor.extract %frozen[%2, %3] : tensor<6x8xf32>
    linalg.yield %extracted : f32
  } -> tensor<4x8xf32>
  %bags = "emb.embedding_bag"(%table, %bag_ids, %offsets) {mode = "mean"} : (tensor<20x8xf32>, tensor<?xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %6 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%1, %bags : tensor<4x8xf32>, tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %7 = arith.addf %a, %b : f32
    linalg.yield %7 : f32
  } -> tensor<4x8xf32>
  %8 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %9 = linalg.matmul ins(%6, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%8 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %10 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%9 : tensor<4x8xf32>) outs(%0 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %11 = arith.maximumf %in, %cst : f32
    linalg.yield %11 : f32
  } -> tensor<4x8xf32>
  return %10 : tensor<4x8xf32>
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_6_8_torch.float32: "0x0400000000000000CDCCCC3DCDCC4C3E9A99993ECDCCCC3E0000003F9A99193F3333333F0000803FCDCC8C3F9A99993F6666A63F3333B33F0000C03FCDCCCC3F9A99D93F0000004066660640CDCC0C40333313409A9919400000204066662640CDCC2C400000404066664640CDCC4C40333353409A9959400000604066666640CDCC6C400000804033338340666686409A998940CDCC8C400000904033339340666696400000A0403333A3406666A6409A99A940CDCCAC400000B0403333B3406666B640"
    }
  }
#-}

// A model whose fourth op is planted_one_side: see ../fake_tool.py for what the fake tools do with it.
func.func @f(%w: tensor<10x4xf32>, %idx: tensor<9xi64>, %off: tensor<4xi64>) -> tensor<3x4xf32> {
  %0 = "emb.embedding_bag"(%w, %idx, %off) {mode = "sum"} : (tensor<10x4xf32>, tensor<9xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  %1 = "emb.embedding_bag"(%w, %idx, %off) {mode = "mean"} : (tensor<10x4xf32>, tensor<9xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  %2 = arith.addf %0, %1 : tensor<3x4xf32>
  %3 = "test.planted_one_side"(%2) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %4 = arith.mulf %3, %0 : tensor<3x4xf32>
  %5 = arith.subf %4, %1 : tensor<3x4xf32>
  return %5 : tensor<3x4xf32>
}

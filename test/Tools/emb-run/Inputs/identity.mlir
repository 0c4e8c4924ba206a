// Small models for emb-run's tool tests.
func.func @twice(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = arith.addf %x, %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @ids(%x: tensor<5xi64>) -> tensor<5xi64> {
  %0 = arith.addi %x, %x : tensor<5xi64>
  return %0 : tensor<5xi64>
}

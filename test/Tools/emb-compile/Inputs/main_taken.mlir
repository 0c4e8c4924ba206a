// @main, whose C name emb_main is taken by another function of the module.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

func.func @emb_main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

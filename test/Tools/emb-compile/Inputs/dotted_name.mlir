// An entry whose name is no C identifier: its C name cannot be declared.
func.func @"my.model"(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

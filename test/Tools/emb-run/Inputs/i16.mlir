// An entry function of an element type the runtime has no dtype for.
func.func @i16(%x: tensor<4xi16>) -> tensor<4xi16> {
  return %x : tensor<4xi16>
}

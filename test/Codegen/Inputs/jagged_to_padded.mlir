// A sequence feature's jagged rows into the padded form, for
// jagged_to_padded_run.test: dynamic values and offsets (the users the
// offsets name must match the result's at run time), truncation at
// max_length, a padding value and the default one.

func.func @seq(%v: tensor<?x4xf32>, %o: tensor<?xi64>) -> (tensor<3x3x4xf32>, tensor<3xi64>) {
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 3, padding_value = -1.0 : f64} : (tensor<?x4xf32>, tensor<?xi64>) -> (tensor<3x3x4xf32>, tensor<3xi64>)
  return %p, %l : tensor<3x3x4xf32>, tensor<3xi64>
}

func.func @seq_static(%v: tensor<?x4xf32>, %o: tensor<?xi64>) -> (tensor<3x3x4xf32>, tensor<3xi64>) {
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 3} : (tensor<?x4xf32>, tensor<?xi64>) -> (tensor<3x3x4xf32>, tensor<3xi64>)
  return %p, %l : tensor<3x3x4xf32>, tensor<3xi64>
}

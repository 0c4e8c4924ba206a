// A jagged sequence feature padded: 40 rows of D 4 in 8 bags, for
// random_roles.test.
func.func @jag(%values: tensor<40x4xf32>, %offsets: tensor<9xi64>) -> (tensor<8x6x4xf32>, tensor<8xi64>) {
  %p, %l = "emb.jagged_to_padded"(%values, %offsets) {max_length = 6 : i64} : (tensor<40x4xf32>, tensor<9xi64>) -> (tensor<8x6x4xf32>, tensor<8xi64>)
  return %p, %l : tensor<8x6x4xf32>, tensor<8xi64>
}

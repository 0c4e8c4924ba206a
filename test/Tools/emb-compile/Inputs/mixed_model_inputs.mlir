// Inputs of mixed_model.mlir, as results to write as .npy: a user id (9)
// past the frozen table's 6 rows.
func.func @bad_user_ids() -> (tensor<4xi64>, tensor<20x8xf32>, tensor<8xi64>, tensor<5xi64>, tensor<8x8xf32>) {
  %ids = arith.constant dense<[0, 1, 9, 2]> : tensor<4xi64>
  %table = arith.constant dense<0.5> : tensor<20x8xf32>
  %bag_ids = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %offsets = arith.constant dense<[0, 2, 4, 6, 8]> : tensor<5xi64>
  %w = arith.constant dense<1.0> : tensor<8x8xf32>
  return %ids, %table, %bag_ids, %offsets, %w : tensor<4xi64>, tensor<20x8xf32>, tensor<8xi64>, tensor<5xi64>, tensor<8x8xf32>
}

// Results whose shape is known only at run time, for dynamic_results.test
// and the ahead-of-time runner built from this file (emb-run-aot-dynamic):
// each is returned through an embrtCompiledResult the call fills.

// A sequence feature's rows (pooling none over a dynamic id list) padded
// per user: [U, 6, 8] and the lengths [U], U from the offsets. First: the
// entry emb-run-aot-dynamic runs.
func.func @padded(%w: tensor<100x8xf32>, %ids: tensor<?xi64>, %off: tensor<?xi64>) -> (tensor<?x6x8xf32>, tensor<?xi64>) {
  %rows = "emb.embedding_bag"(%w, %ids, %off) {mode = "none"} : (tensor<100x8xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x8xf32>
  %p, %l = "emb.jagged_to_padded"(%rows, %off) {max_length = 6, padding_value = -1.0 : f64} : (tensor<?x8xf32>, tensor<?xi64>) -> (tensor<?x6x8xf32>, tensor<?xi64>)
  return %p, %l : tensor<?x6x8xf32>, tensor<?xi64>
}

// The rows alone, pooling none over a dynamic id list: [N, 8].
func.func @sequence(%w: tensor<100x8xf32>, %ids: tensor<?xi64>, %off: tensor<?xi64>) -> tensor<?x8xf32> {
  %0 = "emb.embedding_bag"(%w, %ids, %off) {mode = "none"} : (tensor<100x8xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// One value returned twice and an input returned as is: the first return
// hands over the buffer, the others are copies.
func.func @twice(%w: tensor<100x8xf32>, %ids: tensor<?xi64>, %off: tensor<?xi64>) -> (tensor<?x8xf32>, tensor<?x8xf32>, tensor<?xi64>) {
  %0 = "emb.embedding_bag"(%w, %ids, %off) {mode = "none"} : (tensor<100x8xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x8xf32>
  return %0, %0, %ids : tensor<?x8xf32>, tensor<?x8xf32>, tensor<?xi64>
}

// A broadcast of a broadcast, for sink_broadcast_run.test: 3 users to 4
// sessions by %i1, the sessions to 5 candidates by %i2.
func.func @compose(%u: tensor<3x2xf32>, %i1: tensor<4xi64>, %i2: tensor<5xi64>) -> tensor<5x2xf32> {
  %b1 = "emb.broadcast"(%u, %i1) : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  %b2 = "emb.broadcast"(%b1, %i2) : (tensor<4x2xf32>, tensor<5xi64>) -> tensor<5x2xf32>
  return %b2 : tensor<5x2xf32>
}

// Integer division of two user tensors broadcast from 3 users to 4
// candidates, for sink_broadcast_run.test.
func.func @divide(%a: tensor<3x2xi64>, %b: tensor<3x2xi64>, %c2u: tensor<4xi64>) -> tensor<4x2xi64> {
  %ba = "emb.broadcast"(%a, %c2u) : (tensor<3x2xi64>, tensor<4xi64>) -> tensor<4x2xi64>
  %bb = "emb.broadcast"(%b, %c2u) : (tensor<3x2xi64>, tensor<4xi64>) -> tensor<4x2xi64>
  %d = arith.divsi %ba, %bb : tensor<4x2xi64>
  return %d : tensor<4x2xi64>
}

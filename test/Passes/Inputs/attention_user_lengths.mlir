// Attention over the keys of each candidate's user, the keys, values and key
// lengths broadcast from 3 users to 4 candidates, for
// fuse_broadcast_run.test and sink_broadcast_run.test: @target with
// per-candidate queries (emb-fuse-broadcast makes it an
// emb.ikbo_attention), @user_only with the user's queries broadcast too
// (emb-sink-broadcast would run it on the user rows).
func.func @target(%q: tensor<4x1x1x2xf32>, %k: tensor<3x2x1x2xf32>, %v: tensor<3x2x1x2xf32>, %len: tensor<3xi64>, %c2u: tensor<4xi64>) -> tensor<4x1x1x2xf32> {
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<3x2x1x2xf32>, tensor<4xi64>) -> tensor<4x2x1x2xf32>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<3x2x1x2xf32>, tensor<4xi64>) -> tensor<4x2x1x2xf32>
  %bl = "emb.broadcast"(%len, %c2u) : (tensor<3xi64>, tensor<4xi64>) -> tensor<4xi64>
  %o = "emb.attention"(%q, %bk, %bv, %bl) : (tensor<4x1x1x2xf32>, tensor<4x2x1x2xf32>, tensor<4x2x1x2xf32>, tensor<4xi64>) -> tensor<4x1x1x2xf32>
  return %o : tensor<4x1x1x2xf32>
}

func.func @user_only(%q: tensor<3x1x1x2xf32>, %k: tensor<3x2x1x2xf32>, %v: tensor<3x2x1x2xf32>, %len: tensor<3xi64>, %c2u: tensor<4xi64>) -> tensor<4x1x1x2xf32> {
  %bq = "emb.broadcast"(%q, %c2u) : (tensor<3x1x1x2xf32>, tensor<4xi64>) -> tensor<4x1x1x2xf32>
  %bk = "emb.broadcast"(%k, %c2u) : (tensor<3x2x1x2xf32>, tensor<4xi64>) -> tensor<4x2x1x2xf32>
  %bv = "emb.broadcast"(%v, %c2u) : (tensor<3x2x1x2xf32>, tensor<4xi64>) -> tensor<4x2x1x2xf32>
  %bl = "emb.broadcast"(%len, %c2u) : (tensor<3xi64>, tensor<4xi64>) -> tensor<4xi64>
  %o = "emb.attention"(%bq, %bk, %bv, %bl) : (tensor<4x1x1x2xf32>, tensor<4x2x1x2xf32>, tensor<4x2x1x2xf32>, tensor<4xi64>) -> tensor<4x1x1x2xf32>
  return %o : tensor<4x1x1x2xf32>
}

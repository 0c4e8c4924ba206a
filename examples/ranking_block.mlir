// A Wukong-style ranking block, as a model exporter writes it: for one request
// batch of 4 users and 24 candidates (6 per user), look up the users' and the
// candidates' sparse features, broadcast the user embeddings to candidate
// rows, transform them, concatenate user and candidate embeddings along K and
// compress them with a linear compression (LCE).
//
//   user features:      3, from two tables (features 0 and 2 share table 0)
//   candidate features: 5, one table each, looked up one at a time
//   embedding dim N:    16;  LCE: [M=8, K=3+5] @ [K, N] per candidate
//
// emb-ikbo rewrites it so that nothing user-sized is copied per candidate.
func.func @ranking_block(
    %user_ids: tensor<?xi64>, %user_offsets: tensor<13xi64>,
    %user_t0: tensor<100x16xf32>, %user_t1: tensor<50x16xf32>,
    %cand_ids0: tensor<?xi64>, %cand_off0: tensor<25xi64>,
    %cand_ids1: tensor<?xi64>, %cand_off1: tensor<25xi64>,
    %cand_ids2: tensor<?xi64>, %cand_off2: tensor<25xi64>,
    %cand_ids3: tensor<?xi64>, %cand_off3: tensor<25xi64>,
    %cand_ids4: tensor<?xi64>, %cand_off4: tensor<25xi64>,
    %cand_t0: tensor<200x16xf32>, %cand_t1: tensor<200x16xf32>,
    %cand_t2: tensor<200x16xf32>, %cand_t3: tensor<200x16xf32>,
    %cand_t4: tensor<200x16xf32>,
    %cand_to_user: tensor<24xi32>,
    %w: tensor<8x8xf32>) -> tensor<24x8x16xf32> {
  // User features: one table-batched lookup at user batch size.
  %h0 = "emb.table"(%user_t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%user_t1) : (tensor<50x16xf32>) -> !emb.table_handle
  %user = "emb.tbe"(%user_ids, %user_offsets, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1, 0>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x48xf32>
  %user3 = tensor.expand_shape %user [[0], [1, 2]] output_shape [4, 3, 16] : tensor<4x48xf32> into tensor<4x3x16xf32>

  // The exporter broadcasts users to candidate rows first, then transforms.
  %user_b = "emb.broadcast"(%user3, %cand_to_user) : (tensor<4x3x16xf32>, tensor<24xi32>) -> tensor<24x3x16xf32>
  %user_act = math.tanh %user_b : tensor<24x3x16xf32>

  // Candidate features: one lookup per feature.
  %c0 = "emb.embedding_bag"(%cand_t0, %cand_ids0, %cand_off0) {mode = "mean"} : (tensor<200x16xf32>, tensor<?xi64>, tensor<25xi64>) -> tensor<24x16xf32>
  %c1 = "emb.embedding_bag"(%cand_t1, %cand_ids1, %cand_off1) {mode = "mean"} : (tensor<200x16xf32>, tensor<?xi64>, tensor<25xi64>) -> tensor<24x16xf32>
  %c2 = "emb.embedding_bag"(%cand_t2, %cand_ids2, %cand_off2) {mode = "mean"} : (tensor<200x16xf32>, tensor<?xi64>, tensor<25xi64>) -> tensor<24x16xf32>
  %c3 = "emb.embedding_bag"(%cand_t3, %cand_ids3, %cand_off3) {mode = "mean"} : (tensor<200x16xf32>, tensor<?xi64>, tensor<25xi64>) -> tensor<24x16xf32>
  %c4 = "emb.embedding_bag"(%cand_t4, %cand_ids4, %cand_off4) {mode = "mean"} : (tensor<200x16xf32>, tensor<?xi64>, tensor<25xi64>) -> tensor<24x16xf32>
  %cand = tensor.concat dim(1) %c0, %c1, %c2, %c3, %c4 : (tensor<24x16xf32>, tensor<24x16xf32>, tensor<24x16xf32>, tensor<24x16xf32>, tensor<24x16xf32>) -> tensor<24x80xf32>
  %cand3 = tensor.expand_shape %cand [[0], [1, 2]] output_shape [24, 5, 16] : tensor<24x80xf32> into tensor<24x5x16xf32>

  // Linear compression over user and candidate embeddings.
  %x = tensor.concat dim(1) %user_act, %cand3 : (tensor<24x3x16xf32>, tensor<24x5x16xf32>) -> tensor<24x8x16xf32>
  %y = "emb.lce"(%w, %x) : (tensor<8x8xf32>, tensor<24x8x16xf32>) -> tensor<24x8x16xf32>
  return %y : tensor<24x8x16xf32>
}

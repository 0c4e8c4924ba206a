// Models for compare.test: what --compare-unoptimized checks besides the
// results (updates in place, and which side fails). Each pairs with a
// pipeline that changes what it computes on purpose, emb-compute-type
// (attention computed from operands rounded to bf16), so the differences
// stay whatever the passes of emb-ikbo and emb-from-torch become.

// A training step that returns its forward only: the gradient comes from an
// attention, and only the table the backward updates in place tells the
// two sides apart.
func.func @attention_step(%q: tensor<4x1x1x8xf32>, %k: tensor<4x6x1x8xf32>, %v: tensor<4x6x1x8xf32>, %ids: tensor<8xi64>, %offsets: tensor<5xi64>, %table: tensor<10x8xf32>, %hyper: tensor<5xf32>) -> tensor<4x8xf32> {
  %a = "emb.attention"(%q, %k, %v) : (tensor<4x1x1x8xf32>, tensor<4x6x1x8xf32>, tensor<4x6x1x8xf32>) -> tensor<4x1x1x8xf32>
  %grad = tensor.collapse_shape %a [[0, 1, 2], [3]] : tensor<4x1x1x8xf32> into tensor<4x8xf32>
  %h = "emb.table"(%table) : (tensor<10x8xf32>) -> !emb.table_handle
  %pooled = "emb.tbe"(%ids, %offsets, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  %new = "emb.tbe_backward"(%ids, %offsets, %h, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x8xf32>, tensor<5xf32>) -> !emb.table_handle
  return %pooled : tensor<4x8xf32>
}

// Ids computed from numbers: trunc(4 * attention(q, k, v)), looked up in a
// table of 4 rows. With one key the attention is v itself; v = 0.99999 is
// id 3 as written, and 1.0 (so id 4, past the table) once rounded to bf16.
func.func @ids_from_attention(%q: tensor<1x1x1x4xf32>, %k: tensor<1x1x1x4xf32>, %v: tensor<1x1x1x4xf32>, %w: tensor<4x2xf32>, %offsets: tensor<2xi64>) -> tensor<1x2xf32> {
  %a = "emb.attention"(%q, %k, %v) : (tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  %flat = tensor.collapse_shape %a [[0, 1, 2, 3]] : tensor<1x1x1x4xf32> into tensor<4xf32>
  %four = arith.constant 4.0 : f32
  %e = tensor.empty() : tensor<4xi64>
  %ids = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%flat : tensor<4xf32>) outs(%e : tensor<4xi64>) {
  ^bb0(%x: f32, %out: i64):
    %s = arith.mulf %x, %four : f32
    %i = arith.fptosi %s : f32 to i64
    linalg.yield %i : i64
  } -> tensor<4xi64>
  %bag = "emb.embedding_bag"(%w, %ids, %offsets) {mode = "sum"} : (tensor<4x2xf32>, tensor<4xi64>, tensor<2xi64>) -> tensor<1x2xf32>
  return %bag : tensor<1x2xf32>
}

// A cast of a dynamic size to 4: an error for any other size.
func.func @cast_to_four(%x: tensor<?xf32>) -> tensor<4xf32> {
  %c = tensor.cast %x : tensor<?xf32> to tensor<4xf32>
  return %c : tensor<4xf32>
}

// Zeros whatever the input: a comparison of it checks nothing.
func.func @times_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// Attention of one query row over 3 keys (a single head of 8): an inf in a
// value makes that output column inf on both sides, and the rest is still
// compared.
func.func @attention_inf(%q: tensor<1x1x1x8xf32>, %k: tensor<1x3x1x8xf32>, %v: tensor<1x3x1x8xf32>) -> tensor<1x1x1x8xf32> {
  %o = "emb.attention"(%q, %k, %v) : (tensor<1x1x1x8xf32>, tensor<1x3x1x8xf32>, tensor<1x3x1x8xf32>) -> tensor<1x1x1x8xf32>
  return %o : tensor<1x1x1x8xf32>
}

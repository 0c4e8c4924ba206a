// Every emb op parses, verifies and prints back; printing twice gives the
// same text, in the generic form too.
// RUN: emb-opt %s | emb-opt | FileCheck %s
// RUN: emb-opt %s --mlir-print-op-generic | emb-opt | FileCheck %s
// REQUIRES: emb-compiler

// CHECK-LABEL: func.func @embedding_bag_sum
// CHECK: "emb.embedding_bag"(%{{.*}}, %{{.*}}, %{{.*}}) {mode = "sum"} : (tensor<1000x64xf16>, tensor<?xi64>, tensor<33xi64>) -> tensor<32x64xf16>
func.func @embedding_bag_sum(%w: tensor<1000x64xf16>, %idx: tensor<?xi64>, %off: tensor<33xi64>) -> tensor<32x64xf16> {
  %0 = "emb.embedding_bag"(%w, %idx, %off) {mode = "sum"} : (tensor<1000x64xf16>, tensor<?xi64>, tensor<33xi64>) -> tensor<32x64xf16>
  return %0 : tensor<32x64xf16>
}

// CHECK-LABEL: func.func @embedding_bag_mean_padding
// CHECK: "emb.embedding_bag"(%{{.*}}, %{{.*}}, %{{.*}}) {bounds_check = "warning", mode = "mean", padding_idx = 0 : i64} : (tensor<1000x32xbf16>, tensor<96xi32>, tensor<33xi32>) -> tensor<32x32xf32>
func.func @embedding_bag_mean_padding(%w: tensor<1000x32xbf16>, %idx: tensor<96xi32>, %off: tensor<33xi32>) -> tensor<32x32xf32> {
  %0 = "emb.embedding_bag"(%w, %idx, %off) {mode = "mean", padding_idx = 0 : i64, bounds_check = "warning"} : (tensor<1000x32xbf16>, tensor<96xi32>, tensor<33xi32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// CHECK-LABEL: func.func @embedding_bag_weighted
// CHECK: "emb.embedding_bag"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {mode = "sum"} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<96xf32>) -> tensor<32x16xf32>
func.func @embedding_bag_weighted(%w: tensor<1000x16xf32>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %psw: tensor<96xf32>) -> tensor<32x16xf32> {
  %0 = "emb.embedding_bag"(%w, %idx, %off, %psw) {mode = "sum"} : (tensor<1000x16xf32>, tensor<96xi64>, tensor<33xi64>, tensor<96xf32>) -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// CHECK-LABEL: func.func @embedding_bag_none
// CHECK: "emb.embedding_bag"(%{{.*}}, %{{.*}}, %{{.*}}) {mode = "none"} : (tensor<1000x16xf16>, tensor<96xi64>, tensor<33xi64>) -> tensor<96x16xf16>
func.func @embedding_bag_none(%w: tensor<1000x16xf16>, %idx: tensor<96xi64>, %off: tensor<33xi64>) -> tensor<96x16xf16> {
  %0 = "emb.embedding_bag"(%w, %idx, %off) {mode = "none"} : (tensor<1000x16xf16>, tensor<96xi64>, tensor<33xi64>) -> tensor<96x16xf16>
  return %0 : tensor<96x16xf16>
}

// Tables of different shapes reach emb.tbe as handles made by emb.table.
// Three features over two tables (features 0 and 2 share table 0): the
// result is [B, 64 + 32 + 64] in feature order.
// CHECK-LABEL: func.func @tbe_shared_tables
// CHECK: %[[H0:.+]] = "emb.table"(%{{.*}}) : (tensor<100x64xf16>) -> !emb.table_handle
// CHECK: %[[H1:.+]] = "emb.table"(%{{.*}}) : (tensor<50x32xf16>) -> !emb.table_handle
// CHECK: "emb.tbe"(%{{.*}}, %{{.*}}, %[[H0]], %[[H1]]) {bounds_check = "fatal", feature_tables = array<i64: 0, 1, 0>, operandSegmentSizes = array<i32: 1, 1, 2, 0>, pooling = "sum"} : (tensor<?xi32>, tensor<25xi32>, !emb.table_handle, !emb.table_handle) -> tensor<8x160xf32>
func.func @tbe_shared_tables(%idx: tensor<?xi32>, %off: tensor<25xi32>, %t0: tensor<100x64xf16>, %t1: tensor<50x32xf16>) -> tensor<8x160xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1, 0>, bounds_check = "fatal", operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi32>, tensor<25xi32>, !emb.table_handle, !emb.table_handle) -> tensor<8x160xf32>
  return %0 : tensor<8x160xf32>
}

// CHECK-LABEL: func.func @tbe_weighted_dynamic
// CHECK: "emb.tbe"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, padding_idx = 0 : i64, pooling = "sum"} : (tensor<?xi64>, tensor<?xi64>, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<?x24xbf16>
func.func @tbe_weighted_dynamic(%idx: tensor<?xi64>, %off: tensor<?xi64>, %t0: tensor<?x16xbf16>, %t1: tensor<?x8xbf16>, %psw: tensor<?xf32>) -> tensor<?x24xbf16> {
  %h0 = "emb.table"(%t0) : (tensor<?x16xbf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<?x8xbf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %psw) {pooling = "sum", feature_tables = array<i64: 0, 1>, padding_idx = 0 : i64, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (tensor<?xi64>, tensor<?xi64>, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<?x24xbf16>
  return %0 : tensor<?x24xbf16>
}

// CHECK-LABEL: func.func @tbe_sequence
// CHECK: "emb.tbe"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>, pooling = "none"} : (tensor<40xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<40x16xf32>
func.func @tbe_sequence(%idx: tensor<40xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x16xf32>) -> tensor<40x16xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x16xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "none", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<40xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<40x16xf32>
  return %0 : tensor<40x16xf32>
}

// CHECK-LABEL: func.func @broadcast
// CHECK: "emb.broadcast"(%{{.*}}, %{{.*}}) : (tensor<15x1178x256xf16>, tensor<1024xi32>) -> tensor<1024x1178x256xf16>
// CHECK: "emb.broadcast"(%{{.*}}, %{{.*}}) : (tensor<?x64xf32>, tensor<?xi64>) -> tensor<?x64xf32>
func.func @broadcast(%u: tensor<15x1178x256xf16>, %c2u: tensor<1024xi32>, %v: tensor<?x64xf32>, %c2u64: tensor<?xi64>) -> (tensor<1024x1178x256xf16>, tensor<?x64xf32>) {
  %0 = "emb.broadcast"(%u, %c2u) : (tensor<15x1178x256xf16>, tensor<1024xi32>) -> tensor<1024x1178x256xf16>
  %1 = "emb.broadcast"(%v, %c2u64) : (tensor<?x64xf32>, tensor<?xi64>) -> tensor<?x64xf32>
  return %0, %1 : tensor<1024x1178x256xf16>, tensor<?x64xf32>
}

// CHECK-LABEL: func.func @jagged_to_padded
// CHECK: "emb.jagged_to_padded"(%{{.*}}, %{{.*}}) {max_length = 1024 : i64} : (tensor<?x128xf16>, tensor<33xi64>) -> (tensor<32x1024x128xf16>, tensor<32xi64>)
// CHECK: "emb.jagged_to_padded"(%{{.*}}, %{{.*}}) {max_length = 8 : i64, padding_value = -1.000000e+00 : f64} : (tensor<?x4xf32>, tensor<?xi32>) -> (tensor<?x8x4xf32>, tensor<?xi32>)
func.func @jagged_to_padded(%v: tensor<?x128xf16>, %o: tensor<33xi64>, %w: tensor<?x4xf32>, %o32: tensor<?xi32>) -> (tensor<32x1024x128xf16>, tensor<32xi64>, tensor<?x8x4xf32>, tensor<?xi32>) {
  %p, %l = "emb.jagged_to_padded"(%v, %o) {max_length = 1024} : (tensor<?x128xf16>, tensor<33xi64>) -> (tensor<32x1024x128xf16>, tensor<32xi64>)
  %q, %m = "emb.jagged_to_padded"(%w, %o32) {max_length = 8, padding_value = -1.0 : f64} : (tensor<?x4xf32>, tensor<?xi32>) -> (tensor<?x8x4xf32>, tensor<?xi32>)
  return %p, %l, %q, %m : tensor<32x1024x128xf16>, tensor<32xi64>, tensor<?x8x4xf32>, tensor<?xi32>
}

// CHECK-LABEL: func.func @lce
// CHECK: "emb.lce"(%{{.*}}, %{{.*}}) : (tensor<433x2044xf16>, tensor<1024x2044x256xf16>) -> tensor<1024x433x256xf16>
func.func @lce(%w: tensor<433x2044xf16>, %x: tensor<1024x2044x256xf16>) -> tensor<1024x433x256xf16> {
  %0 = "emb.lce"(%w, %x) : (tensor<433x2044xf16>, tensor<1024x2044x256xf16>) -> tensor<1024x433x256xf16>
  return %0 : tensor<1024x433x256xf16>
}

// CHECK-LABEL: func.func @ikbo_lce
// CHECK: "emb.ikbo_lce"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<433x1184xbf16>, tensor<433x872xbf16>, tensor<15x1184x256xbf16>, tensor<1024x872x256xbf16>, tensor<1024xi64>) -> tensor<1024x433x256xbf16>
func.func @ikbo_lce(%wu: tensor<433x1184xbf16>, %wc: tensor<433x872xbf16>, %u: tensor<15x1184x256xbf16>, %c: tensor<1024x872x256xbf16>, %c2u: tensor<1024xi64>) -> tensor<1024x433x256xbf16> {
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) : (tensor<433x1184xbf16>, tensor<433x872xbf16>, tensor<15x1184x256xbf16>, tensor<1024x872x256xbf16>, tensor<1024xi64>) -> tensor<1024x433x256xbf16>
  return %0 : tensor<1024x433x256xbf16>
}

// CHECK-LABEL: func.func @ikbo_lce_in_bf16
// CHECK: "emb.ikbo_lce"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {compute_type = bf16} : (tensor<433x1184xf32>, tensor<433x872xf32>, tensor<15x1184x256xf32>, tensor<1024x872x256xf32>, tensor<1024xi64>) -> tensor<1024x433x256xf32>
func.func @ikbo_lce_in_bf16(%wu: tensor<433x1184xf32>, %wc: tensor<433x872xf32>, %u: tensor<15x1184x256xf32>, %c: tensor<1024x872x256xf32>, %c2u: tensor<1024xi64>) -> tensor<1024x433x256xf32> {
  %0 = "emb.ikbo_lce"(%wu, %wc, %u, %c, %c2u) {compute_type = bf16} : (tensor<433x1184xf32>, tensor<433x872xf32>, tensor<15x1184x256xf32>, tensor<1024x872x256xf32>, tensor<1024xi64>) -> tensor<1024x433x256xf32>
  return %0 : tensor<1024x433x256xf32>
}

// CHECK-LABEL: func.func @attention
// CHECK: "emb.attention"(%{{.*}}, %{{.*}}, %{{.*}}) {scale = 1.250000e-01 : f32} : (tensor<2048x64x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048x1024x2x128xf16>) -> tensor<2048x64x2x128xf16>
func.func @attention(%q: tensor<2048x64x2x128xf16>, %k: tensor<2048x1024x2x128xf16>, %v: tensor<2048x1024x2x128xf16>) -> tensor<2048x64x2x128xf16> {
  %0 = "emb.attention"(%q, %k, %v) {scale = 0.125 : f32} : (tensor<2048x64x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048x1024x2x128xf16>) -> tensor<2048x64x2x128xf16>
  return %0 : tensor<2048x64x2x128xf16>
}

// CHECK-LABEL: func.func @attention_in_bf16
// CHECK: "emb.attention"(%{{.*}}, %{{.*}}, %{{.*}}) {compute_type = bf16} : (tensor<64x4x2x128xf32>, tensor<64x256x2x128xf32>, tensor<64x256x2x128xf32>) -> tensor<64x4x2x128xf32>
func.func @attention_in_bf16(%q: tensor<64x4x2x128xf32>, %k: tensor<64x256x2x128xf32>, %v: tensor<64x256x2x128xf32>) -> tensor<64x4x2x128xf32> {
  %0 = "emb.attention"(%q, %k, %v) {compute_type = bf16} : (tensor<64x4x2x128xf32>, tensor<64x256x2x128xf32>, tensor<64x256x2x128xf32>) -> tensor<64x4x2x128xf32>
  return %0 : tensor<64x4x2x128xf32>
}

// CHECK-LABEL: func.func @attention_key_lengths
// CHECK: "emb.attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2048x1x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048xi64>) -> tensor<2048x1x2x128xf16>
func.func @attention_key_lengths(%q: tensor<2048x1x2x128xf16>, %k: tensor<2048x1024x2x128xf16>, %v: tensor<2048x1024x2x128xf16>, %len: tensor<2048xi64>) -> tensor<2048x1x2x128xf16> {
  %0 = "emb.attention"(%q, %k, %v, %len) : (tensor<2048x1x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048xi64>) -> tensor<2048x1x2x128xf16>
  return %0 : tensor<2048x1x2x128xf16>
}

// CHECK-LABEL: func.func @attention_additive_mask
// CHECK: "emb.attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {additive_mask} : (tensor<2048x1x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048xi64>) -> tensor<2048x1x2x128xf16>
// CHECK: "emb.ikbo_attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) {additive_mask} : (tensor<2048x1x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<2048xi64>, tensor<32xi64>) -> tensor<2048x1x2x128xf16>
func.func @attention_additive_mask(%q: tensor<2048x1x2x128xf16>, %k: tensor<2048x1024x2x128xf16>, %v: tensor<2048x1024x2x128xf16>, %len: tensor<2048xi64>, %ku: tensor<32x1024x2x128xf16>, %vu: tensor<32x1024x2x128xf16>, %c2u: tensor<2048xi64>, %ulen: tensor<32xi64>) -> (tensor<2048x1x2x128xf16>, tensor<2048x1x2x128xf16>) {
  %0 = "emb.attention"(%q, %k, %v, %len) {additive_mask} : (tensor<2048x1x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048xi64>) -> tensor<2048x1x2x128xf16>
  %1 = "emb.ikbo_attention"(%q, %ku, %vu, %c2u, %ulen) {additive_mask} : (tensor<2048x1x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<2048xi64>, tensor<32xi64>) -> tensor<2048x1x2x128xf16>
  return %0, %1 : tensor<2048x1x2x128xf16>, tensor<2048x1x2x128xf16>
}

// CHECK-LABEL: func.func @ikbo_attention
// CHECK: "emb.ikbo_attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2048x64x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<2048xi32>) -> tensor<2048x64x2x128xf16>
// CHECK: "emb.ikbo_attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2048x64x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<2048xi32>, tensor<32xi32>) -> tensor<2048x64x2x128xf16>
func.func @ikbo_attention(%q: tensor<2048x64x2x128xf16>, %k: tensor<32x1024x2x128xf16>, %v: tensor<32x1024x2x128xf16>, %c2u: tensor<2048xi32>, %len: tensor<32xi32>) -> (tensor<2048x64x2x128xf16>, tensor<2048x64x2x128xf16>) {
  %0 = "emb.ikbo_attention"(%q, %k, %v, %c2u) : (tensor<2048x64x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<2048xi32>) -> tensor<2048x64x2x128xf16>
  %1 = "emb.ikbo_attention"(%q, %k, %v, %c2u, %len) : (tensor<2048x64x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<32x1024x2x128xf16>, tensor<2048xi32>, tensor<32xi32>) -> tensor<2048x64x2x128xf16>
  return %0, %1 : tensor<2048x64x2x128xf16>, tensor<2048x64x2x128xf16>
}

// CHECK-LABEL: func.func @broadcast_add
// CHECK: "emb.broadcast_add"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<15x433x256xf16>, tensor<1024xi32>, tensor<1024x433x256xf16>) -> tensor<1024x433x256xf16>
func.func @broadcast_add(%ro: tensor<15x433x256xf16>, %c2u: tensor<1024xi32>, %nro: tensor<1024x433x256xf16>) -> tensor<1024x433x256xf16> {
  %0 = "emb.broadcast_add"(%ro, %c2u, %nro) : (tensor<15x433x256xf16>, tensor<1024xi32>, tensor<1024x433x256xf16>) -> tensor<1024x433x256xf16>
  return %0 : tensor<1024x433x256xf16>
}

// Training. A training step with SGD: the forward, then the backward with
// the gradient of the forward's output; the updated table comes back as a
// handle and emb.table_value gives its tensor. Three features over two
// tables, as in @tbe_shared_tables.
// CHECK-LABEL: func.func @tbe_backward_sgd
// CHECK: %[[H0:.+]] = "emb.table"(%{{.*}}) : (tensor<100x64xf16>) -> !emb.table_handle
// CHECK: %[[H1:.+]] = "emb.table"(%{{.*}}) : (tensor<50x32xf16>) -> !emb.table_handle
// CHECK: "emb.tbe"(%{{.*}}, %{{.*}}, %[[H0]], %[[H1]])
// CHECK: %[[NEW:.+]]:2 = "emb.tbe_backward"(%{{.*}}, %{{.*}}, %[[H0]], %[[H1]], %{{.*}}, %{{.*}}) {feature_tables = array<i64: 0, 1, 0>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, optimizer = "sgd", pooling = "sum", resultSegmentSizes = array<i32: 2, 0, 0>, seed = 7 : i64} : (tensor<?xi32>, tensor<25xi32>, !emb.table_handle, !emb.table_handle, tensor<8x160xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
// CHECK: "emb.table_value"(%[[NEW]]#0) : (!emb.table_handle) -> tensor<100x64xf16>
// CHECK: "emb.table_value"(%[[NEW]]#1) : (!emb.table_handle) -> tensor<50x32xf16>
func.func @tbe_backward_sgd(%idx: tensor<?xi32>, %off: tensor<25xi32>, %t0: tensor<100x64xf16>, %t1: tensor<50x32xf16>, %grad: tensor<8x160xf32>, %hyper: tensor<5xf32>) -> (tensor<8x160xf32>, tensor<100x64xf16>, tensor<50x32xf16>) {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf16>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1, 0>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi32>, tensor<25xi32>, !emb.table_handle, !emb.table_handle) -> tensor<8x160xf32>
  %new:2 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1, 0>, seed = 7 : i64, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<?xi32>, tensor<25xi32>, !emb.table_handle, !emb.table_handle, tensor<8x160xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<100x64xf16>
  %n1 = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<50x32xf16>
  return %0, %n0, %n1 : tensor<8x160xf32>, tensor<100x64xf16>, tensor<50x32xf16>
}

// Exact rowwise Adagrad: one f32 state per table row, named by emb.state;
// weighted, with padding ids and ids out of range skipped (warning).
// CHECK-LABEL: func.func @tbe_backward_rowwise_adagrad
// CHECK: %[[S0:.+]] = "emb.state"(%{{.*}}) : (tensor<100xf32>) -> !emb.state_handle
// CHECK: %[[S1:.+]] = "emb.state"(%{{.*}}) : (tensor<?xf32>) -> !emb.state_handle
// CHECK: %[[NEW:.+]]:4 = "emb.tbe_backward"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[S0]], %[[S1]], %{{.*}}) {bounds_check = "warning", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 1, 1, 2, 0, 1, 0>, optimizer = "rowwise_adagrad", padding_idx = 0 : i64, pooling = "sum", resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<?xi64>, tensor<?xi64>, !emb.table_handle, !emb.table_handle, tensor<?xf32>, tensor<?x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
// CHECK: "emb.table_value"(%[[NEW]]#2) : (!emb.state_handle) -> tensor<100xf32>
func.func @tbe_backward_rowwise_adagrad(%idx: tensor<?xi64>, %off: tensor<?xi64>, %t0: tensor<100x16xf32>, %t1: tensor<?x8xf32>, %psw: tensor<?xf32>, %grad: tensor<?x24xf32>, %m0: tensor<100xf32>, %m1: tensor<?xf32>, %hyper: tensor<5xf32>) -> (tensor<100x16xf32>, tensor<100xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<?x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<?xf32>) -> !emb.state_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %psw, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, padding_idx = 0 : i64, bounds_check = "warning", operandSegmentSizes = array<i32: 1, 1, 2, 1, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<?xi64>, tensor<?xi64>, !emb.table_handle, !emb.table_handle, tensor<?xf32>, tensor<?x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<100x16xf32>
  %m = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<100xf32>
  return %n0, %m : tensor<100x16xf32>, tensor<100xf32>
}

// Adam: m and v per element, and the step for the bias correction.
// Pooling none: the gradient has one row per id.
// CHECK-LABEL: func.func @tbe_backward_adam
// CHECK: "emb.tbe_backward"(%{{.*}}) {feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 1, 1, 1>, optimizer = "adam", pooling = "none", resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<40xi32>, tensor<5xi32>, !emb.table_handle, tensor<40x16xbf16>, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
func.func @tbe_backward_adam(%idx: tensor<40xi32>, %off: tensor<5xi32>, %t0: tensor<100x16xbf16>, %grad: tensor<40x16xbf16>, %m: tensor<100x16xf32>, %v: tensor<100x16xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) -> (tensor<100x16xbf16>, tensor<100x16xf32>, tensor<100x16xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x16xbf16>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100x16xf32>) -> !emb.state_handle
  %sv = "emb.state"(%v) : (tensor<100x16xf32>) -> !emb.state_handle
  %new:3 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %sv, %hyper, %step) {optimizer = "adam", pooling = "none", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<40xi32>, tensor<5xi32>, !emb.table_handle, tensor<40x16xbf16>, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<100x16xbf16>
  %n1 = "emb.table_value"(%new#1) : (!emb.state_handle) -> tensor<100x16xf32>
  %n2 = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<100x16xf32>
  return %n0, %n1, %n2 : tensor<100x16xbf16>, tensor<100x16xf32>, tensor<100x16xf32>
}

// Adam with m in fp8 e4m3 and v in fp8 e5m2: each state's i8 codes, then
// its f32 scales (one a row), updated together.
// CHECK-LABEL: func.func @tbe_backward_adam_fp8
// CHECK: "emb.tbe_backward"(%{{.*}}) {feature_tables = array<i64: 0>, momentum1_precision = "fp8_e4m3", momentum2_precision = "fp8_e5m2", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 2, 2, 1, 1>, optimizer = "adam", pooling = "sum", resultSegmentSizes = array<i32: 1, 2, 2>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)
func.func @tbe_backward_adam_fp8(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x16xf32>, %m: tensor<100x16xi8>, %ms: tensor<100xf32>, %v: tensor<100x16xi8>, %vs: tensor<100xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) -> (tensor<100x16xi8>, tensor<100xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100x16xi8>) -> !emb.state_handle
  %sms = "emb.state"(%ms) : (tensor<100xf32>) -> !emb.state_handle
  %sv = "emb.state"(%v) : (tensor<100x16xi8>) -> !emb.state_handle
  %svs = "emb.state"(%vs) : (tensor<100xf32>) -> !emb.state_handle
  %new:5 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %sms, %sv, %svs, %hyper, %step) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "fp8_e4m3", momentum2_precision = "fp8_e5m2", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 2, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 2>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)
  %n1 = "emb.table_value"(%new#1) : (!emb.state_handle) -> tensor<100x16xi8>
  %n2 = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<100xf32>
  return %n1, %n2 : tensor<100x16xi8>, tensor<100xf32>
}

// Rowwise Adagrad with its row states in bf16.
// CHECK-LABEL: func.func @embedding_bag_backward_bf16_state
// CHECK: "emb.embedding_bag_backward"(%{{.*}}) {mode = "sum", momentum1_precision = "bf16", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, optimizer = "rowwise_adagrad", resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x32xf32>, tensor<96xi32>, tensor<33xi32>, tensor<32x32xf32>, tensor<1000xbf16>, tensor<5xf32>) -> (tensor<1000x32xf32>, tensor<1000xbf16>)
func.func @embedding_bag_backward_bf16_state(%w: tensor<1000x32xf32>, %idx: tensor<96xi32>, %off: tensor<33xi32>, %grad: tensor<32x32xf32>, %m: tensor<1000xbf16>, %hyper: tensor<5xf32>) -> (tensor<1000x32xf32>, tensor<1000xbf16>) {
  %new:2 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %hyper) {optimizer = "rowwise_adagrad", mode = "sum", momentum1_precision = "bf16", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x32xf32>, tensor<96xi32>, tensor<33xi32>, tensor<32x32xf32>, tensor<1000xbf16>, tensor<5xf32>) -> (tensor<1000x32xf32>, tensor<1000xbf16>)
  return %new#0, %new#1 : tensor<1000x32xf32>, tensor<1000xbf16>
}

// One table, one feature: tensors in and out, no handles.
// CHECK-LABEL: func.func @embedding_bag_backward
// CHECK: "emb.embedding_bag_backward"(%{{.*}}) {mode = "mean", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, optimizer = "rowwise_adagrad", resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x32xf16>, tensor<96xi32>, tensor<33xi32>, tensor<32x32xf32>, tensor<1000xf32>, tensor<5xf32>) -> (tensor<1000x32xf16>, tensor<1000xf32>)
func.func @embedding_bag_backward(%w: tensor<1000x32xf16>, %idx: tensor<96xi32>, %off: tensor<33xi32>, %grad: tensor<32x32xf32>, %m: tensor<1000xf32>, %hyper: tensor<5xf32>) -> (tensor<1000x32xf16>, tensor<1000xf32>) {
  %new:2 = "emb.embedding_bag_backward"(%w, %idx, %off, %grad, %m, %hyper) {optimizer = "rowwise_adagrad", mode = "mean", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 1, 0>} : (tensor<1000x32xf16>, tensor<96xi32>, tensor<33xi32>, tensor<32x32xf32>, tensor<1000xf32>, tensor<5xf32>) -> (tensor<1000x32xf16>, tensor<1000xf32>)
  return %new#0, %new#1 : tensor<1000x32xf16>, tensor<1000xf32>
}

// A sharding plan on emb.tbe: one entry per table (docs/sharding.md).
// CHECK-LABEL: func.func @tbe_sharding_plan
// CHECK: "emb.tbe"(%{{.*}}) {feature_tables = array<i64: 0, 1, 3>, operandSegmentSizes = array<i32: 1, 1, 4, 0>, pooling = "sum", sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 60, 100>}, {col_ranges = array<i64: 0, 16, 32>, kind = "column_wise", ranks = array<i64: 1, 0>}, {kind = "table_wise", ranks = array<i64: 1>}, {kind = "data_parallel"}], world_size = 2 : i64}
func.func @tbe_sharding_plan(%idx: tensor<?xi64>, %off: tensor<25xi64>, %t0: tensor<100x64xf32>, %t1: tensor<50x32xf32>, %t2: tensor<10x16xf32>, %t3: tensor<7x8xf32>) -> tensor<8x104xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<10x16xf32>) -> !emb.table_handle
  %h3 = "emb.table"(%t3) : (tensor<7x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %h3) {pooling = "sum", feature_tables = array<i64: 0, 1, 3>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 60, 100>}, {kind = "column_wise", ranks = array<i64: 1, 0>, col_ranges = array<i64: 0, 16, 32>}, {kind = "table_wise", ranks = array<i64: 1>}, {kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 4, 0>} : (tensor<?xi64>, tensor<25xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<8x104xf32>
  return %0 : tensor<8x104xf32>
}

// The input and output dists of a sharded lookup: bucketize, the lengths'
// all_to_all (counts from the plan), offsets, the ids' all_to_all (counts
// as operands), reduce_scatter and all_gather.
// CHECK-LABEL: func.func @collectives
// CHECK: %[[B:.+]]:3 = "emb.bucketize"(%{{.*}}, %{{.*}}) {slot_features = array<i64: 0, 0, 2>, slot_ranks = array<i64: 0, 1, 1>, slot_row_begin = array<i64: 0, 60, 0>, slot_row_end = array<i64: 60, 100, 7>, world_size = 2 : i64} : (tensor<?xi64>, tensor<25xi64>) -> (tensor<?xi64>, tensor<24xi64>, tensor<2xi64>)
// CHECK: %[[L:.+]] = "emb.all_to_all"(%[[B]]#1) {recv_splits = array<i64: 8, 8>, send_splits = array<i64: 8, 16>, world_size = 2 : i64} : (tensor<24xi64>) -> tensor<16xi64>
// CHECK: %[[O:.+]]:2 = "emb.lengths_to_offsets"(%[[L]]) {blocks = 2 : i64} : (tensor<16xi64>) -> (tensor<17xi64>, tensor<2xi64>)
// CHECK: "emb.all_to_all"(%[[B]]#0, %[[B]]#2, %[[O]]#1) {world_size = 2 : i64} : (tensor<?xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
// CHECK: %[[RS:.+]] = "emb.reduce_scatter"(%{{.*}}) {world_size = 2 : i64} : (tensor<16x8xf32>) -> tensor<8x8xf32>
// CHECK: "emb.all_gather"(%[[RS]]) {world_size = 2 : i64} : (tensor<8x8xf32>) -> tensor<16x8xf32>
func.func @collectives(%idx: tensor<?xi64>, %off: tensor<25xi64>, %x: tensor<16x8xf32>) -> (tensor<?xi64>, tensor<17xi64>, tensor<16x8xf32>) {
  %ids, %lens, %cnt = "emb.bucketize"(%idx, %off) {world_size = 2 : i64, slot_ranks = array<i64: 0, 1, 1>, slot_features = array<i64: 0, 0, 2>, slot_row_begin = array<i64: 0, 60, 0>, slot_row_end = array<i64: 60, 100, 7>} : (tensor<?xi64>, tensor<25xi64>) -> (tensor<?xi64>, tensor<24xi64>, tensor<2xi64>)
  %rl = "emb.all_to_all"(%lens) {world_size = 2 : i64, send_splits = array<i64: 8, 16>, recv_splits = array<i64: 8, 8>} : (tensor<24xi64>) -> tensor<16xi64>
  %ro, %rc = "emb.lengths_to_offsets"(%rl) {blocks = 2 : i64} : (tensor<16xi64>) -> (tensor<17xi64>, tensor<2xi64>)
  %ri = "emb.all_to_all"(%ids, %cnt, %rc) {world_size = 2 : i64} : (tensor<?xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
  %rs = "emb.reduce_scatter"(%x) {world_size = 2 : i64} : (tensor<16x8xf32>) -> tensor<8x8xf32>
  %ag = "emb.all_gather"(%rs) {world_size = 2 : i64} : (tensor<8x8xf32>) -> tensor<16x8xf32>
  return %ri, %ro, %ag : tensor<?xi64>, tensor<17xi64>, tensor<16x8xf32>
}

// Bucketize with per-sample weights: a fourth result, the weights of the
// ids it keeps.
// CHECK-LABEL: func.func @weighted_bucketize
// CHECK: "emb.bucketize"(%{{.*}}, %{{.*}}, %{{.*}}) {{.+}} : (tensor<?xi32>, tensor<17xi32>, tensor<?xbf16>) -> (tensor<?xi32>, tensor<8xi32>, tensor<1xi64>, tensor<?xbf16>)
func.func @weighted_bucketize(%idx: tensor<?xi32>, %off: tensor<17xi32>, %w: tensor<?xbf16>) -> tensor<?xbf16> {
  %ids, %lens, %cnt, %ws = "emb.bucketize"(%idx, %off, %w) {world_size = 1 : i64, slot_ranks = array<i64: 0>, slot_features = array<i64: 1>, slot_row_begin = array<i64: 0>, slot_row_end = array<i64: 50>} : (tensor<?xi32>, tensor<17xi32>, tensor<?xbf16>) -> (tensor<?xi32>, tensor<8xi32>, tensor<1xi64>, tensor<?xbf16>)
  return %ws : tensor<?xbf16>
}

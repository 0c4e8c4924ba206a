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

// CHECK-LABEL: func.func @attention
// CHECK: "emb.attention"(%{{.*}}, %{{.*}}, %{{.*}}) {scale = 1.250000e-01 : f32} : (tensor<2048x64x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048x1024x2x128xf16>) -> tensor<2048x64x2x128xf16>
func.func @attention(%q: tensor<2048x64x2x128xf16>, %k: tensor<2048x1024x2x128xf16>, %v: tensor<2048x1024x2x128xf16>) -> tensor<2048x64x2x128xf16> {
  %0 = "emb.attention"(%q, %k, %v) {scale = 0.125 : f32} : (tensor<2048x64x2x128xf16>, tensor<2048x1024x2x128xf16>, tensor<2048x1024x2x128xf16>) -> tensor<2048x64x2x128xf16>
  return %0 : tensor<2048x64x2x128xf16>
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

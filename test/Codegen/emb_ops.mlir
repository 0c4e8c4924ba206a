// emb-lower-to-runtime on emb ops: each becomes one runtime call (emb.table
// is its operand's buffer). What emb.ikbo_lce reads through is in
// ikbo_read_through.mlir.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// REQUIRES: emb-compiler

// A table-batched lookup asks the runtime for its workspace, allocates it
// and passes it in; the tables are read through their handles.
// CHECK-LABEL: func.func @tbe
// CHECK: %[[WS:.+]] = call @embrtCompiledTbeWorkspace(
// CHECK: call @embrtCompiledAlloc(%{{.*}}, %[[WS]])
// CHECK: call @embrtCompiledTbe(
// CHECK-NOT: emb.tbe
// CHECK-NOT: emb.table
func.func @tbe(%idx: tensor<40xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>) -> tensor<4x24xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<40xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x24xf32>
  return %0 : tensor<4x24xf32>
}

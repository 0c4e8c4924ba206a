// emb-lower-to-runtime on the ops of a sharded program (emb-shard's output):
// emb.bucketize and emb.lengths_to_offsets become a workspace query and a
// call each; an emb.all_to_all with the plan's splits one call with the
// splits in its attrs; one with counts operands first reads the counts on
// the host (embrtCompiledAllToAllCounts, the rows to receive), then the
// result is allocated at that size and embrtCompiledAllToAll sends;
// reduce_scatter and all_gather one call each. Numbers: sharding_run.test
// (a world of one on the CPU), test/Runtime/input_dist.c and collectives.c
// (the decoders), test/Kernels/input_dist.c (the GPU against the CPU).
// RUN: emb-opt --split-input-file --emb-lower-to-runtime %s | FileCheck %s
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// REQUIRES: emb-compiler

// The input dist of a table-wise group over two ranks (from
// test/Passes/shard.mlir). bucketize's attrs: i64 ids (4), no weights (-1),
// W = 2, S = 3, then the slots' ranks, features, first and end rows; its ids
// buffer holds N * depth = N * 1 ids (8 bytes each); its dims: N, B = 4,
// the capacity N, the workspace (asked for, then stored). The ids'
// all-to-all sends from that buffer as it is: the counts say how many.
// CHECK-LABEL: func.func @input_dist
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, %[[IDX:.+]]: memref<?xi64>, %{{.+}}: memref<13xi64>, %[[IDS_OUT:.+]]: !llvm.ptr, %{{.+}}: memref<17xi64>)
// CHECK: %[[DIM:.+]] = memref.dim %[[IDX]]
// CHECK-NEXT: %[[N:.+]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[IDS_BYTES:.+]] = arith.muli %[[N]], %{{.+}} : i64
// CHECK: %[[IDS:.+]] = call @embrtCompiledAlloc(%[[CTX]], %[[IDS_BYTES]])
// CHECK: %[[BA:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[G0:.+]] = llvm.getelementptr %[[BA]][0]
// CHECK-NEXT: llvm.store %c4_i64{{[_0-9]*}}, %[[G0]]
// CHECK: %[[G1:.+]] = llvm.getelementptr %[[BA]][1]
// CHECK-NEXT: llvm.store %c-1_i64{{[_0-9]*}}, %[[G1]]
// CHECK: %[[G3:.+]] = llvm.getelementptr %[[BA]][3]
// CHECK-NEXT: llvm.store %c3_i64{{[_0-9]*}}, %[[G3]]
// CHECK: %[[G8:.+]] = llvm.getelementptr %[[BA]][8]
// CHECK-NEXT: llvm.store %c2_i64{{[_0-9]*}}, %[[G8]]
// CHECK: %[[G15:.+]] = llvm.getelementptr %[[BA]][15]
// CHECK-NEXT: llvm.store %c50_i64{{[_0-9]*}}, %[[G15]]
// CHECK: %[[BB:.+]] = llvm.alloca %{{.+}} x !llvm.ptr
// CHECK: %[[GB3:.+]] = llvm.getelementptr %[[BB]][3]
// CHECK-NEXT: llvm.store %[[IDS]], %[[GB3]]
// CHECK: %[[BD:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[GD2:.+]] = llvm.getelementptr %[[BD]][2]
// CHECK-NEXT: llvm.store %[[N]], %[[GD2]]
// CHECK: call @embrtCompiledBucketizeWorkspace(%[[CTX]], %[[BA]], %[[BB]], %[[BD]])
// CHECK: call @embrtCompiledBucketize(%[[CTX]], %[[BA]], %[[BB]], %[[BD]])
// CHECK-NOT: embrtCompiledBucketizeCount
// Lengths: splits 8, 4 sent and 8, 8 received (attrs [3..6]).
// CHECK: %[[LA:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[GL4:.+]] = llvm.getelementptr %[[LA]][4]
// CHECK-NEXT: llvm.store %c4_i64{{[_0-9]*}}, %[[GL4]]
// CHECK: call @embrtCompiledAllToAll(%[[CTX]], %[[LA]],
// CHECK: call @embrtCompiledLengthsToOffsetsWorkspace(
// CHECK: call @embrtCompiledLengthsToOffsets(
// The ids: the host counts (2W i64 on the stack), the rows to receive.
// CHECK: %[[HOST:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[IA:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[IB:.+]] = llvm.alloca %{{.+}} x !llvm.ptr
// CHECK: %[[GI0:.+]] = llvm.getelementptr %[[IB]][0]
// CHECK-NEXT: llvm.store %[[IDS]], %[[GI0]]
// CHECK: %[[GI4:.+]] = llvm.getelementptr %[[IB]][4]
// CHECK-NEXT: llvm.store %[[HOST]], %[[GI4]]
// CHECK: %[[ID:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[ROWS:.+]] = call @embrtCompiledAllToAllCounts(%[[CTX]], %[[IA]], %[[IB]], %[[ID]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i64
// CHECK: %[[RBYTES:.+]] = arith.muli %[[ROWS]], %{{.+}} : i64
// CHECK: %[[RECV:.+]] = call @embrtCompiledAlloc(%[[CTX]], %[[RBYTES]])
// CHECK: %[[GI1:.+]] = llvm.getelementptr %[[IB]][1]
// CHECK-NEXT: llvm.store %[[RECV]], %[[GI1]]
// CHECK: %[[GR2:.+]] = llvm.getelementptr %[[ID]][2]
// CHECK-NEXT: llvm.store %[[ROWS]], %[[GR2]]
// CHECK: call @embrtCompiledAllToAll(%[[CTX]], %[[IA]], %[[IB]], %[[ID]])
// The result of run-time shape: the received ids, handed over.
// CHECK: %[[GO:.+]] = llvm.getelementptr %[[IDS_OUT]][0]
// CHECK-NEXT: llvm.store %[[RECV]], %[[GO]]
// CHECK-NOT: "emb.
// CHECK: return
func.func @input_dist(%idx: tensor<?xi64>, %off: tensor<13xi64>) -> (tensor<?xi64>, tensor<17xi64>) {
  %b:3 = "emb.bucketize"(%idx, %off) {slot_features = array<i64: 0, 2, 1>, slot_ranks = array<i64: 0, 0, 1>, slot_row_begin = array<i64: 0, 0, 0>, slot_row_end = array<i64: 100, 100, 50>, world_size = 2 : i64} : (tensor<?xi64>, tensor<13xi64>) -> (tensor<?xi64>, tensor<12xi64>, tensor<2xi64>)
  %lens = "emb.all_to_all"(%b#1) {recv_splits = array<i64: 8, 8>, send_splits = array<i64: 8, 4>, world_size = 2 : i64} : (tensor<12xi64>) -> tensor<16xi64>
  %o:2 = "emb.lengths_to_offsets"(%lens) {blocks = 2 : i64} : (tensor<16xi64>) -> (tensor<17xi64>, tensor<2xi64>)
  %ids = "emb.all_to_all"(%b#0, %b#2, %o#1) {world_size = 2 : i64} : (tensor<?xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
  return %ids, %o#0 : tensor<?xi64>, tensor<17xi64>
}

// -----

// Two column shards of one feature: every id falls in both slots (depth 2),
// so the ids buffer holds 2 N.
// CHECK-LABEL: func.func @column_depth
// CHECK: %[[DIM:.+]] = memref.dim
// CHECK-NEXT: %[[N:.+]] = arith.index_cast %[[DIM]] : index to i64
// CHECK: %[[TWO:.+]] = arith.constant 2 : i64
// CHECK: %[[CAP:.+]] = arith.muli %[[N]], %[[TWO]] : i64
// CHECK: %[[BYTES:.+]] = arith.muli %[[CAP]], %{{.+}} : i64
// CHECK: call @embrtCompiledAlloc(%{{.+}}, %[[BYTES]])
// CHECK: call @embrtCompiledBucketize(
func.func @column_depth(%idx: tensor<?xi64>, %off: tensor<3xi64>) -> tensor<2xi64> {
  %b:3 = "emb.bucketize"(%idx, %off) {slot_features = array<i64: 0, 0>, slot_ranks = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 50, 50>, world_size = 2 : i64} : (tensor<?xi64>, tensor<3xi64>) -> (tensor<?xi64>, tensor<4xi64>, tensor<2xi64>)
  %ids = "emb.all_to_all"(%b#0, %b#2, %b#2) {world_size = 2 : i64} : (tensor<?xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
  return %b#2 : tensor<2xi64>
}

// -----

// A data-parallel lookup reads bucketize's ids itself, and emb.tbe's offsets
// end at its N: the exact count is read on the host
// (embrtCompiledBucketizeCount) and the lookup gets it as N.
// CHECK-LABEL: func.func @data_parallel
// CHECK: call @embrtCompiledBucketize(%[[CTX:[a-z0-9_]+]], %[[BA:[a-z0-9_]+]], %[[BB:[a-z0-9_]+]], %[[BD:[a-z0-9_]+]])
// CHECK-NEXT: %[[COUNT:.+]] = call @embrtCompiledBucketizeCount(%[[CTX]], %[[BA]], %[[BB]], %[[BD]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i64
// CHECK: call @embrtCompiledLengthsToOffsets(
// CHECK: %[[TD:.+]] = llvm.alloca %c9_i64{{[_0-9]*}} x i64
// CHECK-NEXT: %[[SLOT:.+]] = llvm.getelementptr %[[TD]][0]
// CHECK-NEXT: llvm.store %[[COUNT]], %[[SLOT]] : i64
// CHECK: call @embrtCompiledTbe(%{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}, %[[TD]])
func.func @data_parallel(%idx: tensor<?xi32>, %off: tensor<9xi32>, %t0: tensor<10x8xf32>) -> tensor<4x8xf32> {
  %b:3 = "emb.bucketize"(%idx, %off) {slot_features = array<i64: 1>, slot_ranks = array<i64: 0>, slot_row_begin = array<i64: 0>, slot_row_end = array<i64: 10>, world_size = 2 : i64} : (tensor<?xi32>, tensor<9xi32>) -> (tensor<?xi32>, tensor<4xi32>, tensor<2xi64>)
  %o:2 = "emb.lengths_to_offsets"(%b#1) {blocks = 1 : i64} : (tensor<4xi32>) -> (tensor<5xi32>, tensor<1xi64>)
  %h = "emb.table"(%t0) : (tensor<10x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%b#0, %o#0, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi32>, tensor<5xi32>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// reduce_scatter and all_gather: f32 (0), W = 2, elements of both sides;
// the last writes straight into the result's buffer.
// CHECK-LABEL: func.func @equal_blocks
// CHECK-SAME: (%[[CTX:.+]]: !llvm.ptr, %{{.+}}: memref<16x8xf32>, %[[OUT:.+]]: memref<16x8xf32>)
// CHECK: %[[RA:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[RD:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[GS:.+]] = llvm.getelementptr %[[RD]][0]
// CHECK-NEXT: llvm.store %c128_i64{{[_0-9]*}}, %[[GS]]
// CHECK: %[[GR:.+]] = llvm.getelementptr %[[RD]][1]
// CHECK-NEXT: llvm.store %c64_i64{{[_0-9]*}}, %[[GR]]
// CHECK: call @embrtCompiledReduceScatter(%[[CTX]], %[[RA]], %{{[a-z0-9_]+}}, %[[RD]])
// CHECK: call @embrtCompiledAllGather(
// CHECK-NOT: embrtCompiledCopy
// CHECK: return
func.func @equal_blocks(%x: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %rs = "emb.reduce_scatter"(%x) {world_size = 2 : i64} : (tensor<16x8xf32>) -> tensor<8x8xf32>
  %ag = "emb.all_gather"(%rs) {world_size = 2 : i64} : (tensor<8x8xf32>) -> tensor<16x8xf32>
  return %ag : tensor<16x8xf32>
}

// -----

// Per-sample weights: bucketize fills a weights buffer beside the ids (the
// same capacity, 4 bytes an f32), and their all-to-all, with the ids'
// counts operands, reuses the counts the ids' all-to-all read on the host:
// one read, two sends.
// CHECK-LABEL: func.func @weighted
// CHECK: call @embrtCompiledBucketize(
// CHECK: %[[ROWS:.+]] = call @embrtCompiledAllToAllCounts(
// CHECK: call @embrtCompiledAllToAll(
// CHECK-NOT: embrtCompiledAllToAllCounts
// CHECK: %[[WBYTES:.+]] = arith.muli %[[ROWS]], %c4_i64{{[_0-9]*}} : i64
// CHECK: call @embrtCompiledAlloc(%{{[a-z0-9_]+}}, %[[WBYTES]])
// CHECK: call @embrtCompiledAllToAll(
// CHECK-NOT: embrtCompiledAllToAllCounts
// CHECK: return
func.func @weighted(%idx: tensor<?xi64>, %off: tensor<5xi64>, %psw: tensor<?xf32>) -> (tensor<?xi64>, tensor<?xf32>) {
  %b:4 = "emb.bucketize"(%idx, %off, %psw) {slot_features = array<i64: 0>, slot_ranks = array<i64: 0>, slot_row_begin = array<i64: 0>, slot_row_end = array<i64: 100>, world_size = 2 : i64} : (tensor<?xi64>, tensor<5xi64>, tensor<?xf32>) -> (tensor<?xi64>, tensor<4xi64>, tensor<2xi64>, tensor<?xf32>)
  %lens = "emb.all_to_all"(%b#1) {recv_splits = array<i64: 4, 4>, send_splits = array<i64: 4, 0>, world_size = 2 : i64} : (tensor<4xi64>) -> tensor<8xi64>
  %o:2 = "emb.lengths_to_offsets"(%lens) {blocks = 2 : i64} : (tensor<8xi64>) -> (tensor<9xi64>, tensor<2xi64>)
  %ids = "emb.all_to_all"(%b#0, %b#2, %o#1) {world_size = 2 : i64} : (tensor<?xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
  %w = "emb.all_to_all"(%b#3, %b#2, %o#1) {world_size = 2 : i64} : (tensor<?xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xf32>
  return %ids, %w : tensor<?xi64>, tensor<?xf32>
}

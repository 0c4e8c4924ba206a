// emb-lower-to-runtime on the backward ops: one embrtCompiledTbeBackward
// call (after its workspace query) that updates the tables and states in
// place. Each result is its operand's buffer: nothing is allocated for it,
// and a returned one is copied from there like a returned argument.
// RUN: emb-opt --split-input-file --emb-lower-to-runtime=target=cuda %s | FileCheck %s
// The whole pipeline to the LLVM dialect takes them too.
// RUN: emb-opt --split-input-file --emb-lower-to-llvm %s | FileCheck %s --check-prefix=LLVM
// LLVM-LABEL: llvm.func @rowwise_adagrad_step
// LLVM: llvm.call @embrtCompiledTbeBackward(
// LLVM-LABEL: llvm.func @sgd_not_returned
// LLVM-LABEL: llvm.func @two_steps
// LLVM-LABEL: llvm.func @zero_state
// LLVM-LABEL: llvm.func @embedding_bag_adam
// LLVM-LABEL: llvm.func @dynamic_batch
// LLVM-LABEL: llvm.func @adam_fp8
// REQUIRES: emb-compiler

// A training step: the forward, then the backward with exact rowwise
// Adagrad. attrs: the lookup's (pooling sum = 0 ...), grad dtype f32 = 0,
// optimizer rowwise_adagrad = 1, seed 42, config -1, both states f32 (0),
// 2 tables, 2 features on tables 0 and 1. buffers: ids, offsets, no
// per-sample weights, grad, hyper-parameters, no step, the workspace, then
// the 2 tables, the 2 momentum1, 2 null momentum2 and 4 null scales. The
// forward reads the tables before the
// backward updates them; the returned table and state are copied from the
// argument buffers the backward updated.
// CHECK-LABEL: func.func @rowwise_adagrad_step
// CHECK-SAME: (%[[CTX:[^:]+]]: !llvm.ptr, %{{[^:]+}}: memref<8xi64>, %{{[^:]+}}: memref<9xi64>, %[[ARG_T0:[^:]+]]: memref<100x16xf32>, %[[ARG_T1:[^:]+]]: memref<50x8xf32>, %[[ARG_M0:[^:]+]]: memref<100xf32>, %[[ARG_M1:[^:]+]]: memref<50xf32>, %[[ARG_G:[^:]+]]: memref<4x24xf32>, %[[ARG_H:[^:]+]]: memref<5xf32>, %{{[^:]+}}: memref<4x24xf32>, %[[OUT_T0:[^:]+]]: memref<100x16xf32>, %[[OUT_M0:[^:]+]]: memref<100xf32>)
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_T0]]
// CHECK: %[[T0:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_T1]]
// CHECK: %[[T1:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_M0]]
// CHECK: %[[M0:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_M1]]
// CHECK: %[[M1:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_G]]
// CHECK: %[[G:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_H]]
// CHECK: %[[H:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT_T0]]
// CHECK: %[[O0:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT_M0]]
// CHECK: %[[OM0:.+]] = llvm.inttoptr
// CHECK: call @embrtCompiledTbe(
// CHECK: %[[NATTRS:.+]] = arith.constant 18 : i64
// CHECK-NEXT: %[[ATTRS:.+]] = llvm.alloca %[[NATTRS]] x i64
// CHECK: llvm.getelementptr %[[ATTRS]][7]
// CHECK-NEXT: llvm.store
// CHECK-NEXT: %[[ROWWISE:.+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[A8:.+]] = llvm.getelementptr %[[ATTRS]][8]
// CHECK-NEXT: llvm.store %[[ROWWISE]], %[[A8]]
// CHECK-NEXT: %[[SEED:.+]] = arith.constant 42 : i64
// CHECK-NEXT: %[[A9:.+]] = llvm.getelementptr %[[ATTRS]][9]
// CHECK-NEXT: llvm.store %[[SEED]], %[[A9]]
// CHECK: %[[NBUFS:.+]] = arith.constant 17 : i64
// CHECK-NEXT: %[[BUFS:.+]] = llvm.alloca %[[NBUFS]] x !llvm.ptr
// CHECK: %[[B3:.+]] = llvm.getelementptr %[[BUFS]][3]
// CHECK-NEXT: llvm.store %[[G]], %[[B3]]
// CHECK-NEXT: %[[B4:.+]] = llvm.getelementptr %[[BUFS]][4]
// CHECK-NEXT: llvm.store %[[H]], %[[B4]]
// CHECK-NEXT: %[[NOSTEP:.+]] = llvm.mlir.zero
// CHECK-NEXT: %[[B5:.+]] = llvm.getelementptr %[[BUFS]][5]
// CHECK-NEXT: llvm.store %[[NOSTEP]], %[[B5]]
// CHECK: %[[B7:.+]] = llvm.getelementptr %[[BUFS]][7]
// CHECK-NEXT: llvm.store %[[T0]], %[[B7]]
// CHECK-NEXT: %[[B8:.+]] = llvm.getelementptr %[[BUFS]][8]
// CHECK-NEXT: llvm.store %[[T1]], %[[B8]]
// CHECK-NEXT: %[[B9:.+]] = llvm.getelementptr %[[BUFS]][9]
// CHECK-NEXT: llvm.store %[[M0]], %[[B9]]
// CHECK-NEXT: %[[B10:.+]] = llvm.getelementptr %[[BUFS]][10]
// CHECK-NEXT: llvm.store %[[M1]], %[[B10]]
// CHECK-NEXT: %[[NOM2:.+]] = llvm.mlir.zero
// CHECK-NEXT: %[[B11:.+]] = llvm.getelementptr %[[BUFS]][11]
// CHECK-NEXT: llvm.store %[[NOM2]], %[[B11]]
// CHECK: %[[DIMS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[WS:.+]] = call @embrtCompiledTbeBackwardWorkspace(%[[CTX]], %[[ATTRS]], %[[BUFS]], %[[DIMS]])
// CHECK-NEXT: call @embrtCompiledAlloc(%[[CTX]], %[[WS]])
// CHECK: call @embrtCompiledTbeBackward(%[[CTX]], %[[ATTRS]], %[[BUFS]], %[[DIMS]])
// CHECK-NOT: call @embrtCompiledAlloc
// CHECK: call @embrtCompiledCopy(%[[CTX]], %{{.+}}, %[[O0]], %[[T0]], %{{.+}})
// CHECK: call @embrtCompiledCopy(%[[CTX]], %{{.+}}, %[[OM0]], %[[M0]], %{{.+}})
// CHECK-NOT: emb.
// CHECK: return
func.func @rowwise_adagrad_step(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf32>, %m1: tensor<50xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) -> (tensor<4x24xf32>, tensor<100x16xf32>, tensor<100xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<50xf32>) -> !emb.state_handle
  %pooled = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x24xf32>
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, seed = 42 : i64, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<100x16xf32>
  %n2 = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<100xf32>
  return %pooled, %n0, %n2 : tensor<4x24xf32>, tensor<100x16xf32>, tensor<100xf32>
}

// -----

// A step that does not return the updated table leaves it in the argument's
// buffer: the call and its workspace, and no copy.
// CHECK-LABEL: func.func @sgd_not_returned
// CHECK: call @embrtCompiledTbeBackward(
// CHECK-NOT: embrtCompiledCopy
// CHECK: return
func.func @sgd_not_returned(%idx: tensor<8xi32>, %off: tensor<5xi32>, %t0: tensor<100x16xf16>, %grad: tensor<4x16xf16>, %hyper: tensor<5xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf16>) -> !emb.table_handle
  %new = "emb.tbe_backward"(%idx, %off, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "mean", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8xi32>, tensor<5xi32>, !emb.table_handle, tensor<4x16xf16>, tensor<5xf32>) -> !emb.table_handle
  return
}

// -----

// Two steps in one function: the second updates the first one's result,
// which is the same buffer, again in place.
// CHECK-LABEL: func.func @two_steps
// CHECK-SAME: %[[ARG_T0:[^:]+]]: memref<100x16xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_T0]]
// CHECK: %[[T0:.+]] = llvm.inttoptr
// CHECK: %[[FIRST:.+]] = llvm.getelementptr %{{.+}}[7] {{.*}} -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: llvm.store %[[T0]], %[[FIRST]]
// CHECK: call @embrtCompiledTbeBackward(
// CHECK: %[[SECOND:.+]] = llvm.getelementptr %{{.+}}[7] {{.*}} -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: llvm.store %[[T0]], %[[SECOND]]
// CHECK: call @embrtCompiledTbeBackward(
func.func @two_steps(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %g1: tensor<4x16xf32>, %g2: tensor<4x16xf32>, %hyper: tensor<5xf32>) -> tensor<100x16xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %a = "emb.tbe_backward"(%idx, %off, %h0, %g1, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, tensor<5xf32>) -> !emb.table_handle
  %t1 = "emb.table_value"(%a) : (!emb.table_handle) -> tensor<100x16xf32>
  %h1 = "emb.table"(%t1) : (tensor<100x16xf32>) -> !emb.table_handle
  %b = "emb.tbe_backward"(%idx, %off, %h1, %g2, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, tensor<5xf32>) -> !emb.table_handle
  %t2 = "emb.table_value"(%b) : (!emb.table_handle) -> tensor<100x16xf32>
  return %t2 : tensor<100x16xf32>
}

// -----

// A zero splat state is a buffer of its own (a fill): the backward updates
// it, then it is copied out.
// CHECK-LABEL: func.func @zero_state
// CHECK: %[[STATE:.+]] = call @embrtCompiledAlloc(
// CHECK: call @embrtCompiledFill(
// CHECK: %[[B9:.+]] = llvm.getelementptr %{{.+}}[9] {{.*}} -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT: llvm.store %[[STATE]], %[[B9]]
// CHECK: call @embrtCompiledTbeBackward(
// CHECK: call @embrtCompiledCopy(%{{.+}}, %{{.+}}, %{{.+}}, %[[STATE]], %{{.+}})
func.func @zero_state(%idx: tensor<8xi64>, %off: tensor<9xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %grad: tensor<4x24xf32>, %hyper: tensor<5xf32>) -> tensor<100xf32> {
  %z0 = arith.constant dense<0.0> : tensor<100xf32>
  %z1 = arith.constant dense<0.0> : tensor<50xf32>
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%z0) : (tensor<100xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%z1) : (tensor<50xf32>) -> !emb.state_handle
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<8xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x24xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  %m = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<100xf32>
  return %m : tensor<100xf32>
}

// -----

// emb.embedding_bag_backward is the same call with one table and one
// feature on it (attrs 13 to 16: 1 table, 1 feature, is a bag, table 0):
// Adam's m and v follow the table (buffers 7 to 9), the step is buffer 5;
// weighted.
// CHECK-LABEL: func.func @embedding_bag_adam
// CHECK-SAME: %[[ARG_W:[^:]+]]: memref<1000x16xbf16>
// CHECK-SAME: %[[ARG_PSW:[^:]+]]: memref<96xf32>
// CHECK-SAME: %[[ARG_M:[^:]+]]: memref<1000x16xf32>, %[[ARG_V:[^:]+]]: memref<1000x16xf32>, %{{[^:]+}}: memref<5xf32>, %[[ARG_STEP:[^:]+]]: memref<i64>
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_W]]
// CHECK: %[[W:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_PSW]]
// CHECK: %[[PSW:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_M]]
// CHECK: %[[M:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_V]]
// CHECK: %[[V:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_STEP]]
// CHECK: %[[STEP:.+]] = llvm.inttoptr
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: llvm.getelementptr %[[ATTRS]][7]
// CHECK-NEXT: llvm.store
// CHECK-NEXT: %[[ADAM:.+]] = arith.constant 2 : i64
// CHECK-NEXT: %[[A8:.+]] = llvm.getelementptr %[[ATTRS]][8]
// CHECK-NEXT: llvm.store %[[ADAM]], %[[A8]]
// CHECK: %[[ONE_TABLE:.+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[A13:.+]] = llvm.getelementptr %[[ATTRS]][13]
// CHECK-NEXT: llvm.store %[[ONE_TABLE]], %[[A13]]
// CHECK-NEXT: %[[ONE_FEATURE:.+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[A14:.+]] = llvm.getelementptr %[[ATTRS]][14]
// CHECK-NEXT: llvm.store %[[ONE_FEATURE]], %[[A14]]
// CHECK-NEXT: %[[IS_BAG:.+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[A15:.+]] = llvm.getelementptr %[[ATTRS]][15]
// CHECK-NEXT: llvm.store %[[IS_BAG]], %[[A15]]
// CHECK-NEXT: %[[TABLE0:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[A16:.+]] = llvm.getelementptr %[[ATTRS]][16]
// CHECK-NEXT: llvm.store %[[TABLE0]], %[[A16]]
// CHECK-NEXT: %[[NBUFS:.+]] = arith.constant 12 : i64
// CHECK-NEXT: %[[BUFS:.+]] = llvm.alloca %[[NBUFS]] x !llvm.ptr
// CHECK: %[[B2:.+]] = llvm.getelementptr %[[BUFS]][2]
// CHECK-NEXT: llvm.store %[[PSW]], %[[B2]]
// CHECK: %[[B5:.+]] = llvm.getelementptr %[[BUFS]][5]
// CHECK-NEXT: llvm.store %[[STEP]], %[[B5]]
// CHECK: %[[B7:.+]] = llvm.getelementptr %[[BUFS]][7]
// CHECK-NEXT: llvm.store %[[W]], %[[B7]]
// CHECK-NEXT: %[[B8:.+]] = llvm.getelementptr %[[BUFS]][8]
// CHECK-NEXT: llvm.store %[[M]], %[[B8]]
// CHECK-NEXT: %[[B9:.+]] = llvm.getelementptr %[[BUFS]][9]
// CHECK-NEXT: llvm.store %[[V]], %[[B9]]
// CHECK: call @embrtCompiledTbeBackwardWorkspace(
// CHECK: call @embrtCompiledTbeBackward(
func.func @embedding_bag_adam(%w: tensor<1000x16xbf16>, %idx: tensor<96xi64>, %off: tensor<33xi64>, %psw: tensor<96xf32>, %grad: tensor<32x16xf32>, %m: tensor<1000x16xf32>, %v: tensor<1000x16xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) -> (tensor<1000x16xbf16>, tensor<1000x16xf32>, tensor<1000x16xf32>) {
  %new:3 = "emb.embedding_bag_backward"(%w, %idx, %off, %psw, %grad, %m, %v, %hyper, %step) {optimizer = "adam", mode = "sum", seed = 3 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 1, 1, 1, 1>, resultSegmentSizes = array<i32: 1, 1, 1>} : (tensor<1000x16xbf16>, tensor<96xi64>, tensor<33xi64>, tensor<96xf32>, tensor<32x16xf32>, tensor<1000x16xf32>, tensor<1000x16xf32>, tensor<5xf32>, tensor<i64>) -> (tensor<1000x16xbf16>, tensor<1000x16xf32>, tensor<1000x16xf32>)
  return %new#0, %new#1, %new#2 : tensor<1000x16xbf16>, tensor<1000x16xf32>, tensor<1000x16xf32>
}

// -----

// Dynamic sizes: N and the table rows come from the descriptors, B from
// the offsets (max(F*B+1 - 1, 0) / F for F = 2: never negative, also for
// offsets with no entries, which the call refuses) since the gradient's
// rows are dynamic too.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-SAME: %[[ARG_OFF:[^:]+]]: memref<?xi32>, %{{[^:]+}}: memref<?x16xf32>
// CHECK: %[[OFF_DIM:.+]] = memref.dim %[[ARG_OFF]]
// CHECK-NEXT: %[[OFFS:.+]] = arith.index_cast %[[OFF_DIM]] : index to i64
// CHECK: %[[MINUS1:.+]] = arith.constant -1 : i64
// CHECK-NEXT: %[[LAST:.+]] = arith.addi %[[OFFS]], %[[MINUS1]] : i64
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK-NEXT: %[[SEGMENTS:.+]] = arith.maxsi %[[LAST]], %[[ZERO]] : i64
// CHECK-NEXT: %[[F:.+]] = arith.constant 2 : i64
// CHECK-NEXT: %[[B:.+]] = arith.divsi %[[SEGMENTS]], %[[F]] : i64
// CHECK: llvm.alloca %{{.+}} x !llvm.ptr
// CHECK: %[[DIMS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[D1:.+]] = llvm.getelementptr %[[DIMS]][1]
// CHECK-NEXT: llvm.store %[[B]], %[[D1]]
// CHECK: call @embrtCompiledTbeBackward(
func.func @dynamic_batch(%idx: tensor<?xi32>, %off: tensor<?xi32>, %t0: tensor<?x16xf32>, %grad: tensor<?x32xf32>, %hyper: tensor<5xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<?x16xf32>) -> !emb.table_handle
  %new = "emb.tbe_backward"(%idx, %off, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<?xi32>, tensor<?xi32>, !emb.table_handle, tensor<?x32xf32>, tensor<5xf32>) -> !emb.table_handle
  return
}

// -----

// Optimizer states below f32: attrs 11 and 12 are the states'
// embrtStatePrecision (fp8 e4m3 = 2, e5m2 = 3); each fp8 state's scales
// follow the states in the buffers (m at 8, v at 9, m's scales at 10, v's
// at 11), and their entries follow the states' extents in dims (13 and 14,
// 100 rows each).
// CHECK-LABEL: func.func @adam_fp8
// CHECK-SAME: %[[ARG_M:[^:]+]]: memref<100x16xi8>, %[[ARG_MS:[^:]+]]: memref<100xf32>, %[[ARG_V:[^:]+]]: memref<100x16xi8>, %[[ARG_VS:[^:]+]]: memref<100xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_M]]
// CHECK: %[[M:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_MS]]
// CHECK: %[[MS:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_V]]
// CHECK: %[[V:.+]] = llvm.inttoptr
// CHECK: memref.extract_aligned_pointer_as_index %[[ARG_VS]]
// CHECK: %[[VS:.+]] = llvm.inttoptr
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[A10:.+]] = llvm.getelementptr %[[ATTRS]][10]
// CHECK-NEXT: llvm.store %{{.+}}, %[[A10]]
// CHECK-NEXT: %[[E4M3:.+]] = arith.constant 2 : i64
// CHECK-NEXT: %[[A11:.+]] = llvm.getelementptr %[[ATTRS]][11]
// CHECK-NEXT: llvm.store %[[E4M3]], %[[A11]]
// CHECK-NEXT: %[[E5M2:.+]] = arith.constant 3 : i64
// CHECK-NEXT: %[[A12:.+]] = llvm.getelementptr %[[ATTRS]][12]
// CHECK-NEXT: llvm.store %[[E5M2]], %[[A12]]
// CHECK: %[[BUFS:.+]] = llvm.alloca %{{.+}} x !llvm.ptr
// CHECK: %[[B8:.+]] = llvm.getelementptr %[[BUFS]][8]
// CHECK-NEXT: llvm.store %[[M]], %[[B8]]
// CHECK-NEXT: %[[B9:.+]] = llvm.getelementptr %[[BUFS]][9]
// CHECK-NEXT: llvm.store %[[V]], %[[B9]]
// CHECK-NEXT: %[[B10:.+]] = llvm.getelementptr %[[BUFS]][10]
// CHECK-NEXT: llvm.store %[[MS]], %[[B10]]
// CHECK-NEXT: %[[B11:.+]] = llvm.getelementptr %[[BUFS]][11]
// CHECK-NEXT: llvm.store %[[VS]], %[[B11]]
// CHECK: %[[DIMS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[D12:.+]] = llvm.getelementptr %[[DIMS]][12]
// CHECK-NEXT: llvm.store %{{.+}}, %[[D12]]
// CHECK-NEXT: %[[MS_ROWS:.+]] = arith.constant 100 : i64
// CHECK-NEXT: %[[D13:.+]] = llvm.getelementptr %[[DIMS]][13]
// CHECK-NEXT: llvm.store %[[MS_ROWS]], %[[D13]]
// CHECK-NEXT: %[[VS_ROWS:.+]] = arith.constant 100 : i64
// CHECK-NEXT: %[[D14:.+]] = llvm.getelementptr %[[DIMS]][14]
// CHECK-NEXT: llvm.store %[[VS_ROWS]], %[[D14]]
// CHECK: call @embrtCompiledTbeBackward(%{{.+}}, %[[ATTRS]], %[[BUFS]], %[[DIMS]])
func.func @adam_fp8(%idx: tensor<8xi64>, %off: tensor<5xi64>, %t0: tensor<100x16xf32>, %grad: tensor<4x16xf32>, %m: tensor<100x16xi8>, %ms: tensor<100xf32>, %v: tensor<100x16xi8>, %vs: tensor<100xf32>, %hyper: tensor<5xf32>, %step: tensor<i64>) {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %sm = "emb.state"(%m) : (tensor<100x16xi8>) -> !emb.state_handle
  %sms = "emb.state"(%ms) : (tensor<100xf32>) -> !emb.state_handle
  %sv = "emb.state"(%v) : (tensor<100x16xi8>) -> !emb.state_handle
  %svs = "emb.state"(%vs) : (tensor<100xf32>) -> !emb.state_handle
  %new:5 = "emb.tbe_backward"(%idx, %off, %h0, %grad, %sm, %sms, %sv, %svs, %hyper, %step) {optimizer = "adam", pooling = "sum", feature_tables = array<i64: 0>, momentum1_precision = "fp8_e4m3", momentum2_precision = "fp8_e5m2", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 2, 2, 1, 1>, resultSegmentSizes = array<i32: 1, 2, 2>} : (tensor<8xi64>, tensor<5xi64>, !emb.table_handle, tensor<4x16xf32>, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, tensor<5xf32>, tensor<i64>) -> (!emb.table_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle, !emb.state_handle)
  return
}

// emb-batch-tables turns emb.embedding_bag ops over one batch into one
// emb.tbe: indices concatenated, offsets rebased feature-major, tables passed
// as emb.table handles (one per distinct table), and each bag's result given
// back as its slice of the TBE output (the output itself where the results
// were concatenated in order).
// RUN: emb-opt --split-input-file --emb-batch-tables %s | FileCheck %s
// REQUIRES: emb-compiler

// Three features over two tables (features 0 and 2 share %t0), static index
// counts, results concatenated in order: the TBE output replaces the concat.
// Offsets: o0[0:8], o1[0:8] + 40, o2[0:9] + 64, as one concat and one add
// of a constant (two ops whatever the number of features).
// CHECK-LABEL: func.func @shared_table_concat
// CHECK-SAME: (%[[T0:.+]]: tensor<100x16xf32>, %[[T1:.+]]: tensor<50x8xf32>, %[[I0:.+]]: tensor<40xi64>, %[[O0:.+]]: tensor<9xi64>, %[[I1:.+]]: tensor<24xi64>, %[[O1:.+]]: tensor<9xi64>, %[[I2:.+]]: tensor<30xi64>, %[[O2:.+]]: tensor<9xi64>)
// CHECK-NOT: "emb.embedding_bag"
// CHECK: %[[H0:.+]] = "emb.table"(%[[T0]]) : (tensor<100x16xf32>) -> !emb.table_handle
// CHECK: %[[H1:.+]] = "emb.table"(%[[T1]]) : (tensor<50x8xf32>) -> !emb.table_handle
// CHECK: %[[IDS:.+]] = tensor.concat dim(0) %[[I0]], %[[I1]], %[[I2]] : (tensor<40xi64>, tensor<24xi64>, tensor<30xi64>) -> tensor<94xi64>
// CHECK: %[[F0:.+]] = tensor.extract_slice %[[O0]][0] [8] [1] : tensor<9xi64> to tensor<8xi64>
// CHECK: %[[F1:.+]] = tensor.extract_slice %[[O1]][0] [8] [1] : tensor<9xi64> to tensor<8xi64>
// The feature ends: where each feature's ids end (40, 64, 94), then each
// bag's own last offset, which the lookup checks as the bags did.
// CHECK: %[[L0:.+]] = tensor.extract_slice %[[O0]][8] [1] [1] : tensor<9xi64> to tensor<1xi64>
// CHECK: %[[L1:.+]] = tensor.extract_slice %[[O1]][8] [1] [1] : tensor<9xi64> to tensor<1xi64>
// CHECK: %[[L2:.+]] = tensor.extract_slice %[[O2]][8] [1] [1] : tensor<9xi64> to tensor<1xi64>
// CHECK: %[[ENDS:.+]] = arith.constant dense<[40, 64, 94]> : tensor<3xi64>
// CHECK: %[[ALL:.+]] = tensor.concat dim(0) %[[F0]], %[[F1]], %[[O2]], %[[ENDS]], %[[L0]], %[[L1]], %[[L2]] : (tensor<8xi64>, tensor<8xi64>, tensor<9xi64>, tensor<3xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<31xi64>
// CHECK: %[[SHIFT:.+]] = arith.constant dense<[0, 0, 0, 0, 0, 0, 0, 0, 40, 40, 40, 40, 40, 40, 40, 40, 64, 64, 64, 64, 64, 64, 64, 64, 64, 0, 0, 0, 0, 0, 0]> : tensor<31xi64>
// CHECK: %[[OFFS:.+]] = arith.addi %[[ALL]], %[[SHIFT]] : tensor<31xi64>
// CHECK: %[[TBE:.+]] = "emb.tbe"(%[[IDS]], %[[OFFS]], %[[H0]], %[[H1]]) {feature_ends, feature_tables = array<i64: 0, 1, 0>, operandSegmentSizes = array<i32: 1, 1, 2, 0>, pooling = "sum"} : (tensor<94xi64>, tensor<31xi64>, !emb.table_handle, !emb.table_handle) -> tensor<8x40xf32>
// CHECK-NOT: tensor.concat dim(1)
// CHECK: return %[[TBE]]
func.func @shared_table_concat(%t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %i0: tensor<40xi64>, %o0: tensor<9xi64>, %i1: tensor<24xi64>, %o1: tensor<9xi64>, %i2: tensor<30xi64>, %o2: tensor<9xi64>) -> tensor<8x40xf32> {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "sum"} : (tensor<100x16xf32>, tensor<40xi64>, tensor<9xi64>) -> tensor<8x16xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "sum"} : (tensor<50x8xf32>, tensor<24xi64>, tensor<9xi64>) -> tensor<8x8xf32>
  %c = "emb.embedding_bag"(%t0, %i2, %o2) {mode = "sum"} : (tensor<100x16xf32>, tensor<30xi64>, tensor<9xi64>) -> tensor<8x16xf32>
  %x = tensor.concat dim(1) %a, %b, %c : (tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x40xf32>
  return %x : tensor<8x40xf32>
}

// -----

// Dynamic index counts: the second feature's offsets are shifted by the
// first's count, read with tensor.dim and splat to a tensor. Each result is
// its column slice of the TBE output.
// CHECK-LABEL: func.func @dynamic_counts
// CHECK-SAME: (%[[T0:.+]]: tensor<100x16xf16>, %[[T1:.+]]: tensor<50x32xf16>, %[[I0:.+]]: tensor<?xi32>, %[[O0:.+]]: tensor<5xi32>, %[[I1:.+]]: tensor<?xi32>, %[[O1:.+]]: tensor<5xi32>)
// CHECK: %[[IDS:.+]] = tensor.concat dim(0) %[[I0]], %[[I1]] : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
// CHECK: %[[F0:.+]] = tensor.extract_slice %[[O0]][0] [4] [1]
// CHECK: %[[N0:.+]] = tensor.dim %[[I0]], %{{.+}} : tensor<?xi32>
// CHECK: %[[N0I:.+]] = arith.index_cast %[[N0]] : index to i32
// CHECK: %[[BASE1:.+]] = tensor.splat %[[N0I]] : tensor<5xi32>
// CHECK: %[[F1:.+]] = arith.addi %[[O1]], %[[BASE1]] : tensor<5xi32>
// CHECK: %[[L0:.+]] = tensor.extract_slice %[[O0]][4] [1] [1] : tensor<5xi32> to tensor<1xi32>
// CHECK: %[[L1:.+]] = tensor.extract_slice %[[O1]][4] [1] [1] : tensor<5xi32> to tensor<1xi32>
// CHECK: %[[M0:.+]] = tensor.dim %[[I0]], %{{.+}} : tensor<?xi32>
// CHECK: %[[E0:.+]] = arith.index_cast %[[M0]] : index to i32
// CHECK: %[[M1:.+]] = tensor.dim %[[I1]], %{{.+}} : tensor<?xi32>
// CHECK: %[[M01:.+]] = arith.addi %[[M0]], %[[M1]] : index
// CHECK: %[[E1:.+]] = arith.index_cast %[[M01]] : index to i32
// CHECK: %[[ENDS:.+]] = tensor.from_elements %[[E0]], %[[E1]] : tensor<2xi32>
// CHECK: %[[OFFS:.+]] = tensor.concat dim(0) %[[F0]], %[[F1]], %[[ENDS]], %[[L0]], %[[L1]] : (tensor<4xi32>, tensor<5xi32>, tensor<2xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<13xi32>
// CHECK: %[[TBE:.+]] = "emb.tbe"(%[[IDS]], %[[OFFS]], %{{.+}}, %{{.+}}) {feature_ends, feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>, pooling = "mean"} : (tensor<?xi32>, tensor<13xi32>, !emb.table_handle, !emb.table_handle) -> tensor<4x48xf32>
// CHECK: %[[R0:.+]] = tensor.extract_slice %[[TBE]][0, 0] [4, 16] [1, 1] : tensor<4x48xf32> to tensor<4x16xf32>
// CHECK: %[[R1:.+]] = tensor.extract_slice %[[TBE]][0, 16] [4, 32] [1, 1] : tensor<4x48xf32> to tensor<4x32xf32>
// CHECK: return %[[R0]], %[[R1]]
func.func @dynamic_counts(%t0: tensor<100x16xf16>, %t1: tensor<50x32xf16>, %i0: tensor<?xi32>, %o0: tensor<5xi32>, %i1: tensor<?xi32>, %o1: tensor<5xi32>) -> (tensor<4x16xf32>, tensor<4x32xf32>) {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "mean"} : (tensor<100x16xf16>, tensor<?xi32>, tensor<5xi32>) -> tensor<4x16xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "mean"} : (tensor<50x32xf16>, tensor<?xi32>, tensor<5xi32>) -> tensor<4x32xf32>
  return %a, %b : tensor<4x16xf32>, tensor<4x32xf32>
}

// -----

// Weighted bags: per-sample weights are concatenated like the indices;
// padding_idx and bounds_check carry over.
// CHECK-LABEL: func.func @weighted
// CHECK-SAME: (%[[T0:.+]]: tensor<100x8xbf16>, %[[T1:.+]]: tensor<60x8xbf16>, %[[I0:.+]]: tensor<12xi64>, %[[O0:.+]]: tensor<4xi64>, %[[W0:.+]]: tensor<12xf32>, %[[I1:.+]]: tensor<6xi64>, %[[O1:.+]]: tensor<4xi64>, %[[W1:.+]]: tensor<6xf32>)
// CHECK: %[[PSW:.+]] = tensor.concat dim(0) %[[W0]], %[[W1]] : (tensor<12xf32>, tensor<6xf32>) -> tensor<18xf32>
// CHECK: %[[TBE:.+]] = "emb.tbe"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[PSW]]) {bounds_check = "warning", feature_ends, feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 1>, padding_idx = 0 : i64, pooling = "sum"} : (tensor<18xi64>, tensor<11xi64>, !emb.table_handle, !emb.table_handle, tensor<18xf32>) -> tensor<3x16xbf16>
// CHECK: return %[[TBE]]
func.func @weighted(%t0: tensor<100x8xbf16>, %t1: tensor<60x8xbf16>, %i0: tensor<12xi64>, %o0: tensor<4xi64>, %w0: tensor<12xf32>, %i1: tensor<6xi64>, %o1: tensor<4xi64>, %w1: tensor<6xf32>) -> tensor<3x16xbf16> {
  %a = "emb.embedding_bag"(%t0, %i0, %o0, %w0) {mode = "sum", padding_idx = 0 : i64, bounds_check = "warning"} : (tensor<100x8xbf16>, tensor<12xi64>, tensor<4xi64>, tensor<12xf32>) -> tensor<3x8xbf16>
  %b = "emb.embedding_bag"(%t1, %i1, %o1, %w1) {mode = "sum", padding_idx = 0 : i64, bounds_check = "warning"} : (tensor<60x8xbf16>, tensor<6xi64>, tensor<4xi64>, tensor<6xf32>) -> tensor<3x8xbf16>
  %x = tensor.concat dim(1) %a, %b : (tensor<3x8xbf16>, tensor<3x8xbf16>) -> tensor<3x16xbf16>
  return %x : tensor<3x16xbf16>
}

// -----

// Sum and mean bags interleaved make two TBEs, one per pooling mode; the
// second reuses the first one's table handle.
// CHECK-LABEL: func.func @group_by_mode
// CHECK: %[[H:.+]] = "emb.table"
// CHECK: %[[SUM:.+]] = "emb.tbe"(%{{.+}}, %{{.+}}, %[[H]]) {{.*}}pooling = "sum"
// CHECK-DAG: %[[A:.+]] = tensor.extract_slice %[[SUM]][0, 0] [4, 8] [1, 1]
// CHECK-DAG: %[[C:.+]] = tensor.extract_slice %[[SUM]][0, 8] [4, 8] [1, 1]
// CHECK-NOT: "emb.table"
// CHECK: %[[MEAN:.+]] = "emb.tbe"(%{{.+}}, %{{.+}}, %[[H]]) {{.*}}pooling = "mean"
// CHECK-DAG: %[[B:.+]] = tensor.extract_slice %[[MEAN]][0, 0] [4, 8] [1, 1]
// CHECK-DAG: %[[D:.+]] = tensor.extract_slice %[[MEAN]][0, 8] [4, 8] [1, 1]
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @group_by_mode(%t: tensor<100x8xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<5xi64>, %i2: tensor<10xi64>, %o2: tensor<5xi64>, %i3: tensor<10xi64>, %o3: tensor<5xi64>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "mean"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %c = "emb.embedding_bag"(%t, %i2, %o2) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %d = "emb.embedding_bag"(%t, %i3, %o3) {mode = "mean"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  return %a, %b, %c, %d : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A concat of a run of the results (features 1 and 2 of 3) is one slice of
// the TBE output.
// CHECK-LABEL: func.func @partial_concat
// CHECK: %[[TBE:.+]] = "emb.tbe"{{.*}} -> tensor<2x28xf32>
// CHECK: %[[SPAN:.+]] = tensor.extract_slice %[[TBE]][0, 4] [2, 24] [1, 1] : tensor<2x28xf32> to tensor<2x24xf32>
// CHECK: %[[FIRST:.+]] = tensor.extract_slice %[[TBE]][0, 0] [2, 4] [1, 1] : tensor<2x28xf32> to tensor<2x4xf32>
// CHECK-NOT: tensor.concat dim(1)
// CHECK: return %[[SPAN]], %[[FIRST]]
func.func @partial_concat(%t0: tensor<100x4xf32>, %t1: tensor<100x8xf32>, %t2: tensor<100x16xf32>, %i0: tensor<6xi64>, %o0: tensor<3xi64>, %i1: tensor<6xi64>, %o1: tensor<3xi64>, %i2: tensor<6xi64>, %o2: tensor<3xi64>) -> (tensor<2x24xf32>, tensor<2x4xf32>) {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "sum"} : (tensor<100x4xf32>, tensor<6xi64>, tensor<3xi64>) -> tensor<2x4xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<6xi64>, tensor<3xi64>) -> tensor<2x8xf32>
  %c = "emb.embedding_bag"(%t2, %i2, %o2) {mode = "sum"} : (tensor<100x16xf32>, tensor<6xi64>, tensor<3xi64>) -> tensor<2x16xf32>
  %x = tensor.concat dim(1) %b, %c : (tensor<2x8xf32>, tensor<2x16xf32>) -> tensor<2x24xf32>
  return %x, %a : tensor<2x24xf32>, tensor<2x4xf32>
}

// -----

// A concat in another order is not the TBE layout: it stays, on slices.
// CHECK-LABEL: func.func @reordered_concat
// CHECK: %[[TBE:.+]] = "emb.tbe"
// CHECK-DAG: %[[A:.+]] = tensor.extract_slice %[[TBE]][0, 0] [2, 4] [1, 1]
// CHECK-DAG: %[[B:.+]] = tensor.extract_slice %[[TBE]][0, 4] [2, 8] [1, 1]
// CHECK: tensor.concat dim(1) %[[B]], %[[A]]
func.func @reordered_concat(%t0: tensor<100x4xf32>, %t1: tensor<100x8xf32>, %i0: tensor<6xi64>, %o0: tensor<3xi64>, %i1: tensor<6xi64>, %o1: tensor<3xi64>) -> tensor<2x12xf32> {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "sum"} : (tensor<100x4xf32>, tensor<6xi64>, tensor<3xi64>) -> tensor<2x4xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<6xi64>, tensor<3xi64>) -> tensor<2x8xf32>
  %x = tensor.concat dim(1) %b, %a : (tensor<2x8xf32>, tensor<2x4xf32>) -> tensor<2x12xf32>
  return %x : tensor<2x12xf32>
}

// -----

// Mode none (sequence features): one row per index, so each result is a row
// slice and a concat along dim 0 in order is the TBE output.
// CHECK-LABEL: func.func @sequence
// CHECK: %[[TBE:.+]] = "emb.tbe"{{.*}}pooling = "none"{{.*}} -> tensor<12x8xf32>
// CHECK: return %[[TBE]]
func.func @sequence(%t0: tensor<100x8xf32>, %t1: tensor<50x8xf32>, %i0: tensor<7xi64>, %o0: tensor<4xi64>, %i1: tensor<5xi64>, %o1: tensor<4xi64>) -> tensor<12x8xf32> {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "none"} : (tensor<100x8xf32>, tensor<7xi64>, tensor<4xi64>) -> tensor<7x8xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "none"} : (tensor<50x8xf32>, tensor<5xi64>, tensor<4xi64>) -> tensor<5x8xf32>
  %x = tensor.concat dim(0) %a, %b : (tensor<7x8xf32>, tensor<5x8xf32>) -> tensor<12x8xf32>
  return %x : tensor<12x8xf32>
}

// -----

// A bag used before the next one is looked up cannot wait for a TBE placed
// at the last bag: it stays, and the later two are batched.
// CHECK-LABEL: func.func @use_between
// CHECK: %[[A:.+]] = "emb.embedding_bag"
// CHECK: math.exp %[[A]]
// CHECK: "emb.tbe"{{.*}}feature_tables = array<i64: 0, 0>
// CHECK-NOT: "emb.embedding_bag"
func.func @use_between(%t: tensor<100x8xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<5xi64>, %i2: tensor<10xi64>, %o2: tensor<5xi64>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %e = math.exp %a : tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %c = "emb.embedding_bag"(%t, %i2, %o2) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %s = arith.addf %b, %c : tensor<4x8xf32>
  return %e, %s : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// An emb.table the model already has for a table is reused.
// CHECK-LABEL: func.func @existing_handle
// CHECK-SAME: (%[[T:.+]]: tensor<100x8xf32>
// CHECK: %[[H:.+]] = "emb.table"(%[[T]])
// CHECK-NOT: "emb.table"
// CHECK: "emb.tbe"(%{{.+}}, %{{.+}}, %[[H]])
func.func @existing_handle(%t: tensor<100x8xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<5xi64>, %ui: tensor<3xi64>, %uo: tensor<2xi64>) -> (tensor<1x8xf32>, tensor<4x16xf32>) {
  %h = "emb.table"(%t) : (tensor<100x8xf32>) -> !emb.table_handle
  %u = "emb.tbe"(%ui, %uo, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<3xi64>, tensor<2xi64>, !emb.table_handle) -> tensor<1x8xf32>
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %x = tensor.concat dim(1) %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %u, %x : tensor<1x8xf32>, tensor<4x16xf32>
}

// -----

// Bags in different blocks are batched per block: the ones in the loop body
// form their own TBE.
// CHECK-LABEL: func.func @per_block
// CHECK: "emb.tbe"
// CHECK: scf.for
// CHECK: "emb.tbe"
// CHECK: scf.yield
func.func @per_block(%t: tensor<100x8xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<5xi64>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %x = tensor.concat dim(1) %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %c1 step %c1 iter_args(%acc = %x) -> tensor<4x16xf32> {
    %c = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
    %d = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
    %y = tensor.concat dim(1) %c, %d : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
    %s = arith.addf %acc, %y : tensor<4x16xf32>
    scf.yield %s : tensor<4x16xf32>
  }
  return %x, %r : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Offsets as emb-raise-embedding-bag makes them from torch's (one per bag,
// the id count appended by a concat): offsets[0:B] is torch's tensor itself
// and the last bag's pieces join the one concat; the appending concats go.
// CHECK-LABEL: func.func @torch_offsets
// CHECK-SAME: (%[[T0:.+]]: tensor<100x8xf16>, %[[T1:.+]]: tensor<50x8xf16>, %[[I0:.+]]: tensor<6xi64>, %[[O0:.+]]: tensor<3xi64>, %[[I1:.+]]: tensor<9xi64>, %[[O1:.+]]: tensor<3xi64>)
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[N1:.+]] = arith.constant dense<9> : tensor<1xi64>
// The counts are constants: the feature ends are one constant too.
// CHECK: %[[ENDS:.+]] = arith.constant dense<[6, 15, 6, 9]> : tensor<4xi64>
// CHECK: %[[ALL:.+]] = tensor.concat dim(0) %[[O0]], %[[O1]], %[[N1]], %[[ENDS]] : (tensor<3xi64>, tensor<3xi64>, tensor<1xi64>, tensor<4xi64>) -> tensor<11xi64>
// CHECK: %[[SHIFT:.+]] = arith.constant dense<[0, 0, 0, 6, 6, 6, 6, 0, 0, 0, 0]> : tensor<11xi64>
// CHECK: %[[OFFS:.+]] = arith.addi %[[ALL]], %[[SHIFT]] : tensor<11xi64>
// CHECK: %[[TBE:.+]] = "emb.tbe"(%{{.+}}, %[[OFFS]], %{{.+}}, %{{.+}})
// CHECK-NOT: tensor.concat
// CHECK: return %[[TBE]]
func.func @torch_offsets(%t0: tensor<100x8xf16>, %t1: tensor<50x8xf16>, %i0: tensor<6xi64>, %o0: tensor<3xi64>, %i1: tensor<9xi64>, %o1: tensor<3xi64>) -> tensor<3x16xf16> {
  %n0 = arith.constant dense<6> : tensor<1xi64>
  %n1 = arith.constant dense<9> : tensor<1xi64>
  %f0 = tensor.concat dim(0) %o0, %n0 : (tensor<3xi64>, tensor<1xi64>) -> tensor<4xi64>
  %f1 = tensor.concat dim(0) %o1, %n1 : (tensor<3xi64>, tensor<1xi64>) -> tensor<4xi64>
  %a = "emb.embedding_bag"(%t0, %i0, %f0) {mode = "sum"} : (tensor<100x8xf16>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %b = "emb.embedding_bag"(%t1, %i1, %f1) {mode = "sum"} : (tensor<50x8xf16>, tensor<9xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %x = tensor.concat dim(1) %a, %b : (tensor<3x8xf16>, tensor<3x8xf16>) -> tensor<3x16xf16>
  return %x : tensor<3x16xf16>
}

// -----

// torch.stack(bags, 1), as concat dim(1) of [B, 1, D] reshapes: the TBE
// output reshaped to [B, F, D]; a run inside a concat with other pieces
// (here features 1 and 2 between a candidate tensor and zeros, as emb-ikbo
// leaves the LCE's candidate side) becomes one piece of a slice. Nothing
// is copied per feature.
// CHECK-LABEL: func.func @stacked
// CHECK-SAME: (%[[T:.+]]: tensor<100x8xf16>, %[[I:.+]]: tensor<6xi64>, %[[O:.+]]: tensor<4xi64>, %{{.+}}: tensor<6xi64>, %{{.+}}: tensor<4xi64>, %{{.+}}: tensor<6xi64>, %{{.+}}: tensor<4xi64>, %[[X:.+]]: tensor<3x2x8xf16>)
// CHECK: %[[TBE:.+]] = "emb.tbe"{{.*}} -> tensor<3x24xf16>
// CHECK: %[[ALL:.+]] = tensor.expand_shape %[[TBE]] {{\[}}[0], [1, 2]] output_shape [3, 3, 8] : tensor<3x24xf16> into tensor<3x3x8xf16>
// CHECK: %[[SPAN:.+]] = tensor.extract_slice %[[TBE]][0, 8] [3, 16] [1, 1] : tensor<3x24xf16> to tensor<3x16xf16>
// CHECK: %[[SPAN3:.+]] = tensor.expand_shape %[[SPAN]] {{\[}}[0], [1, 2]] output_shape [3, 2, 8] : tensor<3x16xf16> into tensor<3x2x8xf16>
// CHECK: %[[MIXED:.+]] = tensor.concat dim(1) %[[X]], %[[SPAN3]], %{{.+}} : (tensor<3x2x8xf16>, tensor<3x2x8xf16>, tensor<3x1x8xf16>) -> tensor<3x5x8xf16>
// CHECK-NOT: tensor.extract_slice
// CHECK: return %[[ALL]], %[[MIXED]]
func.func @stacked(%t: tensor<100x8xf16>, %i0: tensor<6xi64>, %o0: tensor<4xi64>, %i1: tensor<6xi64>, %o1: tensor<4xi64>, %i2: tensor<6xi64>, %o2: tensor<4xi64>, %x: tensor<3x2x8xf16>) -> (tensor<3x3x8xf16>, tensor<3x5x8xf16>) {
  %z = arith.constant dense<0.0> : tensor<3x1x8xf16>
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf16>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf16>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %c = "emb.embedding_bag"(%t, %i2, %o2) {mode = "sum"} : (tensor<100x8xf16>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %a3 = tensor.expand_shape %a [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %b3 = tensor.expand_shape %b [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %c3 = tensor.expand_shape %c [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %b3c = tensor.expand_shape %b [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %c3c = tensor.expand_shape %c [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %all = tensor.concat dim(1) %a3, %b3, %c3 : (tensor<3x1x8xf16>, tensor<3x1x8xf16>, tensor<3x1x8xf16>) -> tensor<3x3x8xf16>
  %mixed = tensor.concat dim(1) %x, %b3c, %c3c, %z : (tensor<3x2x8xf16>, tensor<3x1x8xf16>, tensor<3x1x8xf16>, tensor<3x1x8xf16>) -> tensor<3x5x8xf16>
  return %all, %mixed : tensor<3x3x8xf16>, tensor<3x5x8xf16>
}

// -----

// Stacked features in another order than the TBE's are not its layout: the
// concat stays, on the features' slices.
// CHECK-LABEL: func.func @stacked_reordered
// CHECK: %[[TBE:.+]] = "emb.tbe"
// CHECK-DAG: %[[A:.+]] = tensor.extract_slice %[[TBE]][0, 0] [3, 8] [1, 1]
// CHECK-DAG: %[[B:.+]] = tensor.extract_slice %[[TBE]][0, 8] [3, 8] [1, 1]
// CHECK-DAG: %[[A3:.+]] = tensor.expand_shape %[[A]]
// CHECK-DAG: %[[B3:.+]] = tensor.expand_shape %[[B]]
// CHECK: tensor.concat dim(1) %[[B3]], %[[A3]]
func.func @stacked_reordered(%t: tensor<100x8xf16>, %i0: tensor<6xi64>, %o0: tensor<4xi64>, %i1: tensor<6xi64>, %o1: tensor<4xi64>) -> tensor<3x2x8xf16> {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf16>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf16>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %a3 = tensor.expand_shape %a [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %b3 = tensor.expand_shape %b [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %x = tensor.concat dim(1) %b3, %a3 : (tensor<3x1x8xf16>, tensor<3x1x8xf16>) -> tensor<3x2x8xf16>
  return %x : tensor<3x2x8xf16>
}

// -----

// Ids whose static counts sum past INT64_MAX cannot be one TBE's: the bags
// stay as they are (found by emb-fuzz: the sum overflowed).
// CHECK-LABEL: func.func @huge_ids
// CHECK-NOT: emb.tbe
// CHECK: "emb.embedding_bag"
// CHECK: "emb.embedding_bag"
// CHECK-NOT: emb.tbe
// CHECK: return
func.func @huge_ids(%t: tensor<100x8xf32>, %i0: tensor<9223372036854775807xi64>, %o0: tensor<5xi64>, %i1: tensor<9223372036854775807xi64>, %o1: tensor<5xi64>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<9223372036854775807xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<9223372036854775807xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

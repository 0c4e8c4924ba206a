// Bags that emb-batch-tables must not batch together: anything one emb.tbe
// holds once differs, or the bag cannot be a TBE feature. Each case keeps
// its bags as they are.
// RUN: emb-opt --split-input-file --emb-batch-tables %s | FileCheck %s
// REQUIRES: emb-compiler

// Different batch sizes (B = 4 and B = 3).
// CHECK-LABEL: func.func @different_batch
// CHECK-COUNT-2: "emb.embedding_bag"
// CHECK-NOT: "emb.tbe"
func.func @different_batch(%t: tensor<100x8xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<4xi64>) -> (tensor<4x8xf32>, tensor<3x8xf32>) {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<4xi64>) -> tensor<3x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<3x8xf32>
}

// -----

// Tables of different element types (one TBE holds one).
// CHECK-LABEL: func.func @different_table_types
// CHECK-COUNT-2: "emb.embedding_bag"
// CHECK-NOT: "emb.tbe"
func.func @different_table_types(%t0: tensor<100x8xf32>, %t1: tensor<100x8xf16>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<5xi64>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "sum"} : (tensor<100x8xf16>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Different id types, padding ids, bounds checks, weighted and not.
// CHECK-LABEL: func.func @different_attributes
// CHECK-COUNT-5: "emb.embedding_bag"
// CHECK-NOT: "emb.tbe"
func.func @different_attributes(%t: tensor<100x8xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi32>, %o1: tensor<5xi32>, %w: tensor<10xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi32>, tensor<5xi32>) -> tensor<4x8xf32>
  %c = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum", padding_idx = 3 : i64} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %d = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum", bounds_check = "ignore"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %e = "emb.embedding_bag"(%t, %i0, %o0, %w) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>, tensor<10xf32>) -> tensor<4x8xf32>
  return %a, %b, %c, %d, %e : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Dynamic offsets: B is unknown, so bags cannot be proven to share a batch.
// CHECK-LABEL: func.func @dynamic_offsets
// CHECK-COUNT-2: "emb.embedding_bag"
// CHECK-NOT: "emb.tbe"
func.func @dynamic_offsets(%t: tensor<100x8xf32>, %i0: tensor<10xi64>, %o0: tensor<?xi64>, %i1: tensor<10xi64>, %o1: tensor<?xi64>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<?xi64>) -> tensor<?x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<?xi64>) -> tensor<?x8xf32>
  return %a, %b : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// A table wider than a TBE admits (2048 columns).
// CHECK-LABEL: func.func @too_wide
// CHECK-COUNT-2: "emb.embedding_bag"
// CHECK-NOT: "emb.tbe"
func.func @too_wide(%t0: tensor<10x4096xf32>, %t1: tensor<10x8xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<5xi64>) -> (tensor<4x4096xf32>, tensor<4x8xf32>) {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "sum"} : (tensor<10x4096xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x4096xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "sum"} : (tensor<10x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  return %a, %b : tensor<4x4096xf32>, tensor<4x8xf32>
}

// -----

// Mode none needs one D for all features.
// CHECK-LABEL: func.func @none_different_dims
// CHECK-COUNT-2: "emb.embedding_bag"
// CHECK-NOT: "emb.tbe"
func.func @none_different_dims(%t0: tensor<100x8xf32>, %t1: tensor<100x16xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<5xi64>) -> (tensor<10x8xf32>, tensor<10x16xf32>) {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "none"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<10x8xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "none"} : (tensor<100x16xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<10x16xf32>
  return %a, %b : tensor<10x8xf32>, tensor<10x16xf32>
}

// -----

// One bag alone stays a bag.
// CHECK-LABEL: func.func @single
// CHECK: "emb.embedding_bag"
// CHECK-NOT: "emb.tbe"
func.func @single(%t: tensor<100x8xf32>, %i: tensor<10xi64>, %o: tensor<5xi64>) -> tensor<4x8xf32> {
  %a = "emb.embedding_bag"(%t, %i, %o) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

// A backward op updates its table in place: a bag before it and one after
// it stay apart (their TBE, at the later bag, would read the updated table);
// bags on the same side still batch.
// CHECK-LABEL: func.func @across_backward
// CHECK: "emb.embedding_bag"(%[[T0:[^,]+]],
// CHECK-NEXT: "emb.embedding_bag_backward"(%[[T0]],
// CHECK: "emb.tbe"
// CHECK-NOT: "emb.embedding_bag"(
func.func @across_backward(%t0: tensor<100x8xf32>, %t1: tensor<100x8xf32>, %t2: tensor<100x8xf32>, %i: tensor<10xi64>, %o: tensor<5xi64>, %g: tensor<4x8xf32>, %hyper: tensor<5xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<100x8xf32>) {
  %a = "emb.embedding_bag"(%t0, %i, %o) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %n = "emb.embedding_bag_backward"(%t0, %i, %o, %g, %hyper) {optimizer = "sgd", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>, tensor<4x8xf32>, tensor<5xf32>) -> tensor<100x8xf32>
  %b = "emb.embedding_bag"(%t1, %i, %o) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %c = "emb.embedding_bag"(%t2, %i, %o) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  return %a, %b, %c, %n : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<100x8xf32>
}

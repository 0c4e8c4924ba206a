// emb-erase-dead: emb ops nobody reads (IRDL gives them no DCE) are erased,
// with the effect-free ops only they read; what is used stays, and so do
// the ops with effects (collectives, in-place updates of the backward ops).
// RUN: emb-opt --emb-erase-dead %s | FileCheck %s
// RUN: emb-opt --emb-from-torch %s | FileCheck %s --check-prefix=FROM-TORCH
// REQUIRES: emb-compiler

// An unused lookup goes with the concat and constant of its offsets; an
// unused lce goes with the broadcast that fed only it; the used broadcast
// stays.
// CHECK-LABEL: func.func @dead_chain
// CHECK-SAME: (%{{.+}}: tensor<10x4xf32>, %{{.+}}: tensor<6xi64>, %{{.+}}: tensor<3xi64>, %[[U:.+]]: tensor<2x10x4xf32>, %{{.+}}: tensor<3x10xf32>, %[[C2U:.+]]: tensor<6xi64>)
// CHECK-NEXT: %[[B:.+]] = "emb.broadcast"(%[[U]], %[[C2U]])
// CHECK-NEXT: return %[[B]]
func.func @dead_chain(%w: tensor<10x4xf32>, %ids: tensor<6xi64>, %off: tensor<3xi64>, %u: tensor<2x10x4xf32>, %w2: tensor<3x10xf32>, %c2u: tensor<6xi64>) -> tensor<6x10x4xf32> {
  %n = arith.constant dense<6> : tensor<1xi64>
  %ext = tensor.concat dim(0) %off, %n : (tensor<3xi64>, tensor<1xi64>) -> tensor<4xi64>
  %dead = "emb.embedding_bag"(%w, %ids, %ext) {mode = "sum"} : (tensor<10x4xf32>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x4xf32>
  %b0 = "emb.broadcast"(%u, %c2u) : (tensor<2x10x4xf32>, tensor<6xi64>) -> tensor<6x10x4xf32>
  %unused = "emb.lce"(%w2, %b0) : (tensor<3x10xf32>, tensor<6x10x4xf32>) -> tensor<6x3x4xf32>
  %b = "emb.broadcast"(%u, %c2u) : (tensor<2x10x4xf32>, tensor<6xi64>) -> tensor<6x10x4xf32>
  return %b : tensor<6x10x4xf32>
}

// A collective stays though nobody reads it: every rank must issue it (a
// rank that holds no table of a group still sends its ids).
// CHECK-LABEL: func.func @collective_stays
// CHECK-NEXT: "emb.reduce_scatter"
// CHECK-NEXT: return
func.func @collective_stays(%x: tensor<16x8xf32>) {
  %unused = "emb.reduce_scatter"(%x) {world_size = 2 : i64} : (tensor<16x8xf32>) -> tensor<8x8xf32>
  return
}

// A training step run in a loop keeps its arguments and leaves the
// backward's results unused: the tables are updated in place (the aliasing
// contract), so the backward is not dead, and neither are the handles it
// reads. The unused table_value of its result goes.
// CHECK-LABEL: func.func @unused_tbe_backward_stays
// CHECK-SAME: (%[[IDS:.+]]: tensor<4xi64>, %[[OFF:.+]]: tensor<3xi64>, %[[T0:.+]]: tensor<5x2xf32>, %[[GRAD:.+]]: tensor<1x4xf32>, %[[HYPER:.+]]: tensor<5xf32>)
// CHECK-NEXT: %[[H0:.+]] = "emb.table"(%[[T0]])
// CHECK-NEXT: "emb.tbe_backward"(%[[IDS]], %[[OFF]], %[[H0]], %[[GRAD]], %[[HYPER]])
// CHECK-NEXT: return
// FROM-TORCH-LABEL: func.func @unused_tbe_backward_stays
// FROM-TORCH: "emb.tbe_backward"
// FROM-TORCH-NEXT: return
func.func @unused_tbe_backward_stays(%ids: tensor<4xi64>, %offsets: tensor<3xi64>, %t0: tensor<5x2xf32>, %grad: tensor<1x4xf32>, %hyper: tensor<5xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<5x2xf32>) -> !emb.table_handle
  %new = "emb.tbe_backward"(%ids, %offsets, %h0, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<4xi64>, tensor<3xi64>, !emb.table_handle, tensor<1x4xf32>, tensor<5xf32>) -> !emb.table_handle
  %unused = "emb.table_value"(%new) : (!emb.table_handle) -> tensor<5x2xf32>
  return
}

// The same for the one-table backward, after the forward that the caller
// reads: the lookup is used, the backward updates %w in place.
// CHECK-LABEL: func.func @unused_bag_backward_stays
// CHECK: %[[FWD:.+]] = "emb.embedding_bag"
// CHECK-NEXT: "emb.embedding_bag_backward"
// CHECK-NEXT: return %[[FWD]]
// FROM-TORCH-LABEL: func.func @unused_bag_backward_stays
// FROM-TORCH: "emb.embedding_bag"
// FROM-TORCH-NEXT: "emb.embedding_bag_backward"
// FROM-TORCH-NEXT: return
func.func @unused_bag_backward_stays(%w: tensor<5x2xf32>, %ids: tensor<2xi64>, %offsets: tensor<2xi64>, %grad: tensor<1x2xf32>, %hyper: tensor<5xf32>) -> tensor<1x2xf32> {
  %fwd = "emb.embedding_bag"(%w, %ids, %offsets) {mode = "sum"} : (tensor<5x2xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x2xf32>
  %new = "emb.embedding_bag_backward"(%w, %ids, %offsets, %grad, %hyper) {optimizer = "sgd", mode = "sum", operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 1, 0, 0>} : (tensor<5x2xf32>, tensor<2xi64>, tensor<2xi64>, tensor<1x2xf32>, tensor<5xf32>) -> tensor<5x2xf32>
  return %fwd : tensor<1x2xf32>
}

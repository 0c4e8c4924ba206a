// emb-erase-dead: emb ops nobody reads (IRDL gives them no DCE) are erased,
// with the effect-free ops only they read; what is used stays.
// RUN: emb-opt --emb-erase-dead %s | FileCheck %s
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

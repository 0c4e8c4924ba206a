// emb-shard makes one rank's program of an emb.tbe with a sharding plan: the
// input dist (emb.bucketize, an all_to_all of lengths with counts from the
// plan, one of ids with counts from the lengths), the local lookup over the
// shards the rank holds (the function's table arguments become them), the
// output dist (all_to_all of pooled rows, or reduce_scatter of row-wise
// partial sums), and the pieces concatenated back in feature order.
// RUN: emb-opt --split-input-file --emb-shard='rank=0' %s | FileCheck %s --check-prefixes=CHECK,R0
// RUN: emb-opt --split-input-file --emb-shard='rank=1' %s | FileCheck %s --check-prefixes=CHECK,R1
// REQUIRES: emb-compiler

// Table-wise: table 0 on rank 0 (features 0 and 2), table 1 on rank 1
// (feature 1). B = 4. Each rank sends 4 lengths per slot to the slot's
// rank; its lookup takes every source's bags of the features it holds
// (source-major), the pooled rows go back by all_to_all, and each feature
// is read from its owner's block.
// CHECK-LABEL: func.func @table_wise
// R0-SAME: tensor<100x16xf32>, %{{.+}}: tensor<0x8xf32>) -> tensor<4x40xf32> attributes {emb.rank = 0 : i64, emb.world_size = 2 : i64}
// R1-SAME: tensor<0x16xf32>, %{{.+}}: tensor<50x8xf32>) -> tensor<4x40xf32> attributes {emb.rank = 1 : i64, emb.world_size = 2 : i64}
// CHECK: %[[B:.+]]:3 = "emb.bucketize"(%{{.+}}, %{{.+}}) {slot_features = array<i64: 0, 2, 1>, slot_ranks = array<i64: 0, 0, 1>, slot_row_begin = array<i64: 0, 0, 0>, slot_row_end = array<i64: 100, 100, 50>, world_size = 2 : i64} : (tensor<?xi64>, tensor<13xi64>) -> (tensor<?xi64>, tensor<12xi64>, tensor<2xi64>)
// R0: %[[LENS:.+]] = "emb.all_to_all"(%[[B]]#1) {recv_splits = array<i64: 8, 8>, send_splits = array<i64: 8, 4>, world_size = 2 : i64} : (tensor<12xi64>) -> tensor<16xi64>
// R1: %[[LENS:.+]] = "emb.all_to_all"(%[[B]]#1) {recv_splits = array<i64: 4, 4>, send_splits = array<i64: 8, 4>, world_size = 2 : i64} : (tensor<12xi64>) -> tensor<8xi64>
// R0: %[[OFF:.+]]:2 = "emb.lengths_to_offsets"(%[[LENS]]) {blocks = 2 : i64} : (tensor<16xi64>) -> (tensor<17xi64>, tensor<2xi64>)
// CHECK: %[[IDS:.+]] = "emb.all_to_all"(%[[B]]#0, %[[B]]#2, %[[OFF:.+]]#1) {world_size = 2 : i64} : (tensor<?xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
// R0: %[[LOCAL:.+]] = "emb.tbe"(%[[IDS]], %[[OFF]]#0, %{{.+}}) {feature_tables = array<i64: 0, 0, 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, pooling = "sum"} : (tensor<?xi64>, tensor<17xi64>, !emb.table_handle) -> tensor<4x64xf32>
// R1: %[[LOCAL:.+]] = "emb.tbe"(%[[IDS]], %[[OFF]]#0, %{{.+}}) {feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, pooling = "sum"} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x16xf32>
// R0: %[[FROM0:.+]] = tensor.extract_slice %[[LOCAL]][0, 0] [4, 32] [1, 1]
// R0: %[[FROM1:.+]] = tensor.extract_slice %[[LOCAL]][0, 32] [4, 32] [1, 1]
// R0: %[[ROWS:.+]] = tensor.concat dim(0) %[[FROM0]], %[[FROM1]] : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<8x32xf32>
// R0: %[[SEND:.+]] = tensor.collapse_shape %[[ROWS]] {{\[}}[0, 1]] : tensor<8x32xf32> into tensor<256xf32>
// R0: %[[RECV:.+]] = "emb.all_to_all"(%[[SEND]]) {recv_splits = array<i64: 128, 32>, send_splits = array<i64: 128, 128>, world_size = 2 : i64} : (tensor<256xf32>) -> tensor<160xf32>
// R1: %[[RECV:.+]] = "emb.all_to_all"(%{{.+}}) {recv_splits = array<i64: 128, 32>, send_splits = array<i64: 32, 32>, world_size = 2 : i64} : (tensor<64xf32>) -> tensor<160xf32>
// CHECK: %[[BLOCK0:.+]] = tensor.extract_slice %[[RECV]][0] [128] [1]
// CHECK: %[[OWN0:.+]] = tensor.expand_shape %[[BLOCK0]] {{\[}}[0, 1]] output_shape [4, 32] : tensor<128xf32> into tensor<4x32xf32>
// CHECK: %[[BLOCK1:.+]] = tensor.extract_slice %[[RECV]][128] [32] [1]
// CHECK: %[[F1:.+]] = tensor.expand_shape %[[BLOCK1]] {{\[}}[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
// CHECK: %[[F0:.+]] = tensor.extract_slice %[[OWN0]][0, 0] [4, 16] [1, 1]
// CHECK: %[[F2:.+]] = tensor.extract_slice %[[OWN0]][0, 16] [4, 16] [1, 1]
// CHECK: %[[OUT:.+]] = tensor.concat dim(1) %[[F0]], %[[F1]], %[[F2]] : (tensor<4x16xf32>, tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<4x40xf32>
// CHECK-NOT: sharding
// CHECK: return %[[OUT]]
func.func @table_wise(%idx: tensor<?xi64>, %off: tensor<13xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>) -> tensor<4x40xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1, 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x40xf32>
  return %0 : tensor<4x40xf32>
}

// -----

// Row-wise: rows [0, 60) on rank 1 and [60, 100) on rank 0. Ids are
// bucketized by row range and shifted to the shard's rows; each rank sums
// what its rows give for every source's bags, and reduce_scatter adds the
// partial sums up on the batch's rank.
// CHECK-LABEL: func.func @row_wise
// R0-SAME: (%{{.+}}: tensor<?xi32>, %{{.+}}: tensor<9xi32>, %{{.+}}: tensor<40x32xbf16>) -> tensor<8x32xf32>
// R1-SAME: (%{{.+}}: tensor<?xi32>, %{{.+}}: tensor<9xi32>, %{{.+}}: tensor<60x32xbf16>) -> tensor<8x32xf32>
// CHECK: %[[B:.+]]:3 = "emb.bucketize"(%{{.+}}, %{{.+}}) {slot_features = array<i64: 0, 0>, slot_ranks = array<i64: 0, 1>, slot_row_begin = array<i64: 60, 0>, slot_row_end = array<i64: 100, 60>, world_size = 2 : i64} : (tensor<?xi32>, tensor<9xi32>) -> (tensor<?xi32>, tensor<16xi32>, tensor<2xi64>)
// CHECK: %[[LENS:.+]] = "emb.all_to_all"(%[[B]]#1) {recv_splits = array<i64: 8, 8>, send_splits = array<i64: 8, 8>, world_size = 2 : i64}
// CHECK: %[[OFF:.+]]:2 = "emb.lengths_to_offsets"(%[[LENS]]) {blocks = 2 : i64} : (tensor<16xi32>) -> (tensor<17xi32>, tensor<2xi64>)
// CHECK: %[[IDS:.+]] = "emb.all_to_all"(%[[B]]#0, %[[B]]#2, %[[OFF]]#1)
// CHECK: %[[LOCAL:.+]] = "emb.tbe"(%[[IDS]], %[[OFF]]#0, %{{.+}}) {bounds_check = "warning", feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, pooling = "sum"} : (tensor<?xi32>, tensor<17xi32>, !emb.table_handle) -> tensor<8x64xf32>
// CHECK: %[[ROWS:.+]] = tensor.concat dim(0) %{{.+}}, %{{.+}} : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
// CHECK: %[[SUM:.+]] = "emb.reduce_scatter"(%[[ROWS]]) {world_size = 2 : i64} : (tensor<16x32xf32>) -> tensor<8x32xf32>
// CHECK-NOT: tensor.concat dim(1)
// CHECK: return %[[SUM]]
func.func @row_wise(%idx: tensor<?xi32>, %off: tensor<9xi32>, %t0: tensor<100x32xbf16>) -> tensor<8x32xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x32xbf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", bounds_check = "warning", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 1, 0>, row_ranges = array<i64: 0, 60, 100>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi32>, tensor<9xi32>, !emb.table_handle) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Column-wise, mean pooling: columns [0, 16) on rank 1, [16, 40) on rank 0.
// Every shard's rank gets all of the feature's ids; the two column blocks
// come back by all_to_all and are joined in column order.
// CHECK-LABEL: func.func @column_wise
// R0-SAME: tensor<50x24xf16>) -> tensor<2x40xf16>
// R1-SAME: tensor<50x16xf16>) -> tensor<2x40xf16>
// CHECK: "emb.bucketize"(%{{.+}}, %{{.+}}) {slot_features = array<i64: 0, 0>, slot_ranks = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 50, 50>, world_size = 2 : i64}
// R0: "emb.tbe"(%{{.+}}, %{{.+}}, %{{.+}}) {feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, padding_idx = 0 : i64, pooling = "mean"} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<2x48xf16>
// R1: "emb.tbe"(%{{.+}}, %{{.+}}, %{{.+}}) {feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, padding_idx = 0 : i64, pooling = "mean"} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<2x32xf16>
// CHECK: %[[RECV:.+]] = "emb.all_to_all"(%{{.+}}) {recv_splits = array<i64: 48, 32>
// CHECK: %[[LEFT:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0, 1]] output_shape [2, 24]
// CHECK: %[[RIGHT:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0, 1]] output_shape [2, 16]
// CHECK: %[[OUT:.+]] = tensor.concat dim(1) %[[RIGHT]], %[[LEFT]] : (tensor<2x16xf16>, tensor<2x24xf16>) -> tensor<2x40xf16>
// CHECK: return %[[OUT]]
func.func @column_wise(%idx: tensor<?xi64>, %off: tensor<3xi64>, %t0: tensor<50x40xf16>) -> tensor<2x40xf16> {
  %h0 = "emb.table"(%t0) : (tensor<50x40xf16>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "mean", padding_idx = 0 : i64, feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "column_wise", ranks = array<i64: 1, 0>, col_ranges = array<i64: 0, 16, 40>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<3xi64>, !emb.table_handle) -> tensor<2x40xf16>
  return %0 : tensor<2x40xf16>
}

// -----

// Data-parallel: every rank holds the table whole and looks up its own
// batch; no collective.
// CHECK-LABEL: func.func @data_parallel
// CHECK-SAME: tensor<10x8xf32>) -> tensor<4x16xf32>
// CHECK-NOT: emb.all_to_all
// CHECK-NOT: emb.reduce_scatter
// R0: %[[B:.+]]:3 = "emb.bucketize"(%{{.+}}, %{{.+}}) {slot_features = array<i64: 0, 1>, slot_ranks = array<i64: 0, 0>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>, world_size = 2 : i64}
// R1: %[[B:.+]]:3 = "emb.bucketize"(%{{.+}}, %{{.+}}) {slot_features = array<i64: 0, 1>, slot_ranks = array<i64: 1, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>, world_size = 2 : i64}
// CHECK: %[[OFF:.+]]:2 = "emb.lengths_to_offsets"(%[[B]]#1) {blocks = 1 : i64} : (tensor<8xi64>) -> (tensor<9xi64>, tensor<1xi64>)
// CHECK: %[[OUT:.+]] = "emb.tbe"(%[[B]]#0, %[[OFF]]#0, %{{.+}}) {feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, pooling = "sum"} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x16xf32>
// CHECK-NOT: emb.all_to_all
// CHECK-NOT: tensor.concat
// CHECK: return %[[OUT]]
func.func @data_parallel(%idx: tensor<?xi64>, %off: tensor<9xi64>, %t0: tensor<10x8xf32>) -> tensor<4x16xf32> {
  %h0 = "emb.table"(%t0) : (tensor<10x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0, 0>, world_size = 2 : i64, sharding = [{kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// All four kinds in one op (F = 3 features over 4 tables, B = 8): feature 0
// row-wise, feature 1 column-wise (columns [0, 16) on rank 1, [16, 32) on
// rank 0), feature 2 data-parallel; table 2 is table-wise on rank 1 and no
// feature reads it. The groups come in a fixed order (all_to_all, row-wise,
// local), so both ranks issue the same collectives; the result keeps feature
// order: 64 + 16 + 16 + 8 columns.
// CHECK-LABEL: func.func @mixed
// R0-SAME: tensor<60x64xf32>, %{{.+}}: tensor<50x16xf32>, %{{.+}}: tensor<0x16xf32>, %{{.+}}: tensor<7x8xf32>)
// R1-SAME: tensor<40x64xf32>, %{{.+}}: tensor<50x16xf32>, %{{.+}}: tensor<10x16xf32>, %{{.+}}: tensor<7x8xf32>)
// CHECK: "emb.bucketize"{{.+}}slot_features = array<i64: 1, 1>, slot_ranks = array<i64: 0, 1>
// CHECK: %[[CW:.+]] = "emb.all_to_all"(%{{.+}}) {recv_splits = array<i64: 128, 128>, send_splits = array<i64: 128, 128>
// CHECK: %[[CW0:.+]] = tensor.expand_shape %{{.+}} output_shape [8, 16]
// CHECK: %[[CW1:.+]] = tensor.expand_shape %{{.+}} output_shape [8, 16]
// CHECK: "emb.bucketize"{{.+}}slot_features = array<i64: 0, 0>, slot_ranks = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 60>, slot_row_end = array<i64: 60, 100>
// CHECK: %[[RW:.+]] = "emb.reduce_scatter"(%{{.+}}) {world_size = 2 : i64} : (tensor<16x64xf32>) -> tensor<8x64xf32>
// CHECK: "emb.bucketize"{{.+}}slot_features = array<i64: 2>
// CHECK: %[[DP:.+]] = "emb.tbe"{{.+}} -> tensor<8x8xf32>
// CHECK-NOT: tensor.extract_slice %[[DP]]
// CHECK: %[[OUT:.+]] = tensor.concat dim(1) %[[RW]], %[[CW1]], %[[CW0]], %[[DP]] : (tensor<8x64xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x8xf32>) -> tensor<8x104xf32>
// CHECK: return %[[OUT]]
func.func @mixed(%idx: tensor<?xi64>, %off: tensor<25xi64>, %t0: tensor<100x64xf32>, %t1: tensor<50x32xf32>, %t2: tensor<10x16xf32>, %t3: tensor<7x8xf32>) -> tensor<8x104xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x64xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x32xf32>) -> !emb.table_handle
  %h2 = "emb.table"(%t2) : (tensor<10x16xf32>) -> !emb.table_handle
  %h3 = "emb.table"(%t3) : (tensor<7x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %h1, %h2, %h3) {pooling = "sum", feature_tables = array<i64: 0, 1, 3>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 0, 1>, row_ranges = array<i64: 0, 60, 100>}, {kind = "column_wise", ranks = array<i64: 1, 0>, col_ranges = array<i64: 0, 16, 32>}, {kind = "table_wise", ranks = array<i64: 1>}, {kind = "data_parallel"}], operandSegmentSizes = array<i32: 1, 1, 4, 0>} : (tensor<?xi64>, tensor<25xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<8x104xf32>
  return %0 : tensor<8x104xf32>
}

// -----

// A rank that holds no table-wise or column-wise table still takes part in
// that group's collectives: it sends an empty block of pooled rows.
// CHECK-LABEL: func.func @idle_rank
// R0: %[[IDS:.+]] = "emb.all_to_all"(%{{.+}}, %{{.+}}, %{{.+}}) {world_size = 2 : i64}
// R0-NOT: "emb.tbe"
// R0: %[[NONE:.+]] = tensor.empty() : tensor<0xf32>
// R0: "emb.all_to_all"(%[[NONE]]) {recv_splits = array<i64: 0, 32>, send_splits = array<i64: 0, 0>, world_size = 2 : i64} : (tensor<0xf32>) -> tensor<32xf32>
// R1: "emb.tbe"
// R1: "emb.all_to_all"(%{{.+}}) {recv_splits = array<i64: 0, 32>, send_splits = array<i64: 32, 32>, world_size = 2 : i64} : (tensor<64xf32>) -> tensor<32xf32>
func.func @idle_rank(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<50x8xf32>) -> tensor<4x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<50x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0) {pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Per-sample weights travel with their ids: bucketize splits them by the
// same slots, a third all_to_all sends them with the ids' counts, and the
// local lookup is weighted.
// CHECK-LABEL: func.func @weighted
// CHECK: %[[B:.+]]:4 = "emb.bucketize"(%{{.+}}, %{{.+}}, %[[PSW:.+]]) {{.+}} : (tensor<?xi64>, tensor<5xi64>, tensor<?xf32>) -> (tensor<?xi64>, tensor<4xi64>, tensor<2xi64>, tensor<?xf32>)
// CHECK: %[[OFF:.+]]:2 = "emb.lengths_to_offsets"
// CHECK: %[[IDS:.+]] = "emb.all_to_all"(%[[B]]#0, %[[B]]#2, %[[OFF]]#1) {world_size = 2 : i64} : (tensor<?xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
// CHECK: %[[W:.+]] = "emb.all_to_all"(%[[B]]#3, %[[B]]#2, %[[OFF]]#1) {world_size = 2 : i64} : (tensor<?xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xf32>
// R0: "emb.tbe"(%[[IDS]], %[[OFF]]#0, %{{.+}}, %[[W]]) {feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 1>, pooling = "sum"}
// R1-NOT: "emb.tbe"
func.func @weighted(%idx: tensor<?xi64>, %off: tensor<5xi64>, %t0: tensor<100x8xf32>, %psw: tensor<?xf32>) -> tensor<4x8xf32> {
  %h0 = "emb.table"(%t0) : (tensor<100x8xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%idx, %off, %h0, %psw) {pooling = "sum", feature_tables = array<i64: 0>, world_size = 2 : i64, sharding = [{kind = "table_wise", ranks = array<i64: 0>}], operandSegmentSizes = array<i32: 1, 1, 1, 1>} : (tensor<?xi64>, tensor<5xi64>, !emb.table_handle, tensor<?xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A training step: the forward and its backward under one plan (row-wise
// table 0, rows [0, 60) on rank 1 and [60, 100) on rank 0; table-wise table
// 1 on rank 1). The backward takes the forward's input dists (no second
// bucketize); the gradients go back to the owners: table 1's columns of the
// batch's gradient by all_to_all (the reverse of the forward's output dist),
// row-wise tables' by all_gather (the reverse of the reduce_scatter); each
// rank steps its shards of the tables and their Adagrad states, and returns
// them.
// CHECK-LABEL: func.func @step
// R0-SAME: tensor<40x16xf32>, %{{.+}}: tensor<0x8xf32>, %{{.+}}: tensor<40xf32>, %{{.+}}: tensor<0xf32>, %{{.+}}: tensor<4x40xf32>, %{{.+}}: tensor<5xf32>) -> (tensor<4x40xf32>, tensor<40x16xf32>, tensor<0x8xf32>, tensor<40xf32>, tensor<0xf32>)
// R1-SAME: tensor<60x16xf32>, %{{.+}}: tensor<50x8xf32>, %{{.+}}: tensor<60xf32>, %{{.+}}: tensor<50xf32>, %{{.+}}: tensor<4x40xf32>, %{{.+}}: tensor<5xf32>) -> (tensor<4x40xf32>, tensor<60x16xf32>, tensor<50x8xf32>, tensor<60xf32>, tensor<50xf32>)
// CHECK-COUNT-2: "emb.bucketize"
// CHECK-NOT: "emb.bucketize"
// CHECK: %[[GRAD1:.+]] = tensor.extract_slice %[[G:.+]][0, 16] [4, 8] [1, 1] : tensor<4x40xf32> to tensor<4x8xf32>
// CHECK: %[[SEND:.+]] = tensor.collapse_shape %[[GRAD1]]
// R0: "emb.all_to_all"(%[[SEND]]) {recv_splits = array<i64: 0, 0>, send_splits = array<i64: 0, 32>, world_size = 2 : i64} : (tensor<32xf32>) -> tensor<0xf32>
// R1: %[[GOT:.+]] = "emb.all_to_all"(%[[SEND]]) {recv_splits = array<i64: 32, 32>, send_splits = array<i64: 0, 32>, world_size = 2 : i64} : (tensor<32xf32>) -> tensor<64xf32>
// R1: %[[ROWS:.+]] = tensor.expand_shape %[[GOT]] {{\[}}[0, 1]] output_shape [8, 8]
// R1: %[[FROM0:.+]] = tensor.extract_slice %[[ROWS]][0, 0] [4, 8] [1, 1]
// R1: %[[FROM1:.+]] = tensor.extract_slice %[[ROWS]][4, 0] [4, 8] [1, 1]
// R1: %[[G1:.+]] = tensor.concat dim(1) %[[FROM0]], %[[FROM1]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
// R1: %[[T1:.+]]:2 = "emb.tbe_backward"(%{{.+}}, %{{.+}}, %{{.+}}, %[[G1]], %{{.+}}, %{{.+}}) {feature_tables = array<i64: 0, 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 1, 0, 1, 0>, optimizer = "rowwise_adagrad", pooling = "sum", resultSegmentSizes = array<i32: 1, 1, 0>}
// CHECK: %[[F0:.+]] = tensor.extract_slice %[[G]][0, 0] [4, 16] [1, 1]
// CHECK: %[[F2:.+]] = tensor.extract_slice %[[G]][0, 24] [4, 16] [1, 1]
// CHECK: %[[MINE:.+]] = tensor.concat dim(1) %[[F0]], %[[F2]] : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x32xf32>
// CHECK: %[[ALL:.+]] = "emb.all_gather"(%[[MINE]]) {world_size = 2 : i64} : (tensor<4x32xf32>) -> tensor<8x32xf32>
// CHECK: %[[T0:.+]]:2 = "emb.tbe_backward"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) {feature_tables = array<i64: 0, 0, 0, 0>, {{.+}}optimizer = "rowwise_adagrad"{{.+}}} : ({{.+}}, tensor<4x64xf32>, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.state_handle)
// R0: "emb.table_value"(%[[T0]]#0) : (!emb.table_handle) -> tensor<40x16xf32>
// R0: "emb.table_value"(%{{.+}}) : (!emb.table_handle) -> tensor<0x8xf32>
// R1: "emb.table_value"(%[[T0]]#0) : (!emb.table_handle) -> tensor<60x16xf32>
// R1: "emb.table_value"(%[[T1]]#0) : (!emb.table_handle) -> tensor<50x8xf32>
// CHECK-NOT: sharding
// CHECK: return
func.func @step(%idx: tensor<?xi64>, %off: tensor<13xi64>, %t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %m0: tensor<100xf32>, %m1: tensor<50xf32>, %grad: tensor<4x40xf32>, %hyper: tensor<5xf32>) -> (tensor<4x40xf32>, tensor<100x16xf32>, tensor<50x8xf32>, tensor<100xf32>, tensor<50xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<100x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<50x8xf32>) -> !emb.table_handle
  %s0 = "emb.state"(%m0) : (tensor<100xf32>) -> !emb.state_handle
  %s1 = "emb.state"(%m1) : (tensor<50xf32>) -> !emb.state_handle
  %pooled = "emb.tbe"(%idx, %off, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1, 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 1, 0>, row_ranges = array<i64: 0, 60, 100>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x40xf32>
  %new:4 = "emb.tbe_backward"(%idx, %off, %h0, %h1, %grad, %s0, %s1, %hyper) {optimizer = "rowwise_adagrad", pooling = "sum", feature_tables = array<i64: 0, 1, 0>, world_size = 2 : i64, sharding = [{kind = "row_wise", ranks = array<i64: 1, 0>, row_ranges = array<i64: 0, 60, 100>}, {kind = "table_wise", ranks = array<i64: 1>}], operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 2, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 2, 0>} : (tensor<?xi64>, tensor<13xi64>, !emb.table_handle, !emb.table_handle, tensor<4x40xf32>, !emb.state_handle, !emb.state_handle, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle, !emb.state_handle, !emb.state_handle)
  %n0 = "emb.table_value"(%new#0) : (!emb.table_handle) -> tensor<100x16xf32>
  %n1 = "emb.table_value"(%new#1) : (!emb.table_handle) -> tensor<50x8xf32>
  %ns0 = "emb.table_value"(%new#2) : (!emb.state_handle) -> tensor<100xf32>
  %ns1 = "emb.table_value"(%new#3) : (!emb.state_handle) -> tensor<50xf32>
  return %pooled, %n0, %n1, %ns0, %ns1 : tensor<4x40xf32>, tensor<100x16xf32>, tensor<50x8xf32>, tensor<100xf32>, tensor<50xf32>
}

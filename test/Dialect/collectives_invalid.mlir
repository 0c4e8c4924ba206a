// Every verifier rule of emb.bucketize, emb.lengths_to_offsets and the
// collectives (emb.all_to_all, emb.reduce_scatter, emb.all_gather), one per
// block.
// RUN: not emb-opt --split-input-file %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// bucketize: per-sample weights come with a weights result.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %w: tensor<?xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op expects 4 results, got 3
  %a:3 = "emb.bucketize"(%i, %o, %w) {world_size = 2 : i64, slot_ranks = array<i64: 0, 1>, slot_features = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>} : (tensor<?xi64>, tensor<25xi64>, tensor<?xf32>) -> (tensor<?xi64>, tensor<16xi64>, tensor<2xi64>)
  return
}

// -----

// bucketize: the weights keep the per-sample weights' type.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %w: tensor<?xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op weights holds f16 but per_sample_weights holds f32
  %a:4 = "emb.bucketize"(%i, %o, %w) {world_size = 2 : i64, slot_ranks = array<i64: 0, 1>, slot_features = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>} : (tensor<?xi64>, tensor<25xi64>, tensor<?xf32>) -> (tensor<?xi64>, tensor<16xi64>, tensor<2xi64>, tensor<?xf16>)
  return
}

// -----

// bucketize: weighted, with rank-0 indices (found by emb-fuzz: the verifier
// compared the weights' length with dim 0 of a type that has none).
func.func @f(%i: tensor<i64>, %o: tensor<5xi64>, %w: tensor<?xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op indices must have rank 1, got rank 0
  %a:4 = "emb.bucketize"(%i, %o, %w) {world_size = 2 : i64, slot_ranks = array<i64: 0, 1>, slot_features = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>} : (tensor<i64>, tensor<5xi64>, tensor<?xf32>) -> (tensor<i64>, tensor<4xi64>, tensor<2xi64>, tensor<?xf32>)
  return
}

// -----

// bucketize: a weight an id.
func.func @f(%i: tensor<12xi64>, %o: tensor<25xi64>, %w: tensor<11xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op per_sample_weights has 11 elements but indices has 12
  %a:4 = "emb.bucketize"(%i, %o, %w) {world_size = 2 : i64, slot_ranks = array<i64: 0, 1>, slot_features = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>} : (tensor<12xi64>, tensor<25xi64>, tensor<11xf32>) -> (tensor<?xi64>, tensor<16xi64>, tensor<2xi64>, tensor<?xf32>)
  return
}

// -----

// bucketize: each rank's slots are one block.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op slot_ranks must not decrease (each rank's slots are one block), got 0 after 1
  %a:3 = "emb.bucketize"(%i, %o) {world_size = 2 : i64, slot_ranks = array<i64: 1, 0>, slot_features = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>} : (tensor<?xi64>, tensor<25xi64>) -> (tensor<?xi64>, tensor<16xi64>, tensor<2xi64>)
  return
}

// -----

// bucketize: a slot's rank is a rank of the world.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op slot_ranks[1] is 2, not a rank of world_size 2
  %a:3 = "emb.bucketize"(%i, %o) {world_size = 2 : i64, slot_ranks = array<i64: 0, 2>, slot_features = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>} : (tensor<?xi64>, tensor<25xi64>) -> (tensor<?xi64>, tensor<16xi64>, tensor<2xi64>)
  return
}

// -----

// bucketize: the slot arrays have one entry a slot.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op slot_features must be array<i64> with 2 entries, got array<i64: 0>
  %a:3 = "emb.bucketize"(%i, %o) {world_size = 2 : i64, slot_ranks = array<i64: 0, 1>, slot_features = array<i64: 0>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>} : (tensor<?xi64>, tensor<25xi64>) -> (tensor<?xi64>, tensor<16xi64>, tensor<2xi64>)
  return
}

// -----

// bucketize: slots name features of the batch (F = 3 for B = 8).
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op slot_features[1] is 3 but there are 3 features
  %a:3 = "emb.bucketize"(%i, %o) {world_size = 2 : i64, slot_ranks = array<i64: 0, 1>, slot_features = array<i64: 0, 3>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>} : (tensor<?xi64>, tensor<25xi64>) -> (tensor<?xi64>, tensor<16xi64>, tensor<2xi64>)
  return
}

// -----

// bucketize: a row range does not end before it starts.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op slot 1 has rows [20, 10): a range must start at 0 or more and not end before it starts
  %a:3 = "emb.bucketize"(%i, %o) {world_size = 2 : i64, slot_ranks = array<i64: 0, 1>, slot_features = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 20>, slot_row_end = array<i64: 10, 10>} : (tensor<?xi64>, tensor<25xi64>) -> (tensor<?xi64>, tensor<16xi64>, tensor<2xi64>)
  return
}

// -----

// bucketize: lengths has S*B entries.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.bucketize' op lengths has 15 entries, which is not S*B for S = 2 slots
  %a:3 = "emb.bucketize"(%i, %o) {world_size = 2 : i64, slot_ranks = array<i64: 0, 1>, slot_features = array<i64: 0, 1>, slot_row_begin = array<i64: 0, 0>, slot_row_end = array<i64: 10, 10>} : (tensor<?xi64>, tensor<25xi64>) -> (tensor<?xi64>, tensor<15xi64>, tensor<2xi64>)
  return
}

// -----

// lengths_to_offsets: one more offset than lengths.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.lengths_to_offsets' op offsets has 24 elements but lengths has 24 (offsets must have one more)
  %a:2 = "emb.lengths_to_offsets"(%l) {blocks = 2 : i64} : (tensor<24xi64>) -> (tensor<24xi64>, tensor<2xi64>)
  return
}

// -----

// lengths_to_offsets: the blocks divide the lengths.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.lengths_to_offsets' op lengths has 24 entries, which 5 blocks do not divide
  %a:2 = "emb.lengths_to_offsets"(%l) {blocks = 5 : i64} : (tensor<24xi64>) -> (tensor<25xi64>, tensor<5xi64>)
  return
}

// -----

// all_to_all: a world size (IRDL's check).
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_to_all' op attribute "world_size" is expected but not provided
  %a = "emb.all_to_all"(%l) {send_splits = array<i64: 12, 12>, recv_splits = array<i64: 12, 12>} : (tensor<24xi64>) -> tensor<24xi64>
  return
}

// -----

// all_to_all: splits that sum to the rows sent.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_to_all' op send has 24 rows but send_splits sum to 22
  %a = "emb.all_to_all"(%l) {world_size = 2 : i64, send_splits = array<i64: 12, 10>, recv_splits = array<i64: 12, 12>} : (tensor<24xi64>) -> tensor<24xi64>
  return
}

// -----

// all_to_all: and to the rows received.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_to_all' op the result has 24 rows but recv_splits sum to 25
  %a = "emb.all_to_all"(%l) {world_size = 2 : i64, send_splits = array<i64: 12, 12>, recv_splits = array<i64: 12, 13>} : (tensor<24xi64>) -> tensor<24xi64>
  return
}

// -----

// all_to_all: splits whose sum passes INT64_MAX (found by emb-fuzz: the
// sum overflowed, signed, under UBSan).
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_to_all' op send_splits sum past INT64_MAX (at send_splits[1] = 9223372036854775807)
  %a = "emb.all_to_all"(%l) {world_size = 2 : i64, send_splits = array<i64: 8, 9223372036854775807>, recv_splits = array<i64: 12, 12>} : (tensor<24xi64>) -> tensor<24xi64>
  return
}

// -----

// all_to_all: one split a rank.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_to_all' op send_splits must be array<i64> with 2 entries, got array<i64: 24>
  %a = "emb.all_to_all"(%l) {world_size = 2 : i64, send_splits = array<i64: 24>, recv_splits = array<i64: 12, 12>} : (tensor<24xi64>) -> tensor<24xi64>
  return
}

// -----

// all_to_all: counts as operands or splits, not both.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_to_all' op takes either the counts operands or the splits attributes, not both
  %a = "emb.all_to_all"(%l, %c, %c) {world_size = 2 : i64, send_splits = array<i64: 12, 12>, recv_splits = array<i64: 12, 12>} : (tensor<24xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?xi64>
  return
}

// -----

// all_to_all: counts hold one i64 a rank.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_to_all' op send_counts has 24 entries but world_size is 2
  %a = "emb.all_to_all"(%l, %l, %l) {world_size = 2 : i64} : (tensor<24xi64>, tensor<24xi64>, tensor<24xi64>) -> tensor<?xi64>
  return
}

// -----

// all_to_all: the trailing dims are kept.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_to_all' op the result has 4 in a trailing dim but send has 8
  %a = "emb.all_to_all"(%x, %c, %c) {world_size = 2 : i64} : (tensor<16x8xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x4xf32>
  return
}

// -----

// reduce_scatter: send has world_size times the rows.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.reduce_scatter' op send has 16 rows but the result has 4: must be world_size (2) times as many
  %a = "emb.reduce_scatter"(%x) {world_size = 2 : i64} : (tensor<16x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

// reduce_scatter: sums floats.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.reduce_scatter' op send must hold f32, f16 or bf16, got i64
  %a = "emb.reduce_scatter"(%l) {world_size = 2 : i64} : (tensor<24xi64>) -> tensor<12xi64>
  return
}

// -----

// all_gather: the result has world_size times the rows.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_gather' op the result has 16 rows but send has 16: must be world_size (2) times as many
  %a = "emb.all_gather"(%x) {world_size = 2 : i64} : (tensor<16x8xf32>) -> tensor<16x8xf32>
  return
}

// -----

// all_gather: one element type.
func.func @f(%i: tensor<?xi64>, %o: tensor<25xi64>, %l: tensor<24xi64>, %c: tensor<2xi64>, %x: tensor<16x8xf32>) {
  // CHECK: [[@LINE+1]]:{{[0-9]+}}: error: 'emb.all_gather' op the result holds f16 but send holds f32
  %a = "emb.all_gather"(%x) {world_size = 2 : i64} : (tensor<16x8xf32>) -> tensor<32x8xf16>
  return
}

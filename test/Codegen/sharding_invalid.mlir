// What emb-lower-to-runtime refuses of a sharded program's ops, each an
// error at the op.
// RUN: not emb-opt --split-input-file --emb-lower-to-runtime %s 2>&1 | FileCheck %s
// REQUIRES: emb-compiler

// How many ids each slot gets depends on the data: a static ids type cannot
// hold it.
// CHECK: error: 'emb.bucketize' op cannot be lowered to the emb runtime (target cpu): ids must have a dynamic size: how many ids each slot gets depends on the data
func.func @static_ids(%idx: tensor<6xi64>, %off: tensor<3xi64>) -> tensor<2xi64> {
  %b:3 = "emb.bucketize"(%idx, %off) {slot_features = array<i64: 0>, slot_ranks = array<i64: 0>, slot_row_begin = array<i64: 0>, slot_row_end = array<i64: 9>, world_size = 1 : i64} : (tensor<6xi64>, tensor<3xi64>) -> (tensor<6xi64>, tensor<2xi64>, tensor<1xi64>)
  return %b#1 : tensor<2xi64>
}

// -----

// The batch is compiled in.
// CHECK: error: 'emb.bucketize' op cannot be lowered to the emb runtime (target cpu): lengths must have a static size (S*B): the batch is compiled in
func.func @dynamic_lengths(%idx: tensor<?xi64>, %off: tensor<?xi64>) -> tensor<?xi64> {
  %b:3 = "emb.bucketize"(%idx, %off) {slot_features = array<i64: 0>, slot_ranks = array<i64: 0>, slot_row_begin = array<i64: 0>, slot_row_end = array<i64: 9>, world_size = 1 : i64} : (tensor<?xi64>, tensor<?xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<1xi64>)
  return %b#1 : tensor<?xi64>
}

// -----

// Counts operands are kept on the compiled code's stack on their way to
// NCCL: a bounded world.
// CHECK: error: 'emb.all_to_all' op cannot be lowered to the emb runtime (target cpu): world_size 5000: an all-to-all with counts operands keeps them on the compiled code's stack, for at most 4096 ranks
func.func @huge_world(%x: tensor<?xi64>, %c: tensor<5000xi64>) -> tensor<?xi64> {
  %0 = "emb.all_to_all"(%x, %c, %c) {world_size = 5000 : i64} : (tensor<?xi64>, tensor<5000xi64>, tensor<5000xi64>) -> tensor<?xi64>
  return %0 : tensor<?xi64>
}

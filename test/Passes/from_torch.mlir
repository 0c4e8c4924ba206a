// The emb-from-torch pipeline: torch-mlir's output raised, rewritten by
// emb-ikbo (user rows fused into the lce and read in place by the
// attention), its lookups batched by emb-batch-tables, and cleaned up: no
// broadcast, lce, attention or single embedding_bag is left, and no dead op.
// RUN: emb-opt --emb-from-torch %S/Inputs/torch_ranking_block.mlir | FileCheck %s
// Its option is emb-ikbo's align.
// RUN: emb-opt --pass-pipeline='builtin.module(emb-from-torch{align=32})' %S/Inputs/torch_ranking_block.mlir | FileCheck %s --check-prefix=ALIGN
// RUN: not emb-opt --emb-from-torch=pad=1 %S/Inputs/torch_ranking_block.mlir 2>&1 | FileCheck %s --check-prefix=BADOPT
// The same as its parts in order.
// RUN: emb-opt --emb-from-torch %S/Inputs/torch_ranking_block.mlir > %t.whole
// RUN: emb-opt --emb-raise --emb-ikbo --emb-batch-tables --emb-erase-dead --canonicalize --cse %S/Inputs/torch_ranking_block.mlir | diff %t.whole -
// REQUIRES: emb-compiler

// Per block: one emb.tbe of the three user bags, the user tanh, one emb.tbe
// of the four candidate bags, the ikbo_lce; the first block's attention.
// CHECK-LABEL: func.func @ranking_block
// CHECK: "emb.tbe"
// CHECK: math.tanh
// CHECK: "emb.tbe"
// CHECK: "emb.ikbo_lce"
// CHECK: "emb.ikbo_attention"
// CHECK: "emb.tbe"
// CHECK: math.tanh
// CHECK: "emb.tbe"
// CHECK: "emb.ikbo_lce"
// CHECK-NOT: "emb.broadcast"
// CHECK-NOT: "emb.lce"
// CHECK-NOT: "emb.attention"
// CHECK-NOT: "emb.embedding_bag"
// CHECK: return

// Ku = 3 and Kc = 5 pad to 32 each.
// ALIGN: "emb.ikbo_lce"(%{{.+}}) : (tensor<16x32xf16>, tensor<16x32xf16>, tensor<4x32x16xf16>, tensor<64x32x16xf16>, tensor<64xi64>)

// BADOPT: emb-opt: error: emb-from-torch: unknown option 'pad' (options: align)

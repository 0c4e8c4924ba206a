// The emb-raise pipeline on a module in torch-mlir's form: every form is
// raised (what stays linalg is the user-only tanh), in the pipeline's order,
// with the transposes the attention raise leaves folded by canonicalize. The
// attention scale is the product of the two f16 factors on q and k^T
// (0.3535 each, rounded to f16): 0.12497.
// Running it twice changes nothing.
// RUN: emb-opt --emb-raise %S/Inputs/torch_ranking_block.mlir 2>&1 | FileCheck %s --implicit-check-not=remark:
// RUN: emb-opt --emb-raise %S/Inputs/torch_ranking_block.mlir > %t.once
// RUN: emb-opt --emb-raise %t.once > %t.twice
// RUN: diff %t.once %t.twice
// The pipeline by name.
// RUN: emb-opt --pass-pipeline='builtin.module(emb-raise)' %S/Inputs/torch_ranking_block.mlir | diff %t.once -
// RUN: emb-opt --list-passes | FileCheck %s --check-prefix=LIST
// REQUIRES: emb-compiler

// CHECK-LABEL: func.func @ranking_block
// CHECK-SAME: (%[[UT0:[^:]+]]: tensor<100x16xf16>,
// CHECK-SAME: %[[C2U:[^:]+]]: tensor<64xi64>, %[[W:[^:]+]]: tensor<16x8xf16>, %[[UK:[^:]+]]: tensor<4x8x2x64xf16>, %[[UV:[^:]+]]: tensor<4x8x2x64xf16>
// CHECK: "emb.embedding_bag"(%[[UT0]], %{{.+}}, %{{.+}}) {masked_offsets, mode = "sum"} : (tensor<100x16xf16>, tensor<12xi64>, tensor<5xi64>) -> tensor<4x16xf16>
// CHECK-COUNT-2: "emb.embedding_bag"(%{{.+}}) {masked_offsets, mode = "sum"} : (tensor<100x16xf16>
// CHECK: %[[ACT:.+]] = linalg.generic
// CHECK: math.tanh
// CHECK: "emb.broadcast"(%[[ACT]], %[[C2U]]) : (tensor<4x3x16xf16>, tensor<64xi64>) -> tensor<64x3x16xf16>
// CHECK-COUNT-4: "emb.embedding_bag"(%{{.+}}) {masked_offsets, mode = "sum"} : (tensor<200x16xf16>
// CHECK: %[[Y:.+]] = "emb.lce"(%[[W]], %{{.+}}) : (tensor<16x8xf16>, tensor<64x8x16xf16>) -> tensor<64x16x16xf16>
// CHECK-DAG: %[[K:.+]] = "emb.broadcast"(%[[UK]], %[[C2U]]) : (tensor<4x8x2x64xf16>, tensor<64xi64>) -> tensor<64x8x2x64xf16>
// CHECK-DAG: %[[V:.+]] = "emb.broadcast"(%[[UV]], %[[C2U]]) : (tensor<4x8x2x64xf16>, tensor<64xi64>) -> tensor<64x8x2x64xf16>
// CHECK: "emb.attention"(%{{.+}}, %[[K]], %[[V]]) {scale = 0.12497{{[0-9]*}} : f32} : (tensor<64x2x2x64xf16>, tensor<64x8x2x64xf16>, tensor<64x8x2x64xf16>) -> tensor<64x2x2x64xf16>
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.batch_matmul
// CHECK: "emb.lce"
// CHECK: return

// LIST: --emb-raise-embedding-bag
// LIST: --emb-raise {{ *}}(pipeline) Raise torch-mlir's linalg-on-tensors into emb ops
// LIST: --emb-from-torch {{ *}}(pipeline)
// LIST-NEXT: align=<int>: emb-pad-k's align (default 0)

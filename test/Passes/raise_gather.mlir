// emb-raise-gather: torch-mlir's row gathers become emb ops by what they
// mean: table lookups emb.embedding_bag {mode = "none"}, the rows of a
// per-request tensor picked per candidate emb.broadcast.
// RUN: emb-opt --split-input-file --emb-raise-gather %s | FileCheck %s
// REQUIRES: emb-compiler

// aten.embedding: its two cf.asserts (id < rows, id >= 0) say the source is
// an nn.Embedding table. One bag of all 6 ids (offsets [0, 6]), and the
// asserts become bounds_check = "fatal", which fails the call on an id
// outside the table as they do.
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[TABLE:.+]]: tensor<100x16xf32>, %[[IDS:.+]]: tensor<6xi64>)
// CHECK: %[[OFFSETS:.+]] = arith.constant dense<[0, 6]> : tensor<2xi64>
// CHECK: %[[ROWS:.+]] = "emb.embedding_bag"(%[[TABLE]], %[[IDS]], %[[OFFSETS]]) {bounds_check = "fatal", mode = "none"} : (tensor<100x16xf32>, tensor<6xi64>, tensor<2xi64>) -> tensor<6x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[ROWS]]
#ids = affine_map<(d0, d1) -> (d0)>
#rows = affine_map<(d0, d1) -> (d0, d1)>
func.func @embedding(%table: tensor<100x16xf32>, %ids: tensor<6xi64>) -> tensor<6x16xf32> {
  %c100 = arith.constant 100 : index
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<6x16xf32>
  %1 = linalg.generic {indexing_maps = [#ids, #rows], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<6xi64>) outs(%0 : tensor<6x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %4 = arith.cmpi slt, %2, %c100 : index
    cf.assert %4, "index must be smaller than dim size"
    %5 = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %5, "index must be larger or equal to 0"
    %extracted = tensor.extract %table[%2, %3] : tensor<100x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<6x16xf32>
  return %1 : tensor<6x16xf32>
}

// -----

// aten.embedding of a [4, 5] id tensor (a history per user): the ids are
// flattened to 20, looked up, and the rows reshaped back to [4, 5, 8].
// CHECK-LABEL: func.func @embedding_2d
// CHECK-SAME: (%[[TABLE:.+]]: tensor<50x8xf16>, %[[IDS:.+]]: tensor<4x5xi32>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[IDS]] {{\[}}[0, 1]] : tensor<4x5xi32> into tensor<20xi32>
// CHECK: %[[OFFSETS:.+]] = arith.constant dense<[0, 20]> : tensor<2xi32>
// CHECK: %[[ROWS:.+]] = "emb.embedding_bag"(%[[TABLE]], %[[FLAT]], %[[OFFSETS]]) {bounds_check = "fatal", mode = "none"} : (tensor<50x8xf16>, tensor<20xi32>, tensor<2xi32>) -> tensor<20x8xf16>
// CHECK: %[[HIST:.+]] = tensor.expand_shape %[[ROWS]] {{\[}}[0, 1], [2]] output_shape [4, 5, 8] : tensor<20x8xf16> into tensor<4x5x8xf16>
// CHECK: return %[[HIST]]
#ids2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#rows2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @embedding_2d(%table: tensor<50x8xf16>, %ids: tensor<4x5xi32>) -> tensor<4x5x8xf16> {
  %c50 = arith.constant 50 : index
  %c0_i32 = arith.constant 0 : i32
  %0 = tensor.empty() : tensor<4x5x8xf16>
  %1 = linalg.generic {indexing_maps = [#ids2, #rows2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<4x5xi32>) outs(%0 : tensor<4x5x8xf16>) {
  ^bb0(%in: i32, %out: f16):
    %2 = arith.index_cast %in : i32 to index
    %3 = linalg.index 2 : index
    %4 = arith.cmpi slt, %2, %c50 : index
    cf.assert %4, "index must be smaller than dim size"
    %5 = arith.cmpi sge, %in, %c0_i32 : i32
    cf.assert %5, "index must be larger or equal to 0"
    %extracted = tensor.extract %table[%2, %3] : tensor<50x8xf16>
    linalg.yield %extracted : f16
  } -> tensor<4x5x8xf16>
  return %1 : tensor<4x5x8xf16>
}

// -----

// aten.index_select(user, 0, cand_to_user) of a per-request tensor: the
// rows of a user tensor picked per candidate, a broadcast.
// CHECK-LABEL: func.func @index_select
// CHECK-SAME: (%[[USER:.+]]: tensor<4x3x16xf32>, %[[C2U:.+]]: tensor<24xi64>)
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[USER]], %[[C2U]]) : (tensor<4x3x16xf32>, tensor<24xi64>) -> tensor<24x3x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[B]]
#c2u = affine_map<(d0, d1, d2) -> (d0)>
#out3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @index_select(%user: tensor<4x3x16xf32>, %cand_to_user: tensor<24xi64>) -> tensor<24x3x16xf32> {
  %0 = tensor.empty() : tensor<24x3x16xf32>
  %1 = linalg.generic {indexing_maps = [#c2u, #out3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<24xi64>) outs(%0 : tensor<24x3x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %4 = linalg.index 2 : index
    %extracted = tensor.extract %user[%2, %3, %4] : tensor<4x3x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<24x3x16xf32>
  return %1 : tensor<24x3x16xf32>
}

// -----

// x[idx] (aten.index.Tensor) wraps a negative id by the row count. The wrap
// is kept, on the index alone: select(id < 0, id + 4, id) per candidate,
// then the broadcast.
// CHECK-LABEL: func.func @index_tensor
// CHECK-SAME: (%[[USER:.+]]: tensor<4x16xbf16>, %[[C2U:.+]]: tensor<24xi64>)
// CHECK: %[[INIT:.+]] = tensor.empty() : tensor<24xi64>
// CHECK: %[[WRAPPED:.+]] = linalg.generic {{.+}} ins(%[[C2U]] : tensor<24xi64>) outs(%[[INIT]] : tensor<24xi64>)
// CHECK-NEXT: ^bb0(%[[ID:.+]]: i64, %{{.+}}: i64):
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK-DAG: %[[FOUR:.+]] = arith.constant 4 : i64
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[ID]], %[[ZERO]] : i64
// CHECK: %[[UP:.+]] = arith.addi %[[ID]], %[[FOUR]] : i64
// CHECK: %[[W:.+]] = arith.select %[[NEG]], %[[UP]], %[[ID]] : i64
// CHECK: linalg.yield %[[W]] : i64
// CHECK: %[[B:.+]] = "emb.broadcast"(%[[USER]], %[[WRAPPED]]) : (tensor<4x16xbf16>, tensor<24xi64>) -> tensor<24x16xbf16>
// CHECK: return %[[B]]
#c2u2 = affine_map<(d0, d1) -> (d0)>
#out2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @index_tensor(%user: tensor<4x16xbf16>, %cand_to_user: tensor<24xi64>) -> tensor<24x16xbf16> {
  %c0_i64 = arith.constant 0 : i64
  %c4_i64 = arith.constant 4 : i64
  %0 = tensor.empty() : tensor<24x16xbf16>
  %1 = linalg.generic {indexing_maps = [#c2u2, #out2], iterator_types = ["parallel", "parallel"]} ins(%cand_to_user : tensor<24xi64>) outs(%0 : tensor<24x16xbf16>) {
  ^bb0(%in: i64, %out: bf16):
    %2 = arith.cmpi slt, %in, %c0_i64 : i64
    %3 = arith.addi %in, %c4_i64 : i64
    %4 = arith.select %2, %3, %in : i64
    %5 = arith.index_cast %4 : i64 to index
    %6 = linalg.index 1 : index
    %extracted = tensor.extract %user[%5, %6] : tensor<4x16xbf16>
    linalg.yield %extracted : bf16
  } -> tensor<24x16xbf16>
  return %1 : tensor<24x16xbf16>
}

// -----

// index_select of a frozen weight (a 2-D float arith.constant, as torch-mlir
// imports parameters) is a table lookup, without asserts: the op's default
// bounds check.
// CHECK-LABEL: func.func @frozen_table
// CHECK: %[[TABLE:.+]] = arith.constant dense<{{.+}}> : tensor<3x2xf32>
// CHECK: "emb.embedding_bag"(%[[TABLE]], %{{.+}}, %{{.+}}) {mode = "none"} : (tensor<3x2xf32>, tensor<5xi64>, tensor<2xi64>) -> tensor<5x2xf32>
#ids3 = affine_map<(d0, d1) -> (d0)>
#rows3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @frozen_table(%ids: tensor<5xi64>) -> tensor<5x2xf32> {
  %table = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %0 = tensor.empty() : tensor<5x2xf32>
  %1 = linalg.generic {indexing_maps = [#ids3, #rows3], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<5xi64>) outs(%0 : tensor<5x2xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %extracted = tensor.extract %table[%2, %3] : tensor<3x2xf32>
    linalg.yield %extracted : f32
  } -> tensor<5x2xf32>
  return %1 : tensor<5x2xf32>
}

// -----

// A dynamic number of ids: the one bag's end is their count, read at run
// time into the offsets.
// CHECK-LABEL: func.func @embedding_dynamic
// CHECK-SAME: (%[[TABLE:.+]]: tensor<100x16xf32>, %[[IDS:.+]]: tensor<?xi64>)
// CHECK: %[[N:.+]] = tensor.dim %[[IDS]], %{{.+}} : tensor<?xi64>
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK: %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[OFFSETS:.+]] = tensor.from_elements %[[ZERO]], %[[N64]] : tensor<2xi64>
// CHECK: "emb.embedding_bag"(%[[TABLE]], %[[IDS]], %[[OFFSETS]]) {bounds_check = "fatal", mode = "none"} : (tensor<100x16xf32>, tensor<?xi64>, tensor<2xi64>) -> tensor<?x16xf32>
#ids4 = affine_map<(d0, d1) -> (d0)>
#rows4 = affine_map<(d0, d1) -> (d0, d1)>
func.func @embedding_dynamic(%table: tensor<100x16xf32>, %ids: tensor<?xi64>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %c100 = arith.constant 100 : index
  %c0_i64 = arith.constant 0 : i64
  %n = tensor.dim %ids, %c0 : tensor<?xi64>
  %0 = tensor.empty(%n) : tensor<?x16xf32>
  %1 = linalg.generic {indexing_maps = [#ids4, #rows4], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<?xi64>) outs(%0 : tensor<?x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %4 = arith.cmpi slt, %2, %c100 : index
    cf.assert %4, "index must be smaller than dim size"
    %5 = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %5, "index must be larger or equal to 0"
    %extracted = tensor.extract %table[%2, %3] : tensor<100x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<?x16xf32>
  return %1 : tensor<?x16xf32>
}

// -----

// A weight frozen as torch-mlir imports parameters, a dense_resource
// constant: a table lookup like any 2-D float constant.
// CHECK-LABEL: func.func @resource_table
// CHECK: %[[TABLE:.+]] = arith.constant dense_resource<torch_tensor_3_2_torch.float32> : tensor<3x2xf32>
// CHECK: "emb.embedding_bag"(%[[TABLE]], %{{.+}}, %{{.+}}) {mode = "none"} : (tensor<3x2xf32>, tensor<5xi64>, tensor<2xi64>) -> tensor<5x2xf32>
#ids5 = affine_map<(d0, d1) -> (d0)>
#rows5 = affine_map<(d0, d1) -> (d0, d1)>
func.func @resource_table(%ids: tensor<5xi64>) -> tensor<5x2xf32> {
  %table = arith.constant dense_resource<torch_tensor_3_2_torch.float32> : tensor<3x2xf32>
  %0 = tensor.empty() : tensor<5x2xf32>
  %1 = linalg.generic {indexing_maps = [#ids5, #rows5], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<5xi64>) outs(%0 : tensor<5x2xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %extracted = tensor.extract %table[%2, %3] : tensor<3x2xf32>
    linalg.yield %extracted : f32
  } -> tensor<5x2xf32>
  return %1 : tensor<5x2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      torch_tensor_3_2_torch.float32: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

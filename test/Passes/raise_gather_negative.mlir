// Where emb-raise-gather must leave the IR alone, and the remarks that say
// why.
// RUN: emb-opt --split-input-file --emb-raise-gather %s 2>/dev/null | FileCheck %s
// RUN: emb-opt --split-input-file --emb-raise-gather %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// REQUIRES: emb-compiler

// index_select(x, 1, idx) gathers columns: emb's ops gather rows.
// CHECK-LABEL: func.func @columns
// CHECK: linalg.generic
// CHECK-NOT: "emb.
#idx1 = affine_map<(d0, d1, d2) -> (d1)>
#out1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @columns(%x: tensor<4x5x6xf32>, %idx: tensor<2xi64>) -> tensor<4x2x6xf32> {
  %0 = tensor.empty() : tensor<4x2x6xf32>
  // REMARK: raise_gather_negative.mlir:[[@LINE+1]]:8: remark: emb-raise-gather: gathers along dim 1 of its source, not rows (dim 0)
  %1 = linalg.generic {indexing_maps = [#idx1, #out1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%idx : tensor<2xi64>) outs(%0 : tensor<4x2x6xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 0 : index
    %4 = linalg.index 2 : index
    %extracted = tensor.extract %x[%3, %2, %4] : tensor<4x5x6xf32>
    linalg.yield %extracted : f32
  } -> tensor<4x2x6xf32>
  return %1 : tensor<4x2x6xf32>
}

// -----

// An assert that is not one of aten.embedding's bounds checks (ids below 50
// of a 100-row table): no bounds_check mode says that.
// CHECK-LABEL: func.func @other_assert
// CHECK: cf.assert
// CHECK-NOT: "emb.
#ids = affine_map<(d0, d1) -> (d0)>
#rows = affine_map<(d0, d1) -> (d0, d1)>
func.func @other_assert(%table: tensor<100x16xf32>, %ids: tensor<6xi64>) -> tensor<6x16xf32> {
  %c50 = arith.constant 50 : index
  %0 = tensor.empty() : tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-gather: it asserts something other than the id's bounds
  %1 = linalg.generic {indexing_maps = [#ids, #rows], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<6xi64>) outs(%0 : tensor<6x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %4 = arith.cmpi slt, %2, %c50 : index
    cf.assert %4, "index must be below 50"
    %extracted = tensor.extract %table[%2, %3] : tensor<100x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<6x16xf32>
  return %1 : tensor<6x16xf32>
}

// -----

// x[idx] with a [4, 6] index of a per-request tensor: not a table lookup,
// and a broadcast maps each candidate to one user.
// CHECK-LABEL: func.func @broadcast_2d_index
// CHECK: linalg.generic
// CHECK-NOT: "emb.
#idx2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#out2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @broadcast_2d_index(%user: tensor<4x16xf32>, %idx: tensor<4x6xi64>) -> tensor<4x6x16xf32> {
  %0 = tensor.empty() : tensor<4x6x16xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-gather: a broadcast takes a 1-D cand_to_user, the ids have rank 2
  %1 = linalg.generic {indexing_maps = [#idx2, #out2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%idx : tensor<4x6xi64>) outs(%0 : tensor<4x6x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 2 : index
    %extracted = tensor.extract %user[%2, %3] : tensor<4x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<4x6x16xf32>
  return %1 : tensor<4x6x16xf32>
}

// -----

// A body with an effect besides the read (here a print): raising would drop
// it.
// CHECK-LABEL: func.func @side_effect
// CHECK: vector.print
// CHECK-NOT: "emb.
#c2u = affine_map<(d0, d1) -> (d0)>
#out3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @side_effect(%user: tensor<4x16xf32>, %c2u: tensor<24xi64>) -> tensor<24x16xf32> {
  %0 = tensor.empty() : tensor<24x16xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-gather: its body does more than read a row ('vector.print')
  %1 = linalg.generic {indexing_maps = [#c2u, #out3], iterator_types = ["parallel", "parallel"]} ins(%c2u : tensor<24xi64>) outs(%0 : tensor<24x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    vector.print %in : i64
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %extracted = tensor.extract %user[%2, %3] : tensor<4x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<24x16xf32>
  return %1 : tensor<24x16xf32>
}

// -----

// x[idx] of a tensor with a dynamic row count: the wrap of negative ids
// would need that count at run time, which the raised index cannot take.
// CHECK-LABEL: func.func @dynamic_wrap
// CHECK: linalg.generic
// CHECK-NOT: "emb.
#c2u4 = affine_map<(d0, d1) -> (d0)>
#out4 = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_wrap(%user: tensor<?x16xf32>, %c2u: tensor<24xi64>) -> tensor<24x16xf32> {
  %c0 = arith.constant 0 : index
  %c0_i64 = arith.constant 0 : i64
  %dim = tensor.dim %user, %c0 : tensor<?x16xf32>
  %rows = arith.index_cast %dim : index to i64
  %0 = tensor.empty() : tensor<24x16xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-gather: negative ids wrap by a dynamic row count, which the raised form cannot keep
  %1 = linalg.generic {indexing_maps = [#c2u4, #out4], iterator_types = ["parallel", "parallel"]} ins(%c2u : tensor<24xi64>) outs(%0 : tensor<24x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.cmpi slt, %in, %c0_i64 : i64
    %3 = arith.addi %in, %rows : i64
    %4 = arith.select %2, %3, %in : i64
    %5 = arith.index_cast %4 : i64 to index
    %6 = linalg.index 1 : index
    %extracted = tensor.extract %user[%5, %6] : tensor<?x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<24x16xf32>
  return %1 : tensor<24x16xf32>
}

// -----

// The source's dims 1 and 2 read at swapped loops: a gather and a transpose
// at once, which no emb op is.
// CHECK-LABEL: func.func @transposed
// CHECK: linalg.generic
// CHECK-NOT: "emb.
#c2u5 = affine_map<(d0, d1, d2) -> (d0)>
#out5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @transposed(%user: tensor<4x3x5xf32>, %c2u: tensor<24xi64>) -> tensor<24x5x3xf32> {
  %0 = tensor.empty() : tensor<24x5x3xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-gather: dim 1 of the source is not read at its own loop (a transposed or strided gather)
  %1 = linalg.generic {indexing_maps = [#c2u5, #out5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c2u : tensor<24xi64>) outs(%0 : tensor<24x5x3xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %4 = linalg.index 2 : index
    %extracted = tensor.extract %user[%2, %4, %3] : tensor<4x3x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<24x5x3xf32>
  return %1 : tensor<24x5x3xf32>
}

// -----

// A wrap by 5 of a 4-row tensor is not x[idx]'s wrap: the row read is not
// the id.
// CHECK-LABEL: func.func @wrong_wrap
// CHECK: linalg.generic
// CHECK-NOT: "emb.
#c2u6 = affine_map<(d0, d1) -> (d0)>
#out6 = affine_map<(d0, d1) -> (d0, d1)>
func.func @wrong_wrap(%user: tensor<4x16xf32>, %c2u: tensor<24xi64>) -> tensor<24x16xf32> {
  %c0_i64 = arith.constant 0 : i64
  %c5_i64 = arith.constant 5 : i64
  %0 = tensor.empty() : tensor<24x16xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-gather: the row index is neither the id nor its wrap by the row count
  %1 = linalg.generic {indexing_maps = [#c2u6, #out6], iterator_types = ["parallel", "parallel"]} ins(%c2u : tensor<24xi64>) outs(%0 : tensor<24x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.cmpi slt, %in, %c0_i64 : i64
    %3 = arith.addi %in, %c5_i64 : i64
    %4 = arith.select %2, %3, %in : i64
    %5 = arith.index_cast %4 : i64 to index
    %6 = linalg.index 1 : index
    %extracted = tensor.extract %user[%5, %6] : tensor<4x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<24x16xf32>
  return %1 : tensor<24x16xf32>
}

// -----

// Z[:, li, lj]: two index tensors pick dims 1 and 2 of Z together, an
// element gather (torch-mlir's aten.index.Tensor with several indices), not
// rows of a table or of a per-request tensor.
// CHECK-LABEL: func.func @two_index_tensors
// CHECK: linalg.generic
// CHECK-NOT: "emb.
#li7 = affine_map<(d0, d1) -> (d1)>
#out7 = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_index_tensors(%z: tensor<4x5x6xf32>, %li: tensor<3xi64>, %lj: tensor<3xi64>) -> tensor<4x3xf32> {
  %0 = tensor.empty() : tensor<4x3xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-gather: 2 index tensors pick the element together (x[i, j]): not a row gather
  %1 = linalg.generic {indexing_maps = [#li7, #li7, #out7], iterator_types = ["parallel", "parallel"]} ins(%li, %lj : tensor<3xi64>, tensor<3xi64>) outs(%0 : tensor<4x3xf32>) {
  ^bb0(%i: i64, %j: i64, %out: f32):
    %2 = linalg.index 0 : index
    %3 = arith.index_cast %i : i64 to index
    %4 = arith.index_cast %j : i64 to index
    %extracted = tensor.extract %z[%2, %3, %4] : tensor<4x5x6xf32>
    linalg.yield %extracted : f32
  } -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}

// -----

// x[i, j] of a 2-D tensor with negative ids wrapped, as torch-mlir writes
// x[i, j] for two 1-D index tensors.
// CHECK-LABEL: func.func @two_index_tensors_wrapped
// CHECK: linalg.generic
// CHECK-NOT: "emb.
#ij8 = affine_map<(d0) -> (d0)>
func.func @two_index_tensors_wrapped(%x: tensor<4x5xf32>, %i: tensor<3xi64>, %j: tensor<3xi64>) -> tensor<3xf32> {
  %c0_i64 = arith.constant 0 : i64
  %c4_i64 = arith.constant 4 : i64
  %c5_i64 = arith.constant 5 : i64
  %0 = tensor.empty() : tensor<3xf32>
  // REMARK: [[@LINE+1]]:8: remark: emb-raise-gather: 2 index tensors pick the element together (x[i, j]): not a row gather
  %1 = linalg.generic {indexing_maps = [#ij8, #ij8, #ij8], iterator_types = ["parallel"]} ins(%i, %j : tensor<3xi64>, tensor<3xi64>) outs(%0 : tensor<3xf32>) {
  ^bb0(%a: i64, %b: i64, %out: f32):
    %2 = arith.cmpi slt, %a, %c0_i64 : i64
    %3 = arith.addi %a, %c4_i64 : i64
    %4 = arith.select %2, %3, %a : i64
    %5 = arith.index_cast %4 : i64 to index
    %6 = arith.cmpi slt, %b, %c0_i64 : i64
    %7 = arith.addi %b, %c5_i64 : i64
    %8 = arith.select %6, %7, %b : i64
    %9 = arith.index_cast %8 : i64 to index
    %extracted = tensor.extract %x[%5, %9] : tensor<4x5xf32>
    linalg.yield %extracted : f32
  } -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

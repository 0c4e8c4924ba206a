// emb-batch-tables keeps the numbers: emb-run runs each function as written
// (one lookup per bag) and after the pass (one emb.tbe) on the same random
// inputs (valid ids and offsets) and compares every element.
// RUN: emb-run %s --entry shared_table_concat --random-inputs --pipeline emb-batch-tables --compare-unoptimized | FileCheck %s --check-prefix=CHECK
// RUN: emb-run %s --entry weighted --random-inputs --pipeline emb-batch-tables --compare-unoptimized | FileCheck %s --check-prefix=CHECK
// RUN: emb-run %s --entry group_by_mode --random-inputs --pipeline emb-batch-tables --compare-unoptimized | FileCheck %s --check-prefix=CHECK
// RUN: emb-run %s --entry partial_concat --random-inputs --pipeline emb-batch-tables --compare-unoptimized | FileCheck %s --check-prefix=CHECK
// RUN: emb-run %s --entry sequence --random-inputs --pipeline emb-batch-tables --compare-unoptimized | FileCheck %s --check-prefix=CHECK
// RUN: emb-run %s --entry use_between --random-inputs --pipeline emb-batch-tables --compare-unoptimized | FileCheck %s --check-prefix=CHECK
// RUN: emb-run %s --entry stacked --random-inputs --pipeline emb-batch-tables --compare-unoptimized | FileCheck %s --check-prefix=CHECK
// REQUIRES: emb-compiler

// Every result of every function matches (the lookups are the same sums in
// the same order).
// CHECK-NOT: MISMATCH
// CHECK: max abs diff 0, max rel diff 0 against {{.*}}: ok
// CHECK-NOT: MISMATCH

func.func @shared_table_concat(%t0: tensor<100x16xf32>, %t1: tensor<50x8xf32>, %i0: tensor<40xi64>, %o0: tensor<9xi64>, %i1: tensor<24xi64>, %o1: tensor<9xi64>, %i2: tensor<30xi64>, %o2: tensor<9xi64>) -> tensor<8x40xf32> {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "sum"} : (tensor<100x16xf32>, tensor<40xi64>, tensor<9xi64>) -> tensor<8x16xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "sum"} : (tensor<50x8xf32>, tensor<24xi64>, tensor<9xi64>) -> tensor<8x8xf32>
  %c = "emb.embedding_bag"(%t0, %i2, %o2) {mode = "sum"} : (tensor<100x16xf32>, tensor<30xi64>, tensor<9xi64>) -> tensor<8x16xf32>
  %x = tensor.concat dim(1) %a, %b, %c : (tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x40xf32>
  return %x : tensor<8x40xf32>
}

func.func @weighted(%t0: tensor<100x8xbf16>, %t1: tensor<60x8xbf16>, %i0: tensor<12xi64>, %o0: tensor<4xi64>, %w0: tensor<12xf32>, %i1: tensor<6xi64>, %o1: tensor<4xi64>, %w1: tensor<6xf32>) -> tensor<3x16xbf16> {
  %a = "emb.embedding_bag"(%t0, %i0, %o0, %w0) {mode = "sum", padding_idx = 0 : i64, bounds_check = "warning"} : (tensor<100x8xbf16>, tensor<12xi64>, tensor<4xi64>, tensor<12xf32>) -> tensor<3x8xbf16>
  %b = "emb.embedding_bag"(%t1, %i1, %o1, %w1) {mode = "sum", padding_idx = 0 : i64, bounds_check = "warning"} : (tensor<60x8xbf16>, tensor<6xi64>, tensor<4xi64>, tensor<6xf32>) -> tensor<3x8xbf16>
  %x = tensor.concat dim(1) %a, %b : (tensor<3x8xbf16>, tensor<3x8xbf16>) -> tensor<3x16xbf16>
  return %x : tensor<3x16xbf16>
}

func.func @group_by_mode(%t: tensor<100x8xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<5xi64>, %i2: tensor<10xi64>, %o2: tensor<5xi64>, %i3: tensor<10xi64>, %o3: tensor<5xi64>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "mean"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %c = "emb.embedding_bag"(%t, %i2, %o2) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %d = "emb.embedding_bag"(%t, %i3, %o3) {mode = "mean"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  return %a, %b, %c, %d : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @partial_concat(%t0: tensor<100x4xf32>, %t1: tensor<100x8xf32>, %t2: tensor<100x16xf32>, %i0: tensor<6xi64>, %o0: tensor<3xi64>, %i1: tensor<6xi64>, %o1: tensor<3xi64>, %i2: tensor<6xi64>, %o2: tensor<3xi64>) -> (tensor<2x24xf32>, tensor<2x4xf32>) {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "sum"} : (tensor<100x4xf32>, tensor<6xi64>, tensor<3xi64>) -> tensor<2x4xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<6xi64>, tensor<3xi64>) -> tensor<2x8xf32>
  %c = "emb.embedding_bag"(%t2, %i2, %o2) {mode = "sum"} : (tensor<100x16xf32>, tensor<6xi64>, tensor<3xi64>) -> tensor<2x16xf32>
  %x = tensor.concat dim(1) %b, %c : (tensor<2x8xf32>, tensor<2x16xf32>) -> tensor<2x24xf32>
  return %x, %a : tensor<2x24xf32>, tensor<2x4xf32>
}

func.func @sequence(%t0: tensor<100x8xf32>, %t1: tensor<50x8xf32>, %i0: tensor<7xi64>, %o0: tensor<4xi64>, %i1: tensor<5xi64>, %o1: tensor<4xi64>) -> tensor<12x8xf32> {
  %a = "emb.embedding_bag"(%t0, %i0, %o0) {mode = "none"} : (tensor<100x8xf32>, tensor<7xi64>, tensor<4xi64>) -> tensor<7x8xf32>
  %b = "emb.embedding_bag"(%t1, %i1, %o1) {mode = "none"} : (tensor<50x8xf32>, tensor<5xi64>, tensor<4xi64>) -> tensor<5x8xf32>
  %x = tensor.concat dim(0) %a, %b : (tensor<7x8xf32>, tensor<5x8xf32>) -> tensor<12x8xf32>
  return %x : tensor<12x8xf32>
}

func.func @use_between(%t: tensor<100x8xf32>, %i0: tensor<10xi64>, %o0: tensor<5xi64>, %i1: tensor<10xi64>, %o1: tensor<5xi64>, %i2: tensor<10xi64>, %o2: tensor<5xi64>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %e = math.exp %a : tensor<4x8xf32>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %c = "emb.embedding_bag"(%t, %i2, %o2) {mode = "sum"} : (tensor<100x8xf32>, tensor<10xi64>, tensor<5xi64>) -> tensor<4x8xf32>
  %s = arith.addf %b, %c : tensor<4x8xf32>
  return %e, %s : tensor<4x8xf32>, tensor<4x8xf32>
}

// torch.stack of the bags, whole and as a run among other pieces: the TBE
// output reshaped, and a slice of it.
func.func @stacked(%t: tensor<100x8xf16>, %i0: tensor<6xi64>, %o0: tensor<4xi64>, %i1: tensor<6xi64>, %o1: tensor<4xi64>, %i2: tensor<6xi64>, %o2: tensor<4xi64>, %x: tensor<3x2x8xf16>) -> (tensor<3x3x8xf16>, tensor<3x5x8xf16>) {
  %z = arith.constant dense<0.0> : tensor<3x1x8xf16>
  %a = "emb.embedding_bag"(%t, %i0, %o0) {mode = "sum"} : (tensor<100x8xf16>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %b = "emb.embedding_bag"(%t, %i1, %o1) {mode = "sum"} : (tensor<100x8xf16>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %c = "emb.embedding_bag"(%t, %i2, %o2) {mode = "sum"} : (tensor<100x8xf16>, tensor<6xi64>, tensor<4xi64>) -> tensor<3x8xf16>
  %a3 = tensor.expand_shape %a [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %b3 = tensor.expand_shape %b [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %c3 = tensor.expand_shape %c [[0], [1, 2]] output_shape [3, 1, 8] : tensor<3x8xf16> into tensor<3x1x8xf16>
  %all = tensor.concat dim(1) %a3, %b3, %c3 : (tensor<3x1x8xf16>, tensor<3x1x8xf16>, tensor<3x1x8xf16>) -> tensor<3x3x8xf16>
  %mixed = tensor.concat dim(1) %x, %b3, %c3, %z : (tensor<3x2x8xf16>, tensor<3x1x8xf16>, tensor<3x1x8xf16>, tensor<3x1x8xf16>) -> tensor<3x5x8xf16>
  return %all, %mixed : tensor<3x3x8xf16>, tensor<3x5x8xf16>
}

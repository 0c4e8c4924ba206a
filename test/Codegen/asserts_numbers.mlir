// torch-mlir's checks at run time: ids in range give the table's rows; an id
// out of range, or inputs whose sizes disagree, make emb-run fail with the
// assertion's message and location (the runtime's EMBRT_OUT_OF_RANGE) and
// print no result. Nothing aborts and nothing reads out of bounds: the read
// a failed assertion guards does not run (asserts.mlir).
// REQUIRES: emb-compiler
// RUN: rm -rf %t && mkdir -p %t
// RUN: emb-run %s --entry ids_in_range --random-inputs --output-dir %t
// RUN: emb-run %s --entry ids_too_large --random-inputs --output-dir %t
// RUN: emb-run %s --entry ids_negative --random-inputs --output-dir %t

// nn.Embedding(5, 4) with frozen weights (row r holds 4r .. 4r+3), ids
// [4, 0, 2]: rows [16 .. 19], [0 .. 3], [8 .. 11].
// RUN: emb-run %s --entry embedding --inputs %t/ids_in_range.result0.npy --print | FileCheck %s --check-prefix=ROWS
// ROWS: result #0 tensor<3x4xf32>: sum 114, min 0, max 19, first [16, 17, 18, 19, ...]

// Random ids are drawn below the rows of the table the gather reads
// (embDescribeEntry reads torch-mlir's gathers too), so no check fails: here
// rows 1, 3 and 4.
// RUN: emb-run %s --entry embedding --random-inputs --seed 1 --print | FileCheck %s --check-prefix=RANDOM
// RANDOM: result #0 tensor<3x4xf32>: sum 146, min 4, max 19

// RUN: not emb-run %s --entry embedding --inputs %t/ids_too_large.result0.npy --print > %t/large.out 2> %t/large.err
// RUN: FileCheck %s --check-prefix=LARGE < %t/large.err
// RUN: FileCheck %s --check-prefix=NORESULT --allow-empty < %t/large.out
// LARGE: emb-run: error: embedding: EMBRT_OUT_OF_RANGE: assertion failed in @embedding ({{.*}}asserts_numbers.mlir:[[#@LINE+29]]:5): index must be smaller than dim size
// NORESULT-NOT: result #0

// RUN: not emb-run %s --entry embedding --inputs %t/ids_negative.result0.npy 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: emb-run: error: embedding: EMBRT_OUT_OF_RANGE: assertion failed in @embedding ({{.*}}asserts_numbers.mlir:[[#@LINE+27]]:5): index must be larger or equal to 0

// Sizes that agree: (1 + 2) summed over 2 rows, plus the bag of rows 1 and 2
// of a table whose row r holds r; sizes that do not (2 and 3 rows): the
// shape check fails before anything reads the shorter input.
// RUN: emb-run %s --entry sizes_agree --random-inputs --output-dir %t
// RUN: emb-run %s --entry sizes_differ --random-inputs --output-dir %t
// RUN: emb-run %s --entry add_rows --inputs %t/sizes_agree.result0.npy,%t/sizes_agree.result1.npy,%t/sizes_agree.result2.npy,%t/sizes_agree.result3.npy,%t/sizes_agree.result4.npy --print | FileCheck %s --check-prefix=AGREE
// AGREE: result #0 tensor<4xf32>: sum 36, min 9, max 9
// RUN: not emb-run %s --entry add_rows --inputs %t/sizes_differ.result0.npy,%t/sizes_differ.result1.npy,%t/sizes_agree.result2.npy,%t/sizes_agree.result3.npy,%t/sizes_agree.result4.npy 2>&1 | FileCheck %s --check-prefix=DIFFER
// DIFFER: emb-run: error: add_rows: EMBRT_OUT_OF_RANGE: assertion failed in @add_rows ({{.*}}): mismatched size for broadcast
// DIFFER-NOT: result #0

#ids = affine_map<(d0, d1) -> (d0)>
#rows = affine_map<(d0, d1) -> (d0, d1)>
func.func @embedding(%ids: tensor<3xi64>) -> tensor<3x4xf32> {
  %table = arith.constant dense_resource<torch_tensor_5_4_torch.float32> : tensor<5x4xf32>
  %c5 = arith.constant 5 : index
  %c0_i64 = arith.constant 0 : i64
  %0 = tensor.empty() : tensor<3x4xf32>
  %1 = linalg.generic {indexing_maps = [#ids, #rows], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<3xi64>) outs(%0 : tensor<3x4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %2 = arith.index_cast %in : i64 to index
    %3 = linalg.index 1 : index
    %4 = arith.cmpi slt, %2, %c5 : index
    cf.assert %4, "index must be smaller than dim size"
    %5 = arith.cmpi sge, %in, %c0_i64 : i64
    cf.assert %5, "index must be larger or equal to 0"
    %extracted = tensor.extract %table[%2, %3] : tensor<5x4xf32>
    linalg.yield %extracted : f32
  } -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}

func.func @ids_in_range() -> tensor<3xi64> {
  %0 = arith.constant dense<[4, 0, 2]> : tensor<3xi64>
  return %0 : tensor<3xi64>
}

func.func @ids_too_large() -> tensor<3xi64> {
  %0 = arith.constant dense<[1, 7, 2]> : tensor<3xi64>
  return %0 : tensor<3xi64>
}

func.func @ids_negative() -> tensor<3xi64> {
  %0 = arith.constant dense<[1, -2, 3]> : tensor<3xi64>
  return %0 : tensor<3xi64>
}

#col = affine_map<(d0, d1) -> (d1)>
func.func @add_rows(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>, %table: tensor<5x4xf32>, %ids: tensor<2xi64>, %offsets: tensor<2xi64>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %d0 = tensor.dim %a, %c0 : tensor<?x4xf32>
  %d1 = tensor.dim %b, %c0 : tensor<?x4xf32>
  %same = arith.cmpi eq, %d0, %d1 : index
  cf.assert %same, "mismatched size for broadcast"
  %bag = "emb.embedding_bag"(%table, %ids, %offsets) {mode = "sum"} : (tensor<5x4xf32>, tensor<2xi64>, tensor<2xi64>) -> tensor<1x4xf32>
  %bag1 = tensor.collapse_shape %bag [[0, 1]] : tensor<1x4xf32> into tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#rows, #rows, #col], iterator_types = ["reduction", "parallel"]} ins(%a, %b : tensor<?x4xf32>, tensor<?x4xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %acc : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %r = arith.addf %sum, %bag1 : tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @sizes_agree() -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<5x4xf32>, tensor<2xi64>, tensor<2xi64>) {
  %a = arith.constant dense<1.0> : tensor<2x4xf32>
  %b = arith.constant dense<2.0> : tensor<2x4xf32>
  %t = arith.constant dense<[[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], [4.0, 4.0, 4.0, 4.0]]> : tensor<5x4xf32>
  %i = arith.constant dense<[1, 2]> : tensor<2xi64>
  %o = arith.constant dense<[0, 2]> : tensor<2xi64>
  return %a, %b, %t, %i, %o : tensor<2x4xf32>, tensor<2x4xf32>, tensor<5x4xf32>, tensor<2xi64>, tensor<2xi64>
}

func.func @sizes_differ() -> (tensor<3x4xf32>, tensor<2x4xf32>) {
  %a = arith.constant dense<1.0> : tensor<3x4xf32>
  %b = arith.constant dense<2.0> : tensor<2x4xf32>
  return %a, %b : tensor<3x4xf32>, tensor<2x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_5_4_torch.float32: "0x04000000000000000000803F0000004000004040000080400000A0400000C0400000E040000000410000104100002041000030410000404100005041000060410000704100008041000088410000904100009841"
    }
  }
#-}

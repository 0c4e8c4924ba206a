// Where emb-raise-embedding-bag must leave the IR alone, and the remarks
// that say why.
// RUN: emb-opt --split-input-file --emb-raise-embedding-bag %s 2>/dev/null | FileCheck %s
// RUN: emb-opt --split-input-file --emb-raise-embedding-bag %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// REQUIRES: emb-compiler

// A bag that ends one id late (j <= next): not offsets[b] <= j < next.
// CHECK-LABEL: func.func @inclusive_end
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @inclusive_end(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: the mask is not offsets[b] <= j < offsets[b+1] (N for the last bag)
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi sle, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// The last bag's end read at offsets[b + 1] unclamped: out of bounds as
// written (an error on every input), which the lookup would not report.
// CHECK-LABEL: func.func @unclamped_end
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @unclamped_end(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: the mask is not offsets[b] <= j < offsets[b+1] (N for the last bag)
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%6] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %12, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}
// -----

// The last bag's end read at a clamp other than 0 (emb-fuzz seed 1223,
// execution 701: INT64_MIN): out of bounds as written.
// CHECK-LABEL: func.func @clamped_out_of_bounds
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @clamped_out_of_bounds(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant -9223372036854775808 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: the mask is not offsets[b] <= j < offsets[b+1] (N for the last bag)
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %12, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}
// -----

// A clamp to 1, in bounds for these offsets but not for every offsets
// tensor of a bag: not raised either.
// CHECK-LABEL: func.func @clamped_to_one
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @clamped_to_one(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 1 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: the mask is not offsets[b] <= j < offsets[b+1] (N for the last bag)
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %12, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// Rows multiplied into the accumulator instead of added: not a sum.
// CHECK-LABEL: func.func @product
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @product(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: the body does not add a row to the bag's sum where its mask holds
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.mulf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// Sums that start from 1, not from zero.
// CHECK-LABEL: func.func @nonzero_start
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @nonzero_start(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: the sums do not start from zero
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// The row after each id (ids[j] + 1): not weight[indices[j], d].
// CHECK-LABEL: func.func @shifted_row
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @shifted_row(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: what it adds is not weight[indices[j], d] of a weight captured from above
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %shifted = arith.addi %in, %c1_i64 : i64
    %17 = arith.index_cast %shifted : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// The sum divided by the bag lengths without the clamp: an empty bag gives
// 0 / 0, not emb's zeros. The sum is raised; the division stays.
// CHECK-LABEL: func.func @unclamped_mean
// CHECK: "emb.embedding_bag"(%{{.+}}) {masked_offsets, mode = "sum"}
// CHECK: arith.divf
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
func.func @unclamped_mean(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  %n = arith.constant dense<20> : tensor<1xi64>
  %ext = tensor.concat dim(0) %offsets, %n : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
  %hi = tensor.extract_slice %ext[1] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %lo = tensor.extract_slice %ext[0] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e1 = tensor.empty() : tensor<6xi64>
  %len = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%hi, %lo : tensor<6xi64>, tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %s = arith.subi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %e2 = tensor.empty() : tensor<6xf32>
  %count = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%len : tensor<6xi64>) outs(%e2 : tensor<6xf32>) {
  ^bb0(%a: i64, %o: f32):
    %s = arith.sitofp %a : i64 to f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %unsq = tensor.expand_shape %count [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  // REMARK: [[@LINE+1]]:11: remark: emb-raise-embedding-bag: the divisor is not the bag lengths clamped to at least 1 (offsets ++ [N], diff, clamp, to float)
  %mean = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %unsq : tensor<6x16xf32>, tensor<6x1xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.divf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<6x16xf32>
  return %mean : tensor<6x16xf32>
}

// -----

// A mean of a sum that skips padding ids would have to count only the
// other ids; the clamped lengths count them all.
// CHECK-LABEL: func.func @padded_mean
// CHECK: "emb.embedding_bag"(%{{.+}}) {masked_offsets, mode = "sum", padding_idx = 0 : i64}
// CHECK: arith.divf
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
func.func @padded_mean(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %pad = arith.cmpi ne, %in, %c0_i64 : i64
    %mask = arith.andi %16, %pad : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %mask, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  %n = arith.constant dense<20> : tensor<1xi64>
  %ext = tensor.concat dim(0) %offsets, %n : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
  %hi = tensor.extract_slice %ext[1] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %lo = tensor.extract_slice %ext[0] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e1 = tensor.empty() : tensor<6xi64>
  %len = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%hi, %lo : tensor<6xi64>, tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %s = arith.subi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %clamped = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%len : tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %o: i64):
    %p = arith.cmpi slt, %a, %c1_i64 : i64
    %s = arith.select %p, %c1_i64, %a : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %e2 = tensor.empty() : tensor<6xf32>
  %count = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%clamped : tensor<6xi64>) outs(%e2 : tensor<6xf32>) {
  ^bb0(%a: i64, %o: f32):
    %s = arith.sitofp %a : i64 to f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %unsq = tensor.expand_shape %count [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  // REMARK: [[@LINE+1]]:11: remark: emb-raise-embedding-bag: a mean of a sum with padding_idx or per-sample weights would need its own counts
  %mean = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %unsq : tensor<6x16xf32>, tensor<6x1xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.divf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<6x16xf32>
  return %mean : tensor<6x16xf32>
}

// -----

// A third input read per id that is added to the row, not multiplied
// with it: not a weighted bag.
// CHECK-LABEL: func.func @weighted_unscaled
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @weighted_unscaled(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>, %psw: tensor<20xf32>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: the row it adds is not multiplied by its per-sample weight (the third input, at j)
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #ids, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets, %psw : tensor<20xi64>, tensor<6xi64>, tensor<20xf32>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %w: f32, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %12, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %scaled = arith.addf %extracted_1, %w : f32
    %19 = arith.addf %scaled, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// Max mode (nn.EmbeddingBag(mode="max"); torch-mlir lowers sum mode only):
// a masked max, which emb.embedding_bag does not compute.
// CHECK-LABEL: func.func @max
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @max(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: the body does not add a row to the bag's sum where its mask holds
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %12, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.maximumf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// padding_idx from an argument (a padding id the model computes): the
// raised bag's padding_idx is an attribute, a constant.
// CHECK-LABEL: func.func @dynamic_padding
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @dynamic_padding(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>, %psw: tensor<20xf32>, %p: i64) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: the mask skips ids equal to a value that is not a constant: padding_idx must be a constant
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #ids, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets, %psw : tensor<20xi64>, tensor<6xi64>, tensor<20xf32>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %w: f32, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %pad = arith.cmpi ne, %in, %p : i64
    %m = arith.andi %12, %15 : i1
    %16 = arith.andi %m, %pad : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %scaled = arith.mulf %extracted_1, %w : f32
    %19 = arith.addf %scaled, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// padding_idx = 100 on a table of 100 rows: the body reads weight[id] for
// every id before the mask drops a padding id, so an id of 100 is an error
// as written, where emb.embedding_bag would skip it
// (raise_embedding_bag_run.test runs such a bag).
// CHECK-LABEL: func.func @padding_outside
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @padding_outside(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>, %psw: tensor<20xf32>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %c100_i64 = arith.constant 100 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: padding_idx 100 is not a row of the table (100 rows): the body reads its row, emb.embedding_bag would skip it
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #ids, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets, %psw : tensor<20xi64>, tensor<6xi64>, tensor<20xf32>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %w: f32, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %pad = arith.cmpi ne, %in, %c100_i64 : i64
    %m = arith.andi %12, %15 : i1
    %16 = arith.andi %m, %pad : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %scaled = arith.mulf %extracted_1, %w : f32
    %19 = arith.addf %scaled, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// A mean of a weighted sum (PyTorch itself refuses per_sample_weights in
// mean mode): the clamped lengths are not what it divides by.
// CHECK-LABEL: func.func @weighted_mean
// CHECK: "emb.embedding_bag"(%{{.+}}) {masked_offsets, mode = "sum"} : (tensor<100x16xf32>, tensor<20xi64>, tensor<7xi64>, tensor<20xf32>)
// CHECK: arith.divf
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
func.func @weighted_mean(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>, %psw: tensor<20xf32>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #ids, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets, %psw : tensor<20xi64>, tensor<6xi64>, tensor<20xf32>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %w: f32, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %scaled = arith.mulf %extracted_1, %w : f32
    %19 = arith.addf %scaled, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  %n = arith.constant dense<20> : tensor<1xi64>
  %ext = tensor.concat dim(0) %offsets, %n : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
  %hi = tensor.extract_slice %ext[1] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %lo = tensor.extract_slice %ext[0] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e1 = tensor.empty() : tensor<6xi64>
  %len = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%hi, %lo : tensor<6xi64>, tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %s = arith.subi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %clamped = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%len : tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %o: i64):
    %p = arith.cmpi slt, %a, %c1_i64 : i64
    %s = arith.select %p, %c1_i64, %a : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %e2 = tensor.empty() : tensor<6xf32>
  %count = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%clamped : tensor<6xi64>) outs(%e2 : tensor<6xf32>) {
  ^bb0(%a: i64, %o: f32):
    %s = arith.sitofp %a : i64 to f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %unsq = tensor.expand_shape %count [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  // REMARK: [[@LINE+1]]:11: remark: emb-raise-embedding-bag: a mean of a sum with padding_idx or per-sample weights would need its own counts
  %mean = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %unsq : tensor<6x16xf32>, tensor<6x1xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.divf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<6x16xf32>
  return %mean : tensor<6x16xf32>
}

// -----

// Two per-id inputs (weights of weights): emb.embedding_bag takes one.
// CHECK-LABEL: func.func @two_weights
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @two_weights(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>, %psw: tensor<20xf32>, %psw2: tensor<20xf32>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: it has 4 inputs where a bag has ids and offsets, and per-sample weights read per id
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #ids, #ids, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets, %psw, %psw2 : tensor<20xi64>, tensor<6xi64>, tensor<20xf32>, tensor<20xf32>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %w: f32, %w2: f32, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %12, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %w12 = arith.mulf %w, %w2 : f32
    %scaled = arith.mulf %extracted_1, %w12 : f32
    %19 = arith.addf %scaled, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// TorchRec's mean pooling through torch-mlir, written over CSR offsets:
// sum(offsets[:-1]) / offsets.diff().clamp(min=1). The sum's last bag ends at
// the ids' count, its divisor at offsets[6]: a mean only when the two agree,
// which emb.embedding_bag would require and the model does not check. The
// sum is raised, the division stays (write the lengths over
// cat([offsets[:-1], [N]]), as @mean does, to get a mean bag).
// CHECK-LABEL: func.func @csr_mean
// CHECK: "emb.embedding_bag"(%{{.+}}) {masked_offsets, mode = "sum"}
// CHECK: arith.divf
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
func.func @csr_mean(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<7xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %starts = tensor.extract_slice %offsets[0] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %starts : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %starts[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi slt, %in_0, %11 : i64
    %13 = arith.cmpi eq, %in_0, %11 : i64
    %14 = arith.ori %12, %13 : i1
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %14, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %19 = arith.addf %extracted_1, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  %hi = tensor.extract_slice %offsets[1] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e1 = tensor.empty() : tensor<6xi64>
  %len = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%hi, %starts : tensor<6xi64>, tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %s = arith.subi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %clamped = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%len : tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %o: i64):
    %p = arith.cmpi slt, %a, %c1_i64 : i64
    %s = arith.select %p, %c1_i64, %a : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %e2 = tensor.empty() : tensor<6xf32>
  %count = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%clamped : tensor<6xi64>) outs(%e2 : tensor<6xf32>) {
  ^bb0(%a: i64, %o: f32):
    %s = arith.sitofp %a : i64 to f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %unsq = tensor.expand_shape %count [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  // REMARK: [[@LINE+1]]:11: remark: emb-raise-embedding-bag: the divisor is not the bag lengths clamped to at least 1 (offsets ++ [N], diff, clamp, to float)
  %mean = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %unsq : tensor<6x16xf32>, tensor<6x1xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.divf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<6x16xf32>
  return %mean : tensor<6x16xf32>
}

// -----

// padding_idx = 0 on a table of dynamic rows: whether 0 is a row is known
// only at run time (an empty table has none).
// CHECK-LABEL: func.func @padding_dynamic_rows
// CHECK: linalg.generic
// CHECK-NOT: "emb.embedding_bag"
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @padding_dynamic_rows(%weight: tensor<?x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>, %psw: tensor<20xf32>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  // REMARK: [[@LINE+1]]:10: remark: emb-raise-embedding-bag: padding_idx 0 on a table of dynamic rows: the body reads its row, emb.embedding_bag would skip it where it is not a row
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #ids, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets, %psw : tensor<20xi64>, tensor<6xi64>, tensor<20xf32>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %w: f32, %out: f32):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c6_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<6xi64>
    %9 = arith.select %7, %num_ids, %extracted : i64
    %10 = linalg.index 1 : index
    %11 = arith.index_cast %10 : index to i64
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %pad = arith.cmpi ne, %in, %c0_i64 : i64
    %m = arith.andi %12, %15 : i1
    %16 = arith.andi %m, %pad : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<?x16xf32>
    %scaled = arith.mulf %extracted_1, %w : f32
    %19 = arith.addf %scaled, %out : f32
    %20 = arith.select %16, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// A sum whose bounds check skips ids ("warning"): the divisor counts every
// id of the bag, so the pair is not a mean bag.
// CHECK-LABEL: func.func @mean_of_warning_sum
// CHECK: "emb.embedding_bag"
// CHECK-SAME: bounds_check = "warning"
// CHECK: arith.divf
#v = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
func.func @mean_of_warning_sum(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %n = arith.constant dense<20> : tensor<1xi64>
  %ext = tensor.concat dim(0) %offsets, %n : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
  %sum = "emb.embedding_bag"(%weight, %ids, %ext) {mode = "sum", masked_offsets, bounds_check = "warning"} : (tensor<100x16xf32>, tensor<20xi64>, tensor<7xi64>) -> tensor<6x16xf32>
  %hi = tensor.extract_slice %ext[1] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %lo = tensor.extract_slice %ext[0] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e1 = tensor.empty() : tensor<6xi64>
  %len = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%hi, %lo : tensor<6xi64>, tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %s = arith.subi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %clamped = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%len : tensor<6xi64>) outs(%e1 : tensor<6xi64>) {
  ^bb0(%a: i64, %o: i64):
    %p = arith.cmpi slt, %a, %c1_i64 : i64
    %s = arith.select %p, %c1_i64, %a : i64
    linalg.yield %s : i64
  } -> tensor<6xi64>
  %e2 = tensor.empty() : tensor<6xf32>
  %count = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%clamped : tensor<6xi64>) outs(%e2 : tensor<6xf32>) {
  ^bb0(%a: i64, %o: f32):
    %s = arith.sitofp %a : i64 to f32
    linalg.yield %s : f32
  } -> tensor<6xf32>
  %unsq = tensor.expand_shape %count [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  // REMARK: [[@LINE+1]]:11: remark: emb-raise-embedding-bag: a mean of a sum with bounds_check would skip ids its divisor counts
  %mean = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %unsq : tensor<6x16xf32>, tensor<6x1xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.divf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<6x16xf32>
  return %mean : tensor<6x16xf32>
}

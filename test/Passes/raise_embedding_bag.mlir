// emb-raise-embedding-bag: torch-mlir's sum embedding bag (one masked-select
// generic over bag, id and column) becomes emb.embedding_bag {mode = "sum"};
// the sum divided by the clamped bag lengths becomes mode "mean".
// RUN: emb-opt --split-input-file --emb-raise-embedding-bag %s | FileCheck %s
// REQUIRES: emb-compiler

// aten._embedding_bag in sum mode: 20 ids in 6 bags. emb's offsets have
// B+1 entries: the last bag's end, N = 20, is appended.
// CHECK-LABEL: func.func @sum
// CHECK-SAME: (%[[W:.+]]: tensor<100x16xf32>, %[[IDS:.+]]: tensor<20xi64>, %[[OFF:.+]]: tensor<6xi64>)
// CHECK: %[[N:.+]] = arith.constant dense<20> : tensor<1xi64>
// CHECK: %[[EXT:.+]] = tensor.concat dim(0) %[[OFF]], %[[N]] : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
// CHECK: %[[S:.+]] = "emb.embedding_bag"(%[[W]], %[[IDS]], %[[EXT]]) {masked_offsets, mode = "sum"} : (tensor<100x16xf32>, tensor<20xi64>, tensor<7xi64>) -> tensor<6x16xf32>
// CHECK-NOT: linalg
// CHECK: return %[[S]]
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @sum(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
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
  return %sum : tensor<6x16xf32>
}

// -----

// A mask that also skips id 0 (padding_idx = 0 written into the body; the
// torch-mlir lowering itself drops padding_idx).
// CHECK-LABEL: func.func @padding
// CHECK: "emb.embedding_bag"(%{{.+}}, %{{.+}}, %{{.+}}) {masked_offsets, mode = "sum", padding_idx = 0 : i64} : (tensor<100x8xf16>, tensor<12xi64>, tensor<5xi64>) -> tensor<4x8xf16>
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @padding(%weight: tensor<100x8xf16>, %ids: tensor<12xi64>, %offsets: tensor<4xi64>) -> tensor<4x8xf16> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c4_i64 = arith.constant 4 : i64
  %num_ids = arith.constant 12 : i64
  %c0_i64 = arith.constant 0 : i64
  %cst = arith.constant 0.000000e+00 : f16
  %e = tensor.empty() : tensor<4x8xf16>
  %acc = linalg.fill ins(%cst : f16) outs(%e : tensor<4x8xf16>) -> tensor<4x8xf16>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<12xi64>, tensor<4xi64>) outs(%acc : tensor<4x8xf16>) {
  ^bb0(%in: i64, %in_0: i64, %out: f16):
    %3 = linalg.index 0 : index
    %4 = arith.index_cast %3 : index to i64
    %5 = arith.addi %4, %c1_i64 : i64
    %6 = arith.index_cast %5 : i64 to index
    %7 = arith.cmpi eq, %c4_i64, %5 : i64
    %8 = arith.select %7, %c0, %6 : index
    %extracted = tensor.extract %offsets[%8] : tensor<4xi64>
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
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x8xf16>
    %19 = arith.addf %extracted_1, %out : f16
    %20 = arith.select %mask, %19, %out : f16
    linalg.yield %20 : f16
  } -> tensor<4x8xf16>
  return %sum : tensor<4x8xf16>
}

// -----

// A dynamic number of ids: the last bag ends at their count, read at run
// time.
// CHECK-LABEL: func.func @dynamic_ids
// CHECK-SAME: (%[[W:.+]]: tensor<100x16xf32>, %[[IDS:.+]]: tensor<?xi64>, %[[OFF:.+]]: tensor<6xi64>)
// CHECK: %[[N:.+]] = tensor.dim %[[IDS]], %{{.+}} : tensor<?xi64>
// CHECK: %[[N64:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[LAST:.+]] = tensor.from_elements %[[N64]] : tensor<1xi64>
// CHECK: %[[EXT:.+]] = tensor.concat dim(0) %[[OFF]], %[[LAST]] : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
// CHECK: "emb.embedding_bag"(%[[W]], %[[IDS]], %[[EXT]]) {masked_offsets, mode = "sum"} : (tensor<100x16xf32>, tensor<?xi64>, tensor<7xi64>) -> tensor<6x16xf32>
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @dynamic_ids(%weight: tensor<100x16xf32>, %ids: tensor<?xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %dim = tensor.dim %ids, %c0 : tensor<?xi64>
  %num_ids = arith.index_cast %dim : index to i64
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %offsets : tensor<?xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
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

// Mean written by hand: sum / (offsets ++ [N]).diff().clamp(min=1)
// .float().unsqueeze(1). The divisor is proven to be the clamped bag
// lengths, so the pair is one mean bag (an empty bag gives 0 / 1 = 0, as
// emb's mean does).
// CHECK-LABEL: func.func @mean
// CHECK-SAME: (%[[W:.+]]: tensor<100x16xf32>, %[[IDS:.+]]: tensor<20xi64>, %[[OFF:.+]]: tensor<6xi64>)
// CHECK: %[[EXT:.+]] = tensor.concat dim(0) %[[OFF]], %{{.+}} : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
// CHECK: %[[M:.+]] = "emb.embedding_bag"(%[[W]], %[[IDS]], %[[EXT]]) {masked_offsets, mode = "mean"} : (tensor<100x16xf32>, tensor<20xi64>, tensor<7xi64>) -> tensor<6x16xf32>
// CHECK-NOT: "emb.embedding_bag"
// CHECK-NOT: linalg
// CHECK: return %[[M]]
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
func.func @mean(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
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
  %mean = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %unsq : tensor<6x16xf32>, tensor<6x1xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.divf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<6x16xf32>
  return %mean : tensor<6x16xf32>
}

// -----

// The same mean with the clamp in float, max(float(length), 1.0), fused
// with the difference into one generic, and the divisor read per row
// without the unsqueeze.
// CHECK-LABEL: func.func @mean_fused
// CHECK: "emb.embedding_bag"(%{{.+}}, %{{.+}}, %{{.+}}) {masked_offsets, mode = "mean"} : (tensor<100x16xf32>, tensor<20xi64>, tensor<7xi64>) -> tensor<6x16xf32>
// CHECK-NOT: linalg
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @mean_fused(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>) -> tensor<6x16xf32> {
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
  %one = arith.constant 1.000000e+00 : f32
  %ext = tensor.concat dim(0) %offsets, %n : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
  %hi = tensor.extract_slice %ext[1] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %lo = tensor.extract_slice %ext[0] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e2 = tensor.empty() : tensor<6xf32>
  %count = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]} ins(%hi, %lo : tensor<6xi64>, tensor<6xi64>) outs(%e2 : tensor<6xf32>) {
  ^bb0(%a: i64, %b: i64, %o: f32):
    %s = arith.subi %a, %b : i64
    %f = arith.sitofp %s : i64 to f32
    %m = arith.maximumf %f, %one : f32
    linalg.yield %m : f32
  } -> tensor<6xf32>
  %mean = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %count : tensor<6x16xf32>, tensor<6xf32>) outs(%e : tensor<6x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.divf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<6x16xf32>
  return %mean : tensor<6x16xf32>
}

// -----

// TorchRec's offsets (include_last_offset=True, B + 1 = 7 entries). torch-mlir
// does not lower include_last_offset=True; the model passes offsets[:-1],
// which torch-mlir lowers to a tensor.extract_slice of the bag starts before
// the sum generic. The raised bag reads the slice and the ids' count, as the
// generic does (offsets[6] is read by neither).
// CHECK-LABEL: func.func @last_offset
// CHECK-SAME: (%[[W:.+]]: tensor<100x16xf32>, %[[IDS:.+]]: tensor<20xi64>, %[[OFF:.+]]: tensor<7xi64>)
// CHECK-DAG: %[[N:.+]] = arith.constant dense<20> : tensor<1xi64>
// CHECK-DAG: %[[STARTS:.+]] = tensor.extract_slice %[[OFF]][0] [6] [1] : tensor<7xi64> to tensor<6xi64>
// CHECK: %[[EXT:.+]] = tensor.concat dim(0) %[[STARTS]], %[[N]] : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
// CHECK: %[[S:.+]] = "emb.embedding_bag"(%[[W]], %[[IDS]], %[[EXT]]) {masked_offsets, mode = "sum"} : (tensor<100x16xf32>, tensor<20xi64>, tensor<7xi64>) -> tensor<6x16xf32>
// CHECK-NOT: linalg
// CHECK: return %[[S]]
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @last_offset(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<7xi64>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %c20_i64 = arith.constant 20 : i64
  %cst = arith.constant 0.000000e+00 : f32
  %starts = tensor.extract_slice %offsets[0] [6] [1] : tensor<7xi64> to tensor<6xi64>
  %e = tensor.empty() : tensor<6x16xf32>
  %acc = linalg.fill ins(%cst : f32) outs(%e : tensor<6x16xf32>) -> tensor<6x16xf32>
  %sum = linalg.generic {indexing_maps = [#ids, #bag, #out], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ids, %starts : tensor<20xi64>, tensor<6xi64>) outs(%acc : tensor<6x16xf32>) {
  ^bb0(%in: i64, %in_0: i64, %out: f32):
    %0 = linalg.index 0 : index
    %1 = arith.index_cast %0 : index to i64
    %2 = arith.addi %1, %c1_i64 : i64
    %3 = arith.index_cast %2 : i64 to index
    %4 = arith.cmpi eq, %c6_i64, %2 : i64
    %5 = arith.select %4, %c0, %3 : index
    %extracted = tensor.extract %starts[%5] : tensor<6xi64>
    %6 = arith.select %4, %c20_i64, %extracted : i64
    %7 = linalg.index 1 : index
    %8 = arith.index_cast %7 : index to i64
    %9 = arith.cmpi slt, %in_0, %8 : i64
    %10 = arith.cmpi eq, %in_0, %8 : i64
    %11 = arith.ori %9, %10 : i1
    %12 = arith.cmpi slt, %8, %6 : i64
    %13 = arith.andi %11, %12 : i1
    %14 = arith.index_cast %in : i64 to index
    %15 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%14, %15] : tensor<100x16xf32>
    %16 = arith.addf %extracted_1, %out : f32
    %17 = arith.select %13, %16, %out : f32
    linalg.yield %17 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

// -----

// A weighted sum bag (TorchRec's weighted EmbeddingBagCollection,
// per_sample_weights in sum mode): a third input read per id scales each
// row. torch-mlir's TorchToLinalg drops per_sample_weights (its generic has
// two inputs); this is the generic a lowering that keeps them writes.
// CHECK-LABEL: func.func @weighted
// CHECK-SAME: (%[[W:.+]]: tensor<100x16xf32>, %[[IDS:.+]]: tensor<20xi64>, %[[OFF:.+]]: tensor<6xi64>, %[[PSW:.+]]: tensor<20xf32>)
// CHECK: %[[EXT:.+]] = tensor.concat dim(0) %[[OFF]], %{{.+}} : (tensor<6xi64>, tensor<1xi64>) -> tensor<7xi64>
// CHECK: %[[S:.+]] = "emb.embedding_bag"(%[[W]], %[[IDS]], %[[EXT]], %[[PSW]]) {masked_offsets, mode = "sum"} : (tensor<100x16xf32>, tensor<20xi64>, tensor<7xi64>, tensor<20xf32>) -> tensor<6x16xf32>
// CHECK-NOT: linalg
// CHECK: return %[[S]]
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @weighted(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>, %psw: tensor<20xf32>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
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
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %16 = arith.andi %12, %15 : i1
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

// Weighted with padding_idx = 7 (the id on the right of the compare, the
// weight first in the product, the mask's terms in another order).
// CHECK-LABEL: func.func @weighted_padding
// CHECK: "emb.embedding_bag"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}) {masked_offsets, mode = "sum", padding_idx = 7 : i64} : (tensor<100x16xf32>, tensor<20xi64>, tensor<7xi64>, tensor<20xf32>) -> tensor<6x16xf32>
// CHECK-NOT: linalg
#ids = affine_map<(d0, d1, d2) -> (d1)>
#bag = affine_map<(d0, d1, d2) -> (d0)>
#out = affine_map<(d0, d1, d2) -> (d0, d2)>
func.func @weighted_padding(%weight: tensor<100x16xf32>, %ids: tensor<20xi64>, %offsets: tensor<6xi64>, %psw: tensor<20xf32>) -> tensor<6x16xf32> {
  %c0 = arith.constant 0 : index
  %c1_i64 = arith.constant 1 : i64
  %c6_i64 = arith.constant 6 : i64
  %num_ids = arith.constant 20 : i64
  %c7_i64 = arith.constant 7 : i64
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
    %12 = arith.cmpi sle, %in_0, %11 : i64
    %15 = arith.cmpi slt, %11, %9 : i64
    %pad = arith.cmpi ne, %c7_i64, %in : i64
    %16 = arith.andi %pad, %12 : i1
    %mask = arith.andi %16, %15 : i1
    %17 = arith.index_cast %in : i64 to index
    %18 = linalg.index 2 : index
    %extracted_1 = tensor.extract %weight[%17, %18] : tensor<100x16xf32>
    %scaled = arith.mulf %w, %extracted_1 : f32
    %19 = arith.addf %scaled, %out : f32
    %20 = arith.select %mask, %19, %out : f32
    linalg.yield %20 : f32
  } -> tensor<6x16xf32>
  return %sum : tensor<6x16xf32>
}

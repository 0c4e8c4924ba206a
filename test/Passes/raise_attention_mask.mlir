// emb-raise-attention on SDPA with a boolean attn_mask of key lengths, as
// PyTorch's math decomposition writes it: where(mask, 0, -inf) added to the
// scores before _safe_softmax. `arange(Lk) < lengths.unsqueeze(1)` keeps the
// first len keys of a row: emb.attention's key_lengths, clamped to 0..Lk
// unless they are emb.jagged_to_padded's (min(length, Lk) already). The
// gathers of k, v and the mask are raised first (emb-raise-gather), so that
// emb-ikbo sees broadcasts. Numbers: raise_attention_numbers.test. Masks
// emb.attention cannot take: raise_attention_negative.mlir.
// RUN: emb-opt --split-input-file --emb-raise-gather --emb-raise-attention --canonicalize %s | FileCheck %s
// RUN: emb-opt --split-input-file --emb-raise-gather --emb-raise-attention --emb-ikbo %s 2>/dev/null | FileCheck %s --check-prefix=IKBO
// RUN: emb-opt --split-input-file --emb-raise-gather --emb-raise-attention --emb-ikbo %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark:
// REQUIRES: emb-compiler

// The mask at the users' batch ([U, Lk]), gathered per candidate: the
// lengths are clamped at the users' batch and broadcast like k and v, and
// emb-ikbo reads all three per user (emb.ikbo_attention's user_lengths).
// Lq = 1: torch-mlir reads every dim of size 1 at the constant 0.
// CHECK-LABEL: func.func @key_mask_user
// CHECK-SAME: (%[[Q:.+]]: tensor<6x1x2x4xf16>, %[[K:.+]]: tensor<2x5x2x4xf16>, %[[V:.+]]: tensor<2x5x2x4xf16>, %[[C2U:.+]]: tensor<6xi64>, %[[LEN:.+]]: tensor<2xi64>)
// CHECK-DAG: %[[KB:.+]] = "emb.broadcast"(%[[K]], %[[C2U]])
// CHECK-DAG: %[[VB:.+]] = "emb.broadcast"(%[[V]], %[[C2U]])
// CHECK: %[[CLAMPED:.+]] = linalg.generic {{.+}} ins(%[[LEN]] : tensor<2xi64>)
// CHECK: arith.maxsi %{{.+}}, %{{.+}} : i64
// CHECK: arith.minsi %{{.+}}, %{{.+}} : i64
// CHECK: %[[LB:.+]] = "emb.broadcast"(%[[CLAMPED]], %[[C2U]]) : (tensor<2xi64>, tensor<6xi64>) -> tensor<6xi64>
// CHECK: %[[O:.+]] = "emb.attention"(%[[Q]], %[[KB]], %[[VB]], %[[LB]]) {additive_mask, scale = 0.4998{{[0-9]+}} : f32} : (tensor<6x1x2x4xf16>, tensor<6x5x2x4xf16>, tensor<6x5x2x4xf16>, tensor<6xi64>) -> tensor<6x1x2x4xf16>
// CHECK-NOT: linalg.batch_matmul
// CHECK: return %[[O]]
// IKBO-LABEL: func.func @key_mask_user
// IKBO-SAME: (%[[Q:.+]]: tensor<6x1x2x4xf16>, %[[K:.+]]: tensor<2x5x2x4xf16>, %[[V:.+]]: tensor<2x5x2x4xf16>, %[[C2U:.+]]: tensor<6xi64>, %[[LEN:.+]]: tensor<2xi64>)
// IKBO: %[[CLAMPED:.+]] = linalg.generic {{.+}} ins(%[[LEN]] : tensor<2xi64>)
// IKBO: "emb.ikbo_attention"(%[[Q]], %[[K]], %[[V]], %[[C2U]], %[[CLAMPED]]) {additive_mask, scale = {{.+}}} : (tensor<6x1x2x4xf16>, tensor<2x5x2x4xf16>, tensor<2x5x2x4xf16>, tensor<6xi64>, tensor<2xi64>) -> tensor<6x1x2x4xf16>
// IKBO-NOT: "emb.broadcast"
func.func @key_mask_user(%query: tensor<6x1x2x4xf16>, %k: tensor<2x5x2x4xf16>, %v: tensor<2x5x2x4xf16>, %cand_to_user: tensor<6xi64>, %lengths: tensor<2xi64>) -> tensor<6x1x2x4xf16> {
  %cst_f16 = arith.constant 0.000000e+00 : f16
  %ninf_f16 = arith.constant 0xFC00 : f16
  %sqrt_scale = arith.constant 7.071068e-01 : f16
  %zero_f16_0d = arith.constant dense<0.000000e+00> : tensor<f16>
  %ninf_f16_0d = arith.constant dense<0xFC00> : tensor<f16>
  %true = arith.constant true
  %empty0 = tensor.empty() : tensor<5xi64>
  %arange0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%empty0 : tensor<5xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %i64 = arith.index_cast %i : index to i64
    linalg.yield %i64 : i64
  } -> tensor<5xi64>
  %expanded0 = tensor.expand_shape %lengths [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
  %empty1 = tensor.empty() : tensor<2x5xi1>
  %key_mask0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arange0, %expanded0 : tensor<5xi64>, tensor<2x1xi64>) outs(%empty1 : tensor<2x5xi1>) {
  ^bb0(%in0: i64, %in1: i64, %out: i1):
    %lt = arith.cmpi slt, %in0, %in1 : i64
    linalg.yield %lt : i1
  } -> tensor<2x5xi1>
  %empty2 = tensor.empty() : tensor<6x5xi1>
  %gathered0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cand_to_user : tensor<6xi64>) outs(%empty2 : tensor<6x5xi1>) {
  ^bb0(%in0: i64, %out: i1):
    %u = arith.index_cast %in0 : i64 to index
    %i1 = linalg.index 1 : index
    %x = tensor.extract %key_mask0[%u, %i1] : tensor<2x5xi1>
    linalg.yield %x : i1
  } -> tensor<6x5xi1>
  %expanded1 = tensor.expand_shape %gathered0 [[0, 1, 2], [3]] output_shape [6, 1, 1, 5] : tensor<6x5xi1> into tensor<6x1x1x5xi1>
  %empty3 = tensor.empty() : tensor<6x1x1x5xf16>
  %attn_bias0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded1, %zero_f16_0d, %ninf_f16_0d : tensor<6x1x1x5xi1>, tensor<f16>, tensor<f16>) outs(%empty3 : tensor<6x1x1x5xf16>) {
  ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
    %s = arith.select %in0, %in1, %in2 : f16
    linalg.yield %s : f16
  } -> tensor<6x1x1x5xf16>
  %empty4 = tensor.empty() : tensor<6x5x2x4xf16>
  %gathered1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<6xi64>) outs(%empty4 : tensor<6x5x2x4xf16>) {
  ^bb0(%in0: i64, %out: f16):
    %u = arith.index_cast %in0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %x = tensor.extract %k[%u, %i1, %i2, %i3] : tensor<2x5x2x4xf16>
    linalg.yield %x : f16
  } -> tensor<6x5x2x4xf16>
  %empty5 = tensor.empty() : tensor<6x5x2x4xf16>
  %gathered2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<6xi64>) outs(%empty5 : tensor<6x5x2x4xf16>) {
  ^bb0(%in0: i64, %out: f16):
    %u = arith.index_cast %in0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %x = tensor.extract %v[%u, %i1, %i2, %i3] : tensor<2x5x2x4xf16>
    linalg.yield %x : f16
  } -> tensor<6x5x2x4xf16>
  %empty6 = tensor.empty() : tensor<6x2x1x4xf16>
  %transposed0 = linalg.transpose ins(%query : tensor<6x1x2x4xf16>) outs(%empty6 : tensor<6x2x1x4xf16>) permutation = [0, 2, 1, 3]
  %empty7 = tensor.empty() : tensor<6x2x1x4xf16>
  %g0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed0 : tensor<6x2x1x4xf16>) outs(%empty7 : tensor<6x2x1x4xf16>) {
  ^bb0(%in0: f16, %out: f16):
    %m = arith.mulf %in0, %sqrt_scale : f16
    linalg.yield %m : f16
  } -> tensor<6x2x1x4xf16>
  %empty8 = tensor.empty() : tensor<6x2x4x5xf16>
  %transposed1 = linalg.transpose ins(%gathered1 : tensor<6x5x2x4xf16>) outs(%empty8 : tensor<6x2x4x5xf16>) permutation = [0, 2, 3, 1]
  %empty9 = tensor.empty() : tensor<6x2x4x5xf16>
  %g1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed1 : tensor<6x2x4x5xf16>) outs(%empty9 : tensor<6x2x4x5xf16>) {
  ^bb0(%in0: f16, %out: f16):
    %m = arith.mulf %in0, %sqrt_scale : f16
    linalg.yield %m : f16
  } -> tensor<6x2x4x5xf16>
  %collapsed0 = tensor.collapse_shape %g0 [[0, 1], [2], [3]] : tensor<6x2x1x4xf16> into tensor<12x1x4xf16>
  %collapsed1 = tensor.collapse_shape %g1 [[0, 1], [2], [3]] : tensor<6x2x4x5xf16> into tensor<12x4x5xf16>
  %cst0 = arith.constant 0.000000e+00 : f32
  %empty10 = tensor.empty() : tensor<12x1x5xf32>
  %fill0 = linalg.fill ins(%cst0 : f32) outs(%empty10 : tensor<12x1x5xf32>) -> tensor<12x1x5xf32>
  %bmm0 = linalg.batch_matmul ins(%collapsed0, %collapsed1 : tensor<12x1x4xf16>, tensor<12x4x5xf16>) outs(%fill0 : tensor<12x1x5xf32>) -> tensor<12x1x5xf32>
  %empty11 = tensor.empty() : tensor<12x1x5xf16>
  %g2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm0 : tensor<12x1x5xf32>) outs(%empty11 : tensor<12x1x5xf16>) {
  ^bb0(%in0: f32, %out: f16):
    %t = arith.truncf %in0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<12x1x5xf16>
  %expanded2 = tensor.expand_shape %g2 [[0, 1], [2], [3]] output_shape [6, 2, 1, 5] : tensor<12x1x5xf16> into tensor<6x2x1x5xf16>
  %empty12 = tensor.empty() : tensor<6x2x1x5xf16>
  %masked0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded2, %attn_bias0 : tensor<6x2x1x5xf16>, tensor<6x1x1x5xf16>) outs(%empty12 : tensor<6x2x1x5xf16>) {
  ^bb0(%in0: f16, %in1: f16, %out: f16):
    %s = arith.addf %in0, %in1 : f16
    linalg.yield %s : f16
  } -> tensor<6x2x1x5xf16>
  %empty13 = tensor.empty() : tensor<6x2x1x5xf32>
  %g3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<6x2x1x5xf16>) outs(%empty13 : tensor<6x2x1x5xf32>) {
  ^bb0(%in0: f16, %out: f32):
    %e = arith.extf %in0 : f16 to f32
    linalg.yield %e : f32
  } -> tensor<6x2x1x5xf32>
  %cst1 = arith.constant 0 : i64
  %empty14 = tensor.empty() : tensor<6x2x1xi64>
  %fill1 = linalg.fill ins(%cst1 : i64) outs(%empty14 : tensor<6x2x1xi64>) -> tensor<6x2x1xi64>
  %cst2 = arith.constant 0xFF800000 : f32
  %empty15 = tensor.empty() : tensor<6x2x1xf32>
  %fill2 = linalg.fill ins(%cst2 : f32) outs(%empty15 : tensor<6x2x1xf32>) -> tensor<6x2x1xf32>
  %max0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g3 : tensor<6x2x1x5xf32>) outs(%fill2, %fill1 : tensor<6x2x1xf32>, tensor<6x2x1xi64>) {
  ^bb0(%in0: f32, %out: f32, %out_i: i64):
    %i = linalg.index 3 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %in0, %out : f32
    %gt = arith.cmpf ogt, %in0, %out : f32
    %s = arith.select %gt, %i64, %out_i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<6x2x1xf32>, tensor<6x2x1xi64>)
  %expanded3 = tensor.expand_shape %max0#0 [[0], [1], [2, 3]] output_shape [6, 2, 1, 1] : tensor<6x2x1xf32> into tensor<6x2x1x1xf32>
  %empty16 = tensor.empty() : tensor<6x2x1x5xf32>
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g3, %expanded3 : tensor<6x2x1x5xf32>, tensor<6x2x1x1xf32>) outs(%empty16 : tensor<6x2x1x5xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %s = arith.subf %in0, %in1 : f32
    linalg.yield %s : f32
  } -> tensor<6x2x1x5xf32>
  %empty17 = tensor.empty() : tensor<6x2x1x5xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g4 : tensor<6x2x1x5xf32>) outs(%empty17 : tensor<6x2x1x5xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %e = math.exp %in0 : f32
    linalg.yield %e : f32
  } -> tensor<6x2x1x5xf32>
  %cst3 = arith.constant 0.000000e+00 : f32
  %empty18 = tensor.empty() : tensor<6x2x1x1xf32>
  %fill3 = linalg.fill ins(%cst3 : f32) outs(%empty18 : tensor<6x2x1x1xf32>) -> tensor<6x2x1x1xf32>
  %sum0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g5 : tensor<6x2x1x5xf32>) outs(%fill3 : tensor<6x2x1x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %s = arith.addf %in0, %out : f32
    linalg.yield %s : f32
  } -> tensor<6x2x1x1xf32>
  %empty19 = tensor.empty() : tensor<6x2x1x5xf32>
  %g6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g5, %sum0 : tensor<6x2x1x5xf32>, tensor<6x2x1x1xf32>) outs(%empty19 : tensor<6x2x1x5xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %s = arith.divf %in0, %in1 : f32
    linalg.yield %s : f32
  } -> tensor<6x2x1x5xf32>
  %empty20 = tensor.empty() : tensor<6x2x1x5xf16>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g6 : tensor<6x2x1x5xf32>) outs(%empty20 : tensor<6x2x1x5xf16>) {
  ^bb0(%in0: f32, %out: f16):
    %t = arith.truncf %in0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<6x2x1x5xf16>
  %empty21 = tensor.empty() : tensor<6x2x1x5xi1>
  %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<6x2x1x5xf16>) outs(%empty21 : tensor<6x2x1x5xi1>) {
  ^bb0(%in0: f16, %out: i1):
    %q = arith.cmpf oeq, %in0, %ninf_f16 : f16
    linalg.yield %q : i1
  } -> tensor<6x2x1x5xi1>
  %cst4 = arith.constant true
  %empty22 = tensor.empty() : tensor<6x2x1x1xi1>
  %fill4 = linalg.fill ins(%cst4 : i1) outs(%empty22 : tensor<6x2x1x1xi1>) -> tensor<6x2x1x1xi1>
  %all0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g8 : tensor<6x2x1x5xi1>) outs(%fill4 : tensor<6x2x1x1xi1>) {
  ^bb0(%in0: i1, %out: i1):
    %s = arith.andi %in0, %out : i1
    linalg.yield %s : i1
  } -> tensor<6x2x1x1xi1>
  %empty23 = tensor.empty() : tensor<6x2x1x5xf16>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%all0, %zero_f16_0d, %g7 : tensor<6x2x1x1xi1>, tensor<f16>, tensor<6x2x1x5xf16>) outs(%empty23 : tensor<6x2x1x5xf16>) {
  ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
    %s = arith.select %in0, %in1, %in2 : f16
    linalg.yield %s : f16
  } -> tensor<6x2x1x5xf16>
  %empty24 = tensor.empty() : tensor<6x2x5x4xf16>
  %transposed2 = linalg.transpose ins(%gathered2 : tensor<6x5x2x4xf16>) outs(%empty24 : tensor<6x2x5x4xf16>) permutation = [0, 2, 1, 3]
  %collapsed2 = tensor.collapse_shape %g9 [[0, 1], [2], [3]] : tensor<6x2x1x5xf16> into tensor<12x1x5xf16>
  %collapsed3 = tensor.collapse_shape %transposed2 [[0, 1], [2], [3]] : tensor<6x2x5x4xf16> into tensor<12x5x4xf16>
  %cst5 = arith.constant 0.000000e+00 : f32
  %empty25 = tensor.empty() : tensor<12x1x4xf32>
  %fill5 = linalg.fill ins(%cst5 : f32) outs(%empty25 : tensor<12x1x4xf32>) -> tensor<12x1x4xf32>
  %bmm1 = linalg.batch_matmul ins(%collapsed2, %collapsed3 : tensor<12x1x5xf16>, tensor<12x5x4xf16>) outs(%fill5 : tensor<12x1x4xf32>) -> tensor<12x1x4xf32>
  %empty26 = tensor.empty() : tensor<12x1x4xf16>
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm1 : tensor<12x1x4xf32>) outs(%empty26 : tensor<12x1x4xf16>) {
  ^bb0(%in0: f32, %out: f16):
    %t = arith.truncf %in0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<12x1x4xf16>
  %expanded4 = tensor.expand_shape %g10 [[0, 1], [2], [3]] output_shape [6, 2, 1, 4] : tensor<12x1x4xf16> into tensor<6x2x1x4xf16>
  %empty27 = tensor.empty() : tensor<6x1x2x4xf16>
  %transposed3 = linalg.transpose ins(%expanded4 : tensor<6x2x1x4xf16>) outs(%empty27 : tensor<6x1x2x4xf16>) permutation = [0, 2, 1, 3]
  return %transposed3 : tensor<6x1x2x4xf16>
}

// -----

// The lengths emb.jagged_to_padded gives with the padded history are
// min(length, Lk) already: no clamp. One head (k and v are the history
// itself, as [U, Lk, 1, D]).
// CHECK-LABEL: func.func @key_mask_jagged
// CHECK: %[[P:.+]]:2 = "emb.jagged_to_padded"
// CHECK-NOT: linalg.generic
// CHECK: %[[LB:.+]] = "emb.broadcast"(%[[P]]#1, %{{.+}}) : (tensor<2xi64>, tensor<6xi64>) -> tensor<6xi64>
// CHECK: "emb.attention"(%{{.+}}, %{{.+}}, %{{.+}}, %[[LB]]) {additive_mask,
// IKBO-LABEL: func.func @key_mask_jagged
// IKBO: %[[P:.+]]:2 = "emb.jagged_to_padded"
// IKBO: "emb.ikbo_attention"(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[P]]#1) {additive_mask,
func.func @key_mask_jagged(%query: tensor<6x1x1x4xf16>, %seq: tensor<?x4xf16>, %seq_offsets: tensor<3xi64>, %cand_to_user: tensor<6xi64>) -> tensor<6x1x1x4xf16> {
  %cst_f16 = arith.constant 0.000000e+00 : f16
  %ninf_f16 = arith.constant 0xFC00 : f16
  %sqrt_scale = arith.constant 7.071068e-01 : f16
  %zero_f16_0d = arith.constant dense<0.000000e+00> : tensor<f16>
  %ninf_f16_0d = arith.constant dense<0xFC00> : tensor<f16>
  %true = arith.constant true
  %padded, %lengths = "emb.jagged_to_padded"(%seq, %seq_offsets) {max_length = 5 : i64} : (tensor<?x4xf16>, tensor<3xi64>) -> (tensor<2x5x4xf16>, tensor<2xi64>)
  %expanded0 = tensor.expand_shape %padded [[0], [1], [2, 3]] output_shape [2, 5, 1, 4] : tensor<2x5x4xf16> into tensor<2x5x1x4xf16>
  %empty0 = tensor.empty() : tensor<5xi64>
  %arange0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%empty0 : tensor<5xi64>) {
  ^bb0(%out: i64):
    %i = linalg.index 0 : index
    %i64 = arith.index_cast %i : index to i64
    linalg.yield %i64 : i64
  } -> tensor<5xi64>
  %expanded1 = tensor.expand_shape %lengths [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
  %empty1 = tensor.empty() : tensor<2x5xi1>
  %key_mask0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arange0, %expanded1 : tensor<5xi64>, tensor<2x1xi64>) outs(%empty1 : tensor<2x5xi1>) {
  ^bb0(%in0: i64, %in1: i64, %out: i1):
    %lt = arith.cmpi slt, %in0, %in1 : i64
    linalg.yield %lt : i1
  } -> tensor<2x5xi1>
  %empty2 = tensor.empty() : tensor<6x5xi1>
  %gathered0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cand_to_user : tensor<6xi64>) outs(%empty2 : tensor<6x5xi1>) {
  ^bb0(%in0: i64, %out: i1):
    %u = arith.index_cast %in0 : i64 to index
    %i1 = linalg.index 1 : index
    %x = tensor.extract %key_mask0[%u, %i1] : tensor<2x5xi1>
    linalg.yield %x : i1
  } -> tensor<6x5xi1>
  %expanded2 = tensor.expand_shape %gathered0 [[0, 1, 2], [3]] output_shape [6, 1, 1, 5] : tensor<6x5xi1> into tensor<6x1x1x5xi1>
  %empty3 = tensor.empty() : tensor<6x1x1x5xf16>
  %attn_bias0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded2, %zero_f16_0d, %ninf_f16_0d : tensor<6x1x1x5xi1>, tensor<f16>, tensor<f16>) outs(%empty3 : tensor<6x1x1x5xf16>) {
  ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
    %s = arith.select %in0, %in1, %in2 : f16
    linalg.yield %s : f16
  } -> tensor<6x1x1x5xf16>
  %empty4 = tensor.empty() : tensor<6x5x1x4xf16>
  %gathered1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<6xi64>) outs(%empty4 : tensor<6x5x1x4xf16>) {
  ^bb0(%in0: i64, %out: f16):
    %u = arith.index_cast %in0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %x = tensor.extract %expanded0[%u, %i1, %i2, %i3] : tensor<2x5x1x4xf16>
    linalg.yield %x : f16
  } -> tensor<6x5x1x4xf16>
  %empty5 = tensor.empty() : tensor<6x5x1x4xf16>
  %gathered2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<6xi64>) outs(%empty5 : tensor<6x5x1x4xf16>) {
  ^bb0(%in0: i64, %out: f16):
    %u = arith.index_cast %in0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %x = tensor.extract %expanded0[%u, %i1, %i2, %i3] : tensor<2x5x1x4xf16>
    linalg.yield %x : f16
  } -> tensor<6x5x1x4xf16>
  %empty6 = tensor.empty() : tensor<6x1x1x4xf16>
  %transposed0 = linalg.transpose ins(%query : tensor<6x1x1x4xf16>) outs(%empty6 : tensor<6x1x1x4xf16>) permutation = [0, 2, 1, 3]
  %empty7 = tensor.empty() : tensor<6x1x1x4xf16>
  %g0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed0 : tensor<6x1x1x4xf16>) outs(%empty7 : tensor<6x1x1x4xf16>) {
  ^bb0(%in0: f16, %out: f16):
    %m = arith.mulf %in0, %sqrt_scale : f16
    linalg.yield %m : f16
  } -> tensor<6x1x1x4xf16>
  %empty8 = tensor.empty() : tensor<6x1x4x5xf16>
  %transposed1 = linalg.transpose ins(%gathered1 : tensor<6x5x1x4xf16>) outs(%empty8 : tensor<6x1x4x5xf16>) permutation = [0, 2, 3, 1]
  %empty9 = tensor.empty() : tensor<6x1x4x5xf16>
  %g1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed1 : tensor<6x1x4x5xf16>) outs(%empty9 : tensor<6x1x4x5xf16>) {
  ^bb0(%in0: f16, %out: f16):
    %m = arith.mulf %in0, %sqrt_scale : f16
    linalg.yield %m : f16
  } -> tensor<6x1x4x5xf16>
  %collapsed0 = tensor.collapse_shape %g0 [[0, 1], [2], [3]] : tensor<6x1x1x4xf16> into tensor<6x1x4xf16>
  %collapsed1 = tensor.collapse_shape %g1 [[0, 1], [2], [3]] : tensor<6x1x4x5xf16> into tensor<6x4x5xf16>
  %cst0 = arith.constant 0.000000e+00 : f32
  %empty10 = tensor.empty() : tensor<6x1x5xf32>
  %fill0 = linalg.fill ins(%cst0 : f32) outs(%empty10 : tensor<6x1x5xf32>) -> tensor<6x1x5xf32>
  %bmm0 = linalg.batch_matmul ins(%collapsed0, %collapsed1 : tensor<6x1x4xf16>, tensor<6x4x5xf16>) outs(%fill0 : tensor<6x1x5xf32>) -> tensor<6x1x5xf32>
  %empty11 = tensor.empty() : tensor<6x1x5xf16>
  %g2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm0 : tensor<6x1x5xf32>) outs(%empty11 : tensor<6x1x5xf16>) {
  ^bb0(%in0: f32, %out: f16):
    %t = arith.truncf %in0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<6x1x5xf16>
  %expanded3 = tensor.expand_shape %g2 [[0, 1], [2], [3]] output_shape [6, 1, 1, 5] : tensor<6x1x5xf16> into tensor<6x1x1x5xf16>
  %empty12 = tensor.empty() : tensor<6x1x1x5xf16>
  %masked0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded3, %attn_bias0 : tensor<6x1x1x5xf16>, tensor<6x1x1x5xf16>) outs(%empty12 : tensor<6x1x1x5xf16>) {
  ^bb0(%in0: f16, %in1: f16, %out: f16):
    %s = arith.addf %in0, %in1 : f16
    linalg.yield %s : f16
  } -> tensor<6x1x1x5xf16>
  %empty13 = tensor.empty() : tensor<6x1x1x5xf32>
  %g3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<6x1x1x5xf16>) outs(%empty13 : tensor<6x1x1x5xf32>) {
  ^bb0(%in0: f16, %out: f32):
    %e = arith.extf %in0 : f16 to f32
    linalg.yield %e : f32
  } -> tensor<6x1x1x5xf32>
  %cst1 = arith.constant 0 : i64
  %empty14 = tensor.empty() : tensor<6x1x1xi64>
  %fill1 = linalg.fill ins(%cst1 : i64) outs(%empty14 : tensor<6x1x1xi64>) -> tensor<6x1x1xi64>
  %cst2 = arith.constant 0xFF800000 : f32
  %empty15 = tensor.empty() : tensor<6x1x1xf32>
  %fill2 = linalg.fill ins(%cst2 : f32) outs(%empty15 : tensor<6x1x1xf32>) -> tensor<6x1x1xf32>
  %max0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g3 : tensor<6x1x1x5xf32>) outs(%fill2, %fill1 : tensor<6x1x1xf32>, tensor<6x1x1xi64>) {
  ^bb0(%in0: f32, %out: f32, %out_i: i64):
    %i = linalg.index 3 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %in0, %out : f32
    %gt = arith.cmpf ogt, %in0, %out : f32
    %s = arith.select %gt, %i64, %out_i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<6x1x1xf32>, tensor<6x1x1xi64>)
  %expanded4 = tensor.expand_shape %max0#0 [[0], [1], [2, 3]] output_shape [6, 1, 1, 1] : tensor<6x1x1xf32> into tensor<6x1x1x1xf32>
  %empty16 = tensor.empty() : tensor<6x1x1x5xf32>
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g3, %expanded4 : tensor<6x1x1x5xf32>, tensor<6x1x1x1xf32>) outs(%empty16 : tensor<6x1x1x5xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %s = arith.subf %in0, %in1 : f32
    linalg.yield %s : f32
  } -> tensor<6x1x1x5xf32>
  %empty17 = tensor.empty() : tensor<6x1x1x5xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g4 : tensor<6x1x1x5xf32>) outs(%empty17 : tensor<6x1x1x5xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %e = math.exp %in0 : f32
    linalg.yield %e : f32
  } -> tensor<6x1x1x5xf32>
  %cst3 = arith.constant 0.000000e+00 : f32
  %empty18 = tensor.empty() : tensor<6x1x1x1xf32>
  %fill3 = linalg.fill ins(%cst3 : f32) outs(%empty18 : tensor<6x1x1x1xf32>) -> tensor<6x1x1x1xf32>
  %sum0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g5 : tensor<6x1x1x5xf32>) outs(%fill3 : tensor<6x1x1x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %s = arith.addf %in0, %out : f32
    linalg.yield %s : f32
  } -> tensor<6x1x1x1xf32>
  %empty19 = tensor.empty() : tensor<6x1x1x5xf32>
  %g6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g5, %sum0 : tensor<6x1x1x5xf32>, tensor<6x1x1x1xf32>) outs(%empty19 : tensor<6x1x1x5xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %s = arith.divf %in0, %in1 : f32
    linalg.yield %s : f32
  } -> tensor<6x1x1x5xf32>
  %empty20 = tensor.empty() : tensor<6x1x1x5xf16>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g6 : tensor<6x1x1x5xf32>) outs(%empty20 : tensor<6x1x1x5xf16>) {
  ^bb0(%in0: f32, %out: f16):
    %t = arith.truncf %in0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<6x1x1x5xf16>
  %empty21 = tensor.empty() : tensor<6x1x1x5xi1>
  %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<6x1x1x5xf16>) outs(%empty21 : tensor<6x1x1x5xi1>) {
  ^bb0(%in0: f16, %out: i1):
    %q = arith.cmpf oeq, %in0, %ninf_f16 : f16
    linalg.yield %q : i1
  } -> tensor<6x1x1x5xi1>
  %cst4 = arith.constant true
  %empty22 = tensor.empty() : tensor<6x1x1x1xi1>
  %fill4 = linalg.fill ins(%cst4 : i1) outs(%empty22 : tensor<6x1x1x1xi1>) -> tensor<6x1x1x1xi1>
  %all0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g8 : tensor<6x1x1x5xi1>) outs(%fill4 : tensor<6x1x1x1xi1>) {
  ^bb0(%in0: i1, %out: i1):
    %s = arith.andi %in0, %out : i1
    linalg.yield %s : i1
  } -> tensor<6x1x1x1xi1>
  %empty23 = tensor.empty() : tensor<6x1x1x5xf16>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%all0, %zero_f16_0d, %g7 : tensor<6x1x1x1xi1>, tensor<f16>, tensor<6x1x1x5xf16>) outs(%empty23 : tensor<6x1x1x5xf16>) {
  ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
    %s = arith.select %in0, %in1, %in2 : f16
    linalg.yield %s : f16
  } -> tensor<6x1x1x5xf16>
  %empty24 = tensor.empty() : tensor<6x1x5x4xf16>
  %transposed2 = linalg.transpose ins(%gathered2 : tensor<6x5x1x4xf16>) outs(%empty24 : tensor<6x1x5x4xf16>) permutation = [0, 2, 1, 3]
  %collapsed2 = tensor.collapse_shape %g9 [[0, 1], [2], [3]] : tensor<6x1x1x5xf16> into tensor<6x1x5xf16>
  %collapsed3 = tensor.collapse_shape %transposed2 [[0, 1], [2], [3]] : tensor<6x1x5x4xf16> into tensor<6x5x4xf16>
  %cst5 = arith.constant 0.000000e+00 : f32
  %empty25 = tensor.empty() : tensor<6x1x4xf32>
  %fill5 = linalg.fill ins(%cst5 : f32) outs(%empty25 : tensor<6x1x4xf32>) -> tensor<6x1x4xf32>
  %bmm1 = linalg.batch_matmul ins(%collapsed2, %collapsed3 : tensor<6x1x5xf16>, tensor<6x5x4xf16>) outs(%fill5 : tensor<6x1x4xf32>) -> tensor<6x1x4xf32>
  %empty26 = tensor.empty() : tensor<6x1x4xf16>
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm1 : tensor<6x1x4xf32>) outs(%empty26 : tensor<6x1x4xf16>) {
  ^bb0(%in0: f32, %out: f16):
    %t = arith.truncf %in0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<6x1x4xf16>
  %expanded5 = tensor.expand_shape %g10 [[0, 1], [2], [3]] output_shape [6, 1, 1, 4] : tensor<6x1x4xf16> into tensor<6x1x1x4xf16>
  %empty27 = tensor.empty() : tensor<6x1x1x4xf16>
  %transposed3 = linalg.transpose ins(%expanded5 : tensor<6x1x1x4xf16>) outs(%empty27 : tensor<6x1x1x4xf16>) permutation = [0, 2, 1, 3]
  return %transposed3 : tensor<6x1x1x4xf16>
}

// -----

// The mask built per candidate from lengths at the candidates' batch, with
// the key position as linalg.index (lengths[b] > j), and the older
// conversion where(!mask, -inf, 0): key_lengths at the candidates' batch.
// They are no broadcast, so emb-ikbo keeps emb.attention and says why.
// CHECK-LABEL: func.func @key_mask_candidates
// CHECK-SAME: (%[[Q:.+]]: tensor<6x1x2x4xf16>, %{{.+}}: tensor<2x5x2x4xf16>, %{{.+}}: tensor<2x5x2x4xf16>, %[[C2U:.+]]: tensor<6xi64>, %[[LEN:.+]]: tensor<6xi64>)
// CHECK: %[[CLAMPED:.+]] = linalg.generic {{.+}} ins(%[[LEN]] : tensor<6xi64>)
// CHECK: "emb.attention"(%[[Q]], %{{.+}}, %{{.+}}, %[[CLAMPED]]) {additive_mask, scale = {{.+}}} : (tensor<6x1x2x4xf16>, tensor<6x5x2x4xf16>, tensor<6x5x2x4xf16>, tensor<6xi64>) -> tensor<6x1x2x4xf16>
// REMARK: remark: 'emb.attention' not fused: its key_lengths are not broadcast by the cand_to_user of k and v
// IKBO-LABEL: func.func @key_mask_candidates
// IKBO: "emb.attention"
func.func @key_mask_candidates(%query: tensor<6x1x2x4xf16>, %k: tensor<2x5x2x4xf16>, %v: tensor<2x5x2x4xf16>, %cand_to_user: tensor<6xi64>, %lengths: tensor<6xi64>) -> tensor<6x1x2x4xf16> {
  %cst_f16 = arith.constant 0.000000e+00 : f16
  %ninf_f16 = arith.constant 0xFC00 : f16
  %sqrt_scale = arith.constant 7.071068e-01 : f16
  %zero_f16_0d = arith.constant dense<0.000000e+00> : tensor<f16>
  %ninf_f16_0d = arith.constant dense<0xFC00> : tensor<f16>
  %true = arith.constant true
  %empty0 = tensor.empty() : tensor<6x5xi1>
  %key_mask0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%lengths : tensor<6xi64>) outs(%empty0 : tensor<6x5xi1>) {
  ^bb0(%in0: i64, %out: i1):
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %gt = arith.cmpi sgt, %in0, %j64 : i64
    linalg.yield %gt : i1
  } -> tensor<6x5xi1>
  %expanded0 = tensor.expand_shape %key_mask0 [[0, 1, 2], [3]] output_shape [6, 1, 1, 5] : tensor<6x5xi1> into tensor<6x1x1x5xi1>
  %empty1 = tensor.empty() : tensor<6x1x1x5xi1>
  %not0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded0 : tensor<6x1x1x5xi1>) outs(%empty1 : tensor<6x1x1x5xi1>) {
  ^bb0(%in0: i1, %out: i1):
    %n = arith.xori %in0, %true : i1
    linalg.yield %n : i1
  } -> tensor<6x1x1x5xi1>
  %empty2 = tensor.empty() : tensor<6x1x1x5xf16>
  %attn_bias0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%not0, %ninf_f16_0d, %zero_f16_0d : tensor<6x1x1x5xi1>, tensor<f16>, tensor<f16>) outs(%empty2 : tensor<6x1x1x5xf16>) {
  ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
    %s = arith.select %in0, %in1, %in2 : f16
    linalg.yield %s : f16
  } -> tensor<6x1x1x5xf16>
  %empty3 = tensor.empty() : tensor<6x5x2x4xf16>
  %gathered0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<6xi64>) outs(%empty3 : tensor<6x5x2x4xf16>) {
  ^bb0(%in0: i64, %out: f16):
    %u = arith.index_cast %in0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %x = tensor.extract %k[%u, %i1, %i2, %i3] : tensor<2x5x2x4xf16>
    linalg.yield %x : f16
  } -> tensor<6x5x2x4xf16>
  %empty4 = tensor.empty() : tensor<6x5x2x4xf16>
  %gathered1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<6xi64>) outs(%empty4 : tensor<6x5x2x4xf16>) {
  ^bb0(%in0: i64, %out: f16):
    %u = arith.index_cast %in0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %x = tensor.extract %v[%u, %i1, %i2, %i3] : tensor<2x5x2x4xf16>
    linalg.yield %x : f16
  } -> tensor<6x5x2x4xf16>
  %empty5 = tensor.empty() : tensor<6x2x1x4xf16>
  %transposed0 = linalg.transpose ins(%query : tensor<6x1x2x4xf16>) outs(%empty5 : tensor<6x2x1x4xf16>) permutation = [0, 2, 1, 3]
  %empty6 = tensor.empty() : tensor<6x2x1x4xf16>
  %g0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed0 : tensor<6x2x1x4xf16>) outs(%empty6 : tensor<6x2x1x4xf16>) {
  ^bb0(%in0: f16, %out: f16):
    %m = arith.mulf %in0, %sqrt_scale : f16
    linalg.yield %m : f16
  } -> tensor<6x2x1x4xf16>
  %empty7 = tensor.empty() : tensor<6x2x4x5xf16>
  %transposed1 = linalg.transpose ins(%gathered0 : tensor<6x5x2x4xf16>) outs(%empty7 : tensor<6x2x4x5xf16>) permutation = [0, 2, 3, 1]
  %empty8 = tensor.empty() : tensor<6x2x4x5xf16>
  %g1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed1 : tensor<6x2x4x5xf16>) outs(%empty8 : tensor<6x2x4x5xf16>) {
  ^bb0(%in0: f16, %out: f16):
    %m = arith.mulf %in0, %sqrt_scale : f16
    linalg.yield %m : f16
  } -> tensor<6x2x4x5xf16>
  %collapsed0 = tensor.collapse_shape %g0 [[0, 1], [2], [3]] : tensor<6x2x1x4xf16> into tensor<12x1x4xf16>
  %collapsed1 = tensor.collapse_shape %g1 [[0, 1], [2], [3]] : tensor<6x2x4x5xf16> into tensor<12x4x5xf16>
  %cst0 = arith.constant 0.000000e+00 : f32
  %empty9 = tensor.empty() : tensor<12x1x5xf32>
  %fill0 = linalg.fill ins(%cst0 : f32) outs(%empty9 : tensor<12x1x5xf32>) -> tensor<12x1x5xf32>
  %bmm0 = linalg.batch_matmul ins(%collapsed0, %collapsed1 : tensor<12x1x4xf16>, tensor<12x4x5xf16>) outs(%fill0 : tensor<12x1x5xf32>) -> tensor<12x1x5xf32>
  %empty10 = tensor.empty() : tensor<12x1x5xf16>
  %g2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm0 : tensor<12x1x5xf32>) outs(%empty10 : tensor<12x1x5xf16>) {
  ^bb0(%in0: f32, %out: f16):
    %t = arith.truncf %in0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<12x1x5xf16>
  %expanded1 = tensor.expand_shape %g2 [[0, 1], [2], [3]] output_shape [6, 2, 1, 5] : tensor<12x1x5xf16> into tensor<6x2x1x5xf16>
  %empty11 = tensor.empty() : tensor<6x2x1x5xf16>
  %masked0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded1, %attn_bias0 : tensor<6x2x1x5xf16>, tensor<6x1x1x5xf16>) outs(%empty11 : tensor<6x2x1x5xf16>) {
  ^bb0(%in0: f16, %in1: f16, %out: f16):
    %s = arith.addf %in0, %in1 : f16
    linalg.yield %s : f16
  } -> tensor<6x2x1x5xf16>
  %empty12 = tensor.empty() : tensor<6x2x1x5xf32>
  %g3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<6x2x1x5xf16>) outs(%empty12 : tensor<6x2x1x5xf32>) {
  ^bb0(%in0: f16, %out: f32):
    %e = arith.extf %in0 : f16 to f32
    linalg.yield %e : f32
  } -> tensor<6x2x1x5xf32>
  %cst1 = arith.constant 0 : i64
  %empty13 = tensor.empty() : tensor<6x2x1xi64>
  %fill1 = linalg.fill ins(%cst1 : i64) outs(%empty13 : tensor<6x2x1xi64>) -> tensor<6x2x1xi64>
  %cst2 = arith.constant 0xFF800000 : f32
  %empty14 = tensor.empty() : tensor<6x2x1xf32>
  %fill2 = linalg.fill ins(%cst2 : f32) outs(%empty14 : tensor<6x2x1xf32>) -> tensor<6x2x1xf32>
  %max0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g3 : tensor<6x2x1x5xf32>) outs(%fill2, %fill1 : tensor<6x2x1xf32>, tensor<6x2x1xi64>) {
  ^bb0(%in0: f32, %out: f32, %out_i: i64):
    %i = linalg.index 3 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %in0, %out : f32
    %gt = arith.cmpf ogt, %in0, %out : f32
    %s = arith.select %gt, %i64, %out_i : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<6x2x1xf32>, tensor<6x2x1xi64>)
  %expanded2 = tensor.expand_shape %max0#0 [[0], [1], [2, 3]] output_shape [6, 2, 1, 1] : tensor<6x2x1xf32> into tensor<6x2x1x1xf32>
  %empty15 = tensor.empty() : tensor<6x2x1x5xf32>
  %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g3, %expanded2 : tensor<6x2x1x5xf32>, tensor<6x2x1x1xf32>) outs(%empty15 : tensor<6x2x1x5xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %s = arith.subf %in0, %in1 : f32
    linalg.yield %s : f32
  } -> tensor<6x2x1x5xf32>
  %empty16 = tensor.empty() : tensor<6x2x1x5xf32>
  %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g4 : tensor<6x2x1x5xf32>) outs(%empty16 : tensor<6x2x1x5xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %e = math.exp %in0 : f32
    linalg.yield %e : f32
  } -> tensor<6x2x1x5xf32>
  %cst3 = arith.constant 0.000000e+00 : f32
  %empty17 = tensor.empty() : tensor<6x2x1x1xf32>
  %fill3 = linalg.fill ins(%cst3 : f32) outs(%empty17 : tensor<6x2x1x1xf32>) -> tensor<6x2x1x1xf32>
  %sum0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g5 : tensor<6x2x1x5xf32>) outs(%fill3 : tensor<6x2x1x1xf32>) {
  ^bb0(%in0: f32, %out: f32):
    %s = arith.addf %in0, %out : f32
    linalg.yield %s : f32
  } -> tensor<6x2x1x1xf32>
  %empty18 = tensor.empty() : tensor<6x2x1x5xf32>
  %g6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g5, %sum0 : tensor<6x2x1x5xf32>, tensor<6x2x1x1xf32>) outs(%empty18 : tensor<6x2x1x5xf32>) {
  ^bb0(%in0: f32, %in1: f32, %out: f32):
    %s = arith.divf %in0, %in1 : f32
    linalg.yield %s : f32
  } -> tensor<6x2x1x5xf32>
  %empty19 = tensor.empty() : tensor<6x2x1x5xf16>
  %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g6 : tensor<6x2x1x5xf32>) outs(%empty19 : tensor<6x2x1x5xf16>) {
  ^bb0(%in0: f32, %out: f16):
    %t = arith.truncf %in0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<6x2x1x5xf16>
  %empty20 = tensor.empty() : tensor<6x2x1x5xi1>
  %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<6x2x1x5xf16>) outs(%empty20 : tensor<6x2x1x5xi1>) {
  ^bb0(%in0: f16, %out: i1):
    %q = arith.cmpf oeq, %in0, %ninf_f16 : f16
    linalg.yield %q : i1
  } -> tensor<6x2x1x5xi1>
  %cst4 = arith.constant true
  %empty21 = tensor.empty() : tensor<6x2x1x1xi1>
  %fill4 = linalg.fill ins(%cst4 : i1) outs(%empty21 : tensor<6x2x1x1xi1>) -> tensor<6x2x1x1xi1>
  %all0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g8 : tensor<6x2x1x5xi1>) outs(%fill4 : tensor<6x2x1x1xi1>) {
  ^bb0(%in0: i1, %out: i1):
    %s = arith.andi %in0, %out : i1
    linalg.yield %s : i1
  } -> tensor<6x2x1x1xi1>
  %empty22 = tensor.empty() : tensor<6x2x1x5xf16>
  %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%all0, %zero_f16_0d, %g7 : tensor<6x2x1x1xi1>, tensor<f16>, tensor<6x2x1x5xf16>) outs(%empty22 : tensor<6x2x1x5xf16>) {
  ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
    %s = arith.select %in0, %in1, %in2 : f16
    linalg.yield %s : f16
  } -> tensor<6x2x1x5xf16>
  %empty23 = tensor.empty() : tensor<6x2x5x4xf16>
  %transposed2 = linalg.transpose ins(%gathered1 : tensor<6x5x2x4xf16>) outs(%empty23 : tensor<6x2x5x4xf16>) permutation = [0, 2, 1, 3]
  %collapsed2 = tensor.collapse_shape %g9 [[0, 1], [2], [3]] : tensor<6x2x1x5xf16> into tensor<12x1x5xf16>
  %collapsed3 = tensor.collapse_shape %transposed2 [[0, 1], [2], [3]] : tensor<6x2x5x4xf16> into tensor<12x5x4xf16>
  %cst5 = arith.constant 0.000000e+00 : f32
  %empty24 = tensor.empty() : tensor<12x1x4xf32>
  %fill5 = linalg.fill ins(%cst5 : f32) outs(%empty24 : tensor<12x1x4xf32>) -> tensor<12x1x4xf32>
  %bmm1 = linalg.batch_matmul ins(%collapsed2, %collapsed3 : tensor<12x1x5xf16>, tensor<12x5x4xf16>) outs(%fill5 : tensor<12x1x4xf32>) -> tensor<12x1x4xf32>
  %empty25 = tensor.empty() : tensor<12x1x4xf16>
  %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm1 : tensor<12x1x4xf32>) outs(%empty25 : tensor<12x1x4xf16>) {
  ^bb0(%in0: f32, %out: f16):
    %t = arith.truncf %in0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<12x1x4xf16>
  %expanded3 = tensor.expand_shape %g10 [[0, 1], [2], [3]] output_shape [6, 2, 1, 4] : tensor<12x1x4xf16> into tensor<6x2x1x4xf16>
  %empty26 = tensor.empty() : tensor<6x1x2x4xf16>
  %transposed3 = linalg.transpose ins(%expanded3 : tensor<6x2x1x4xf16>) outs(%empty26 : tensor<6x1x2x4xf16>) permutation = [0, 2, 1, 3]
  return %transposed3 : tensor<6x1x2x4xf16>
}

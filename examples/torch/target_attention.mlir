// Target attention over the user's behaviour history, in the form
// torch-mlir's FX importer gives it (linalg-on-tensors, after
// torch-backend-to-linalg-on-tensors-backend-pipeline):
//
//   def forward(self, q, user_k, user_v, cand_to_user):
//       k = user_k[cand_to_user]            # [24, 32, 2, 16] per candidate
//       v = user_v[cand_to_user]
//       o = F.scaled_dot_product_attention(
//           q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
//       return o.transpose(1, 2)             # [24, 4, 2, 16]
//
// 24 candidates (6 per user) attend with 4 query rows to their user's 32
// events, 2 heads of dim 16. SDPA arrives decomposed: q and k^T each scaled
// by sqrt(1/sqrt(16)) = 0.5, q @ k^T as a batch_matmul over B*H = 48, the
// softmax of _safe_softmax (a max generic with its dead argmax, sub, exp, a
// keepdim sum, div, and the guard that zeroes rows of all -inf), then the
// product with v. The two transposes the CPU flash decomposition puts
// around its output cancelled in torch-mlir's canonicalizer.
//
// emb-raise makes it one emb.attention on emb.broadcast keys and values;
// emb-ikbo then reads each user's keys in place (emb.ikbo_attention). The
// wrap of negative ids that x[idx] adds stays, on the 24 ids alone.
// emb-run inputs: data data data index<4
#gather = affine_map<(d0, d1, d2, d3) -> (d0)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#red = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#scalar = affine_map<(d0, d1, d2, d3) -> ()>
func.func @target_attention(%q: tensor<24x4x2x16xf32>, %user_k: tensor<4x32x2x16xf32>, %user_v: tensor<4x32x2x16xf32>, %cand_to_user: tensor<24xi64>) -> tensor<24x4x2x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 5.000000e-01 : f32
  %cst_1 = arith.constant 0xFF800000 : f32
  %c0_i64 = arith.constant 0 : i64
  %c4_i64 = arith.constant 4 : i64
  %true = arith.constant true
  %cst_2 = arith.constant dense<0.000000e+00> : tensor<f32>
  %0 = tensor.empty() : tensor<24x32x2x16xf32>
  %1 = linalg.generic {indexing_maps = [#gather, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<24xi64>) outs(%0 : tensor<24x32x2x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %40 = arith.cmpi slt, %in, %c0_i64 : i64
    %41 = arith.addi %in, %c4_i64 : i64
    %42 = arith.select %40, %41, %in : i64
    %43 = arith.index_cast %42 : i64 to index
    %44 = linalg.index 1 : index
    %45 = linalg.index 2 : index
    %46 = linalg.index 3 : index
    %extracted = tensor.extract %user_k[%43, %44, %45, %46] : tensor<4x32x2x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<24x32x2x16xf32>
  %2 = linalg.generic {indexing_maps = [#gather, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<24xi64>) outs(%0 : tensor<24x32x2x16xf32>) {
  ^bb0(%in: i64, %out: f32):
    %40 = arith.cmpi slt, %in, %c0_i64 : i64
    %41 = arith.addi %in, %c4_i64 : i64
    %42 = arith.select %40, %41, %in : i64
    %43 = arith.index_cast %42 : i64 to index
    %44 = linalg.index 1 : index
    %45 = linalg.index 2 : index
    %46 = linalg.index 3 : index
    %extracted = tensor.extract %user_v[%43, %44, %45, %46] : tensor<4x32x2x16xf32>
    linalg.yield %extracted : f32
  } -> tensor<24x32x2x16xf32>
  %3 = tensor.empty() : tensor<24x2x4x16xf32>
  %transposed = linalg.transpose ins(%q : tensor<24x4x2x16xf32>) outs(%3 : tensor<24x2x4x16xf32>) permutation = [0, 2, 1, 3]
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed : tensor<24x2x4x16xf32>) outs(%3 : tensor<24x2x4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %40 = arith.mulf %in, %cst_0 : f32
    linalg.yield %40 : f32
  } -> tensor<24x2x4x16xf32>
  %5 = tensor.empty() : tensor<24x2x16x32xf32>
  %transposed_3 = linalg.transpose ins(%1 : tensor<24x32x2x16xf32>) outs(%5 : tensor<24x2x16x32xf32>) permutation = [0, 2, 3, 1]
  %6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_3 : tensor<24x2x16x32xf32>) outs(%5 : tensor<24x2x16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %40 = arith.mulf %in, %cst_0 : f32
    linalg.yield %40 : f32
  } -> tensor<24x2x16x32xf32>
  %collapsed = tensor.collapse_shape %4 [[0, 1], [2], [3]] : tensor<24x2x4x16xf32> into tensor<48x4x16xf32>
  %collapsed_4 = tensor.collapse_shape %6 [[0, 1], [2], [3]] : tensor<24x2x16x32xf32> into tensor<48x16x32xf32>
  %7 = tensor.empty() : tensor<48x4x32xf32>
  %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<48x4x32xf32>) -> tensor<48x4x32xf32>
  %9 = linalg.batch_matmul ins(%collapsed, %collapsed_4 : tensor<48x4x16xf32>, tensor<48x16x32xf32>) outs(%8 : tensor<48x4x32xf32>) -> tensor<48x4x32xf32>
  %expanded = tensor.expand_shape %9 [[0, 1], [2], [3]] output_shape [24, 2, 4, 32] : tensor<48x4x32xf32> into tensor<24x2x4x32xf32>
  %10 = tensor.empty() : tensor<24x2x4xi64>
  %11 = linalg.fill ins(%c0_i64 : i64) outs(%10 : tensor<24x2x4xi64>) -> tensor<24x2x4xi64>
  %12 = tensor.empty() : tensor<24x2x4xf32>
  %13 = linalg.fill ins(%cst_1 : f32) outs(%12 : tensor<24x2x4xf32>) -> tensor<24x2x4xf32>
  %14:2 = linalg.generic {indexing_maps = [#id, #red, #red], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%expanded : tensor<24x2x4x32xf32>) outs(%13, %11 : tensor<24x2x4xf32>, tensor<24x2x4xi64>) {
  ^bb0(%in: f32, %out: f32, %out_5: i64):
    %40 = linalg.index 3 : index
    %41 = arith.index_cast %40 : index to i64
    %42 = arith.maximumf %in, %out : f32
    %43 = arith.cmpf ogt, %in, %out : f32
    %44 = arith.select %43, %41, %out_5 : i64
    linalg.yield %42, %44 : f32, i64
  } -> (tensor<24x2x4xf32>, tensor<24x2x4xi64>)
  %expanded_6 = tensor.expand_shape %14#0 [[0], [1], [2, 3]] output_shape [24, 2, 4, 1] : tensor<24x2x4xf32> into tensor<24x2x4x1xf32>
  %15 = tensor.empty() : tensor<24x2x4x32xf32>
  %16 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_6 : tensor<24x2x4x32xf32>, tensor<24x2x4x1xf32>) outs(%15 : tensor<24x2x4x32xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %40 = arith.subf %in, %in_7 : f32
    linalg.yield %40 : f32
  } -> tensor<24x2x4x32xf32>
  %17 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16 : tensor<24x2x4x32xf32>) outs(%15 : tensor<24x2x4x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %40 = math.exp %in : f32
    linalg.yield %40 : f32
  } -> tensor<24x2x4x32xf32>
  %18 = tensor.empty() : tensor<24x2x4x1xf32>
  %19 = linalg.fill ins(%cst : f32) outs(%18 : tensor<24x2x4x1xf32>) -> tensor<24x2x4x1xf32>
  %20 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%17 : tensor<24x2x4x32xf32>) outs(%19 : tensor<24x2x4x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %40 = arith.addf %in, %out : f32
    linalg.yield %40 : f32
  } -> tensor<24x2x4x1xf32>
  %21 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %20 : tensor<24x2x4x32xf32>, tensor<24x2x4x1xf32>) outs(%15 : tensor<24x2x4x32xf32>) {
  ^bb0(%in: f32, %in_7: f32, %out: f32):
    %40 = arith.divf %in, %in_7 : f32
    linalg.yield %40 : f32
  } -> tensor<24x2x4x32xf32>
  %22 = tensor.empty() : tensor<24x2x4x32xi1>
  %23 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<24x2x4x32xf32>) outs(%22 : tensor<24x2x4x32xi1>) {
  ^bb0(%in: f32, %out: i1):
    %40 = arith.cmpf oeq, %in, %cst_1 : f32
    linalg.yield %40 : i1
  } -> tensor<24x2x4x32xi1>
  %24 = tensor.empty() : tensor<24x2x4x1xi1>
  %25 = linalg.fill ins(%true : i1) outs(%24 : tensor<24x2x4x1xi1>) -> tensor<24x2x4x1xi1>
  %26 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%23 : tensor<24x2x4x32xi1>) outs(%25 : tensor<24x2x4x1xi1>) {
  ^bb0(%in: i1, %out: i1):
    %40 = arith.andi %in, %out : i1
    linalg.yield %40 : i1
  } -> tensor<24x2x4x1xi1>
  %27 = linalg.generic {indexing_maps = [#row, #scalar, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26, %cst_2, %21 : tensor<24x2x4x1xi1>, tensor<f32>, tensor<24x2x4x32xf32>) outs(%15 : tensor<24x2x4x32xf32>) {
  ^bb0(%in: i1, %in_7: f32, %in_8: f32, %out: f32):
    %40 = arith.select %in, %in_7, %in_8 : f32
    linalg.yield %40 : f32
  } -> tensor<24x2x4x32xf32>
  %collapsed_9 = tensor.collapse_shape %27 [[0, 1], [2], [3]] : tensor<24x2x4x32xf32> into tensor<48x4x32xf32>
  %28 = tensor.empty() : tensor<24x2x32x16xf32>
  %transposed_10 = linalg.transpose ins(%2 : tensor<24x32x2x16xf32>) outs(%28 : tensor<24x2x32x16xf32>) permutation = [0, 2, 1, 3]
  %collapsed_11 = tensor.collapse_shape %transposed_10 [[0, 1], [2], [3]] : tensor<24x2x32x16xf32> into tensor<48x32x16xf32>
  %29 = tensor.empty() : tensor<48x4x16xf32>
  %30 = linalg.fill ins(%cst : f32) outs(%29 : tensor<48x4x16xf32>) -> tensor<48x4x16xf32>
  %31 = linalg.batch_matmul ins(%collapsed_9, %collapsed_11 : tensor<48x4x32xf32>, tensor<48x32x16xf32>) outs(%30 : tensor<48x4x16xf32>) -> tensor<48x4x16xf32>
  %expanded_12 = tensor.expand_shape %31 [[0, 1], [2], [3]] output_shape [24, 2, 4, 16] : tensor<48x4x16xf32> into tensor<24x2x4x16xf32>
  %32 = tensor.empty() : tensor<24x4x2x16xf32>
  %transposed_13 = linalg.transpose ins(%expanded_12 : tensor<24x2x4x16xf32>) outs(%32 : tensor<24x4x2x16xf32>) permutation = [0, 2, 1, 3]
  return %transposed_13 : tensor<24x4x2x16xf32>
}

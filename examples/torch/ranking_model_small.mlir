// The end-to-end ranking model of issue 13 (small shapes), in the form
// torch-mlir's linalg-on-tensors output takes (written by
// bench/e2e/ranking_model.py --shape small; do not edit by hand). One
// request: U = 4 users, B = 12 candidates (3 a user, sorted by user),
// f16 weights and activations, f32 accumulation.
//
//   def forward(self, user_tables, user_ids, user_offsets,    # 3 features
//               cand_tables, cand_ids, cand_offsets,          # 3 features
//               seq_table, seq_ids, seq_offsets, cand_to_user,
//               w_q, w_k, w_v, w_lce, w_1, b_1, w_2, b_2, w_3, b_3):
//       u = [F.embedding_bag(i, t, o, mode="sum")              # [U, D] each,
//            for t, i, o in zip(user_tables, user_ids, user_offsets)]  # 3 ids a bag
//       c = [F.embedding_bag(i, t, o, mode="sum")              # [B, D] each,
//            for t, i, o in zip(cand_tables, cand_ids, cand_offsets)]  # 2 ids a bag
//       seq = F.embedding(seq_ids, seq_table)                  # [N, D], N ids
//       padded, lengths = jagged_to_padded(seq, seq_offsets, 6)  # [U, Lk, D]
//       k = F.linear(padded, w_k).view(U, 6, 2, 8)
//       v = F.linear(padded, w_v).view(U, 6, 2, 8)
//       q = F.linear(c[0], w_q).view(B, 1, 2, 8)
//       key_mask = torch.arange(6) < lengths.unsqueeze(1)     # [U, Lk]
//       o = F.scaled_dot_product_attention(
//           q.transpose(1, 2),
//           k.index_select(0, cand_to_user).transpose(1, 2),
//           v.index_select(0, cand_to_user).transpose(1, 2),
//           attn_mask=key_mask.index_select(0, cand_to_user)[:, None, None, :])
//       att = o.transpose(1, 2).reshape(B, 2, 8)        # H rows of D
//       x = torch.cat([torch.stack(u, 1).index_select(0, cand_to_user),
//                      torch.stack(c, 1), att], 1)             # [B, 8, D]
//       z = torch.matmul(w_lce, x).flatten(1)                  # [B, 4 * 8]
//       h = F.relu(F.linear(z, w_1, b_1))
//       h = F.relu(F.linear(h, w_2, b_2))
//       return torch.sigmoid(F.linear(h, w_3, b_3))            # [B, 1]
//
// jagged_to_padded is FBGEMM's jagged_to_padded_dense with lengths =
// offsets.diff() clamped to Lk; it has no torch-mlir lowering, and the
// exporter writes emb.jagged_to_padded for it. Tables: 50 rows of D = 8
// (40 for the history); history lengths 0..8 in the benchmark inputs.
// emb-raise, emb-ikbo and emb-batch-tables make of it two emb.tbe (user and
// candidate batch), the history's lookup and jagged_to_padded, one
// emb.ikbo_attention (masked by the lengths), one emb.ikbo_lce and the
// GEMMs of the projections and the MLP (docs/benchmarks.md, "End to end:
// the ranking model").
// emb-run inputs: data ids<50 offsets<1 data ids<50 offsets<4 data ids<50 offsets<7 data ids<50 offsets<10 data ids<50 offsets<13 data ids<50 offsets<16 data ids<40 jagged<19,0,8 index<4 weight<8 weight<8 weight<8 weight<8 weight<32 weight<32 weight<16 weight<16 weight<8 weight<8

module {
  func.func @ranking_model(%user_table_0: tensor<50x8xf16>, %user_ids_0: tensor<12xi64>, %user_offsets_0: tensor<4xi64>, %user_table_1: tensor<50x8xf16>, %user_ids_1: tensor<12xi64>, %user_offsets_1: tensor<4xi64>, %user_table_2: tensor<50x8xf16>, %user_ids_2: tensor<12xi64>, %user_offsets_2: tensor<4xi64>, %cand_table_0: tensor<50x8xf16>, %cand_ids_0: tensor<24xi64>, %cand_offsets_0: tensor<12xi64>, %cand_table_1: tensor<50x8xf16>, %cand_ids_1: tensor<24xi64>, %cand_offsets_1: tensor<12xi64>, %cand_table_2: tensor<50x8xf16>, %cand_ids_2: tensor<24xi64>, %cand_offsets_2: tensor<12xi64>, %seq_table: tensor<40x8xf16>, %seq_ids: tensor<?xi64>, %seq_offsets: tensor<5xi64>, %cand_to_user: tensor<12xi64>, %w_q: tensor<16x8xf16>, %w_k: tensor<16x8xf16>, %w_v: tensor<16x8xf16>, %w_lce: tensor<4x8xf16>, %w_1: tensor<16x32xf16>, %b_1: tensor<16xf16>, %w_2: tensor<8x16xf16>, %b_2: tensor<8xf16>, %w_3: tensor<1x8xf16>, %b_3: tensor<1xf16>) -> tensor<12x1xf16> {
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c4_i64 = arith.constant 4 : i64
    %c12_i64 = arith.constant 12 : i64
    %c24_i64 = arith.constant 24 : i64
    %c40 = arith.constant 40 : index
    %cst_f16 = arith.constant 0.000000e+00 : f16
    %one_f16 = arith.constant 1.000000e+00 : f16
    %ninf_f16 = arith.constant 0xFC00 : f16
    %sqrt_scale = arith.constant 5.946036e-01 : f16
    %zero_f16_0d = arith.constant dense<0.000000e+00> : tensor<f16>
    %ninf_f16_0d = arith.constant dense<0xFC00> : tensor<f16>
    %cst0 = arith.constant 0.000000e+00 : f16
    %empty0 = tensor.empty() : tensor<4x8xf16>
    %fill0 = linalg.fill ins(%cst0 : f16) outs(%empty0 : tensor<4x8xf16>) -> tensor<4x8xf16>
    %bag0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_0, %user_offsets_0 : tensor<12xi64>, tensor<4xi64>) outs(%fill0 : tensor<4x8xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c4_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_0[%safe] : tensor<4xi64>
      %end = arith.select %is_last, %c12_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_0[%row, %col] : tensor<50x8xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<4x8xf16>
    %cst1 = arith.constant 0.000000e+00 : f16
    %empty1 = tensor.empty() : tensor<4x8xf16>
    %fill1 = linalg.fill ins(%cst1 : f16) outs(%empty1 : tensor<4x8xf16>) -> tensor<4x8xf16>
    %bag1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_1, %user_offsets_1 : tensor<12xi64>, tensor<4xi64>) outs(%fill1 : tensor<4x8xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c4_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_1[%safe] : tensor<4xi64>
      %end = arith.select %is_last, %c12_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_1[%row, %col] : tensor<50x8xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<4x8xf16>
    %cst2 = arith.constant 0.000000e+00 : f16
    %empty2 = tensor.empty() : tensor<4x8xf16>
    %fill2 = linalg.fill ins(%cst2 : f16) outs(%empty2 : tensor<4x8xf16>) -> tensor<4x8xf16>
    %bag2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_2, %user_offsets_2 : tensor<12xi64>, tensor<4xi64>) outs(%fill2 : tensor<4x8xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c4_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_2[%safe] : tensor<4xi64>
      %end = arith.select %is_last, %c12_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_2[%row, %col] : tensor<50x8xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<4x8xf16>
    %cst3 = arith.constant 0.000000e+00 : f16
    %empty3 = tensor.empty() : tensor<12x8xf16>
    %fill3 = linalg.fill ins(%cst3 : f16) outs(%empty3 : tensor<12x8xf16>) -> tensor<12x8xf16>
    %bag3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_0, %cand_offsets_0 : tensor<24xi64>, tensor<12xi64>) outs(%fill3 : tensor<12x8xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c12_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_0[%safe] : tensor<12xi64>
      %end = arith.select %is_last, %c24_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_0[%row, %col] : tensor<50x8xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<12x8xf16>
    %cst4 = arith.constant 0.000000e+00 : f16
    %empty4 = tensor.empty() : tensor<12x8xf16>
    %fill4 = linalg.fill ins(%cst4 : f16) outs(%empty4 : tensor<12x8xf16>) -> tensor<12x8xf16>
    %bag4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_1, %cand_offsets_1 : tensor<24xi64>, tensor<12xi64>) outs(%fill4 : tensor<12x8xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c12_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_1[%safe] : tensor<12xi64>
      %end = arith.select %is_last, %c24_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_1[%row, %col] : tensor<50x8xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<12x8xf16>
    %cst5 = arith.constant 0.000000e+00 : f16
    %empty5 = tensor.empty() : tensor<12x8xf16>
    %fill5 = linalg.fill ins(%cst5 : f16) outs(%empty5 : tensor<12x8xf16>) -> tensor<12x8xf16>
    %bag5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_2, %cand_offsets_2 : tensor<24xi64>, tensor<12xi64>) outs(%fill5 : tensor<12x8xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c12_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_2[%safe] : tensor<12xi64>
      %end = arith.select %is_last, %c24_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_2[%row, %col] : tensor<50x8xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<12x8xf16>
    %n0 = tensor.dim %seq_ids, %c0 : tensor<?xi64>
    %empty6 = tensor.empty(%n0) : tensor<?x8xf16>
    %rows0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%seq_ids : tensor<?xi64>) outs(%empty6 : tensor<?x8xf16>) {
    ^bb0(%in0: i64, %out: f16):
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 1 : index
      %lt = arith.cmpi slt, %row, %c40 : index
      cf.assert %lt, "index must be smaller than dim size"
      %ge = arith.cmpi sge, %in0, %c0_i64 : i64
      cf.assert %ge, "index must be larger or equal to 0"
      %x = tensor.extract %seq_table[%row, %col] : tensor<40x8xf16>
      linalg.yield %x : f16
    } -> tensor<?x8xf16>
    %padded0, %lengths0 = "emb.jagged_to_padded"(%rows0, %seq_offsets) {max_length = 6 : i64} : (tensor<?x8xf16>, tensor<5xi64>) -> (tensor<4x6x8xf16>, tensor<4xi64>)
    %collapsed0 = tensor.collapse_shape %padded0 [[0, 1], [2]] : tensor<4x6x8xf16> into tensor<24x8xf16>
    %empty7 = tensor.empty() : tensor<8x16xf16>
    %transposed0 = linalg.transpose ins(%w_k : tensor<16x8xf16>) outs(%empty7 : tensor<8x16xf16>) permutation = [1, 0]
    %cst6 = arith.constant 0.000000e+00 : f32
    %empty8 = tensor.empty() : tensor<24x16xf32>
    %fill6 = linalg.fill ins(%cst6 : f32) outs(%empty8 : tensor<24x16xf32>) -> tensor<24x16xf32>
    %mm0 = linalg.matmul ins(%collapsed0, %transposed0 : tensor<24x8xf16>, tensor<8x16xf16>) outs(%fill6 : tensor<24x16xf32>) -> tensor<24x16xf32>
    %empty9 = tensor.empty() : tensor<24x16xf16>
    %g0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm0 : tensor<24x16xf32>) outs(%empty9 : tensor<24x16xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<24x16xf16>
    %expanded0 = tensor.expand_shape %g0 [[0, 1], [2, 3]] output_shape [4, 6, 2, 8] : tensor<24x16xf16> into tensor<4x6x2x8xf16>
    %empty10 = tensor.empty() : tensor<8x16xf16>
    %transposed1 = linalg.transpose ins(%w_v : tensor<16x8xf16>) outs(%empty10 : tensor<8x16xf16>) permutation = [1, 0]
    %cst7 = arith.constant 0.000000e+00 : f32
    %empty11 = tensor.empty() : tensor<24x16xf32>
    %fill7 = linalg.fill ins(%cst7 : f32) outs(%empty11 : tensor<24x16xf32>) -> tensor<24x16xf32>
    %mm1 = linalg.matmul ins(%collapsed0, %transposed1 : tensor<24x8xf16>, tensor<8x16xf16>) outs(%fill7 : tensor<24x16xf32>) -> tensor<24x16xf32>
    %empty12 = tensor.empty() : tensor<24x16xf16>
    %g1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm1 : tensor<24x16xf32>) outs(%empty12 : tensor<24x16xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<24x16xf16>
    %expanded1 = tensor.expand_shape %g1 [[0, 1], [2, 3]] output_shape [4, 6, 2, 8] : tensor<24x16xf16> into tensor<4x6x2x8xf16>
    %empty13 = tensor.empty() : tensor<8x16xf16>
    %transposed2 = linalg.transpose ins(%w_q : tensor<16x8xf16>) outs(%empty13 : tensor<8x16xf16>) permutation = [1, 0]
    %cst8 = arith.constant 0.000000e+00 : f32
    %empty14 = tensor.empty() : tensor<12x16xf32>
    %fill8 = linalg.fill ins(%cst8 : f32) outs(%empty14 : tensor<12x16xf32>) -> tensor<12x16xf32>
    %mm2 = linalg.matmul ins(%bag3, %transposed2 : tensor<12x8xf16>, tensor<8x16xf16>) outs(%fill8 : tensor<12x16xf32>) -> tensor<12x16xf32>
    %empty15 = tensor.empty() : tensor<12x16xf16>
    %g2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm2 : tensor<12x16xf32>) outs(%empty15 : tensor<12x16xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<12x16xf16>
    %expanded2 = tensor.expand_shape %g2 [[0, 1], [2, 3]] output_shape [12, 1, 2, 8] : tensor<12x16xf16> into tensor<12x1x2x8xf16>
    %empty16 = tensor.empty() : tensor<6xi64>
    %arange0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%empty16 : tensor<6xi64>) {
    ^bb0(%out: i64):
      %i = linalg.index 0 : index
      %i64 = arith.index_cast %i : index to i64
      linalg.yield %i64 : i64
    } -> tensor<6xi64>
    %expanded3 = tensor.expand_shape %lengths0 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %empty17 = tensor.empty() : tensor<4x6xi1>
    %key_mask0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arange0, %expanded3 : tensor<6xi64>, tensor<4x1xi64>) outs(%empty17 : tensor<4x6xi1>) {
    ^bb0(%in0: i64, %in1: i64, %out: i1):
      %lt = arith.cmpi slt, %in0, %in1 : i64
      linalg.yield %lt : i1
    } -> tensor<4x6xi1>
    %empty18 = tensor.empty() : tensor<12x6xi1>
    %gathered0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cand_to_user : tensor<12xi64>) outs(%empty18 : tensor<12x6xi1>) {
    ^bb0(%in0: i64, %out: i1):
      %u = arith.index_cast %in0 : i64 to index
      %i1 = linalg.index 1 : index
      %x = tensor.extract %key_mask0[%u, %i1] : tensor<4x6xi1>
      linalg.yield %x : i1
    } -> tensor<12x6xi1>
    %expanded4 = tensor.expand_shape %gathered0 [[0, 1, 2], [3]] output_shape [12, 1, 1, 6] : tensor<12x6xi1> into tensor<12x1x1x6xi1>
    %empty19 = tensor.empty() : tensor<12x6x2x8xf16>
    %gathered1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<12xi64>) outs(%empty19 : tensor<12x6x2x8xf16>) {
    ^bb0(%in0: i64, %out: f16):
      %u = arith.index_cast %in0 : i64 to index
      %i1 = linalg.index 1 : index
      %i2 = linalg.index 2 : index
      %i3 = linalg.index 3 : index
      %x = tensor.extract %expanded0[%u, %i1, %i2, %i3] : tensor<4x6x2x8xf16>
      linalg.yield %x : f16
    } -> tensor<12x6x2x8xf16>
    %empty20 = tensor.empty() : tensor<12x6x2x8xf16>
    %gathered2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<12xi64>) outs(%empty20 : tensor<12x6x2x8xf16>) {
    ^bb0(%in0: i64, %out: f16):
      %u = arith.index_cast %in0 : i64 to index
      %i1 = linalg.index 1 : index
      %i2 = linalg.index 2 : index
      %i3 = linalg.index 3 : index
      %x = tensor.extract %expanded1[%u, %i1, %i2, %i3] : tensor<4x6x2x8xf16>
      linalg.yield %x : f16
    } -> tensor<12x6x2x8xf16>
    %empty21 = tensor.empty() : tensor<12x2x1x8xf16>
    %transposed3 = linalg.transpose ins(%expanded2 : tensor<12x1x2x8xf16>) outs(%empty21 : tensor<12x2x1x8xf16>) permutation = [0, 2, 1, 3]
    %empty22 = tensor.empty() : tensor<12x2x1x8xf16>
    %g3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed3 : tensor<12x2x1x8xf16>) outs(%empty22 : tensor<12x2x1x8xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %m = arith.mulf %in0, %sqrt_scale : f16
      linalg.yield %m : f16
    } -> tensor<12x2x1x8xf16>
    %empty23 = tensor.empty() : tensor<12x1x1x6xf16>
    %attn_bias0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded4, %zero_f16_0d, %ninf_f16_0d : tensor<12x1x1x6xi1>, tensor<f16>, tensor<f16>) outs(%empty23 : tensor<12x1x1x6xf16>) {
    ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
      %s = arith.select %in0, %in1, %in2 : f16
      linalg.yield %s : f16
    } -> tensor<12x1x1x6xf16>
    %empty24 = tensor.empty() : tensor<12x2x8x6xf16>
    %transposed4 = linalg.transpose ins(%gathered1 : tensor<12x6x2x8xf16>) outs(%empty24 : tensor<12x2x8x6xf16>) permutation = [0, 2, 3, 1]
    %empty25 = tensor.empty() : tensor<12x2x8x6xf16>
    %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed4 : tensor<12x2x8x6xf16>) outs(%empty25 : tensor<12x2x8x6xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %m = arith.mulf %in0, %sqrt_scale : f16
      linalg.yield %m : f16
    } -> tensor<12x2x8x6xf16>
    %collapsed1 = tensor.collapse_shape %g3 [[0, 1], [2], [3]] : tensor<12x2x1x8xf16> into tensor<24x1x8xf16>
    %collapsed2 = tensor.collapse_shape %g4 [[0, 1], [2], [3]] : tensor<12x2x8x6xf16> into tensor<24x8x6xf16>
    %cst9 = arith.constant 0.000000e+00 : f32
    %empty26 = tensor.empty() : tensor<24x1x6xf32>
    %fill9 = linalg.fill ins(%cst9 : f32) outs(%empty26 : tensor<24x1x6xf32>) -> tensor<24x1x6xf32>
    %bmm0 = linalg.batch_matmul ins(%collapsed1, %collapsed2 : tensor<24x1x8xf16>, tensor<24x8x6xf16>) outs(%fill9 : tensor<24x1x6xf32>) -> tensor<24x1x6xf32>
    %empty27 = tensor.empty() : tensor<24x1x6xf16>
    %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm0 : tensor<24x1x6xf32>) outs(%empty27 : tensor<24x1x6xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<24x1x6xf16>
    %expanded5 = tensor.expand_shape %g5 [[0, 1], [2], [3]] output_shape [12, 2, 1, 6] : tensor<24x1x6xf16> into tensor<12x2x1x6xf16>
    %empty28 = tensor.empty() : tensor<12x2x1x6xf16>
    %masked0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded5, %attn_bias0 : tensor<12x2x1x6xf16>, tensor<12x1x1x6xf16>) outs(%empty28 : tensor<12x2x1x6xf16>) {
    ^bb0(%in0: f16, %in1: f16, %out: f16):
      %s = arith.addf %in0, %in1 : f16
      linalg.yield %s : f16
    } -> tensor<12x2x1x6xf16>
    %empty29 = tensor.empty() : tensor<12x2x1x6xf32>
    %g6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<12x2x1x6xf16>) outs(%empty29 : tensor<12x2x1x6xf32>) {
    ^bb0(%in0: f16, %out: f32):
      %e = arith.extf %in0 : f16 to f32
      linalg.yield %e : f32
    } -> tensor<12x2x1x6xf32>
    %cst10 = arith.constant 0 : i64
    %empty30 = tensor.empty() : tensor<12x2x1xi64>
    %fill10 = linalg.fill ins(%cst10 : i64) outs(%empty30 : tensor<12x2x1xi64>) -> tensor<12x2x1xi64>
    %cst11 = arith.constant 0xFF800000 : f32
    %empty31 = tensor.empty() : tensor<12x2x1xf32>
    %fill11 = linalg.fill ins(%cst11 : f32) outs(%empty31 : tensor<12x2x1xf32>) -> tensor<12x2x1xf32>
    %max0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g6 : tensor<12x2x1x6xf32>) outs(%fill11, %fill10 : tensor<12x2x1xf32>, tensor<12x2x1xi64>) {
    ^bb0(%in0: f32, %out: f32, %out_i: i64):
      %i = linalg.index 3 : index
      %i64 = arith.index_cast %i : index to i64
      %m = arith.maximumf %in0, %out : f32
      %gt = arith.cmpf ogt, %in0, %out : f32
      %s = arith.select %gt, %i64, %out_i : i64
      linalg.yield %m, %s : f32, i64
    } -> (tensor<12x2x1xf32>, tensor<12x2x1xi64>)
    %expanded6 = tensor.expand_shape %max0#0 [[0], [1], [2, 3]] output_shape [12, 2, 1, 1] : tensor<12x2x1xf32> into tensor<12x2x1x1xf32>
    %empty32 = tensor.empty() : tensor<12x2x1x6xf32>
    %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g6, %expanded6 : tensor<12x2x1x6xf32>, tensor<12x2x1x1xf32>) outs(%empty32 : tensor<12x2x1x6xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %s = arith.subf %in0, %in1 : f32
      linalg.yield %s : f32
    } -> tensor<12x2x1x6xf32>
    %empty33 = tensor.empty() : tensor<12x2x1x6xf32>
    %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g7 : tensor<12x2x1x6xf32>) outs(%empty33 : tensor<12x2x1x6xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %e = math.exp %in0 : f32
      linalg.yield %e : f32
    } -> tensor<12x2x1x6xf32>
    %cst12 = arith.constant 0.000000e+00 : f32
    %empty34 = tensor.empty() : tensor<12x2x1x1xf32>
    %fill12 = linalg.fill ins(%cst12 : f32) outs(%empty34 : tensor<12x2x1x1xf32>) -> tensor<12x2x1x1xf32>
    %sum0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g8 : tensor<12x2x1x6xf32>) outs(%fill12 : tensor<12x2x1x1xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %s = arith.addf %in0, %out : f32
      linalg.yield %s : f32
    } -> tensor<12x2x1x1xf32>
    %empty35 = tensor.empty() : tensor<12x2x1x6xf32>
    %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g8, %sum0 : tensor<12x2x1x6xf32>, tensor<12x2x1x1xf32>) outs(%empty35 : tensor<12x2x1x6xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %s = arith.divf %in0, %in1 : f32
      linalg.yield %s : f32
    } -> tensor<12x2x1x6xf32>
    %empty36 = tensor.empty() : tensor<12x2x1x6xf16>
    %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g9 : tensor<12x2x1x6xf32>) outs(%empty36 : tensor<12x2x1x6xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<12x2x1x6xf16>
    %empty37 = tensor.empty() : tensor<12x2x1x6xi1>
    %g11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<12x2x1x6xf16>) outs(%empty37 : tensor<12x2x1x6xi1>) {
    ^bb0(%in0: f16, %out: i1):
      %q = arith.cmpf oeq, %in0, %ninf_f16 : f16
      linalg.yield %q : i1
    } -> tensor<12x2x1x6xi1>
    %cst13 = arith.constant true
    %empty38 = tensor.empty() : tensor<12x2x1x1xi1>
    %fill13 = linalg.fill ins(%cst13 : i1) outs(%empty38 : tensor<12x2x1x1xi1>) -> tensor<12x2x1x1xi1>
    %all0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g11 : tensor<12x2x1x6xi1>) outs(%fill13 : tensor<12x2x1x1xi1>) {
    ^bb0(%in0: i1, %out: i1):
      %s = arith.andi %in0, %out : i1
      linalg.yield %s : i1
    } -> tensor<12x2x1x1xi1>
    %empty39 = tensor.empty() : tensor<12x2x1x6xf16>
    %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%all0, %zero_f16_0d, %g10 : tensor<12x2x1x1xi1>, tensor<f16>, tensor<12x2x1x6xf16>) outs(%empty39 : tensor<12x2x1x6xf16>) {
    ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
      %s = arith.select %in0, %in1, %in2 : f16
      linalg.yield %s : f16
    } -> tensor<12x2x1x6xf16>
    %empty40 = tensor.empty() : tensor<12x2x6x8xf16>
    %transposed5 = linalg.transpose ins(%gathered2 : tensor<12x6x2x8xf16>) outs(%empty40 : tensor<12x2x6x8xf16>) permutation = [0, 2, 1, 3]
    %collapsed3 = tensor.collapse_shape %g12 [[0, 1], [2], [3]] : tensor<12x2x1x6xf16> into tensor<24x1x6xf16>
    %collapsed4 = tensor.collapse_shape %transposed5 [[0, 1], [2], [3]] : tensor<12x2x6x8xf16> into tensor<24x6x8xf16>
    %cst14 = arith.constant 0.000000e+00 : f32
    %empty41 = tensor.empty() : tensor<24x1x8xf32>
    %fill14 = linalg.fill ins(%cst14 : f32) outs(%empty41 : tensor<24x1x8xf32>) -> tensor<24x1x8xf32>
    %bmm1 = linalg.batch_matmul ins(%collapsed3, %collapsed4 : tensor<24x1x6xf16>, tensor<24x6x8xf16>) outs(%fill14 : tensor<24x1x8xf32>) -> tensor<24x1x8xf32>
    %empty42 = tensor.empty() : tensor<24x1x8xf16>
    %g13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm1 : tensor<24x1x8xf32>) outs(%empty42 : tensor<24x1x8xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<24x1x8xf16>
    %expanded7 = tensor.expand_shape %g13 [[0, 1], [2], [3]] output_shape [12, 2, 1, 8] : tensor<24x1x8xf16> into tensor<12x2x1x8xf16>
    %empty43 = tensor.empty() : tensor<12x1x2x8xf16>
    %transposed6 = linalg.transpose ins(%expanded7 : tensor<12x2x1x8xf16>) outs(%empty43 : tensor<12x1x2x8xf16>) permutation = [0, 2, 1, 3]
    %collapsed5 = tensor.collapse_shape %transposed6 [[0, 1], [2], [3]] : tensor<12x1x2x8xf16> into tensor<12x2x8xf16>
    %expanded8 = tensor.expand_shape %bag0 [[0], [1, 2]] output_shape [4, 1, 8] : tensor<4x8xf16> into tensor<4x1x8xf16>
    %expanded9 = tensor.expand_shape %bag1 [[0], [1, 2]] output_shape [4, 1, 8] : tensor<4x8xf16> into tensor<4x1x8xf16>
    %expanded10 = tensor.expand_shape %bag2 [[0], [1, 2]] output_shape [4, 1, 8] : tensor<4x8xf16> into tensor<4x1x8xf16>
    %concat0 = tensor.concat dim(1) %expanded8, %expanded9, %expanded10 : (tensor<4x1x8xf16>, tensor<4x1x8xf16>, tensor<4x1x8xf16>) -> tensor<4x3x8xf16>
    %expanded11 = tensor.expand_shape %bag3 [[0], [1, 2]] output_shape [12, 1, 8] : tensor<12x8xf16> into tensor<12x1x8xf16>
    %expanded12 = tensor.expand_shape %bag4 [[0], [1, 2]] output_shape [12, 1, 8] : tensor<12x8xf16> into tensor<12x1x8xf16>
    %expanded13 = tensor.expand_shape %bag5 [[0], [1, 2]] output_shape [12, 1, 8] : tensor<12x8xf16> into tensor<12x1x8xf16>
    %concat1 = tensor.concat dim(1) %expanded11, %expanded12, %expanded13 : (tensor<12x1x8xf16>, tensor<12x1x8xf16>, tensor<12x1x8xf16>) -> tensor<12x3x8xf16>
    %empty44 = tensor.empty() : tensor<12x3x8xf16>
    %gathered3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<12xi64>) outs(%empty44 : tensor<12x3x8xf16>) {
    ^bb0(%in0: i64, %out: f16):
      %u = arith.index_cast %in0 : i64 to index
      %i1 = linalg.index 1 : index
      %i2 = linalg.index 2 : index
      %x = tensor.extract %concat0[%u, %i1, %i2] : tensor<4x3x8xf16>
      linalg.yield %x : f16
    } -> tensor<12x3x8xf16>
    %concat2 = tensor.concat dim(1) %gathered3, %concat1, %collapsed5 : (tensor<12x3x8xf16>, tensor<12x3x8xf16>, tensor<12x2x8xf16>) -> tensor<12x8x8xf16>
    %empty45 = tensor.empty() : tensor<12x4x8xf16>
    %w_rows0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w_lce : tensor<4x8xf16>) outs(%empty45 : tensor<12x4x8xf16>) {
    ^bb0(%in0: f16, %out: f16):
      linalg.yield %in0 : f16
    } -> tensor<12x4x8xf16>
    %cst15 = arith.constant 0.000000e+00 : f32
    %empty46 = tensor.empty() : tensor<12x4x8xf32>
    %fill15 = linalg.fill ins(%cst15 : f32) outs(%empty46 : tensor<12x4x8xf32>) -> tensor<12x4x8xf32>
    %lce0 = linalg.batch_matmul ins(%w_rows0, %concat2 : tensor<12x4x8xf16>, tensor<12x8x8xf16>) outs(%fill15 : tensor<12x4x8xf32>) -> tensor<12x4x8xf32>
    %empty47 = tensor.empty() : tensor<12x4x8xf16>
    %g14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%lce0 : tensor<12x4x8xf32>) outs(%empty47 : tensor<12x4x8xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<12x4x8xf16>
    %collapsed6 = tensor.collapse_shape %g14 [[0], [1, 2]] : tensor<12x4x8xf16> into tensor<12x32xf16>
    %empty48 = tensor.empty() : tensor<32x16xf16>
    %transposed7 = linalg.transpose ins(%w_1 : tensor<16x32xf16>) outs(%empty48 : tensor<32x16xf16>) permutation = [1, 0]
    %cst16 = arith.constant 0.000000e+00 : f32
    %empty49 = tensor.empty() : tensor<12x16xf32>
    %fill16 = linalg.fill ins(%cst16 : f32) outs(%empty49 : tensor<12x16xf32>) -> tensor<12x16xf32>
    %mm3 = linalg.matmul ins(%collapsed6, %transposed7 : tensor<12x32xf16>, tensor<32x16xf16>) outs(%fill16 : tensor<12x16xf32>) -> tensor<12x16xf32>
    %empty50 = tensor.empty() : tensor<12x16xf16>
    %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm3 : tensor<12x16xf32>) outs(%empty50 : tensor<12x16xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<12x16xf16>
    %empty51 = tensor.empty() : tensor<12x16xf16>
    %g16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g15, %b_1 : tensor<12x16xf16>, tensor<16xf16>) outs(%empty51 : tensor<12x16xf16>) {
    ^bb0(%in0: f16, %in1: f16, %out: f16):
      %s = arith.addf %in0, %in1 : f16
      linalg.yield %s : f16
    } -> tensor<12x16xf16>
    %empty52 = tensor.empty() : tensor<12x16xf16>
    %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g16 : tensor<12x16xf16>) outs(%empty52 : tensor<12x16xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %p = arith.cmpf ugt, %in0, %cst_f16 : f16
      %r = arith.select %p, %in0, %cst_f16 : f16
      linalg.yield %r : f16
    } -> tensor<12x16xf16>
    %empty53 = tensor.empty() : tensor<16x8xf16>
    %transposed8 = linalg.transpose ins(%w_2 : tensor<8x16xf16>) outs(%empty53 : tensor<16x8xf16>) permutation = [1, 0]
    %cst17 = arith.constant 0.000000e+00 : f32
    %empty54 = tensor.empty() : tensor<12x8xf32>
    %fill17 = linalg.fill ins(%cst17 : f32) outs(%empty54 : tensor<12x8xf32>) -> tensor<12x8xf32>
    %mm4 = linalg.matmul ins(%g17, %transposed8 : tensor<12x16xf16>, tensor<16x8xf16>) outs(%fill17 : tensor<12x8xf32>) -> tensor<12x8xf32>
    %empty55 = tensor.empty() : tensor<12x8xf16>
    %g18 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm4 : tensor<12x8xf32>) outs(%empty55 : tensor<12x8xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<12x8xf16>
    %empty56 = tensor.empty() : tensor<12x8xf16>
    %g19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g18, %b_2 : tensor<12x8xf16>, tensor<8xf16>) outs(%empty56 : tensor<12x8xf16>) {
    ^bb0(%in0: f16, %in1: f16, %out: f16):
      %s = arith.addf %in0, %in1 : f16
      linalg.yield %s : f16
    } -> tensor<12x8xf16>
    %empty57 = tensor.empty() : tensor<12x8xf16>
    %g20 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g19 : tensor<12x8xf16>) outs(%empty57 : tensor<12x8xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %p = arith.cmpf ugt, %in0, %cst_f16 : f16
      %r = arith.select %p, %in0, %cst_f16 : f16
      linalg.yield %r : f16
    } -> tensor<12x8xf16>
    %empty58 = tensor.empty() : tensor<8x1xf16>
    %transposed9 = linalg.transpose ins(%w_3 : tensor<1x8xf16>) outs(%empty58 : tensor<8x1xf16>) permutation = [1, 0]
    %cst18 = arith.constant 0.000000e+00 : f32
    %empty59 = tensor.empty() : tensor<12x1xf32>
    %fill18 = linalg.fill ins(%cst18 : f32) outs(%empty59 : tensor<12x1xf32>) -> tensor<12x1xf32>
    %mm5 = linalg.matmul ins(%g20, %transposed9 : tensor<12x8xf16>, tensor<8x1xf16>) outs(%fill18 : tensor<12x1xf32>) -> tensor<12x1xf32>
    %empty60 = tensor.empty() : tensor<12x1xf16>
    %g21 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm5 : tensor<12x1xf32>) outs(%empty60 : tensor<12x1xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<12x1xf16>
    %empty61 = tensor.empty() : tensor<12x1xf16>
    %g22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g21, %b_3 : tensor<12x1xf16>, tensor<1xf16>) outs(%empty61 : tensor<12x1xf16>) {
    ^bb0(%in0: f16, %in1: f16, %out: f16):
      %s = arith.addf %in0, %in1 : f16
      linalg.yield %s : f16
    } -> tensor<12x1xf16>
    %empty62 = tensor.empty() : tensor<12x1xf16>
    %g23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g22 : tensor<12x1xf16>) outs(%empty62 : tensor<12x1xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %neg = arith.negf %in0 : f16
      %e = math.exp %neg : f16
      %d = arith.addf %e, %one_f16 : f16
      %s = arith.divf %one_f16, %d : f16
      linalg.yield %s : f16
    } -> tensor<12x1xf16>
    return %g23 : tensor<12x1xf16>
  }
}

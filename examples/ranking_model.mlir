// The end-to-end ranking model of issue 13 (full shapes), in the form
// torch-mlir's linalg-on-tensors output takes (written by
// bench/e2e/ranking_model.py --shape full; do not edit by hand). One
// request: U = 32 users, B = 2048 candidates (64 a user, sorted by user),
// f16 weights and activations, f32 accumulation.
//
//   def forward(self, user_tables, user_ids, user_offsets,    # 32 features
//               cand_tables, cand_ids, cand_offsets,          # 32 features
//               seq_table, seq_ids, seq_offsets, cand_to_user,
//               w_q, w_k, w_v, w_lce, w_1, b_1, w_2, b_2, w_3, b_3):
//       u = [F.embedding_bag(i, t, o, mode="sum")              # [U, D] each,
//            for t, i, o in zip(user_tables, user_ids, user_offsets)]  # 20 ids a bag
//       c = [F.embedding_bag(i, t, o, mode="sum")              # [B, D] each,
//            for t, i, o in zip(cand_tables, cand_ids, cand_offsets)]  # 4 ids a bag
//       seq = F.embedding(seq_ids, seq_table)                  # [N, D], N ids
//       padded, lengths = jagged_to_padded(seq, seq_offsets, 1024)  # [U, Lk, D]
//       k = F.linear(padded, w_k).view(U, 1024, 2, 128)
//       v = F.linear(padded, w_v).view(U, 1024, 2, 128)
//       q = F.linear(c[0], w_q).view(B, 1, 2, 128)
//       key_mask = torch.arange(1024) < lengths.unsqueeze(1)     # [U, Lk]
//       o = F.scaled_dot_product_attention(
//           q.transpose(1, 2),
//           k.index_select(0, cand_to_user).transpose(1, 2),
//           v.index_select(0, cand_to_user).transpose(1, 2),
//           attn_mask=key_mask.index_select(0, cand_to_user)[:, None, None, :])
//       att = o.transpose(1, 2).reshape(B, 2, 128)        # H rows of D
//       x = torch.cat([torch.stack(u, 1).index_select(0, cand_to_user),
//                      torch.stack(c, 1), att], 1)             # [B, 66, D]
//       z = torch.matmul(w_lce, x).flatten(1)                  # [B, 64 * 128]
//       h = F.relu(F.linear(z, w_1, b_1))
//       h = F.relu(F.linear(h, w_2, b_2))
//       return torch.sigmoid(F.linear(h, w_3, b_3))            # [B, 1]
//
// jagged_to_padded is FBGEMM's jagged_to_padded_dense with lengths =
// offsets.diff() clamped to Lk; it has no torch-mlir lowering, and the
// exporter writes emb.jagged_to_padded for it. Tables: 1000000 rows of D = 128
// (1000000 for the history); history lengths 256..1024 in the benchmark inputs.
// emb-raise, emb-ikbo and emb-batch-tables make of it two emb.tbe (user and
// candidate batch), the history's lookup and jagged_to_padded, one
// emb.ikbo_attention (masked by the lengths), one emb.ikbo_lce and the
// GEMMs of the projections and the MLP (docs/benchmarks.md, "End to end:
// the ranking model").
// emb-run inputs: data ids<1000000 offsets<1 data ids<1000000 offsets<4 data ids<1000000 offsets<7 data ids<1000000 offsets<10 data ids<1000000 offsets<13 data ids<1000000 offsets<16 data ids<1000000 offsets<19 data ids<1000000 offsets<22 data ids<1000000 offsets<25 data ids<1000000 offsets<28 data ids<1000000 offsets<31 data ids<1000000 offsets<34 data ids<1000000 offsets<37 data ids<1000000 offsets<40 data ids<1000000 offsets<43 data ids<1000000 offsets<46 data ids<1000000 offsets<49 data ids<1000000 offsets<52 data ids<1000000 offsets<55 data ids<1000000 offsets<58 data ids<1000000 offsets<61 data ids<1000000 offsets<64 data ids<1000000 offsets<67 data ids<1000000 offsets<70 data ids<1000000 offsets<73 data ids<1000000 offsets<76 data ids<1000000 offsets<79 data ids<1000000 offsets<82 data ids<1000000 offsets<85 data ids<1000000 offsets<88 data ids<1000000 offsets<91 data ids<1000000 offsets<94 data ids<1000000 offsets<97 data ids<1000000 offsets<100 data ids<1000000 offsets<103 data ids<1000000 offsets<106 data ids<1000000 offsets<109 data ids<1000000 offsets<112 data ids<1000000 offsets<115 data ids<1000000 offsets<118 data ids<1000000 offsets<121 data ids<1000000 offsets<124 data ids<1000000 offsets<127 data ids<1000000 offsets<130 data ids<1000000 offsets<133 data ids<1000000 offsets<136 data ids<1000000 offsets<139 data ids<1000000 offsets<142 data ids<1000000 offsets<145 data ids<1000000 offsets<148 data ids<1000000 offsets<151 data ids<1000000 offsets<154 data ids<1000000 offsets<157 data ids<1000000 offsets<160 data ids<1000000 offsets<163 data ids<1000000 offsets<166 data ids<1000000 offsets<169 data ids<1000000 offsets<172 data ids<1000000 offsets<175 data ids<1000000 offsets<178 data ids<1000000 offsets<181 data ids<1000000 offsets<184 data ids<1000000 offsets<187 data ids<1000000 offsets<190 data ids<1000000 jagged<193,256,1024 index<32 weight<128 weight<128 weight<128 weight<66 weight<8192 weight<8192 weight<1024 weight<1024 weight<256 weight<256

module {
  func.func @ranking_model(%user_table_0: tensor<1000000x128xf16>, %user_ids_0: tensor<640xi64>, %user_offsets_0: tensor<32xi64>, %user_table_1: tensor<1000000x128xf16>, %user_ids_1: tensor<640xi64>, %user_offsets_1: tensor<32xi64>, %user_table_2: tensor<1000000x128xf16>, %user_ids_2: tensor<640xi64>, %user_offsets_2: tensor<32xi64>, %user_table_3: tensor<1000000x128xf16>, %user_ids_3: tensor<640xi64>, %user_offsets_3: tensor<32xi64>, %user_table_4: tensor<1000000x128xf16>, %user_ids_4: tensor<640xi64>, %user_offsets_4: tensor<32xi64>, %user_table_5: tensor<1000000x128xf16>, %user_ids_5: tensor<640xi64>, %user_offsets_5: tensor<32xi64>, %user_table_6: tensor<1000000x128xf16>, %user_ids_6: tensor<640xi64>, %user_offsets_6: tensor<32xi64>, %user_table_7: tensor<1000000x128xf16>, %user_ids_7: tensor<640xi64>, %user_offsets_7: tensor<32xi64>, %user_table_8: tensor<1000000x128xf16>, %user_ids_8: tensor<640xi64>, %user_offsets_8: tensor<32xi64>, %user_table_9: tensor<1000000x128xf16>, %user_ids_9: tensor<640xi64>, %user_offsets_9: tensor<32xi64>, %user_table_10: tensor<1000000x128xf16>, %user_ids_10: tensor<640xi64>, %user_offsets_10: tensor<32xi64>, %user_table_11: tensor<1000000x128xf16>, %user_ids_11: tensor<640xi64>, %user_offsets_11: tensor<32xi64>, %user_table_12: tensor<1000000x128xf16>, %user_ids_12: tensor<640xi64>, %user_offsets_12: tensor<32xi64>, %user_table_13: tensor<1000000x128xf16>, %user_ids_13: tensor<640xi64>, %user_offsets_13: tensor<32xi64>, %user_table_14: tensor<1000000x128xf16>, %user_ids_14: tensor<640xi64>, %user_offsets_14: tensor<32xi64>, %user_table_15: tensor<1000000x128xf16>, %user_ids_15: tensor<640xi64>, %user_offsets_15: tensor<32xi64>, %user_table_16: tensor<1000000x128xf16>, %user_ids_16: tensor<640xi64>, %user_offsets_16: tensor<32xi64>, %user_table_17: tensor<1000000x128xf16>, %user_ids_17: tensor<640xi64>, %user_offsets_17: tensor<32xi64>, %user_table_18: tensor<1000000x128xf16>, %user_ids_18: tensor<640xi64>, %user_offsets_18: tensor<32xi64>, %user_table_19: tensor<1000000x128xf16>, %user_ids_19: tensor<640xi64>, %user_offsets_19: tensor<32xi64>, %user_table_20: tensor<1000000x128xf16>, %user_ids_20: tensor<640xi64>, %user_offsets_20: tensor<32xi64>, %user_table_21: tensor<1000000x128xf16>, %user_ids_21: tensor<640xi64>, %user_offsets_21: tensor<32xi64>, %user_table_22: tensor<1000000x128xf16>, %user_ids_22: tensor<640xi64>, %user_offsets_22: tensor<32xi64>, %user_table_23: tensor<1000000x128xf16>, %user_ids_23: tensor<640xi64>, %user_offsets_23: tensor<32xi64>, %user_table_24: tensor<1000000x128xf16>, %user_ids_24: tensor<640xi64>, %user_offsets_24: tensor<32xi64>, %user_table_25: tensor<1000000x128xf16>, %user_ids_25: tensor<640xi64>, %user_offsets_25: tensor<32xi64>, %user_table_26: tensor<1000000x128xf16>, %user_ids_26: tensor<640xi64>, %user_offsets_26: tensor<32xi64>, %user_table_27: tensor<1000000x128xf16>, %user_ids_27: tensor<640xi64>, %user_offsets_27: tensor<32xi64>, %user_table_28: tensor<1000000x128xf16>, %user_ids_28: tensor<640xi64>, %user_offsets_28: tensor<32xi64>, %user_table_29: tensor<1000000x128xf16>, %user_ids_29: tensor<640xi64>, %user_offsets_29: tensor<32xi64>, %user_table_30: tensor<1000000x128xf16>, %user_ids_30: tensor<640xi64>, %user_offsets_30: tensor<32xi64>, %user_table_31: tensor<1000000x128xf16>, %user_ids_31: tensor<640xi64>, %user_offsets_31: tensor<32xi64>, %cand_table_0: tensor<1000000x128xf16>, %cand_ids_0: tensor<8192xi64>, %cand_offsets_0: tensor<2048xi64>, %cand_table_1: tensor<1000000x128xf16>, %cand_ids_1: tensor<8192xi64>, %cand_offsets_1: tensor<2048xi64>, %cand_table_2: tensor<1000000x128xf16>, %cand_ids_2: tensor<8192xi64>, %cand_offsets_2: tensor<2048xi64>, %cand_table_3: tensor<1000000x128xf16>, %cand_ids_3: tensor<8192xi64>, %cand_offsets_3: tensor<2048xi64>, %cand_table_4: tensor<1000000x128xf16>, %cand_ids_4: tensor<8192xi64>, %cand_offsets_4: tensor<2048xi64>, %cand_table_5: tensor<1000000x128xf16>, %cand_ids_5: tensor<8192xi64>, %cand_offsets_5: tensor<2048xi64>, %cand_table_6: tensor<1000000x128xf16>, %cand_ids_6: tensor<8192xi64>, %cand_offsets_6: tensor<2048xi64>, %cand_table_7: tensor<1000000x128xf16>, %cand_ids_7: tensor<8192xi64>, %cand_offsets_7: tensor<2048xi64>, %cand_table_8: tensor<1000000x128xf16>, %cand_ids_8: tensor<8192xi64>, %cand_offsets_8: tensor<2048xi64>, %cand_table_9: tensor<1000000x128xf16>, %cand_ids_9: tensor<8192xi64>, %cand_offsets_9: tensor<2048xi64>, %cand_table_10: tensor<1000000x128xf16>, %cand_ids_10: tensor<8192xi64>, %cand_offsets_10: tensor<2048xi64>, %cand_table_11: tensor<1000000x128xf16>, %cand_ids_11: tensor<8192xi64>, %cand_offsets_11: tensor<2048xi64>, %cand_table_12: tensor<1000000x128xf16>, %cand_ids_12: tensor<8192xi64>, %cand_offsets_12: tensor<2048xi64>, %cand_table_13: tensor<1000000x128xf16>, %cand_ids_13: tensor<8192xi64>, %cand_offsets_13: tensor<2048xi64>, %cand_table_14: tensor<1000000x128xf16>, %cand_ids_14: tensor<8192xi64>, %cand_offsets_14: tensor<2048xi64>, %cand_table_15: tensor<1000000x128xf16>, %cand_ids_15: tensor<8192xi64>, %cand_offsets_15: tensor<2048xi64>, %cand_table_16: tensor<1000000x128xf16>, %cand_ids_16: tensor<8192xi64>, %cand_offsets_16: tensor<2048xi64>, %cand_table_17: tensor<1000000x128xf16>, %cand_ids_17: tensor<8192xi64>, %cand_offsets_17: tensor<2048xi64>, %cand_table_18: tensor<1000000x128xf16>, %cand_ids_18: tensor<8192xi64>, %cand_offsets_18: tensor<2048xi64>, %cand_table_19: tensor<1000000x128xf16>, %cand_ids_19: tensor<8192xi64>, %cand_offsets_19: tensor<2048xi64>, %cand_table_20: tensor<1000000x128xf16>, %cand_ids_20: tensor<8192xi64>, %cand_offsets_20: tensor<2048xi64>, %cand_table_21: tensor<1000000x128xf16>, %cand_ids_21: tensor<8192xi64>, %cand_offsets_21: tensor<2048xi64>, %cand_table_22: tensor<1000000x128xf16>, %cand_ids_22: tensor<8192xi64>, %cand_offsets_22: tensor<2048xi64>, %cand_table_23: tensor<1000000x128xf16>, %cand_ids_23: tensor<8192xi64>, %cand_offsets_23: tensor<2048xi64>, %cand_table_24: tensor<1000000x128xf16>, %cand_ids_24: tensor<8192xi64>, %cand_offsets_24: tensor<2048xi64>, %cand_table_25: tensor<1000000x128xf16>, %cand_ids_25: tensor<8192xi64>, %cand_offsets_25: tensor<2048xi64>, %cand_table_26: tensor<1000000x128xf16>, %cand_ids_26: tensor<8192xi64>, %cand_offsets_26: tensor<2048xi64>, %cand_table_27: tensor<1000000x128xf16>, %cand_ids_27: tensor<8192xi64>, %cand_offsets_27: tensor<2048xi64>, %cand_table_28: tensor<1000000x128xf16>, %cand_ids_28: tensor<8192xi64>, %cand_offsets_28: tensor<2048xi64>, %cand_table_29: tensor<1000000x128xf16>, %cand_ids_29: tensor<8192xi64>, %cand_offsets_29: tensor<2048xi64>, %cand_table_30: tensor<1000000x128xf16>, %cand_ids_30: tensor<8192xi64>, %cand_offsets_30: tensor<2048xi64>, %cand_table_31: tensor<1000000x128xf16>, %cand_ids_31: tensor<8192xi64>, %cand_offsets_31: tensor<2048xi64>, %seq_table: tensor<1000000x128xf16>, %seq_ids: tensor<?xi64>, %seq_offsets: tensor<33xi64>, %cand_to_user: tensor<2048xi64>, %w_q: tensor<256x128xf16>, %w_k: tensor<256x128xf16>, %w_v: tensor<256x128xf16>, %w_lce: tensor<64x66xf16>, %w_1: tensor<1024x8192xf16>, %b_1: tensor<1024xf16>, %w_2: tensor<256x1024xf16>, %b_2: tensor<256xf16>, %w_3: tensor<1x256xf16>, %b_3: tensor<1xf16>) -> tensor<2048x1xf16> {
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c32_i64 = arith.constant 32 : i64
    %c2048_i64 = arith.constant 2048 : i64
    %c640_i64 = arith.constant 640 : i64
    %c8192_i64 = arith.constant 8192 : i64
    %c1000000 = arith.constant 1000000 : index
    %cst_f16 = arith.constant 0.000000e+00 : f16
    %one_f16 = arith.constant 1.000000e+00 : f16
    %ninf_f16 = arith.constant 0xFC00 : f16
    %sqrt_scale = arith.constant 2.973018e-01 : f16
    %zero_f16_0d = arith.constant dense<0.000000e+00> : tensor<f16>
    %ninf_f16_0d = arith.constant dense<0xFC00> : tensor<f16>
    %cst0 = arith.constant 0.000000e+00 : f16
    %empty0 = tensor.empty() : tensor<32x128xf16>
    %fill0 = linalg.fill ins(%cst0 : f16) outs(%empty0 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_0, %user_offsets_0 : tensor<640xi64>, tensor<32xi64>) outs(%fill0 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_0[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_0[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst1 = arith.constant 0.000000e+00 : f16
    %empty1 = tensor.empty() : tensor<32x128xf16>
    %fill1 = linalg.fill ins(%cst1 : f16) outs(%empty1 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_1, %user_offsets_1 : tensor<640xi64>, tensor<32xi64>) outs(%fill1 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_1[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_1[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst2 = arith.constant 0.000000e+00 : f16
    %empty2 = tensor.empty() : tensor<32x128xf16>
    %fill2 = linalg.fill ins(%cst2 : f16) outs(%empty2 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_2, %user_offsets_2 : tensor<640xi64>, tensor<32xi64>) outs(%fill2 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_2[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_2[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst3 = arith.constant 0.000000e+00 : f16
    %empty3 = tensor.empty() : tensor<32x128xf16>
    %fill3 = linalg.fill ins(%cst3 : f16) outs(%empty3 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_3, %user_offsets_3 : tensor<640xi64>, tensor<32xi64>) outs(%fill3 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_3[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_3[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst4 = arith.constant 0.000000e+00 : f16
    %empty4 = tensor.empty() : tensor<32x128xf16>
    %fill4 = linalg.fill ins(%cst4 : f16) outs(%empty4 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_4, %user_offsets_4 : tensor<640xi64>, tensor<32xi64>) outs(%fill4 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_4[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_4[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst5 = arith.constant 0.000000e+00 : f16
    %empty5 = tensor.empty() : tensor<32x128xf16>
    %fill5 = linalg.fill ins(%cst5 : f16) outs(%empty5 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_5, %user_offsets_5 : tensor<640xi64>, tensor<32xi64>) outs(%fill5 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_5[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_5[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst6 = arith.constant 0.000000e+00 : f16
    %empty6 = tensor.empty() : tensor<32x128xf16>
    %fill6 = linalg.fill ins(%cst6 : f16) outs(%empty6 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_6, %user_offsets_6 : tensor<640xi64>, tensor<32xi64>) outs(%fill6 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_6[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_6[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst7 = arith.constant 0.000000e+00 : f16
    %empty7 = tensor.empty() : tensor<32x128xf16>
    %fill7 = linalg.fill ins(%cst7 : f16) outs(%empty7 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_7, %user_offsets_7 : tensor<640xi64>, tensor<32xi64>) outs(%fill7 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_7[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_7[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst8 = arith.constant 0.000000e+00 : f16
    %empty8 = tensor.empty() : tensor<32x128xf16>
    %fill8 = linalg.fill ins(%cst8 : f16) outs(%empty8 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_8, %user_offsets_8 : tensor<640xi64>, tensor<32xi64>) outs(%fill8 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_8[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_8[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst9 = arith.constant 0.000000e+00 : f16
    %empty9 = tensor.empty() : tensor<32x128xf16>
    %fill9 = linalg.fill ins(%cst9 : f16) outs(%empty9 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_9, %user_offsets_9 : tensor<640xi64>, tensor<32xi64>) outs(%fill9 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_9[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_9[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst10 = arith.constant 0.000000e+00 : f16
    %empty10 = tensor.empty() : tensor<32x128xf16>
    %fill10 = linalg.fill ins(%cst10 : f16) outs(%empty10 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_10, %user_offsets_10 : tensor<640xi64>, tensor<32xi64>) outs(%fill10 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_10[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_10[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst11 = arith.constant 0.000000e+00 : f16
    %empty11 = tensor.empty() : tensor<32x128xf16>
    %fill11 = linalg.fill ins(%cst11 : f16) outs(%empty11 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_11, %user_offsets_11 : tensor<640xi64>, tensor<32xi64>) outs(%fill11 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_11[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_11[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst12 = arith.constant 0.000000e+00 : f16
    %empty12 = tensor.empty() : tensor<32x128xf16>
    %fill12 = linalg.fill ins(%cst12 : f16) outs(%empty12 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_12, %user_offsets_12 : tensor<640xi64>, tensor<32xi64>) outs(%fill12 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_12[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_12[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst13 = arith.constant 0.000000e+00 : f16
    %empty13 = tensor.empty() : tensor<32x128xf16>
    %fill13 = linalg.fill ins(%cst13 : f16) outs(%empty13 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_13, %user_offsets_13 : tensor<640xi64>, tensor<32xi64>) outs(%fill13 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_13[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_13[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst14 = arith.constant 0.000000e+00 : f16
    %empty14 = tensor.empty() : tensor<32x128xf16>
    %fill14 = linalg.fill ins(%cst14 : f16) outs(%empty14 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_14, %user_offsets_14 : tensor<640xi64>, tensor<32xi64>) outs(%fill14 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_14[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_14[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst15 = arith.constant 0.000000e+00 : f16
    %empty15 = tensor.empty() : tensor<32x128xf16>
    %fill15 = linalg.fill ins(%cst15 : f16) outs(%empty15 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_15, %user_offsets_15 : tensor<640xi64>, tensor<32xi64>) outs(%fill15 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_15[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_15[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst16 = arith.constant 0.000000e+00 : f16
    %empty16 = tensor.empty() : tensor<32x128xf16>
    %fill16 = linalg.fill ins(%cst16 : f16) outs(%empty16 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag16 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_16, %user_offsets_16 : tensor<640xi64>, tensor<32xi64>) outs(%fill16 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_16[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_16[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst17 = arith.constant 0.000000e+00 : f16
    %empty17 = tensor.empty() : tensor<32x128xf16>
    %fill17 = linalg.fill ins(%cst17 : f16) outs(%empty17 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_17, %user_offsets_17 : tensor<640xi64>, tensor<32xi64>) outs(%fill17 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_17[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_17[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst18 = arith.constant 0.000000e+00 : f16
    %empty18 = tensor.empty() : tensor<32x128xf16>
    %fill18 = linalg.fill ins(%cst18 : f16) outs(%empty18 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag18 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_18, %user_offsets_18 : tensor<640xi64>, tensor<32xi64>) outs(%fill18 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_18[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_18[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst19 = arith.constant 0.000000e+00 : f16
    %empty19 = tensor.empty() : tensor<32x128xf16>
    %fill19 = linalg.fill ins(%cst19 : f16) outs(%empty19 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag19 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_19, %user_offsets_19 : tensor<640xi64>, tensor<32xi64>) outs(%fill19 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_19[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_19[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst20 = arith.constant 0.000000e+00 : f16
    %empty20 = tensor.empty() : tensor<32x128xf16>
    %fill20 = linalg.fill ins(%cst20 : f16) outs(%empty20 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag20 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_20, %user_offsets_20 : tensor<640xi64>, tensor<32xi64>) outs(%fill20 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_20[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_20[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst21 = arith.constant 0.000000e+00 : f16
    %empty21 = tensor.empty() : tensor<32x128xf16>
    %fill21 = linalg.fill ins(%cst21 : f16) outs(%empty21 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag21 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_21, %user_offsets_21 : tensor<640xi64>, tensor<32xi64>) outs(%fill21 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_21[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_21[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst22 = arith.constant 0.000000e+00 : f16
    %empty22 = tensor.empty() : tensor<32x128xf16>
    %fill22 = linalg.fill ins(%cst22 : f16) outs(%empty22 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_22, %user_offsets_22 : tensor<640xi64>, tensor<32xi64>) outs(%fill22 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_22[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_22[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst23 = arith.constant 0.000000e+00 : f16
    %empty23 = tensor.empty() : tensor<32x128xf16>
    %fill23 = linalg.fill ins(%cst23 : f16) outs(%empty23 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag23 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_23, %user_offsets_23 : tensor<640xi64>, tensor<32xi64>) outs(%fill23 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_23[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_23[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst24 = arith.constant 0.000000e+00 : f16
    %empty24 = tensor.empty() : tensor<32x128xf16>
    %fill24 = linalg.fill ins(%cst24 : f16) outs(%empty24 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag24 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_24, %user_offsets_24 : tensor<640xi64>, tensor<32xi64>) outs(%fill24 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_24[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_24[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst25 = arith.constant 0.000000e+00 : f16
    %empty25 = tensor.empty() : tensor<32x128xf16>
    %fill25 = linalg.fill ins(%cst25 : f16) outs(%empty25 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag25 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_25, %user_offsets_25 : tensor<640xi64>, tensor<32xi64>) outs(%fill25 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_25[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_25[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst26 = arith.constant 0.000000e+00 : f16
    %empty26 = tensor.empty() : tensor<32x128xf16>
    %fill26 = linalg.fill ins(%cst26 : f16) outs(%empty26 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_26, %user_offsets_26 : tensor<640xi64>, tensor<32xi64>) outs(%fill26 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_26[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_26[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst27 = arith.constant 0.000000e+00 : f16
    %empty27 = tensor.empty() : tensor<32x128xf16>
    %fill27 = linalg.fill ins(%cst27 : f16) outs(%empty27 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag27 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_27, %user_offsets_27 : tensor<640xi64>, tensor<32xi64>) outs(%fill27 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_27[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_27[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst28 = arith.constant 0.000000e+00 : f16
    %empty28 = tensor.empty() : tensor<32x128xf16>
    %fill28 = linalg.fill ins(%cst28 : f16) outs(%empty28 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag28 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_28, %user_offsets_28 : tensor<640xi64>, tensor<32xi64>) outs(%fill28 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_28[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_28[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst29 = arith.constant 0.000000e+00 : f16
    %empty29 = tensor.empty() : tensor<32x128xf16>
    %fill29 = linalg.fill ins(%cst29 : f16) outs(%empty29 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag29 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_29, %user_offsets_29 : tensor<640xi64>, tensor<32xi64>) outs(%fill29 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_29[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_29[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst30 = arith.constant 0.000000e+00 : f16
    %empty30 = tensor.empty() : tensor<32x128xf16>
    %fill30 = linalg.fill ins(%cst30 : f16) outs(%empty30 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag30 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_30, %user_offsets_30 : tensor<640xi64>, tensor<32xi64>) outs(%fill30 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_30[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_30[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst31 = arith.constant 0.000000e+00 : f16
    %empty31 = tensor.empty() : tensor<32x128xf16>
    %fill31 = linalg.fill ins(%cst31 : f16) outs(%empty31 : tensor<32x128xf16>) -> tensor<32x128xf16>
    %bag31 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%user_ids_31, %user_offsets_31 : tensor<640xi64>, tensor<32xi64>) outs(%fill31 : tensor<32x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c32_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %user_offsets_31[%safe] : tensor<32xi64>
      %end = arith.select %is_last, %c640_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %user_table_31[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<32x128xf16>
    %cst32 = arith.constant 0.000000e+00 : f16
    %empty32 = tensor.empty() : tensor<2048x128xf16>
    %fill32 = linalg.fill ins(%cst32 : f16) outs(%empty32 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag32 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_0, %cand_offsets_0 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill32 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_0[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_0[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst33 = arith.constant 0.000000e+00 : f16
    %empty33 = tensor.empty() : tensor<2048x128xf16>
    %fill33 = linalg.fill ins(%cst33 : f16) outs(%empty33 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag33 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_1, %cand_offsets_1 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill33 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_1[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_1[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst34 = arith.constant 0.000000e+00 : f16
    %empty34 = tensor.empty() : tensor<2048x128xf16>
    %fill34 = linalg.fill ins(%cst34 : f16) outs(%empty34 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag34 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_2, %cand_offsets_2 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill34 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_2[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_2[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst35 = arith.constant 0.000000e+00 : f16
    %empty35 = tensor.empty() : tensor<2048x128xf16>
    %fill35 = linalg.fill ins(%cst35 : f16) outs(%empty35 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag35 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_3, %cand_offsets_3 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill35 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_3[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_3[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst36 = arith.constant 0.000000e+00 : f16
    %empty36 = tensor.empty() : tensor<2048x128xf16>
    %fill36 = linalg.fill ins(%cst36 : f16) outs(%empty36 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag36 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_4, %cand_offsets_4 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill36 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_4[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_4[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst37 = arith.constant 0.000000e+00 : f16
    %empty37 = tensor.empty() : tensor<2048x128xf16>
    %fill37 = linalg.fill ins(%cst37 : f16) outs(%empty37 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag37 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_5, %cand_offsets_5 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill37 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_5[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_5[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst38 = arith.constant 0.000000e+00 : f16
    %empty38 = tensor.empty() : tensor<2048x128xf16>
    %fill38 = linalg.fill ins(%cst38 : f16) outs(%empty38 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag38 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_6, %cand_offsets_6 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill38 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_6[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_6[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst39 = arith.constant 0.000000e+00 : f16
    %empty39 = tensor.empty() : tensor<2048x128xf16>
    %fill39 = linalg.fill ins(%cst39 : f16) outs(%empty39 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag39 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_7, %cand_offsets_7 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill39 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_7[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_7[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst40 = arith.constant 0.000000e+00 : f16
    %empty40 = tensor.empty() : tensor<2048x128xf16>
    %fill40 = linalg.fill ins(%cst40 : f16) outs(%empty40 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag40 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_8, %cand_offsets_8 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill40 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_8[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_8[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst41 = arith.constant 0.000000e+00 : f16
    %empty41 = tensor.empty() : tensor<2048x128xf16>
    %fill41 = linalg.fill ins(%cst41 : f16) outs(%empty41 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag41 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_9, %cand_offsets_9 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill41 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_9[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_9[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst42 = arith.constant 0.000000e+00 : f16
    %empty42 = tensor.empty() : tensor<2048x128xf16>
    %fill42 = linalg.fill ins(%cst42 : f16) outs(%empty42 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag42 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_10, %cand_offsets_10 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill42 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_10[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_10[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst43 = arith.constant 0.000000e+00 : f16
    %empty43 = tensor.empty() : tensor<2048x128xf16>
    %fill43 = linalg.fill ins(%cst43 : f16) outs(%empty43 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag43 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_11, %cand_offsets_11 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill43 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_11[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_11[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst44 = arith.constant 0.000000e+00 : f16
    %empty44 = tensor.empty() : tensor<2048x128xf16>
    %fill44 = linalg.fill ins(%cst44 : f16) outs(%empty44 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag44 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_12, %cand_offsets_12 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill44 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_12[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_12[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst45 = arith.constant 0.000000e+00 : f16
    %empty45 = tensor.empty() : tensor<2048x128xf16>
    %fill45 = linalg.fill ins(%cst45 : f16) outs(%empty45 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_13, %cand_offsets_13 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill45 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_13[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_13[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst46 = arith.constant 0.000000e+00 : f16
    %empty46 = tensor.empty() : tensor<2048x128xf16>
    %fill46 = linalg.fill ins(%cst46 : f16) outs(%empty46 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag46 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_14, %cand_offsets_14 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill46 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_14[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_14[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst47 = arith.constant 0.000000e+00 : f16
    %empty47 = tensor.empty() : tensor<2048x128xf16>
    %fill47 = linalg.fill ins(%cst47 : f16) outs(%empty47 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag47 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_15, %cand_offsets_15 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill47 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_15[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_15[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst48 = arith.constant 0.000000e+00 : f16
    %empty48 = tensor.empty() : tensor<2048x128xf16>
    %fill48 = linalg.fill ins(%cst48 : f16) outs(%empty48 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag48 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_16, %cand_offsets_16 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill48 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_16[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_16[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst49 = arith.constant 0.000000e+00 : f16
    %empty49 = tensor.empty() : tensor<2048x128xf16>
    %fill49 = linalg.fill ins(%cst49 : f16) outs(%empty49 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag49 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_17, %cand_offsets_17 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill49 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_17[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_17[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst50 = arith.constant 0.000000e+00 : f16
    %empty50 = tensor.empty() : tensor<2048x128xf16>
    %fill50 = linalg.fill ins(%cst50 : f16) outs(%empty50 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag50 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_18, %cand_offsets_18 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill50 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_18[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_18[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst51 = arith.constant 0.000000e+00 : f16
    %empty51 = tensor.empty() : tensor<2048x128xf16>
    %fill51 = linalg.fill ins(%cst51 : f16) outs(%empty51 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag51 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_19, %cand_offsets_19 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill51 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_19[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_19[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst52 = arith.constant 0.000000e+00 : f16
    %empty52 = tensor.empty() : tensor<2048x128xf16>
    %fill52 = linalg.fill ins(%cst52 : f16) outs(%empty52 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag52 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_20, %cand_offsets_20 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill52 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_20[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_20[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst53 = arith.constant 0.000000e+00 : f16
    %empty53 = tensor.empty() : tensor<2048x128xf16>
    %fill53 = linalg.fill ins(%cst53 : f16) outs(%empty53 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag53 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_21, %cand_offsets_21 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill53 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_21[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_21[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst54 = arith.constant 0.000000e+00 : f16
    %empty54 = tensor.empty() : tensor<2048x128xf16>
    %fill54 = linalg.fill ins(%cst54 : f16) outs(%empty54 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag54 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_22, %cand_offsets_22 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill54 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_22[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_22[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst55 = arith.constant 0.000000e+00 : f16
    %empty55 = tensor.empty() : tensor<2048x128xf16>
    %fill55 = linalg.fill ins(%cst55 : f16) outs(%empty55 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag55 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_23, %cand_offsets_23 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill55 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_23[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_23[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst56 = arith.constant 0.000000e+00 : f16
    %empty56 = tensor.empty() : tensor<2048x128xf16>
    %fill56 = linalg.fill ins(%cst56 : f16) outs(%empty56 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag56 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_24, %cand_offsets_24 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill56 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_24[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_24[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst57 = arith.constant 0.000000e+00 : f16
    %empty57 = tensor.empty() : tensor<2048x128xf16>
    %fill57 = linalg.fill ins(%cst57 : f16) outs(%empty57 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag57 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_25, %cand_offsets_25 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill57 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_25[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_25[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst58 = arith.constant 0.000000e+00 : f16
    %empty58 = tensor.empty() : tensor<2048x128xf16>
    %fill58 = linalg.fill ins(%cst58 : f16) outs(%empty58 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag58 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_26, %cand_offsets_26 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill58 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_26[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_26[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst59 = arith.constant 0.000000e+00 : f16
    %empty59 = tensor.empty() : tensor<2048x128xf16>
    %fill59 = linalg.fill ins(%cst59 : f16) outs(%empty59 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag59 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_27, %cand_offsets_27 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill59 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_27[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_27[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst60 = arith.constant 0.000000e+00 : f16
    %empty60 = tensor.empty() : tensor<2048x128xf16>
    %fill60 = linalg.fill ins(%cst60 : f16) outs(%empty60 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag60 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_28, %cand_offsets_28 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill60 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_28[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_28[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst61 = arith.constant 0.000000e+00 : f16
    %empty61 = tensor.empty() : tensor<2048x128xf16>
    %fill61 = linalg.fill ins(%cst61 : f16) outs(%empty61 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag61 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_29, %cand_offsets_29 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill61 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_29[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_29[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst62 = arith.constant 0.000000e+00 : f16
    %empty62 = tensor.empty() : tensor<2048x128xf16>
    %fill62 = linalg.fill ins(%cst62 : f16) outs(%empty62 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag62 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_30, %cand_offsets_30 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill62 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_30[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_30[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %cst63 = arith.constant 0.000000e+00 : f16
    %empty63 = tensor.empty() : tensor<2048x128xf16>
    %fill63 = linalg.fill ins(%cst63 : f16) outs(%empty63 : tensor<2048x128xf16>) -> tensor<2048x128xf16>
    %bag63 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cand_ids_31, %cand_offsets_31 : tensor<8192xi64>, tensor<2048xi64>) outs(%fill63 : tensor<2048x128xf16>) {
    ^bb0(%in0: i64, %in1: i64, %out: f16):
      %b = linalg.index 0 : index
      %b64 = arith.index_cast %b : index to i64
      %next_b = arith.addi %b64, %c1_i64 : i64
      %next_i = arith.index_cast %next_b : i64 to index
      %is_last = arith.cmpi eq, %next_b, %c2048_i64 : i64
      %safe = arith.select %is_last, %c0, %next_i : index
      %start = tensor.extract %cand_offsets_31[%safe] : tensor<2048xi64>
      %end = arith.select %is_last, %c8192_i64, %start : i64
      %j = linalg.index 1 : index
      %j64 = arith.index_cast %j : index to i64
      %before = arith.cmpi slt, %in1, %j64 : i64
      %at = arith.cmpi eq, %in1, %j64 : i64
      %from = arith.ori %before, %at : i1
      %to = arith.cmpi slt, %j64, %end : i64
      %in_bag = arith.andi %from, %to : i1
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 2 : index
      %x = tensor.extract %cand_table_31[%row, %col] : tensor<1000000x128xf16>
      %sum = arith.addf %x, %out : f16
      %y = arith.select %in_bag, %sum, %out : f16
      linalg.yield %y : f16
    } -> tensor<2048x128xf16>
    %n0 = tensor.dim %seq_ids, %c0 : tensor<?xi64>
    %empty64 = tensor.empty(%n0) : tensor<?x128xf16>
    %rows0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%seq_ids : tensor<?xi64>) outs(%empty64 : tensor<?x128xf16>) {
    ^bb0(%in0: i64, %out: f16):
      %row = arith.index_cast %in0 : i64 to index
      %col = linalg.index 1 : index
      %lt = arith.cmpi slt, %row, %c1000000 : index
      cf.assert %lt, "index must be smaller than dim size"
      %ge = arith.cmpi sge, %in0, %c0_i64 : i64
      cf.assert %ge, "index must be larger or equal to 0"
      %x = tensor.extract %seq_table[%row, %col] : tensor<1000000x128xf16>
      linalg.yield %x : f16
    } -> tensor<?x128xf16>
    %padded0, %lengths0 = "emb.jagged_to_padded"(%rows0, %seq_offsets) {max_length = 1024 : i64} : (tensor<?x128xf16>, tensor<33xi64>) -> (tensor<32x1024x128xf16>, tensor<32xi64>)
    %collapsed0 = tensor.collapse_shape %padded0 [[0, 1], [2]] : tensor<32x1024x128xf16> into tensor<32768x128xf16>
    %empty65 = tensor.empty() : tensor<128x256xf16>
    %transposed0 = linalg.transpose ins(%w_k : tensor<256x128xf16>) outs(%empty65 : tensor<128x256xf16>) permutation = [1, 0]
    %cst64 = arith.constant 0.000000e+00 : f32
    %empty66 = tensor.empty() : tensor<32768x256xf32>
    %fill64 = linalg.fill ins(%cst64 : f32) outs(%empty66 : tensor<32768x256xf32>) -> tensor<32768x256xf32>
    %mm0 = linalg.matmul ins(%collapsed0, %transposed0 : tensor<32768x128xf16>, tensor<128x256xf16>) outs(%fill64 : tensor<32768x256xf32>) -> tensor<32768x256xf32>
    %empty67 = tensor.empty() : tensor<32768x256xf16>
    %g0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm0 : tensor<32768x256xf32>) outs(%empty67 : tensor<32768x256xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<32768x256xf16>
    %expanded0 = tensor.expand_shape %g0 [[0, 1], [2, 3]] output_shape [32, 1024, 2, 128] : tensor<32768x256xf16> into tensor<32x1024x2x128xf16>
    %empty68 = tensor.empty() : tensor<128x256xf16>
    %transposed1 = linalg.transpose ins(%w_v : tensor<256x128xf16>) outs(%empty68 : tensor<128x256xf16>) permutation = [1, 0]
    %cst65 = arith.constant 0.000000e+00 : f32
    %empty69 = tensor.empty() : tensor<32768x256xf32>
    %fill65 = linalg.fill ins(%cst65 : f32) outs(%empty69 : tensor<32768x256xf32>) -> tensor<32768x256xf32>
    %mm1 = linalg.matmul ins(%collapsed0, %transposed1 : tensor<32768x128xf16>, tensor<128x256xf16>) outs(%fill65 : tensor<32768x256xf32>) -> tensor<32768x256xf32>
    %empty70 = tensor.empty() : tensor<32768x256xf16>
    %g1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm1 : tensor<32768x256xf32>) outs(%empty70 : tensor<32768x256xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<32768x256xf16>
    %expanded1 = tensor.expand_shape %g1 [[0, 1], [2, 3]] output_shape [32, 1024, 2, 128] : tensor<32768x256xf16> into tensor<32x1024x2x128xf16>
    %empty71 = tensor.empty() : tensor<128x256xf16>
    %transposed2 = linalg.transpose ins(%w_q : tensor<256x128xf16>) outs(%empty71 : tensor<128x256xf16>) permutation = [1, 0]
    %cst66 = arith.constant 0.000000e+00 : f32
    %empty72 = tensor.empty() : tensor<2048x256xf32>
    %fill66 = linalg.fill ins(%cst66 : f32) outs(%empty72 : tensor<2048x256xf32>) -> tensor<2048x256xf32>
    %mm2 = linalg.matmul ins(%bag32, %transposed2 : tensor<2048x128xf16>, tensor<128x256xf16>) outs(%fill66 : tensor<2048x256xf32>) -> tensor<2048x256xf32>
    %empty73 = tensor.empty() : tensor<2048x256xf16>
    %g2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm2 : tensor<2048x256xf32>) outs(%empty73 : tensor<2048x256xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<2048x256xf16>
    %expanded2 = tensor.expand_shape %g2 [[0, 1], [2, 3]] output_shape [2048, 1, 2, 128] : tensor<2048x256xf16> into tensor<2048x1x2x128xf16>
    %empty74 = tensor.empty() : tensor<1024xi64>
    %arange0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%empty74 : tensor<1024xi64>) {
    ^bb0(%out: i64):
      %i = linalg.index 0 : index
      %i64 = arith.index_cast %i : index to i64
      linalg.yield %i64 : i64
    } -> tensor<1024xi64>
    %expanded3 = tensor.expand_shape %lengths0 [[0, 1]] output_shape [32, 1] : tensor<32xi64> into tensor<32x1xi64>
    %empty75 = tensor.empty() : tensor<32x1024xi1>
    %key_mask0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%arange0, %expanded3 : tensor<1024xi64>, tensor<32x1xi64>) outs(%empty75 : tensor<32x1024xi1>) {
    ^bb0(%in0: i64, %in1: i64, %out: i1):
      %lt = arith.cmpi slt, %in0, %in1 : i64
      linalg.yield %lt : i1
    } -> tensor<32x1024xi1>
    %empty76 = tensor.empty() : tensor<2048x1024xi1>
    %gathered0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%cand_to_user : tensor<2048xi64>) outs(%empty76 : tensor<2048x1024xi1>) {
    ^bb0(%in0: i64, %out: i1):
      %u = arith.index_cast %in0 : i64 to index
      %i1 = linalg.index 1 : index
      %x = tensor.extract %key_mask0[%u, %i1] : tensor<32x1024xi1>
      linalg.yield %x : i1
    } -> tensor<2048x1024xi1>
    %expanded4 = tensor.expand_shape %gathered0 [[0, 1, 2], [3]] output_shape [2048, 1, 1, 1024] : tensor<2048x1024xi1> into tensor<2048x1x1x1024xi1>
    %empty77 = tensor.empty() : tensor<2048x1024x2x128xf16>
    %gathered1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<2048xi64>) outs(%empty77 : tensor<2048x1024x2x128xf16>) {
    ^bb0(%in0: i64, %out: f16):
      %u = arith.index_cast %in0 : i64 to index
      %i1 = linalg.index 1 : index
      %i2 = linalg.index 2 : index
      %i3 = linalg.index 3 : index
      %x = tensor.extract %expanded0[%u, %i1, %i2, %i3] : tensor<32x1024x2x128xf16>
      linalg.yield %x : f16
    } -> tensor<2048x1024x2x128xf16>
    %empty78 = tensor.empty() : tensor<2048x1024x2x128xf16>
    %gathered2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<2048xi64>) outs(%empty78 : tensor<2048x1024x2x128xf16>) {
    ^bb0(%in0: i64, %out: f16):
      %u = arith.index_cast %in0 : i64 to index
      %i1 = linalg.index 1 : index
      %i2 = linalg.index 2 : index
      %i3 = linalg.index 3 : index
      %x = tensor.extract %expanded1[%u, %i1, %i2, %i3] : tensor<32x1024x2x128xf16>
      linalg.yield %x : f16
    } -> tensor<2048x1024x2x128xf16>
    %empty79 = tensor.empty() : tensor<2048x2x1x128xf16>
    %transposed3 = linalg.transpose ins(%expanded2 : tensor<2048x1x2x128xf16>) outs(%empty79 : tensor<2048x2x1x128xf16>) permutation = [0, 2, 1, 3]
    %empty80 = tensor.empty() : tensor<2048x2x1x128xf16>
    %g3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed3 : tensor<2048x2x1x128xf16>) outs(%empty80 : tensor<2048x2x1x128xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %m = arith.mulf %in0, %sqrt_scale : f16
      linalg.yield %m : f16
    } -> tensor<2048x2x1x128xf16>
    %empty81 = tensor.empty() : tensor<2048x1x1x1024xf16>
    %attn_bias0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded4, %zero_f16_0d, %ninf_f16_0d : tensor<2048x1x1x1024xi1>, tensor<f16>, tensor<f16>) outs(%empty81 : tensor<2048x1x1x1024xf16>) {
    ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
      %s = arith.select %in0, %in1, %in2 : f16
      linalg.yield %s : f16
    } -> tensor<2048x1x1x1024xf16>
    %empty82 = tensor.empty() : tensor<2048x2x128x1024xf16>
    %transposed4 = linalg.transpose ins(%gathered1 : tensor<2048x1024x2x128xf16>) outs(%empty82 : tensor<2048x2x128x1024xf16>) permutation = [0, 2, 3, 1]
    %empty83 = tensor.empty() : tensor<2048x2x128x1024xf16>
    %g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed4 : tensor<2048x2x128x1024xf16>) outs(%empty83 : tensor<2048x2x128x1024xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %m = arith.mulf %in0, %sqrt_scale : f16
      linalg.yield %m : f16
    } -> tensor<2048x2x128x1024xf16>
    %collapsed1 = tensor.collapse_shape %g3 [[0, 1], [2], [3]] : tensor<2048x2x1x128xf16> into tensor<4096x1x128xf16>
    %collapsed2 = tensor.collapse_shape %g4 [[0, 1], [2], [3]] : tensor<2048x2x128x1024xf16> into tensor<4096x128x1024xf16>
    %cst67 = arith.constant 0.000000e+00 : f32
    %empty84 = tensor.empty() : tensor<4096x1x1024xf32>
    %fill67 = linalg.fill ins(%cst67 : f32) outs(%empty84 : tensor<4096x1x1024xf32>) -> tensor<4096x1x1024xf32>
    %bmm0 = linalg.batch_matmul ins(%collapsed1, %collapsed2 : tensor<4096x1x128xf16>, tensor<4096x128x1024xf16>) outs(%fill67 : tensor<4096x1x1024xf32>) -> tensor<4096x1x1024xf32>
    %empty85 = tensor.empty() : tensor<4096x1x1024xf16>
    %g5 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm0 : tensor<4096x1x1024xf32>) outs(%empty85 : tensor<4096x1x1024xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<4096x1x1024xf16>
    %expanded5 = tensor.expand_shape %g5 [[0, 1], [2], [3]] output_shape [2048, 2, 1, 1024] : tensor<4096x1x1024xf16> into tensor<2048x2x1x1024xf16>
    %empty86 = tensor.empty() : tensor<2048x2x1x1024xf16>
    %masked0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded5, %attn_bias0 : tensor<2048x2x1x1024xf16>, tensor<2048x1x1x1024xf16>) outs(%empty86 : tensor<2048x2x1x1024xf16>) {
    ^bb0(%in0: f16, %in1: f16, %out: f16):
      %s = arith.addf %in0, %in1 : f16
      linalg.yield %s : f16
    } -> tensor<2048x2x1x1024xf16>
    %empty87 = tensor.empty() : tensor<2048x2x1x1024xf32>
    %g6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<2048x2x1x1024xf16>) outs(%empty87 : tensor<2048x2x1x1024xf32>) {
    ^bb0(%in0: f16, %out: f32):
      %e = arith.extf %in0 : f16 to f32
      linalg.yield %e : f32
    } -> tensor<2048x2x1x1024xf32>
    %cst68 = arith.constant 0 : i64
    %empty88 = tensor.empty() : tensor<2048x2x1xi64>
    %fill68 = linalg.fill ins(%cst68 : i64) outs(%empty88 : tensor<2048x2x1xi64>) -> tensor<2048x2x1xi64>
    %cst69 = arith.constant 0xFF800000 : f32
    %empty89 = tensor.empty() : tensor<2048x2x1xf32>
    %fill69 = linalg.fill ins(%cst69 : f32) outs(%empty89 : tensor<2048x2x1xf32>) -> tensor<2048x2x1xf32>
    %max0:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g6 : tensor<2048x2x1x1024xf32>) outs(%fill69, %fill68 : tensor<2048x2x1xf32>, tensor<2048x2x1xi64>) {
    ^bb0(%in0: f32, %out: f32, %out_i: i64):
      %i = linalg.index 3 : index
      %i64 = arith.index_cast %i : index to i64
      %m = arith.maximumf %in0, %out : f32
      %gt = arith.cmpf ogt, %in0, %out : f32
      %s = arith.select %gt, %i64, %out_i : i64
      linalg.yield %m, %s : f32, i64
    } -> (tensor<2048x2x1xf32>, tensor<2048x2x1xi64>)
    %expanded6 = tensor.expand_shape %max0#0 [[0], [1], [2, 3]] output_shape [2048, 2, 1, 1] : tensor<2048x2x1xf32> into tensor<2048x2x1x1xf32>
    %empty90 = tensor.empty() : tensor<2048x2x1x1024xf32>
    %g7 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g6, %expanded6 : tensor<2048x2x1x1024xf32>, tensor<2048x2x1x1xf32>) outs(%empty90 : tensor<2048x2x1x1024xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %s = arith.subf %in0, %in1 : f32
      linalg.yield %s : f32
    } -> tensor<2048x2x1x1024xf32>
    %empty91 = tensor.empty() : tensor<2048x2x1x1024xf32>
    %g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g7 : tensor<2048x2x1x1024xf32>) outs(%empty91 : tensor<2048x2x1x1024xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %e = math.exp %in0 : f32
      linalg.yield %e : f32
    } -> tensor<2048x2x1x1024xf32>
    %cst70 = arith.constant 0.000000e+00 : f32
    %empty92 = tensor.empty() : tensor<2048x2x1x1xf32>
    %fill70 = linalg.fill ins(%cst70 : f32) outs(%empty92 : tensor<2048x2x1x1xf32>) -> tensor<2048x2x1x1xf32>
    %sum0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g8 : tensor<2048x2x1x1024xf32>) outs(%fill70 : tensor<2048x2x1x1xf32>) {
    ^bb0(%in0: f32, %out: f32):
      %s = arith.addf %in0, %out : f32
      linalg.yield %s : f32
    } -> tensor<2048x2x1x1xf32>
    %empty93 = tensor.empty() : tensor<2048x2x1x1024xf32>
    %g9 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g8, %sum0 : tensor<2048x2x1x1024xf32>, tensor<2048x2x1x1xf32>) outs(%empty93 : tensor<2048x2x1x1024xf32>) {
    ^bb0(%in0: f32, %in1: f32, %out: f32):
      %s = arith.divf %in0, %in1 : f32
      linalg.yield %s : f32
    } -> tensor<2048x2x1x1024xf32>
    %empty94 = tensor.empty() : tensor<2048x2x1x1024xf16>
    %g10 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%g9 : tensor<2048x2x1x1024xf32>) outs(%empty94 : tensor<2048x2x1x1024xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<2048x2x1x1024xf16>
    %empty95 = tensor.empty() : tensor<2048x2x1x1024xi1>
    %g11 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked0 : tensor<2048x2x1x1024xf16>) outs(%empty95 : tensor<2048x2x1x1024xi1>) {
    ^bb0(%in0: f16, %out: i1):
      %q = arith.cmpf oeq, %in0, %ninf_f16 : f16
      linalg.yield %q : i1
    } -> tensor<2048x2x1x1024xi1>
    %cst71 = arith.constant true
    %empty96 = tensor.empty() : tensor<2048x2x1x1xi1>
    %fill71 = linalg.fill ins(%cst71 : i1) outs(%empty96 : tensor<2048x2x1x1xi1>) -> tensor<2048x2x1x1xi1>
    %all0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%g11 : tensor<2048x2x1x1024xi1>) outs(%fill71 : tensor<2048x2x1x1xi1>) {
    ^bb0(%in0: i1, %out: i1):
      %s = arith.andi %in0, %out : i1
      linalg.yield %s : i1
    } -> tensor<2048x2x1x1xi1>
    %empty97 = tensor.empty() : tensor<2048x2x1x1024xf16>
    %g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%all0, %zero_f16_0d, %g10 : tensor<2048x2x1x1xi1>, tensor<f16>, tensor<2048x2x1x1024xf16>) outs(%empty97 : tensor<2048x2x1x1024xf16>) {
    ^bb0(%in0: i1, %in1: f16, %in2: f16, %out: f16):
      %s = arith.select %in0, %in1, %in2 : f16
      linalg.yield %s : f16
    } -> tensor<2048x2x1x1024xf16>
    %empty98 = tensor.empty() : tensor<2048x2x1024x128xf16>
    %transposed5 = linalg.transpose ins(%gathered2 : tensor<2048x1024x2x128xf16>) outs(%empty98 : tensor<2048x2x1024x128xf16>) permutation = [0, 2, 1, 3]
    %collapsed3 = tensor.collapse_shape %g12 [[0, 1], [2], [3]] : tensor<2048x2x1x1024xf16> into tensor<4096x1x1024xf16>
    %collapsed4 = tensor.collapse_shape %transposed5 [[0, 1], [2], [3]] : tensor<2048x2x1024x128xf16> into tensor<4096x1024x128xf16>
    %cst72 = arith.constant 0.000000e+00 : f32
    %empty99 = tensor.empty() : tensor<4096x1x128xf32>
    %fill72 = linalg.fill ins(%cst72 : f32) outs(%empty99 : tensor<4096x1x128xf32>) -> tensor<4096x1x128xf32>
    %bmm1 = linalg.batch_matmul ins(%collapsed3, %collapsed4 : tensor<4096x1x1024xf16>, tensor<4096x1024x128xf16>) outs(%fill72 : tensor<4096x1x128xf32>) -> tensor<4096x1x128xf32>
    %empty100 = tensor.empty() : tensor<4096x1x128xf16>
    %g13 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bmm1 : tensor<4096x1x128xf32>) outs(%empty100 : tensor<4096x1x128xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<4096x1x128xf16>
    %expanded7 = tensor.expand_shape %g13 [[0, 1], [2], [3]] output_shape [2048, 2, 1, 128] : tensor<4096x1x128xf16> into tensor<2048x2x1x128xf16>
    %empty101 = tensor.empty() : tensor<2048x1x2x128xf16>
    %transposed6 = linalg.transpose ins(%expanded7 : tensor<2048x2x1x128xf16>) outs(%empty101 : tensor<2048x1x2x128xf16>) permutation = [0, 2, 1, 3]
    %collapsed5 = tensor.collapse_shape %transposed6 [[0, 1], [2], [3]] : tensor<2048x1x2x128xf16> into tensor<2048x2x128xf16>
    %expanded8 = tensor.expand_shape %bag0 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded9 = tensor.expand_shape %bag1 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded10 = tensor.expand_shape %bag2 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded11 = tensor.expand_shape %bag3 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded12 = tensor.expand_shape %bag4 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded13 = tensor.expand_shape %bag5 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded14 = tensor.expand_shape %bag6 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded15 = tensor.expand_shape %bag7 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded16 = tensor.expand_shape %bag8 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded17 = tensor.expand_shape %bag9 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded18 = tensor.expand_shape %bag10 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded19 = tensor.expand_shape %bag11 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded20 = tensor.expand_shape %bag12 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded21 = tensor.expand_shape %bag13 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded22 = tensor.expand_shape %bag14 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded23 = tensor.expand_shape %bag15 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded24 = tensor.expand_shape %bag16 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded25 = tensor.expand_shape %bag17 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded26 = tensor.expand_shape %bag18 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded27 = tensor.expand_shape %bag19 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded28 = tensor.expand_shape %bag20 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded29 = tensor.expand_shape %bag21 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded30 = tensor.expand_shape %bag22 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded31 = tensor.expand_shape %bag23 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded32 = tensor.expand_shape %bag24 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded33 = tensor.expand_shape %bag25 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded34 = tensor.expand_shape %bag26 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded35 = tensor.expand_shape %bag27 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded36 = tensor.expand_shape %bag28 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded37 = tensor.expand_shape %bag29 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded38 = tensor.expand_shape %bag30 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %expanded39 = tensor.expand_shape %bag31 [[0], [1, 2]] output_shape [32, 1, 128] : tensor<32x128xf16> into tensor<32x1x128xf16>
    %concat0 = tensor.concat dim(1) %expanded8, %expanded9, %expanded10, %expanded11, %expanded12, %expanded13, %expanded14, %expanded15, %expanded16, %expanded17, %expanded18, %expanded19, %expanded20, %expanded21, %expanded22, %expanded23, %expanded24, %expanded25, %expanded26, %expanded27, %expanded28, %expanded29, %expanded30, %expanded31, %expanded32, %expanded33, %expanded34, %expanded35, %expanded36, %expanded37, %expanded38, %expanded39 : (tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>, tensor<32x1x128xf16>) -> tensor<32x32x128xf16>
    %expanded40 = tensor.expand_shape %bag32 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded41 = tensor.expand_shape %bag33 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded42 = tensor.expand_shape %bag34 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded43 = tensor.expand_shape %bag35 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded44 = tensor.expand_shape %bag36 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded45 = tensor.expand_shape %bag37 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded46 = tensor.expand_shape %bag38 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded47 = tensor.expand_shape %bag39 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded48 = tensor.expand_shape %bag40 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded49 = tensor.expand_shape %bag41 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded50 = tensor.expand_shape %bag42 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded51 = tensor.expand_shape %bag43 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded52 = tensor.expand_shape %bag44 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded53 = tensor.expand_shape %bag45 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded54 = tensor.expand_shape %bag46 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded55 = tensor.expand_shape %bag47 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded56 = tensor.expand_shape %bag48 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded57 = tensor.expand_shape %bag49 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded58 = tensor.expand_shape %bag50 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded59 = tensor.expand_shape %bag51 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded60 = tensor.expand_shape %bag52 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded61 = tensor.expand_shape %bag53 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded62 = tensor.expand_shape %bag54 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded63 = tensor.expand_shape %bag55 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded64 = tensor.expand_shape %bag56 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded65 = tensor.expand_shape %bag57 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded66 = tensor.expand_shape %bag58 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded67 = tensor.expand_shape %bag59 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded68 = tensor.expand_shape %bag60 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded69 = tensor.expand_shape %bag61 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded70 = tensor.expand_shape %bag62 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %expanded71 = tensor.expand_shape %bag63 [[0], [1, 2]] output_shape [2048, 1, 128] : tensor<2048x128xf16> into tensor<2048x1x128xf16>
    %concat1 = tensor.concat dim(1) %expanded40, %expanded41, %expanded42, %expanded43, %expanded44, %expanded45, %expanded46, %expanded47, %expanded48, %expanded49, %expanded50, %expanded51, %expanded52, %expanded53, %expanded54, %expanded55, %expanded56, %expanded57, %expanded58, %expanded59, %expanded60, %expanded61, %expanded62, %expanded63, %expanded64, %expanded65, %expanded66, %expanded67, %expanded68, %expanded69, %expanded70, %expanded71 : (tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>, tensor<2048x1x128xf16>) -> tensor<2048x32x128xf16>
    %empty102 = tensor.empty() : tensor<2048x32x128xf16>
    %gathered3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cand_to_user : tensor<2048xi64>) outs(%empty102 : tensor<2048x32x128xf16>) {
    ^bb0(%in0: i64, %out: f16):
      %u = arith.index_cast %in0 : i64 to index
      %i1 = linalg.index 1 : index
      %i2 = linalg.index 2 : index
      %x = tensor.extract %concat0[%u, %i1, %i2] : tensor<32x32x128xf16>
      linalg.yield %x : f16
    } -> tensor<2048x32x128xf16>
    %concat2 = tensor.concat dim(1) %gathered3, %concat1, %collapsed5 : (tensor<2048x32x128xf16>, tensor<2048x32x128xf16>, tensor<2048x2x128xf16>) -> tensor<2048x66x128xf16>
    %empty103 = tensor.empty() : tensor<2048x64x66xf16>
    %w_rows0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w_lce : tensor<64x66xf16>) outs(%empty103 : tensor<2048x64x66xf16>) {
    ^bb0(%in0: f16, %out: f16):
      linalg.yield %in0 : f16
    } -> tensor<2048x64x66xf16>
    %cst73 = arith.constant 0.000000e+00 : f32
    %empty104 = tensor.empty() : tensor<2048x64x128xf32>
    %fill73 = linalg.fill ins(%cst73 : f32) outs(%empty104 : tensor<2048x64x128xf32>) -> tensor<2048x64x128xf32>
    %lce0 = linalg.batch_matmul ins(%w_rows0, %concat2 : tensor<2048x64x66xf16>, tensor<2048x66x128xf16>) outs(%fill73 : tensor<2048x64x128xf32>) -> tensor<2048x64x128xf32>
    %empty105 = tensor.empty() : tensor<2048x64x128xf16>
    %g14 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%lce0 : tensor<2048x64x128xf32>) outs(%empty105 : tensor<2048x64x128xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<2048x64x128xf16>
    %collapsed6 = tensor.collapse_shape %g14 [[0], [1, 2]] : tensor<2048x64x128xf16> into tensor<2048x8192xf16>
    %empty106 = tensor.empty() : tensor<8192x1024xf16>
    %transposed7 = linalg.transpose ins(%w_1 : tensor<1024x8192xf16>) outs(%empty106 : tensor<8192x1024xf16>) permutation = [1, 0]
    %cst74 = arith.constant 0.000000e+00 : f32
    %empty107 = tensor.empty() : tensor<2048x1024xf32>
    %fill74 = linalg.fill ins(%cst74 : f32) outs(%empty107 : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
    %mm3 = linalg.matmul ins(%collapsed6, %transposed7 : tensor<2048x8192xf16>, tensor<8192x1024xf16>) outs(%fill74 : tensor<2048x1024xf32>) -> tensor<2048x1024xf32>
    %empty108 = tensor.empty() : tensor<2048x1024xf16>
    %g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm3 : tensor<2048x1024xf32>) outs(%empty108 : tensor<2048x1024xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<2048x1024xf16>
    %empty109 = tensor.empty() : tensor<2048x1024xf16>
    %g16 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g15, %b_1 : tensor<2048x1024xf16>, tensor<1024xf16>) outs(%empty109 : tensor<2048x1024xf16>) {
    ^bb0(%in0: f16, %in1: f16, %out: f16):
      %s = arith.addf %in0, %in1 : f16
      linalg.yield %s : f16
    } -> tensor<2048x1024xf16>
    %empty110 = tensor.empty() : tensor<2048x1024xf16>
    %g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g16 : tensor<2048x1024xf16>) outs(%empty110 : tensor<2048x1024xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %p = arith.cmpf ugt, %in0, %cst_f16 : f16
      %r = arith.select %p, %in0, %cst_f16 : f16
      linalg.yield %r : f16
    } -> tensor<2048x1024xf16>
    %empty111 = tensor.empty() : tensor<1024x256xf16>
    %transposed8 = linalg.transpose ins(%w_2 : tensor<256x1024xf16>) outs(%empty111 : tensor<1024x256xf16>) permutation = [1, 0]
    %cst75 = arith.constant 0.000000e+00 : f32
    %empty112 = tensor.empty() : tensor<2048x256xf32>
    %fill75 = linalg.fill ins(%cst75 : f32) outs(%empty112 : tensor<2048x256xf32>) -> tensor<2048x256xf32>
    %mm4 = linalg.matmul ins(%g17, %transposed8 : tensor<2048x1024xf16>, tensor<1024x256xf16>) outs(%fill75 : tensor<2048x256xf32>) -> tensor<2048x256xf32>
    %empty113 = tensor.empty() : tensor<2048x256xf16>
    %g18 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm4 : tensor<2048x256xf32>) outs(%empty113 : tensor<2048x256xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<2048x256xf16>
    %empty114 = tensor.empty() : tensor<2048x256xf16>
    %g19 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g18, %b_2 : tensor<2048x256xf16>, tensor<256xf16>) outs(%empty114 : tensor<2048x256xf16>) {
    ^bb0(%in0: f16, %in1: f16, %out: f16):
      %s = arith.addf %in0, %in1 : f16
      linalg.yield %s : f16
    } -> tensor<2048x256xf16>
    %empty115 = tensor.empty() : tensor<2048x256xf16>
    %g20 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g19 : tensor<2048x256xf16>) outs(%empty115 : tensor<2048x256xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %p = arith.cmpf ugt, %in0, %cst_f16 : f16
      %r = arith.select %p, %in0, %cst_f16 : f16
      linalg.yield %r : f16
    } -> tensor<2048x256xf16>
    %empty116 = tensor.empty() : tensor<256x1xf16>
    %transposed9 = linalg.transpose ins(%w_3 : tensor<1x256xf16>) outs(%empty116 : tensor<256x1xf16>) permutation = [1, 0]
    %cst76 = arith.constant 0.000000e+00 : f32
    %empty117 = tensor.empty() : tensor<2048x1xf32>
    %fill76 = linalg.fill ins(%cst76 : f32) outs(%empty117 : tensor<2048x1xf32>) -> tensor<2048x1xf32>
    %mm5 = linalg.matmul ins(%g20, %transposed9 : tensor<2048x256xf16>, tensor<256x1xf16>) outs(%fill76 : tensor<2048x1xf32>) -> tensor<2048x1xf32>
    %empty118 = tensor.empty() : tensor<2048x1xf16>
    %g21 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm5 : tensor<2048x1xf32>) outs(%empty118 : tensor<2048x1xf16>) {
    ^bb0(%in0: f32, %out: f16):
      %t = arith.truncf %in0 : f32 to f16
      linalg.yield %t : f16
    } -> tensor<2048x1xf16>
    %empty119 = tensor.empty() : tensor<2048x1xf16>
    %g22 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g21, %b_3 : tensor<2048x1xf16>, tensor<1xf16>) outs(%empty119 : tensor<2048x1xf16>) {
    ^bb0(%in0: f16, %in1: f16, %out: f16):
      %s = arith.addf %in0, %in1 : f16
      linalg.yield %s : f16
    } -> tensor<2048x1xf16>
    %empty120 = tensor.empty() : tensor<2048x1xf16>
    %g23 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g22 : tensor<2048x1xf16>) outs(%empty120 : tensor<2048x1xf16>) {
    ^bb0(%in0: f16, %out: f16):
      %neg = arith.negf %in0 : f16
      %e = math.exp %neg : f16
      %d = arith.addf %e, %one_f16 : f16
      %s = arith.divf %one_f16, %d : f16
      linalg.yield %s : f16
    } -> tensor<2048x1xf16>
    return %g23 : tensor<2048x1xf16>
  }
}

// The emb dialect: table-batched embedding lookups, their backward fused with
// an optimizer, and the broadcast of request-only (user) tensors to candidate
// rows.
//
// This file is the single definition of the ops' names, operands (with their
// optional and variadic groups), results and required attributes. It is
// embedded into libemb at build time and loaded into a context by
// embLoadDialect. The types are checked by dialect/op_verifier.c, not here:
// IRDL's own messages do not say which operand or attribute is wrong, and a
// failed IRDL check stops verification before ours can run. So every
// operand, result and attribute is `irdl.any` here (operands are ranked
// tensors, `mode`/`pooling`/`optimizer` strings, `feature_tables` an i64
// array), and op_verifier.c checks kinds, element types, shapes that must
// agree, attribute values and the optional attributes IRDL cannot declare,
// naming what is wrong.
// docs/dialect.md describes each op.
//
// Each operand gets its own constraint value: IRDL makes values that share one
// constraint value have equal types.

irdl.dialect @emb {
  // emb.embedding_bag(weight[E,D], indices[N], offsets[B+1],
  //                   per_sample_weights[N]?) {mode, padding_idx?,
  //                   bounds_check?} -> [B,D] ([N,D] for mode none)
  irdl.operation @embedding_bag {
    %weight = irdl.any
    %indices = irdl.any
    %offsets = irdl.any
    %psw = irdl.any
    %result = irdl.any
    %mode = irdl.any
    irdl.attributes { "mode" = %mode }
    irdl.operands(weight: %weight, indices: %indices, offsets: %offsets,
                  per_sample_weights: optional %psw)
    irdl.results(result: %result)
  }

  // The handle of one table of a table-batched lookup: what emb.tbe takes.
  irdl.type @table_handle {
  }

  // emb.table(weight[E,D]) -> !emb.table_handle
  //
  // Names a tensor as one table of an emb.tbe. IRDL checks a variadic operand
  // group against one type variable, so all of a group's operands must have
  // the same type; tables of different shapes therefore reach emb.tbe as
  // handles (all of type !emb.table_handle), and each table's shape and
  // element type is read from the emb.table op that made its handle.
  irdl.operation @table {
    %weight = irdl.any
    %handle = irdl.any
    irdl.operands(weight: %weight)
    irdl.results(handle: %handle)
  }

  // emb.tbe(indices[N], offsets[F*B+1], weights_0..weights_{T-1},
  //         per_sample_weights[N]?) {pooling, feature_tables, bounds_check?,
  //         padding_idx?} -> [B, sum of D over features] ([N,D] for none).
  // weights_t is the !emb.table_handle of table t (see emb.table).
  // Generic form: operandSegmentSizes = array<i32: 1, 1, T, 0 or 1>. The
  // unit attribute feature_ends: offsets has 2F more entries, each
  // feature's end in indices and its own last offset (docs/dialect.md).
  irdl.operation @tbe {
    %indices = irdl.any
    %offsets = irdl.any
    %weights = irdl.any
    %psw = irdl.any
    %result = irdl.any
    %pooling = irdl.any
    %feature_tables = irdl.any
    irdl.attributes { "pooling" = %pooling, "feature_tables" = %feature_tables }
    irdl.operands(indices: %indices, offsets: %offsets,
                  weights: variadic %weights,
                  per_sample_weights: optional %psw)
    irdl.results(result: %result)
  }

  // emb.quantize_table(weight[E,D]) {precision, dim = D}
  //   -> packed[E, row bytes] of i8
  // The packed rows of a dense f32/f16/bf16 table at precision "int8",
  // "int4", "int2" or "fp8" (embrtQuantizeTable): what an emb.table
  // {precision, dim} takes. emb-quantize-tables makes it for a table passed
  // in as an argument (a constant one it quantizes at compile time).
  irdl.operation @quantize_table {
    %weight = irdl.any
    %packed = irdl.any
    %precision = irdl.any
    %dim = irdl.any
    irdl.attributes { "precision" = %precision, "dim" = %dim }
    irdl.operands(weight: %weight)
    irdl.results(packed: %packed)
  }

  // The handle of one optimizer state of one table (momentum1 or momentum2
  // of a backward): what emb.tbe_backward takes and returns beside the
  // tables' handles.
  irdl.type @state_handle {
  }

  // emb.state(state[E] or [E,D], f32, bf16 or i8) -> !emb.state_handle
  //
  // Names a tensor as the optimizer state of one table of an
  // emb.tbe_backward, as emb.table names a table.
  irdl.operation @state {
    %state = irdl.any
    %handle = irdl.any
    irdl.operands(state: %state)
    irdl.results(handle: %handle)
  }

  // emb.table_value(handle) -> tensor
  //
  // The tensor a handle names: the updated table or state an
  // emb.tbe_backward returns (or the tensor of an emb.table / emb.state).
  irdl.operation @table_value {
    %handle = irdl.any
    %result = irdl.any
    irdl.operands(handle: %handle)
    irdl.results(result: %result)
  }

  // emb.tbe_backward(indices[N], offsets[F*B+1], weights_0..weights_{T-1},
  //                  per_sample_weights[N]?, grad_output,
  //                  momentum1_0..momentum1_{T-1}? (+ T scales for fp8),
  //                  momentum2_0..momentum2_{T-1}? (+ T scales for fp8),
  //                  hyper_params[5], step[]?)
  //   {optimizer, pooling, feature_tables, bounds_check?, padding_idx?,
  //    seed?, momentum1_precision?, momentum2_precision?}
  //   -> (new weights x T, new momentum1 x (0, T or 2T), new momentum2 x
  //       (0, T or 2T))
  // The fused backward and optimizer step of the emb.tbe with the same
  // operands: functional here, in place once lowered (each result is its
  // operand's buffer). Tables are !emb.table_handle (emb.table), states
  // !emb.state_handle (emb.state). Generic form: operandSegmentSizes =
  // array<i32: 1, 1, T, 0 or 1, 1, M1, M2, 1, 0 or 1> and
  // resultSegmentSizes = array<i32: T, M1, M2>, each M 0, T, or 2T for an
  // fp8 state's codes and scales.
  irdl.operation @tbe_backward {
    %indices = irdl.any
    %offsets = irdl.any
    %weights = irdl.any
    %psw = irdl.any
    %grad = irdl.any
    %momentum1 = irdl.any
    %momentum2 = irdl.any
    %hyper = irdl.any
    %step = irdl.any
    %new_weights = irdl.any
    %new_momentum1 = irdl.any
    %new_momentum2 = irdl.any
    %optimizer = irdl.any
    %pooling = irdl.any
    %feature_tables = irdl.any
    irdl.attributes { "optimizer" = %optimizer, "pooling" = %pooling,
                      "feature_tables" = %feature_tables }
    irdl.operands(indices: %indices, offsets: %offsets,
                  weights: variadic %weights,
                  per_sample_weights: optional %psw,
                  grad_output: %grad,
                  momentum1: variadic %momentum1,
                  momentum2: variadic %momentum2,
                  hyper_params: %hyper,
                  step: optional %step)
    irdl.results(new_weights: variadic %new_weights,
                 new_momentum1: variadic %new_momentum1,
                 new_momentum2: variadic %new_momentum2)
  }

  // emb.embedding_bag_backward(weight[E,D], indices[N], offsets[B+1],
  //                            per_sample_weights[N]?, grad_output,
  //                            momentum1?, momentum2?, hyper_params[5],
  //                            step[]?)
  //   {optimizer, mode, bounds_check?, padding_idx?, seed?,
  //    momentum1_precision?, momentum2_precision?}
  //   -> (new_weight[E,D], new_momentum1?, new_momentum2?)
  // emb.tbe_backward for one table and one feature; tensors, not handles
  // (states f32 or bf16: an fp8 state's scales need emb.tbe_backward).
  // Generic form: operandSegmentSizes = array<i32: 1, 1, 1, 0 or 1, 1,
  // 0 or 1, 0 or 1, 1, 0 or 1>, resultSegmentSizes = array<i32: 1, 0 or 1,
  // 0 or 1>.
  irdl.operation @embedding_bag_backward {
    %weight = irdl.any
    %indices = irdl.any
    %offsets = irdl.any
    %psw = irdl.any
    %grad = irdl.any
    %momentum1 = irdl.any
    %momentum2 = irdl.any
    %hyper = irdl.any
    %step = irdl.any
    %new_weight = irdl.any
    %new_momentum1 = irdl.any
    %new_momentum2 = irdl.any
    %optimizer = irdl.any
    %mode = irdl.any
    irdl.attributes { "optimizer" = %optimizer, "mode" = %mode }
    irdl.operands(weight: %weight, indices: %indices, offsets: %offsets,
                  per_sample_weights: optional %psw,
                  grad_output: %grad,
                  momentum1: optional %momentum1,
                  momentum2: optional %momentum2,
                  hyper_params: %hyper,
                  step: optional %step)
    irdl.results(new_weight: %new_weight,
                 new_momentum1: optional %new_momentum1,
                 new_momentum2: optional %new_momentum2)
  }

  // emb.broadcast(ro[U,...], cand_to_user[B]) -> [B,...]
  irdl.operation @broadcast {
    %ro = irdl.any
    %cand_to_user = irdl.any
    %result = irdl.any
    irdl.operands(ro: %ro, cand_to_user: %cand_to_user)
    irdl.results(result: %result)
  }

  // emb.lce(w[M,K], x[B,K,N]) -> [B,M,N]
  irdl.operation @lce {
    %w = irdl.any
    %x = irdl.any
    %result = irdl.any
    irdl.operands(w: %w, x: %x)
    irdl.results(result: %result)
  }

  // emb.ikbo_lce(w_user[M,Ku], w_cand[M,Kc], user[U,Ku,N], cand[B,Kc,N],
  //              cand_to_user[B]) -> [B,M,N]
  irdl.operation @ikbo_lce {
    %w_user = irdl.any
    %w_cand = irdl.any
    %user = irdl.any
    %cand = irdl.any
    %cand_to_user = irdl.any
    %result = irdl.any
    irdl.operands(w_user: %w_user, w_cand: %w_cand, user: %user,
                  cand: %cand, cand_to_user: %cand_to_user)
    irdl.results(result: %result)
  }

  // emb.attention(q[B,Lq,H,Dh], k[B,Lk,H,Dh], v[B,Lk,H,Dh],
  //               key_lengths[B]?) {scale?} -> [B,Lq,H,Dh]
  irdl.operation @attention {
    %q = irdl.any
    %k = irdl.any
    %v = irdl.any
    %key_lengths = irdl.any
    %result = irdl.any
    irdl.operands(q: %q, k: %k, v: %v, key_lengths: optional %key_lengths)
    irdl.results(result: %result)
  }

  // emb.ikbo_attention(q[B,Lq,H,Dh], k_user[U,Lk,H,Dh], v_user[U,Lk,H,Dh],
  //                    cand_to_user[B], user_lengths[U]?) {scale?}
  //   -> [B,Lq,H,Dh]
  irdl.operation @ikbo_attention {
    %q = irdl.any
    %k_user = irdl.any
    %v_user = irdl.any
    %cand_to_user = irdl.any
    %user_lengths = irdl.any
    %result = irdl.any
    irdl.operands(q: %q, k_user: %k_user, v_user: %v_user,
                  cand_to_user: %cand_to_user,
                  user_lengths: optional %user_lengths)
    irdl.results(result: %result)
  }

  // emb.broadcast_add(ro[U,...], cand_to_user[B], nro[B,...]) -> [B,...]
  irdl.operation @broadcast_add {
    %ro = irdl.any
    %cand_to_user = irdl.any
    %nro = irdl.any
    %result = irdl.any
    irdl.operands(ro: %ro, cand_to_user: %cand_to_user, nro: %nro)
    irdl.results(result: %result)
  }

  // emb.jagged_to_padded(values[N,D], offsets[U+1]) {max_length = Lk,
  //   padding_value?} -> (padded[U,Lk,D], lengths[U])
  // A sequence feature's jagged rows (user u's rows are
  // values[offsets[u] .. offsets[u+1])) into the padded form attention
  // reads: row l < min(length, Lk) of user u is its l-th row, the rest are
  // padding_value (0 when absent); lengths[u] = min(length, Lk).
  irdl.operation @jagged_to_padded {
    %values = irdl.any
    %offsets = irdl.any
    %padded = irdl.any
    %lengths = irdl.any
    %max_length = irdl.any
    irdl.attributes { "max_length" = %max_length }
    irdl.operands(values: %values, offsets: %offsets)
    irdl.results(padded: %padded, lengths: %lengths)
  }

  //===--------------------------------------------------------------------===//
  // Sharding: the input and output dists of a sharded emb.tbe
  // (docs/sharding.md). The collectives run over a communicator of
  // world_size ranks; every rank issues the same collectives in the same
  // order.
  //===--------------------------------------------------------------------===//

  // emb.bucketize(indices[N], offsets[F*B+1], per_sample_weights[N]?)
  //   {world_size, slot_ranks, slot_features, slot_row_begin, slot_row_end}
  //   -> (ids[?], lengths[S*B], counts[W], weights[?]?)
  // Splits a local batch of F features by the slots of a sharding plan:
  // slot s takes the ids of feature slot_features[s] that fall in its rows,
  // minus slot_row_begin[s], for rank slot_ranks[s]; with per-sample
  // weights, `weights` holds each taken id's weight.
  irdl.operation @bucketize {
    %indices = irdl.any
    %offsets = irdl.any
    %psw = irdl.any
    %ids = irdl.any
    %lengths = irdl.any
    %counts = irdl.any
    %weights = irdl.any
    %world_size = irdl.any
    %slot_ranks = irdl.any
    %slot_features = irdl.any
    %slot_row_begin = irdl.any
    %slot_row_end = irdl.any
    irdl.attributes { "world_size" = %world_size, "slot_ranks" = %slot_ranks,
                      "slot_features" = %slot_features,
                      "slot_row_begin" = %slot_row_begin,
                      "slot_row_end" = %slot_row_end }
    irdl.operands(indices: %indices, offsets: %offsets,
                  per_sample_weights: optional %psw)
    irdl.results(ids: %ids, lengths: %lengths, counts: %counts,
                 weights: optional %weights)
  }

  // emb.lengths_to_offsets(lengths[L]) {blocks} -> (offsets[L+1], sums[K])
  irdl.operation @lengths_to_offsets {
    %lengths = irdl.any
    %offsets = irdl.any
    %sums = irdl.any
    %blocks = irdl.any
    irdl.attributes { "blocks" = %blocks }
    irdl.operands(lengths: %lengths)
    irdl.results(offsets: %offsets, block_sums: %sums)
  }

  // emb.all_to_all(send[N,...], send_counts[W]?, recv_counts[W]?)
  //   {world_size, send_splits?, recv_splits?} -> [M,...]
  // The counts are both present (device tensors) or both absent (then the
  // splits attributes give them).
  irdl.operation @all_to_all {
    %send = irdl.any
    %counts = irdl.any
    %recv = irdl.any
    %world_size = irdl.any
    irdl.attributes { "world_size" = %world_size }
    irdl.operands(send: %send, counts: variadic %counts)
    irdl.results(recv: %recv)
  }

  // emb.reduce_scatter(send[W*M,...]) {world_size} -> [M,...] (sum)
  irdl.operation @reduce_scatter {
    %send = irdl.any
    %recv = irdl.any
    %world_size = irdl.any
    irdl.attributes { "world_size" = %world_size }
    irdl.operands(send: %send)
    irdl.results(recv: %recv)
  }

  // emb.all_gather(send[M,...]) {world_size} -> [W*M,...]
  irdl.operation @all_gather {
    %send = irdl.any
    %recv = irdl.any
    %world_size = irdl.any
    irdl.attributes { "world_size" = %world_size }
    irdl.operands(send: %send)
    irdl.results(recv: %recv)
  }
}

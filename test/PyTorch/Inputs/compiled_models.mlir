// Small models that test/PyTorch/test_compiled.py calls through
// emb_torch.load, compiled by make_compiled_models.sh (emb-compile --shared,
// one .so per entry and target); the test computes each in torch.
//
// @dense_tower: two features (B = 4) over two tables, pooled (weighted
//   sum), then relu(concat(pooled, dense) @ w): static results only, so a
//   call can be captured into a CUDA graph.
// @sgd_step: the same lookup and its backward with SGD: the tables are
//   updated in place, in the caller's tensors; returns the pooled forward.
// @sequence: pooling none over a dynamic id list: a result of run-time
//   shape [N, 8] (an embrtCompiledResult).

func.func @dense_tower(%ids: tensor<?xi64>, %offsets: tensor<9xi64>,
                       %weights: tensor<?xf32>,
                       %t0: tensor<50x16xf32>, %t1: tensor<30x16xf32>,
                       %dense: tensor<4x32xf32>, %w: tensor<64x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x32xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<50x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<30x16xf32>) -> !emb.table_handle
  %pooled = "emb.tbe"(%ids, %offsets, %h0, %h1, %weights) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 1>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<?xf32>) -> tensor<4x32xf32>
  %x = tensor.concat dim(1) %pooled, %dense : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x64xf32>
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x64xf32>, tensor<64x8xf32>) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %zeros = arith.constant dense<0.000000e+00> : tensor<4x8xf32>
  %r = arith.maximumf %y, %zeros : tensor<4x8xf32>
  return %r, %pooled : tensor<4x8xf32>, tensor<4x32xf32>
}

func.func @sgd_step(%ids: tensor<?xi64>, %offsets: tensor<9xi64>,
                    %t0: tensor<50x16xf32>, %t1: tensor<30x16xf32>,
                    %grad: tensor<4x32xf32>, %hyper: tensor<5xf32>)
    -> tensor<4x32xf32> {
  %h0 = "emb.table"(%t0) : (tensor<50x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<30x16xf32>) -> !emb.table_handle
  %pooled = "emb.tbe"(%ids, %offsets, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x32xf32>
  %new:2 = "emb.tbe_backward"(%ids, %offsets, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x32xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  return %pooled : tensor<4x32xf32>
}

func.func @sequence(%w: tensor<100x8xf32>, %ids: tensor<?xi64>, %off: tensor<?xi64>) -> tensor<?x8xf32> {
  %0 = "emb.embedding_bag"(%w, %ids, %off) {mode = "none"} : (tensor<100x8xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// More inputs than a torch.library schema takes (64): emb_torch.load registers the entry
// with its inputs as a tensor list (test_compiled.py, many_inputs).
func.func @many_inputs(%x0: tensor<4xf32>, %x1: tensor<4xf32>, %x2: tensor<4xf32>, %x3: tensor<4xf32>, %x4: tensor<4xf32>, %x5: tensor<4xf32>, %x6: tensor<4xf32>, %x7: tensor<4xf32>, %x8: tensor<4xf32>, %x9: tensor<4xf32>, %x10: tensor<4xf32>, %x11: tensor<4xf32>, %x12: tensor<4xf32>, %x13: tensor<4xf32>, %x14: tensor<4xf32>, %x15: tensor<4xf32>, %x16: tensor<4xf32>, %x17: tensor<4xf32>, %x18: tensor<4xf32>, %x19: tensor<4xf32>, %x20: tensor<4xf32>, %x21: tensor<4xf32>, %x22: tensor<4xf32>, %x23: tensor<4xf32>, %x24: tensor<4xf32>, %x25: tensor<4xf32>, %x26: tensor<4xf32>, %x27: tensor<4xf32>, %x28: tensor<4xf32>, %x29: tensor<4xf32>, %x30: tensor<4xf32>, %x31: tensor<4xf32>, %x32: tensor<4xf32>, %x33: tensor<4xf32>, %x34: tensor<4xf32>, %x35: tensor<4xf32>, %x36: tensor<4xf32>, %x37: tensor<4xf32>, %x38: tensor<4xf32>, %x39: tensor<4xf32>, %x40: tensor<4xf32>, %x41: tensor<4xf32>, %x42: tensor<4xf32>, %x43: tensor<4xf32>, %x44: tensor<4xf32>, %x45: tensor<4xf32>, %x46: tensor<4xf32>, %x47: tensor<4xf32>, %x48: tensor<4xf32>, %x49: tensor<4xf32>, %x50: tensor<4xf32>, %x51: tensor<4xf32>, %x52: tensor<4xf32>, %x53: tensor<4xf32>, %x54: tensor<4xf32>, %x55: tensor<4xf32>, %x56: tensor<4xf32>, %x57: tensor<4xf32>, %x58: tensor<4xf32>, %x59: tensor<4xf32>, %x60: tensor<4xf32>, %x61: tensor<4xf32>, %x62: tensor<4xf32>, %x63: tensor<4xf32>, %x64: tensor<4xf32>, %x65: tensor<4xf32>) -> tensor<4xf32> {
  %s1 = arith.addf %x0, %x1 : tensor<4xf32>
  %s2 = arith.addf %s1, %x2 : tensor<4xf32>
  %s3 = arith.addf %s2, %x3 : tensor<4xf32>
  %s4 = arith.addf %s3, %x4 : tensor<4xf32>
  %s5 = arith.addf %s4, %x5 : tensor<4xf32>
  %s6 = arith.addf %s5, %x6 : tensor<4xf32>
  %s7 = arith.addf %s6, %x7 : tensor<4xf32>
  %s8 = arith.addf %s7, %x8 : tensor<4xf32>
  %s9 = arith.addf %s8, %x9 : tensor<4xf32>
  %s10 = arith.addf %s9, %x10 : tensor<4xf32>
  %s11 = arith.addf %s10, %x11 : tensor<4xf32>
  %s12 = arith.addf %s11, %x12 : tensor<4xf32>
  %s13 = arith.addf %s12, %x13 : tensor<4xf32>
  %s14 = arith.addf %s13, %x14 : tensor<4xf32>
  %s15 = arith.addf %s14, %x15 : tensor<4xf32>
  %s16 = arith.addf %s15, %x16 : tensor<4xf32>
  %s17 = arith.addf %s16, %x17 : tensor<4xf32>
  %s18 = arith.addf %s17, %x18 : tensor<4xf32>
  %s19 = arith.addf %s18, %x19 : tensor<4xf32>
  %s20 = arith.addf %s19, %x20 : tensor<4xf32>
  %s21 = arith.addf %s20, %x21 : tensor<4xf32>
  %s22 = arith.addf %s21, %x22 : tensor<4xf32>
  %s23 = arith.addf %s22, %x23 : tensor<4xf32>
  %s24 = arith.addf %s23, %x24 : tensor<4xf32>
  %s25 = arith.addf %s24, %x25 : tensor<4xf32>
  %s26 = arith.addf %s25, %x26 : tensor<4xf32>
  %s27 = arith.addf %s26, %x27 : tensor<4xf32>
  %s28 = arith.addf %s27, %x28 : tensor<4xf32>
  %s29 = arith.addf %s28, %x29 : tensor<4xf32>
  %s30 = arith.addf %s29, %x30 : tensor<4xf32>
  %s31 = arith.addf %s30, %x31 : tensor<4xf32>
  %s32 = arith.addf %s31, %x32 : tensor<4xf32>
  %s33 = arith.addf %s32, %x33 : tensor<4xf32>
  %s34 = arith.addf %s33, %x34 : tensor<4xf32>
  %s35 = arith.addf %s34, %x35 : tensor<4xf32>
  %s36 = arith.addf %s35, %x36 : tensor<4xf32>
  %s37 = arith.addf %s36, %x37 : tensor<4xf32>
  %s38 = arith.addf %s37, %x38 : tensor<4xf32>
  %s39 = arith.addf %s38, %x39 : tensor<4xf32>
  %s40 = arith.addf %s39, %x40 : tensor<4xf32>
  %s41 = arith.addf %s40, %x41 : tensor<4xf32>
  %s42 = arith.addf %s41, %x42 : tensor<4xf32>
  %s43 = arith.addf %s42, %x43 : tensor<4xf32>
  %s44 = arith.addf %s43, %x44 : tensor<4xf32>
  %s45 = arith.addf %s44, %x45 : tensor<4xf32>
  %s46 = arith.addf %s45, %x46 : tensor<4xf32>
  %s47 = arith.addf %s46, %x47 : tensor<4xf32>
  %s48 = arith.addf %s47, %x48 : tensor<4xf32>
  %s49 = arith.addf %s48, %x49 : tensor<4xf32>
  %s50 = arith.addf %s49, %x50 : tensor<4xf32>
  %s51 = arith.addf %s50, %x51 : tensor<4xf32>
  %s52 = arith.addf %s51, %x52 : tensor<4xf32>
  %s53 = arith.addf %s52, %x53 : tensor<4xf32>
  %s54 = arith.addf %s53, %x54 : tensor<4xf32>
  %s55 = arith.addf %s54, %x55 : tensor<4xf32>
  %s56 = arith.addf %s55, %x56 : tensor<4xf32>
  %s57 = arith.addf %s56, %x57 : tensor<4xf32>
  %s58 = arith.addf %s57, %x58 : tensor<4xf32>
  %s59 = arith.addf %s58, %x59 : tensor<4xf32>
  %s60 = arith.addf %s59, %x60 : tensor<4xf32>
  %s61 = arith.addf %s60, %x61 : tensor<4xf32>
  %s62 = arith.addf %s61, %x62 : tensor<4xf32>
  %s63 = arith.addf %s62, %x63 : tensor<4xf32>
  %s64 = arith.addf %s63, %x64 : tensor<4xf32>
  %s65 = arith.addf %s64, %x65 : tensor<4xf32>
  return %s65 : tensor<4xf32>
}

// The training step of @sgd_step with 60 more inputs (66 in all): the op takes the inputs it
// reads and the tables it updates as two lists (test_compiled.py, many_inputs).
func.func @many_inputs_sgd(%ids: tensor<?xi64>, %offsets: tensor<9xi64>,
                           %t0: tensor<50x16xf32>, %t1: tensor<30x16xf32>,
                           %grad: tensor<4x32xf32>, %hyper: tensor<5xf32>,
                           %x0: tensor<4xf32>, %x1: tensor<4xf32>, %x2: tensor<4xf32>, %x3: tensor<4xf32>, %x4: tensor<4xf32>, %x5: tensor<4xf32>, %x6: tensor<4xf32>, %x7: tensor<4xf32>, %x8: tensor<4xf32>, %x9: tensor<4xf32>, %x10: tensor<4xf32>, %x11: tensor<4xf32>, %x12: tensor<4xf32>, %x13: tensor<4xf32>, %x14: tensor<4xf32>, %x15: tensor<4xf32>, %x16: tensor<4xf32>, %x17: tensor<4xf32>, %x18: tensor<4xf32>, %x19: tensor<4xf32>, %x20: tensor<4xf32>, %x21: tensor<4xf32>, %x22: tensor<4xf32>, %x23: tensor<4xf32>, %x24: tensor<4xf32>, %x25: tensor<4xf32>, %x26: tensor<4xf32>, %x27: tensor<4xf32>, %x28: tensor<4xf32>, %x29: tensor<4xf32>, %x30: tensor<4xf32>, %x31: tensor<4xf32>, %x32: tensor<4xf32>, %x33: tensor<4xf32>, %x34: tensor<4xf32>, %x35: tensor<4xf32>, %x36: tensor<4xf32>, %x37: tensor<4xf32>, %x38: tensor<4xf32>, %x39: tensor<4xf32>, %x40: tensor<4xf32>, %x41: tensor<4xf32>, %x42: tensor<4xf32>, %x43: tensor<4xf32>, %x44: tensor<4xf32>, %x45: tensor<4xf32>, %x46: tensor<4xf32>, %x47: tensor<4xf32>, %x48: tensor<4xf32>, %x49: tensor<4xf32>, %x50: tensor<4xf32>, %x51: tensor<4xf32>, %x52: tensor<4xf32>, %x53: tensor<4xf32>, %x54: tensor<4xf32>, %x55: tensor<4xf32>, %x56: tensor<4xf32>, %x57: tensor<4xf32>, %x58: tensor<4xf32>, %x59: tensor<4xf32>)
    -> (tensor<4x32xf32>, tensor<4xf32>) {
  %h0 = "emb.table"(%t0) : (tensor<50x16xf32>) -> !emb.table_handle
  %h1 = "emb.table"(%t1) : (tensor<30x16xf32>) -> !emb.table_handle
  %pooled = "emb.tbe"(%ids, %offsets, %h0, %h1) {pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle) -> tensor<4x32xf32>
  %new:2 = "emb.tbe_backward"(%ids, %offsets, %h0, %h1, %grad, %hyper) {optimizer = "sgd", pooling = "sum", feature_tables = array<i64: 0, 1>, operandSegmentSizes = array<i32: 1, 1, 2, 0, 1, 0, 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0, 0>} : (tensor<?xi64>, tensor<9xi64>, !emb.table_handle, !emb.table_handle, tensor<4x32xf32>, tensor<5xf32>) -> (!emb.table_handle, !emb.table_handle)
  %s1 = arith.addf %x0, %x1 : tensor<4xf32>
  %s2 = arith.addf %s1, %x2 : tensor<4xf32>
  %s3 = arith.addf %s2, %x3 : tensor<4xf32>
  %s4 = arith.addf %s3, %x4 : tensor<4xf32>
  %s5 = arith.addf %s4, %x5 : tensor<4xf32>
  %s6 = arith.addf %s5, %x6 : tensor<4xf32>
  %s7 = arith.addf %s6, %x7 : tensor<4xf32>
  %s8 = arith.addf %s7, %x8 : tensor<4xf32>
  %s9 = arith.addf %s8, %x9 : tensor<4xf32>
  %s10 = arith.addf %s9, %x10 : tensor<4xf32>
  %s11 = arith.addf %s10, %x11 : tensor<4xf32>
  %s12 = arith.addf %s11, %x12 : tensor<4xf32>
  %s13 = arith.addf %s12, %x13 : tensor<4xf32>
  %s14 = arith.addf %s13, %x14 : tensor<4xf32>
  %s15 = arith.addf %s14, %x15 : tensor<4xf32>
  %s16 = arith.addf %s15, %x16 : tensor<4xf32>
  %s17 = arith.addf %s16, %x17 : tensor<4xf32>
  %s18 = arith.addf %s17, %x18 : tensor<4xf32>
  %s19 = arith.addf %s18, %x19 : tensor<4xf32>
  %s20 = arith.addf %s19, %x20 : tensor<4xf32>
  %s21 = arith.addf %s20, %x21 : tensor<4xf32>
  %s22 = arith.addf %s21, %x22 : tensor<4xf32>
  %s23 = arith.addf %s22, %x23 : tensor<4xf32>
  %s24 = arith.addf %s23, %x24 : tensor<4xf32>
  %s25 = arith.addf %s24, %x25 : tensor<4xf32>
  %s26 = arith.addf %s25, %x26 : tensor<4xf32>
  %s27 = arith.addf %s26, %x27 : tensor<4xf32>
  %s28 = arith.addf %s27, %x28 : tensor<4xf32>
  %s29 = arith.addf %s28, %x29 : tensor<4xf32>
  %s30 = arith.addf %s29, %x30 : tensor<4xf32>
  %s31 = arith.addf %s30, %x31 : tensor<4xf32>
  %s32 = arith.addf %s31, %x32 : tensor<4xf32>
  %s33 = arith.addf %s32, %x33 : tensor<4xf32>
  %s34 = arith.addf %s33, %x34 : tensor<4xf32>
  %s35 = arith.addf %s34, %x35 : tensor<4xf32>
  %s36 = arith.addf %s35, %x36 : tensor<4xf32>
  %s37 = arith.addf %s36, %x37 : tensor<4xf32>
  %s38 = arith.addf %s37, %x38 : tensor<4xf32>
  %s39 = arith.addf %s38, %x39 : tensor<4xf32>
  %s40 = arith.addf %s39, %x40 : tensor<4xf32>
  %s41 = arith.addf %s40, %x41 : tensor<4xf32>
  %s42 = arith.addf %s41, %x42 : tensor<4xf32>
  %s43 = arith.addf %s42, %x43 : tensor<4xf32>
  %s44 = arith.addf %s43, %x44 : tensor<4xf32>
  %s45 = arith.addf %s44, %x45 : tensor<4xf32>
  %s46 = arith.addf %s45, %x46 : tensor<4xf32>
  %s47 = arith.addf %s46, %x47 : tensor<4xf32>
  %s48 = arith.addf %s47, %x48 : tensor<4xf32>
  %s49 = arith.addf %s48, %x49 : tensor<4xf32>
  %s50 = arith.addf %s49, %x50 : tensor<4xf32>
  %s51 = arith.addf %s50, %x51 : tensor<4xf32>
  %s52 = arith.addf %s51, %x52 : tensor<4xf32>
  %s53 = arith.addf %s52, %x53 : tensor<4xf32>
  %s54 = arith.addf %s53, %x54 : tensor<4xf32>
  %s55 = arith.addf %s54, %x55 : tensor<4xf32>
  %s56 = arith.addf %s55, %x56 : tensor<4xf32>
  %s57 = arith.addf %s56, %x57 : tensor<4xf32>
  %s58 = arith.addf %s57, %x58 : tensor<4xf32>
  %s59 = arith.addf %s58, %x59 : tensor<4xf32>
  return %pooled, %s59 : tensor<4x32xf32>, tensor<4xf32>
}

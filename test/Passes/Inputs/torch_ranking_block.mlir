// Two ranking blocks in torch-mlir's form, as bench/passes/gen_torch_module.py
// writes them (fp16): per block three user sum bags at user batch size, a
// user-only tanh, an index_select broadcast of the users to 64 candidates,
// four candidate sum bags, a K-concat and torch.matmul(W, X); the first block
// also has a target attention (decomposed SDPA) over keys and values
// gathered per candidate. The second block's X includes the first's output.
func.func @ranking_block(%ut0: tensor<100x16xf16>, %ut1: tensor<100x16xf16>, %ut2: tensor<100x16xf16>, %uids0: tensor<12xi64>, %uoff0: tensor<4xi64>, %uids1: tensor<12xi64>, %uoff1: tensor<4xi64>, %uids2: tensor<12xi64>, %uoff2: tensor<4xi64>, %ct0: tensor<200x16xf16>, %cids0: tensor<128xi64>, %coff0: tensor<64xi64>, %ct1: tensor<200x16xf16>, %cids1: tensor<128xi64>, %coff1: tensor<64xi64>, %ct2: tensor<200x16xf16>, %cids2: tensor<128xi64>, %coff2: tensor<64xi64>, %ct3: tensor<200x16xf16>, %cids3: tensor<128xi64>, %coff3: tensor<64xi64>, %c2u: tensor<64xi64>, %w: tensor<16x8xf16>, %uk: tensor<4x8x2x64xf16>, %uv: tensor<4x8x2x64xf16>, %x0: tensor<64x16x16xf16>) -> tensor<64x16x16xf16> {
  %b0_c1 = arith.constant 0.000000e+00 : f16
  %b0_e3 = tensor.empty() : tensor<4x16xf16>
  %b0_f2 = linalg.fill ins(%b0_c1 : f16) outs(%b0_e3 : tensor<4x16xf16>) -> tensor<4x16xf16>
  %b0_g4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%uids0, %uoff0 : tensor<12xi64>, tensor<4xi64>) outs(%b0_f2 : tensor<4x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 4 : i64
    %ni = arith.constant 12 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %uoff0[%safe] : tensor<4xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ut0[%row, %col] : tensor<100x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<4x16xf16>
  %b0_c5 = arith.constant 0.000000e+00 : f16
  %b0_e7 = tensor.empty() : tensor<4x16xf16>
  %b0_f6 = linalg.fill ins(%b0_c5 : f16) outs(%b0_e7 : tensor<4x16xf16>) -> tensor<4x16xf16>
  %b0_g8 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%uids1, %uoff1 : tensor<12xi64>, tensor<4xi64>) outs(%b0_f6 : tensor<4x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 4 : i64
    %ni = arith.constant 12 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %uoff1[%safe] : tensor<4xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ut1[%row, %col] : tensor<100x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<4x16xf16>
  %b0_c9 = arith.constant 0.000000e+00 : f16
  %b0_e11 = tensor.empty() : tensor<4x16xf16>
  %b0_f10 = linalg.fill ins(%b0_c9 : f16) outs(%b0_e11 : tensor<4x16xf16>) -> tensor<4x16xf16>
  %b0_g12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%uids2, %uoff2 : tensor<12xi64>, tensor<4xi64>) outs(%b0_f10 : tensor<4x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 4 : i64
    %ni = arith.constant 12 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %uoff2[%safe] : tensor<4xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ut2[%row, %col] : tensor<100x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<4x16xf16>
  %b0_cat13 = tensor.concat dim(1) %b0_g4, %b0_g8, %b0_g12 : (tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>) -> tensor<4x48xf16>
  %b0_u314 = tensor.expand_shape %b0_cat13 [[0], [1, 2]] output_shape [4, 3, 16] : tensor<4x48xf16> into tensor<4x3x16xf16>
  %b0_e16 = tensor.empty() : tensor<4x3x16xf16>
  %b0_g15 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b0_u314 : tensor<4x3x16xf16>) outs(%b0_e16 : tensor<4x3x16xf16>) {
  ^bb0(%a0: f16, %a1: f16):
    %t = math.tanh %a0 : f16
    linalg.yield %t : f16
  } -> tensor<4x3x16xf16>
  %b0_e18 = tensor.empty() : tensor<64x3x16xf16>
  %b0_g17 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c2u : tensor<64xi64>) outs(%b0_e18 : tensor<64x3x16xf16>) {
  ^bb0(%a0: i64, %a1: f16):
    %i0 = arith.index_cast %a0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %x = tensor.extract %b0_g15[%i0, %i1, %i2] : tensor<4x3x16xf16>
    linalg.yield %x : f16
  } -> tensor<64x3x16xf16>
  %b0_c19 = arith.constant 0.000000e+00 : f16
  %b0_e21 = tensor.empty() : tensor<64x16xf16>
  %b0_f20 = linalg.fill ins(%b0_c19 : f16) outs(%b0_e21 : tensor<64x16xf16>) -> tensor<64x16xf16>
  %b0_g22 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cids0, %coff0 : tensor<128xi64>, tensor<64xi64>) outs(%b0_f20 : tensor<64x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 64 : i64
    %ni = arith.constant 128 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %coff0[%safe] : tensor<64xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ct0[%row, %col] : tensor<200x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<64x16xf16>
  %b0_c23 = arith.constant 0.000000e+00 : f16
  %b0_e25 = tensor.empty() : tensor<64x16xf16>
  %b0_f24 = linalg.fill ins(%b0_c23 : f16) outs(%b0_e25 : tensor<64x16xf16>) -> tensor<64x16xf16>
  %b0_g26 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cids1, %coff1 : tensor<128xi64>, tensor<64xi64>) outs(%b0_f24 : tensor<64x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 64 : i64
    %ni = arith.constant 128 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %coff1[%safe] : tensor<64xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ct1[%row, %col] : tensor<200x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<64x16xf16>
  %b0_c27 = arith.constant 0.000000e+00 : f16
  %b0_e29 = tensor.empty() : tensor<64x16xf16>
  %b0_f28 = linalg.fill ins(%b0_c27 : f16) outs(%b0_e29 : tensor<64x16xf16>) -> tensor<64x16xf16>
  %b0_g30 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cids2, %coff2 : tensor<128xi64>, tensor<64xi64>) outs(%b0_f28 : tensor<64x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 64 : i64
    %ni = arith.constant 128 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %coff2[%safe] : tensor<64xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ct2[%row, %col] : tensor<200x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<64x16xf16>
  %b0_c31 = arith.constant 0.000000e+00 : f16
  %b0_e33 = tensor.empty() : tensor<64x16xf16>
  %b0_f32 = linalg.fill ins(%b0_c31 : f16) outs(%b0_e33 : tensor<64x16xf16>) -> tensor<64x16xf16>
  %b0_g34 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cids3, %coff3 : tensor<128xi64>, tensor<64xi64>) outs(%b0_f32 : tensor<64x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 64 : i64
    %ni = arith.constant 128 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %coff3[%safe] : tensor<64xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ct3[%row, %col] : tensor<200x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<64x16xf16>
  %b0_cat35 = tensor.concat dim(1) %b0_g22, %b0_g26, %b0_g30, %b0_g34 : (tensor<64x16xf16>, tensor<64x16xf16>, tensor<64x16xf16>, tensor<64x16xf16>) -> tensor<64x64xf16>
  %b0_c336 = tensor.expand_shape %b0_cat35 [[0], [1, 2]] output_shape [64, 4, 16] : tensor<64x64xf16> into tensor<64x4x16xf16>
  %b0_p37 = tensor.extract_slice %x0[0, 0, 0] [64, 1, 16] [1, 1, 1] : tensor<64x16x16xf16> to tensor<64x1x16xf16>
  %b0_cat38 = tensor.concat dim(1) %b0_g17, %b0_c336, %b0_p37 : (tensor<64x3x16xf16>, tensor<64x4x16xf16>, tensor<64x1x16xf16>) -> tensor<64x8x16xf16>
  %b0_e40 = tensor.empty() : tensor<64x16x8xf16>
  %b0_g39 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<16x8xf16>) outs(%b0_e40 : tensor<64x16x8xf16>) {
  ^bb0(%a0: f16, %a1: f16):
    linalg.yield %a0 : f16
  } -> tensor<64x16x8xf16>
  %b0_c41 = arith.constant 0.000000e+00 : f32
  %b0_e43 = tensor.empty() : tensor<64x16x16xf32>
  %b0_f42 = linalg.fill ins(%b0_c41 : f32) outs(%b0_e43 : tensor<64x16x16xf32>) -> tensor<64x16x16xf32>
  %b0_mm44 = linalg.batch_matmul ins(%b0_g39, %b0_cat38 : tensor<64x16x8xf16>, tensor<64x8x16xf16>) outs(%b0_f42 : tensor<64x16x16xf32>) -> tensor<64x16x16xf32>
  %b0_e46 = tensor.empty() : tensor<64x16x16xf16>
  %b0_g45 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b0_mm44 : tensor<64x16x16xf32>) outs(%b0_e46 : tensor<64x16x16xf16>) {
  ^bb0(%a0: f32, %a1: f16):
    %t = arith.truncf %a0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x16x16xf16>
  %b0_yf47 = tensor.collapse_shape %b0_g45 [[0], [1, 2]] : tensor<64x16x16xf16> into tensor<64x256xf16>
  %b0_q48 = tensor.expand_shape %b0_yf47 [[0], [1, 2, 3]] output_shape [64, 2, 2, 64] : tensor<64x256xf16> into tensor<64x2x2x64xf16>
  %b0_e50 = tensor.empty() : tensor<64x8x2x64xf16>
  %b0_g49 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2u : tensor<64xi64>) outs(%b0_e50 : tensor<64x8x2x64xf16>) {
  ^bb0(%a0: i64, %a1: f16):
    %i0 = arith.index_cast %a0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %x = tensor.extract %uk[%i0, %i1, %i2, %i3] : tensor<4x8x2x64xf16>
    linalg.yield %x : f16
  } -> tensor<64x8x2x64xf16>
  %b0_e52 = tensor.empty() : tensor<64x8x2x64xf16>
  %b0_g51 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2u : tensor<64xi64>) outs(%b0_e52 : tensor<64x8x2x64xf16>) {
  ^bb0(%a0: i64, %a1: f16):
    %i0 = arith.index_cast %a0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %i3 = linalg.index 3 : index
    %x = tensor.extract %uv[%i0, %i1, %i2, %i3] : tensor<4x8x2x64xf16>
    linalg.yield %x : f16
  } -> tensor<64x8x2x64xf16>
  %b0_e53 = tensor.empty() : tensor<64x2x2x64xf16>
  %b0_t54 = linalg.transpose ins(%b0_q48 : tensor<64x2x2x64xf16>) outs(%b0_e53 : tensor<64x2x2x64xf16>) permutation = [0, 2, 1, 3]
  %b0_e55 = tensor.empty() : tensor<64x2x8x64xf16>
  %b0_t56 = linalg.transpose ins(%b0_g49 : tensor<64x8x2x64xf16>) outs(%b0_e55 : tensor<64x2x8x64xf16>) permutation = [0, 2, 1, 3]
  %b0_e57 = tensor.empty() : tensor<64x2x8x64xf16>
  %b0_t58 = linalg.transpose ins(%b0_g51 : tensor<64x8x2x64xf16>) outs(%b0_e57 : tensor<64x2x8x64xf16>) permutation = [0, 2, 1, 3]
  %b0_e60 = tensor.empty() : tensor<64x2x2x64xf16>
  %b0_g59 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b0_t54 : tensor<64x2x2x64xf16>) outs(%b0_e60 : tensor<64x2x2x64xf16>) {
  ^bb0(%a0: f16, %a1: f16):
    %c = arith.constant 3.535534e-01 : f16
    %m = arith.mulf %a0, %c : f16
    linalg.yield %m : f16
  } -> tensor<64x2x2x64xf16>
  %b0_e61 = tensor.empty() : tensor<64x2x64x8xf16>
  %b0_t62 = linalg.transpose ins(%b0_t56 : tensor<64x2x8x64xf16>) outs(%b0_e61 : tensor<64x2x64x8xf16>) permutation = [0, 1, 3, 2]
  %b0_e64 = tensor.empty() : tensor<64x2x64x8xf16>
  %b0_g63 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b0_t62 : tensor<64x2x64x8xf16>) outs(%b0_e64 : tensor<64x2x64x8xf16>) {
  ^bb0(%a0: f16, %a1: f16):
    %c = arith.constant 3.535534e-01 : f16
    %m = arith.mulf %a0, %c : f16
    linalg.yield %m : f16
  } -> tensor<64x2x64x8xf16>
  %b0_cl65 = tensor.collapse_shape %b0_g59 [[0, 1], [2], [3]] : tensor<64x2x2x64xf16> into tensor<128x2x64xf16>
  %b0_cl66 = tensor.collapse_shape %b0_g63 [[0, 1], [2], [3]] : tensor<64x2x64x8xf16> into tensor<128x64x8xf16>
  %b0_c67 = arith.constant 0.000000e+00 : f32
  %b0_e69 = tensor.empty() : tensor<128x2x8xf32>
  %b0_f68 = linalg.fill ins(%b0_c67 : f32) outs(%b0_e69 : tensor<128x2x8xf32>) -> tensor<128x2x8xf32>
  %b0_mm70 = linalg.batch_matmul ins(%b0_cl65, %b0_cl66 : tensor<128x2x64xf16>, tensor<128x64x8xf16>) outs(%b0_f68 : tensor<128x2x8xf32>) -> tensor<128x2x8xf32>
  %b0_e72 = tensor.empty() : tensor<128x2x8xf16>
  %b0_g71 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b0_mm70 : tensor<128x2x8xf32>) outs(%b0_e72 : tensor<128x2x8xf16>) {
  ^bb0(%a0: f32, %a1: f16):
    %t = arith.truncf %a0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<128x2x8xf16>
  %b0_ex73 = tensor.expand_shape %b0_g71 [[0, 1], [2], [3]] output_shape [64, 2, 2, 8] : tensor<128x2x8xf16> into tensor<64x2x2x8xf16>
  %b0_e75 = tensor.empty() : tensor<64x2x2x8xf32>
  %b0_g74 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b0_ex73 : tensor<64x2x2x8xf16>) outs(%b0_e75 : tensor<64x2x2x8xf32>) {
  ^bb0(%a0: f16, %a1: f32):
    %e = arith.extf %a0 : f16 to f32
    linalg.yield %e : f32
  } -> tensor<64x2x2x8xf32>
  %b0_c76 = arith.constant 0 : i64
  %b0_e78 = tensor.empty() : tensor<64x2x2xi64>
  %b0_f77 = linalg.fill ins(%b0_c76 : i64) outs(%b0_e78 : tensor<64x2x2xi64>) -> tensor<64x2x2xi64>
  %b0_c79 = arith.constant 0xFF800000 : f32
  %b0_e81 = tensor.empty() : tensor<64x2x2xf32>
  %b0_f80 = linalg.fill ins(%b0_c79 : f32) outs(%b0_e81 : tensor<64x2x2xf32>) -> tensor<64x2x2xf32>
  %b0_max82:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%b0_g74 : tensor<64x2x2x8xf32>) outs(%b0_f80, %b0_f77 : tensor<64x2x2xf32>, tensor<64x2x2xi64>) {
  ^bb0(%a0: f32, %a1: f32, %a2: i64):
    %i = linalg.index 3 : index
    %i64 = arith.index_cast %i : index to i64
    %m = arith.maximumf %a0, %a1 : f32
    %gt = arith.cmpf ogt, %a0, %a1 : f32
    %s = arith.select %gt, %i64, %a2 : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<64x2x2xf32>, tensor<64x2x2xi64>)
  %b0_mk83 = tensor.expand_shape %b0_max82#0 [[0], [1], [2, 3]] output_shape [64, 2, 2, 1] : tensor<64x2x2xf32> into tensor<64x2x2x1xf32>
  %b0_e85 = tensor.empty() : tensor<64x2x2x8xf32>
  %b0_g84 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b0_g74, %b0_mk83 : tensor<64x2x2x8xf32>, tensor<64x2x2x1xf32>) outs(%b0_e85 : tensor<64x2x2x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.subf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<64x2x2x8xf32>
  %b0_e87 = tensor.empty() : tensor<64x2x2x8xf32>
  %b0_g86 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b0_g84 : tensor<64x2x2x8xf32>) outs(%b0_e87 : tensor<64x2x2x8xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %e = math.exp %a0 : f32
    linalg.yield %e : f32
  } -> tensor<64x2x2x8xf32>
  %b0_c88 = arith.constant 0.000000e+00 : f32
  %b0_e90 = tensor.empty() : tensor<64x2x2x1xf32>
  %b0_f89 = linalg.fill ins(%b0_c88 : f32) outs(%b0_e90 : tensor<64x2x2x1xf32>) -> tensor<64x2x2x1xf32>
  %b0_g91 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%b0_g86 : tensor<64x2x2x8xf32>) outs(%b0_f89 : tensor<64x2x2x1xf32>) {
  ^bb0(%a0: f32, %a1: f32):
    %s = arith.addf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<64x2x2x1xf32>
  %b0_e93 = tensor.empty() : tensor<64x2x2x8xf32>
  %b0_g92 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b0_g86, %b0_g91 : tensor<64x2x2x8xf32>, tensor<64x2x2x1xf32>) outs(%b0_e93 : tensor<64x2x2x8xf32>) {
  ^bb0(%a0: f32, %a1: f32, %a2: f32):
    %s = arith.divf %a0, %a1 : f32
    linalg.yield %s : f32
  } -> tensor<64x2x2x8xf32>
  %b0_e95 = tensor.empty() : tensor<64x2x2x8xf16>
  %b0_g94 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b0_g92 : tensor<64x2x2x8xf32>) outs(%b0_e95 : tensor<64x2x2x8xf16>) {
  ^bb0(%a0: f32, %a1: f16):
    %t = arith.truncf %a0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x2x2x8xf16>
  %b0_e97 = tensor.empty() : tensor<64x2x2x8xi1>
  %b0_g96 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b0_ex73 : tensor<64x2x2x8xf16>) outs(%b0_e97 : tensor<64x2x2x8xi1>) {
  ^bb0(%a0: f16, %a1: i1):
    %ninf = arith.constant 0xFC00 : f16
    %q = arith.cmpf oeq, %a0, %ninf : f16
    linalg.yield %q : i1
  } -> tensor<64x2x2x8xi1>
  %b0_c98 = arith.constant true
  %b0_e100 = tensor.empty() : tensor<64x2x2x1xi1>
  %b0_f99 = linalg.fill ins(%b0_c98 : i1) outs(%b0_e100 : tensor<64x2x2x1xi1>) -> tensor<64x2x2x1xi1>
  %b0_g101 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%b0_g96 : tensor<64x2x2x8xi1>) outs(%b0_f99 : tensor<64x2x2x1xi1>) {
  ^bb0(%a0: i1, %a1: i1):
    %s = arith.andi %a0, %a1 : i1
    linalg.yield %s : i1
  } -> tensor<64x2x2x1xi1>
  %b0_z102 = arith.constant dense<0.000000e+00> : tensor<f16>
  %b0_e104 = tensor.empty() : tensor<64x2x2x8xf16>
  %b0_g103 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b0_g101, %b0_z102, %b0_g94 : tensor<64x2x2x1xi1>, tensor<f16>, tensor<64x2x2x8xf16>) outs(%b0_e104 : tensor<64x2x2x8xf16>) {
  ^bb0(%a0: i1, %a1: f16, %a2: f16, %a3: f16):
    %s = arith.select %a0, %a1, %a2 : f16
    linalg.yield %s : f16
  } -> tensor<64x2x2x8xf16>
  %b0_cl105 = tensor.collapse_shape %b0_g103 [[0, 1], [2], [3]] : tensor<64x2x2x8xf16> into tensor<128x2x8xf16>
  %b0_cl106 = tensor.collapse_shape %b0_t58 [[0, 1], [2], [3]] : tensor<64x2x8x64xf16> into tensor<128x8x64xf16>
  %b0_c107 = arith.constant 0.000000e+00 : f32
  %b0_e109 = tensor.empty() : tensor<128x2x64xf32>
  %b0_f108 = linalg.fill ins(%b0_c107 : f32) outs(%b0_e109 : tensor<128x2x64xf32>) -> tensor<128x2x64xf32>
  %b0_mm110 = linalg.batch_matmul ins(%b0_cl105, %b0_cl106 : tensor<128x2x8xf16>, tensor<128x8x64xf16>) outs(%b0_f108 : tensor<128x2x64xf32>) -> tensor<128x2x64xf32>
  %b0_e112 = tensor.empty() : tensor<128x2x64xf16>
  %b0_g111 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b0_mm110 : tensor<128x2x64xf32>) outs(%b0_e112 : tensor<128x2x64xf16>) {
  ^bb0(%a0: f32, %a1: f16):
    %t = arith.truncf %a0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<128x2x64xf16>
  %b0_ex113 = tensor.expand_shape %b0_g111 [[0, 1], [2], [3]] output_shape [64, 2, 2, 64] : tensor<128x2x64xf16> into tensor<64x2x2x64xf16>
  %b0_e114 = tensor.empty() : tensor<64x2x2x64xf16>
  %b0_t115 = linalg.transpose ins(%b0_ex113 : tensor<64x2x2x64xf16>) outs(%b0_e114 : tensor<64x2x2x64xf16>) permutation = [0, 2, 1, 3]
  %b0_of116 = tensor.collapse_shape %b0_t115 [[0], [1, 2, 3]] : tensor<64x2x2x64xf16> into tensor<64x256xf16>
  %b0_z117 = tensor.expand_shape %b0_of116 [[0], [1, 2]] output_shape [64, 16, 16] : tensor<64x256xf16> into tensor<64x16x16xf16>
  %b1_c118 = arith.constant 0.000000e+00 : f16
  %b1_e120 = tensor.empty() : tensor<4x16xf16>
  %b1_f119 = linalg.fill ins(%b1_c118 : f16) outs(%b1_e120 : tensor<4x16xf16>) -> tensor<4x16xf16>
  %b1_g121 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%uids0, %uoff0 : tensor<12xi64>, tensor<4xi64>) outs(%b1_f119 : tensor<4x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 4 : i64
    %ni = arith.constant 12 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %uoff0[%safe] : tensor<4xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ut0[%row, %col] : tensor<100x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<4x16xf16>
  %b1_c122 = arith.constant 0.000000e+00 : f16
  %b1_e124 = tensor.empty() : tensor<4x16xf16>
  %b1_f123 = linalg.fill ins(%b1_c122 : f16) outs(%b1_e124 : tensor<4x16xf16>) -> tensor<4x16xf16>
  %b1_g125 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%uids1, %uoff1 : tensor<12xi64>, tensor<4xi64>) outs(%b1_f123 : tensor<4x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 4 : i64
    %ni = arith.constant 12 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %uoff1[%safe] : tensor<4xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ut1[%row, %col] : tensor<100x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<4x16xf16>
  %b1_c126 = arith.constant 0.000000e+00 : f16
  %b1_e128 = tensor.empty() : tensor<4x16xf16>
  %b1_f127 = linalg.fill ins(%b1_c126 : f16) outs(%b1_e128 : tensor<4x16xf16>) -> tensor<4x16xf16>
  %b1_g129 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%uids2, %uoff2 : tensor<12xi64>, tensor<4xi64>) outs(%b1_f127 : tensor<4x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 4 : i64
    %ni = arith.constant 12 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %uoff2[%safe] : tensor<4xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ut2[%row, %col] : tensor<100x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<4x16xf16>
  %b1_cat130 = tensor.concat dim(1) %b1_g121, %b1_g125, %b1_g129 : (tensor<4x16xf16>, tensor<4x16xf16>, tensor<4x16xf16>) -> tensor<4x48xf16>
  %b1_u3131 = tensor.expand_shape %b1_cat130 [[0], [1, 2]] output_shape [4, 3, 16] : tensor<4x48xf16> into tensor<4x3x16xf16>
  %b1_e133 = tensor.empty() : tensor<4x3x16xf16>
  %b1_g132 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b1_u3131 : tensor<4x3x16xf16>) outs(%b1_e133 : tensor<4x3x16xf16>) {
  ^bb0(%a0: f16, %a1: f16):
    %t = math.tanh %a0 : f16
    linalg.yield %t : f16
  } -> tensor<4x3x16xf16>
  %b1_e135 = tensor.empty() : tensor<64x3x16xf16>
  %b1_g134 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c2u : tensor<64xi64>) outs(%b1_e135 : tensor<64x3x16xf16>) {
  ^bb0(%a0: i64, %a1: f16):
    %i0 = arith.index_cast %a0 : i64 to index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %x = tensor.extract %b1_g132[%i0, %i1, %i2] : tensor<4x3x16xf16>
    linalg.yield %x : f16
  } -> tensor<64x3x16xf16>
  %b1_c136 = arith.constant 0.000000e+00 : f16
  %b1_e138 = tensor.empty() : tensor<64x16xf16>
  %b1_f137 = linalg.fill ins(%b1_c136 : f16) outs(%b1_e138 : tensor<64x16xf16>) -> tensor<64x16xf16>
  %b1_g139 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cids0, %coff0 : tensor<128xi64>, tensor<64xi64>) outs(%b1_f137 : tensor<64x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 64 : i64
    %ni = arith.constant 128 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %coff0[%safe] : tensor<64xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ct0[%row, %col] : tensor<200x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<64x16xf16>
  %b1_c140 = arith.constant 0.000000e+00 : f16
  %b1_e142 = tensor.empty() : tensor<64x16xf16>
  %b1_f141 = linalg.fill ins(%b1_c140 : f16) outs(%b1_e142 : tensor<64x16xf16>) -> tensor<64x16xf16>
  %b1_g143 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cids1, %coff1 : tensor<128xi64>, tensor<64xi64>) outs(%b1_f141 : tensor<64x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 64 : i64
    %ni = arith.constant 128 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %coff1[%safe] : tensor<64xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ct1[%row, %col] : tensor<200x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<64x16xf16>
  %b1_c144 = arith.constant 0.000000e+00 : f16
  %b1_e146 = tensor.empty() : tensor<64x16xf16>
  %b1_f145 = linalg.fill ins(%b1_c144 : f16) outs(%b1_e146 : tensor<64x16xf16>) -> tensor<64x16xf16>
  %b1_g147 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cids2, %coff2 : tensor<128xi64>, tensor<64xi64>) outs(%b1_f145 : tensor<64x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 64 : i64
    %ni = arith.constant 128 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %coff2[%safe] : tensor<64xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ct2[%row, %col] : tensor<200x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<64x16xf16>
  %b1_c148 = arith.constant 0.000000e+00 : f16
  %b1_e150 = tensor.empty() : tensor<64x16xf16>
  %b1_f149 = linalg.fill ins(%b1_c148 : f16) outs(%b1_e150 : tensor<64x16xf16>) -> tensor<64x16xf16>
  %b1_g151 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1)>, affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%cids3, %coff3 : tensor<128xi64>, tensor<64xi64>) outs(%b1_f149 : tensor<64x16xf16>) {
  ^bb0(%a0: i64, %a1: i64, %a2: f16):
    %c1 = arith.constant 1 : i64
    %c0 = arith.constant 0 : index
    %nb = arith.constant 64 : i64
    %ni = arith.constant 128 : i64
    %b = linalg.index 0 : index
    %b64 = arith.index_cast %b : index to i64
    %b1 = arith.addi %b64, %c1 : i64
    %b1i = arith.index_cast %b1 : i64 to index
    %last = arith.cmpi eq, %nb, %b1 : i64
    %safe = arith.select %last, %c0, %b1i : index
    %raw = tensor.extract %coff3[%safe] : tensor<64xi64>
    %next = arith.select %last, %ni, %raw : i64
    %j = linalg.index 1 : index
    %j64 = arith.index_cast %j : index to i64
    %lt = arith.cmpi slt, %a1, %j64 : i64
    %eq = arith.cmpi eq, %a1, %j64 : i64
    %le = arith.ori %lt, %eq : i1
    %end = arith.cmpi slt, %j64, %next : i64
    %in = arith.andi %le, %end : i1
    %row = arith.index_cast %a0 : i64 to index
    %col = linalg.index 2 : index
    %x = tensor.extract %ct3[%row, %col] : tensor<200x16xf16>
    %s = arith.addf %x, %a2 : f16
    %y = arith.select %in, %s, %a2 : f16
    linalg.yield %y : f16
  } -> tensor<64x16xf16>
  %b1_cat152 = tensor.concat dim(1) %b1_g139, %b1_g143, %b1_g147, %b1_g151 : (tensor<64x16xf16>, tensor<64x16xf16>, tensor<64x16xf16>, tensor<64x16xf16>) -> tensor<64x64xf16>
  %b1_c3153 = tensor.expand_shape %b1_cat152 [[0], [1, 2]] output_shape [64, 4, 16] : tensor<64x64xf16> into tensor<64x4x16xf16>
  %b1_p154 = tensor.extract_slice %b0_z117[0, 0, 0] [64, 1, 16] [1, 1, 1] : tensor<64x16x16xf16> to tensor<64x1x16xf16>
  %b1_cat155 = tensor.concat dim(1) %b1_g134, %b1_c3153, %b1_p154 : (tensor<64x3x16xf16>, tensor<64x4x16xf16>, tensor<64x1x16xf16>) -> tensor<64x8x16xf16>
  %b1_e157 = tensor.empty() : tensor<64x16x8xf16>
  %b1_g156 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<16x8xf16>) outs(%b1_e157 : tensor<64x16x8xf16>) {
  ^bb0(%a0: f16, %a1: f16):
    linalg.yield %a0 : f16
  } -> tensor<64x16x8xf16>
  %b1_c158 = arith.constant 0.000000e+00 : f32
  %b1_e160 = tensor.empty() : tensor<64x16x16xf32>
  %b1_f159 = linalg.fill ins(%b1_c158 : f32) outs(%b1_e160 : tensor<64x16x16xf32>) -> tensor<64x16x16xf32>
  %b1_mm161 = linalg.batch_matmul ins(%b1_g156, %b1_cat155 : tensor<64x16x8xf16>, tensor<64x8x16xf16>) outs(%b1_f159 : tensor<64x16x16xf32>) -> tensor<64x16x16xf32>
  %b1_e163 = tensor.empty() : tensor<64x16x16xf16>
  %b1_g162 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b1_mm161 : tensor<64x16x16xf32>) outs(%b1_e163 : tensor<64x16x16xf16>) {
  ^bb0(%a0: f32, %a1: f16):
    %t = arith.truncf %a0 : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x16x16xf16>
  return %b1_g162 : tensor<64x16x16xf16>
}

// A batch transpose ([B, M, N] -> [B, N, M]) of f16, a cast of it to f32,
// a sum over short rows (16: a loop in each thread) and a mean over long
// ones (8192: a block a row), and a tanh on the casted values.
#t3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#r3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>
func.func @transpose_sum(%x: tensor<8x16x64xf16>, %y: tensor<4x8192xf32>) -> (tensor<8x64x16xf16>, tensor<8x64xf32>, tensor<4xf32>, tensor<8x64x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x64x16xf16>
  %t = linalg.transpose ins(%x : tensor<8x16x64xf16>) outs(%e0 : tensor<8x64x16xf16>) permutation = [0, 2, 1]
  %tf = arith.extf %t : tensor<8x64x16xf16> to tensor<8x64x16xf32>
  %e1 = tensor.empty() : tensor<8x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %s = linalg.generic {indexing_maps = [#t3, #r3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%tf : tensor<8x64x16xf32>) outs(%f1 : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %sy = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<4x8192xf32>) outs(%f2 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %n = arith.constant dense<8192.0> : tensor<4xf32>
  %mean = arith.divf %sy, %n : tensor<4xf32>
  %th = math.tanh %tf : tensor<8x64x16xf32>
  return %t, %s, %mean, %th : tensor<8x64x16xf16>, tensor<8x64xf32>, tensor<4xf32>, tensor<8x64x16xf32>
}

// A sum of exponentials over the middle dim kept as a dim of size 1
// (torch's keepdim), its output map (d0, 0, d2) written outside the
// reduction loop, and each exponential divided by its column's sum, read
// back through the same map: a softmax over dim 1 of [8, 16, 32] f32.
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
func.func @sum_keepdim(%x: tensor<8x16x32xf32>) -> (tensor<8x1x32xf32>, tensor<8x16x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x1x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x1x32xf32>) -> tensor<8x1x32xf32>
  %sum = linalg.generic {indexing_maps = [#id, #keep], iterator_types = ["parallel", "reduction", "parallel"]} ins(%x : tensor<8x16x32xf32>) outs(%init : tensor<8x1x32xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %ea = math.exp %a : f32
    %s = arith.addf %ea, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x1x32xf32>
  %e2 = tensor.empty() : tensor<8x16x32xf32>
  %norm = linalg.generic {indexing_maps = [#id, #keep, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %sum : tensor<8x16x32xf32>, tensor<8x1x32xf32>) outs(%e2 : tensor<8x16x32xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %ea = math.exp %a : f32
    %d = arith.divf %ea, %s : f32
    linalg.yield %d : f32
  } -> tensor<8x16x32xf32>
  return %sum, %norm : tensor<8x1x32xf32>, tensor<8x16x32xf32>
}

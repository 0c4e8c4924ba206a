// The bias and GELU of bias_gelu_f16.mlir at 8192 x 8192 f16: the bandwidth
// benchmark of a generated elementwise kernel (docs/codegen.md).
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias_gelu_f16_8192(%x: tensor<8192x8192xf16>, %b: tensor<8192xf16>) -> tensor<8192x8192xf16> {
  %e0 = tensor.empty() : tensor<8192x8192xf16>
  %bb = linalg.broadcast ins(%b : tensor<8192xf16>) outs(%e0 : tensor<8192x8192xf16>) dimensions = [0]
  %e1 = tensor.empty() : tensor<8192x8192xf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %bb : tensor<8192x8192xf16>, tensor<8192x8192xf16>) outs(%e1 : tensor<8192x8192xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<8192x8192xf16>
  %e2 = tensor.empty() : tensor<8192x8192xf16>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<8192x8192xf16>) outs(%e2 : tensor<8192x8192xf16>) {
  ^bb0(%a: f16, %o: f16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.70710678 : f32
    %af = arith.extf %a : f16 to f32
    %t = arith.mulf %af, %rsqrt2 : f32
    %erf = math.erf %t : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %af, %half : f32
    %r = arith.mulf %h, %p : f32
    %rh = arith.truncf %r : f32 to f16
    linalg.yield %rh : f16
  } -> tensor<8192x8192xf16>
  return %g : tensor<8192x8192xf16>
}

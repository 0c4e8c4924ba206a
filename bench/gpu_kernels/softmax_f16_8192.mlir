// The row softmax of softmax_f16.mlir at 8192 x 8192 (f16 in and out, f32
// inside): the bandwidth benchmark of generated reductions (docs/codegen.md).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_f16_8192(%x: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %xf = arith.extf %x : tensor<8192x8192xf16> to tensor<8192x8192xf32>
  %e1 = tensor.empty() : tensor<8192xf32>
  %f1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<8192xf32>) -> tensor<8192xf32>
  %m = linalg.reduce ins(%xf : tensor<8192x8192xf32>) outs(%f1 : tensor<8192xf32>) dimensions = [1]
    (%a: f32, %o: f32) {
      %s = arith.maximumf %a, %o : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty() : tensor<8192x8192xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%xf, %m : tensor<8192x8192xf32>, tensor<8192xf32>) outs(%e2 : tensor<8192x8192xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.subf %a, %c : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<8192x8192xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8192xf32>) -> tensor<8192xf32>
  %sum = linalg.reduce ins(%ex : tensor<8192x8192xf32>) outs(%f2 : tensor<8192xf32>) dimensions = [1]
    (%a: f32, %o: f32) {
      %s = arith.addf %a, %o : f32
      linalg.yield %s : f32
    }
  %e3 = tensor.empty() : tensor<8192x8192xf32>
  %sm = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %sum : tensor<8192x8192xf32>, tensor<8192xf32>) outs(%e3 : tensor<8192x8192xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.divf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8192x8192xf32>
  %h = arith.truncf %sm : tensor<8192x8192xf32> to tensor<8192x8192xf16>
  return %h : tensor<8192x8192xf16>
}

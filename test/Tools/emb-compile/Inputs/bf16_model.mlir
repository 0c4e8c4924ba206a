// bf16 math compiled for the cpu target, for bf16.test and the
// ahead-of-time runner built from this file (emb-run-aot-bf16): the f32 to
// bf16 conversions and the bf16 arithmetic and math are integer code and
// f32 math in the object, which calls no compiler-runtime helper
// (__truncsfbf2 is in neither libgcc 12 nor the runtime).
func.func @bf16_model(%x: tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xbf16>) {
  %t = arith.truncf %x : tensor<8xf32> to tensor<8xbf16>
  %sq = arith.mulf %t, %t : tensor<8xbf16>
  %s = arith.addf %sq, %t : tensor<8xbf16>
  %w = arith.extf %s : tensor<8xbf16> to tensor<8xf32>
  %h = math.tanh %t : tensor<8xbf16>
  return %t, %w, %h : tensor<8xbf16>, tensor<8xf32>, tensor<8xbf16>
}

// bf16 math compiled for the cpu target, for bf16.test and the
// ahead-of-time runner built from this file (emb-run-aot-bf16): the
// conversions to bf16 are integer code in the object, the bf16 arithmetic
// and math f32 arithmetic and math, and it calls no compiler-runtime helper
// (__truncsfbf2 and __truncdfbf2 are in neither libgcc 12 nor the runtime).
// %d goes from f64 straight to bf16: rounded once
// (emb-expand-f64-to-bf16), not twice through f32. f16 keeps LLVM's
// lowering, which calls libgcc's __truncsfhf2 and __extendhfsf2.
func.func @bf16_model(%x: tensor<8xf32>, %d: tensor<9xf64>) -> (tensor<8xbf16>, tensor<8xf32>, tensor<8xbf16>, tensor<9xbf16>, tensor<8xf16>) {
  %t = arith.truncf %x : tensor<8xf32> to tensor<8xbf16>
  %sq = arith.mulf %t, %t : tensor<8xbf16>
  %s = arith.addf %sq, %t : tensor<8xbf16>
  %w = arith.extf %s : tensor<8xbf16> to tensor<8xf32>
  %h = math.tanh %t : tensor<8xbf16>
  %b = arith.truncf %d : tensor<9xf64> to tensor<9xbf16>
  %x16 = arith.truncf %x : tensor<8xf32> to tensor<8xf16>
  %twice = arith.addf %x16, %x16 : tensor<8xf16>
  return %t, %w, %h, %b, %twice : tensor<8xbf16>, tensor<8xf32>, tensor<8xbf16>, tensor<9xbf16>, tensor<8xf16>
}

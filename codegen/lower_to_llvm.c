//===- codegen/lower_to_llvm.c - emb-lower-to-llvm ------------------------===//
//
// The pipeline from emb-level IR to the LLVM dialect: emb-lower-to-runtime
// (every op a runtime call on buffers, or, in a mixed function on the cpu
// target, emb ops as calls on buffers inside tensor IR), then MLIR's own
// passes: bufferization of what stays at the tensor level (elementwise ops
// on tensors become linalg, a tensor.empty that becomes a result writes into
// the caller's buffer, every allocation is freed by the ownership-based
// deallocation), linalg to loops, and the conversions of what remains to
// LLVM (math to LLVM intrinsics and libm calls, which the JIT resolves in
// the process and a linked program from -lm). A function of runtime calls
// only has no tensors left for the bufferization passes, which leave it as
// it is. Its options are emb-lower-to-runtime's, handed on.
//
//===----------------------------------------------------------------------===//

#include "codegen.h"

/// What follows emb-lower-to-runtime, in order; NULL marks where
/// emb-lower-strided-copies goes.
static const char *const upstreamPasses[] = {
    "canonicalize",
    "func.func(convert-elementwise-to-linalg)",
    // LLVM 22's one-shot-bufferize allocates for a tensor.empty itself:
    // empty-tensor-to-alloc-tensor is not needed.
    "eliminate-empty-tensors",
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map}",
    "canonicalize",
    "buffer-deallocation-pipeline",
    "convert-bufferization-to-memref",
    NULL,
    "func.func(convert-linalg-to-loops)",
    // bf16 without a call into the compiler runtime: LLVM lowers a bf16
    // operation, or a conversion from f32 to bf16, to __truncsfbf2 on a CPU
    // without AVX512-BF16, which libgcc 12 lacks (a linked program does not
    // link) and the JIT gets as an instruction only on a host that has it
    // (which flushes subnormals). Math and arith on bf16 are computed in
    // f32, and the conversions between f32 and bf16 become integer code
    // (round to nearest even), the same in the JIT and in a linked program.
    // f16 keeps LLVM's lowering: libgcc has its conversions.
    "math-extend-to-supported-types{extra-types=f16 target-type=f32}",
    "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32}",
    "arith-expand{include-bf16=true}",
    // expand-strided-metadata computes the sizes and strides of a reshape
    // of dynamic size with affine.apply: lower-affine comes after it.
    "expand-strided-metadata",
    "lower-affine",
    "convert-scf-to-cf",
    "finalize-memref-to-llvm",
    "convert-math-to-llvm",
    "convert-math-to-libm",
    "convert-to-llvm",
    "reconcile-unrealized-casts",
};

static MlirLogicalResult build(EmbPipelineBuilder *b, const void *options) {
  if (mlirLogicalResultIsFailure(
          embPipelineAdd(b, &embLowerToRuntimePassDef, options)))
    return mlirLogicalResultFailure();
  for (size_t i = 0; i < sizeof upstreamPasses / sizeof upstreamPasses[0];
       ++i) {
    MlirLogicalResult r =
        upstreamPasses[i]
            ? embPipelineAddUpstream(
                  b, mlirStringRefCreateFromCString(upstreamPasses[i]))
            : embPipelineAdd(b, &embLowerStridedCopiesPassDef, NULL);
    if (mlirLogicalResultIsFailure(r))
      return r;
  }
  return mlirLogicalResultSuccess();
}

const EmbPassDef embLowerToLlvmPipelineDef = {
    .argument = "emb-lower-to-llvm",
    .summary = "Lower emb-level IR to the LLVM dialect through the runtime",
    .kind = EMB_PASS_KIND_PIPELINE,
    .anchor = "builtin.module",
    .options = &embLowerToRuntimeOptions,
    .build = build,
};

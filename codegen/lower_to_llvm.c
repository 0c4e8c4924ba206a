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

/// One pass of what follows emb-lower-to-runtime: MLIR's, by its textual
/// form, or emb's.
typedef struct Step {
  const char *upstream;
  const EmbPassDef *emb;
} Step;

/// What follows emb-lower-to-runtime, in order.
static const Step steps[] = {
    {"canonicalize", NULL},
    {"func.func(convert-elementwise-to-linalg)", NULL},
    // LLVM 22's one-shot-bufferize allocates for a tensor.empty itself:
    // empty-tensor-to-alloc-tensor is not needed.
    {"eliminate-empty-tensors", NULL},
    {"one-shot-bufferize{bufferize-function-boundaries "
     "function-boundary-type-conversion=identity-layout-map}",
     NULL},
    {"canonicalize", NULL},
    {"buffer-deallocation-pipeline", NULL},
    {"convert-bufferization-to-memref", NULL},
    {NULL, &embLowerStridedCopiesPassDef},
    {"func.func(convert-linalg-to-loops)", NULL},
    // bf16 without a call into the compiler runtime: LLVM lowers a bf16
    // operation, or a conversion from f32 to bf16, to __truncsfbf2 on a CPU
    // without AVX512-BF16, which libgcc 12 lacks (a linked program does not
    // link) and the JIT gets as an instruction only on a host that has it
    // (which flushes subnormals). Math and arith on bf16 are computed in
    // f32, and the conversions between f32 and bf16 become integer code
    // (round to nearest even), the same in the JIT and in a linked program.
    // f16 keeps LLVM's lowering: libgcc has its conversions. A conversion
    // from f64 rounds to odd f32 first (one rounding, not two).
    {NULL, &embExpandF64ToBF16PassDef},
    {"math-extend-to-supported-types{extra-types=f16 target-type=f32}", NULL},
    {"arith-emulate-unsupported-floats{source-types=bf16 target-type=f32}",
     NULL},
    {"arith-expand{include-bf16=true}", NULL},
    // expand-strided-metadata computes the sizes and strides of a reshape
    // of dynamic size with affine.apply: lower-affine comes after it.
    {"expand-strided-metadata", NULL},
    {"lower-affine", NULL},
    {"convert-scf-to-cf", NULL},
    {"finalize-memref-to-llvm", NULL},
    {"convert-math-to-llvm", NULL},
    {"convert-math-to-libm", NULL},
    {"convert-to-llvm", NULL},
    {"reconcile-unrealized-casts", NULL},
};

static MlirLogicalResult build(EmbPipelineBuilder *b, const void *options) {
  if (mlirLogicalResultIsFailure(
          embPipelineAdd(b, &embLowerToRuntimePassDef, options)))
    return mlirLogicalResultFailure();
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; ++i) {
    MlirLogicalResult r =
        steps[i].upstream
            ? embPipelineAddUpstream(
                  b, mlirStringRefCreateFromCString(steps[i].upstream))
            : embPipelineAdd(b, steps[i].emb, NULL);
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

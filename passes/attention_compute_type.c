//===- passes/attention_compute_type.c - emb-attention-compute-type -------===//
//
// Sets what emb.attention and emb.ikbo_attention of f32 data compute in:
// `type=bf16` (the default) or `type=f16` writes `compute_type` on each, so
// that q, k and v are rounded once to that type and the f16/bf16 tensor-core
// kernels run (f32 accumulation and softmax; the output carries the compute
// type's rounding); `type=f32` removes it (the exact f32 path). Ops on f16
// or bf16 data are left as they are. It is the opt-in a user adds after
// emb-raise or emb-from-torch, as torch's autocast is for SDPA.
//
// Preconditions: none. Postconditions: every f32 attention op has the
// chosen compute_type (none for f32). The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stddef.h>

static const char passName[] = "emb-attention-compute-type";

typedef struct ComputeTypeOptions {
  int64_t type;
} ComputeTypeOptions;

enum { TYPE_F32, TYPE_F16, TYPE_BF16 };

static const EmbPassOption optionRows[] = {
    {.name = "type",
     .kind = EMB_OPTION_ENUM,
     .offset = offsetof(ComputeTypeOptions, type),
     .defaultValue = "bf16",
     .choices = "f32|f16|bf16",
     .help = "what f32 attention computes in: f16 or bf16 (operands rounded "
             "once, tensor cores), or f32 (exact)"},
};

static const EmbOptionTable options = {optionRows, EMB_NUM_OPTIONS(optionRows),
                                       sizeof(ComputeTypeOptions)};

static void run(MlirOperation root, MlirExternalPass pass, const void *opts) {
  const ComputeTypeOptions *o = opts;
  EmbOpList ops = {NULL, 0, 0};
  if (!embCollectNestedOps(root, &ops)) {
    embOpListFree(&ops);
    embEmitErrorf(mlirOperationGetLocation(root), "%s: out of memory",
                  passName);
    mlirExternalPassSignalFailure(pass);
    return;
  }
  for (size_t i = 0; i < ops.size; ++i) {
    MlirOperation op = ops.ops[i];
    if ((!embOpIs(op, EMB_OP_ATTENTION) &&
         !embOpIs(op, EMB_OP_IKBO_ATTENTION)) ||
        mlirOperationGetNumOperands(op) < 1)
      continue;
    MlirType q = mlirValueGetType(mlirOperationGetOperand(op, 0));
    if (!mlirTypeIsAShaped(q) ||
        !mlirTypeIsAF32(mlirShapedTypeGetElementType(q)))
      continue;
    MlirContext ctx = mlirOperationGetContext(op);
    if (o->type == TYPE_F32)
      mlirOperationRemoveAttributeByName(op, embStr("compute_type"));
    else
      mlirOperationSetAttributeByName(
          op, embStr("compute_type"),
          mlirTypeAttrGet(o->type == TYPE_F16 ? mlirF16TypeGet(ctx)
                                              : mlirBF16TypeGet(ctx)));
  }
  embOpListFree(&ops);
}

const EmbPassDef embAttentionComputeTypePassDef = {
    .argument = "emb-attention-compute-type",
    .name = "EmbAttentionComputeType",
    .summary = "Compute f32 emb.attention and emb.ikbo_attention in f16 or "
               "bf16 (compute_type)",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .options = &options,
    .run = run,
};

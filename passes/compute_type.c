//===- passes/compute_type.c - emb-compute-type ---------------------------===//
//
// Sets what the f32 products that have a conversion path compute in:
// emb.attention, emb.ikbo_attention and emb.ikbo_lce of f32 data. `type=bf16`
// (the default) or `type=f16` writes `compute_type` on each, so that their
// data operands (attention's q, k and v; ikbo_lce's weights, users and
// candidates) are rounded once to that type and the f16/bf16 tensor-core
// kernels run (f32 accumulation; the output carries the compute type's
// rounding); `type=f32` removes it (the exact f32 path). Ops on f16 or bf16
// data are left as they are, and so is emb.lce: it has no compute_type (its
// f32 path is cuBLAS in exact f32). It is the opt-in a user adds after
// emb-ikbo (emb.ikbo_lce is made by emb-fuse-broadcast from emb.lce), as
// torch's autocast is for SDPA and matmul.
//
// Preconditions: none. Postconditions: every f32 emb.attention,
// emb.ikbo_attention and emb.ikbo_lce has the chosen compute_type (none for
// f32). The pass never fails.
//
//===----------------------------------------------------------------------===//

#include "pass.h"
#include "rewrite.h"

#include "ir.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stddef.h>

static const char passName[] = "emb-compute-type";

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
     .help = "what f32 attention and ikbo_lce compute in: f16 or bf16 "
             "(operands rounded once, tensor cores), or f32 (exact)"},
};

static const EmbOptionTable options = {optionRows, EMB_NUM_OPTIONS(optionRows),
                                       sizeof(ComputeTypeOptions)};

/// True for an emb.attention, emb.ikbo_attention or emb.ikbo_lce of f32
/// data (operand 0, the first of its data operands, which hold one type).
static bool hasConversionPath(MlirOperation op) {
  if ((!embOpIs(op, EMB_OP_ATTENTION) && !embOpIs(op, EMB_OP_IKBO_ATTENTION) &&
       !embOpIs(op, EMB_OP_IKBO_LCE)) ||
      mlirOperationGetNumOperands(op) < 1)
    return false;
  MlirType data = mlirValueGetType(mlirOperationGetOperand(op, 0));
  return mlirTypeIsAShaped(data) &&
         mlirTypeIsAF32(mlirShapedTypeGetElementType(data));
}

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
    if (!hasConversionPath(op))
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

const EmbPassDef embComputeTypePassDef = {
    .argument = "emb-compute-type",
    .name = "EmbComputeType",
    .summary = "Compute f32 emb.attention, emb.ikbo_attention and "
               "emb.ikbo_lce in f16 or bf16 (compute_type)",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "",
    .options = &options,
    .run = run,
};

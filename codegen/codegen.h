//===- codegen/codegen.h - Registry entries of the codegen passes -*- C -*-===//

#ifndef EMB_CODEGEN_CODEGEN_H
#define EMB_CODEGEN_CODEGEN_H

#include "pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/// emb-lower-to-runtime (codegen/lower_to_runtime.c).
extern const EmbRegistryEntry embLowerToRuntimeEntry;

/// emb-lower-to-llvm: the pipeline from emb-level IR to the LLVM dialect
/// (codegen/lower_to_llvm.c).
extern const EmbRegistryEntry embLowerToLlvmEntry;

#ifdef __cplusplus
}
#endif

#endif // EMB_CODEGEN_CODEGEN_H

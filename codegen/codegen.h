//===- codegen/codegen.h - codegen's passes and the registry -----*- C -*-===//
//
// codegen/ is the top of the compiler: it lowers what passes/ makes, and it
// holds what must know every pass, passes/' and its own: the registry of
// passes and pipelines by name (registry.c) and the textual pipeline parser
// that reads them (pipeline_parser.c). Private to libemb.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_CODEGEN_CODEGEN_H
#define EMB_CODEGEN_CODEGEN_H

#include "pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The options of emb-lower-to-runtime, which emb-lower-to-llvm takes too.
typedef struct EmbLowerToRuntimeOptions {
  int64_t target; ///< an EmbTarget
} EmbLowerToRuntimeOptions;

/// Their table (lower_to_runtime.c).
extern const EmbOptionTable embLowerToRuntimeOptions;

/// emb-lower-to-runtime (lower_to_runtime.c).
extern const EmbPassDef embLowerToRuntimePassDef;

/// emb-lower-strided-copies (lower_strided_copies.c).
extern const EmbPassDef embLowerStridedCopiesPassDef;

/// emb-expand-f64-to-bf16 (expand_f64_to_bf16.c).
extern const EmbPassDef embExpandF64ToBF16PassDef;

/// emb-lower-to-llvm: the pipeline from emb-level IR to the LLVM dialect
/// (lower_to_llvm.c).
extern const EmbPassDef embLowerToLlvmPipelineDef;

/// The registered pass or pipeline named `name` (`len` bytes), or NULL.
const EmbPassDef *embLookupPass(const char *name, size_t len);

#ifdef __cplusplus
}
#endif

#endif // EMB_CODEGEN_CODEGEN_H

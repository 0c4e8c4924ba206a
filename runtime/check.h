//===- runtime/check.h - Argument checks of the entry points ------*- C -*-===//
//
// Every public entry point checks its arguments here, once, before it calls a
// backend; backends then trust them. A failed check records
// EMBRT_INVALID_ARGUMENT with a message that names the op and the field
// ("tbe: tableDims[2] is 0, must be in 1..2048") and returns it.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_CHECK_H
#define EMB_RUNTIME_CHECK_H

#include "runtime/internal.h"

/// How much of an argument struct a check covers.
typedef enum embrtCheckMode {
  /// A *WorkspaceSize query: struct size, enums, shapes and host arrays; the
  /// data pointers may still be unset.
  EMBRT_CHECK_SHAPES = 0,
  /// A call: everything, data pointers included. The workspace is checked by
  /// embrtCheckWorkspace once the backend has said how much it needs.
  EMBRT_CHECK_CALL = 1,
} embrtCheckMode;

embrtStatus embrtCheckTbe(embrtContext *ctx, const embrtTbeArgs *args,
                          embrtCheckMode mode);
embrtStatus embrtCheckEmbeddingBag(embrtContext *ctx,
                                   const embrtEmbeddingBagArgs *args,
                                   embrtCheckMode mode);
/// `isAdd` selects broadcast_add (float dtypes, nro required).
embrtStatus embrtCheckBroadcast(embrtContext *ctx,
                                const embrtBroadcastArgs *args, int isAdd);
embrtStatus embrtCheckLce(embrtContext *ctx, const embrtLceArgs *args,
                          embrtCheckMode mode);
embrtStatus embrtCheckIkboLce(embrtContext *ctx, const embrtIkboLceArgs *args,
                              embrtCheckMode mode);
/// `isIkbo` selects ikbo_attention (candToUser required, userLengths
/// allowed); plain attention needs U == B and neither index array.
embrtStatus embrtCheckAttention(embrtContext *ctx,
                                const embrtAttentionArgs *args, int isIkbo,
                                embrtCheckMode mode);
embrtStatus embrtCheckConcat(embrtContext *ctx, const embrtConcatArgs *args);
embrtStatus embrtCheckStridedCopy(embrtContext *ctx,
                                  const embrtStridedCopyArgs *args);
embrtStatus embrtCheckElementwise(embrtContext *ctx,
                                  const embrtElementwiseArgs *args);
embrtStatus embrtCheckFill(embrtContext *ctx, const void *output,
                           embrtDtype dtype, int64_t numElements,
                           const void *value);
embrtStatus embrtCheckConvert(embrtContext *ctx, const void *input,
                              embrtDtype inputDtype, const void *output,
                              embrtDtype outputDtype, int64_t numElements);

/// Checks a caller's workspace against the `needed` bytes a backend asked
/// for: present, large enough, and aligned to embrtWorkspaceAlignment.
embrtStatus embrtCheckWorkspace(embrtContext *ctx, const char *op,
                                const void *workspace, size_t bytes,
                                size_t needed);

/// Checks that a *WorkspaceSize query has somewhere to write its answer.
embrtStatus embrtCheckBytesOut(embrtContext *ctx, const char *op,
                               const size_t *bytes);

/// The alignment a workspace needs on the context's device: 256 bytes on
/// CUDA (what cuBLAS asks for; cudaMalloc gives it), 16 on the CPU (what
/// malloc gives).
size_t embrtWorkspaceAlignment(const embrtContext *ctx);

#endif // EMB_RUNTIME_CHECK_H

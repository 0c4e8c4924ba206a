//===- kernels/pending.c - Launchers of missing kernels -----------*- C -*-===//
//
// Stand-ins for the launchers of kernels/tbe.cu, kernels/ikbo_lce.cu and
// kernels/attention.cu while a file is missing: they answer
// EMBRT_UNSUPPORTED, so the runtime builds and links before every kernel
// exists. kernels/CMakeLists.txt defines EMBRT_HAVE_<NAME>_KERNEL for each
// file that exists, which removes its stand-ins.
//
//===----------------------------------------------------------------------===//

#include "kernels/launch.h"

#if !defined(EMBRT_HAVE_TBE_KERNEL) || !defined(EMBRT_HAVE_IKBO_LCE_KERNEL) || \
    !defined(EMBRT_HAVE_ATTENTION_KERNEL)
static embrtStatus pending(embrtContext *ctx, const char *op) {
  return embrtSetError(ctx, EMBRT_UNSUPPORTED,
                       "%s: not yet implemented on CUDA", op);
}
#endif

#ifndef EMBRT_HAVE_TBE_KERNEL
embrtStatus embrtCudaLaunchTbeForward(embrtContext *ctx,
                                      const embrtTbeArgs *args) {
  return pending(ctx, "tbe");
}

embrtStatus embrtCudaTbeWorkspaceSize(embrtContext *ctx,
                                      const embrtTbeArgs *args, size_t *bytes) {
  *bytes = 0;
  return pending(ctx, "tbe");
}
#endif

#ifndef EMBRT_HAVE_IKBO_LCE_KERNEL
embrtStatus embrtCudaLaunchIkboLce(embrtContext *ctx,
                                   const embrtIkboLceArgs *args) {
  return pending(ctx, "ikbo_lce");
}

embrtStatus embrtCudaIkboLceWorkspaceSize(embrtContext *ctx,
                                          const embrtIkboLceArgs *args,
                                          size_t *bytes) {
  *bytes = 0;
  return pending(ctx, "ikbo_lce");
}
#endif

#ifndef EMBRT_HAVE_ATTENTION_KERNEL
embrtStatus embrtCudaLaunchAttention(embrtContext *ctx,
                                     const embrtAttentionArgs *args) {
  return pending(ctx, "attention");
}

embrtStatus embrtCudaAttentionWorkspaceSize(embrtContext *ctx,
                                            const embrtAttentionArgs *args,
                                            size_t *bytes) {
  *bytes = 0;
  return pending(ctx, "attention");
}
#endif

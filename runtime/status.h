//===- runtime/status.h - Recording failures on a context ---------*- C -*-===//
//
// How every part of the runtime reports: a status code plus a readable
// message for the last failure, kept on the context (runtime/status.c). The
// first failing status sticks until embrtContextClearError; the message
// follows the latest failure (or warning note).
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_STATUS_H
#define EMB_RUNTIME_STATUS_H

#include "emb/runtime.h"

/// Records `status` with a printf-style message on `ctx` and returns it.
/// EMBRT_OK is returned unchanged and records nothing.
embrtStatus embrtSetError(embrtContext *ctx, embrtStatus status,
                          const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/// Writes a printf-style note into the last message without failing: used
/// for ids skipped under EMBRT_BOUNDS_WARNING. The sticky status is kept.
void embrtSetNote(embrtContext *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/// Returns from the enclosing function with the status of `expr` unless it
/// is EMBRT_OK.
#define EMBRT_TRY(expr)                                                        \
  do {                                                                         \
    embrtStatus tryStatus_ = (expr);                                           \
    if (tryStatus_ != EMBRT_OK)                                                \
      return tryStatus_;                                                       \
  } while (0)

#endif // EMB_RUNTIME_STATUS_H

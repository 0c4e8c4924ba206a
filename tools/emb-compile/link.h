//===- tools/emb-compile/link.h - Link a model into a shared object -*- C -*-=//
//
// emb-compile --shared links with the system C compiler (link.c says how a
// shared object finds the runtime).
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TOOLS_EMB_COMPILE_LINK_H
#define EMB_TOOLS_EMB_COMPILE_LINK_H

/// Links the model's object `object` and its descriptor source `descriptor`
/// into the shared object `output`, with $CC (else `cc`), using the
/// directory `dir` for a stand-in of libembrt.so. Returns 0 on success;
/// else reports the failing command on stderr and returns 1.
int embLinkShared(const char *dir, const char *object, const char *descriptor,
                  const char *output);

#endif // EMB_TOOLS_EMB_COMPILE_LINK_H

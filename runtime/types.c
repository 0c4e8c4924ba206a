//===- runtime/types.c - Element sizes ----------------------------*- C -*-===//
//
// The size of each embrtDtype; 0 answers "not a dtype" for the checks.
//
//===----------------------------------------------------------------------===//

#include "emb/runtime.h"

size_t embrtDtypeSize(embrtDtype dtype) {
  switch (dtype) {
  case EMBRT_F32:
  case EMBRT_I32:
    return 4;
  case EMBRT_F16:
  case EMBRT_BF16:
    return 2;
  case EMBRT_I64:
  case EMBRT_F64:
    return 8;
  case EMBRT_I8:
    return 1;
  }
  return 0;
}

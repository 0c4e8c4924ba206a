//===- runtime/types.c - Status names and element sizes -----------*- C -*-===//
//
// The constant tables of the public enums.
//
//===----------------------------------------------------------------------===//

#include "runtime/internal.h"

const char *embrtStatusName(embrtStatus status) {
  switch (status) {
  case EMBRT_OK:
    return "EMBRT_OK";
  case EMBRT_INVALID_ARGUMENT:
    return "EMBRT_INVALID_ARGUMENT";
  case EMBRT_OUT_OF_RANGE:
    return "EMBRT_OUT_OF_RANGE";
  case EMBRT_UNSUPPORTED:
    return "EMBRT_UNSUPPORTED";
  case EMBRT_OUT_OF_MEMORY:
    return "EMBRT_OUT_OF_MEMORY";
  case EMBRT_DEVICE_ERROR:
    return "EMBRT_DEVICE_ERROR";
  }
  return "EMBRT_UNKNOWN_STATUS";
}

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

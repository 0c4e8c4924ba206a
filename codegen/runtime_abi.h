//===- codegen/runtime_abi.h - The runtime as the compiler sees it -*- C
//-*-===//
//
// What the compiler knows of the runtime ABI (include/emb/compiled.h) beyond
// its EMB_ABI_* layouts: the functions compiled code calls, each with the
// signature the lowering declares and the address the JIT binds
// (runtime_symbols.def lists them), and the runtime's element types
// (embrtDtype) for MLIR types. Private to codegen/.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_CODEGEN_RUNTIME_ABI_H
#define EMB_CODEGEN_RUNTIME_ABI_H

#include "mlir-c/IR.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A row of runtime_symbols.def.
typedef enum EmbRuntimeFn {
#define EMB_RUNTIME_SYMBOL(id, function, signature) id,
#include "runtime_symbols.def"
  EMB_RT_NUM_SYMBOLS
} EmbRuntimeFn;

/// One function compiled code calls.
typedef struct EmbRuntimeSymbol {
  const char *name;      ///< the C symbol, "embrtCompiledTbe"
  const char *signature; ///< its MLIR function type, "(!llvm.ptr, ...)"
  void *address;         ///< its implementation in this process
} EmbRuntimeSymbol;

/// Every function compiled code calls, indexed by EmbRuntimeFn.
extern const EmbRuntimeSymbol embRuntimeSymbols[EMB_RT_NUM_SYMBOLS];

/// The runtime's dtype (embrtDtype) of an element type, or -1 if it has
/// none: f32, f16, bf16, f64, i32, i64, i8, and i1 (stored one byte an
/// element, as i8). Other integer widths (i16 among them) have no dtype.
int64_t embRuntimeDtype(MlirType element);

/// The runtime dtype of a shaped value's elements, or -1.
int64_t embValueDtype(MlirValue v);

/// Bytes of one element of shaped type `type`, 0 without a runtime dtype.
int64_t embTensorElementBytes(MlirType type);

/// What an entry function may take and return: the index (inputs first,
/// then results) of the first type of function type `ft` that is not a
/// ranked tensor of at most EMBRT_MAX_RANK dims with a runtime dtype, or -1
/// if every one is.
intptr_t embFindNonRuntimeTensor(MlirType ft);

#ifdef __cplusplus
}
#endif

#endif // EMB_CODEGEN_RUNTIME_ABI_H

//===- codegen/runtime_abi.c - The runtime as the compiler sees it --------===//
//
// The table of runtime functions made from runtime_symbols.def, and the one
// mapping from MLIR element types to the runtime's dtypes that the lowering
// and the entry description (signature.c) share.
//
//===----------------------------------------------------------------------===//

#include "runtime_abi.h"

#include "emb/compiled.h"

#include "mlir-c/BuiltinTypes.h"

// Two steps, so that a row naming its function by a macro (EMB_ABI_SYMBOL)
// gets the name the macro expands to.
#define EMB_SYMBOL_NAME_(function) #function
#define EMB_SYMBOL_NAME(function) EMB_SYMBOL_NAME_(function)

const EmbRuntimeSymbol embRuntimeSymbols[EMB_RT_NUM_SYMBOLS] = {
#define EMB_RUNTIME_SYMBOL(id, function, signature)                            \
  [id] = {EMB_SYMBOL_NAME(function), signature, (void *)function},
#include "runtime_symbols.def"
};

int64_t embRuntimeDtype(MlirType t) {
  if (mlirTypeIsAF32(t))
    return EMBRT_F32;
  if (mlirTypeIsAF16(t))
    return EMBRT_F16;
  if (mlirTypeIsABF16(t))
    return EMBRT_BF16;
  if (mlirTypeIsAF64(t))
    return EMBRT_F64;
  if (mlirTypeIsAInteger(t)) {
    unsigned w = mlirIntegerTypeGetWidth(t);
    if (w == 32)
      return EMBRT_I32;
    if (w == 64)
      return EMBRT_I64;
    // i1 is stored one byte an element. No dtype holds other widths: an
    // i16 described as i8 would get buffers of half its bytes.
    if (w == 8 || w == 1)
      return EMBRT_I8;
  }
  return -1;
}

int64_t embValueDtype(MlirValue v) {
  return embRuntimeDtype(mlirShapedTypeGetElementType(mlirValueGetType(v)));
}

intptr_t embFindNonRuntimeTensor(MlirType ft) {
  intptr_t ni = mlirFunctionTypeGetNumInputs(ft);
  intptr_t no = mlirFunctionTypeGetNumResults(ft);
  for (intptr_t i = 0; i < ni + no; ++i) {
    MlirType t = i < ni ? mlirFunctionTypeGetInput(ft, i)
                        : mlirFunctionTypeGetResult(ft, i - ni);
    if (!mlirTypeIsARankedTensor(t) ||
        mlirShapedTypeGetRank(t) > EMBRT_MAX_RANK ||
        embRuntimeDtype(mlirShapedTypeGetElementType(t)) < 0)
      return i;
  }
  return -1;
}

int64_t embTensorElementBytes(MlirType type) {
  int64_t d = embRuntimeDtype(mlirShapedTypeGetElementType(type));
  return d < 0 ? 0 : (int64_t)embrtDtypeSize((embrtDtype)d);
}

//===- codegen/builder.h - Building upstream ops from C ----------*- C -*-===//
//
// The C API builds ops through OperationState, which needs each op's inherent
// attributes spelled out. These helpers build the handful of arith, memref,
// func and llvm ops the lowering emits, appending to a block, so that the
// lowering reads as what it emits.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_CODEGEN_BUILDER_H
#define EMB_CODEGEN_BUILDER_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Where new ops go: appended to `block`, or before `before` if it is set.
typedef struct EmbBuilder {
  MlirContext ctx;
  MlirLocation loc;
  MlirBlock block;
  MlirOperation before;
} EmbBuilder;

/// Creates op `name` and inserts it at the builder's point.
MlirOperation embBuildOp(EmbBuilder *b, const char *name, intptr_t nOperands,
                         const MlirValue *operands, intptr_t nResults,
                         const MlirType *results, intptr_t nAttrs,
                         const MlirNamedAttribute *attrs);

/// Inserts `op` (created, not yet in a block) at the builder's point.
void embBuilderInsert(EmbBuilder *b, MlirOperation op);

/// Common types.
MlirType embI64Type(MlirContext ctx);
MlirType embPtrType(MlirContext ctx);

/// arith.constant of an i64 / index.
MlirValue embBuildConstI64(EmbBuilder *b, int64_t v);
MlirValue embBuildConstIndex(EmbBuilder *b, int64_t v);

/// arith.index_cast between index and i64.
MlirValue embBuildIndexToI64(EmbBuilder *b, MlirValue v);
MlirValue embBuildI64ToIndex(EmbBuilder *b, MlirValue v);

/// arith.muli / arith.addi / arith.divsi on i64.
MlirValue embBuildMulI64(EmbBuilder *b, MlirValue x, MlirValue y);
MlirValue embBuildAddI64(EmbBuilder *b, MlirValue x, MlirValue y);
MlirValue embBuildDivI64(EmbBuilder *b, MlirValue x, MlirValue y);
MlirValue embBuildMaxI64(EmbBuilder *b, MlirValue x, MlirValue y);

/// A binary op `name` (arith.andi, arith.remui, ...) whose result has x's
/// type.
MlirValue embBuildBinary(EmbBuilder *b, const char *name, MlirValue x,
                         MlirValue y);

/// arith.cmpi of x and y with arith's `predicate` number (eq 0, slt 2,
/// sge 5, ult 6, ...); returns i1.
MlirValue embBuildCmpI(EmbBuilder *b, int64_t predicate, MlirValue x,
                       MlirValue y);

/// arith.cmpf of x and y with arith's `predicate` number (oeq 1, ogt 2,
/// olt 4, uno 14, ...); returns i1.
MlirValue embBuildCmpF(EmbBuilder *b, int64_t predicate, MlirValue x,
                       MlirValue y);

/// llvm.alloca of `n` elements of `elemType`; returns !llvm.ptr.
MlirValue embBuildAlloca(EmbBuilder *b, MlirType elemType, int64_t n);

/// llvm.getelementptr: the address of element `i` of an array of `elemType`
/// at `base` (an i8 array: `i` bytes past `base`).
MlirValue embBuildGep(EmbBuilder *b, MlirValue base, MlirType elemType,
                      int32_t i);

/// Stores `value` (of `elemType`) at element `i` of the array at `base`.
void embBuildStoreAt(EmbBuilder *b, MlirValue base, MlirType elemType,
                     int64_t i, MlirValue value);

/// llvm.mlir.zero : !llvm.ptr (a null pointer).
MlirValue embBuildNullPtr(EmbBuilder *b);

/// The address of a memref's first element as !llvm.ptr (aligned pointer
/// plus offset), for a memref of `elemBytes`-byte elements.
MlirValue embBuildMemrefPtr(EmbBuilder *b, MlirValue memref, int64_t elemBytes);

/// memref.alloc of `type` (64-byte aligned) with its dynamic sizes (index
/// values, in order).
MlirValue embBuildMemrefAlloc(EmbBuilder *b, MlirType type, intptr_t nDynamic,
                              const MlirValue *dynamicSizes);

/// memref.dim as i64.
MlirValue embBuildMemrefDim(EmbBuilder *b, MlirValue memref, int64_t dim);

/// Moves `op` into the then branch of a new scf.if on `cond`, placed where
/// `op` was, whose then branch yields op's results and whose else branch
/// is `elseBlock` (ending in its scf.yield of values of op's result
/// types); every use of op's results becomes the if's. Returns the if.
MlirOperation embMoveIntoIf(MlirContext ctx, MlirOperation op, MlirValue cond,
                            MlirBlock elseBlock);

/// The ops nested in `root` (itself included) for which `match` holds, in
/// program order, as a malloc'ed array of `*count` (the caller frees it):
/// what a rewrite that replaces ops collects before it starts.
MlirOperation *embCollectOps(MlirOperation root, bool (*match)(MlirOperation),
                             size_t *count);

/// func.call @callee(args) with at most one result (resultType may be null).
MlirValue embBuildCall(EmbBuilder *b, const char *callee, intptr_t nArgs,
                       const MlirValue *args, MlirType resultType);

#ifdef __cplusplus
}
#endif

#endif // EMB_CODEGEN_BUILDER_H

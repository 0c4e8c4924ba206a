//===- passes/rewrite.h - IR building blocks for emb's rewrites --*- C -*-===//
//
// What the rewrite passes share: a growable list of ops, matchers on
// defining ops, erasure of what a rewrite made dead, tensor type arithmetic,
// and builders for the few ops the rewrites create (emb ops, tensor.concat,
// tensor.extract_slice, splat constants and zero tensors).
//
// The passes rewrite in place, without MLIR's greedy driver: each collects the
// ops it may rewrite in one pre-order walk, then visits them in that order.
// A rewrite inserts its new ops before the op it replaces and may erase only
// that op and the ops it made dead, which all come earlier in pre-order (they
// dominate it), so the ops still to visit are never erased under the walk.
//
// Every builder inserts its op before `before` and gives it location `loc`.
// Private to libemb.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_PASSES_REWRITE_H
#define EMB_PASSES_REWRITE_H

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Op lists
//===----------------------------------------------------------------------===//

/// A growable array of ops. Zero-initialise it; free it with embOpListFree.
typedef struct EmbOpList {
  MlirOperation *ops;
  size_t size;
  size_t capacity;
} EmbOpList;

/// Appends `op`; false when memory runs out.
bool embOpListPush(EmbOpList *list, MlirOperation op);

/// Frees the list's storage and empties it.
void embOpListFree(EmbOpList *list);

/// Appends every op nested in `root` (not `root` itself) in pre-order, so
/// that producers come before their users. False when memory runs out.
bool embCollectNestedOps(MlirOperation root, EmbOpList *list);

/// Like embCollectNestedOps, but does not descend into the regions of the
/// ops for which `skipRegions` returns true (they are collected themselves).
bool embCollectNestedOpsSkipping(MlirOperation root, EmbOpList *list,
                                 bool (*skipRegions)(MlirOperation op));

/// The run of a rewrite pass: collects the ops nested in `root` as above,
/// then calls `rewrite(op, options)` on each in that order until one returns
/// false (memory ran out). Then, or if collecting ran out of memory, emits
/// "<passName>: out of memory" at `root` and fails `pass`.
void embRewriteNestedOps(MlirOperation root, MlirExternalPass pass,
                         const char *passName,
                         bool (*rewrite)(MlirOperation op, const void *options),
                         const void *options);

/// embRewriteNestedOps over the ops collected by embCollectNestedOpsSkipping:
/// a rewrite may then erase an op with a region it does not descend into
/// (a linalg.generic and its body) without the walk visiting the body.
void embRewriteNestedOpsSkipping(MlirOperation root, MlirExternalPass pass,
                                 const char *passName,
                                 bool (*skipRegions)(MlirOperation op),
                                 bool (*rewrite)(MlirOperation op,
                                                 const void *options),
                                 const void *options);

//===----------------------------------------------------------------------===//
// Matching and erasing
//===----------------------------------------------------------------------===//

/// The op named `name` that defines `v`, or a null op if `v` is a block
/// argument or made by another op.
MlirOperation embDefiningOp(MlirValue v, const char *name);

/// True if `v` has at least one use.
bool embHasUses(MlirValue v);

/// Erases `op` if none of its results has a use and it has no effects
/// (embHasEffects); returns whether it did.
bool embEraseIfDead(MlirOperation op);

/// Replaces every use of `op`'s single result by `with` and erases `op`.
void embReplaceOp(MlirOperation op, MlirValue with);

/// True for the ops a dead-code cleanup may erase: they have no effects
/// (emb.broadcast, tensor ops, linalg ops on tensors, arith and math; never
/// an op of embHasEffects).
bool embIsPure(MlirOperation op);

/// Erases `op` if it has no uses and embIsPure accepts it, then does the
/// same for the producers of its operands that this left without uses.
void embEraseDeadChain(MlirOperation op);

/// Like embEraseDeadChain for the producers of `n` values (the operands of
/// an op the caller has just erased; read them before erasing).
void embEraseDeadProducers(intptr_t n, const MlirValue *values);

/// True for the dialects whose ops act element by element on tensors
/// (arith and math), except arith.constant.
bool embIsElementwise(MlirOperation op);

//===----------------------------------------------------------------------===//
// Tensor types
//===----------------------------------------------------------------------===//

/// `t` (a ranked tensor) with dim `i` set to `size` (-1: dynamic).
MlirType embWithDim(MlirType t, intptr_t i, int64_t size);

/// `t` (a ranked tensor) with element type `element`.
MlirType embWithElement(MlirType t, MlirType element);

/// A ranked tensor of `rank` dims `shape` (-1: dynamic) holding `element`.
MlirType embTensorType(intptr_t rank, const int64_t *shape, MlirType element);

/// True if the two ranked tensor types have the same rank and dims.
bool embSameShape(MlirType a, MlirType b);

/// True if every dim of the ranked tensor type `t` is static.
bool embIsStatic(MlirType t);

/// The number of bytes of an f32, f16 or bf16 element; 0 for other types.
int embElementBytes(MlirType element);

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

/// Creates op `name` with `numOperands` operands, one result of type
/// `resultType` (none when null) and `numAttrs` attributes, before `before`.
MlirOperation embCreateOp(MlirOperation before, MlirLocation loc,
                          const char *name, intptr_t numOperands,
                          const MlirValue *operands, MlirType resultType,
                          intptr_t numAttrs, const MlirNamedAttribute *attrs);

/// Like embCreateOp, but appends the op to the end of `block`.
MlirOperation embAppendOp(MlirBlock block, MlirLocation loc, const char *name,
                          intptr_t numOperands, const MlirValue *operands,
                          MlirType resultType, intptr_t numAttrs,
                          const MlirNamedAttribute *attrs);

/// "emb.broadcast"(ro, cand_to_user) -> resultType.
MlirValue embCreateBroadcast(MlirOperation before, MlirLocation loc,
                             MlirValue ro, MlirValue candToUser,
                             MlirType resultType);

/// An integer (or index) `arith.constant <value> : type`.
MlirValue embCreateIntConstant(MlirOperation before, MlirLocation loc,
                               MlirType type, int64_t value);

/// `arith.constant <value> : index`.
MlirValue embCreateIndexConstant(MlirOperation before, MlirLocation loc,
                                 int64_t value);

/// `tensor.dim %v, <i>` (an index).
MlirValue embCreateDim(MlirOperation before, MlirLocation loc, MlirValue v,
                       intptr_t i);

/// `tensor.concat dim(<dim>)` of `values`, its result type inferred as
/// tensor.concat does (the first static size of each other dim; the sum
/// along `dim`, dynamic if any part is). One value is returned as is.
MlirValue embCreateConcat(MlirOperation before, MlirLocation loc, int64_t dim,
                          intptr_t n, const MlirValue *values);

/// `tensor.extract_slice` of `src` taking `size` entries from `offset` along
/// `dim` (both static) and every entry of the other dims (a dynamic other dim
/// is sized with tensor.dim), unit strides.
MlirValue embCreateSliceAlong(MlirOperation before, MlirLocation loc,
                              MlirValue src, intptr_t dim, int64_t offset,
                              int64_t size);

/// `arith.constant dense<element> : type` (`type` static).
MlirValue embCreateSplatConstant(MlirOperation before, MlirLocation loc,
                                 MlirType type, MlirAttribute element);

/// A tensor of `type` filled with `scalar`: an arith.constant splat when
/// `type` is static; otherwise `tensor.splat` of an arith.constant scalar,
/// each dynamic dim `i` sized by `tensor.dim %like, i`.
MlirValue embCreateFilled(MlirOperation before, MlirLocation loc, MlirType type,
                          MlirAttribute scalar, MlirValue like);

/// A float zero of `element`.
MlirAttribute embZeroAttr(MlirType element);

#ifdef __cplusplus
}
#endif

#endif // EMB_PASSES_REWRITE_H

//===- passes/linalg_match.h - Reading and building linalg --------*- C -*-===//
//
// What the raising passes (raise_*.c) share to read the IR torch-mlir emits
// and to build the few linalg and tensor ops a raised form needs:
//
//   - linalg.generic as data: its inputs and inits, indexing maps, iterator
//     kinds, body block and yielded values;
//   - matchers on the scalar ops of a body (constants, linalg.index, casts,
//     comparisons with their predicate normalised) and on the tensor ops
//     around a generic (zero fills, copies, transposes, elementwise casts),
//     each checking what the op computes, not how it is spelled;
//   - builders for linalg.transpose, tensor.empty, reshapes, dense index
//     constants and elementwise generics;
//   - replacing a raised form and erasing what it left dead (linalg and
//     tensor ops on tensors have no effects), and the walk the passes run
//     in, which does not descend into the bodies it may erase.
//
// The passes anchor each rewrite on the last op of the form they raise, so
// that everything they erase comes earlier in the pre-order walk of
// embRewriteNestedOps (rewrite.h). Private to libemb.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_PASSES_LINALG_MATCH_H
#define EMB_PASSES_LINALG_MATCH_H

#include "mlir-c/AffineExpr.h"
#include "mlir-c/AffineMap.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most loops (and tensor dims) the raising passes look at.
enum { EMB_MAX_LOOPS = 8 };

//===----------------------------------------------------------------------===//
// linalg.generic
//===----------------------------------------------------------------------===//

/// A linalg.generic read into plain data.
typedef struct EmbGeneric {
  MlirOperation op;
  intptr_t numInputs, numInits, numLoops;
  MlirBlock body;
  MlirOperation yield;
  /// 'p' (parallel) or 'r' (reduction) per loop.
  char iterators[EMB_MAX_LOOPS];
} EmbGeneric;

/// Reads `op` if it is a linalg.generic on ranked tensors with at most
/// EMB_MAX_LOOPS loops; false otherwise.
bool embReadGeneric(MlirOperation op, EmbGeneric *g);

/// Reads the generic that defines `v` (looking through tensor.cast).
bool embReadGenericOf(MlirValue v, EmbGeneric *g);

/// Operand `i` of the generic (inputs first, then inits).
MlirValue embGenericOperand(const EmbGeneric *g, intptr_t i);

/// The indexing map of operand `i`.
MlirAffineMap embGenericMap(const EmbGeneric *g, intptr_t i);

/// The value the body yields for result `i`.
MlirValue embGenericYielded(const EmbGeneric *g, intptr_t i);

/// The operand whose element block argument `v` is, or -1 if `v` is not an
/// argument of the generic's body.
intptr_t embGenericArgOperand(const EmbGeneric *g, MlirValue v);

/// True if every loop is parallel.
bool embGenericAllParallel(const EmbGeneric *g);

/// True if `v` is defined outside the generic's body (captured from above).
bool embDefinedAbove(const EmbGeneric *g, MlirValue v);

//===----------------------------------------------------------------------===//
// Affine maps
//===----------------------------------------------------------------------===//

/// What result `i` of a map is: the loop's position for a dim, EMB_MAP_ZERO
/// for the constant 0 (a broadcast size-1 dim), EMB_MAP_OTHER otherwise.
enum { EMB_MAP_ZERO = -1, EMB_MAP_OTHER = -2 };
int64_t embMapResult(MlirAffineMap m, intptr_t i);

/// True if `m` has `n` results and result `i` is what `dims[i]` says
/// (a loop position, or EMB_MAP_ZERO).
bool embMapIs(MlirAffineMap m, intptr_t n, const int64_t *dims);

/// True if `m` is the identity on `n` loops.
bool embMapIsIdentityOf(MlirAffineMap m, intptr_t n);

//===----------------------------------------------------------------------===//
// Scalars in a body
//===----------------------------------------------------------------------===//

/// The op that defines `v`, or a null op for a block argument.
MlirOperation embProducer(MlirValue v);

/// True if `v` is made by an op named `name`; then `*op` is that op.
bool embMadeBy(MlirValue v, const char *name, MlirOperation *op);

/// The integer (or index) value of an arith.constant.
bool embConstInt(MlirValue v, int64_t *value);

/// The value of a float arith.constant, or of a splat float constant tensor.
bool embConstFloat(MlirValue v, double *value);

/// The value of a float constant `v` in the body of `g`: a constant, or
/// the element of an input that is a splat constant (a 0-d tensor of the
/// scalar, as torch-mlir passes a Python number to an elementwise op).
bool embConstFloatIn(const EmbGeneric *g, MlirValue v, double *value);

/// True if `v` is `linalg.index <dim>`.
bool embIsLoopIndex(MlirValue v, int64_t dim);

/// `v` without arith.index_cast, arith.extsi and arith.extui around it.
MlirValue embStripIntCasts(MlirValue v);

/// True if `v` is the size of dim `dim` of tensor `t`, through integer
/// casts: a constant equal to its static size, or `tensor.dim %t, dim`.
bool embIsDimSize(MlirValue v, MlirValue t, int64_t dim);

/// arith.cmpi predicates (the attribute's values).
enum {
  EMB_CMPI_EQ = 0,
  EMB_CMPI_NE = 1,
  EMB_CMPI_SLT = 2,
  EMB_CMPI_SLE = 3,
  EMB_CMPI_SGT = 4,
  EMB_CMPI_SGE = 5,
};

/// Reads `v` as `lhs <pred> rhs` with pred one of slt, sle, eq, ne (sgt and
/// sge are read with their operands swapped): true if `v` is an arith.cmpi
/// of a signed or equality predicate.
bool embReadCmpI(MlirValue v, int *pred, MlirValue *lhs, MlirValue *rhs);

/// If `v` is made by the binary op `name`, its operands in `*a` and `*b`.
bool embReadBinary(MlirValue v, const char *name, MlirValue *a, MlirValue *b);

//===----------------------------------------------------------------------===//
// Tensor producers
//===----------------------------------------------------------------------===//

/// `v` without tensor.cast ops (which torch-mlir leaves where it widened a
/// static shape).
MlirValue embSkipCasts(MlirValue v);

/// True if `v` holds zeros: linalg.fill of a zero, a zero splat constant.
bool embIsZeroTensor(MlirValue v);

/// True if `v` is filled with one float: linalg.fill or a splat constant;
/// its value in `*value`.
bool embIsFilledWith(MlirValue v, double *value);

/// If `v` is a copy (linalg.generic of one input yielding it, identity init
/// map, all parallel), its input in `*src` and the input's map in `*map`.
bool embReadCopy(MlirValue v, MlirValue *src, MlirAffineMap *map);

/// If `v` is a transpose, its source in `*src` and the permutation in
/// `perm` (result dim i is source dim perm[i]): linalg.transpose, or a copy
/// generic whose input map is a permutation.
bool embReadTranspose(MlirValue v, MlirValue *src, int64_t *perm);

/// If `v` is an elementwise generic of one input whose body yields
/// `name(arg)` (e.g. arith.truncf, arith.extf), its input.
bool embReadUnaryElementwise(MlirValue v, const char *name, MlirValue *src);

/// If `v` is tensor.collapse_shape (or expand_shape) with reassociation
/// groups `groups` (each a -1-terminated list, `n` groups), its source.
bool embReadReshape(MlirValue v, const char *name, intptr_t n,
                    const int64_t (*groups)[EMB_MAX_LOOPS], MlirValue *src);

/// True if the only use of `v` is by `user` (or `v` has one use at all
/// when `user` is null); the user in `*user` then.
bool embSingleUser(MlirValue v, MlirOperation *user);

/// True if `v` is a function argument or made by arith.constant (a value
/// frozen into the model or given to it, not computed in it).
bool embIsConstantTensor(MlirValue v);

//===----------------------------------------------------------------------===//
// Builders (each inserts before `before`, at `loc`)
//===----------------------------------------------------------------------===//

/// `tensor.empty` of `type`, its dynamic dims read from `like` (same rank)
/// through tensor.dim, dim i of `like` at `dimsOf[i]`.
MlirValue embCreateEmptyLike(MlirOperation before, MlirLocation loc,
                             MlirType type, MlirValue like,
                             const int64_t *dimsOf);

/// `linalg.transpose` of `src` by `perm` (result dim i is src dim perm[i]);
/// `src` itself when perm is the identity. A transpose of an emb.broadcast
/// that keeps dim 0 is made on the user tensor and broadcast again, so the
/// IKBO rewrites still see the broadcast.
MlirValue embCreateTranspose(MlirOperation before, MlirLocation loc,
                             MlirValue src, const int64_t *perm);

/// tensor.expand_shape or tensor.collapse_shape (`name`) of `src` to
/// `type` with `n` reassociation groups (-1-terminated). Dynamic output
/// dims of an expand_shape must be in a group of their own: their size is
/// read from `src`'s dim of that group.
MlirValue embCreateReshape(MlirOperation before, MlirLocation loc,
                           const char *name, MlirValue src, MlirType type,
                           intptr_t n, const int64_t (*groups)[EMB_MAX_LOOPS]);

/// A 1-D `arith.constant dense<values>` of `n` elements of integer type
/// `element`.
MlirValue embCreateIntVector(MlirOperation before, MlirLocation loc,
                             MlirType element, intptr_t n,
                             const int64_t *values);

/// A linalg.generic of `numInputs` inputs and `numInits` inits (`operands`,
/// inputs first) with `maps`, `iterators` ('p' or 'r' per loop, as many as
/// the maps have dims), one result of `resultType` and the block `body`
/// (taken: its arguments are the operands' elements, it ends with
/// linalg.yield).
MlirOperation embCreateGeneric(MlirOperation before, MlirLocation loc,
                               intptr_t numInputs, intptr_t numInits,
                               const MlirValue *operands,
                               const MlirAffineMap *maps, const char *iterators,
                               MlirType resultType, MlirBlock body);

//===----------------------------------------------------------------------===//
// Erasing
//===----------------------------------------------------------------------===//

/// Replaces every use of `op`'s result `i` by `with`; then, if no result of
/// `op` is used any more, erases `op` (as embEraseUnused: the anchor of a
/// raise) and the producers of its operands that this left unused and that
/// embIsPure (rewrite.h) accepts, transitively.
void embReplaceAndErase(MlirOperation op, intptr_t i, MlirValue with);

/// Erases `op` (whatever it is, except an op with effects: embHasEffects)
/// if none of its results is used, and the producers of its operands that
/// this left unused and that embIsPure accepts, transitively.
void embEraseUnused(MlirOperation op);

/// The run of a raising pass: embRewriteNestedOpsSkipping that does not
/// descend into linalg ops' bodies (a raise erases whole generics).
void embRaiseNestedOps(MlirOperation root, MlirExternalPass pass,
                       const char *passName,
                       bool (*rewrite)(MlirOperation op, const void *options),
                       const void *options);

#ifdef __cplusplus
}
#endif

#endif // EMB_PASSES_LINALG_MATCH_H

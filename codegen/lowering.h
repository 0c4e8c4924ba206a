//===- codegen/lowering.h - What the parts of the lowering share -*- C -*-===//
//
// emb-lower-to-runtime in one file per concept: the pass itself, which
// drives the others (lower_to_runtime.c), which lowering owns each op
// (classify.c), the value map and the runtime calls (buffers.c), emb ops
// (emb_ops.c), tensor ops (tensor_ops.c), constants and elementwise ops
// (constants.c), linalg matmul chains (gemm.c), what emb.ikbo_lce reads
// through (ikbo_read_through.c), functions that keep ops MLIR compiles
// (mixed_functions.c), cf.assert (asserts.c), GPU kernels for the ops
// without a runtime call (gpu/), the ops of a sharded program (sharding.c).
// This header is what they share: the state of one lowering and the helpers
// that turn a lowered op into a call. Private to codegen/.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_CODEGEN_LOWERING_H
#define EMB_CODEGEN_LOWERING_H

#include "builder.h"
#include "runtime_abi.h"

#include "emb/compiled.h"
#include "emb/emb.h"

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Lowered values
//===----------------------------------------------------------------------===//

/// A size: a constant (`c` >= 0) or an i64 value computed at run time.
typedef struct EmbDim {
  MlirValue v;
  int64_t c;
} EmbDim;

/// What an old value became: a tensor's buffer and sizes, or a scalar's new
/// value.
typedef struct EmbMapped {
  const void *key;
  bool isTensor;
  MlirValue value; ///< !llvm.ptr for tensors, the new value for scalars
  /// Mixed functions: the memref of a result's buffer (memref.alloc), which
  /// becomes the result's tensor after the call; null otherwise.
  MlirValue memref;
  int rank;
  EmbDim dims[EMBRT_MAX_RANK];
} EmbMapped;

/// What one emb.ikbo_lce reads, per side (0: user, 1: candidate); see
/// ikbo_read_through.c.
typedef struct EmbIkboPlan {
  const void *op;
  MlirValue w[2], x[2]; ///< the weight (or its source) and the embeddings
  int64_t column[2];    ///< first column of the weight in w (a view), or 0
  bool view[2];         ///< w is the [M, S] source of a column view
  /// The candidate embeddings as the operands of the concat along K that
  /// made them (x[1] is then that concat, not read): a null piece is a zero
  /// splat, read as zeros. 0: x[1] is read.
  int numPieces;
  MlirValue pieces[EMBRT_IKBO_LCE_MAX_PIECES];
} EmbIkboPlan;

/// The lowering that owns an op of the function being lowered (classify.c),
/// in the order embClassifyFunction tries them.
typedef enum EmbOwner {
  EMB_OWNER_NONE, ///< no lowering takes it: an error
  /// A producer nothing needs: what an emb.ikbo_lce reads through, or (cuda
  /// target) what only GPU kernels read and copy in.
  EMB_OWNER_SKIPPED,
  EMB_OWNER_GEMM_PART,   ///< absorbed by a matmul chain, not lowered (gemm.c)
  EMB_OWNER_GEMM,        ///< the last op of a chain: embrtGemm (gemm.c)
  EMB_OWNER_EMB_OPS,     ///< a runtime call (emb_ops.c, sharding.c)
  EMB_OWNER_TENSOR_OPS,  ///< a runtime call (tensor_ops.c)
  EMB_OWNER_CONSTANTS,   ///< a runtime call (constants.c)
  EMB_OWNER_SCALAR_COPY, ///< a scalar arith or index op, copied
  EMB_OWNER_GPU_KERNEL,  ///< in a group of GPU kernels (gpu/, cuda target)
  EMB_OWNER_MLIR,        ///< left to MLIR (a mixed function: mixed_functions.c)
} EmbOwner;

/// The state of one run of the pass, reset for each function.
typedef struct EmbLowering {
  EmbTarget target;
  /// Lowering a mixed function (mixed_functions.c): emb ops become calls on
  /// buffers inside tensor IR, results are memref.alloc buffers, and the
  /// workspaces of one op are freed right after its call.
  bool mixed;
  MlirContext ctx;
  MlirModule module;
  EmbBuilder b;
  MlirValue ctxArg;
  /// Open addressing on the value's pointer; each entry is allocated on
  /// its own, so an EmbMapped * stays valid while the table grows.
  EmbMapped **map;
  size_t mapCap, mapCount;
  MlirValue *owned; ///< buffers to free before returning
  size_t numOwned, ownedCap;
  // Returned values and the out-parameter buffers they are written to.
  intptr_t numResults;
  const void **returned;
  EmbMapped *outs;
  bool *claimed;
  /// Results with a `?` dim: their out parameter is an embrtCompiledResult
  /// the function fills (include/emb/compiled.h), not a buffer.
  bool *dynamicResult;
  /// Result i is written through reshapes (writerOfResult): its producer's
  /// extents are its own dims, not the out buffer's.
  bool *reshapedResult;
  /// Which lowering owns each op of the function's block (classify.c):
  /// open addressing on the op's pointer.
  struct EmbOwnerSlot *owners;
  size_t ownersCap;
  // What emb.ikbo_lce ops read through (see embPlanReadThrough).
  EmbIkboPlan *plans;
  size_t numPlans;
  const void **skipped; ///< producers left unlowered
  size_t numSkipped;
  /// The linalg matmul chains of the function (gemm.c).
  struct EmbGemmPlan *gemms;
  size_t numGemms;
  /// The groups of ops that become GPU kernels (gpu/outline.c, cuda
  /// target), and how many kernel modules this run of the pass has made.
  struct EmbGpuKernelGroup *kernelGroups;
  size_t numKernelGroups, numKernelModules;
  /// The counts of all-to-alls already read on the host (sharding.c): a
  /// second all-to-all with the same counts operands (the weights beside
  /// the ids) reuses them, so the input dist synchronises once.
  struct EmbHostCounts *hostCounts;
  size_t numHostCounts;
  bool failed;
} EmbLowering;

/// A lowered tensor: `buffer` with `rank` sizes `dims`.
EmbMapped embTensorMapping(MlirValue buffer, int rank, const EmbDim *dims);

/// The lowered form of `v`, or NULL if it was not lowered.
EmbMapped *embLookupValue(EmbLowering *l, MlirValue v);

/// Records that `v` became `m` (a copy; an earlier mapping of `v` is
/// overwritten in place).
void embMapValue(EmbLowering *l, MlirValue v, const EmbMapped *m);

/// Frees the value map.
void embFreeValueMap(EmbLowering *l);

/// The slot of pointer `p` in an open-addressing table of `cap` slots (a
/// power of two) to begin probing at.
size_t embHashPointer(const void *p, size_t cap);

/// The lowered form of tensor operand `i` of `op`; NULL (after an error)
/// if it was not lowered.
EmbMapped *embTensorOperand(EmbLowering *l, MlirOperation op, intptr_t i);

/// Emits "'op' op cannot be lowered to the emb runtime (target t): `what`"
/// at the op and fails the pass.
void embLowerFail(EmbLowering *l, MlirOperation op, const char *what);

/// Whether `op` has a tensor operand or result.
bool embHasTensor(MlirOperation op);

/// Whether the module has a symbol named `name`.
bool embHasSymbol(EmbLowering *l, const char *name);

/// Whether `op` is an op of `dialect` (its name is `dialect.<op>`).
bool embIsOpInDialect(MlirOperation op, const char *dialect);

/// The op of `body` that `op` is or is nested in (null if none).
MlirOperation embTopLevelOp(MlirOperation op, MlirBlock body);

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

static inline EmbDim embConstDim(int64_t c) { return (EmbDim){{NULL}, c}; }

/// The i64 value of `d`, materialising a constant on first use.
MlirValue embDimValue(EmbLowering *l, EmbDim *d);

/// a * b, folded where both are constant (INT64_MAX where that overflows:
/// emb-lower-to-runtime refuses the types whose sizes do).
EmbDim embMulDim(EmbLowering *l, EmbDim a, EmbDim b);

/// a + b, folded where both are constant; a constant that must be
/// materialised is cached in `*a` or `*b`.
EmbDim embAddDim(EmbLowering *l, EmbDim *a, EmbDim *b);

/// The segments an offsets operand of `entries` entries delimits: one fewer,
/// and 0 for none (the call refuses an empty offsets operand; the sizes it
/// gives its results must not be negative meanwhile).
EmbDim embSegmentsOf(EmbLowering *l, EmbDim entries);

/// The product of dims [from, to) of `m`.
EmbDim embDimProduct(EmbLowering *l, const EmbMapped *m, int from, int to);

/// Sizes of a result: static dims from its type, dynamic ones from
/// `fallback` (an operand's lowered dims, matched position by position).
void embResultDims(EmbLowering *l, MlirValue r, EmbDim *dims,
                   const EmbDim *fallback);

/// Reads the dims of a result whose dynamic sizes are operands of `op`
/// (tensor.empty, tensor.expand_shape's output_shape): the i-th dynamic dim
/// takes operand firstDynamic + i.
bool embDynamicResultDims(EmbLowering *l, MlirOperation op,
                          intptr_t firstDynamic, EmbDim *dims);

//===----------------------------------------------------------------------===//
// Buffers and calls
//===----------------------------------------------------------------------===//

/// Makes the buffer of result `r` (a tensor of `type` with sizes `dims`):
/// the caller's out buffer if `r` is returned, else a new allocation (a
/// memref.alloc in a mixed function, recorded in the mapping's `memref`).
EmbMapped *embDefineResult(EmbLowering *l, MlirValue r, const EmbDim *dims);

/// The result extents a call carries for the runtime to check (see
/// include/emb/compiled.h): the caller's out buffer's own sizes when the
/// result is written straight into it, else the sizes its buffer was
/// allocated with (always so for a result with a `?` dim, which the call
/// allocates and hands over: codegen.md, "Results of run-time shape").
const EmbDim *embResultExtents(EmbLowering *l, const EmbMapped *out);

/// The identity-layout memref type of a ranked tensor type.
MlirType embMemrefTypeOf(MlirType tensor);

/// A lowered tensor whose buffer is `memref` (an identity-layout memref):
/// its first element's address and its sizes, read from the descriptor
/// where dynamic.
EmbMapped embBufferMapping(EmbLowering *l, MlirValue memref);

/// A private constant global of the module, `!llvm.array<bytes x i8>` named
/// `<prefix><n>` and initialised with `value` (bytes or a string), aligned to
/// `alignment` bytes (0: the default); returns its address at the builder's
/// point.
MlirValue embBuildConstantGlobal(EmbLowering *l, const char *prefix,
                                 MlirAttribute value, int64_t bytes,
                                 int64_t alignment);

/// A runtime allocation of `bytes`, freed before the function returns.
MlirValue embAllocBytes(EmbLowering *l, EmbDim bytes);

/// Declares runtime function `fn` in the module, once.
void embDeclareRuntime(EmbLowering *l, EmbRuntimeFn fn);

/// Calls runtime function `fn` (declaring it) with at most one result
/// (`resultType` may be null).
MlirValue embCallRuntime(EmbLowering *l, EmbRuntimeFn fn, intptr_t nArgs,
                         const MlirValue *args, MlirType resultType);

/// The three arrays of one runtime call, built on the stack.
typedef struct EmbCallArrays {
  MlirValue attrs, buffers, dims;
} EmbCallArrays;

/// Builds the arrays of a call (a null buffer becomes a null pointer).
EmbCallArrays embBuildCallArrays(EmbLowering *l, const int64_t *attrs,
                                 int64_t nAttrs, const MlirValue *buffers,
                                 int64_t nBuffers, EmbDim *dims, int64_t nDims);

/// embBuildCallArrays on three arrays whose sizes the compiler knows,
/// written with designated initializers on the op's EMB_ABI_* names.
#define EMB_BUILD_CALL_ARRAYS(l, attrs, buffers, dims)                         \
  embBuildCallArrays((l), (attrs), EMB_COUNT(attrs), (buffers),                \
                     EMB_COUNT(buffers), (dims), EMB_COUNT(dims))
#define EMB_COUNT(array) ((int64_t)(sizeof(array) / sizeof((array)[0])))

/// Calls op entry `fn`, an embrtCompiled<Op>(ctx, attrs, buffers, dims),
/// on the arrays `a`.
void embCallRuntimeOp(EmbLowering *l, EmbRuntimeFn fn, EmbCallArrays a);

/// Asks the runtime for the workspace of the call in `a`, allocates it and
/// stores it at buffers[bufIndex] and its size at dims[dimIndex].
void embAddWorkspace(EmbLowering *l, EmbRuntimeFn sizeFn, EmbCallArrays a,
                     int64_t bufIndex, int64_t dimIndex);

//===----------------------------------------------------------------------===//
// Which lowering owns each op (classify.c)
//===----------------------------------------------------------------------===//

/// Plans what the lowerings of `func`'s first block read (what each
/// emb.ikbo_lce reads through, the matmul chains) and decides which lowering
/// owns each of its ops, replacing the plans of an earlier call. Returns
/// whether `func` takes the mixed path: on the cpu target, when an op of it
/// has no lowering (or it has more than one block); its emb ops and chains
/// are then runtime calls and every other op is left to MLIR.
bool embClassifyFunction(EmbLowering *l, MlirOperation func);

/// The owner of `op`, an op of the classified block (EMB_OWNER_NONE for
/// another).
EmbOwner embOwnerOf(EmbLowering *l, MlirOperation op);

/// Frees the classification and the plans it made (the read-through plans,
/// the matmul chains).
void embFreeClassification(EmbLowering *l);

/// Whether `op` is a splat tensor constant.
bool embIsSplatConstant(MlirOperation op);

/// Whether a GPU kernel copies `op` into its function (a tensor.empty, a
/// splat constant, a scalar arith or index op) rather than reading its result
/// from a buffer.
bool embIsCopiedIntoKernel(MlirOperation op);

//===----------------------------------------------------------------------===//
// Ops, one file per family
//===----------------------------------------------------------------------===//

/// emb ops (emb_ops.c): false if `op` is not one.
bool embLowerEmbOp(EmbLowering *l, MlirOperation op);

/// The ops of a sharded program (sharding.c): emb.bucketize,
/// emb.lengths_to_offsets and the collectives; false if `op` is not one.
bool embLowerShardingOp(EmbLowering *l, MlirOperation op);

/// tensor ops (tensor_ops.c): false if `op` is not one it lowers.
bool embLowerTensorOp(EmbLowering *l, MlirOperation op);

/// Tensor constants, tensor.splat and elementwise arith/math on tensors
/// (constants.c): false if `op` is not one.
bool embLowerConstantOp(EmbLowering *l, MlirOperation op);

/// Whether embLowerTensorOp / embLowerConstantOp take `op`, without
/// lowering it (what classify.c gives them).
bool embIsRuntimeTensorOp(MlirOperation op);
bool embIsRuntimeConstantOp(MlirOperation op);

//===----------------------------------------------------------------------===//
// dense_resource constants (constants.c)
//===----------------------------------------------------------------------===//

/// The bytes of a dense_resource tensor attribute of `type`, as the runtime
/// lays them out (one byte an i1), in a malloc'ed buffer of `*bytes`; NULL
/// if its element type has no runtime dtype or memory runs out.
void *embReadResource(MlirAttribute value, MlirType type, int64_t *bytes);

//===----------------------------------------------------------------------===//
// Functions that keep ops MLIR compiles (mixed_functions.c, asserts.c)
//===----------------------------------------------------------------------===//

/// Lowers `func` in place: a signature of buffers with the entry ABI, emb
/// ops as runtime calls on buffers, everything else left to MLIR's
/// bufferization and lowering (emb-lower-to-llvm).
void embLowerMixedFunction(EmbLowering *l, MlirOperation func);

/// Rewrites every cf.assert of `func` (whose argument 0 is the runtime
/// context) so that a failure records its message in the context and the
/// rest of its block does not run.
void embGuardAsserts(EmbLowering *l, MlirOperation func);

/// A zero of `t` (a scalar or a statically shaped tensor) at the builder's
/// point, for a failing path to yield; null if `t` has none (asserts.c).
MlirValue embBuildZeroOf(EmbLowering *l, MlirType t);

/// Checks every index of `func`'s own tensor.extract and tensor.insert that
/// is not known to be in range (element_bounds.c): an index outside its dim
/// becomes the context's error and the access does not happen; a constant
/// one outside a static dim is an error at the op.
/// Checks, where the lowering cannot prove them equal, the extents that a
/// linalg.generic's maps give one loop and a tensor.concat's inputs share,
/// before the op (extents.c).
void embGuardExtents(EmbLowering *l, MlirOperation func);

void embGuardElementBounds(EmbLowering *l, MlirOperation func);

/// Guards every integer division and remainder of `func` whose divisor is
/// not a constant known to be safe (integer_division.c): a zero divisor
/// becomes the context's error, the smallest signed value divided by -1
/// wraps to itself, and nothing traps. A division on tensors becomes a
/// linalg.generic of scalar divisions first.
void embGuardIntegerDivisions(EmbLowering *l, MlirOperation func);

//===----------------------------------------------------------------------===//
// What emb.ikbo_lce reads through (ikbo_read_through.c)
//===----------------------------------------------------------------------===//

/// Plans every emb.ikbo_lce of `block`, then marks the producers nothing else
/// needs.
void embPlanReadThrough(EmbLowering *l, MlirBlock block);

/// The plan of an emb.ikbo_lce, or NULL.
EmbIkboPlan *embFindIkboPlan(EmbLowering *l, MlirOperation op);

/// Whether `op` is a producer the plans made unnecessary.
bool embIsSkipped(EmbLowering *l, MlirOperation op);

/// Makes the plans read `to` where they read `from`: a mixed function
/// replaces an emb op's result (which a plan may read: an unfused
/// emb.broadcast among the candidate pieces) once the op is lowered.
void embReplaceInPlans(EmbLowering *l, MlirValue from, MlirValue to);

//===----------------------------------------------------------------------===//
// linalg matmul chains as embrtGemm calls (gemm.c)
//===----------------------------------------------------------------------===//

/// Matches every chain (a matmul or batch_matmul into a zero fill, with its
/// operands' transposes and broadcasts and a bias and activation after it)
/// of `block`, for the calls below.
void embPlanGemms(EmbLowering *l, MlirBlock block);

/// Whether `op` is the last op of a planned chain (the one lowered to the
/// call), or one the chain absorbs (not lowered).
bool embIsGemmLast(EmbLowering *l, MlirOperation op);
bool embIsGemmAbsorbed(EmbLowering *l, MlirOperation op);

/// The tensors the call of chain `last` reads (at most 3).
void embGemmSources(EmbLowering *l, MlirOperation last, MlirValue *values,
                    int *count);

/// Lowers the chain whose last op is `op` to embrtCompiledGemm on the
/// lowered forms of its sources; false if `op` ends no chain.
bool embLowerGemm(EmbLowering *l, MlirOperation op);

/// Erases the ops chain `last` absorbed, once nothing uses them (mixed
/// functions, after `last` is replaced).
void embEraseGemmParts(EmbLowering *l, MlirOperation last);

//===----------------------------------------------------------------------===//
// GPU kernels for the ops without a runtime call (gpu/)
//===----------------------------------------------------------------------===//

/// On the cuda target, groups the ops of `block` that the classification
/// gave to GPU kernels into runs, each of which becomes kernels. Nothing on
/// the cpu target.
void embPlanGpuKernels(EmbLowering *l, MlirBlock block);

/// For an op of a group: at its last op, compiles the group's kernels with
/// MLIR and emits their launches (embrtCompiledLaunchKernel) on the lowered
/// buffers, an error at its first op if it cannot; false if `op` is in no
/// group.
bool embLowerGpuKernel(EmbLowering *l, MlirOperation op);

/// Frees the groups of the function.
void embFreeGpuKernelPlans(EmbLowering *l);

#ifdef __cplusplus
}
#endif

#endif // EMB_CODEGEN_LOWERING_H

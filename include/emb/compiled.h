//===- emb/compiled.h - What compiled models call in the runtime -*- C -*-===//
//
// emb-lower-to-runtime turns every op of a model into calls of the functions
// below; a compiled model (JIT or object file) links against them. They are a
// thin ABI over the public runtime API (emb/runtime.h): each decodes three
// flat arrays into the matching args struct and calls the entry point. The
// ABI is versioned, not frozen: EMB_ABI_VERSION below names it, every module
// the lowering writes references the runtime's embrtCompiledAbi<N> (so an
// object of another version fails to link, naming the symbol), and a shared
// object of emb-compile --shared records N for its loader to compare.
//
//   void embrtCompiled<Op>(embrtContext *ctx, const int64_t *attrs,
//                          void *const *buffers, const int64_t *dims);
//
//   attrs    what the compiler knows statically: enums, dtypes, the launch
//            configuration it chose, counts, feature -> table maps;
//   buffers  every tensor the op reads or writes (device pointers on CUDA);
//   dims     sizes, known at compile time or read at run time.
//
// Besides the sizes the call computes with, `dims` carries the extents of
// the operands and the result that must agree with them (the `*_DIM_*`
// entries after "checked extents" below). Where a dim is `?` the verifier
// cannot compare them; the decoder does, before the call reaches either
// backend, and a disagreement records EMBRT_OUT_OF_RANGE naming the IR op,
// both operands and both lengths ("emb.embedding_bag: per_sample_weights has
// 7 entries but indices has 9"): nothing runs, nothing is read out of bounds.
//
// The layouts are the EMB_ABI_* indices below, shared by the compiler (the
// lowering's call builders: codegen/emb_ops.c for the emb ops,
// codegen/tensor_ops.c for concat and strided copies, codegen/constants.c for
// fills and elementwise ops, codegen/asserts.c for cf.assert;
// codegen/runtime_symbols.def lists the functions and their signatures for the
// lowering and the JIT) and the runtime (the decoders in each op family's
// runtime/<family>.c; memory, constants and assertions in runtime/compiled.c),
// so the two cannot disagree. Errors are recorded in the context (sticky
// status and message): compiled code does not branch on them; the caller
// checks embrtContextGetStatus after the model returns. A failed allocation
// yields NULL, which every later call rejects as an invalid argument, so a
// failure never turns into a wild memory access. A compiled call on a CUDA
// context neither waits for the device nor allocates with cudaMalloc (its
// intermediates come from the stream-ordered pool), so after one warm-up
// call it can be captured into a CUDA graph (embrtContextBeginCapture).
//
//===----------------------------------------------------------------------===//

#ifndef EMB_COMPILED_H
#define EMB_COMPILED_H

#include "emb/export.h"

#include "emb/runtime.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

EMB_EXPORTS_BEGIN

//===----------------------------------------------------------------------===//
// The ABI's version
//===----------------------------------------------------------------------===//

/// The version of this ABI. Bump it on any change that makes code compiled
/// against the old one misbehave with the new runtime or the other way round:
/// an embrtCompiled* function's signature or meaning (added, removed,
/// reordered or retyped arguments), an EMB_ABI_* index or enum value, the
/// layout of embrtCompiledResult, or of EmbModelSpec, EmbArgSpec or
/// EmbSharedModel (emb/model.h). Adding a new function is not such a change.
/// A bump renames embrtCompiledAbi<N> below (runtime/compiled.c does not
/// compile until it is renamed) and python/emb_torch/compiled.py's
/// ABI_VERSION.
#define EMB_ABI_VERSION 4

#define EMB_ABI_CONCAT_(a, b) a##b
#define EMB_ABI_CONCAT(a, b) EMB_ABI_CONCAT_(a, b)
/// embrtCompiledAbi<EMB_ABI_VERSION>, the name that carries the version.
#define EMB_ABI_SYMBOL EMB_ABI_CONCAT(embrtCompiledAbi, EMB_ABI_VERSION)

/// Returns EMB_ABI_VERSION. Compiled code never calls it: every module the
/// lowering writes takes its address (codegen/runtime_symbols.def), so a
/// program or shared object with an object compiled for another ABI version
/// fails to link, or to load, on the missing `embrtCompiledAbi<N>`.
int32_t embrtCompiledAbi4(void);

/// The ABI version of this runtime (EMB_ABI_VERSION when it was built), for
/// loaders to compare with what a shared object records (`<P>abi_version`,
/// emb/model.h).
int32_t embrtCompiledAbiVersion(void);

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Allocates `bytes` on the context's device, ordered on its stream (no
/// synchronisation). Returns NULL and records the error on failure (a
/// negative size: EMBRT_INVALID_ARGUMENT). Zero bytes gives a unique
/// non-NULL pointer.
void *embrtCompiledAlloc(embrtContext *ctx, int64_t bytes);

/// Frees memory from embrtCompiledAlloc, ordered on the stream.
void embrtCompiledFree(embrtContext *ctx, void *ptr);

//===----------------------------------------------------------------------===//
// Results whose shape is known only at run time
//===----------------------------------------------------------------------===//

/// A compiled function's result with a `?` dim (an emb.tbe with pooling
/// "none" over a dynamic id list, say): the caller cannot size its buffer, so
/// the function's out parameter for it is a pointer to one of these instead
/// of a memref descriptor, and the call fills it: `data` a dense row-major
/// buffer of `rank` dims `dims` on the context's device, from
/// embrtCompiledAlloc, which the caller owns from then on and frees with
/// embrtCompiledFree (ordered on the context's stream). The call allocates,
/// so it cannot be captured into a CUDA graph.
typedef struct embrtCompiledResult {
  void *data;
  int64_t rank;
  int64_t dims[EMBRT_MAX_RANK];
} embrtCompiledResult;

/// Copies `bytes` (EMBRT_COPY_* kind) on the context's stream; a negative
/// size records EMBRT_INVALID_ARGUMENT and copies nothing.
void embrtCompiledCopy(embrtContext *ctx, int64_t kind, void *dst,
                       const void *src, int64_t bytes);

/// A dense constant of the model (`bytes` at `host`, in the compiled code's
/// read-only data; `hash` its 64-bit FNV-1a, computed by the compiler) where
/// the context's device reads it. The CPU reads `host` in place; a CUDA
/// context uploads each constant once, on the first call that needs it
/// (ordered on the stream), and keeps the copy, keyed by (hash, bytes),
/// until the context is destroyed; during a graph capture that first call
/// fails instead (emb/runtime.h: run the call once before capturing it).
/// Read-only: compiled code never writes into it. Returns NULL and records the
/// error on failure.
void *embrtCompiledConstant(embrtContext *ctx, const void *host, int64_t bytes,
                            int64_t hash);

//===----------------------------------------------------------------------===//
// GPU kernels generated by the compiler
//===----------------------------------------------------------------------===//

/// The launch array of embrtCompiledLaunchKernel: the grid and the block in
/// CUDA's x, y, z order, and the bytes of dynamic shared memory.
enum {
  EMB_ABI_LAUNCH_GRID_X = 0,
  EMB_ABI_LAUNCH_GRID_Y,
  EMB_ABI_LAUNCH_GRID_Z,
  EMB_ABI_LAUNCH_BLOCK_X,
  EMB_ABI_LAUNCH_BLOCK_Y,
  EMB_ABI_LAUNCH_BLOCK_Z,
  EMB_ABI_LAUNCH_SHARED_BYTES,
  EMB_ABI_LAUNCH_COUNT
};

/// The most parameters a generated kernel takes.
#define EMB_MAX_KERNEL_ARGS 64

/// Launches kernel `kernel` (a NUL-terminated name) of the PTX module `ptx`
/// (`ptxBytes` bytes of NUL-terminated PTX text in the compiled code's
/// read-only data, `hash` its 64-bit FNV-1a, computed by the compiler: what
/// emb-lower-to-runtime{target=cuda} generates for the ops the runtime has no
/// call for, docs/codegen.md) on the context's stream, with `launch` as
/// EMB_ABI_LAUNCH_* and `numArgs` (at most EMB_MAX_KERNEL_ARGS) parameters
/// `args`, each a device buffer (the bare-pointer memref convention: a
/// buffer's first element; a null one is refused). A CUDA context loads each
/// module once, on the first launch that needs it (cudaLibraryLoadData),
/// keeps it, keyed by (hash, bytes), until the context is
/// destroyed, and never waits for the device; during a graph capture that first
/// load fails instead (run the call once before capturing it). A CPU context
/// cannot run it: EMBRT_UNSUPPORTED (the model was compiled for the cuda
/// target). Errors are recorded on the context.
void embrtCompiledLaunchKernel(embrtContext *ctx, const char *ptx,
                               int64_t ptxBytes, int64_t hash,
                               const char *kernel, const int64_t *launch,
                               void *const *args, int64_t numArgs);

//===----------------------------------------------------------------------===//
// The model's own checks
//===----------------------------------------------------------------------===//

/// A `cf.assert` of the model (torch-mlir's bounds and shape checks): when
/// `ok` is 0, records EMBRT_OUT_OF_RANGE with `message` (a NUL-terminated
/// string in the compiled code's read-only data, "assertion failed in @f
/// (file:line:col): ..."), unless the context already holds an error, whose
/// message is kept. Compiled code calls it on the failing path only and then
/// skips what the assertion guards (docs/codegen.md), so it never aborts.
/// An integer division of the model by zero calls it too ("arith.divsi in @f
/// (file:line:col): division by zero"), and then divides by 1.
void embrtCompiledAssert(embrtContext *ctx, int64_t ok, const char *message);

/// A static size a reshape or cast of a dynamically shaped operand claims
/// (tensor.cast, tensor.expand_shape, tensor.collapse_shape): returns 1 when
/// `actual` equals `expected`; otherwise records EMBRT_OUT_OF_RANGE as
/// "<what> is <actual>, but the result's shape needs <expected>" (`what`
/// names the op, the function, the location and the size, e.g.
/// "tensor.cast in @f (model.mlir:3:8): dim 0 of the operand"), unless the
/// context already holds an error, and returns 0. Compiled code then gives
/// the result no elements, so no later call reads past the operand.
int64_t embrtCompiledCheckExtent(embrtContext *ctx, int64_t actual,
                                 int64_t expected, const char *what);

/// An index of the model's own tensor.extract or tensor.insert: returns 1
/// when 0 <= `index` < `size`; otherwise records EMBRT_OUT_OF_RANGE as
/// "<what>: index <index> is outside 0..<size - 1>" (`what` names the op,
/// the function, the location and the dim, e.g. "tensor.extract in @f
/// (model.mlir:3:8): dim 0"), unless the context already holds an error,
/// and returns 0. Compiled code calls it on the failing path only, and then
/// skips the access (a read yields zero).
int64_t embrtCompiledCheckIndex(embrtContext *ctx, int64_t index, int64_t size,
                                const char *what);

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// emb.quantize_table: embrtQuantizeTable of a dense [rows, dim] table.
enum {
  EMB_ABI_QUANTIZE_PRECISION = 0, ///< embrtTablePrecision
  EMB_ABI_QUANTIZE_DENSE_DTYPE,
};
enum {
  EMB_ABI_QUANTIZE_BUF_INPUT = 0,
  EMB_ABI_QUANTIZE_BUF_OUTPUT,
};
enum {
  EMB_ABI_QUANTIZE_DIM_ROWS = 0,
  EMB_ABI_QUANTIZE_DIM_COLS,
  EMB_ABI_QUANTIZE_DIM_OUTPUT_ROWS, ///< checked against rows
};
void embrtCompiledQuantizeTable(embrtContext *ctx, const int64_t *attrs,
                                void *const *buffers, const int64_t *dims);

/// emb.tbe and emb.embedding_bag (T = F = 1).
enum {
  EMB_ABI_TBE_POOLING = 0, ///< embrtPooling
  EMB_ABI_TBE_BOUNDS_CHECK,
  EMB_ABI_TBE_HAS_PADDING,
  EMB_ABI_TBE_PADDING_IDX,
  EMB_ABI_TBE_TABLE_DTYPE,
  EMB_ABI_TBE_INDEX_DTYPE,
  EMB_ABI_TBE_PSW_DTYPE, ///< -1 without per-sample weights
  EMB_ABI_TBE_OUTPUT_DTYPE,
  EMB_ABI_TBE_CONFIG_ID,
  EMB_ABI_TBE_NUM_TABLES,
  EMB_ABI_TBE_NUM_FEATURES,
  EMB_ABI_TBE_IS_BAG, ///< 1: emb.embedding_bag (messages name it)
  /// 1: the last 2F entries of offsets are the feature ends of an emb.tbe
  /// with feature_ends (embrtTbeArgs::featureEnds)
  EMB_ABI_TBE_FEATURE_ENDS,
  /// 1: T entries follow the feature tables, table t's embrtTablePrecision
  /// (embrtTbeArgs::tablePrecisions); 0: every table is dense
  EMB_ABI_TBE_PRECISIONS,
  /// 1: the offsets are a mask (embrtTbeArgs::maskedOffsets)
  EMB_ABI_TBE_MASKED_OFFSETS,
  EMB_ABI_TBE_FEATURE_TABLES, ///< F entries follow
};
enum {
  EMB_ABI_TBE_BUF_INDICES = 0,
  EMB_ABI_TBE_BUF_OFFSETS,
  EMB_ABI_TBE_BUF_PSW, ///< NULL without per-sample weights
  EMB_ABI_TBE_BUF_OUTPUT,
  EMB_ABI_TBE_BUF_WORKSPACE,
  EMB_ABI_TBE_BUF_TABLES, ///< T entries follow
};
enum {
  EMB_ABI_TBE_DIM_INDICES = 0, ///< N
  EMB_ABI_TBE_DIM_BATCH,       ///< B
  EMB_ABI_TBE_DIM_WORKSPACE,   ///< bytes
  // Checked extents:
  EMB_ABI_TBE_DIM_OFFSETS,     ///< entries of offsets: F * B + 1 (+ 2F)
  EMB_ABI_TBE_DIM_PSW,         ///< entries of per_sample_weights: N
  EMB_ABI_TBE_DIM_OUTPUT_ROWS, ///< B pooled, N for pooling none
  EMB_ABI_TBE_DIM_OUTPUT_COLS, ///< the sum of D pooled, D for none
  EMB_ABI_TBE_DIM_TABLES,      ///< T rows, then T widths
};
void embrtCompiledTbe(embrtContext *ctx, const int64_t *attrs,
                      void *const *buffers, const int64_t *dims);
int64_t embrtCompiledTbeWorkspace(embrtContext *ctx, const int64_t *attrs,
                                  void *const *buffers, const int64_t *dims);

/// emb.tbe_backward and emb.embedding_bag_backward (T = F = 1): the lookup's
/// layout first (as for emb.tbe, so the decoders share it), then the
/// backward's own fields.
enum {
  EMB_ABI_TBE_BWD_POOLING = 0, ///< embrtPooling
  EMB_ABI_TBE_BWD_BOUNDS_CHECK,
  EMB_ABI_TBE_BWD_HAS_PADDING,
  EMB_ABI_TBE_BWD_PADDING_IDX,
  EMB_ABI_TBE_BWD_TABLE_DTYPE,
  EMB_ABI_TBE_BWD_INDEX_DTYPE,
  EMB_ABI_TBE_BWD_PSW_DTYPE, ///< -1 without per-sample weights
  EMB_ABI_TBE_BWD_GRAD_DTYPE,
  EMB_ABI_TBE_BWD_OPTIMIZER, ///< embrtOptimizer
  EMB_ABI_TBE_BWD_SEED,
  EMB_ABI_TBE_BWD_CONFIG_ID,
  EMB_ABI_TBE_BWD_MOMENTUM1_PRECISION, ///< embrtStatePrecision
  EMB_ABI_TBE_BWD_MOMENTUM2_PRECISION, ///< embrtStatePrecision
  EMB_ABI_TBE_BWD_NUM_TABLES,
  EMB_ABI_TBE_BWD_NUM_FEATURES,
  EMB_ABI_TBE_BWD_IS_BAG,         ///< 1: emb.embedding_bag_backward
  EMB_ABI_TBE_BWD_FEATURE_TABLES, ///< F entries follow
};
enum {
  EMB_ABI_TBE_BWD_BUF_INDICES = 0,
  EMB_ABI_TBE_BWD_BUF_OFFSETS,
  EMB_ABI_TBE_BWD_BUF_PSW, ///< NULL without per-sample weights
  EMB_ABI_TBE_BWD_BUF_GRAD,
  EMB_ABI_TBE_BWD_BUF_HYPER,
  EMB_ABI_TBE_BWD_BUF_STEP, ///< NULL without a step operand
  EMB_ABI_TBE_BWD_BUF_WORKSPACE,
  /// T table pointers, then T momentum1 pointers, T momentum2 pointers, T
  /// momentum1 scale pointers and T momentum2 scale pointers (NULL where the
  /// optimizer has no such state, and the scales where it is not fp8).
  EMB_ABI_TBE_BWD_BUF_TABLES,
};
enum {
  EMB_ABI_TBE_BWD_DIM_INDICES = 0, ///< N
  EMB_ABI_TBE_BWD_DIM_BATCH,       ///< B
  EMB_ABI_TBE_BWD_DIM_WORKSPACE,   ///< bytes
  // Checked extents:
  EMB_ABI_TBE_BWD_DIM_OFFSETS,   ///< entries of offsets: F * B + 1
  EMB_ABI_TBE_BWD_DIM_PSW,       ///< entries of per_sample_weights: N
  EMB_ABI_TBE_BWD_DIM_GRAD_ROWS, ///< B pooled, N for pooling none
  EMB_ABI_TBE_BWD_DIM_GRAD_COLS, ///< the sum of D pooled, D for none
  /// T rows, T widths; then the checked extents of the states: T momentum1
  /// rows, T momentum1 columns (1 for a rank-1 state), T momentum2 rows, T
  /// momentum2 columns (0 where the optimizer keeps no such state); then T
  /// momentum1 scale entries and T momentum2 scale entries (0 where the
  /// state is not fp8).
  EMB_ABI_TBE_BWD_DIM_TABLES,
};
void embrtCompiledTbeBackward(embrtContext *ctx, const int64_t *attrs,
                              void *const *buffers, const int64_t *dims);
int64_t embrtCompiledTbeBackwardWorkspace(embrtContext *ctx,
                                          const int64_t *attrs,
                                          void *const *buffers,
                                          const int64_t *dims);

/// emb.broadcast and emb.broadcast_add.
enum { EMB_ABI_BCAST_DTYPE = 0, EMB_ABI_BCAST_INDEX_DTYPE };
enum {
  EMB_ABI_BCAST_BUF_RO = 0,
  EMB_ABI_BCAST_BUF_INDEX,
  EMB_ABI_BCAST_BUF_NRO, ///< NULL for broadcast
  EMB_ABI_BCAST_BUF_OUTPUT,
};
enum {
  EMB_ABI_BCAST_DIM_USERS = 0,
  EMB_ABI_BCAST_DIM_ROW, ///< elements of a row of ro
  EMB_ABI_BCAST_DIM_BATCH,
  // Checked extents:
  EMB_ABI_BCAST_DIM_OUTPUT_ROWS, ///< B
  EMB_ABI_BCAST_DIM_OUTPUT_ROW,  ///< elements of a result row: ROW
  EMB_ABI_BCAST_DIM_NRO_ROWS,    ///< B (broadcast_add)
  EMB_ABI_BCAST_DIM_NRO_ROW,     ///< ROW (broadcast_add)
};
void embrtCompiledBroadcast(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims);
void embrtCompiledBroadcastAdd(embrtContext *ctx, const int64_t *attrs,
                               void *const *buffers, const int64_t *dims);

/// emb.jagged_to_padded.
enum {
  EMB_ABI_JAGGED_DTYPE = 0,
  EMB_ABI_JAGGED_INDEX_DTYPE,
  EMB_ABI_JAGGED_MAX_LENGTH,
  EMB_ABI_JAGGED_PADDING_BITS, ///< the f64 padding value's bits
};
enum {
  EMB_ABI_JAGGED_BUF_VALUES = 0,
  EMB_ABI_JAGGED_BUF_OFFSETS,
  EMB_ABI_JAGGED_BUF_PADDED,
  EMB_ABI_JAGGED_BUF_LENGTHS,
};
enum {
  EMB_ABI_JAGGED_DIM_VALUES = 0, ///< N
  EMB_ABI_JAGGED_DIM_ROW,        ///< D
  EMB_ABI_JAGGED_DIM_USERS,      ///< U: padded's dim 0
  // Checked extents:
  EMB_ABI_JAGGED_DIM_OFFSETS,       ///< U + 1
  EMB_ABI_JAGGED_DIM_PADDED_LENGTH, ///< max_length
  EMB_ABI_JAGGED_DIM_PADDED_ROW,    ///< D
  EMB_ABI_JAGGED_DIM_LENGTHS,       ///< U
};
void embrtCompiledJaggedToPadded(embrtContext *ctx, const int64_t *attrs,
                                 void *const *buffers, const int64_t *dims);

/// emb.lce.
enum { EMB_ABI_LCE_DTYPE = 0, EMB_ABI_LCE_CONFIG_ID };
enum {
  EMB_ABI_LCE_BUF_W = 0,
  EMB_ABI_LCE_BUF_X,
  EMB_ABI_LCE_BUF_OUTPUT,
  EMB_ABI_LCE_BUF_WORKSPACE
};
enum {
  EMB_ABI_LCE_DIM_B = 0,
  EMB_ABI_LCE_DIM_M,
  EMB_ABI_LCE_DIM_K,
  EMB_ABI_LCE_DIM_N,
  EMB_ABI_LCE_DIM_WORKSPACE,
  // Checked extents:
  EMB_ABI_LCE_DIM_X_K, ///< x's K
  EMB_ABI_LCE_DIM_OUTPUT_B,
  EMB_ABI_LCE_DIM_OUTPUT_M,
  EMB_ABI_LCE_DIM_OUTPUT_N,
};
void embrtCompiledLce(embrtContext *ctx, const int64_t *attrs,
                      void *const *buffers, const int64_t *dims);
int64_t embrtCompiledLceWorkspace(embrtContext *ctx, const int64_t *attrs,
                                  void *const *buffers, const int64_t *dims);

/// emb.ikbo_lce. dims W_USER_STRIDE and W_CAND_STRIDE are the weights' row
/// strides in elements (0: packed), see embrtIkboLceArgs.
enum {
  EMB_ABI_IKBO_LCE_DTYPE = 0,
  EMB_ABI_IKBO_LCE_INDEX_DTYPE,
  EMB_ABI_IKBO_LCE_CONFIG_ID,
  /// 0: BUF_CAND holds the candidate embeddings; else BUF_CAND_PIECE_0 ..
  /// hold them in pieces along K (embrtIkboLceArgs::candPieces).
  EMB_ABI_IKBO_LCE_NUM_CAND_PIECES,
  EMB_ABI_IKBO_LCE_COMPUTE_DTYPE, ///< embrtIkboLceArgs::computeDtype
};
enum {
  EMB_ABI_IKBO_LCE_BUF_W_USER = 0,
  EMB_ABI_IKBO_LCE_BUF_W_CAND,
  EMB_ABI_IKBO_LCE_BUF_USER,
  EMB_ABI_IKBO_LCE_BUF_CAND,
  EMB_ABI_IKBO_LCE_BUF_INDEX,
  EMB_ABI_IKBO_LCE_BUF_OUTPUT,
  EMB_ABI_IKBO_LCE_BUF_WORKSPACE,
  EMB_ABI_IKBO_LCE_BUF_CAND_PIECE_0, ///< .. _0 + EMBRT_IKBO_LCE_MAX_PIECES - 1
  EMB_ABI_IKBO_LCE_NUM_BUFFERS =
      EMB_ABI_IKBO_LCE_BUF_CAND_PIECE_0 + EMBRT_IKBO_LCE_MAX_PIECES
};
enum {
  EMB_ABI_IKBO_LCE_DIM_B = 0,
  EMB_ABI_IKBO_LCE_DIM_U,
  EMB_ABI_IKBO_LCE_DIM_M,
  EMB_ABI_IKBO_LCE_DIM_K_USER,
  EMB_ABI_IKBO_LCE_DIM_K_CAND,
  EMB_ABI_IKBO_LCE_DIM_N,
  EMB_ABI_IKBO_LCE_DIM_WORKSPACE,
  EMB_ABI_IKBO_LCE_DIM_W_USER_STRIDE,
  EMB_ABI_IKBO_LCE_DIM_W_CAND_STRIDE,
  // Checked extents:
  EMB_ABI_IKBO_LCE_DIM_INDEX,       ///< entries of cand_to_user: B
  EMB_ABI_IKBO_LCE_DIM_W_USER_ROWS, ///< M
  /// The columns each weight has from its first read column on: K_USER
  /// (K_CAND) when packed, at least that for a column view.
  EMB_ABI_IKBO_LCE_DIM_W_USER_COLS,
  EMB_ABI_IKBO_LCE_DIM_W_CAND_COLS,
  EMB_ABI_IKBO_LCE_DIM_USER_N, ///< user's N
  EMB_ABI_IKBO_LCE_DIM_OUTPUT_B,
  EMB_ABI_IKBO_LCE_DIM_OUTPUT_M,
  EMB_ABI_IKBO_LCE_DIM_OUTPUT_N,
  /// The pieces' K (their sum is K_CAND), then, checked, their B and N.
  EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_K_0,
  EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_B_0 =
      EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_K_0 + EMBRT_IKBO_LCE_MAX_PIECES,
  EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_N_0 =
      EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_B_0 + EMBRT_IKBO_LCE_MAX_PIECES,
  EMB_ABI_IKBO_LCE_NUM_DIMS =
      EMB_ABI_IKBO_LCE_DIM_CAND_PIECE_N_0 + EMBRT_IKBO_LCE_MAX_PIECES
};
void embrtCompiledIkboLce(embrtContext *ctx, const int64_t *attrs,
                          void *const *buffers, const int64_t *dims);
int64_t embrtCompiledIkboLceWorkspace(embrtContext *ctx, const int64_t *attrs,
                                      void *const *buffers,
                                      const int64_t *dims);

/// emb.attention (no index) and emb.ikbo_attention.
enum {
  EMB_ABI_ATTN_DTYPE = 0,
  EMB_ABI_ATTN_INDEX_DTYPE,
  EMB_ABI_ATTN_HAS_INDEX,
  EMB_ABI_ATTN_HAS_LENGTHS,
  EMB_ABI_ATTN_CONFIG_ID,
  EMB_ABI_ATTN_SCALE_BITS,    ///< the f32 scale's bits; 0: 1/sqrt(head dim)
  EMB_ABI_ATTN_COMPUTE_DTYPE, ///< embrtAttentionArgs::computeDtype
  EMB_ABI_ATTN_ADDITIVE_MASK, ///< embrtAttentionArgs::additiveMask
};
enum {
  EMB_ABI_ATTN_BUF_Q = 0,
  EMB_ABI_ATTN_BUF_K,
  EMB_ABI_ATTN_BUF_V,
  EMB_ABI_ATTN_BUF_INDEX,
  EMB_ABI_ATTN_BUF_LENGTHS,
  EMB_ABI_ATTN_BUF_OUTPUT,
  EMB_ABI_ATTN_BUF_WORKSPACE
};
enum {
  EMB_ABI_ATTN_DIM_B = 0,
  EMB_ABI_ATTN_DIM_U,
  EMB_ABI_ATTN_DIM_LQ,
  EMB_ABI_ATTN_DIM_LK,
  EMB_ABI_ATTN_DIM_HEADS,
  EMB_ABI_ATTN_DIM_HEAD_DIM,
  EMB_ABI_ATTN_DIM_WORKSPACE,
  // Checked extents: k's heads and head dim, v's four dims, the entries of
  // cand_to_user (B) and user_lengths (U; 0 without), the result's four.
  EMB_ABI_ATTN_DIM_K_HEADS,
  EMB_ABI_ATTN_DIM_K_HEAD_DIM,
  EMB_ABI_ATTN_DIM_V_USERS,
  EMB_ABI_ATTN_DIM_V_LK,
  EMB_ABI_ATTN_DIM_V_HEADS,
  EMB_ABI_ATTN_DIM_V_HEAD_DIM,
  EMB_ABI_ATTN_DIM_INDEX,
  EMB_ABI_ATTN_DIM_LENGTHS,
  EMB_ABI_ATTN_DIM_OUTPUT_B,
  EMB_ABI_ATTN_DIM_OUTPUT_LQ,
  EMB_ABI_ATTN_DIM_OUTPUT_HEADS,
  EMB_ABI_ATTN_DIM_OUTPUT_HEAD_DIM,
};
void embrtCompiledAttention(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims);
int64_t embrtCompiledAttentionWorkspace(embrtContext *ctx, const int64_t *attrs,
                                        void *const *buffers,
                                        const int64_t *dims);

/// linalg.matmul and linalg.batch_matmul, with their operands' transposes,
/// a broadcast weight and a bias and activation after them
/// (codegen/gemm.c): embrtGemm. ALPHA_BITS and BETA_BITS hold the f32 bit
/// patterns of alpha and beta; BIAS is NULL without a bias. BATCHED: 0 for
/// linalg.matmul; for linalg.batch_matmul, the operand BATCH is a's dim
/// (1: a's, 2: b's with a broadcast, 3: the result's with both broadcast).
enum {
  EMB_ABI_GEMM_DTYPE = 0,
  EMB_ABI_GEMM_OUTPUT_DTYPE,
  EMB_ABI_GEMM_TRANS_A,
  EMB_ABI_GEMM_TRANS_B,
  EMB_ABI_GEMM_ACTIVATION, ///< embrtActivation
  EMB_ABI_GEMM_ALPHA_BITS,
  EMB_ABI_GEMM_BETA_BITS,
  EMB_ABI_GEMM_BATCHED
};
enum {
  EMB_ABI_GEMM_BUF_A = 0,
  EMB_ABI_GEMM_BUF_B,
  EMB_ABI_GEMM_BUF_BIAS,
  EMB_ABI_GEMM_BUF_OUTPUT
};
enum {
  EMB_ABI_GEMM_DIM_BATCH = 0,
  EMB_ABI_GEMM_DIM_M,
  EMB_ABI_GEMM_DIM_N,
  EMB_ABI_GEMM_DIM_K,
  EMB_ABI_GEMM_DIM_LDA,
  EMB_ABI_GEMM_DIM_STRIDE_A,
  EMB_ABI_GEMM_DIM_LDB,
  EMB_ABI_GEMM_DIM_STRIDE_B,
  EMB_ABI_GEMM_DIM_LDC,
  EMB_ABI_GEMM_DIM_STRIDE_C,
  // Checked extents: b's batch (BATCH where b or a is broadcast), b's K, the
  // bias's entries (N without a bias), the result's batch, M and N.
  EMB_ABI_GEMM_DIM_B_BATCH,
  EMB_ABI_GEMM_DIM_B_K,
  EMB_ABI_GEMM_DIM_BIAS_N,
  EMB_ABI_GEMM_DIM_OUTPUT_BATCH,
  EMB_ABI_GEMM_DIM_OUTPUT_M,
  EMB_ABI_GEMM_DIM_OUTPUT_N,
};
void embrtCompiledGemm(embrtContext *ctx, const int64_t *attrs,
                       void *const *buffers, const int64_t *dims);

/// emb.bucketize: attrs carry the slots (S ranks, S features, S row
/// begins, S row ends after SLOTS); the ids (and weights) buffers hold
/// IDS_CAPACITY entries, the compiler's N * embrtBucketizeDepth.
enum {
  EMB_ABI_BUCKETIZE_INDEX_DTYPE = 0,
  EMB_ABI_BUCKETIZE_PSW_DTYPE, ///< -1 without per-sample weights
  EMB_ABI_BUCKETIZE_WORLD_SIZE,
  EMB_ABI_BUCKETIZE_NUM_SLOTS,
  EMB_ABI_BUCKETIZE_SLOTS, ///< 4 * S entries follow
};
enum {
  EMB_ABI_BUCKETIZE_BUF_INDICES = 0,
  EMB_ABI_BUCKETIZE_BUF_OFFSETS,
  EMB_ABI_BUCKETIZE_BUF_PSW, ///< NULL without per-sample weights
  EMB_ABI_BUCKETIZE_BUF_IDS,
  EMB_ABI_BUCKETIZE_BUF_WEIGHTS, ///< NULL without per-sample weights
  EMB_ABI_BUCKETIZE_BUF_LENGTHS,
  EMB_ABI_BUCKETIZE_BUF_COUNTS,
  EMB_ABI_BUCKETIZE_BUF_WORKSPACE,
};
enum {
  EMB_ABI_BUCKETIZE_DIM_INDICES = 0, ///< N
  EMB_ABI_BUCKETIZE_DIM_BATCH,       ///< B
  EMB_ABI_BUCKETIZE_DIM_IDS_CAPACITY,
  EMB_ABI_BUCKETIZE_DIM_WORKSPACE, ///< bytes
  // Checked extents:
  EMB_ABI_BUCKETIZE_DIM_OFFSETS, ///< F * B + 1 (gives F)
  EMB_ABI_BUCKETIZE_DIM_PSW,     ///< N with per-sample weights, else 0
  EMB_ABI_BUCKETIZE_DIM_LENGTHS, ///< S * B
  EMB_ABI_BUCKETIZE_DIM_COUNTS,  ///< W
};
void embrtCompiledBucketize(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims);
int64_t embrtCompiledBucketizeWorkspace(embrtContext *ctx, const int64_t *attrs,
                                        void *const *buffers,
                                        const int64_t *dims);
/// How many ids an emb.bucketize wrote (the sum of its counts), for a
/// consumer that needs the exact length on the host (a data-parallel
/// lookup reads the ids directly, and emb.tbe's offsets end at its N): the
/// counts are copied to the host and the stream is waited for, the one
/// host synchronisation of a data-parallel input dist (docs/sharding.md).
/// Refused while capturing. Returns 0 after recording an error.
int64_t embrtCompiledBucketizeCount(embrtContext *ctx, const int64_t *attrs,
                                    void *const *buffers, const int64_t *dims);

/// emb.lengths_to_offsets.
enum { EMB_ABI_L2O_DTYPE = 0, EMB_ABI_L2O_BLOCKS };
enum {
  EMB_ABI_L2O_BUF_LENGTHS = 0,
  EMB_ABI_L2O_BUF_OFFSETS,
  EMB_ABI_L2O_BUF_BLOCK_SUMS,
  EMB_ABI_L2O_BUF_WORKSPACE,
};
enum {
  EMB_ABI_L2O_DIM_LENGTHS = 0, ///< L
  EMB_ABI_L2O_DIM_WORKSPACE,   ///< bytes
  // Checked extents:
  EMB_ABI_L2O_DIM_OFFSETS,    ///< L + 1
  EMB_ABI_L2O_DIM_BLOCK_SUMS, ///< K
};
void embrtCompiledLengthsToOffsets(embrtContext *ctx, const int64_t *attrs,
                                   void *const *buffers, const int64_t *dims);
int64_t embrtCompiledLengthsToOffsetsWorkspace(embrtContext *ctx,
                                               const int64_t *attrs,
                                               void *const *buffers,
                                               const int64_t *dims);

/// emb.all_to_all. With the plan's splits (HAS_COUNTS 0) the counts are
/// attrs: W send splits, then W receive splits. With counts operands
/// (HAS_COUNTS 1: device tensors of W i64) the call is two:
/// embrtCompiledAllToAllCounts copies both to HOST_COUNTS (2W i64 of host
/// memory, on the compiled code's stack: send counts, then receive counts),
/// waits for the stream (NCCL takes counts on the host, and the result's
/// size is their sum: the one host synchronisation of an input dist,
/// docs/sharding.md) and returns the rows to receive; the compiled code
/// allocates the result, then embrtCompiledAllToAll sends.
enum {
  EMB_ABI_A2A_DTYPE = 0,
  EMB_ABI_A2A_WORLD_SIZE,
  EMB_ABI_A2A_HAS_COUNTS,
  EMB_ABI_A2A_SPLITS, ///< 2 * W entries follow without counts operands
};
enum {
  EMB_ABI_A2A_BUF_SEND = 0,
  EMB_ABI_A2A_BUF_RECV,
  EMB_ABI_A2A_BUF_SEND_COUNTS, ///< NULL with splits
  EMB_ABI_A2A_BUF_RECV_COUNTS, ///< NULL with splits
  EMB_ABI_A2A_BUF_HOST_COUNTS, ///< NULL with splits
};
enum {
  EMB_ABI_A2A_DIM_ROW = 0, ///< elements a row (the trailing dims)
  // Checked extents:
  EMB_ABI_A2A_DIM_SEND_ROWS, ///< the splits' sum, at least the counts' sum
  EMB_ABI_A2A_DIM_RECV_ROWS, ///< the splits' or the counts' sum
};
int64_t embrtCompiledAllToAllCounts(embrtContext *ctx, const int64_t *attrs,
                                    void *const *buffers, const int64_t *dims);
void embrtCompiledAllToAll(embrtContext *ctx, const int64_t *attrs,
                           void *const *buffers, const int64_t *dims);

/// emb.reduce_scatter and emb.all_gather.
enum { EMB_ABI_COLL_DTYPE = 0, EMB_ABI_COLL_WORLD_SIZE };
enum { EMB_ABI_COLL_BUF_SEND = 0, EMB_ABI_COLL_BUF_RECV };
enum {
  EMB_ABI_COLL_DIM_SEND = 0, ///< elements
  EMB_ABI_COLL_DIM_RECV,     ///< elements
};
void embrtCompiledReduceScatter(embrtContext *ctx, const int64_t *attrs,
                                void *const *buffers, const int64_t *dims);
void embrtCompiledAllGather(embrtContext *ctx, const int64_t *attrs,
                            void *const *buffers, const int64_t *dims);

/// tensor.concat: attrs [dtype, n]; buffers [output, inputs...];
/// dims [outer, inner, n sizes along the concatenated dim], then the checked
/// extents: each input's outer and inner size (n pairs), then the result's
/// outer size, inner size and size along the concatenated dim.
enum { EMB_ABI_CONCAT_DTYPE = 0, EMB_ABI_CONCAT_NUM_INPUTS };
enum { EMB_ABI_CONCAT_BUF_OUTPUT = 0, EMB_ABI_CONCAT_BUF_INPUTS };
enum {
  EMB_ABI_CONCAT_DIM_OUTER = 0,
  EMB_ABI_CONCAT_DIM_INNER,
  EMB_ABI_CONCAT_DIM_SIZES
};
void embrtCompiledConcat(embrtContext *ctx, const int64_t *attrs,
                         void *const *buffers, const int64_t *dims);

/// tensor.extract_slice: attrs [dtype, rank]; buffers [input, output];
/// dims [offset, rank sizes, rank input strides] (elements), then the
/// checked extents: rank offsets, rank strides of the slice and the rank
/// dims of the input, each dim's slice within its dim.
enum { EMB_ABI_COPY_DTYPE = 0, EMB_ABI_COPY_RANK };
enum { EMB_ABI_COPY_BUF_INPUT = 0, EMB_ABI_COPY_BUF_OUTPUT };
enum { EMB_ABI_COPY_DIM_OFFSET = 0, EMB_ABI_COPY_DIM_SIZES };
void embrtCompiledStridedCopy(embrtContext *ctx, const int64_t *attrs,
                              void *const *buffers, const int64_t *dims);

/// Elementwise arith/math: attrs [dtype, isUnary, op]; buffers [a, b or
/// NULL, output]; dims [elements (the result's)], then the checked extents:
/// a's and b's elements (0 for a unary op's b).
enum {
  EMB_ABI_ELEMENTWISE_DTYPE = 0,
  EMB_ABI_ELEMENTWISE_IS_UNARY,
  EMB_ABI_ELEMENTWISE_OP
};
enum {
  EMB_ABI_ELEMENTWISE_BUF_A = 0,
  EMB_ABI_ELEMENTWISE_BUF_B,
  EMB_ABI_ELEMENTWISE_BUF_OUTPUT
};
enum {
  EMB_ABI_ELEMENTWISE_DIM_ELEMENTS = 0,
  EMB_ABI_ELEMENTWISE_DIM_A_ELEMENTS,
  EMB_ABI_ELEMENTWISE_DIM_B_ELEMENTS,
};
void embrtCompiledElementwise(embrtContext *ctx, const int64_t *attrs,
                              void *const *buffers, const int64_t *dims);

/// Splat constants and tensor.splat: attrs [dtype]; buffers [output];
/// dims [elements, the element's bits in the low bytes].
enum { EMB_ABI_FILL_DTYPE = 0 };
enum { EMB_ABI_FILL_BUF_OUTPUT = 0 };
enum { EMB_ABI_FILL_DIM_ELEMENTS = 0, EMB_ABI_FILL_DIM_BITS };
void embrtCompiledFill(embrtContext *ctx, const int64_t *attrs,
                       void *const *buffers, const int64_t *dims);

EMB_EXPORTS_END

#ifdef __cplusplus
}
#endif

#endif // EMB_COMPILED_H

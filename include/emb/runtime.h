//===- emb/runtime.h - The emb kernel runtime --------------------*- C -*-===//
//
// The runtime executes emb's operations on buffers: table-batched embedding
// lookups, the broadcast of request-only (user) rows to candidate rows, and the
// broadcast-fused interaction ops (IKBO linear compression and attention).
// Compiled models call it; so can any C or C++ program.
//
// Conventions:
//   - Every entry point returns an embrtStatus. On failure the context keeps a
//     readable message (embrtContextGetLastError) and its first failing status
//     (embrtContextGetStatus), so a sequence of calls can be checked once.
//   - Arguments that grow live in structs whose first field is `structSize`
//     (set it to sizeof the struct); the runtime rejects sizes it does not
//     know.
//   - Tensors are dense and row-major. Pointers refer to the context's device:
//     host memory for EMBRT_DEVICE_CPU, device memory for EMBRT_DEVICE_CUDA.
//   - Ops that need scratch memory take a `workspace` whose size the caller
//     asks for with the matching *WorkspaceSize function; no op allocates
//     device memory of its own, with two exceptions: the first embrtLce with
//     a non-empty output on a CUDA context creates the context's cuBLAS
//     handle (cublasCreate allocates), and the first such embrtGemm its
//     cuBLASLt handle and a 32 MiB cuBLASLt workspace; embrtContextDestroy
//     frees them. Besides the memory functions and embrtEventCreate, only
//     these allocate:
//     embrtContextCreate (the context; on CUDA its stream unless the caller
//     passes one, and a small device error record); for compiled models
//     (emb/compiled.h), embrtCompiledAlloc and embrtCompiledConstant (one
//     device copy of each constant per context); and for CUDA graphs,
//     embrtContextEndCapture (the graph) and the first embrtGraphLaunch of a
//     graph that allocates (its memory, which later launches reuse). A CUDA
//     TBE with more features than the kernel's parameter block holds stages
//     its metadata in host memory (freed before the call returns) on its way
//     into the workspace.
//   - Work on a CUDA context can be captured into a CUDA graph and replayed
//     (embrtContextBeginCapture, below), which rules out some calls while
//     capturing.
//   - No op synchronises the stream. What waits: embrtSynchronize (for the
//     stream), embrtEventElapsedMs (for its second event), embrtFree and
//     embrtContextDestroy on CUDA (cudaFree waits for the device), and
//     copies to or from pageable host memory, which may block in the CUDA
//     runtime.
//   - Device-side input errors (an out-of-range id in `fatal` mode, a bad
//     cand_to_user entry) are recorded on the device and reported by the next
//     embrtSynchronize; the output is still fully written (bad ids contribute
//     nothing), so no memory is corrupted.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_RUNTIME_H
#define EMB_RUNTIME_H

#include "emb/export.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

EMB_EXPORTS_BEGIN

//===----------------------------------------------------------------------===//
// Status codes
//===----------------------------------------------------------------------===//

/// The result of every runtime call.
typedef enum embrtStatus {
  /// The call succeeded (for asynchronous devices: it was enqueued).
  EMBRT_OK = 0,
  /// An argument is malformed: a null pointer, a shape that does not agree
  /// with another, an unknown enum value or struct size, a workspace that is
  /// too small; or the call cannot be part of a capture (see CUDA graphs).
  /// Nothing was computed.
  EMBRT_INVALID_ARGUMENT = 1,
  /// Input data is invalid: an id outside its table under `fatal` bounds
  /// checking, decreasing offsets or offsets past the end of the indices, a
  /// cand_to_user entry outside the user batch, a failed cf.assert of a
  /// compiled model.
  EMBRT_OUT_OF_RANGE = 2,
  /// A valid request this build or device cannot run (CUDA not built in, a
  /// dtype combination without a kernel).
  EMBRT_UNSUPPORTED = 3,
  /// An allocation the caller asked for failed.
  EMBRT_OUT_OF_MEMORY = 4,
  /// The device reported an error (a CUDA error code is in the message).
  EMBRT_DEVICE_ERROR = 5,
} embrtStatus;

/// A short constant name for a status ("EMBRT_OK", ...).
const char *embrtStatusName(embrtStatus status);

//===----------------------------------------------------------------------===//
// Element types and enums
//===----------------------------------------------------------------------===//

/// Element types of runtime tensors.
typedef enum embrtDtype {
  EMBRT_F32 = 0,
  EMBRT_F16 = 1,
  EMBRT_BF16 = 2,
  EMBRT_I32 = 3,
  EMBRT_I64 = 4,
  EMBRT_F64 = 5,
  EMBRT_I8 = 6, // also booleans (i1 is stored one byte per element)
} embrtDtype;

/// Bytes per element of `dtype`, or 0 for an unknown value.
size_t embrtDtypeSize(embrtDtype dtype);

/// Pooling of the rows of one bag.
typedef enum embrtPooling {
  EMBRT_POOLING_SUM = 0,
  EMBRT_POOLING_MEAN = 1,
  /// No pooling: one output row per index (sequence embeddings).
  EMBRT_POOLING_NONE = 2,
} embrtPooling;

/// What a lookup does with an id outside [0, rows of its table).
typedef enum embrtBoundsCheck {
  /// The call fails with EMBRT_OUT_OF_RANGE naming the feature, bag and id
  /// (on the CPU at once; on a device at the next embrtSynchronize).
  EMBRT_BOUNDS_FATAL = 0,
  /// The id contributes nothing and the context counts it
  /// (embrtContextGetInvalidIdCount) and reports it in its last message.
  EMBRT_BOUNDS_WARNING = 1,
  /// The id contributes nothing, silently.
  EMBRT_BOUNDS_IGNORE = 2,
  /// No check: the caller promises every id is in range.
  EMBRT_BOUNDS_NONE = 3,
} embrtBoundsCheck;

/// Where a context runs its work.
typedef enum embrtDevice {
  EMBRT_DEVICE_CPU = 0,
  EMBRT_DEVICE_CUDA = 1,
} embrtDevice;

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

/// A context binds a device and (for CUDA) a stream; it holds the last error
/// and the device-side error flags. Not thread-safe: one per thread.
typedef struct embrtContext embrtContext;

/// Creates a context on `device`. `ordinal` selects the GPU; `stream` is a
/// cudaStream_t to run on (NULL: the context creates and owns one, a
/// non-blocking stream that is not ordered with the legacy default stream;
/// to run on the legacy default stream, as PyTorch's default stream does,
/// pass cudaStreamLegacy, ((void *)1)). The
/// caller destroys the context with embrtContextDestroy. On failure `*out`
/// is NULL and embrtGetCreateError() describes why.
embrtStatus embrtContextCreate(embrtDevice device, int ordinal, void *stream,
                               embrtContext **out);

/// Destroys a context created by embrtContextCreate (NULL is allowed).
void embrtContextDestroy(embrtContext *ctx);

/// The message of the last failed embrtContextCreate on this thread.
const char *embrtGetCreateError(void);

/// The device of a context.
embrtDevice embrtContextGetDevice(const embrtContext *ctx);

/// The message of the last failed call on `ctx` ("" if none). Owned by the
/// context, valid until the next call on it.
const char *embrtContextGetLastError(const embrtContext *ctx);

/// The first failing status since the context was created or last cleared.
embrtStatus embrtContextGetStatus(const embrtContext *ctx);

/// Clears the sticky status, the last message and the invalid-id count.
void embrtContextClearError(embrtContext *ctx);

/// Ids that contributed nothing under EMBRT_BOUNDS_WARNING since the count
/// was last cleared (for CUDA: as of the last embrtSynchronize).
int64_t embrtContextGetInvalidIdCount(const embrtContext *ctx);

/// Waits for all work on the context's stream and reports errors recorded on
/// the device (EMBRT_OUT_OF_RANGE for a fatal bounds check).
embrtStatus embrtSynchronize(embrtContext *ctx);

/// Reports a device error that work already finished on the stream recorded
/// (a fatal bounds check, a bad offset), without waiting for the device: the
/// error embrtSynchronize would report, read from the host mirror of the
/// device error record that the recording kernel fills (page-locked, mapped
/// host memory; while there is no error a poll reads one word and does
/// nothing else). Called after each call's work, it makes a bad id of one
/// call surface in the poll of the first call that starts after the device
/// has run it, with no host synchronisation in between. A reported error is
/// cleared on the device (later kernels record anew); warning-mode counts are
/// left for embrtSynchronize. During a CUDA stream capture of the context's
/// stream it leaves a found error for a later poll. On the CPU, calls report
/// their errors themselves: EMBRT_OK.
embrtStatus embrtPollDeviceErrors(embrtContext *ctx);

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

/// A point on the context's stream, for timing device work the way CUDA
/// events do (on the CPU: the host clock when it is recorded).
typedef struct embrtEvent embrtEvent;

/// Creates an event; destroy it with embrtEventDestroy.
embrtStatus embrtEventCreate(embrtContext *ctx, embrtEvent **out);

/// Records `event` on the context's stream (no synchronisation).
embrtStatus embrtEventRecord(embrtContext *ctx, embrtEvent *event);

/// Milliseconds of device time between two recorded events; waits for `end`.
embrtStatus embrtEventElapsedMs(embrtContext *ctx, embrtEvent *start,
                                embrtEvent *end, float *ms);

/// Destroys an event (NULL is allowed).
void embrtEventDestroy(embrtContext *ctx, embrtEvent *event);

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Allocates `bytes` on the context's device (plain device memory on CUDA).
embrtStatus embrtMalloc(embrtContext *ctx, size_t bytes, void **out);

/// Frees memory from embrtMalloc (NULL is allowed). On CUDA this is cudaFree,
/// which waits for the device's work; embrtFreeAsync does not.
embrtStatus embrtFree(embrtContext *ctx, void *ptr);

/// Allocates `bytes` ordered on the context's stream, without synchronising:
/// on CUDA from the device's stream-ordered memory pool (cudaMallocAsync,
/// plain device memory, kept cached by the pool between calls); on the CPU
/// as embrtMalloc. Work enqueued after the call may use it. Free it with
/// embrtFreeAsync. Compiled models allocate their intermediates this way.
embrtStatus embrtMallocAsync(embrtContext *ctx, size_t bytes, void **out);

/// Frees memory from embrtMallocAsync once the work enqueued before it is
/// done, without synchronising (NULL is allowed).
embrtStatus embrtFreeAsync(embrtContext *ctx, void *ptr);

/// Direction of a copy relative to the context's device.
typedef enum embrtCopyKind {
  EMBRT_COPY_HOST_TO_DEVICE = 0,
  EMBRT_COPY_DEVICE_TO_HOST = 1,
  EMBRT_COPY_DEVICE_TO_DEVICE = 2,
} embrtCopyKind;

/// Copies `bytes`, ordered on the context's stream.
embrtStatus embrtMemcpy(embrtContext *ctx, void *dst, const void *src,
                        size_t bytes, embrtCopyKind kind);

/// Sets `bytes` of device memory to `value`.
embrtStatus embrtMemset(embrtContext *ctx, void *dst, int value, size_t bytes);

//===----------------------------------------------------------------------===//
// CUDA graphs: capture the work of calls once, replay it
//===----------------------------------------------------------------------===//
//
// Between embrtContextBeginCapture and embrtContextEndCapture, the calls made
// on a CUDA context do not run: the work they enqueue on the context's stream
// is recorded into a graph (CUDA stream capture), with the argument values
// they had. embrtGraphLaunch then runs that work again, as one launch, as
// often as wanted: the same kernels on the same buffers, so a replay sees
// whatever the buffers hold when it runs (new ids in the same id buffer give
// new results), and host-side work of the calls (argument checks, launch
// configuration, workspace queries) is not repeated. Ops, embrtMemcpy between
// device buffers, embrtMemset, embrtMallocAsync and embrtFreeAsync, and a
// compiled model's whole call (emb/compiled.h) can be captured.
//
// What a captured call may not do, and what the runtime answers:
//   - wait for the device: embrtSynchronize and embrtEventElapsedMs fail with
//     EMBRT_INVALID_ARGUMENT during a capture (time a graph with events
//     recorded around embrtGraphLaunch);
//   - allocate or free with the blocking functions: embrtMalloc and
//     embrtFree fail (EMBRT_INVALID_ARGUMENT); embrtMallocAsync and
//     embrtFreeAsync become the graph's own allocation and free (memory
//     allocated in the capture belongs to the graph: free it in the capture;
//     a replay reuses the graph's memory and allocates nothing);
//   - copy to or from pageable host memory: a captured embrtMemcpy needs
//     page-locked host memory (cudaMallocHost, cudaHostRegister) that stays
//     valid while the graph lives (EMBRT_INVALID_ARGUMENT otherwise);
//   - do first-use work: a compiled model's constants are uploaded, the PTX
//     modules of its generated kernels loaded, and the cuBLAS handle of
//     embrtLce is created, by the first call that needs them;
//     during a capture that first call fails (EMBRT_INVALID_ARGUMENT). Run
//     the call once on the context before capturing it (a warm-up);
//   - stage metadata through host memory: a CUDA TBE with more features than
//     the forward kernel's parameter block holds (more than 1000), and a TBE
//     backward with more than 64 tables or 256 features,
//     answer EMBRT_UNSUPPORTED during a capture.
// A failure during a capture is recorded on the context as usual (sticky);
// embrtContextEndCapture then discards the graph and reports it. Device-side
// input errors of a replay (a bad id in `fatal` mode) are reported by the
// next embrtSynchronize, as for a direct call. The CPU backend has no graphs:
// embrtContextBeginCapture answers EMBRT_UNSUPPORTED there.

/// How a capture treats CUDA calls that could synchronise (cudaMalloc,
/// cudaStreamSynchronize, ...) made outside the runtime while it captures
/// (cudaStreamCaptureMode).
typedef enum embrtCaptureMode {
  /// Such calls fail on the capturing thread; other threads are unaffected.
  /// The default.
  EMBRT_CAPTURE_THREAD_LOCAL = 0,
  /// Such calls fail on every thread of the process.
  EMBRT_CAPTURE_GLOBAL = 1,
  /// No such check: the caller promises that none happen.
  EMBRT_CAPTURE_RELAXED = 2,
} embrtCaptureMode;

/// Options of embrtContextBeginCapture (NULL: the defaults).
typedef struct embrtCaptureOptions {
  size_t structSize; ///< sizeof(embrtCaptureOptions)
  embrtCaptureMode mode;
} embrtCaptureOptions;

/// Work captured from a context's stream, ready to replay on that context.
/// Created by embrtContextEndCapture; the caller destroys it with
/// embrtGraphDestroy before destroying its context.
typedef struct embrtGraph embrtGraph;

/// Starts capturing the work later calls on `ctx` enqueue (see above). The
/// context must hold no error (clear it with embrtContextClearError) and not
/// be capturing already. Work enqueued before this call still runs. Answers
/// EMBRT_UNSUPPORTED on the CPU.
embrtStatus embrtContextBeginCapture(embrtContext *ctx,
                                     const embrtCaptureOptions *options);

/// Ends the capture of `ctx` and makes the captured work a graph in `*out`
/// (owned by the caller). If a call failed during the capture, the graph is
/// discarded, `*out` is NULL and its status and message are returned. The
/// context stops capturing in every case.
embrtStatus embrtContextEndCapture(embrtContext *ctx, embrtGraph **out);

/// Whether `ctx` is between embrtContextBeginCapture and
/// embrtContextEndCapture.
int embrtContextIsCapturing(const embrtContext *ctx);

/// Enqueues the graph's work on the stream of `ctx`, the context that
/// captured it, without synchronising. Not during a capture.
embrtStatus embrtGraphLaunch(embrtContext *ctx, embrtGraph *graph);

/// Destroys a graph of `ctx` (NULL is allowed). A launch still running
/// finishes first, on the device; the host does not wait.
void embrtGraphDestroy(embrtContext *ctx, embrtGraph *graph);

//===----------------------------------------------------------------------===//
// Table-batched embedding lookup (emb.tbe) and single-table bags
//===----------------------------------------------------------------------===//

/// The widest table row (embrtTbeArgs::tableDims, embrtEmbeddingBagArgs::dim)
/// the lookups and their backward admit: 2048.
#define EMBRT_MAX_TABLE_DIM 2048

/// How a table's rows are stored (embrtTbeArgs::tablePrecisions). DENSE rows
/// are D elements of embrtTbeArgs::tableDtype. The others are packed rows
/// of embrtQuantizedRowBytes(precision, D) bytes, in FBGEMM's IntNBit TBE
/// row layout so that its weights import unchanged: a 4-byte header, then
/// the D elements, then zeros up to a multiple of
/// EMBRT_QUANTIZED_ROW_ALIGNMENT bytes. Element d of a row reads
///   INT8, INT4, INT2: fmaf(scale, q_d, bias), the header holding scale then
///     bias as IEEE halves and q_d an unsigned integer of 8, 4 or 2 bits;
///     element d sits in byte d*bits/8 at bit (d*bits) % 8 (the low bits
///     first), so D must be a multiple of 8/bits;
///   FP8: e4m3(q_d) * scale, the header holding scale as an f32 and q_d an
///     OCP e4m3 byte (bias 7, largest finite 448, no infinities).
/// embrtQuantizeTable makes such rows from a dense table.
typedef enum embrtTablePrecision {
  EMBRT_PRECISION_DENSE = 0,
  EMBRT_PRECISION_INT8 = 1,
  EMBRT_PRECISION_INT4 = 2,
  EMBRT_PRECISION_INT2 = 3,
  EMBRT_PRECISION_FP8 = 4,
} embrtTablePrecision;

/// The bytes a packed row is padded to a multiple of: FBGEMM's row alignment
/// on the GPU.
#define EMBRT_QUANTIZED_ROW_ALIGNMENT 16

/// Bytes of one packed row of `dim` columns at `precision`, or -1 for
/// EMBRT_PRECISION_DENSE, an unknown precision, or a `dim` outside
/// 1..EMBRT_MAX_TABLE_DIM or not a multiple of what one byte packs.
int64_t embrtQuantizedRowBytes(embrtTablePrecision precision, int64_t dim);

/// The name of a precision ("dense", "int8", "int4", "int2", "fp8"), or
/// "unknown".
const char *embrtTablePrecisionName(embrtTablePrecision precision);

/// Arguments of embrtTbeForward. T tables, F features, B bags per feature.
/// Bag b of feature f is indices[offsets[f*B+b] : offsets[f*B+b+1]], looked
/// up in table featureTables[f]. Pooled output is [B, sum of D over features]
/// with feature f at its column range, in feature order; unpooled output
/// (EMBRT_POOLING_NONE) is [N, D] and needs every feature's table to share D.
typedef struct embrtTbeArgs {
  size_t structSize;
  embrtPooling pooling;
  embrtBoundsCheck boundsCheck;
  int64_t numTables; ///< T
  const void *const
      *tables; ///< T pointers, table t is [tableRows[t], tableDims[t]]
  const int64_t *tableRows;     ///< T row counts (host array)
  const int64_t *tableDims;     ///< T widths (host array), each 1..2048
  embrtDtype tableDtype;        ///< F32, F16 or BF16, shared by all tables
  int64_t numFeatures;          ///< F
  const int64_t *featureTables; ///< F table indices (host array)
  int64_t batchSize;            ///< B
  int64_t numIndices;           ///< N
  const void *indices;          ///< [N] ids, I32 or I64
  embrtDtype indexDtype;
  const void *offsets; ///< [F*B+1], I32 or I64, offsets[0] == 0
  embrtDtype offsetDtype;
  const void *perSampleWeights;    ///< [N] or NULL; only with SUM pooling
  embrtDtype perSampleWeightDtype; ///< F32 or tableDtype
  int64_t paddingIdx;     ///< ids equal to it add nothing (mean skips them)
  int hasPaddingIdx;      ///< nonzero when paddingIdx applies
  void *output;           ///< see above
  embrtDtype outputDtype; ///< F32 or tableDtype
  int64_t configId; ///< launch configuration chosen at compile time, -1: choose
                    ///< at run time
  void *workspace;
  size_t workspaceBytes;
  /// NULL, or [2F] entries of offsetDtype: featureEnds[f] is where feature
  /// f's ids end in `indices` (feature f's ids are indices[featureEnds[f-1]
  /// : featureEnds[f]], from 0), featureEnds[F + f] the last offset of
  /// feature f's own offsets, which F separate bags would have had. With
  /// them, each feature's offsets are checked as its bag's were: the first
  /// is 0 (offsets[f*B] == featureEnds[f-1]) and the last its id count
  /// (featureEnds[F + f] == featureEnds[f] - featureEnds[f-1]), and a bad
  /// one is EMBRT_OUT_OF_RANGE naming the feature. emb-batch-tables makes
  /// them when it batches bags into one lookup. The backward takes none
  /// (embrtTbeBackwardArgs::lookup.featureEnds must be NULL).
  const void *featureEnds;
  /// NULL (every table dense), or T embrtTablePrecision values (host
  /// array; int64 like the other per-table arrays): how table t's rows are
  /// stored. A quantized table t is tableRows[t] packed rows of
  /// embrtQuantizedRowBytes(tablePrecisions[t], tableDims[t]) bytes; the
  /// dense tables hold tableDtype, and the output is f32 or tableDtype as
  /// ever (for a lookup of quantized tables only, tableDtype chooses the
  /// 16-bit output). Quantized rows are read in f32 and summed in f32, on
  /// both backends the same values. On CUDA a quantized table must start at
  /// a multiple of EMBRT_QUANTIZED_ROW_ALIGNMENT bytes (its rows are copied
  /// 16 bytes at a time; EMBRT_INVALID_ARGUMENT otherwise). The backward
  /// takes only dense tables.
  const int64_t *tablePrecisions;
  /// Nonzero: the offsets are read as a mask, as torch-mlir's lowering of
  /// embedding_bag computes a bag (emb.embedding_bag's `masked_offsets`),
  /// and any offsets are valid. Bag b of a feature holds the feature's ids
  /// at the positions j with lo <= j < hi, lo and hi its two offsets as the
  /// feature's own bag had them: a bag may be empty, overlap another, or
  /// leave ids in no bag. Every id of a feature is checked against its table
  /// (boundsCheck), in a bag or not, as the mask's reads are. With
  /// featureEnds, feature f's positions are indices[featureEnds[f-1] :
  /// featureEnds[f]] numbered from 0, its offsets offsets[f*B .. f*B+B-1]
  /// less featureEnds[f-1] and then featureEnds[F + f] (wrapping in the
  /// offsets' width, which undoes emb-batch-tables' shift exactly);
  /// without, the lookup's positions and offsets as they are. MEAN divides
  /// a bag's sum by max(hi - lo, 1) (hi - lo wrapping in the offsets'
  /// width), which is the count of its ids when the offsets are valid; it
  /// takes no paddingIdx, and boundsCheck FATAL or NONE only (no id is
  /// skipped). Only SUM and MEAN pooling, one feature or
  /// featureEnds (so that every position has a feature); no backward takes
  /// it (EMBRT_INVALID_ARGUMENT otherwise).
  /// Offsets that are valid (as above without it) run the usual lookup; the
  /// others a slower one.
  int maskedOffsets;
} embrtTbeArgs;

/// Bytes of workspace embrtTbeForward needs for `args` (the workspace fields
/// are ignored).
embrtStatus embrtTbeWorkspaceSize(embrtContext *ctx, const embrtTbeArgs *args,
                                  size_t *bytes);

/// The forward of emb.tbe: pooled (or unpooled) lookups of every feature in
/// one call. Accumulates in f32 (f64 for f32 tables). An empty bag gives
/// zeros; a mean over a bag with no counted id gives zeros.
embrtStatus embrtTbeForward(embrtContext *ctx, const embrtTbeArgs *args);

/// Arguments of embrtQuantizeTable and embrtDequantizeTable.
typedef struct embrtQuantizeTableArgs {
  size_t structSize;
  embrtTablePrecision precision; ///< INT8, INT4, INT2 or FP8
  int64_t rows;
  int64_t dim;           ///< D, as embrtQuantizedRowBytes takes it
  const void *input;     ///< dense [rows, dim] or packed rows
  embrtDtype denseDtype; ///< F32, F16 or BF16: the dense side's dtype
  void *output;          ///< packed rows or dense [rows, dim]
} embrtQuantizeTableArgs;

/// Quantizes dense `input` into packed rows at `output`, row by row as
/// FBGEMM's FloatToFusedNBitRowwiseQuantizedSBHalf does for INT8/4/2 (bias
/// the row's minimum rounded to f16, scale (max - bias) / (2^bits - 1)
/// rounded to f16, 1 for a constant row; q = lrintf((x - bias) / scale)
/// clamped), and for FP8 with scale = max|x| / 448 (1 for a zero row) and
/// q = e4m3(x / scale) rounded to nearest even. Both backends write the same
/// bytes. A non-finite element is EMBRT_OUT_OF_RANGE naming its row and
/// column: on the CPU at the call, with nothing written past the rows before
/// it; on CUDA, which does not wait for the device, by embrtSynchronize (or
/// embrtPollDeviceErrors), naming one such row and its first non-finite
/// column and value, with every row holding one written as zeros (it reads
/// as zeros) and every other row written as usual. The padding bytes are
/// written as zeros.
embrtStatus embrtQuantizeTable(embrtContext *ctx,
                               const embrtQuantizeTableArgs *args);

/// The inverse: the dense [rows, dim] table of denseDtype that packed
/// `input` reads as (embrtTablePrecision), each element rounded once; the
/// same on both backends, except that a NaN (an e4m3 NaN byte, a NaN
/// header) may differ in its sign and payload bits.
embrtStatus embrtDequantizeTable(embrtContext *ctx,
                                 const embrtQuantizeTableArgs *args);

/// embrtQuantizeTable and embrtDequantizeTable on host memory, without a
/// context: the loops the CPU backend runs, for tools that pack tables
/// ahead of time (emb-quantize-tables packs constant tables with them). A
/// non-finite element is EMBRT_OUT_OF_RANGE with its row and column in
/// `*badRow` and `*badColumn` (either may be NULL); arguments the calls
/// above would refuse are EMBRT_INVALID_ARGUMENT, unexplained.
embrtStatus embrtQuantizeRows(const embrtQuantizeTableArgs *args,
                              int64_t *badRow, int64_t *badColumn);
embrtStatus embrtDequantizeRows(const embrtQuantizeTableArgs *args);

/// Arguments of embrtEmbeddingBag (emb.embedding_bag): one table, B bags.
typedef struct embrtEmbeddingBagArgs {
  size_t structSize;
  embrtPooling mode;
  embrtBoundsCheck boundsCheck;
  const void *weight; ///< [rows, dim]
  int64_t rows;
  int64_t dim;
  embrtDtype weightDtype;
  int64_t batchSize;  ///< B
  int64_t numIndices; ///< N
  const void *indices;
  embrtDtype indexDtype;
  const void *offsets; ///< [B+1]
  embrtDtype offsetDtype;
  const void *perSampleWeights; ///< [N] or NULL; only with SUM
  embrtDtype perSampleWeightDtype;
  int64_t paddingIdx;
  int hasPaddingIdx;
  void *output; ///< [B, dim] pooled, [N, dim] for NONE
  embrtDtype outputDtype;
  int64_t configId;
  void *workspace;
  size_t workspaceBytes;
  int maskedOffsets; ///< as embrtTbeArgs::maskedOffsets
} embrtEmbeddingBagArgs;

embrtStatus embrtEmbeddingBagWorkspaceSize(embrtContext *ctx,
                                           const embrtEmbeddingBagArgs *args,
                                           size_t *bytes);
embrtStatus embrtEmbeddingBag(embrtContext *ctx,
                              const embrtEmbeddingBagArgs *args);

//===----------------------------------------------------------------------===//
// Training: the backward of a lookup with the optimizer fused
// (emb.tbe_backward, emb.embedding_bag_backward)
//===----------------------------------------------------------------------===//

/// The optimizer a backward applies to every table row its batch touched,
/// exactly once, with the sum of that row's gradients g (f32, D entries).
/// lr, eps, beta1, beta2 and wd are embrtTbeBackwardArgs::hyperParams.
typedef enum embrtOptimizer {
  /// w -= lr * (g + wd * w).
  EMBRT_OPTIMIZER_SGD = 0,
  /// Exact rowwise Adagrad (FBGEMM's EXACT_ROWWISE_ADAGRAD, L2 weight decay):
  /// g' = g + wd * w; s += mean(g'^2) over the row; w -= lr * g' /
  /// (sqrt(s) + eps). One f32 state s per row (momentum1, [rows]).
  EMBRT_OPTIMIZER_ROWWISE_ADAGRAD = 1,
  /// Adam with decoupled weight decay (as FBGEMM's ADAM): m = b1 m + (1-b1)
  /// g; v = b2 v + (1-b2) g^2; w -= lr * ((m / (1-b1^t)) / (sqrt(v /
  /// (1-b2^t)) + eps) + wd * w), t = *step. f32 m and v per element
  /// (momentum1 and momentum2, [rows, D]).
  EMBRT_OPTIMIZER_ADAM = 2,
} embrtOptimizer;

/// How an optimizer state is stored (embrtTbeBackwardArgs::momentum1Precision
/// and momentum2Precision). Every update loads the state, widens it to f32,
/// updates it in f32 and stores it back rounded stochastically (a seeded
/// hash of the step, table, row and column, the same on both backends), so
/// that increments below the stored precision are kept on average.
typedef enum embrtStatePrecision {
  /// f32, rounded to nearest (4 bytes an element).
  EMBRT_STATE_F32 = 0,
  /// bf16: the high half of the f32 bits, f32's range (2 bytes an element).
  EMBRT_STATE_BF16 = 1,
  /// OCP fp8 e4m3 (largest 448) times an f32 scale (1 byte an element).
  EMBRT_STATE_FP8_E4M3 = 2,
  /// OCP fp8 e5m2 (largest 57344) times an f32 scale (1 byte an element).
  EMBRT_STATE_FP8_E5M2 = 3,
} embrtStatePrecision;

/// The name of a state precision ("f32", "bf16", "fp8_e4m3", "fp8_e5m2"), or
/// "unknown".
const char *embrtStatePrecisionName(embrtStatePrecision precision);

/// Bytes of one element of a state stored at `precision` (4, 2, 1), or 0
/// for an unknown precision.
int64_t embrtStatePrecisionBytes(embrtStatePrecision precision);

/// Entries of embrtTbeBackwardArgs::hyperParams.
enum {
  EMBRT_HYPER_LEARNING_RATE = 0,
  EMBRT_HYPER_EPS,
  EMBRT_HYPER_BETA1,
  EMBRT_HYPER_BETA2,
  EMBRT_HYPER_WEIGHT_DECAY,
  EMBRT_NUM_HYPER_PARAMS
};

/// Arguments of embrtTbeBackward: the forward's lookup, the gradient of its
/// output, and the optimizer. For every (table, row) that some bag position
/// of the batch touched (padding ids and ids skipped by the bounds check
/// touch nothing), the gradient of that row is the sum over those positions
/// of the output-gradient row of the position's bag (pooling SUM), divided by
/// the bag's count of ids that contribute (MEAN), or of the position's own
/// gradient row (NONE), times the position's per-sample weight when given;
/// the optimizer then updates the row once. No weight gradient is stored:
/// tables and optimizer states are updated in place.
typedef struct embrtTbeBackwardArgs {
  size_t structSize;
  /// The forward's arguments: pooling, bounds check, tables, ids, offsets,
  /// per-sample weights, padding id. The tables are updated in place (each
  /// lookup.tables[t] must be writable memory of the context's device).
  /// lookup.output, outputDtype, configId and workspace are not read.
  embrtTbeArgs lookup;
  /// [B, sum of D over features] for SUM and MEAN (the forward's output
  /// layout), [N, D] for NONE.
  const void *gradOutput;
  embrtDtype gradDtype; ///< F32 or the table dtype
  embrtOptimizer optimizer;
  /// T pointers, of momentum1Precision (f32 by default): ROWWISE_ADAGRAD's
  /// [rows_t] row states, ADAM's [rows_t, D_t] first moments; NULL for SGD.
  /// Updated in place.
  void *const *momentum1;
  /// T pointers, of momentum2Precision: ADAM's [rows_t, D_t] second
  /// moments; NULL otherwise.
  void *const *momentum2;
  /// [EMBRT_NUM_HYPER_PARAMS] f32 in the context's device memory (so that a
  /// compiled or captured step is reusable with another learning rate):
  /// learning rate, eps, beta1, beta2, weight decay.
  const float *hyperParams;
  /// One i64 in the context's device memory: the step t >= 1 (ADAM's bias
  /// correction; mixed into the stochastic rounding). May be NULL for SGD
  /// and ROWWISE_ADAGRAD, which take any value. ADAM with t < 1 is
  /// EMBRT_OUT_OF_RANGE and updates nothing (on CUDA reported by
  /// embrtSynchronize: the step is not read on the host).
  const int64_t *step;
  /// Seed of the stochastic rounding with which f16 and bf16 rows are
  /// written back (f32 tables are rounded to nearest).
  uint64_t seed;
  int64_t configId; ///< -1: the runtime chooses
  void *workspace;
  size_t workspaceBytes;
  /// How momentum1 and momentum2 are stored; EMBRT_STATE_F32 (0) keeps
  /// them f32. A state of another precision holds that precision's elements
  /// in the same shape ([rows_t] or [rows_t, D_t]):
  ///   ADAM, fp8: each row's D elements are e4m3 or e5m2 codes of value /
  ///     scale, with the row's f32 scale in momentumNScales[t][row] (a
  ///     separate [rows_t] f32 array, so that the codes of a row stay
  ///     aligned for vector loads). The update writes a new scale per row,
  ///     the row's largest magnitude after the update over the format's
  ///     largest value (1 for a zero row).
  ///   ROWWISE_ADAGRAD, fp8: one code per row and ONE f32 scale per table
  ///     (momentum1Scales[t][0], read only): a scale per row would take as
  ///     many bytes as the f32 state. The caller chooses it so that the
  ///     row states divided by it lie in the format's range (e4m3: 2^-9 to
  ///     448; e5m2: 2^-16 to 57344); larger states saturate. A scale not
  ///     positive and finite is EMBRT_OUT_OF_RANGE and updates nothing (on
  ///     CUDA reported by embrtSynchronize).
  ///   bf16 needs no scale (f32's exponent range).
  embrtStatePrecision momentum1Precision;
  embrtStatePrecision momentum2Precision; ///< ADAM only
  /// T pointers to f32 scales of an fp8 momentum1 / momentum2 (see above);
  /// NULL when the state is not fp8.
  void *const *momentum1Scales;
  void *const *momentum2Scales;
  /// Elements from the start of one gradOutput row to the next: 0 for
  /// dense rows (the row's width: the sum of D over features for SUM and
  /// MEAN, D for NONE), or at least the width, to read rows that are some
  /// columns of a wider tensor in place (the gradient of the lookup's part
  /// of a concatenation, as DLRM's interaction takes it).
  int64_t gradRowStride;
} embrtTbeBackwardArgs;

/// Bytes of workspace embrtTbeBackward needs for `args`: an upper bound from
/// the shapes and the id count alone (no data is read, nothing synchronises).
embrtStatus embrtTbeBackwardWorkspaceSize(embrtContext *ctx,
                                          const embrtTbeBackwardArgs *args,
                                          size_t *bytes);

/// The fused backward and optimizer step of emb.tbe. Accumulates each row's
/// gradient in f32 on CUDA (f64 on the CPU), applies the optimizer once per
/// touched row. Ordered on the context's stream; no host synchronisation.
embrtStatus embrtTbeBackward(embrtContext *ctx,
                             const embrtTbeBackwardArgs *args);

/// The same for emb.embedding_bag (one table, one feature).
typedef struct embrtEmbeddingBagBackwardArgs {
  size_t structSize;
  embrtEmbeddingBagArgs lookup; ///< as embrtTbeBackwardArgs::lookup
  const void *gradOutput;       ///< [B, D] pooled, [N, D] for NONE
  embrtDtype gradDtype;
  embrtOptimizer optimizer;
  void *momentum1; ///< [rows] (ROWWISE_ADAGRAD), [rows, D] (ADAM), or NULL
  void *momentum2; ///< [rows, D] (ADAM) or NULL
  const float *hyperParams;
  const int64_t *step;
  uint64_t seed;
  int64_t configId;
  void *workspace;
  size_t workspaceBytes;
  embrtStatePrecision momentum1Precision; ///< as embrtTbeBackwardArgs
  embrtStatePrecision momentum2Precision;
  void *momentum1Scales; ///< [rows] (ADAM), [1] (ROWWISE_ADAGRAD) or NULL
  void *momentum2Scales; ///< [rows] (ADAM) or NULL
  int64_t gradRowStride; ///< as embrtTbeBackwardArgs (0: dense rows)
} embrtEmbeddingBagBackwardArgs;

embrtStatus embrtEmbeddingBagBackwardWorkspaceSize(
    embrtContext *ctx, const embrtEmbeddingBagBackwardArgs *args,
    size_t *bytes);
embrtStatus
embrtEmbeddingBagBackward(embrtContext *ctx,
                          const embrtEmbeddingBagBackwardArgs *args);

//===----------------------------------------------------------------------===//
// Broadcast of request-only rows (emb.broadcast, emb.broadcast_add)
//===----------------------------------------------------------------------===//

/// out[b, ...] = ro[candToUser[b], ...] (and + nro[b, ...] for broadcast_add).
/// `rowElements` is the product of the dims after the batch dim.
typedef struct embrtBroadcastArgs {
  size_t structSize;
  const void *ro;   ///< [numUsers, rowElements]
  int64_t numUsers; ///< U
  int64_t rowElements;
  embrtDtype dtype;       ///< any dtype for broadcast; floats for add
  const void *candToUser; ///< [B], I32 or I64, each in [0, U)
  embrtDtype indexDtype;
  int64_t batchSize; ///< B
  const void *nro;   ///< [B, rowElements] for broadcast_add, else NULL
  void *output;      ///< [B, rowElements]
} embrtBroadcastArgs;

embrtStatus embrtBroadcast(embrtContext *ctx, const embrtBroadcastArgs *args);
embrtStatus embrtBroadcastAdd(embrtContext *ctx,
                              const embrtBroadcastArgs *args);

//===----------------------------------------------------------------------===//
// Sequences (emb.jagged_to_padded)
//===----------------------------------------------------------------------===//

/// A sequence feature's jagged rows into the padded form attention reads:
/// user u's rows are values[offsets[u] .. offsets[u+1]); padded[u, l, :] is
/// the l-th of them for l < min(length, maxLength), else paddingValue, and
/// lengths[u] = min(length, maxLength) (rows past maxLength are dropped, as
/// FBGEMM's jagged_to_padded_dense does).
///
/// Offsets must start at >= 0, never decrease and end at <= numValues: the
/// CPU checks them all before writing anything and returns
/// EMBRT_OUT_OF_RANGE naming the first bad one; the CUDA kernels record the
/// first bad one (reported by embrtSynchronize) and give its user padding
/// and length 0.
typedef struct embrtJaggedToPaddedArgs {
  size_t structSize;
  const void *values;    ///< [numValues, rowElements]
  int64_t numValues;     ///< N
  int64_t rowElements;   ///< D
  embrtDtype dtype;      ///< f32, f16, bf16 or f64
  const void *offsets;   ///< [numUsers + 1]
  embrtDtype indexDtype; ///< I32 or I64; also the dtype of lengths
  int64_t numUsers;      ///< U
  int64_t maxLength;     ///< Lk >= 1
  double paddingValue;
  void *padded;  ///< [numUsers, maxLength, rowElements]
  void *lengths; ///< [numUsers] of indexDtype; may be NULL
} embrtJaggedToPaddedArgs;

embrtStatus embrtJaggedToPadded(embrtContext *ctx,
                                const embrtJaggedToPaddedArgs *args);

//===----------------------------------------------------------------------===//
// Linear compression (emb.lce, emb.ikbo_lce)
//===----------------------------------------------------------------------===//

/// emb.lce: out[b] = w[M,K] @ x[b][K,N] for b < B.
typedef struct embrtLceArgs {
  size_t structSize;
  embrtDtype dtype; ///< F32, F16 or BF16 for w, x and out
  int64_t batchSize, m, k, n;
  const void *w; ///< [M, K]
  const void *x; ///< [B, K, N]
  void *output;  ///< [B, M, N]
  int64_t configId;
  void *workspace;
  size_t workspaceBytes;
} embrtLceArgs;

embrtStatus embrtLceWorkspaceSize(embrtContext *ctx, const embrtLceArgs *args,
                                  size_t *bytes);
embrtStatus embrtLce(embrtContext *ctx, const embrtLceArgs *args);

/// The most pieces embrtIkboLceArgs takes its candidate embeddings in.
#define EMBRT_IKBO_LCE_MAX_PIECES 4

/// emb.ikbo_lce: out[b] = wCand @ cand[b] + wUser @ user[candToUser[b]].
/// The user product runs at user batch size; the candidate product adds the
/// user result in its epilogue.
typedef struct embrtIkboLceArgs {
  size_t structSize;
  embrtDtype dtype;  ///< F32, F16 or BF16
  int64_t batchSize; ///< B candidates
  int64_t numUsers;  ///< U
  int64_t m, kUser, kCand, n;
  const void *wUser;      ///< [M, Ku]
  const void *wCand;      ///< [M, Kc]
  const void *user;       ///< [U, Ku, N]
  const void *cand;       ///< [B, Kc, N]
  const void *candToUser; ///< [B], I32 or I64
  embrtDtype indexDtype;
  void *output; ///< [B, M, N]
  int64_t configId;
  void *workspace;
  size_t workspaceBytes;
  /// Elements between consecutive rows of wUser and wCand; 0 means packed
  /// (kUser, kCand). A column block of a wider weight, such as the user and
  /// candidate columns of one [M, Ku + Kc] matrix, is passed in place this
  /// way. Otherwise at least K.
  int64_t wUserStride, wCandStride;
  /// The candidate embeddings as up to EMBRT_IKBO_LCE_MAX_PIECES pieces side
  /// by side along K, in place of `cand` (then NULL): piece p is [B,
  /// candPieceK[p], N], its rows following those of piece p - 1 in K, and a
  /// NULL piece reads zeros. The pieces' K sum to kCand. A compiled model
  /// passes a tensor.concat of embeddings this way instead of writing it.
  /// 0 pieces: `cand` holds them.
  int64_t numCandPieces;
  const void *candPieces[EMBRT_IKBO_LCE_MAX_PIECES];
  int64_t candPieceK[EMBRT_IKBO_LCE_MAX_PIECES];
  /// What the two products read. EMBRT_F32 (0, the default): the data as
  /// it is (f32 data: the exact f32 path). EMBRT_F16 or EMBRT_BF16, for f32
  /// data only: the weights, the users and the candidates (pieces included)
  /// are rounded once to that type (in the workspace) and the f16/bf16
  /// kernels run (f32 accumulation, the user result added in f32); their
  /// output, rounded to that type, is widened into the f32 output.
  embrtDtype computeDtype;
} embrtIkboLceArgs;

embrtStatus embrtIkboLceWorkspaceSize(embrtContext *ctx,
                                      const embrtIkboLceArgs *args,
                                      size_t *bytes);
embrtStatus embrtIkboLce(embrtContext *ctx, const embrtIkboLceArgs *args);

//===----------------------------------------------------------------------===//
// Attention (emb.attention, emb.ikbo_attention)
//===----------------------------------------------------------------------===//

/// Full softmax attention per candidate and head, layout [B, L, H, Dh].
/// For emb.attention, k and v are [B, Lk, H, Dh] and candToUser is NULL;
/// row b attends to its first userLengths[b] keys when userLengths is given
/// (emb.attention's key_lengths). For emb.ikbo_attention, k and v are
/// [U, Lk, H, Dh]: candidate b attends to user candToUser[b]'s keys, the
/// first userLengths[u] of them when userLengths is given. A length that a
/// row reads must be in 0..Lk (EMBRT_OUT_OF_RANGE otherwise); the length of
/// a user no candidate maps to is not read, so it may hold anything. A row
/// with no keys gives zeros.
typedef struct embrtAttentionArgs {
  size_t structSize;
  embrtDtype dtype;  ///< F32, F16 or BF16 for q, k, v and out
  int64_t batchSize; ///< B
  int64_t numUsers;  ///< U (== B for emb.attention)
  int64_t lq, lk, heads, headDim;
  float scale; ///< usually 1/sqrt(headDim)
  const void *q;
  const void *k;
  const void *v;
  const void *candToUser;  ///< [B] or NULL
  const void *userLengths; ///< [U] (ikbo) or [B] (plain), or NULL
  /// I32 or I64: of candToUser and userLengths, checked whenever either is
  /// given (plain attention without userLengths does not read it).
  embrtDtype indexDtype;
  void *output; ///< [B, Lq, H, Dh]
  int64_t configId;
  void *workspace;
  size_t workspaceBytes;
  /// What the two products read. EMBRT_F32 (0, the default): the data as
  /// it is (f32 data: the exact f32 path). EMBRT_F16 or EMBRT_BF16, for f32
  /// data only: q, k and v are rounded once to that type (in the workspace)
  /// and the f16/bf16 kernel runs (f32 accumulation and softmax); its output,
  /// rounded to that type, is widened into the f32 output.
  embrtDtype computeDtype;
  /// 1 (needs userLengths): the lengths stand for SDPA's additive mask, -inf
  /// added to the scores of the keys at or past a row's length, and the
  /// call computes what PyTorch's math attention computes with it on every
  /// input (emb.attention's `additive_mask`). With s = round(round(q *
  /// sqrt(|scale|)) . round(k * sqrt(|scale|))) (each round to dtype, the
  /// product accumulated in f32), a masked key's s + -inf is NaN where s is
  /// NaN or +inf, and then the whole row is NaN; a masked key's value is
  /// multiplied by its probability 0, so a non-finite value makes the output
  /// NaN at its head-dim positions. Calls whose masked keys are finite and
  /// whose scores provably stay in dtype's range compute what the lengths
  /// alone do; the others compute the math form (f32 softmax, probabilities
  /// rounded to dtype) for the (row, head) pairs concerned.
  int additiveMask;
} embrtAttentionArgs;

embrtStatus embrtAttentionWorkspaceSize(embrtContext *ctx,
                                        const embrtAttentionArgs *args,
                                        size_t *bytes);
embrtStatus embrtAttention(embrtContext *ctx, const embrtAttentionArgs *args);
embrtStatus embrtIkboAttention(embrtContext *ctx,
                               const embrtAttentionArgs *args);

//===----------------------------------------------------------------------===//
// Dense matrix products (linalg.matmul, linalg.batch_matmul)
//===----------------------------------------------------------------------===//

/// What follows the product and the bias in a GEMM's epilogue.
typedef enum embrtActivation {
  EMBRT_ACTIVATION_NONE = 0,
  EMBRT_ACTIVATION_RELU = 1, ///< max(x, 0)
  /// GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the
  /// one cuBLASLt's epilogue computes (torch's approximate="tanh").
  EMBRT_ACTIVATION_GELU_TANH = 2,
  /// 1 / (1 + exp(-x)). cuBLASLt has no such epilogue: on CUDA it is a
  /// second, elementwise pass over the output on the same stream.
  EMBRT_ACTIVATION_SIGMOID = 3,
} embrtActivation;

/// out[b] = act(alpha * op(A[b]) @ op(B[b]) + beta * out[b] + bias) for
/// b < batchSize, op(A) [M, K], op(B) [K, N], out [M, N], row-major.
/// Element (r, c) of batch b of a matrix X with leading dimension ldx is
/// X[b * strideX + r * ldx + c]. transA: A is stored as [K, M] (op(A) is its
/// transpose); transB: B is stored as [N, K]. A leading dimension of 0 means
/// packed (the stored row length); otherwise it is at least that length. A
/// batch stride of 0 for A or B reads the same matrix for every batch (a
/// broadcast weight); out's must keep the batches apart. Products accumulate
/// in f32 (f64 on the CPU for f32 data); the epilogue runs in f32 and rounds
/// once to outputDtype. With beta == 0 out is not read (NaN there is fine).
/// On CUDA the product runs on cuBLASLt with the context's handle and
/// workspace (created by the first GEMM of a context, kept until it is
/// destroyed) and, for the shapes it has seen, its cached choice of
/// algorithm; bias, relu and gelu are its epilogue.
typedef struct embrtGemmArgs {
  size_t structSize;
  embrtDtype dtype;       ///< A and B: F32, F16 or BF16
  embrtDtype outputDtype; ///< out and bias: F32 or dtype
  int64_t batchSize, m, n, k;
  int transA, transB; ///< 0 or 1
  const void *a;
  int64_t lda, strideA;
  const void *b;
  int64_t ldb, strideB;
  void *output;
  int64_t ldc, strideC;
  const void *bias; ///< [N] of outputDtype, added to every row; or NULL
  embrtActivation activation;
  float alpha, beta;
} embrtGemmArgs;

embrtStatus embrtGemm(embrtContext *ctx, const embrtGemmArgs *args);

//===----------------------------------------------------------------------===//
// Data movement and elementwise helpers used by compiled models
//===----------------------------------------------------------------------===//

/// Concatenation along `dim` of `numInputs` dense tensors that agree on every
/// other dim. `inputDimSizes[i]` is input i's size along `dim`; `outerSize`
/// is the product of the dims before `dim` and `innerSize` of those after it.
typedef struct embrtConcatArgs {
  size_t structSize;
  embrtDtype dtype;
  int64_t numInputs;
  const void *const *inputs;
  const int64_t *inputDimSizes;
  int64_t outerSize, innerSize;
  void *output;
} embrtConcatArgs;

embrtStatus embrtConcat(embrtContext *ctx, const embrtConcatArgs *args);

/// A strided window copy: output[i0..] = input[offset + sum(i_d * strides_d)]
/// in elements, for a dense output of `rank` dims `sizes`.
#define EMBRT_MAX_RANK 8
typedef struct embrtStridedCopyArgs {
  size_t structSize;
  embrtDtype dtype;
  int64_t rank;
  int64_t sizes[EMBRT_MAX_RANK];
  int64_t inputStrides[EMBRT_MAX_RANK];
  int64_t inputOffset;
  const void *input;
  void *output; ///< dense [sizes...]
} embrtStridedCopyArgs;

embrtStatus embrtStridedCopy(embrtContext *ctx,
                             const embrtStridedCopyArgs *args);

/// Elementwise binary operations on tensors of one dtype.
typedef enum embrtBinaryOp {
  EMBRT_BINARY_ADD = 0,
  EMBRT_BINARY_SUB = 1,
  EMBRT_BINARY_MUL = 2,
  EMBRT_BINARY_DIV = 3,
  EMBRT_BINARY_MAX = 4,
  EMBRT_BINARY_MIN = 5,
} embrtBinaryOp;

/// Elementwise unary operations on tensors of one dtype.
typedef enum embrtUnaryOp {
  EMBRT_UNARY_NEG = 0,
  EMBRT_UNARY_EXP = 1,
  EMBRT_UNARY_TANH = 2,
  EMBRT_UNARY_SIGMOID = 3,
  EMBRT_UNARY_RELU = 4,
  EMBRT_UNARY_SQRT = 5,
  EMBRT_UNARY_RSQRT = 6,
  EMBRT_UNARY_LOG = 7,
  EMBRT_UNARY_ABS = 8,
} embrtUnaryOp;

/// out[i] = op(a[i], b[i]) (b == NULL for unary ops), numElements each.
/// Floats (f32, f16, bf16, f64) take every op; i32 and i64 take add, sub,
/// mul, max, min, neg and abs, wrapping on overflow like MLIR's arith.
typedef struct embrtElementwiseArgs {
  size_t structSize;
  embrtDtype dtype;
  int64_t numElements;
  int isUnary;
  embrtBinaryOp binaryOp;
  embrtUnaryOp unaryOp;
  const void *a;
  const void *b;
  void *output;
} embrtElementwiseArgs;

embrtStatus embrtElementwise(embrtContext *ctx,
                             const embrtElementwiseArgs *args);

/// Fills numElements of `output` with the element whose bytes are `value`
/// (embrtDtypeSize(dtype) bytes).
embrtStatus embrtFill(embrtContext *ctx, void *output, embrtDtype dtype,
                      int64_t numElements, const void *value);

/// Converts numElements from one dtype to another (round to nearest even).
embrtStatus embrtConvert(embrtContext *ctx, const void *input,
                         embrtDtype inputDtype, void *output,
                         embrtDtype outputDtype, int64_t numElements);

//===----------------------------------------------------------------------===//
// Half-precision helpers (host side)
//===----------------------------------------------------------------------===//

/// IEEE half and bfloat16 conversions, rounding to nearest even; NaN stays
/// NaN and overflow becomes infinity.
uint16_t embrtF32ToF16(float value);
float embrtF16ToF32(uint16_t bits);
uint16_t embrtF32ToBF16(float value);
float embrtBF16ToF32(uint16_t bits);

//===----------------------------------------------------------------------===//
// TBE launch configurations (kernels/tbe_config.h)
//===----------------------------------------------------------------------===//

/// The launch configuration the runtime uses for a TBE whose tables have
/// `tableDtype` and at most `maxDim` columns, with `numBags` bags (features *
/// batch) of `avgBagSize` ids on average (round down), as an id of the CUDA
/// TBE forward's configuration table. A pure function of its arguments, any
/// int64 values (its products saturate): the compiler stores its answer in
/// embrtTbeArgs::configId when the shapes are static.
int64_t embrtTbeSelectConfig(embrtDtype tableDtype, int64_t maxDim,
                             int64_t avgBagSize, int64_t numBags);

//===----------------------------------------------------------------------===//
// The input dist of a sharded lookup (emb.bucketize, emb.lengths_to_offsets)
//===----------------------------------------------------------------------===//

/// emb.bucketize: splits a local batch of F features (feature-major offsets,
/// as embrtTbe takes them: offsets[0] = 0, never decreasing, offsets[F*B] =
/// N) into S slots, the send buffer of an all-to-all. Slot s takes bag b of
/// feature slotFeatures[s] for rank slotRanks[s]: the bag's ids i with
/// slotRowBegin[s] <= i' < slotRowEnd[s], written as i - slotRowBegin[s]
/// (saturated at the least value of indexDtype), where i' is i clamped to
/// [lo, hi - 1], lo and hi the least begin and the largest end of that
/// feature's slots (an id outside the table goes to its first or last row
/// shard, whose lookup's bounds check then sees it).
/// lengths[s*B + b] counts slot s's ids of bag b; ids holds them slot by
/// slot, bag by bag, in their order within the bag; counts[r] (i64) sums the
/// lengths of rank r's slots. slotRanks does not decrease (each rank's slots
/// are one block). With per-sample weights, `weights` gets each kept id's
/// weight at the same position.
///
/// How many ids come out depends on the data; `ids` (and `weights`) must
/// hold at least N * embrtBucketizeDepth(...) entries, the most that can
/// (an id falls in at most that many slots of its feature); only the first
/// sum(counts) are written.
typedef struct embrtBucketizeArgs {
  size_t structSize;     ///< sizeof(embrtBucketizeArgs)
  embrtDtype indexDtype; ///< I32 or I64: indices, offsets, ids and lengths
  const void *indices;   ///< [N]
  int64_t numIndices;    ///< N
  const void *offsets;   ///< [F*B + 1]
  int64_t numFeatures;   ///< F
  int64_t batchSize;     ///< B
  const void *perSampleWeights; ///< [N] or NULL
  embrtDtype weightDtype;       ///< F32, F16 or BF16 (with weights)
  int64_t worldSize;            ///< W
  int64_t numSlots;             ///< S >= 1
  /// Host arrays of S entries: the rank, the feature and the rows of each
  /// slot.
  const int64_t *slotRanks, *slotFeatures, *slotRowBegin, *slotRowEnd;
  void *ids;           ///< [idsCapacity], indexDtype
  int64_t idsCapacity; ///< at least N * embrtBucketizeDepth(...)
  void *weights;       ///< [idsCapacity] of weightDtype, with weights
  void *lengths;       ///< [S*B], indexDtype
  int64_t *counts;     ///< [W]
  void *workspace;     ///< embrtBucketizeWorkspaceSize bytes
  size_t workspaceBytes;
} embrtBucketizeArgs;

/// The most slots of one feature that one id can fall in (1 when the slots
/// of every feature are disjoint row ranges, as row-wise shards are; k for
/// a feature whose k column shards each take the whole table). A pure
/// function of the slots: the compiler sizes the ids buffer with it.
int64_t embrtBucketizeDepth(int64_t numSlots, const int64_t *slotFeatures,
                            const int64_t *slotRowBegin,
                            const int64_t *slotRowEnd);

embrtStatus embrtBucketizeWorkspaceSize(embrtContext *ctx,
                                        const embrtBucketizeArgs *args,
                                        size_t *bytes);
embrtStatus embrtBucketize(embrtContext *ctx, const embrtBucketizeArgs *args);

/// emb.lengths_to_offsets: offsets (L + 1 entries) is the exclusive prefix
/// sum of lengths (L entries, none negative), from 0; blockSums[k] (i64)
/// sums the k-th of K equal blocks of lengths (K divides L): the ids each
/// source rank sends, read from the lengths it sent. Offsets of i32 must
/// not pass INT32_MAX.
typedef struct embrtLengthsToOffsetsArgs {
  size_t structSize; ///< sizeof(embrtLengthsToOffsetsArgs)
  embrtDtype dtype;  ///< I32 or I64: lengths and offsets
  const void *lengths;
  int64_t numLengths; ///< L
  int64_t numBlocks;  ///< K >= 1
  void *offsets;      ///< [L + 1]
  int64_t *blockSums; ///< [K]
  void *workspace;    ///< embrtLengthsToOffsetsWorkspaceSize bytes
  size_t workspaceBytes;
} embrtLengthsToOffsetsArgs;

embrtStatus embrtLengthsToOffsetsWorkspaceSize(
    embrtContext *ctx, const embrtLengthsToOffsetsArgs *args, size_t *bytes);
embrtStatus embrtLengthsToOffsets(embrtContext *ctx,
                                  const embrtLengthsToOffsetsArgs *args);

//===----------------------------------------------------------------------===//
// Communicators and collectives (docs/sharding.md)
//===----------------------------------------------------------------------===//

/// The bytes of a communicator's id (NCCL's unique id).
enum { EMBRT_COMM_ID_BYTES = 128 };

/// What every rank of one communicator is given: made once by one rank
/// (embrtCommGetUniqueId) and sent to the others by the caller (a file, a
/// socket, torch.distributed's store): emb builds no transport of its own.
typedef struct embrtCommId {
  char bytes[EMBRT_COMM_ID_BYTES];
} embrtCommId;

/// Makes a new communicator id for `device`: ncclGetUniqueId on CUDA; on
/// the CPU, which supports one rank only, zeros.
embrtStatus embrtCommGetUniqueId(embrtDevice device, embrtCommId *out);

/// Joins `ctx` to the communicator `id` of `worldSize` ranks as `rank`
/// (ncclCommInitRank on the context's device: every rank calls it with the
/// same id and size, and it returns when all have). The collectives below
/// then run on the context's stream. A context joins one communicator,
/// once; embrtContextDestroy leaves it. The CPU supports `worldSize` 1 only
/// (EMBRT_UNSUPPORTED otherwise).
embrtStatus embrtContextSetCommunicator(embrtContext *ctx, int worldSize,
                                        int rank, const embrtCommId *id);

/// The world size and rank of the context's communicator;
/// EMBRT_INVALID_ARGUMENT (with a message) when it has none.
embrtStatus embrtContextGetCommunicator(embrtContext *ctx, int *worldSize,
                                        int *rank);

/// An all-to-all with variable counts (emb.all_to_all). Rank r sends rows
/// [sum(sendCounts[0..p)), + sendCounts[p]) of `send` to rank p and
/// receives rank p's rows into `recv`, rank by rank. A row is `rowElements`
/// elements of `dtype`. The counts are host arrays of worldSize entries:
/// NCCL takes them on the host, so counts that live on the device (the ids'
/// all-to-all of emb-shard's input dist) are copied to the host by the
/// caller first, as TorchRec does; counts a plan fixes need no copy.
typedef struct embrtAllToAllArgs {
  size_t structSize; ///< sizeof(embrtAllToAllArgs)
  const void *send;
  void *recv;
  embrtDtype dtype;
  int64_t rowElements;
  const int64_t *sendCounts; ///< rows to each rank
  const int64_t *recvCounts; ///< rows from each rank
} embrtAllToAllArgs;

/// Enqueues the all-to-all on the context's stream; no host synchronisation.
embrtStatus embrtAllToAll(embrtContext *ctx, const embrtAllToAllArgs *args);

/// emb.reduce_scatter: recv (`recvElements` of a float `dtype`) is the sum
/// over ranks of block `rank` of every rank's send (worldSize blocks of
/// recvElements). On the context's stream.
embrtStatus embrtReduceScatter(embrtContext *ctx, const void *send, void *recv,
                               embrtDtype dtype, int64_t recvElements);

/// emb.all_gather: recv (worldSize blocks of `sendElements`) holds every
/// rank's send in rank order. On the context's stream.
embrtStatus embrtAllGather(embrtContext *ctx, const void *send, void *recv,
                           embrtDtype dtype, int64_t sendElements);

EMB_EXPORTS_END

#ifdef __cplusplus
}
#endif

#endif // EMB_RUNTIME_H

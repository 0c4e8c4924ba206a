//===- emb/emb.h - The emb compiler as a C library ---------------*- C -*-===//
//
// libemb: the emb dialect, its verifier, its passes and pipelines, on the MLIR
// C API of LLVM 22. Another MLIR-based compiler links libemb, loads the
// dialect into its context and adds our passes to its own pass manager:
//
//   embRegisterDialects(registry);      // upstream dialects our passes make
//   ...
//   embLoadDialect(ctx);                // the emb ops
//   MlirPassManager pm = mlirPassManagerCreateOnOperation(ctx,
//   "builtin.module");
//   embAddPassPipeline(mlirPassManagerGetAsOpPassManager(pm),
//                      mlirStringRefCreateFromCString("emb-verify"),
//                      onError, NULL);
//
// Ownership follows the MLIR C API: Create transfers ownership to the caller,
// Get does not.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_EMB_H
#define EMB_EMB_H

#include "emb/export.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include "emb/model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

EMB_EXPORTS_BEGIN

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

/// Adds to `registry` every upstream dialect that emb's passes and lowerings
/// create ops of (func, arith, math, tensor, bufferization, memref, scf, llvm),
/// and registers MLIR's own passes so that textual pipelines can name them.
void embRegisterDialects(MlirDialectRegistry registry);

/// Loads the emb dialect (defined in IRDL) into `ctx`. Safe to call more than
/// once per context. Fails only if the embedded definition does not load.
MlirLogicalResult embLoadDialect(MlirContext ctx);

/// Creates a context with the emb dialect, every dialect emb's passes use and
/// the LLVM IR translations (for the JIT and object files) loaded. The caller
/// destroys it with mlirContextDestroy.
MlirContext embContextCreate(void);

/// Returns true if `op` is one of the emb dialect's ops.
bool embIsEmbOp(MlirOperation op);

/// Runs emb's own verifier on every emb op nested in `op` (including `op`
/// itself): element types, shapes that must agree, attribute values. Each
/// violation is emitted as an error at the op's location, naming the operand.
/// Returns failure if any op is invalid. MLIR's structural verifier (IRDL
/// constraints) is mlirOperationVerify; this checks what IRDL cannot.
MlirLogicalResult embVerify(MlirOperation op);

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// Receives the remarks emb's passes make (a pass that declines to rewrite
/// says why). The C API has no remark emission, so remarks bypass MLIR's
/// diagnostic engine and come here; without a handler they are dropped.
typedef void (*EmbRemarkHandler)(MlirLocation loc, const char *message,
                                 void *userData);

/// Installs the process-wide remark handler (NULL to drop remarks).
void embSetRemarkHandler(EmbRemarkHandler handler, void *userData);

/// Writes "file:line:col" of the innermost file location in `loc` into `buf`
/// ("<unknown>" if there is none); returns what snprintf returns.
int embFormatLocation(MlirLocation loc, char *buf, size_t size);

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

/// Called with a complete, human-readable error message.
typedef void (*EmbErrorCallback)(const char *message, void *userData);

/// Creates the pass registered under `name` (e.g. "emb-pad-k") with `options`
/// in MLIR's textual form without braces ("align=8"; empty for defaults). On
/// an unknown name or a bad option returns a null pass and reports why
/// through `onError`.
MlirPass embCreatePass(const char *name, MlirStringRef options,
                       EmbErrorCallback onError, void *userData);

/// The emb-verify pass: runs embVerify on the module and fails the pipeline
/// if it reports an error.
MlirPass embCreateVerifyPass(void);

/// Parses a textual pass pipeline that may mix emb's passes and pipelines
/// (with {options}) and any upstream pass, and appends it to `pm`. Accepts
/// MLIR's syntax: comma-separated elements, `op-name(...)` nesting, an
/// optional outer `builtin.module(...)`. When `verifyEach` is true, emb-verify
/// runs after every top-level element. Reports errors through `onError`.
MlirLogicalResult embAddPassPipeline(MlirOpPassManager pm,
                                     MlirStringRef pipeline, bool verifyEach,
                                     EmbErrorCallback onError, void *userData);

/// What the registry holds: a pass, or a named pipeline of passes.
typedef enum EmbPassKind {
  EMB_PASS_KIND_PASS = 0,
  EMB_PASS_KIND_PIPELINE = 1,
} EmbPassKind;

/// One registry entry, for listing: name (the flag without `--`), summary,
/// options help (one line per option, "name=<int>: what it sets (default
/// 0)"; "" if none), kind.
typedef struct EmbPassInfo {
  const char *name;
  const char *summary;
  const char *options;
  EmbPassKind kind;
} EmbPassInfo;

/// Number of registered emb passes and pipelines.
intptr_t embGetNumPasses(void);

/// Entry `i` of the registry, 0 <= i < embGetNumPasses(), in listing order.
EmbPassInfo embGetPassInfo(intptr_t i);

//===----------------------------------------------------------------------===//
// Code generation
//===----------------------------------------------------------------------===//

/// Where compiled code runs: the runtime context it is given decides the
/// device; the target selects launch configurations and is recorded on the
/// lowered functions (`emb.target`).
typedef enum EmbTarget {
  EMB_TARGET_CPU = 0,
  EMB_TARGET_CUDA = 1,
} EmbTarget;

/// emb-lower-to-runtime{target=cpu|cuda}: every function becomes calls into
/// the runtime on buffers (include/emb/compiled.h). A function
/// `(tensors...) -> (tensors...)` becomes
/// `(!llvm.ptr ctx, memrefs..., result memrefs...) -> ()` with
/// `llvm.emit_c_interface`; results are written into the trailing memrefs.
/// On the cpu target a function with ops the runtime has no call for
/// (linalg, scf, cf.assert, ...) keeps them at the tensor level, with its emb
/// ops as runtime calls on buffers among them, for the bufferization and
/// lowering passes of emb-lower-to-llvm; the cuda target refuses such ops.
/// The upstream ops the lowering creates (bufferization, memref, scf,
/// linalg, llvm) must be loadable in the context (embRegisterDialects).
MlirPass embCreateLowerToRuntimePass(EmbTarget target);

/// Describes entry function `func` (a func.func at the tensor level, before
/// lowering) for a runner: each input's and result's dtype and shape, and
/// what each input holds (ids with their valid range, offsets, a
/// cand_to_user index, ...) so that random inputs are valid. `out->invoke`
/// is left NULL and `out->target` "cpu". Fails if an argument or result is
/// not a ranked tensor with a runtime element type. Free with
/// embModelSpecDestroy.
MlirLogicalResult embDescribeEntry(MlirOperation func, EmbModelSpec *out);

/// Frees what embDescribeEntry allocated.
void embModelSpecDestroy(EmbModelSpec *spec);

/// A module JIT-compiled in this process, with the runtime bound.
typedef struct EmbJit EmbJit;

/// JIT-compiles `module`, which must be in the LLVM dialect (run
/// emb-lower-to-llvm first), and binds the runtime ABI symbols. Returns NULL
/// and reports through `onError` on failure. `module` must outlive the JIT.
EmbJit *embJitCreate(MlirModule module, int optLevel, EmbErrorCallback onError,
                     void *userData);

/// The packed entry of lowered function `function` (see EmbPackedFn), or
/// NULL if there is none.
EmbPackedFn embJitLookup(EmbJit *jit, const char *function);

/// Destroys a JIT (NULL is allowed).
void embJitDestroy(EmbJit *jit);

/// Writes `module` (in the LLVM dialect) as a position-independent object
/// file for this machine's architecture and a generic CPU, so that it links
/// on other machines of the architecture (embExportEntries says what it
/// exports). A failure to write the file (a full disk) is reported.
MlirLogicalResult embEmitObjectFile(MlirModule module, const char *path,
                                    EmbErrorCallback onError, void *userData);

/// The prefix emb-compile gives the C names of compiled entries.
#define EMB_DEFAULT_SYMBOL_PREFIX "emb_"

/// True if `prefix` begins a C identifier (letters, digits and '_', not a
/// digit first, not empty).
bool embIsSymbolPrefix(const char *prefix);

/// Makes `module` (lowered to the LLVM dialect) export the entries `names`
/// (at most 8) alone: the C interface of entry `f` (`_mlir_ciface_f`, which
/// takes memref descriptors) is renamed `<prefix>f`, and every other
/// function the module defines becomes internal, so that an object of a
/// model named `main` (torch-mlir's name for every model) links into a
/// program. Fails, reporting why, on a prefix that does not begin a C
/// identifier, an entry whose C name is not one, or a name taken.
MlirLogicalResult embExportEntries(MlirModule module, const char *const *names,
                                   int numNames, const char *prefix,
                                   EmbErrorCallback onError, void *userData);

/// Writes a C header that declares the entries `specs` of an object file
/// exported with `prefix` (embExportEntries): `void <prefix><name>(...)`,
/// and describes each (static const EmbModelSpec <prefix>model_<name>, with
/// an invoke wrapper), plus <PREFIX>MODEL_LIST listing them (and
/// EMB_MODEL_LIST, if not defined yet, naming it). Every name it defines
/// starts with the prefix, its include guard too.
MlirLogicalResult embEmitHeader(const EmbModelSpec *specs, int numSpecs,
                                const char *prefix, const char *path,
                                EmbErrorCallback onError, void *userData);

/// Writes the C source that a shared object of the entries `specs`
/// (exported with `prefix`) is linked with to describe itself
/// (emb-compile --shared): `const EmbSharedModel <prefix>models` listing
/// `const EmbModelSpec <prefix>model_<name>` per entry, each with an invoke
/// wrapper of `<prefix><name>`, in the layout of EMB_SHARED_MODEL_VERSION.
/// It includes no emb header (only <stdint.h>), so that it compiles where
/// emb's headers are not installed.
MlirLogicalResult embEmitSharedDescriptor(const EmbModelSpec *specs,
                                          int numSpecs, const char *prefix,
                                          const char *path,
                                          EmbErrorCallback onError,
                                          void *userData);

//===----------------------------------------------------------------------===//
// Passes: in-kernel broadcast (emb-ikbo) and table batching
//===----------------------------------------------------------------------===//

/// emb-sink-broadcast: moves emb.broadcast below ops that act on each batch
/// row alone (elementwise arith/math, emb.lce, emb.attention, tensor.concat
/// and reshapes that keep dim 0, another broadcast), so they run on user
/// rows. Broadcasts by different cand_to_user values are never merged.
MlirPass embCreateSinkBroadcastPass(void);

/// emb-fuse-broadcast: folds broadcasts into the ops that mix user and
/// candidate data: emb.lce of a concat of user and candidate pieces becomes
/// emb.ikbo_lce, emb.attention on broadcast keys and values becomes
/// emb.ikbo_attention, arith.addf of a broadcast becomes emb.broadcast_add.
MlirPass embCreateFuseBroadcastPass(void);

/// Options of emb-pad-k, the fields of its {align copy-limit} options. Start
/// from embPadKOptionsDefault(): `structSize` versions the struct.
typedef struct EmbPadKOptions {
  size_t structSize; ///< sizeof(EmbPadKOptions)
  int64_t align;     ///< 0..65536 elements; 0 (default): 16 bytes' worth
  int64_t copyLimit; ///< 0..2^30 MiB: the largest operand copied to pad it
} EmbPadKOptions;

/// The default emb-pad-k options (align 0, copy-limit 64).
EmbPadKOptions embPadKOptionsDefault(void);

/// emb-pad-k{align copy-limit}: pads K of emb.lce and emb.ikbo_lce (Ku and
/// Kc) with zeros to a multiple of `align` elements; 0 picks 16 bytes' worth
/// of the element type (8 for f16/bf16, 4 for f32). A K whose padding would
/// copy an operand larger than `copyLimit` MiB, or that is dynamic, is left
/// alone with a remark (see embSetRemarkHandler). `options` may be NULL for
/// the defaults. Returns a null pass and reports through `onError` if an
/// option is out of range or `structSize` is wrong.
MlirPass embCreatePadKPass(const EmbPadKOptions *options,
                           EmbErrorCallback onError, void *userData);

/// emb-batch-tables: turns emb.embedding_bag ops over one batch in one block
/// into one emb.tbe, giving each result back as its slice of the TBE output.
MlirPass embCreateBatchTablesPass(void);

/// Options of the emb-ikbo pipeline. Start from embIkboOptionsDefault():
/// `structSize` versions the struct.
typedef struct EmbIkboOptions {
  size_t structSize; ///< sizeof(EmbIkboOptions)
  int64_t align;     ///< emb-pad-k's align; 0: 16 bytes' worth
  bool verifyEach;   ///< run emb-verify after every pass of the pipeline
} EmbIkboOptions;

/// The default emb-ikbo options (align 0, no verification between passes).
EmbIkboOptions embIkboOptionsDefault(void);

/// Appends the emb-ikbo pipeline (emb-sink-broadcast, emb-fuse-broadcast,
/// emb-pad-k, canonicalize, cse) to `pm`, an op pass manager on
/// builtin.module; the same pipeline as `emb-ikbo` in embAddPassPipeline.
/// `options` may be NULL for the defaults. The upstream passes are found by
/// name, so MLIR's passes must be registered (embRegisterDialects or
/// embContextCreate does it). Reports bad options through `onError`.
MlirLogicalResult embAddIkboPipeline(MlirOpPassManager pm,
                                     const EmbIkboOptions *options,
                                     EmbErrorCallback onError, void *userData);

//===----------------------------------------------------------------------===//
// Sharding plans (docs/sharding.md)
//===----------------------------------------------------------------------===//

/// The world size of the sharding plans of the emb.tbe and emb.tbe_backward
/// ops in `func`
/// (written by emb-plan-sharding or by hand), 0 when none has one, -1 when
/// two disagree. emb-run --ranks asks it of the function it runs.
int64_t embShardingWorldSize(MlirOperation func);

/// Where argument `arg` of rank `rank`'s program of `func` (what
/// emb-shard{rank} makes of it) lies in `func`'s own argument: rows
/// [offsets[0], offsets[0] + sizes[0]) and columns [offsets[1], offsets[1] +
/// sizes[1]) of the table, when the argument is a table of a plan or an
/// optimizer state of one (sizes[0] is 0 where the rank holds none of it; a
/// state of one value a row has sizes[1] 1); false for any other argument,
/// which every rank is passed whole. A runner cuts each rank's tables with
/// it.
bool embShardArgumentWindow(MlirOperation func, int64_t rank, intptr_t arg,
                            int64_t offsets[2], int64_t sizes[2]);

EMB_EXPORTS_END

#ifdef __cplusplus
}
#endif

#endif // EMB_EMB_H

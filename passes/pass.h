//===- passes/pass.h - How emb's passes and pipelines are made ---*- C -*-===//
//
// Every pass and named pipeline is one file (passes/, or codegen/ for the
// lowerings) that defines an EmbPassDef: its flag, summary and anchor, its
// options as a table (EmbPassOption rows over its options struct), and either
// a run callback (a pass) or a build callback (a pipeline). From the table,
// pass.c parses `{key=value ...}` options, fills the defaults, checks what a
// C constructor was given and writes the help text; embMakePass turns a
// definition and an options struct into an MlirPass; an EmbPipelineBuilder
// adds passes, pipelines and upstream passes to a pass manager.
//
// passes/ does not know codegen/: the registry of every pass by name and the
// textual pipeline parser sit above both, in codegen/ (registry.c,
// pipeline_parser.c). A pipeline adds the passes it is made of through their
// definitions, not by name.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_PASSES_PASS_H
#define EMB_PASSES_PASS_H

#include "emb/emb.h"

#include "mlir-c/Pass.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// What an option's value is.
typedef enum EmbOptionKind {
  EMB_OPTION_INT,  ///< a decimal integer in [min, max]
  EMB_OPTION_ENUM, ///< one of `choices`; stored as its index
  /// free text (a list the pass parses itself), stored NUL-terminated in a
  /// char[EMB_OPTION_TEXT_SIZE] field; `choices` names its form in --help
  EMB_OPTION_TEXT,
} EmbOptionKind;

/// The bytes of an EMB_OPTION_TEXT field, with its NUL.
enum { EMB_OPTION_TEXT_SIZE = 256 };

/// One option of a pass or pipeline, `name=value` inside its {braces}: one
/// int64_t field of its options struct (a char array for EMB_OPTION_TEXT).
typedef struct EmbPassOption {
  const char *name; ///< "copy-limit"
  EmbOptionKind kind;
  size_t offset;            ///< offsetof the field
  const char *defaultValue; ///< as written in a pipeline: "64", "cpu"
  int64_t min, max;         ///< EMB_OPTION_INT: the values accepted
  const char *choices;      ///< EMB_OPTION_ENUM: "cpu|cuda"
  const char *help;         ///< what it sets; the default is appended
} EmbPassOption;

/// The options of a pass or pipeline: rows over a struct of `structSize`
/// bytes. Two definitions may share one (a pipeline that hands its options
/// to a pass).
typedef struct EmbOptionTable {
  const EmbPassOption *rows;
  size_t numRows;
  size_t structSize;
} EmbOptionTable;

/// The number of rows of an array of EmbPassOption.
#define EMB_NUM_OPTIONS(rows) (sizeof(rows) / sizeof((rows)[0]))

//===----------------------------------------------------------------------===//
// Definitions
//===----------------------------------------------------------------------===//

typedef struct EmbPipelineBuilder EmbPipelineBuilder;

/// The definition of one pass or named pipeline.
typedef struct EmbPassDef {
  const char *argument; ///< the flag and pipeline name: "emb-pad-k"
  const char *name;     ///< passes: a CamelCase name, "EmbPadK"
  const char *summary;  ///< one line for --list-passes
  EmbPassKind kind;
  /// The op a pass runs on ("builtin.module"), or "" for any op.
  const char *anchor;
  /// The options (NULL: none).
  const EmbOptionTable *options;
  /// Passes: runs on `op`; `options` points at the options struct. Signals
  /// failure with mlirExternalPassSignalFailure(pass).
  void (*run)(MlirOperation op, MlirExternalPass pass, const void *options);
  /// Pipelines: adds the pipeline's passes to `b` (reporting any error).
  MlirLogicalResult (*build)(EmbPipelineBuilder *b, const void *options);
} EmbPassDef;

/// The size of `def`'s options struct (0 without options).
size_t embPassOptionsSize(const EmbPassDef *def);

/// Makes a pass of `def` with a copy of its options struct `options`.
MlirPass embMakePass(const EmbPassDef *def, const void *options);

/// Sets every option of `def` in `options` to its default.
void embDefaultPassOptions(const EmbPassDef *def, void *options);

/// Sets `options` to the defaults, then parses `text` ("key=value ...", a
/// value may be "quoted") into it. Reports a malformed pair, an unknown key
/// or a bad value through `onError` and returns false.
bool embParsePassOptions(const EmbPassDef *def, MlirStringRef text,
                         void *options, EmbErrorCallback onError,
                         void *userData);

/// What C constructor `function` does with the public options struct
/// `given` (a `typeName` whose first field is `size_t structSize`): NULL
/// leaves `*out` as it is (the defaults); else checks its structSize and
/// every value against the table and copies it into `*out`. Reports
/// "function: align must be in 0..65536, got -4" (or a wrong structSize)
/// and returns false.
bool embTakePassOptions(const EmbPassDef *def, const void *given, void *out,
                        const char *function, const char *typeName,
                        EmbErrorCallback onError, void *userData);

/// Writes the help of `def`'s options into `buf`, one line per option
/// ("align=<int>: ... (default 0)"), "" if it has none.
void embFormatPassOptionsHelp(const EmbPassDef *def, char *buf, size_t size);

/// Reports a printf-style message through `onError` (if set).
void embReportf(EmbErrorCallback onError, void *userData, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

//===----------------------------------------------------------------------===//
// Building pipelines
//===----------------------------------------------------------------------===//

/// Where passes go: a pass manager nested on `anchor`, with emb-verify after
/// every element when `verifyEach` is set.
struct EmbPipelineBuilder {
  MlirOpPassManager pm;
  const char *anchor; ///< the op `pm` runs on: "builtin.module", "func.func"
  bool verifyEach;
  EmbErrorCallback onError;
  void *userData;
};

/// Adds pass or pipeline `def` with `options` (NULL: the defaults). A pass
/// whose anchor is not the builder's is refused with an error.
MlirLogicalResult embPipelineAdd(EmbPipelineBuilder *b, const EmbPassDef *def,
                                 const void *options);

/// Adds an upstream element as MLIR's own pipeline parser reads it
/// ("canonicalize", "cse{...}"); reports MLIR's reason if it refuses it.
MlirLogicalResult embPipelineAddUpstream(EmbPipelineBuilder *b,
                                         MlirStringRef element);

/// Adds upstream `canonicalize` and `cse`: the cleanup that ends emb's
/// pipelines (folding what the rewrites left, merging equal values).
MlirLogicalResult embPipelineAddCleanup(EmbPipelineBuilder *b);

//===----------------------------------------------------------------------===//
// The passes and pipelines of passes/
//===----------------------------------------------------------------------===//

extern const EmbPassDef embVerifyPassDef;            // verify.c
extern const EmbPassDef embSinkBroadcastPassDef;     // sink_broadcast.c
extern const EmbPassDef embFuseBroadcastPassDef;     // fuse_broadcast.c
extern const EmbPassDef embPadKPassDef;              // pad_k.c
extern const EmbPassDef embIkboPipelineDef;          // ikbo.c
extern const EmbPassDef embBatchTablesPassDef;       // batch_tables.c
extern const EmbPassDef embRaiseEmbeddingBagPassDef; // raise_embedding_bag.c
extern const EmbPassDef embRaiseGatherPassDef;       // raise_gather.c
extern const EmbPassDef embRaiseLcePassDef;          // raise_lce.c
extern const EmbPassDef embRaiseBroadcastPassDef;    // raise_broadcast.c
extern const EmbPassDef embRaiseAttentionPassDef;    // raise_attention.c
extern const EmbPassDef embComputeTypePassDef;       // compute_type.c
extern const EmbPassDef embRaisePipelineDef;         // raise.c
extern const EmbPassDef embEraseDeadPassDef;         // erase_dead.c
extern const EmbPassDef embFromTorchPipelineDef;     // from_torch.c
extern const EmbPassDef embShardPassDef;             // shard.c
extern const EmbPassDef embPlanShardingPassDef;      // plan_sharding.c
extern const EmbPassDef embQuantizeTablesPassDef;    // quantize_tables.c

/// emb-ikbo's options (the fields of EmbIkboOptions), which emb-from-torch
/// takes too.
extern const EmbOptionTable embIkboOptions;

/// The largest emb-pad-k (and emb-ikbo) align, in elements.
enum { EMB_PAD_K_MAX_ALIGN = 1 << 16 };

#ifdef __cplusplus
}
#endif

#endif // EMB_PASSES_PASS_H

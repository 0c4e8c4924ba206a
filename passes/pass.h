//===- passes/pass.h - How emb's passes are made and registered --*- C -*-===//
//
// Every pass is one file in passes/ (or codegen/ for lowerings) that defines
// an EmbPassDef: its flag, summary, anchor op and run callback, plus a
// registry entry that parses its {options}. embMakePass turns a definition
// and an options struct into an MlirPass through mlirCreateExternalPass,
// deep-copying the options for every clone the pass manager makes.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_PASSES_PASS_H
#define EMB_PASSES_PASS_H

#include "emb/emb.h"

#include "mlir-c/Pass.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The definition of one pass.
typedef struct EmbPassDef {
  const char *argument; ///< the flag and pipeline name: "emb-pad-k"
  const char *name;     ///< a CamelCase name: "EmbPadK"
  const char *summary;  ///< one line for --list-passes
  /// The op the pass runs on ("builtin.module"), or "" for any op.
  const char *anchor;
  /// Runs on `op`; `options` points at the pass's options struct. Signals
  /// failure with mlirExternalPassSignalFailure(pass).
  void (*run)(MlirOperation op, MlirExternalPass pass, const void *options);
  size_t optionsSize;
} EmbPassDef;

/// Makes a pass of `def` with a copy of `options` (optionsSize bytes).
MlirPass embMakePass(const EmbPassDef *def, const void *options);

/// Makes a pass of `def`, which takes no options, from its textual options:
/// any option is reported through `onError` and gives a null pass.
MlirPass embMakePassWithoutOptions(const EmbPassDef *def, MlirStringRef options,
                                   EmbErrorCallback onError, void *userData);

/// One entry of the registry: a pass or a named pipeline.
typedef struct EmbRegistryEntry {
  const char *name;
  const char *summary;
  const char *optionsHelp; ///< "align=<int>: ..." or ""
  EmbPassKind kind;
  /// The anchor a pass needs ("builtin.module" or "" for any op).
  const char *anchor;
  /// Passes: parses `options` and makes the pass, or reports and returns null.
  MlirPass (*create)(MlirStringRef options, EmbErrorCallback onError,
                     void *userData);
  /// Pipelines: writes the textual pipeline `options` select into `buf`;
  /// returns false (after reporting) on bad options.
  bool (*expand)(MlirStringRef options, char *buf, size_t size,
                 EmbErrorCallback onError, void *userData);
} EmbRegistryEntry;

/// Finds a registry entry by name (NUL-terminated or `len` bytes).
const EmbRegistryEntry *embLookupPass(const char *name, size_t len);

/// Reports a printf-style message through `onError` (if set).
void embReportf(EmbErrorCallback onError, void *userData, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

//===----------------------------------------------------------------------===//
// Options: "key=value key2=value2", as inside MLIR's pass {braces}
//===----------------------------------------------------------------------===//

/// Reads the next key=value pair from `*rest` into `key` and `value`
/// (a value may be quoted "..."), advancing `*rest`. Returns 0 at the end, 1
/// for a pair, -1 for a malformed pair (reported through onError with
/// `passName`).
int embNextOption(MlirStringRef *rest, char *key, size_t keySize, char *value,
                  size_t valueSize, const char *passName,
                  EmbErrorCallback onError, void *userData);

/// Parses a decimal integer option value in [lo, hi]; reports and returns
/// false otherwise.
bool embParseIntOption(const char *passName, const char *key, const char *value,
                       long long lo, long long hi, long long *out,
                       EmbErrorCallback onError, void *userData);

/// Reports an unknown option, listing the known ones.
void embUnknownOption(const char *passName, const char *key, const char *known,
                      EmbErrorCallback onError, void *userData);

//===----------------------------------------------------------------------===//
// The registered passes
//===----------------------------------------------------------------------===//

extern const EmbRegistryEntry embVerifyEntry;
extern const EmbRegistryEntry embSinkBroadcastEntry;  // sink_broadcast.c
extern const EmbRegistryEntry embFuseBroadcastEntry;  // fuse_broadcast.c
extern const EmbRegistryEntry embPadKEntry;           // pad_k.c
extern const EmbRegistryEntry embIkboEntry;           // ikbo.c (a pipeline)
extern const EmbRegistryEntry embBatchTablesEntry;    // batch_tables.c
extern const EmbRegistryEntry embLowerToRuntimeEntry; // codegen/
extern const EmbRegistryEntry embLowerToLlvmEntry;    // codegen/

#ifdef __cplusplus
}
#endif

#endif // EMB_PASSES_PASS_H

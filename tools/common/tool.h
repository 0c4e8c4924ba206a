//===- tools/common/tool.h - What emb's command-line tools share -*- C -*-===//
//
// Reading an input, printing MLIR diagnostics the way mlir-opt does (with the
// source line and a caret), parsing a buffer into a module with a clear
// error where MLIR's parser gives none, running a pass pipeline on it and
// finding its entry function. emb-opt, emb-run and emb-compile use
// it, and the crash report (crash.h): reading names the input in it,
// parsing and running a pipeline name themselves as the stage.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TOOLS_COMMON_TOOL_H
#define EMB_TOOLS_COMMON_TOOL_H

#include "crash.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

/// One input file (or stdin), kept whole for quoting source lines.
typedef struct EmbToolSource {
  const char *name; ///< as given, or "<stdin>"
  char *text;
  size_t size;
  int errors; ///< errors reported so far
} EmbToolSource;

/// Reads `path` ("-" for stdin). Returns 0, or -1 after printing
/// "<tool>: error: ..." to stderr (a file that cannot be opened or read, a
/// directory).
int embToolRead(const char *tool, const char *path, EmbToolSource *src);

/// emb's context (embContextCreate); with `allowUnregistered`, as mlir-opt's
/// --allow-unregistered-dialect, ops of dialects emb does not load
/// (torch-mlir's tm_tensor) parse in generic form. Null if emb's dialect
/// cannot be loaded.
MlirContext embToolCreateContext(bool allowUnregistered);

/// Prints "file:line:col: <severity>: message", the source line and a caret.
/// `diag` (if set) supplies the message, else `text`.
void embToolPrintDiagnostic(EmbToolSource *src, MlirLocation loc,
                            const char *severity, MlirDiagnostic *diag,
                            const char *text);

/// Sends the context's diagnostics and emb's remarks to stderr through
/// embToolPrintDiagnostic, counting errors in `src`.
MlirDiagnosticHandlerID embToolAttachDiagnostics(MlirContext ctx,
                                                 EmbToolSource *src);

/// Parses `text` (part of `src`, padded so its lines match the file) into a
/// module whose locations name the file. On failure reports an error with a
/// location (a custom syntax of an emb op is named) and returns a null
/// module.
MlirModule embToolParse(MlirContext ctx, EmbToolSource *src, const char *text);

/// An EmbErrorCallback that prints "<tool>: error: message" to stderr;
/// `tool` (userData) is the tool's name.
void embToolReportError(const char *message, void *tool);

/// Runs textual `pipeline` (emb and upstream passes) on `module`, verifying
/// after every pass; errors are printed as "<tool>: error: ...". Returns 0
/// on success, 1 on failure.
int embToolRunPipeline(const char *tool, MlirModule module,
                       const char *pipeline);

/// The func.func of `module` named `name`, or (name NULL) the first public
/// one with a body; a null op if there is none.
MlirOperation embToolFindEntry(MlirModule module, const char *name);

/// The name `src` gives function argument `arg` (`%table`), read at the
/// argument's location; NULL where it has none there. The caller frees it.
char *embToolArgumentName(const EmbToolSource *src, MlirValue arg);

#endif // EMB_TOOLS_COMMON_TOOL_H

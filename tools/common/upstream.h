//===- tools/common/upstream.h - Input that crashes MLIR 22 ------*- C -*-===//
//
// Some inputs crash MLIR 22 itself, inside its parser or an upstream op's
// verifier, which the parser runs before emb sees the module: stock
// mlir-opt-22 dies with SIGSEGV on each of them. emb cannot fix LLVM, but its
// tools own the input: a scan of the source text before parsing finds
// these forms and the tools reject them with an error at their location.
// The scan skips comments and string literals and reads both the custom
// and the generic form of an op.
//
//   - array<index: ...>: the dense-array parser asks `index` for its bit
//     width (llvm/llvm-project#179045, fixed upstream after 22.1).
//   - tensor.concat with a negative dim (dim(-1), or dim = -1 in the
//     generic form): ConcatOp::verify indexes the shape with it.
//   - tensor.expand_shape, memref.expand_shape or memref.collapse_shape
//     with an empty reassociation group ([[0, 1], []]): the verifiers build
//     an affine map from no expressions (llvm/llvm-project#222602 for
//     tensor, #225348 for memref, both open). tensor.collapse_shape already
//     rejects it upstream.
//   - linalg.transpose (permutation = ...), linalg.broadcast and
//     linalg.reduce (dimensions = ...) in custom form, where the list is
//     not a bracketed list of i64 literals: their parsers store the
//     dense-array parser's null result (llvm/llvm-project#132747, open).
//   - linalg.broadcast with a dimension named twice (either form): its
//     verifier reads past the input's shape (#211203, fixed after 22).
//   - linalg.batch_matmul, linalg.batch_reduce_matmul in custom form with
//     element types its region builder cannot cast between (index, a
//     complex input into a result that is not complex, a vector): it uses
//     the failed cast's null value (related: #179677).
//
//   - tensor.from_elements in custom form whose result type has another
//     element count than it has operands: the parser makes a list of that
//     many types before it compares (SmallVector aborts past 2^32).
//   - dense_resource<name> : tensor<...> needing more bytes than the blob
//     `name` holds: MLIR does not compare them, and its C API's element
//     reads (which emb's lowering of the constant uses) run past the blob.
//
//   - brackets ( [ { nested deeper than EMB_TOOL_MAX_NESTING: MLIR's
//     parser recurses once per level and overflows the stack between 2,000
//     (regions) and 10,000 (array attributes) levels with 8 MiB of stack;
//     passes and the printer recurse on regions too. Real IR nests a few
//     dozen levels.
//
// Others parse and verify, but crash a pass that emb's pipelines run; a
// walk over the parsed module finds them before any pass does:
//
//   - a reshape (tensor or memref expand_shape or collapse_shape) whose
//     reassociation does not name the dims of its higher-rank type 0, 1, ...
//     in order: tensor.expand_shape's verifier reads each index in 32 bits
//     (2^53 passes as 0) and canonicalize crashes on the whole index
//     (mlir-opt-22 --canonicalize too).
//   - tensor.dim or memref.dim with a constant index that is not a dim of
//     its operand (MLIR leaves the result undefined): canonicalize crashes
//     on a negative one under emb's tools (mlir-opt-22 --canonicalize, which
//     loads only the dialects the input names, keeps the op).
//
// Each has a reduced test in test/Tools/upstream/ that says what
// mlir-opt-22 does with it. Anything else that crashes MLIR is named by the
// crash report (crash.h) as a crash while parsing.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TOOLS_COMMON_UPSTREAM_H
#define EMB_TOOLS_COMMON_UPSTREAM_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>

/// The deepest nesting of ( [ { the tools accept.
enum { EMB_TOOL_MAX_NESTING = 1000 };

/// Where the first such form is, and the error to report there.
typedef struct EmbUpstreamCrash {
  unsigned line, col; ///< 1-based, in `text`
  char message[512];
} EmbUpstreamCrash;

/// Scans `text` for a form that crashes MLIR 22's parser or verifiers.
/// Returns true and fills `out` for the first one found.
bool embToolFindUpstreamCrash(const char *text, size_t size,
                              EmbUpstreamCrash *out);

/// Walks the parsed `module` for an op that parses and verifies but crashes
/// MLIR 22's passes. Returns true with the op in `at` and the error to
/// report there in `message`.
bool embToolFindUpstreamCrashOp(MlirModule module, MlirOperation *at,
                                char *message, size_t size);

#endif // EMB_TOOLS_COMMON_UPSTREAM_H

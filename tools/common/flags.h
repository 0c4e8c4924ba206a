//===- tools/common/flags.h - Integer values of command-line flags -*- C
//-*-===//
//
// One reading of an integer flag value for every tool (emb-run, the AOT
// runner): the whole text must be a decimal integer in the flag's range.
// strtol and strtoull alone accept an empty value as 0, a leading space or
// sign anywhere, and an out-of-range value clamped (or, for strtoull, a
// negative one wrapped): `--seed 99999999999999999999999` would run as
// seed 2^64 - 1. Needs no MLIR: the AOT runner has it too.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TOOLS_COMMON_FLAGS_H
#define EMB_TOOLS_COMMON_FLAGS_H

#include <stdbool.h>
#include <stdint.h>

/// Reads `text` as a signed decimal integer (an optional '-', then digits,
/// nothing else) in [lo, hi] into `*out`. False, with `*out` untouched, if
/// it is not one or is out of range.
bool embParseFlagInt(const char *text, int64_t lo, int64_t hi, int64_t *out);

/// Reads `text` as an unsigned decimal integer (digits only: no sign) of at
/// most `hi` into `*out`. False, with `*out` untouched, otherwise.
bool embParseFlagUnsigned(const char *text, uint64_t hi, uint64_t *out);

#endif // EMB_TOOLS_COMMON_FLAGS_H

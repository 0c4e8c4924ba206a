//===- tools/common/flags.c - Integer values of command-line flags --------===//

#include "flags.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

/// True if `p` is one or more decimal digits and nothing else.
static bool allDigits(const char *p) {
  if (!*p)
    return false;
  for (; *p; ++p)
    if (!isdigit((unsigned char)*p))
      return false;
  return true;
}

bool embParseFlagInt(const char *text, int64_t lo, int64_t hi, int64_t *out) {
  if (!text || !allDigits(text[0] == '-' ? text + 1 : text))
    return false;
  errno = 0;
  long long v = strtoll(text, NULL, 10);
  if (errno == ERANGE || v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

bool embParseFlagUnsigned(const char *text, uint64_t hi, uint64_t *out) {
  if (!text || !allDigits(text))
    return false;
  errno = 0;
  unsigned long long v = strtoull(text, NULL, 10);
  if (errno == ERANGE || v > hi)
    return false;
  *out = v;
  return true;
}

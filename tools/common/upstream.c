//===- tools/common/upstream.c - Input that crashes MLIR 22 ---------------===//

#include "upstream.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

//===----------------------------------------------------------------------===//
// A cursor over the source text
//===----------------------------------------------------------------------===//

typedef struct {
  const char *p, *end;
  unsigned line, col;
} Cursor;

static bool atEnd(const Cursor *c) { return c->p >= c->end; }

static char peek(const Cursor *c, size_t ahead) {
  return c->p + ahead < c->end ? c->p[ahead] : '\0';
}

static void step(Cursor *c) {
  if (atEnd(c))
    return;
  if (*c->p == '\n')
    ++c->line, c->col = 1;
  else
    ++c->col;
  ++c->p;
}

static bool isIdentChar(char ch) {
  return isalnum((unsigned char)ch) || ch == '_' || ch == '.' || ch == '$';
}

/// Skips a string literal at '"' (escapes included) or a comment at "//".
/// Returns false if there is neither.
static bool skipStringOrComment(Cursor *c) {
  if (peek(c, 0) == '/' && peek(c, 1) == '/') {
    while (!atEnd(c) && *c->p != '\n')
      step(c);
    return true;
  }
  if (peek(c, 0) != '"')
    return false;
  step(c);
  while (!atEnd(c) && *c->p != '"' && *c->p != '\n') {
    if (*c->p == '\\')
      step(c);
    step(c);
  }
  step(c);
  return true;
}

/// Skips spaces, newlines and comments.
static void skipTrivia(Cursor *c) {
  while (!atEnd(c)) {
    if (isspace((unsigned char)*c->p))
      step(c);
    else if (peek(c, 0) == '/' && peek(c, 1) == '/')
      skipStringOrComment(c);
    else
      break;
  }
}

/// Whether `word` (an identifier) starts at the cursor and ends there.
static bool atWord(const Cursor *c, const char *word) {
  size_t n = strlen(word);
  return (size_t)(c->end - c->p) >= n && !strncmp(c->p, word, n) &&
         !isIdentChar(peek(c, n));
}

static void skipWord(Cursor *c) {
  while (!atEnd(c) && isIdentChar(*c->p))
    step(c);
}

static bool report(EmbUpstreamCrash *out, const Cursor *at, const char *fmt,
                   ...) __attribute__((format(printf, 3, 4)));

static bool report(EmbUpstreamCrash *out, const Cursor *at, const char *fmt,
                   ...) {
  out->line = at->line;
  out->col = at->col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out->message, sizeof out->message, fmt, ap);
  va_end(ap);
  return true;
}

//===----------------------------------------------------------------------===//
// The forms
//===----------------------------------------------------------------------===//

/// array<index ...> at the cursor (on "array").
static bool checkDenseArray(Cursor c, EmbUpstreamCrash *out) {
  Cursor at = c;
  skipWord(&c);
  skipTrivia(&c);
  if (peek(&c, 0) != '<')
    return false;
  step(&c);
  skipTrivia(&c);
  if (!atWord(&c, "index"))
    return false;
  return report(out, &at,
                "array<index: ...> is not supported: MLIR 22's dense-array "
                "parser crashes on the index element type (an upstream bug, "
                "llvm/llvm-project#179045); write array<i64: ...>");
}

/// Calls `visit` on each token of the op that starts after its name at `c`,
/// up to its type signature (a ':' outside brackets) or the end of its
/// line outside brackets: the operands, properties and attributes. `depth`
/// counts () [] {}; `square` counts [] alone.
typedef bool (*Visit)(Cursor *c, int depth, int square, void *state);

static bool scanOp(Cursor c, Visit visit, void *state) {
  int depth = 0, square = 0;
  while (!atEnd(&c)) {
    char ch = *c.p;
    if (depth == 0 && (ch == ':' || ch == '\n'))
      return false;
    if (ch == '"' || (ch == '/' && peek(&c, 1) == '/')) {
      skipStringOrComment(&c);
      continue;
    }
    if (visit(&c, depth, square, state))
      return true;
    if (ch == '(' || ch == '{' || ch == '[')
      ++depth, square += ch == '[';
    else if (ch == ')' || ch == '}' || ch == ']')
      --depth, square -= ch == ']';
    if (depth < 0)
      return false;
    if (isIdentChar(ch))
      skipWord(&c);
    else
      step(&c);
  }
  return false;
}

typedef struct {
  const char *op;
  Cursor at; ///< the op's name
  EmbUpstreamCrash *out;
  int group;           ///< reshapes: groups seen in the reassociation
  const char *keyword; ///< dense-array ops: permutation or dimensions
} OpState;

/// tensor.concat: `dim(N)` or `dim = N`, N negative (or past INT64_MAX,
/// which an i64 reads as negative).
static bool visitConcat(Cursor *c, int depth, int square, void *state) {
  OpState *s = state;
  (void)depth, (void)square;
  if (!atWord(c, "dim") ||
      (c->p > s->at.p && (isIdentChar(c->p[-1]) || c->p[-1] == '%')))
    return false;
  Cursor v = *c;
  skipWord(&v);
  skipTrivia(&v);
  if (peek(&v, 0) != '(' && peek(&v, 0) != '=')
    return false;
  step(&v);
  skipTrivia(&v);
  bool negative = peek(&v, 0) == '-';
  if (negative) {
    step(&v);
    skipTrivia(&v);
  }
  char digits[64];
  size_t n = 0;
  while (n + 1 < sizeof digits && isalnum((unsigned char)peek(&v, n)))
    digits[n] = peek(&v, n), ++n;
  digits[n] = '\0';
  if (!n || !isdigit((unsigned char)digits[0]))
    return false;
  char *end;
  errno = 0;
  unsigned long long value = strtoull(digits, &end, 0);
  if (*end != '\0')
    return false; // not a number: MLIR's parser says so
  bool tooBig = errno == ERANGE || value > (unsigned long long)INT64_MAX;
  if (!(negative && value != 0) && !tooBig)
    return false;
  return report(s->out, &s->at,
                "'tensor.concat' op dim is %s%s: it must be a dimension of "
                "the operands, 0 or more (MLIR 22's tensor.concat verifier "
                "crashes on a negative dim, an upstream bug)",
                negative ? "-" : "", digits);
}

/// Reshapes: an empty group, `[` then `]` inside the reassociation's `[`.
static bool visitReshape(Cursor *c, int depth, int square, void *state) {
  OpState *s = state;
  (void)depth;
  if (*c->p != '[' || square < 1)
    return false;
  if (square == 1)
    ++s->group;
  Cursor v = *c;
  step(&v);
  skipTrivia(&v);
  if (peek(&v, 0) != ']' || square != 1)
    return false;
  return report(s->out, &s->at,
                "'%s' op reassociation group %d is empty: every group must "
                "name at least one dimension (MLIR 22's verifier crashes on "
                "an empty group, an upstream bug)",
                s->op, s->group - 1);
}

/// The integer literal at the cursor, with its sign: whether it is one that
/// fits an i64 (decimal or hex, as MLIR's integer token), or `true` or
/// `false` (which MLIR's integer parser takes as -1 and 0). Moves past it
/// and stores its value.
static bool readI64Literal(Cursor *c, int64_t *out) {
  if (atWord(c, "true") || atWord(c, "false")) {
    *out = atWord(c, "true") ? -1 : 0;
    skipWord(c);
    return true;
  }
  bool negative = peek(c, 0) == '-';
  if (negative) {
    step(c);
    skipTrivia(c);
  }
  if (!isdigit((unsigned char)peek(c, 0)))
    return false;
  char digits[64];
  size_t n = 0;
  while (isalnum((unsigned char)peek(c, 0))) {
    if (n + 1 >= sizeof digits)
      return false;
    digits[n++] = peek(c, 0);
    step(c);
  }
  digits[n] = '\0';
  char *end;
  errno = 0;
  unsigned long long value = strtoull(digits, &end, 0);
  if (*end != '\0' || errno == ERANGE ||
      value > (unsigned long long)INT64_MAX + (negative ? 1 : 0))
    return false;
  *out = negative ? (int64_t)(0 - value) : (int64_t)value;
  return true;
}

/// A list of i64 literals up to `close` (`]` or `>`), the cursor past its
/// opening: whether it is one, its values (the first `cap`) and its length.
static bool readI64List(Cursor *c, char close, int64_t *values, size_t cap,
                        size_t *count) {
  *count = 0;
  skipTrivia(c);
  if (peek(c, 0) == close)
    return true;
  for (;;) {
    int64_t v;
    if (!readI64Literal(c, &v))
      return false;
    if (*count < cap)
      values[*count] = v;
    ++*count;
    skipTrivia(c);
    if (peek(c, 0) != ',')
      break;
    step(c);
    skipTrivia(c);
  }
  return peek(c, 0) == close;
}

enum { MAX_LISTED = 64 };

/// linalg.broadcast's dimensions with a value twice: its verifier reads an
/// input dim past the input's rank (and crashes on a rank-0 input).
static bool reportDuplicate(OpState *s, const int64_t *values, size_t n) {
  if (strcmp(s->op, "linalg.broadcast") != 0)
    return false;
  for (size_t i = 0; i < n && i < MAX_LISTED; ++i)
    for (size_t j = 0; j < i; ++j)
      if (values[i] == values[j])
        return report(s->out, &s->at,
                      "'linalg.broadcast' op dimensions has %lld twice: each "
                      "added dimension is named once (MLIR 22's "
                      "linalg.broadcast verifier reads past the input's "
                      "shape on a repeated one, an upstream bug fixed after "
                      "22, llvm/llvm-project#211203)",
                      (long long)values[i]);
  return false;
}

/// linalg.transpose, linalg.broadcast, linalg.reduce in custom form:
/// `permutation = [...]` or `dimensions = [...]` whose list is not a
/// bracketed list of i64 literals. Their parsers store the attribute the
/// dense-array parser returns without checking it, and a null one crashes.
static bool visitDenseArrayKeyword(Cursor *c, int depth, int square,
                                   void *state) {
  OpState *s = state;
  (void)square;
  const char *keyword = s->keyword;
  if (depth != 0 || !atWord(c, keyword) ||
      (c->p > s->at.p && (isIdentChar(c->p[-1]) || c->p[-1] == '%')))
    return false;
  Cursor v = *c;
  skipWord(&v);
  skipTrivia(&v);
  if (peek(&v, 0) != '=')
    return false;
  step(&v);
  skipTrivia(&v);
  int64_t values[MAX_LISTED];
  size_t n = 0;
  bool valid = peek(&v, 0) == '[';
  if (valid) {
    step(&v);
    valid = readI64List(&v, ']', values, MAX_LISTED, &n);
  }
  if (valid)
    return reportDuplicate(s, values, n);
  return report(s->out, &s->at,
                "'%s' op %s must be a list of 64-bit integers in brackets, "
                "such as [1, 0] (MLIR 22's %s parser crashes on anything "
                "else there, an upstream bug, llvm/llvm-project#132747)",
                s->op, keyword, s->op);
}

/// The generic form of linalg.broadcast: its `dimensions = array<i64: ...>`
/// property with a value twice.
static bool visitGenericBroadcast(Cursor *c, int depth, int square,
                                  void *state) {
  OpState *s = state;
  (void)square;
  if (depth < 1 || !atWord(c, "dimensions") ||
      (isIdentChar(c->p[-1]) || c->p[-1] == '%'))
    return false;
  Cursor v = *c;
  skipWord(&v);
  skipTrivia(&v);
  if (peek(&v, 0) != '=')
    return false;
  step(&v);
  skipTrivia(&v);
  if (!atWord(&v, "array"))
    return false;
  skipWord(&v);
  skipTrivia(&v);
  if (peek(&v, 0) != '<')
    return false;
  step(&v);
  skipTrivia(&v);
  if (!atWord(&v, "i64"))
    return false;
  skipWord(&v);
  skipTrivia(&v);
  if (peek(&v, 0) != ':')
    return false; // array<i64>: empty
  step(&v);
  int64_t values[MAX_LISTED];
  size_t n = 0;
  if (!readI64List(&v, '>', values, MAX_LISTED, &n))
    return false; // the generic parser reports it
  return reportDuplicate(s, values, n);
}

/// The custom forms whose parser reads a dense array with
/// parseDenseI64ArrayAttr, and the keyword before it.
static const struct {
  const char *op, *keyword;
} denseArrayOps[] = {{"linalg.transpose", "permutation"},
                     {"linalg.broadcast", "dimensions"},
                     {"linalg.reduce", "dimensions"}};

static const char *const reshapes[] = {
    "tensor.expand_shape", "memref.expand_shape", "memref.collapse_shape"};

/// An op named `name` (custom form: at its name; generic form: at the
/// quote, `after` past the closing quote).
static bool checkOp(const char *name, size_t len, Cursor at, Cursor after,
                    EmbUpstreamCrash *out) {
  OpState s = {NULL, at, out, 0, NULL};
  if (len == 13 && !strncmp(name, "tensor.concat", 13)) {
    s.op = "tensor.concat";
    return scanOp(after, visitConcat, &s);
  }
  // The custom form's list; the generic form's property is an
  // array<i64: ...> that the generic parser checks (a broadcast's repeated
  // dimension aside).
  for (size_t i = 0; i < sizeof denseArrayOps / sizeof denseArrayOps[0]; ++i)
    if (len == strlen(denseArrayOps[i].op) &&
        !strncmp(name, denseArrayOps[i].op, len)) {
      s.op = denseArrayOps[i].op;
      s.keyword = denseArrayOps[i].keyword;
      if (*at.p != '"')
        return scanOp(after, visitDenseArrayKeyword, &s);
      if (!strcmp(s.op, "linalg.broadcast"))
        return scanOp(after, visitGenericBroadcast, &s);
      return false;
    }
  for (size_t i = 0; i < sizeof reshapes / sizeof reshapes[0]; ++i) {
    if (len == strlen(reshapes[i]) && !strncmp(name, reshapes[i], len)) {
      s.op = reshapes[i];
      return scanOp(after, visitReshape, &s);
    }
  }
  return false;
}

bool embToolFindUpstreamCrash(const char *text, size_t size,
                              EmbUpstreamCrash *out) {
  Cursor c = {text, text + size, 1, 1};
  int depth = 0;
  while (!atEnd(&c)) {
    char ch = *c.p;
    if ((ch == '(' || ch == '[' || ch == '{') && ++depth > EMB_TOOL_MAX_NESTING)
      return report(out, &c,
                    "the input nests brackets more than %d deep: MLIR's "
                    "parser recurses once per level and would overflow the "
                    "stack on deep input, so emb's tools accept at most %d",
                    EMB_TOOL_MAX_NESTING, EMB_TOOL_MAX_NESTING);
    if ((ch == ')' || ch == ']' || ch == '}') && depth > 0)
      --depth;
    if (ch == '"') {
      // A generic op name is a string; so are other things, harmlessly.
      Cursor at = c;
      skipStringOrComment(&c);
      size_t len = c.p - at.p >= 2 ? (size_t)(c.p - at.p) - 2 : 0;
      if (checkOp(at.p + 1, len, at, c, out))
        return true;
      continue;
    }
    if (skipStringOrComment(&c))
      continue;
    bool boundary = c.p == text || !(isIdentChar(c.p[-1]) || c.p[-1] == '#' ||
                                     c.p[-1] == '!' || c.p[-1] == '%' ||
                                     c.p[-1] == '@' || c.p[-1] == '^');
    if (boundary && (isalpha((unsigned char)ch) || ch == '_')) {
      Cursor at = c;
      skipWord(&c);
      size_t len = (size_t)(c.p - at.p);
      if (len == 5 && !strncmp(at.p, "array", 5)) {
        if (checkDenseArray(at, out))
          return true;
      } else if (checkOp(at.p, len, at, c, out)) {
        return true;
      }
      continue;
    }
    step(&c);
  }
  return false;
}

//===- tools/common/upstream.c - Input that crashes MLIR 22 ---------------===//

#include "upstream.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

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

/// Past the word at `c`, the trivia after it, then `punct` and the trivia
/// after that: false (the cursor somewhere on the way) when `punct` does not
/// come next.
static bool skipWordThen(Cursor *c, char punct) {
  skipWord(c);
  skipTrivia(c);
  if (peek(c, 0) != punct)
    return false;
  step(c);
  skipTrivia(c);
  return true;
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
  if (!skipWordThen(&v, '='))
    return false;
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
  if (!skipWordThen(&v, '=') || !atWord(&v, "array") ||
      !skipWordThen(&v, '<') || !atWord(&v, "i64"))
    return false;
  if (!skipWordThen(&v, ':'))
    return false; // array<i64>: empty
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

/// How the linalg region builders see an element type: one they cast
/// between (integers and floats), complex (cast only to complex), or one
/// they cannot cast (index, vectors, anything else).
typedef enum { ELEM_NUMBER, ELEM_COMPLEX, ELEM_OTHER } ElemClass;

static ElemClass classifyElement(const char *p, size_t n) {
  while (n && isspace((unsigned char)p[n - 1]))
    --n;
  // A complex of floats; of anything else (complex<si32>) the builders'
  // cast asks for float semantics it has not (found by emb-fuzz).
  if (n > 9 && !strncmp(p, "complex<", 8) && p[n - 1] == '>') {
    const char *part = p + 8;
    size_t len = n - 9;
    while (len && isspace((unsigned char)*part))
      ++part, --len;
    bool isFloat = len > 1 && (part[0] == 'f' || part[0] == 'b' ||
                               part[0] == 't'); // f32, bf16, tf32
    return isFloat && classifyElement(part, len) == ELEM_NUMBER ? ELEM_COMPLEX
                                                                : ELEM_OTHER;
  }
  size_t i = 0;
  if (n > 1 && (p[0] == 'i' || p[0] == 's' || p[0] == 'u') &&
      (p[0] == 'i' || p[1] == 'i')) // i32, si32, ui8
    i = p[0] == 'i' ? 1 : 2;
  else if (n > 1 && p[0] == 'f') // f32, f8E4M3FN, ...
    i = 1;
  else if (n == 4 && (!strncmp(p, "bf16", 4) || !strncmp(p, "tf32", 4)))
    return ELEM_NUMBER;
  if (i == 0 || i >= n || !isdigit((unsigned char)p[i]))
    return ELEM_OTHER;
  while (i < n && isalnum((unsigned char)p[i]))
    ++i;
  return i == n ? ELEM_NUMBER : ELEM_OTHER;
}

/// Reads the type at the cursor, up to the ',' or ')' that ends it, and
/// classifies its element type (a shaped type's, or the type itself).
static ElemClass readOperandType(Cursor *c, char *name, size_t cap) {
  skipTrivia(c);
  const char *start = c->p;
  bool shaped =
      atWord(c, "tensor") || atWord(c, "memref") || atWord(c, "vector");
  const char *elem = start, *elemEnd = NULL;
  if (shaped) {
    skipWord(c);
    if (peek(c, 0) != '<')
      return ELEM_OTHER;
    step(c);
    // The dims: `4x`, `?x`, spaces between.
    for (;;) {
      skipTrivia(c);
      Cursor d = *c;
      while (isdigit((unsigned char)peek(&d, 0)) || peek(&d, 0) == '?')
        step(&d);
      if (d.p == c->p || peek(&d, 0) != 'x')
        break;
      step(&d);
      *c = d;
    }
    elem = c->p;
  }
  // Inside a shaped type, a ',' at its own depth ends the element type
  // (an encoding or a layout follows) and its '>' ends the type; outside,
  // a ',' or ')' ends it.
  int depth = 0;
  while (!atEnd(c)) {
    char ch = *c->p;
    if (depth == 0 && shaped && (ch == ',' || ch == '>')) {
      if (!elemEnd)
        elemEnd = c->p;
      step(c);
      shaped = ch == ',';
      continue;
    }
    if (depth == 0 && !shaped && (ch == ',' || ch == ')')) {
      if (!elemEnd)
        elemEnd = c->p;
      break;
    }
    if (ch == '<' || ch == '(' || ch == '[' || ch == '{')
      ++depth;
    else if ((ch == '>' && c->p[-1] != '-') || ch == ')' || ch == ']' ||
             ch == '}')
      --depth;
    step(c);
  }
  if (!elemEnd)
    return ELEM_OTHER;
  size_t n = (size_t)(elemEnd - elem);
  snprintf(name, cap, "%.*s", (int)(n < 64 ? n : 64), elem);
  return classifyElement(elem, n);
}

/// linalg.batch_matmul, linalg.batch_reduce_matmul in custom form: the
/// element types of `ins(... : A, B)` and `outs(... : C)`. Their region
/// builders use the value of a failed cast (index anywhere, a complex
/// input into a result that is not complex, anything that is no number),
/// and crash; linalg.matmul reports the same types as an error.
typedef struct {
  OpState *s;
  int seen;          ///< types read, A, B, C
  ElemClass cls[3];  ///< their classes
  char names[3][72]; ///< and element types
} MatmulTypes;

/// Reads `ins(... : A, B)` or `outs(... : C)` at the cursor (on the word)
/// into `m`, and moves past it.
static bool readOperandList(Cursor *c, MatmulTypes *m, int count) {
  skipWord(c);
  skipTrivia(c);
  if (peek(c, 0) != '(')
    return false;
  // The operands, then ':' and the types.
  int d = 0;
  while (!atEnd(c) && !(d == 1 && *c->p == ':')) {
    if (*c->p == '(' || *c->p == '[' || *c->p == '{')
      ++d;
    else if ((*c->p == ')' || *c->p == ']' || *c->p == '}') && --d == 0)
      return false; // no types: MLIR's parser says so
    step(c);
  }
  if (atEnd(c))
    return false;
  step(c);
  for (int k = 0; k < count && m->seen < 3; ++k) {
    m->cls[m->seen] = readOperandType(c, m->names[m->seen], sizeof m->names[0]);
    ++m->seen;
    if (peek(c, 0) == ',')
      step(c);
  }
  skipTrivia(c);
  if (peek(c, 0) == ')')
    step(c);
  return true;
}

/// Walks the custom form after the op's name, over lines, to its ins and
/// outs (indexing maps may come first); stops at the next op.
static bool checkBatchMatmul(OpState *s, Cursor c) {
  MatmulTypes m = {s, 0, {ELEM_NUMBER}, {""}};
  int depth = 0;
  while (!atEnd(&c)) {
    char ch = *c.p;
    if (ch == '/' && peek(&c, 1) == '/') {
      skipStringOrComment(&c);
      continue;
    }
    if (depth == 0 && (ch == '%' || ch == '"' || ch == '^'))
      return false; // the next op: this one has no ins and outs
    if (depth == 0 && (atWord(&c, "ins") || atWord(&c, "outs")) &&
        !isIdentChar(c.p[-1])) {
      bool outs = atWord(&c, "outs");
      if (!readOperandList(&c, &m, outs ? 1 : 2))
        return false;
      if (outs)
        break;
      continue;
    }
    if (ch == '(' || ch == '[' || ch == '{')
      ++depth;
    else if ((ch == ')' || ch == ']' || ch == '}') && --depth < 0)
      return false;
    if (isIdentChar(ch))
      skipWord(&c);
    else
      step(&c);
  }
  if (m.seen != 3)
    return false;
  bool other = false;
  for (int k = 0; k < 3; ++k)
    other |= m.cls[k] == ELEM_OTHER;
  bool complexIn = m.cls[0] == ELEM_COMPLEX || m.cls[1] == ELEM_COMPLEX;
  if (!other && !(complexIn && m.cls[2] != ELEM_COMPLEX))
    return false; // buildable, or an error MLIR reports
  return report(s->out, &s->at,
                "'%s' op element types %s, %s and %s cannot be built into "
                "its body: a complex input needs a complex result, a "
                "complex type float parts, and index (or any type that is "
                "no integer, float or complex) is not taken (MLIR 22's %s "
                "crashes on the cast it cannot "
                "make, an upstream bug; linalg.matmul reports it)",
                s->op, m.names[0], m.names[1], m.names[2], s->op);
}

/// The static element count of the `tensor<...>` at the cursor (saturated
/// at INT64_MAX) and the bytes of one element (0 for an element type of
/// unknown size: a dialect's type, complex, a vector...), moving to its
/// element type; false if it is not a static tensor type.
static bool readStaticTensor(Cursor *c, int64_t *count, int64_t *elemBytes) {
  if ((size_t)(c->end - c->p) < 7 || strncmp(c->p, "tensor<", 7))
    return false;
  for (int i = 0; i < 7; ++i)
    step(c);
  int64_t n = 1;
  while (isdigit((unsigned char)peek(c, 0))) {
    int64_t d = 0;
    while (isdigit((unsigned char)peek(c, 0))) {
      int digit = *c->p - '0';
      d = d > (INT64_MAX - digit) / 10 ? INT64_MAX : d * 10 + digit;
      step(c);
    }
    n = d != 0 && n > INT64_MAX / d ? INT64_MAX : n * d;
    if (peek(c, 0) != 'x')
      return false;
    step(c);
  }
  // The element type: its bytes when known (integers of any width and
  // signedness, the float types, index), else 0. Any type is taken (a
  // dialect's `!emb.table_handle` too: the count alone is what
  // from_elements' parser sizes its list by); it ends at the tensor's '>' or
  // at the ',' of an encoding.
  static const struct {
    const char *name;
    int bytes;
  } floats[] = {{"f64", 8}, {"f32", 4}, {"f16", 2}, {"bf16", 2}, {"index", 8}};
  if (peek(c, 0) == '?' || peek(c, 0) == '*')
    return false; // a dynamic dim or an unranked tensor
  *count = n;
  *elemBytes = 0;
  size_t len = 0;
  while (isIdentChar(peek(c, len)))
    ++len;
  if (len == 0 || peek(c, len) != '>') {
    Cursor t = *c;
    int depth = 0;
    while (!atEnd(&t)) {
      char ch = *t.p;
      if (ch == '"') {
        skipStringOrComment(&t);
        continue;
      }
      if (depth == 0 && (ch == '>' || ch == ','))
        return t.p != c->p;
      if (ch == '<' || ch == '(' || ch == '[' || ch == '{')
        ++depth;
      else if ((ch == '>' && t.p[-1] != '-') || ch == ')' || ch == ']' ||
               ch == '}')
        --depth;
      step(&t);
    }
    return false;
  }
  for (size_t i = 0; i < sizeof floats / sizeof floats[0]; ++i)
    if (len == strlen(floats[i].name) && !strncmp(c->p, floats[i].name, len))
      *elemBytes = floats[i].bytes;
  size_t at = c->p[0] == 's' || c->p[0] == 'u' ? 1 : 0;
  if (len > at + 1 && c->p[at] == 'i') {
    int64_t bits = 0;
    size_t k = at + 1;
    while (k < len && isdigit((unsigned char)c->p[k]) && bits < 1 << 24)
      bits = bits * 10 + (c->p[k++] - '0');
    if (k == len && bits > 0)
      *elemBytes = (bits + 7) / 8;
  }
  return true;
}

/// tensor.from_elements in custom form whose result type has another
/// element count than it has operands: the parser sizes a list of types by
/// the count before it compares (SmallVector aborts past 2^32; large counts
/// allocate gigabytes). The same error as MLIR's, sooner.
static bool checkFromElements(Cursor after, const Cursor *at,
                              EmbUpstreamCrash *out) {
  Cursor c = after;
  int64_t operands = 0;
  int depth = 0;
  while (!atEnd(&c) && !(depth == 0 && (*c.p == ':' || *c.p == '\n'))) {
    if (*c.p == '(' || *c.p == '[' || *c.p == '{')
      ++depth;
    else if (*c.p == ')' || *c.p == ']' || *c.p == '}')
      --depth;
    else if (*c.p == '%' && depth == 0)
      ++operands;
    if (skipStringOrComment(&c))
      continue;
    step(&c);
  }
  if (peek(&c, 0) != ':')
    return false;
  step(&c);
  skipTrivia(&c);
  int64_t count = 0, bytes = 0;
  if (!readStaticTensor(&c, &count, &bytes) || count == operands)
    return false;
  return report(out, at,
                "custom op 'tensor.from_elements' number of operands and "
                "types do not match: got %lld operands and %lld types "
                "(checked before parsing: MLIR 22's parser first makes a "
                "list of that many types, and aborts past 2^32)",
                (long long)operands, (long long)count);
}

/// The bytes of data the blob `name` of the text's dialect_resources holds
/// (its hex string less the 4-byte alignment prefix); -1 if there is none.
static int64_t blobBytes(const char *text, const char *name, size_t len) {
  const char *section = strstr(text, "dialect_resources");
  if (!section)
    return -1;
  for (const char *p = section; (p = strstr(p, "0x")) != NULL; p += 2) {
    if (p - section < 2 || p[-1] != '"')
      continue;
    const char *k = p - 2; // back over `name: "`
    while (k > section && isspace((unsigned char)*k))
      --k;
    if (*k != ':')
      continue;
    --k;
    while (k > section && isspace((unsigned char)*k))
      --k;
    const char *keyEnd = k + 1;
    while (k > section && isIdentChar(k[-1]))
      --k;
    if ((size_t)(keyEnd - k) != len || strncmp(k, name, len))
      continue;
    const char *h = p + 2, *q = h;
    while (isxdigit((unsigned char)*q))
      ++q;
    int64_t hex = q - h;
    return hex / 2 >= 4 ? hex / 2 - 4 : 0;
  }
  return -1;
}

/// dense_resource<name> : tensor<...> whose type needs more bytes than the
/// blob holds: MLIR 22 does not compare them, and its C API reads a
/// resource's elements without a bounds check (emb reads them to lower the
/// constant), past the blob.
static bool checkDenseResource(Cursor c, const char *text,
                               EmbUpstreamCrash *out) {
  Cursor at = c;
  skipWord(&c);
  skipTrivia(&c);
  if (peek(&c, 0) != '<')
    return false;
  step(&c);
  const char *name = c.p;
  while (!atEnd(&c) && isIdentChar(*c.p))
    step(&c);
  size_t len = (size_t)(c.p - name);
  if (!len || peek(&c, 0) != '>')
    return false;
  step(&c);
  skipTrivia(&c);
  if (peek(&c, 0) != ':')
    return false;
  step(&c);
  skipTrivia(&c);
  int64_t count = 0, bytes = 0;
  if (!readStaticTensor(&c, &count, &bytes) || bytes == 0)
    return false;
  int64_t need = count > INT64_MAX / bytes ? INT64_MAX : count * bytes;
  int64_t have = blobBytes(text, name, len);
  if (have < 0 || need <= have)
    return false;
  return report(out, &at,
                "dense_resource<%.*s>: its type needs %lld bytes but the blob "
                "holds %lld (MLIR 22 does not compare them, and reading the "
                "elements would run past the blob)",
                (int)len, name, (long long)need, (long long)have);
}

static const char *const batchMatmuls[] = {"linalg.batch_matmul",
                                           "linalg.batch_reduce_matmul"};

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
  for (size_t i = 0; i < sizeof batchMatmuls / sizeof batchMatmuls[0]; ++i)
    if (*at.p != '"' && len == strlen(batchMatmuls[i]) &&
        !strncmp(name, batchMatmuls[i], len)) {
      s.op = batchMatmuls[i];
      return checkBatchMatmul(&s, after);
    }
  if (*at.p != '"' && len == 20 && !strncmp(name, "tensor.from_elements", 20))
    return checkFromElements(after, &at, out);
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
      } else if (len == 14 && !strncmp(at.p, "dense_resource", 14)) {
        if (checkDenseResource(at, text, out))
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

//===----------------------------------------------------------------------===//
// The parsed module
//===----------------------------------------------------------------------===//

typedef struct {
  MlirOperation at;
  char *message;
  size_t size;
} OpCrash;

static bool opNamed(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && !memcmp(n.data, name, n.length);
}

static bool reportOp(OpCrash *c, MlirOperation op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static bool reportOp(OpCrash *c, MlirOperation op, const char *fmt, ...) {
  c->at = op;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->message, c->size, fmt, ap);
  va_end(ap);
  return true;
}

/// A reshape's groups must name the dims of its higher-rank side, 0 up, in
/// order (tensor.expand_shape's verifier in MLIR 22 checks only each
/// index's low 32 bits).
static bool checkReassociation(MlirOperation op, OpCrash *c) {
  static const char *const expands[] = {"tensor.expand_shape",
                                        "memref.expand_shape"};
  static const char *const collapses[] = {"tensor.collapse_shape",
                                          "memref.collapse_shape"};
  const char *name = NULL;
  bool expand = false;
  for (int i = 0; i < 2; ++i) {
    if (opNamed(op, expands[i]))
      name = expands[i], expand = true;
    if (opNamed(op, collapses[i]))
      name = collapses[i];
  }
  if (!name || mlirOperationGetNumOperands(op) < 1 ||
      mlirOperationGetNumResults(op) != 1)
    return false;
  MlirType t = expand ? mlirValueGetType(mlirOperationGetResult(op, 0))
                      : mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirAttribute groups = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("reassociation"));
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasRank(t) ||
      mlirAttributeIsNull(groups) || !mlirAttributeIsAArray(groups))
    return false;
  int64_t rank = mlirShapedTypeGetRank(t), next = 0;
  for (intptr_t g = 0, ng = mlirArrayAttrGetNumElements(groups); g < ng; ++g) {
    MlirAttribute group = mlirArrayAttrGetElement(groups, g);
    if (!mlirAttributeIsAArray(group))
      return false;
    for (intptr_t k = 0, nk = mlirArrayAttrGetNumElements(group); k < nk; ++k) {
      MlirAttribute a = mlirArrayAttrGetElement(group, k);
      if (!mlirAttributeIsAInteger(a))
        return false;
      int64_t v = mlirIntegerAttrGetValueInt(a);
      if (v != next)
        return reportOp(
            c, op,
            "'%s' op reassociation group %ld names dim %lld where dim %lld "
            "of the %s type (rank %lld) comes next: the groups must name its "
            "dims 0..%lld in order (MLIR 22's verifier reads the index in "
            "32 bits, and its canonicalizer crashes on one past the rank, an "
            "upstream bug)",
            name, (long)g, (long long)v, (long long)next,
            expand ? "result" : "source", (long long)rank,
            (long long)(rank - 1));
      ++next;
    }
  }
  return false;
}

/// tensor.dim and memref.dim with a constant index outside the operand's
/// rank (MLIR leaves it undefined).
static bool checkDimIndex(MlirOperation op, OpCrash *c) {
  const char *name = opNamed(op, "tensor.dim")   ? "tensor.dim"
                     : opNamed(op, "memref.dim") ? "memref.dim"
                                                 : NULL;
  if (!name || mlirOperationGetNumOperands(op) != 2)
    return false;
  MlirType t = mlirValueGetType(mlirOperationGetOperand(op, 0));
  MlirValue index = mlirOperationGetOperand(op, 1);
  if (!mlirTypeIsAShaped(t) || !mlirShapedTypeHasRank(t) ||
      !mlirValueIsAOpResult(index))
    return false;
  MlirOperation def = mlirOpResultGetOwner(index);
  MlirAttribute value = mlirOperationGetAttributeByName(
      def, mlirStringRefCreateFromCString("value"));
  if (!opNamed(def, "arith.constant") || mlirAttributeIsNull(value) ||
      !mlirAttributeIsAInteger(value))
    return false;
  int64_t v = mlirIntegerAttrGetValueInt(value);
  int64_t rank = mlirShapedTypeGetRank(t);
  if (v >= 0 && v < rank)
    return false;
  return reportOp(c, op,
                  "'%s' op index %lld is not a dim of its operand, which has "
                  "%lld (MLIR leaves the result undefined, and MLIR 22's "
                  "canonicalizer crashes on a negative index under emb's "
                  "tools, an upstream bug)",
                  name, (long long)v, (long long)rank);
}

static MlirWalkResult findCrashOp(MlirOperation op, void *userData) {
  OpCrash *c = userData;
  if (checkReassociation(op, c) || checkDimIndex(op, c))
    return MlirWalkResultInterrupt;
  return MlirWalkResultAdvance;
}

bool embToolFindUpstreamCrashOp(MlirModule module, MlirOperation *at,
                                char *message, size_t size) {
  OpCrash c = {{NULL}, message, size};
  mlirOperationWalk(mlirModuleGetOperation(module), findCrashOp, &c,
                    MlirWalkPreOrder);
  if (mlirOperationIsNull(c.at))
    return false;
  *at = c.at;
  return true;
}

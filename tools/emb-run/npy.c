//===- tools/emb-run/npy.c - NumPy .npy files -----------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

//===----------------------------------------------------------------------===//
// Sizes
//===----------------------------------------------------------------------===//

bool embCheckedMul(int64_t a, int64_t b, int64_t *out) {
  int64_t r;
  if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r))
    return false;
  *out = r;
  return true;
}

bool embArraySize(const EmbArray *a, int64_t *elements, size_t *bytes) {
  int64_t n = 1, b;
  if (a->rank < 0 || a->rank > EMB_NPY_MAX_RANK)
    return false;
  for (int i = 0; i < a->rank; ++i)
    if (!embCheckedMul(n, a->dims[i], &n))
      return false;
  if (!embCheckedMul(n, (int64_t)embrtDtypeSize(a->dtype), &b) ||
      (uint64_t)b > (uint64_t)SIZE_MAX)
    return false;
  if (elements)
    *elements = n;
  if (bytes)
    *bytes = (size_t)b;
  return true;
}

int64_t embArrayElements(const EmbArray *a) {
  int64_t n = 0;
  return embArraySize(a, &n, NULL) ? n : 0;
}

size_t embArrayBytes(const EmbArray *a) {
  size_t b = 0;
  return embArraySize(a, NULL, &b) ? b : 0;
}

static const char *dtypeName(embrtDtype d) {
  static const char *const names[] = {"f32", "f16", "bf16", "i32",
                                      "i64", "f64", "i8"};
  return (int)d >= 0 && d <= EMBRT_I8 ? names[d] : "?";
}

void embArrayShapeText(const EmbArray *a, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "tensor<");
  for (int i = 0; i < a->rank && n < size; ++i)
    n += (size_t)snprintf(buf + n, size - n, "%lldx", (long long)a->dims[i]);
  if (n < size)
    snprintf(buf + n, size - n, "%s>", dtypeName(a->dtype));
}

/// "3.6 TiB": a byte count for people.
static void humanBytes(double bytes, char *buf, size_t size) {
  static const char *const units[] = {"bytes", "KiB", "MiB", "GiB",
                                      "TiB",   "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6)
    bytes /= 1024, ++u;
  snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}

/// This machine's physical memory in bytes, or 0 if unknown.
static uint64_t physicalMemory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

int embArrayAllocate(EmbArray *a, bool zero, char *err, size_t errSize) {
  a->data = NULL;
  int64_t elements = 0;
  size_t bytes = 0;
  if (!embArraySize(a, &elements, &bytes)) {
    snprintf(err, errSize,
             "its size overflows a 64-bit count: too large to allocate");
    return -1;
  }
  // A buffer larger than the machine's memory cannot work even where
  // malloc would promise it (overcommit), and under a sanitizer's
  // allocator it aborts: refuse it by name first.
  uint64_t memory = physicalMemory();
  if (memory && (uint64_t)bytes > memory) {
    char need[32], have[32];
    humanBytes((double)bytes, need, sizeof need);
    humanBytes((double)memory, have, sizeof have);
    snprintf(err, errSize,
             "%lld elements of %s (%s) are too large to allocate: this "
             "machine has %s of memory",
             (long long)elements, dtypeName(a->dtype), need, have);
    return -1;
  }
  a->data = zero ? calloc(bytes ? bytes : 1, 1) : malloc(bytes ? bytes : 1);
  if (!a->data) {
    char need[32];
    humanBytes((double)bytes, need, sizeof need);
    snprintf(err, errSize,
             "%lld elements of %s (%s) are too large to allocate: malloc "
             "failed",
             (long long)elements, dtypeName(a->dtype), need);
    return -1;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

static const char *descrOf(embrtDtype d) {
  switch (d) {
  case EMBRT_F32:
  case EMBRT_BF16:
    return "<f4";
  case EMBRT_F16:
    return "<f2";
  case EMBRT_F64:
    return "<f8";
  case EMBRT_I32:
    return "<i4";
  case EMBRT_I64:
    return "<i8";
  case EMBRT_I8:
    return "|i1";
  }
  return "?";
}

//===----------------------------------------------------------------------===//
// The header: a Python dict literal
//
// NumPy reads the header with ast.literal_eval and then insists on exactly
// the keys descr, fortran_order and shape, and on a bool fortran_order. A
// dict literal with a key twice is valid Python (the last one wins), so
// NumPy would read what a first-match search here does not: a key twice is
// refused, as are other keys, a missing one and a fortran_order other than
// the literals True and False (1 and 'True' are not bools).
//===----------------------------------------------------------------------===//

enum { KEY_DESCR, KEY_FORTRAN, KEY_SHAPE, NUM_KEYS };
static const char *const keyNames[NUM_KEYS] = {"descr", "fortran_order",
                                               "shape"};

/// The values of the header's keys: where each starts and its length.
typedef struct {
  const char *at[NUM_KEYS];
  size_t len[NUM_KEYS];
} HeaderDict;

static const char *skipSpace(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    ++p;
  return p;
}

/// The end of the value at `p`: a quoted string, a bracketed tuple or list
/// (strings inside may hold brackets), or a bare word (True, 1, None).
/// NULL if it is none of them or is not terminated.
static const char *valueEnd(const char *p) {
  if (*p == '\'' || *p == '"') {
    const char *q = strchr(p + 1, *p);
    return q ? q + 1 : NULL;
  }
  if (*p == '(' || *p == '[') {
    int depth = 0;
    for (const char *q = p; *q; ++q) {
      if (*q == '\'' || *q == '"') {
        q = strchr(q + 1, *q);
        if (!q)
          return NULL;
      } else if (*q == '(' || *q == '[') {
        ++depth;
      } else if ((*q == ')' || *q == ']') && --depth == 0) {
        return q + 1;
      }
    }
    return NULL;
  }
  const char *q = p;
  while (isalnum((unsigned char)*q) || *q == '_' || *q == '.' || *q == '-' ||
         *q == '+')
    ++q;
  return q > p ? q : NULL;
}

/// Reads the header dict into `d`. Returns NULL, or what is wrong with it
/// (written into `why`).
static const char *readHeaderDict(const char *header, HeaderDict *d, char *why,
                                  size_t whySize) {
  memset(d, 0, sizeof *d);
  const char *p = skipSpace(header);
  if (*p != '{')
    return "it is not a dict";
  p = skipSpace(p + 1);
  while (*p != '}') {
    if (*p != '\'' && *p != '"')
      return "a key is not a string";
    const char *keyEnd = valueEnd(p);
    if (!keyEnd)
      return "a key is not terminated";
    size_t keyLen = (size_t)(keyEnd - p) - 2;
    int k = 0;
    while (k < NUM_KEYS && !(strlen(keyNames[k]) == keyLen &&
                             !strncmp(keyNames[k], p + 1, keyLen)))
      ++k;
    if (k == NUM_KEYS) {
      snprintf(why, whySize,
               "it has the key %.*s: NumPy's header has descr, fortran_order "
               "and shape alone",
               (int)(keyLen < 40 ? keyLen + 2 : 42), p);
      return why;
    }
    if (d->at[k]) {
      snprintf(why, whySize, "it has the key '%s' twice", keyNames[k]);
      return why;
    }
    p = skipSpace(keyEnd);
    if (*p != ':')
      return "a key has no ':' and value";
    p = skipSpace(p + 1);
    const char *end = valueEnd(p);
    if (!end) {
      snprintf(why, whySize, "the value of '%s' is not a literal", keyNames[k]);
      return why;
    }
    d->at[k] = p;
    d->len[k] = (size_t)(end - p);
    p = skipSpace(end);
    if (*p == ',')
      p = skipSpace(p + 1);
    else if (*p != '}')
      return "its entries are not separated by commas";
  }
  if (*skipSpace(p + 1))
    return "text follows the dict";
  for (int k = 0; k < NUM_KEYS; ++k)
    if (!d->at[k]) {
      snprintf(why, whySize, "it has no key '%s'", keyNames[k]);
      return why;
    }
  return NULL;
}

/// The header as it reads in a message: its padding dropped, control
/// characters shown as '?', cut after 160 characters.
static void headerText(const char *header, char *out, size_t size) {
  size_t n = strlen(header);
  while (n > 0 && isspace((unsigned char)header[n - 1]))
    --n;
  size_t k = 0, cut = n > 160 ? 160 : n;
  for (size_t i = 0; i < cut && k + 4 < size; ++i)
    out[k++] = isprint((unsigned char)header[i]) ? header[i] : '?';
  if (cut < n && k + 4 < size)
    out[k++] = '.', out[k++] = '.', out[k++] = '.';
  out[k] = '\0';
}

void embNpyClose(EmbNpyReader *r) {
  if (r->file)
    fclose(r->file);
  r->file = NULL;
}

/// Fails embNpyOpen: formats the message and closes the file.
static int fail(EmbNpyReader *r, char *header, char *err, size_t errSize,
                const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int fail(EmbNpyReader *r, char *header, char *err, size_t errSize,
                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errSize, fmt, ap);
  va_end(ap);
  free(header);
  embNpyClose(r);
  return -1;
}

/// Parses the shape tuple at `p` ("(2, 3)", "(5,)", "()") into r->shape.
/// Returns NULL on success or what is wrong with it.
static const char *parseShape(const char *p, EmbNpyReader *r, char *bad,
                              size_t badSize) {
  EmbArray *a = &r->shape;
  a->rank = 0;
  ++p; // '('
  for (;;) {
    while (isspace((unsigned char)*p))
      ++p;
    if (*p == ')')
      return NULL;
    if (!isdigit((unsigned char)*p))
      return *p ? "is not a tuple of non-negative integers"
                : "is not terminated";
    if (a->rank == EMB_NPY_MAX_RANK)
      return "has more than 8 dimensions";
    const char *start = p;
    errno = 0;
    char *end;
    long long d = strtoll(p, &end, 10);
    if (errno == ERANGE) {
      snprintf(bad, badSize, "%.*s", (int)strspn(start, "0123456789"), start);
      return "has a dimension out of range";
    }
    a->dims[a->rank++] = d;
    p = end;
    while (isspace((unsigned char)*p))
      ++p;
    if (*p == ',')
      ++p;
    else if (*p != ')')
      return "is not a tuple of non-negative integers";
  }
}

int embNpyOpen(const char *path, embrtDtype want, EmbNpyReader *r, char *err,
               size_t errSize) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->dataBytes = -1;
  r->file = fopen(path, "rb");
  if (!r->file) {
    snprintf(err, errSize, "cannot open '%s': %s", path, strerror(errno));
    return -1;
  }
  unsigned char magic[8];
  if (fread(magic, 1, 8, r->file) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0)
    return fail(r, NULL, err, errSize, "'%s' is not a .npy file", path);
  // NumPy reads format versions 1.0, 2.0 and 3.0 and refuses any other.
  if (magic[6] < 1 || magic[6] > 3 || magic[7] != 0)
    return fail(r, NULL, err, errSize,
                "'%s' is .npy format version %u.%u; versions 1.0, 2.0 and "
                "3.0 are read (as NumPy does)",
                path, magic[6], magic[7]);
  uint32_t headerLen = 0;
  unsigned char b[4];
  size_t lenBytes = magic[6] == 1 ? 2 : 4;
  if (fread(b, 1, lenBytes, r->file) != lenBytes)
    return fail(r, NULL, err, errSize,
                "'%s' is truncated: it ends inside its header", path);
  headerLen = b[0] | (uint32_t)b[1] << 8;
  if (lenBytes == 4)
    headerLen |= (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  if (headerLen > (1u << 20))
    return fail(r, NULL, err, errSize, "'%s' has a %u-byte header", path,
                headerLen);
  char *header = malloc(headerLen + 1);
  if (!header)
    return fail(r, NULL, err, errSize, "'%s': out of memory", path);
  if (fread(header, 1, headerLen, r->file) != headerLen)
    return fail(r, header, err, errSize,
                "'%s' is truncated: it ends inside its header", path);
  header[headerLen] = '\0';

  HeaderDict dict;
  char why[128], text[200];
  const char *wrong = readHeaderDict(header, &dict, why, sizeof why);
  const char *descr = dict.at[KEY_DESCR], *fortran = dict.at[KEY_FORTRAN];
  size_t fortranLen = dict.len[KEY_FORTRAN];
  if (!wrong && *descr != '\'' && *descr != '"')
    wrong = "its descr is not a string (a structured dtype?)";
  if (!wrong && *dict.at[KEY_SHAPE] != '(')
    wrong = "its shape is not a tuple";
  if (!wrong && !(fortranLen == 4 && !strncmp(fortran, "True", 4)) &&
      !(fortranLen == 5 && !strncmp(fortran, "False", 5))) {
    snprintf(why, sizeof why, "its fortran_order is %.*s, not True or False",
             (int)(fortranLen < 40 ? fortranLen : 40), fortran);
    wrong = why;
  }
  if (wrong) {
    headerText(header, text, sizeof text);
    return fail(r, header, err, errSize, "'%s' has a malformed header (%s): %s",
                path, wrong, text);
  }
  if (fortranLen == 4)
    return fail(r, header, err, errSize,
                "'%s' is in Fortran order; save it in C order", path);
  char d[16] = "";
  size_t descrLen = dict.len[KEY_DESCR] - 2;
  snprintf(d, sizeof d, "%.*s", (int)(descrLen < 15 ? descrLen : 15),
           descr + 1);
  const char *shape = dict.at[KEY_SHAPE];
  char bad[64] = "";
  const char *badShape = parseShape(shape, r, bad, sizeof bad);
  if (badShape)
    return fail(r, header, err, errSize, "'%s': the shape in its header %s%s%s",
                path, badShape, *bad ? ": " : "", bad);
  free(header);

  // The file's element type, and whether it converts to `want`.
  r->bf16FromF32 = want == EMBRT_BF16 && !strcmp(d, "<f4");
  bool bf16Raw = want == EMBRT_BF16 && !strcmp(d, "<u2");
  bool bool8 = want == EMBRT_I8 && !strcmp(d, "|b1");
  if (!r->bf16FromF32 && !bf16Raw && !bool8 && strcmp(d, descrOf(want)) != 0)
    return fail(r, NULL, err, errSize, "'%s' holds %s but %s is needed", path,
                d,
                want == EMBRT_BF16 ? "<f4 or <u2 (bf16 bits)" : descrOf(want));
  r->shape.dtype = want;
  r->elementBytes = r->bf16FromF32 ? 4 : embrtDtypeSize(want);

  return 0;
}

/// Fails embNpyReadData before its allocation.
static int failData(EmbNpyReader *r, char *err, size_t errSize, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));
static int failData(EmbNpyReader *r, char *err, size_t errSize, const char *fmt,
                    ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errSize, fmt, ap);
  va_end(ap);
  embNpyClose(r);
  return -1;
}

int embNpyReadData(EmbNpyReader *r, EmbArray *out, char *err, size_t errSize) {
  *out = r->shape;
  out->data = NULL;
  const char *path = r->path;
  // The data the header promises: its size must be countable, and a regular
  // file must hold exactly that much after the header (more means the
  // header does not describe the file).
  EmbArray fileShape = r->shape;
  fileShape.dtype = r->bf16FromF32 ? EMBRT_F32 : r->shape.dtype;
  int64_t elements;
  size_t bytes;
  char text[256];
  embArrayShapeText(&r->shape, text, sizeof text);
  if (!embArraySize(&fileShape, &elements, &bytes))
    return failData(
        r, err, errSize,
        "'%s' holds %s: its size overflows a 64-bit count: too large "
        "to allocate",
        path, text);
  struct stat st;
  long offset = ftell(r->file);
  if (offset >= 0 && fstat(fileno(r->file), &st) == 0 && S_ISREG(st.st_mode)) {
    r->dataBytes = st.st_size > offset ? (int64_t)st.st_size - offset : 0;
    if ((uint64_t)r->dataBytes < (uint64_t)bytes)
      return failData(r, err, errSize,
                      "'%s' is truncated: its header says %s, %llu bytes of "
                      "data, but %lld bytes follow",
                      path, text, (unsigned long long)bytes,
                      (long long)r->dataBytes);
    if ((uint64_t)r->dataBytes > (uint64_t)bytes)
      return failData(r, err, errSize,
                      "'%s' has %llu bytes after its data: its header says %s "
                      "(%llu bytes) but %lld bytes follow it",
                      path,
                      (unsigned long long)((uint64_t)r->dataBytes - bytes),
                      text, (unsigned long long)bytes, (long long)r->dataBytes);
  }
  char why[256];
  if (embArrayAllocate(out, false, why, sizeof why)) {
    snprintf(err, errSize, "'%s' holds %s: %s", r->path, text, why);
    embNpyClose(r);
    return -1;
  }
  int64_t n = elements;
  size_t fileBytes = bytes;
  void *raw = out->data;
  if (r->bf16FromF32 && !(raw = malloc(fileBytes ? fileBytes : 1))) {
    snprintf(err, errSize, "'%s': out of memory for %llu bytes", r->path,
             (unsigned long long)fileBytes);
    goto failed;
  }
  if (fread(raw, 1, fileBytes, r->file) != fileBytes) {
    snprintf(err, errSize, "'%s' is truncated: it ends inside its data",
             r->path);
    goto failed;
  }
  // Where the size was not known up front (a pipe), the end must follow.
  if (r->dataBytes < 0 && fgetc(r->file) != EOF) {
    snprintf(err, errSize,
             "'%s' has bytes after its data: its header does not describe "
             "the whole file",
             r->path);
    goto failed;
  }
  if (r->bf16FromF32) {
    for (int64_t i = 0; i < n; ++i)
      ((uint16_t *)out->data)[i] = embrtF32ToBF16(((float *)raw)[i]);
    free(raw);
  }
  embNpyClose(r);
  return 0;

failed:
  if (raw != out->data)
    free(raw);
  free(out->data);
  out->data = NULL;
  embNpyClose(r);
  return -1;
}

int embNpyRead(const char *path, embrtDtype want, EmbArray *out, char *err,
               size_t errSize) {
  EmbNpyReader r;
  memset(out, 0, sizeof *out);
  if (embNpyOpen(path, want, &r, err, errSize))
    return -1;
  return embNpyReadData(&r, out, err, errSize);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

int embNpyWrite(const char *path, const EmbArray *a, char *err,
                size_t errSize) {
  char shape[256] = "";
  for (int i = 0; i < a->rank; ++i) {
    char dim[32];
    snprintf(dim, sizeof dim, "%lld,%s", (long long)a->dims[i],
             i + 1 < a->rank ? " " : "");
    strncat(shape, dim, sizeof shape - strlen(shape) - 1);
  }
  char header[512];
  int len = snprintf(header, sizeof header,
                     "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     descrOf(a->dtype), shape);
  // Pad so that the data starts at a multiple of 64 bytes.
  int total = 10 + len + 1;
  int pad = (64 - total % 64) % 64;
  memset(header + len, ' ', (size_t)pad);
  header[len + pad] = '\n';
  len += pad + 1;
  FILE *f = fopen(path, "wb");
  if (!f) {
    snprintf(err, errSize, "cannot write '%s': %s", path, strerror(errno));
    return -1;
  }
  unsigned char pre[10] = {0x93,
                           'N',
                           'U',
                           'M',
                           'P',
                           'Y',
                           1,
                           0,
                           (unsigned char)(len & 0xff),
                           (unsigned char)(len >> 8)};
  bool ok = fwrite(pre, 1, 10, f) == 10 &&
            fwrite(header, 1, (size_t)len, f) == (size_t)len;
  int64_t n = embArrayElements(a);
  if (a->dtype == EMBRT_BF16) {
    for (int64_t i = 0; ok && i < n; ++i) {
      float v = embrtBF16ToF32(((const uint16_t *)a->data)[i]);
      ok = fwrite(&v, 4, 1, f) == 1;
    }
  } else {
    size_t bytes = embArrayBytes(a);
    ok = ok && fwrite(a->data, 1, bytes, f) == bytes;
  }
  if (fclose(f) != 0 || !ok) {
    snprintf(err, errSize, "cannot write '%s'", path);
    return -1;
  }
  return 0;
}

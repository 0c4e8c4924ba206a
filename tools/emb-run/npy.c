//===- tools/emb-run/npy.c - NumPy .npy files -----------------------------===//

#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t embArrayElements(const EmbArray *a) {
  int64_t n = 1;
  for (int i = 0; i < a->rank; ++i)
    n *= a->dims[i];
  return n;
}

size_t embArrayBytes(const EmbArray *a) {
  return (size_t)embArrayElements(a) * embrtDtypeSize(a->dtype);
}

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

/// Finds the value text after 'key': in a header dict.
static const char *findKey(const char *header, const char *key) {
  char pattern[32];
  snprintf(pattern, sizeof pattern, "'%s'", key);
  const char *p = strstr(header, pattern);
  if (!p)
    return NULL;
  p = strchr(p + strlen(pattern), ':');
  if (!p)
    return NULL;
  ++p;
  while (isspace((unsigned char)*p))
    ++p;
  return p;
}

int embNpyRead(const char *path, embrtDtype want, EmbArray *out, char *err,
               size_t errSize) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errSize, "cannot open '%s': %s", path, strerror(errno));
    return -1;
  }
  unsigned char magic[10];
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6) != 0) {
    snprintf(err, errSize, "'%s' is not a .npy file", path);
    fclose(f);
    return -1;
  }
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    if (fread(b, 1, 2, f) != 2)
      goto truncated;
    headerLen = b[0] | (uint32_t)b[1] << 8;
  } else {
    unsigned char b[4];
    if (fread(b, 1, 4, f) != 4)
      goto truncated;
    headerLen = b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                (uint32_t)b[3] << 24;
  }
  if (headerLen > (1u << 20)) {
    snprintf(err, errSize, "'%s' has a %u-byte header", path, headerLen);
    fclose(f);
    return -1;
  }
  char *header = malloc(headerLen + 1);
  if (fread(header, 1, headerLen, f) != headerLen) {
    free(header);
    goto truncated;
  }
  header[headerLen] = '\0';

  const char *descr = findKey(header, "descr");
  const char *fortran = findKey(header, "fortran_order");
  const char *shape = findKey(header, "shape");
  if (!descr || !shape || *descr != '\'' || *shape != '(') {
    snprintf(err, errSize, "'%s' has a malformed header", path);
    free(header);
    fclose(f);
    return -1;
  }
  if (fortran && !strncmp(fortran, "True", 4)) {
    snprintf(err, errSize, "'%s' is in Fortran order; save it in C order",
             path);
    free(header);
    fclose(f);
    return -1;
  }
  char d[16] = "";
  sscanf(descr + 1, "%15[^']", d);
  const char *p = shape + 1;
  out->rank = 0;
  while (*p && *p != ')') {
    while (isspace((unsigned char)*p) || *p == ',')
      ++p;
    if (*p == ')')
      break;
    if (out->rank == EMB_NPY_MAX_RANK || !isdigit((unsigned char)*p)) {
      snprintf(err, errSize, "'%s' has an unsupported shape", path);
      free(header);
      fclose(f);
      return -1;
    }
    out->dims[out->rank++] = strtoll(p, (char **)&p, 10);
  }
  free(header);

  // The file's element type, and whether it converts to `want`.
  bool bf16FromF32 = want == EMBRT_BF16 && !strcmp(d, "<f4");
  bool bf16Raw = want == EMBRT_BF16 && !strcmp(d, "<u2");
  bool bool8 = want == EMBRT_I8 && !strcmp(d, "|b1");
  if (!bf16FromF32 && !bf16Raw && !bool8 && strcmp(d, descrOf(want)) != 0) {
    snprintf(err, errSize, "'%s' holds %s but %s is needed", path, d,
             want == EMBRT_BF16 ? "<f4 or <u2 (bf16 bits)" : descrOf(want));
    fclose(f);
    return -1;
  }
  out->dtype = want;
  int64_t n = embArrayElements(out);
  size_t fileBytes = (size_t)n * (bf16FromF32 ? 4 : embrtDtypeSize(want));
  void *raw = malloc(fileBytes ? fileBytes : 1);
  if (fread(raw, 1, fileBytes, f) != fileBytes) {
    free(raw);
    goto truncated;
  }
  fclose(f);
  if (bf16FromF32) {
    uint16_t *bits = malloc((size_t)n * 2 + 1);
    for (int64_t i = 0; i < n; ++i)
      bits[i] = embrtF32ToBF16(((float *)raw)[i]);
    free(raw);
    raw = bits;
  }
  out->data = raw;
  return 0;

truncated:
  snprintf(err, errSize, "'%s' is truncated", path);
  fclose(f);
  return -1;
}

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
  fwrite(pre, 1, 10, f);
  fwrite(header, 1, (size_t)len, f);
  int64_t n = embArrayElements(a);
  if (a->dtype == EMBRT_BF16) {
    for (int64_t i = 0; i < n; ++i) {
      float v = embrtBF16ToF32(((const uint16_t *)a->data)[i]);
      fwrite(&v, 4, 1, f);
    }
  } else {
    fwrite(a->data, 1, embArrayBytes(a), f);
  }
  if (fclose(f) != 0) {
    snprintf(err, errSize, "cannot write '%s'", path);
    return -1;
  }
  return 0;
}

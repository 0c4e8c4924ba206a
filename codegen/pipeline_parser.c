//===- codegen/pipeline_parser.c - Textual pass pipelines with emb passes -===//
//
// The C API cannot register a pass by name, so mlirParsePassPipeline never
// sees emb's passes. This parser reads MLIR's pipeline syntax itself:
//
//   pipeline := element (',' element)*
//   element  := op-name '(' pipeline ')'       nesting, e.g. func.func(cse)
//             | pass-name ('{' options '}')?
//
// emb's passes and pipelines are found in the registry (registry.c), their
// {options} read through their option tables and added through an
// EmbPipelineBuilder (passes/pass.c); every other element is handed, text
// unchanged, to mlirOpPassManagerAddPipeline, so any upstream pass works. An
// outer `builtin.module(...)` is accepted and unwrapped. It lives in codegen/
// with the registry: it creates passes of every layer by name.
//
//===----------------------------------------------------------------------===//

#include "codegen.h"

#include "ir.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  bool verifyEach;
  EmbErrorCallback onError;
  void *userData;
} Parser;

static MlirStringRef trim(MlirStringRef s) {
  while (s.length && isspace((unsigned char)s.data[0])) {
    ++s.data;
    --s.length;
  }
  while (s.length && isspace((unsigned char)s.data[s.length - 1]))
    --s.length;
  return s;
}

static MlirStringRef sub(MlirStringRef s, size_t begin, size_t end) {
  return (MlirStringRef){s.data + begin, end - begin};
}

static bool isOpNameChar(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$' ||
         c == '-';
}

/// Finds the end of the element starting at `begin` (a top-level ',' or the
/// end), or reports unbalanced brackets and returns (size_t)-1.
static size_t elementEnd(Parser *p, MlirStringRef s, size_t begin) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = begin; i < s.length; ++i) {
    char c = s.data[i];
    if (quoted) {
      quoted = c != '"';
      continue;
    }
    if (c == '"')
      quoted = true;
    else if (c == '(' || c == '{' || c == '[')
      ++depth;
    else if (c == ')' || c == '}' || c == ']') {
      if (--depth < 0) {
        embReportf(p->onError, p->userData,
                   "invalid pass pipeline '%.*s': unbalanced '%c'",
                   (int)s.length, s.data, c);
        return (size_t)-1;
      }
    } else if (c == ',' && depth == 0)
      return i;
  }
  if (depth != 0 || quoted) {
    embReportf(p->onError, p->userData,
               "invalid pass pipeline '%.*s': unbalanced brackets or quotes",
               (int)s.length, s.data);
    return (size_t)-1;
  }
  return s.length;
}

static MlirLogicalResult addList(Parser *p, MlirOpPassManager pm,
                                 const char *anchor, MlirStringRef text);

/// Adds `name{options}`: an emb pass or pipeline, or an upstream element.
static MlirLogicalResult addElement(Parser *p, MlirOpPassManager pm,
                                    const char *anchor, MlirStringRef elem) {
  size_t nameEnd = 0;
  while (nameEnd < elem.length && elem.data[nameEnd] != '{')
    ++nameEnd;
  MlirStringRef name = trim(sub(elem, 0, nameEnd));
  MlirStringRef options = {elem.data + elem.length, 0};
  if (nameEnd < elem.length) {
    if (elem.data[elem.length - 1] != '}') {
      embReportf(p->onError, p->userData,
                 "invalid pass pipeline element '%.*s': text after '}'",
                 (int)elem.length, elem.data);
      return mlirLogicalResultFailure();
    }
    options = sub(elem, nameEnd + 1, elem.length - 1);
  }

  EmbPipelineBuilder builder = {pm, anchor, p->verifyEach, p->onError,
                                p->userData};
  const EmbPassDef *def = embLookupPass(name.data, name.length);
  if (!def && name.length > 4 && memcmp(name.data, "emb-", 4) == 0) {
    embReportf(p->onError, p->userData,
               "'%.*s' is not an emb pass or pipeline (see --list-passes)",
               (int)name.length, name.data);
    return mlirLogicalResultFailure();
  }
  if (!def)
    return embPipelineAddUpstream(&builder, elem);

  size_t size = embPassOptionsSize(def);
  void *parsed = calloc(1, size ? size : 1);
  if (!parsed) {
    embReportf(p->onError, p->userData, "%s: out of memory", def->argument);
    return mlirLogicalResultFailure();
  }
  MlirLogicalResult result = mlirLogicalResultFailure();
  if (embParsePassOptions(def, options, parsed, p->onError, p->userData))
    result = embPipelineAdd(&builder, def, parsed);
  free(parsed);
  return result;
}

static MlirLogicalResult addList(Parser *p, MlirOpPassManager pm,
                                 const char *anchor, MlirStringRef text) {
  text = trim(text);
  if (text.length == 0)
    return mlirLogicalResultSuccess();
  size_t begin = 0;
  while (begin <= text.length) {
    size_t end = elementEnd(p, text, begin);
    if (end == (size_t)-1)
      return mlirLogicalResultFailure();
    MlirStringRef elem = trim(sub(text, begin, end));
    if (elem.length == 0) {
      embReportf(p->onError, p->userData,
                 "invalid pass pipeline '%.*s': empty element",
                 (int)text.length, text.data);
      return mlirLogicalResultFailure();
    }
    // op-name(...) nests; anything with '{' first is a pass with options.
    size_t i = 0;
    while (i < elem.length && isOpNameChar(elem.data[i]))
      ++i;
    if (i < elem.length && elem.data[i] == '(') {
      if (elem.data[elem.length - 1] != ')') {
        embReportf(p->onError, p->userData,
                   "invalid pass pipeline element '%.*s': text after ')'",
                   (int)elem.length, elem.data);
        return mlirLogicalResultFailure();
      }
      char opName[128];
      snprintf(opName, sizeof opName, "%.*s", (int)i, elem.data);
      MlirOpPassManager nested =
          mlirOpPassManagerGetNestedUnder(pm, embStr(opName));
      if (mlirLogicalResultIsFailure(
              addList(p, nested, opName, sub(elem, i + 1, elem.length - 1))))
        return mlirLogicalResultFailure();
    } else if (mlirLogicalResultIsFailure(addElement(p, pm, anchor, elem))) {
      return mlirLogicalResultFailure();
    }
    begin = end + 1;
  }
  return mlirLogicalResultSuccess();
}

MlirLogicalResult embAddPassPipeline(MlirOpPassManager pm,
                                     MlirStringRef pipeline, bool verifyEach,
                                     EmbErrorCallback onError, void *userData) {
  Parser p = {verifyEach, onError, userData};
  MlirStringRef text = trim(pipeline);
  static const char outer[] = "builtin.module(";
  size_t n = sizeof outer - 1;
  if (text.length > n && memcmp(text.data, outer, n) == 0 &&
      elementEnd(&p, text, 0) == text.length &&
      text.data[text.length - 1] == ')')
    text = sub(text, n, text.length - 1);
  return addList(&p, pm, "builtin.module", text);
}

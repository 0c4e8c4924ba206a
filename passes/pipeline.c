//===- passes/pipeline.c - Textual pass pipelines with emb passes ---------===//
//
// The C API cannot register a pass by name, so mlirParsePassPipeline never
// sees emb's passes. This parser reads MLIR's pipeline syntax itself:
//
//   pipeline := element (',' element)*
//   element  := op-name '(' pipeline ')'       nesting, e.g. func.func(cse)
//             | pass-name ('{' options '}')?
//
// emb's passes and pipelines are made here; every other element is handed,
// text unchanged, to mlirOpPassManagerAddPipeline, so any upstream pass works.
// An outer `builtin.module(...)` is accepted and unwrapped.
//
//===----------------------------------------------------------------------===//

#include "pass.h"

#include "ir.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum { maxExpansionDepth = 8, maxExpansion = 4096 };

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

typedef struct {
  char text[2048];
  size_t used;
} Collected;

static void collect(MlirStringRef s, void *userData) {
  Collected *c = userData;
  size_t room = sizeof c->text - 1 - c->used;
  size_t n = s.length < room ? s.length : room;
  memcpy(c->text + c->used, s.data, n);
  c->used += n;
  c->text[c->used] = '\0';
}

/// The first line of MLIR's pipeline parser message, without its
/// "MLIR Textual PassPipeline Parser:1:1: error: " prefix.
static const char *upstreamReason(Collected *msg) {
  if (msg->used == 0)
    return "not a registered pass";
  char *nl = strchr(msg->text, '\n');
  if (nl)
    *nl = '\0';
  const char *marker = "error: ";
  const char *at = strstr(msg->text, marker);
  return at ? at + strlen(marker) : msg->text;
}

static MlirLogicalResult addList(Parser *p, MlirOpPassManager pm,
                                 const char *anchor, MlirStringRef text,
                                 int depth);

static void addVerify(Parser *p, MlirOpPassManager pm) {
  if (p->verifyEach)
    mlirOpPassManagerAddOwnedPass(pm, embCreateVerifyPass());
}

/// Adds `name{options}`: an emb pass or pipeline, or an upstream element.
static MlirLogicalResult addElement(Parser *p, MlirOpPassManager pm,
                                    const char *anchor, MlirStringRef elem,
                                    int depth) {
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

  const EmbRegistryEntry *e = embLookupPass(name.data, name.length);
  if (!e && name.length > 4 && memcmp(name.data, "emb-", 4) == 0) {
    embReportf(p->onError, p->userData,
               "'%.*s' is not an emb pass or pipeline (see --list-passes)",
               (int)name.length, name.data);
    return mlirLogicalResultFailure();
  }
  if (!e) {
    Collected msg = {.used = 0};
    msg.text[0] = '\0';
    if (mlirLogicalResultIsFailure(
            mlirOpPassManagerAddPipeline(pm, elem, collect, &msg))) {
      embReportf(p->onError, p->userData,
                 "invalid pass pipeline element '%.*s': %s", (int)elem.length,
                 elem.data, upstreamReason(&msg));
      return mlirLogicalResultFailure();
    }
    addVerify(p, pm);
    return mlirLogicalResultSuccess();
  }

  if (e->kind == EMB_PASS_KIND_PIPELINE) {
    if (depth >= maxExpansionDepth) {
      embReportf(p->onError, p->userData,
                 "pipeline '%s' expands too deeply (a cycle?)", e->name);
      return mlirLogicalResultFailure();
    }
    char expanded[maxExpansion];
    if (!e->expand(options, expanded, sizeof expanded, p->onError, p->userData))
      return mlirLogicalResultFailure();
    return addList(p, pm, anchor, embStr(expanded), depth + 1);
  }

  if (*e->anchor && strcmp(e->anchor, anchor) != 0) {
    embReportf(p->onError, p->userData,
               "pass '%s' runs on '%s' and cannot be nested under '%s'",
               e->name, e->anchor, anchor);
    return mlirLogicalResultFailure();
  }
  MlirPass pass = e->create(options, p->onError, p->userData);
  if (!pass.ptr)
    return mlirLogicalResultFailure();
  mlirOpPassManagerAddOwnedPass(pm, pass);
  addVerify(p, pm);
  return mlirLogicalResultSuccess();
}

static MlirLogicalResult addList(Parser *p, MlirOpPassManager pm,
                                 const char *anchor, MlirStringRef text,
                                 int depth) {
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
      if (mlirLogicalResultIsFailure(addList(
              p, nested, opName, sub(elem, i + 1, elem.length - 1), depth)))
        return mlirLogicalResultFailure();
    } else if (mlirLogicalResultIsFailure(
                   addElement(p, pm, anchor, elem, depth))) {
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
  return addList(&p, pm, "builtin.module", text, 0);
}

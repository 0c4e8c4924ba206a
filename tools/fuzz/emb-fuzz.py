#!/usr/bin/env python3
"""emb-fuzz: structure-aware fuzzing of emb's tools (docs/reliability.md).

Mutates the IR of emb's tests and examples (numbers, shapes, element types,
attributes, dense arrays, operand lists, SSA uses, tokens and lines) and
the .npy inputs of its models, and drives the built tools with them:

  opt      emb-opt with one of emb's passes or pipelines (options too), or
           an upstream one, on a mutated test or example
  run      emb-run --random-inputs (CPU) on a mutated model
  npy      emb-run --inputs (CPU) on a model as written, with .npy inputs
           written for its signature and then mutated (header, shape,
           dtype, length, values: ids, offsets, lengths out of range)
  compile  emb-compile on a mutated model
  compare  emb-run --compare-unoptimized --pipeline P on a generated model
           and .npy inputs of a class a rewrite must keep (bad offsets of
           per-feature bags under emb-batch-tables, index entries and key
           lengths of users nothing reads under emb-sink-broadcast and
           emb-fuse-broadcast, a training step whose results are unused
           under emb-erase-dead): valid, bad in a way both sides report,
           or bad in the way the class is about

A crash is a death by a signal, emb's crash report ("<tool>: internal
error:"), a sanitizer report, or a hang past --timeout; an error exit with
a diagnostic is not. A mismatch is a comparison (--compare-unoptimized, on
the run, npy and compare targets) that breaks the rule every rewrite keeps:
a result that differs, an argument updated in place that differs, or an
error on one side only (both sides failing agrees). Each distinct crash is
saved under OUT/crashes/ (the input, the command, the output) and reduced
by deleting lines, then tokens, while it still crashes the same way; a
reduced input that also crashes the stock mlir-opt (parsing it, or with
--canonicalize, which every emb pipeline runs) is marked upstream, with the
command that crashed. Each distinct mismatch is saved under
OUT/mismatches/ the same way (a generated model is small already and is
not reduced).

Execution i draws everything from a generator seeded with (seed, i): a run
is the same for a seed whatever --jobs is. Standard library only.

  emb-fuzz.py --bin-dir build/bin --seed 1 --executions 1000 --out /tmp/f
  emb-fuzz.py --replay /tmp/f/crashes/<id>    # run a saved crash again

Exit status: 0 no crash and no mismatch, 1 crashes or mismatches found
(listed, and in OUT/summary.json),
2 a usage error or, with --check-outcomes, a target whose inputs were all
accepted or all refused (mutations that do nothing would find nothing).
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time

TARGETS = ("opt", "run", "npy", "compile", "compare")
TOOL_OF = {"opt": "emb-opt", "run": "emb-run", "npy": "emb-run",
           "compile": "emb-compile", "compare": "emb-run"}
DEFAULT_WEIGHTS = {"opt": 5, "run": 2, "npy": 2, "compile": 1, "compare": 2}
# What a comparison that breaks the rule is: a finding, like a crash.
FINDINGS = ("crash", "hang", "mismatch")

# What the sanitizers do on a report when the environment does not say:
# abort, so that a report is a signal death as well as text.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "abort_on_error=1:detect_leaks=1:"
                    "allocator_may_return_null=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:abort_on_error=1",
}

#===-----------------------------------------------------------------------===#
# Tokens of MLIR's textual form
#===-----------------------------------------------------------------------===#

TOKEN = re.compile(r'''
   (?P<string>"(?:[^"\\\n]|\\.)*")
  |(?P<comment>//[^\n]*)
  |(?P<shaped>(?:tensor|memref|vector)<[^<>]*(?:<[^<>]*>[^<>]*)*>)
  |(?P<array>array<[^<>]*>)
  |(?P<number>0x[0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  |(?P<value>%[\w.$-]+(?:\#\d+)?)
  |(?P<symbol>[@^#!][\w.$-]*)
  |(?P<word>[A-Za-z_][\w.$]*)
  |(?P<punct>->|::|\S)
''', re.X)


def tokens(text):
    """(start, end, kind) of each token of `text`."""
    return [(m.start(), m.end(), m.lastgroup) for m in TOKEN.finditer(text)]


def splice(text, start, end, new):
    return text[:start] + new + text[end:]


INTERESTING_INTS = [0, 1, -1, 2, 3, 4, 7, 8, 16, 31, 32, 63, 64, 127, 128,
                    255, 256, 1000, 1024, 4096, 65535, 65536, 2**31 - 1,
                    2**31, -2**31, 2**32 - 1, 2**32, 2**53, 2**62,
                    2**63 - 1, 2**63, -2**63, 2**64, 10**20]
INTERESTING_FLOATS = ["0.0", "-0.0", "1.0", "-1.0", "1.0e+38", "3.5e+38",
                      "1.0e-45", "1.0e+308", "0x7FC00000", "0x7F800000",
                      "0xFF800000"]
INTERESTING_DIMS = [0, 1, 2, 3, 5, 16, 1000, 65536, 2**31, 2**32, 2**40,
                    2**62, 2**63 - 1]
ELEMENT_TYPES = ["f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8",
                 "i1", "index", "ui8", "si32", "f8E4M3FN", "complex<f32>",
                 "none", "tensor<2xf32>", "!emb.table_handle"]
EXTRA_STRINGS = ["", "x", "sum", "mean", "max", "none", "fatal", "warning",
                 "ignore", "sgd", "adam", "rowwise_adagrad", "cpu", "cuda",
                 "row_wise", "table_wise", "data_parallel", "a" * 300]
SHAPED = re.compile(r"^(tensor|memref|vector)<(.*)>$", re.S)
DIMS = re.compile(r"^((?:(?:\d+|\?)x)*)(.*)$", re.S)


def randomInt(rng, old=None):
    r = rng.random()
    if old is not None and r < 0.3:
        return rng.choice([old + 1, old - 1, old * 2, old // 2, -old])
    return rng.choice(INTERESTING_INTS)


#===-----------------------------------------------------------------------===#
# The corpus and what mutations draw from it
#===-----------------------------------------------------------------------===#

SPLIT = re.compile(r"^// -----.*$", re.M)
FUNC = re.compile(r"func\.func\s+(?:public\s+|private\s+)?@([\w.$-]+)\s*\(")


def stripComments(text):
    return "\n".join(line for line in text.split("\n")
                     if not line.lstrip().startswith("//")).strip("\n") + "\n"


class Corpus:
    def __init__(self, roots):
        self.chunks = []  # (path, text)
        for root in roots:
            paths = [root] if os.path.isfile(root) else sorted(
                os.path.join(d, f) for d, _, fs in os.walk(root)
                for f in fs if f.endswith(".mlir"))
            for path in paths:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for chunk in SPLIT.split(text):
                    chunk = stripComments(chunk)
                    if chunk.strip():
                        self.chunks.append((path, chunk))
        if not self.chunks:
            raise SystemExit("emb-fuzz: error: no .mlir files in the corpus")
        # Chunks that define a function and are not errors by design: what
        # emb-run and emb-compile take.
        self.models = [c for c in self.chunks if entries(c[1]) and not re.search(
            r"_invalid|upstream", os.path.basename(c[0]) + os.path.dirname(
                c[0]))]
        if not self.models:
            self.models = [c for c in self.chunks if entries(c[1])]
        if not self.models:
            raise SystemExit("emb-fuzz: error: no functions in the corpus")
        lines, strings, attrs, byKind = set(), set(EXTRA_STRINGS), set(), {}
        for _, chunk in self.chunks:
            for line in chunk.split("\n"):
                if line.strip() and len(line) < 400:
                    lines.add(line)
            for s, e, kind in tokens(chunk):
                t = chunk[s:e]
                if kind == "string" and len(t) < 100:
                    strings.add(t[1:-1])
                if len(t) < 200:
                    byKind.setdefault(kind, set()).add(t)
            for d in dictionaries(chunk):
                for s, e in dictEntries(chunk, d):
                    attrs.add(chunk[s:e])
        self.lines = sorted(lines)
        self.strings = sorted(strings)
        self.attrs = sorted(a for a in attrs if len(a) < 200)
        self.byKind = {k: sorted(v) for k, v in byKind.items()}


def entries(text):
    """The public functions with a body, by name."""
    out = []
    for m in FUNC.finditer(text):
        if "private" in text[m.start():m.end()]:
            continue
        close = matching(text, m.end() - 1)
        if close is None:
            continue
        rest = text[close:close + 2000]
        brace, eol = rest.find("{"), rest.find("\n")
        if brace >= 0 and (eol < 0 or brace < eol + 1):
            out.append(m.group(1))
    return out


def matching(text, open_at):
    """The index of the bracket that closes the one at `open_at`."""
    pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
    stack, i, n = [], open_at, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch in "([{":
            stack.append(pairs[ch])
        elif ch in ")]}":
            if not stack or stack.pop() != ch:
                return None
            if not stack:
                return i
        i += 1
    return None


def dictionaries(text):
    """Start offsets of attribute dictionaries: `{name = ...}`."""
    return [m.start() for m in re.finditer(r"\{(?=\s*[a-z_][\w.]* = )", text)]


def dictEntries(text, open_at):
    """(start, end) of each `name = value` of the dictionary at `open_at`."""
    close = matching(text, open_at)
    if close is None:
        return []
    out, depth, start, i = [], 0, open_at + 1, open_at + 1
    while i < close:
        ch = text[i]
        if ch == '"':
            i += 1
            while i < close and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and text[i - 1] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            out.append((start, i))
            start = i + 1
        i += 1
    out.append((start, close))
    return [(s + len(text[s:e]) - len(text[s:e].lstrip()), e)
            for s, e in out if text[s:e].strip()]


#===-----------------------------------------------------------------------===#
# Mutations of IR: each takes (text, rng, corpus) and returns the new text
# and a note, or None where it does not apply
#===-----------------------------------------------------------------------===#

def pick(rng, text, kinds):
    ts = [t for t in tokens(text) if t[2] in kinds]
    return rng.choice(ts) if ts else None


def mutateNumber(text, rng, corpus):
    t = pick(rng, text, ("number",))
    if not t:
        return None
    s, e, _ = t
    old = text[s:e]
    if "." in old or "e" in old.lower() and not old.startswith("0x"):
        new = rng.choice(INTERESTING_FLOATS)
    else:
        try:
            value = int(old, 0)
        except ValueError:
            value = None
        new = str(randomInt(rng, value))
    return splice(text, s, e, new), "number %s -> %s" % (old, new)


def mutateShape(text, rng, corpus):
    t = pick(rng, text, ("shaped",))
    if not t:
        return None
    s, e, _ = t
    m = SHAPED.match(text[s:e])
    body, encoding = m.group(2), ""
    top = body.find(",")
    if top >= 0:
        body, encoding = body[:top], body[top:]
    dm = DIMS.match(body)
    dims = [d for d in dm.group(1).split("x") if d]
    elem = dm.group(2)
    what = rng.randrange(6)
    if what == 0 and dims:
        dims[rng.randrange(len(dims))] = "?"
    elif what == 1 and dims:
        i = rng.randrange(len(dims))
        dims[i] = str(rng.choice(INTERESTING_DIMS))
    elif what == 2 and dims:
        del dims[rng.randrange(len(dims))]
    elif what == 3:
        dims.insert(rng.randrange(len(dims) + 1),
                    rng.choice(["1", "2", "?", "0", "3"]))
    elif what == 4:
        elem = rng.choice(ELEMENT_TYPES)
    elif dims:
        i = rng.randrange(len(dims))
        d = dims[i]
        dims[i] = str(int(d) + rng.choice([1, -1])) if d.isdigit() else "1"
    new = "%s<%s%s%s>" % (m.group(1), "".join(d + "x" for d in dims), elem,
                          encoding)
    # Most of the time every use of the type changes with it, so that the
    # IR still parses and the verifiers, passes and runtime see the shape.
    if rng.random() < 0.7:
        return text.replace(text[s:e], new), "shape %s -> %s everywhere" % (
            text[s:e], new)
    return splice(text, s, e, new), "shape %s -> %s" % (text[s:e], new)


ELEMENT_WORD = re.compile(r"\b(f16|bf16|f32|f64|i1|i8|i16|i32|i64|index)\b")


def mutateElementType(text, rng, corpus):
    found = list(ELEMENT_WORD.finditer(text))
    if not found:
        return None
    m = rng.choice(found)
    new = rng.choice(ELEMENT_TYPES[:12])
    if rng.random() < 0.5:  # everywhere, so that the IR still parses
        return (ELEMENT_WORD.sub(lambda w: new if w.group(0) == m.group(0)
                                 else w.group(0), text),
                "element type %s -> %s everywhere" % (m.group(0), new))
    return (splice(text, m.start(), m.end(), new),
            "element type %s -> %s" % (m.group(0), new))


def mutateString(text, rng, corpus):
    t = pick(rng, text, ("string",))
    if not t:
        return None
    s, e, _ = t
    new = '"%s"' % rng.choice(corpus.strings)
    return splice(text, s, e, new), "string %s -> %s" % (text[s:e], new)


def mutateAttribute(text, rng, corpus):
    ds = dictionaries(text)
    if not ds:
        return None
    d = rng.choice(ds)
    es = dictEntries(text, d)
    what = rng.randrange(3)
    if what == 0 and es:  # delete an entry
        s, e = rng.choice(es)
        while e < len(text) and text[e] in ", ":
            e += 1
        return splice(text, s, e, ""), "attribute %s deleted" % text[s:e]
    if what == 1 and es:  # replace an entry's value with another's
        s, e = rng.choice(es)
        new = rng.choice(corpus.attrs)
        return splice(text, s, e, new), "attribute %s -> %s" % (text[s:e],
                                                                 new)
    new = rng.choice(corpus.attrs)  # add one
    return splice(text, d + 1, d + 1, new + ", "), "attribute %s added" % new


def mutateDenseArray(text, rng, corpus):
    t = pick(rng, text, ("array",))
    if not t:
        return None
    s, e, _ = t
    m = re.match(r"array<([\w]+)(?::(.*))?>$", text[s:e], re.S)
    if not m:
        return None
    elem, values = m.group(1), [v.strip() for v in (m.group(2) or "").split(
        ",") if v.strip()]
    what = rng.randrange(6)
    if what == 0 and values:
        del values[rng.randrange(len(values))]
    elif what == 1:
        values.insert(rng.randrange(len(values) + 1),
                      str(rng.choice(INTERESTING_INTS[:12])))
    elif what == 2 and values:
        i = rng.randrange(len(values))
        try:
            values[i] = str(randomInt(rng, int(values[i])))
        except ValueError:
            values[i] = "0"
    elif what == 3:
        elem = rng.choice(["i64", "i32", "i16", "i8", "i1", "f32", "index"])
    elif what == 4:
        values = []
    elif values:
        values = values + values
    new = "array<%s%s>" % (elem, (": " + ", ".join(values)) if values else "")
    return splice(text, s, e, new), "array %s -> %s" % (text[s:e], new)


GENERIC_OP = re.compile(r'"[a-z_]+\.[\w.]+"\(')


def listItems(text, open_at, close):
    """(start, end) of the comma-separated items between the brackets."""
    out, depth, start = [], 0, open_at + 1
    for i in range(open_at + 1, close):
        ch = text[i]
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>" and not (ch == ">" and text[i - 1] == "-"):
            depth -= 1
        elif ch == "," and depth == 0:
            out.append((start, i))
            start = i + 1
    if text[start:close].strip():
        out.append((start, close))
    return out


def editList(text, rng, open_at, what, index, other):
    """Deletes (0), duplicates (1) or swaps with `other` (2) item `index`."""
    close = matching(text, open_at)
    if close is None:
        return None
    items = [text[s:e].strip() for s, e in listItems(text, open_at, close)]
    if index >= len(items):
        return None
    if what == 0:
        del items[index]
    elif what == 1:
        items.insert(index, items[index])
    elif other < len(items):
        items[index], items[other] = items[other], items[index]
    return splice(text, open_at + 1, close, ", ".join(items))


def mutateOperands(text, rng, corpus):
    """An operand of a generic op deleted, duplicated or swapped, and, half
    of the time, its type in the op's function type too."""
    ops = list(GENERIC_OP.finditer(text))
    if not ops:
        return None
    m = rng.choice(ops)
    open_at = m.end() - 1
    close = matching(text, open_at)
    if close is None:
        return None
    n = len(listItems(text, open_at, close))
    if n == 0:
        return None
    what, index, other = rng.randrange(3), rng.randrange(n), rng.randrange(n)
    eol = text.find("\n", close)
    eol = len(text) if eol < 0 else eol
    types = text.find(": (", close, eol)
    new = text
    if types >= 0 and rng.random() < 0.5:
        edited = editList(new, rng, types + 2, what, index, other)
        new = edited if edited is not None else new
    edited = editList(new, rng, open_at, what, index, other)
    if edited is None:
        return None
    return edited, "operand %d of %s: %s" % (
        index, m.group(0)[:-1], ("deleted", "duplicated", "swapped")[what])


def mutateValue(text, rng, corpus):
    vs = [t for t in tokens(text) if t[2] == "value"]
    if len(vs) < 2:
        return None
    s, e, _ = rng.choice(vs)
    names = sorted({text[a:b] for a, b, _ in vs})
    new = rng.choice(names)
    return splice(text, s, e, new), "value %s -> %s" % (text[s:e], new)


def mutateToken(text, rng, corpus):
    ts = tokens(text)
    if not ts:
        return None
    s, e, kind = rng.choice(ts)
    what = rng.randrange(4)
    if what == 0:
        return splice(text, s, e, ""), "token %r deleted" % text[s:e]
    if what == 1:
        return splice(text, s, s, text[s:e] + " "), "token %r doubled" % (
            text[s:e])
    pool = corpus.byKind.get(kind if what == 2 else rng.choice(
        sorted(corpus.byKind)), [])
    if not pool:
        return None
    new = rng.choice(pool)
    if what == 2:
        return splice(text, s, e, new), "token %r -> %r" % (text[s:e], new)
    return splice(text, s, s, new + " "), "token %r inserted" % new


def mutateLine(text, rng, corpus):
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    what = rng.randrange(4)
    if what == 0:
        note = "line %d deleted" % (i + 1)
        del lines[i]
    elif what == 1:
        note = "line %d doubled" % (i + 1)
        lines.insert(i, lines[i])
    elif what == 2:
        note = "lines %d and %d swapped" % (i + 1, j + 1)
        lines[i], lines[j] = lines[j], lines[i]
    else:
        new = rng.choice(corpus.lines)
        note = "line %r inserted" % new[:60]
        lines.insert(i, new)
    return "\n".join(lines), note


# Each mutation with its weight for emb-opt, and for the models emb-run and
# emb-compile take, where mutations that keep the IR parsing (a shape or an
# element type everywhere, an attribute, a number) take most of the draws,
# so that the JIT and the runtime see the result.
MUTATIONS = [
    (mutateNumber, 3, 3), (mutateShape, 3, 5), (mutateElementType, 2, 2),
    (mutateString, 2, 2), (mutateAttribute, 2, 2), (mutateDenseArray, 2, 1),
    (mutateOperands, 2, 0.5), (mutateValue, 1, 0.3), (mutateToken, 3, 0.5),
    (mutateLine, 2, 0.5),
]


def mutateIR(text, rng, corpus, count, model=False):
    notes = []
    funcs = [m[0] for m in MUTATIONS]
    weights = [m[2 if model else 1] for m in MUTATIONS]
    tries = 0
    while len(notes) < count and tries < 50:
        tries += 1
        f = rng.choices(funcs, weights)[0]
        r = f(text, rng, corpus)
        if r is None or r[0] == text:
            continue
        text, note = r
        notes.append(note)
    return text, notes


#===-----------------------------------------------------------------------===#
# .npy inputs for a function's signature, and their mutations
#===-----------------------------------------------------------------------===#

DESCR = {"f32": "<f4", "bf16": "<f4", "f16": "<f2", "f64": "<f8",
         "i64": "<i8", "i32": "<i4", "i8": "|i1", "i1": "|i1"}
PACK = {"<f4": "f", "<f2": "e", "<f8": "d", "<i8": "q", "<i4": "i",
        "|i1": "b", "<u2": "H"}


def signature(text, entry):
    """[(name, dims, element type)] of `entry`'s arguments, or None where
    one is not a ranked tensor of a type .npy files hold."""
    for m in FUNC.finditer(text):
        if m.group(1) != entry:
            continue
        close = matching(text, m.end() - 1)
        if close is None:
            return None
        args = []
        for s, e in listItems(text, m.end() - 1, close):
            am = re.match(r"\s*(%[\w.$-]+)\s*:\s*(tensor<[^>]*>)", text[s:e])
            if not am:
                return None
            dm = DIMS.match(SHAPED.match(am.group(2)).group(2))
            elem = dm.group(2)
            if elem not in DESCR:
                return None
            dims = [d for d in dm.group(1).split("x") if d]
            args.append((am.group(1), dims, elem))
        return args
    return None


def npyBytes(descr, shape, values, version=(1, 0), fortran=False,
             header_text=None):
    shape_text = "(" + ", ".join(str(d) for d in shape) + (
        ",)" if len(shape) == 1 else ")")
    header = header_text or "{'descr': '%s', 'fortran_order': %s, " \
        "'shape': %s, }" % (descr, "True" if fortran else "False", shape_text)
    length_bytes = 2 if version[0] <= 1 else 4
    header += " " * ((64 - (8 + length_bytes + len(header) + 1) % 64) % 64)
    header += "\n"
    out = b"\x93NUMPY" + bytes(version)
    out += struct.pack("<H" if length_bytes == 2 else "<I", len(header))
    out += header.encode("latin1")
    code = PACK[descr]
    out += b"".join(struct.pack("<" + code, v) for v in values)
    return out


def npyInputs(rng, args):
    """Inputs valid for most models, by the argument's name as emb's tests
    and examples name them: offsets (`off`) from 0 to the length of the
    ids, nondecreasing; cand_to_user (`c2u`, `user`) sorted in [0, 2);
    lengths (`len`) in [0, 3]; other integers (ids) in [0, 4); floats in
    [-1, 1). Dynamic dims are 0 to 8."""
    shapes = [[int(d) if d != "?" else rng.choice([0, 1, 2, 3, 4, 8])
               for d in dims] for _, dims, _ in args]
    role = {}
    for (name, dims, elem), shape in zip(args, shapes):
        low = name.lower()
        role[name] = ("float" if DESCR[elem] in ("<f4", "<f2", "<f8") else
                      "offsets" if "off" in low else
                      "users" if "c2u" in low or "user" in low else
                      "lengths" if "len" in low else "ids")
    idsLength = next((shape[0] for (name, _, _), shape in zip(args, shapes)
                      if role[name] == "ids" and len(shape) == 1), 4)
    files = []
    for (name, dims, elem), shape in zip(args, shapes):
        count = 1
        for d in shape:
            count *= d
        if count > 1 << 16:
            return None
        r = role[name]
        if r == "float":
            values = [rng.uniform(-1, 1) for _ in range(count)]
        elif r == "offsets":
            values = sorted(rng.randrange(idsLength + 1)
                            for _ in range(count))
            if values:
                values[0], values[-1] = 0, idsLength
        elif r == "users":
            values = sorted(rng.randrange(2) for _ in range(count))
        elif r == "lengths":
            values = [rng.randrange(4) for _ in range(count)]
        else:
            values = [rng.randrange(4) for _ in range(count)]
        if DESCR[elem] == "|i1":
            values = [v & 1 for v in values]
        files.append({"descr": DESCR[elem], "shape": shape, "values": values,
                      "elem": elem})
    return files


NPY_MUTATIONS = ("version", "descr", "shape", "fortran", "truncate",
                 "trailing", "value", "header", "magic", "length")


def mutateNpy(rng, f):
    """The bytes of one input, mutated one way, and a note."""
    descr, shape, values = f["descr"], list(f["shape"]), list(f["values"])
    # Values most often: ids, offsets and lengths out of range reach the
    # runtime's checks; the rest is refused while reading.
    what = rng.choice(NPY_MUTATIONS + ("value",) * 6)
    version, fortran, header_text = (1, 0), False, None
    note = what
    if what == "version":
        version = rng.choice([(0, 0), (1, 1), (2, 0), (3, 0), (4, 0),
                              (255, 255)])
        note += " %d.%d" % version
    elif what == "descr":
        descr = rng.choice(["<f4", "<f2", "<f8", "<i8", "<i4", "|i1",
                            "<u2", ">f4", "|b1", "<c8", "O"])
        note += " " + descr
        if descr not in PACK:
            header_text = "{'descr': '%s', 'fortran_order': False, " \
                "'shape': (%s), }" % (descr, ", ".join(map(str, shape)) + (
                    "," if len(shape) == 1 else ""))
            descr = f["descr"]
        else:
            values = [int(v) if descr in ("<i8", "<i4", "|i1", "<u2", "|b1")
                      else float(v) for v in values]
            if descr in ("<u2",):
                values = [v & 0xFFFF for v in values]
            if descr in ("|i1", "|b1"):
                values = [max(-128, min(127, v)) for v in values]
                descr = "|i1"
    elif what == "shape":
        if shape and rng.random() < 0.7:
            i = rng.randrange(len(shape))
            shape[i] = rng.choice(INTERESTING_DIMS + [-1, 10**20])
        elif rng.random() < 0.5:
            shape.append(rng.choice([1, 2]))
        else:
            shape = shape[:-1]
        note += " " + repr(shape)
        header_text = "{'descr': '%s', 'fortran_order': False, " \
            "'shape': (%s), }" % (descr, ", ".join(map(str, shape)) + (
                "," if len(shape) == 1 else ""))
    elif what == "fortran":
        fortran = True
    elif what == "value" and values:
        i = rng.randrange(len(values))
        if descr in ("<f4", "<f2", "<f8"):
            values[i] = rng.choice([float("nan"), float("inf"), -1e30, 1e30,
                                    65504.0, -0.0])
        else:
            lim = {"<i8": 63, "<i4": 31, "|i1": 7}[descr]
            values[i] = max(-2**lim, min(2**lim - 1, rng.choice(
                INTERESTING_INTS)))
        note += " [%d] = %r" % (i, values[i])
    elif what == "header":
        header_text = rng.choice([
            "{}", "{'descr': '%s'}" % descr, "not a dict",
            "{'descr': '%s', 'fortran_order': False, 'shape': (" % descr,
            "{'descr': '%s', 'fortran_order': False, 'shape': (1, 2, 3, 4, "
            "5, 6, 7, 8, 9), }" % descr,
            "{'shape': %s, 'descr': '%s', 'fortran_order': False}" % (
                "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1
                                                    else "") + ")", descr),
            "{'descr': '%s', 'fortran_order': False, 'shape': ('a',), }" % (
                descr),
            "{'descr': '%s', 'fortran_order': False, 'shape': (), }" % descr,
            "\x00" * 40, "{'descr': '" + "x" * 70000 + "'}"])
        note += " %r" % header_text[:60]
    try:
        data = npyBytes(descr, shape if header_text is None else f["shape"],
                        values, version, fortran, header_text)
    except (struct.error, OverflowError):
        data = npyBytes(f["descr"], f["shape"], f["values"])
    if what == "truncate":
        data = data[:rng.randrange(len(data))]
        note += " to %d bytes" % len(data)
    elif what == "trailing":
        data += bytes(rng.choice([1, 4, 64]))
    elif what == "magic":
        i = rng.randrange(8)
        data = data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
        note += " byte %d" % i
    elif what == "length":
        data = data[:8] + struct.pack("<H", rng.choice(
            [0, 1, 0xFFFF, min(len(data), 0xFFFF)])) + data[10:]
    return data, note


#===-----------------------------------------------------------------------===#
# Generated models for the rule every rewrite keeps (the compare target):
# each generator writes a small model of one class of input a rewrite must
# treat as the model as written does, its inputs as .npy files (valid, bad
# in a way both sides must report, or bad in the way the class is about),
# and the pipelines that rewrite it. emb-run --compare-unoptimized then
# checks that both sides return the same results and leave the same updates
# in place, or both report an error.
#===-----------------------------------------------------------------------===#

def tensorType(dims, elem):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in dims), elem)


def floats(rng, count):
    return [rng.uniform(-1, 1) for _ in range(count)]


def validOffsets(rng, bags, total):
    """bags + 1 nondecreasing offsets from 0 to total."""
    cuts = sorted(rng.randrange(total + 1) for _ in range(bags - 1))
    return [0] + cuts + [total]


def outOfRange(rng, rows):
    return rng.choice([rows, rows + 1, rows + 7, -1])


def genBadOffsets(rng):
    """Per-feature embedding bags (concatenated, as emb-batch-tables batches
    them into one emb.tbe) whose offsets are valid, or one feature's first
    offset is not 0, or its last is short of or past its ids, or an id is
    out of range: each bag checks its own offsets, and so must the batched
    lookup."""
    features, bags, dim = rng.choice([2, 3]), rng.choice([1, 2, 3, 4]), \
        rng.choice([2, 4])
    ity = rng.choice(["i64", "i32"])
    mode = rng.choice(["sum", "mean"])
    shared = rng.random() < 0.3
    rows = [rng.choice([5, 8, 13]) for _ in range(1 if shared else features)]
    counts = [rng.randint(1, 3 * bags) for _ in range(features)]
    variant = rng.choice(["valid", "valid", "ids_out_of_range",
                          "first_not_zero", "last_short", "last_long"])
    offsets = [validOffsets(rng, bags, n) for n in counts]
    ids = [[rng.randrange(rows[0 if shared else f]) for _ in range(n)]
           for f, n in enumerate(counts)]
    f = rng.randrange(features)
    n = counts[f]
    if variant == "ids_out_of_range":
        ids[f][rng.randrange(n)] = outOfRange(rng, rows[0 if shared else f])
    elif variant == "first_not_zero":
        first = rng.randint(1, n)
        offsets[f] = [max(o, first) for o in offsets[f]]
    elif variant == "last_short":
        last = n - rng.randint(1, n)
        offsets[f] = [min(o, last) for o in offsets[f]]
    elif variant == "last_long":
        offsets[f][-1] = n + rng.randint(1, 3)
    args, files, lines, results = [], [], [], []
    for t, r in enumerate(rows):
        args.append("%%t%d: %s" % (t, tensorType([r, dim], "f32")))
        files.append(("<f4", [r, dim], floats(rng, r * dim)))
    for k in range(features):
        it, ot = tensorType([counts[k]], ity), tensorType([bags + 1], ity)
        args += ["%%i%d: %s" % (k, it), "%%o%d: %s" % (k, ot)]
        files.append((DESCR[ity], [counts[k]], ids[k]))
        files.append((DESCR[ity], [bags + 1], offsets[k]))
        table = 0 if shared else k
        tt = tensorType([rows[table], dim], "f32")
        lines.append('  %%e%d = "emb.embedding_bag"(%%t%d, %%i%d, %%o%d) '
                     '{mode = "%s"} : (%s, %s, %s) -> %s' % (
                         k, table, k, k, mode, tt, it, ot,
                         tensorType([bags, dim], "f32")))
        results.append("%%e%d" % k)
    out = tensorType([bags, features * dim], "f32")
    lines.append("  %%x = tensor.concat dim(1) %s : (%s) -> %s" % (
        ", ".join(results),
        ", ".join([tensorType([bags, dim], "f32")] * features), out))
    lines.append("  return %%x : %s" % out)
    text = "func.func @bags(%s) -> %s {\n%s\n}\n" % (", ".join(args), out,
                                                    "\n".join(lines))
    return ("bags", text, files, variant,
            ["emb-batch-tables", "emb-from-torch"])


def genUnreadIndex(rng):
    """A broadcast of a broadcast, broadcast(broadcast(u, i1), i2), which
    emb-sink-broadcast composes into broadcast(u, broadcast(i1, i2)): an
    out-of-range entry of i1 is an error as written whether or not i2 reads
    it, and must stay one."""
    users, mid, cands, dim = rng.choice([2, 3, 5]), rng.choice([2, 3, 4]), \
        rng.choice([1, 3, 6]), rng.choice([1, 4])
    ity = rng.choice(["i64", "i32"])
    variant = rng.choice(["valid", "valid", "read_out_of_range",
                          "unread_out_of_range", "i2_out_of_range"])
    i1 = [rng.randrange(users) for _ in range(mid)]
    i2 = [rng.randrange(mid) for _ in range(cands)]
    p = rng.randrange(mid)
    if variant == "read_out_of_range":
        i1[p] = outOfRange(rng, users)
        i2[rng.randrange(cands)] = p
    elif variant == "unread_out_of_range":
        i1[p] = outOfRange(rng, users)
        i2 = [rng.choice([j for j in range(mid) if j != p])
              for _ in range(cands)]
    elif variant == "i2_out_of_range":
        i2[rng.randrange(cands)] = outOfRange(rng, mid)
    ut, mt, ct = (tensorType([n, dim], "f32") for n in (users, mid, cands))
    t1, t2 = tensorType([mid], ity), tensorType([cands], ity)
    text = ('func.func @composed(%%u: %s, %%i1: %s, %%i2: %s) -> %s {\n'
            '  %%b1 = "emb.broadcast"(%%u, %%i1) : (%s, %s) -> %s\n'
            '  %%b2 = "emb.broadcast"(%%b1, %%i2) : (%s, %s) -> %s\n'
            '  return %%b2 : %s\n}\n') % (ut, t1, t2, ct, ut, t1, mt, mt, t2,
                                          ct, ct)
    files = [("<f4", [users, dim], floats(rng, users * dim)),
             (DESCR[ity], [mid], i1), (DESCR[ity], [cands], i2)]
    return ("composed", text, files, variant,
            ["emb-sink-broadcast", "emb-ikbo"])


def genUnreadLengths(rng):
    """Attention of candidates over their users' keys with key lengths, all
    broadcast by cand_to_user (and q too, which emb-sink-broadcast runs per
    user), which emb-fuse-broadcast makes emb.ikbo_attention of the users'
    lengths: the length of a user no candidate reads is not checked as
    written, and must not be after."""
    users, cands = rng.choice([2, 3, 4]), rng.choice([1, 2, 5])
    lq, lk, heads, dh = rng.choice([1, 2]), rng.choice([1, 3, 4]), \
        rng.choice([1, 2]), rng.choice([4, 8])
    ity, ft = rng.choice(["i64", "i32"]), rng.choice(["f32", "f16"])
    sink = rng.random() < 0.4
    variant = rng.choice(["valid", "valid", "read_out_of_range",
                          "unread_out_of_range", "c2u_out_of_range"])
    c2u = sorted(rng.randrange(users) for _ in range(cands))
    lengths = [rng.randint(0, lk) for _ in range(users)]
    p = rng.randrange(users)
    bad = rng.choice([lk + 1, lk + 5, -1])
    if variant == "read_out_of_range":
        c2u[rng.randrange(cands)] = p
        lengths[p] = bad
    elif variant == "unread_out_of_range":
        c2u = sorted(rng.choice([u for u in range(users) if u != p])
                     for _ in range(cands))
        lengths[p] = bad
    elif variant == "c2u_out_of_range":
        c2u[rng.randrange(cands)] = outOfRange(rng, users)
    qt = tensorType([users if sink else cands, lq, heads, dh], ft)
    qc = tensorType([cands, lq, heads, dh], ft)
    kt, kc = (tensorType([n, lk, heads, dh], ft) for n in (users, cands))
    it, lt, lc = tensorType([cands], ity), tensorType([users], ity), \
        tensorType([cands], ity)
    lines = ['  %%kb = "emb.broadcast"(%%k, %%c2u) : (%s, %s) -> %s' % (
                 kt, it, kc),
             '  %%vb = "emb.broadcast"(%%v, %%c2u) : (%s, %s) -> %s' % (
                 kt, it, kc),
             '  %%lb = "emb.broadcast"(%%len, %%c2u) : (%s, %s) -> %s' % (
                 lt, it, lc)]
    q = "%q"
    if sink:
        lines.append('  %%qb = "emb.broadcast"(%%q, %%c2u) : (%s, %s) -> %s'
                     % (qt, it, qc))
        q = "%qb"
    lines.append('  %%o = "emb.attention"(%s, %%kb, %%vb, %%lb) : (%s, %s, '
                 '%s, %s) -> %s' % (q, qc, kc, kc, lc, qc))
    text = ("func.func @attention(%%q: %s, %%k: %s, %%v: %s, %%c2u: %s, "
            "%%len: %s) -> %s {\n%s\n  return %%o : %s\n}\n") % (
                qt, kt, kt, it, lt, qc, "\n".join(lines), qc)
    fd = DESCR[ft]
    qn = (users if sink else cands) * lq * heads * dh
    kn = users * lk * heads * dh
    files = [(fd, [users if sink else cands, lq, heads, dh], floats(rng, qn)),
             (fd, [users, lk, heads, dh], floats(rng, kn)),
             (fd, [users, lk, heads, dh], floats(rng, kn)),
             (DESCR[ity], [cands], c2u), (DESCR[ity], [users], lengths)]
    return ("attention", text, files, variant,
            ["emb-sink-broadcast", "emb-ikbo"] if sink
            else ["emb-fuse-broadcast", "emb-ikbo"])


def genUnusedUpdate(rng):
    """A training step whose backward's results nobody reads: the backward
    still updates the tables (and optimizer states) it was given in place,
    which a step run in a loop keeps (docs/dialect.md, the aliasing
    contract), so it is not dead; or one that returns its updated table.
    Rowwise Adagrad's row states are f32, bf16 or fp8 e4m3 codes with the
    table's scale after them (momentum1_precision)."""
    features, bags, dim, rows = rng.choice([1, 2]), rng.choice([1, 2, 3]), \
        rng.choice([2, 4]), rng.choice([4, 7])
    adagrad = rng.random() < 0.5
    precision = rng.choice(["f32", "bf16", "fp8_e4m3"]) if adagrad else "f32"
    fp8 = precision == "fp8_e4m3"
    variant = rng.choice(["unused", "unused", "returned", "ids_out_of_range"])
    count = rng.randint(1, 2 * features * bags)
    ids = [rng.randrange(rows) for _ in range(count)]
    if variant == "ids_out_of_range":
        ids[rng.randrange(count)] = outOfRange(rng, rows)
    offsets = validOffsets(rng, features * bags, count)
    width = features * dim
    it, ot = tensorType([count], "i64"), tensorType([features * bags + 1],
                                                    "i64")
    tt, gt = tensorType([rows, dim], "f32"), tensorType([bags, width], "f32")
    st = tensorType([rows], {"f32": "f32", "bf16": "bf16"}.get(precision,
                                                                "i8"))
    kt, ht = tensorType([1], "f32"), tensorType([5], "f32")
    ft = "array<i64: %s>" % ", ".join(["0"] * features)
    args = ["%%ids: %s" % it, "%%offsets: %s" % ot, "%%table: %s" % tt,
            "%%grad: %s" % gt, "%%hyper: %s" % ht]
    files = [("<i8", [count], ids), ("<i8", [len(offsets)], offsets),
             ("<f4", [rows, dim], floats(rng, rows * dim)),
             ("<f4", [bags, width], floats(rng, bags * width)),
             ("<f4", [5], [rng.uniform(0.05, 1) for _ in range(5)])]
    lines = ['  %%h = "emb.table"(%%table) : (%s) -> !emb.table_handle' % tt]
    if adagrad:
        args.append("%%state: %s" % st)
        # fp8: codes of values in [0, 1) (0x38 is 1.0 in e4m3).
        files.append(("|i1", [rows], [rng.randrange(0x38) for _ in range(rows)])
                     if fp8 else ("<f4", [rows], [rng.uniform(0, 1)
                                                  for _ in range(rows)]))
        lines.append('  %%st = "emb.state"(%%state) : (%s) -> '
                     '!emb.state_handle' % st)
    if fp8:
        args.append("%%scale: %s" % kt)
        files.append(("<f4", [1], [rng.uniform(0.5, 2)]))
        lines.append('  %%sk = "emb.state"(%%scale) : (%s) -> '
                     '!emb.state_handle' % kt)
    lines.append('  %%pooled = "emb.tbe"(%%ids, %%offsets, %%h) {pooling = '
                 '"sum", feature_tables = %s, operandSegmentSizes = '
                 'array<i32: 1, 1, 1, 0>} : (%s, %s, !emb.table_handle) -> %s'
                 % (ft, it, ot, gt))
    n = (2 if fp8 else 1) if adagrad else 0
    handles = ", ".join(["!emb.table_handle"] + ["!emb.state_handle"] * n)
    attr = ', momentum1_precision = "%s"' % precision \
        if precision != "f32" else ""
    lines.append('  %%new%s = "emb.tbe_backward"(%%ids, %%offsets, %%h, '
                 '%%grad, %s%%hyper) {optimizer = "%s"%s, pooling = "sum", '
                 'feature_tables = %s, operandSegmentSizes = array<i32: 1, 1, '
                 '1, 0, 1, %d, 0, 1, 0>, resultSegmentSizes = array<i32: 1, '
                 '%d, 0>} : (%s, %s, !emb.table_handle, %s, %s%s) -> %s' % (
                     ":%d" % (n + 1) if n else "",
                     ("%st, %sk, " if fp8 else "%st, ") if adagrad else "",
                     "rowwise_adagrad" if adagrad else "sgd", attr, ft, n, n,
                     it, ot, gt, "!emb.state_handle, " * n, ht,
                     "(%s)" % handles if n else handles))
    new = "%new#0" if adagrad else "%new"
    if variant == "returned":
        lines.append('  %%t = "emb.table_value"(%s) : (!emb.table_handle) '
                     '-> %s' % (new, tt))
        lines.append("  return %%pooled, %%t : %s, %s" % (gt, tt))
        results = "(%s, %s)" % (gt, tt)
    else:
        lines.append("  return %%pooled : %s" % gt)
        results = gt
    text = "func.func @step(%s) -> %s {\n%s\n}\n" % (", ".join(args),
                                                    results, "\n".join(lines))
    return ("step", text, files, variant, ["emb-erase-dead", "emb-from-torch"])


GENERATORS = {"bad_offsets": genBadOffsets, "unread_index": genUnreadIndex,
              "unread_lengths": genUnreadLengths,
              "unused_update": genUnusedUpdate}


def generate(rng, name=None):
    """A generated model (by `name`, or one drawn): its text, its .npy
    inputs by file name, the emb-run command and notes."""
    name = name or rng.choice(sorted(GENERATORS))
    entry, text, inputs, variant, pipelines = GENERATORS[name](rng)
    text = "// emb-fuzz: generator %s, variant %s\n%s" % (name, variant, text)
    files, names = {}, []
    for i, (descr, shape, values) in enumerate(inputs):
        names.append("in%d.npy" % i)
        files[names[-1]] = npyBytes(descr, shape, values)
    pipeline = rng.choice(pipelines)
    argv = ["emb-run", "input.mlir", "--entry", entry, "--inputs",
            ",".join(names), "--compare-unoptimized", "--pipeline", pipeline]
    return text, files, argv, ["generator %s, variant %s" % (name, variant)]


#===-----------------------------------------------------------------------===#
# One execution
#===-----------------------------------------------------------------------===#

class Tools:
    """Runs the built tools: one command in a folder of its own."""

    def __init__(self, binDir, timeout):
        self.bin, self.timeout = binDir, timeout
        self.env = dict(os.environ)
        for k, v in SANITIZER_ENV.items():
            self.env.setdefault(k, v)
        self.env.pop("EMB_TEST_CRASH", None)

    def tool(self, name):
        return os.path.join(self.bin, name)

    def execute(self, argv, text, files, workdir):
        """Runs `argv` on `text` (input.mlir) and `files` in `workdir`:
        (outcome, key, exit status, output, seconds)."""
        os.makedirs(os.path.join(workdir, "out"), exist_ok=True)
        with open(os.path.join(workdir, "input.mlir"), "w",
                  encoding="utf-8", errors="replace") as f:
            f.write(text)
        for name, data in files.items():
            with open(os.path.join(workdir, name), "wb") as f:
                f.write(data)
        cmd = [self.tool(argv[0])] + argv[1:]
        start = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, cwd=workdir, env=self.env,
                                    stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT,
                                    start_new_session=True)
        except OSError as e:
            raise SystemExit("emb-fuzz: error: cannot run %s: %s" % (cmd[0],
                                                                      e))
        try:
            out, _ = proc.communicate(timeout=self.timeout)
            timedOut = False
        except subprocess.TimeoutExpired:
            try:  # the tool's process group: it and anything it started
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, _ = proc.communicate()
            timedOut = True
        out = out.decode("utf-8", errors="replace")
        outcome, key = classify(proc.returncode, out, timedOut, argv, text)
        return outcome, key, proc.returncode, out, time.monotonic() - start


class Fuzzer:
    """Plans execution i from (seed, i) and runs it."""

    def __init__(self, args):
        self.args = args
        self.tools = Tools(args.bin_dir, args.timeout)
        self.tool = self.tools.tool
        self.corpus = Corpus(args.corpus)
        self.passes = self.listPasses()

    def listPasses(self):
        """emb's passes and pipelines, with their options, from
        emb-opt --list-passes; and some upstream passes."""
        passes = [("canonicalize", []), ("cse", []),
                  ("emb-lower-to-llvm", [("target", ["cpu", "cuda"])])]
        try:
            out = subprocess.run([self.tool("emb-opt"), "--list-passes"],
                                 capture_output=True, text=True, timeout=60,
                                 env=os.environ).stdout
        except (OSError, subprocess.TimeoutExpired):
            return passes
        for line in out.split("\n"):
            m = re.match(r"\s+--([\w-]+)\s", line)
            if m:
                passes.append((m.group(1), []))
                continue
            m = re.match(r"\s+([\w-]+)=(<int>|[\w|]+):", line)
            if m and passes:
                values = (["0", "1", "-1", "3", "64", "100000", "2147483648",
                           "x"] if m.group(2) == "<int>"
                          else m.group(2).split("|") + ["bogus"])
                passes[-1][1].append((m.group(1), values))
        return passes

    def passFlag(self, rng):
        name, options = rng.choice(self.passes)
        if options and rng.random() < 0.4:
            opt, values = rng.choice(options)
            return "--%s=%s=%s" % (name, opt, rng.choice(values))
        return "--" + name

    def plan(self, index):
        """What execution `index` runs: deterministic in (seed, index)."""
        rng = random.Random("%d/%d" % (self.args.seed, index))
        targets = [t for t in self.args.targets]
        target = rng.choices(targets, [self.args.weights[t]
                                       for t in targets])[0]
        # A tenth of the time (a fifth for models) no mutation: a pass, pipeline or flag on an
        # input its tests do not give it.
        count = rng.choice([0, 1, 1, 1, 1, 2, 2, 2, 3, 4] if target == "opt"
                           else [0, 0, 1, 1, 1, 1, 1, 1, 2, 3])
        p = {"index": index, "target": target, "files": {}}
        if target == "opt":
            path, text = rng.choice(self.corpus.chunks)
            text, notes = mutateIR(text, rng, self.corpus, count)
            flags = [self.passFlag(rng) for _ in range(rng.choice([1, 1, 2]))]
            if rng.random() < 0.1:
                flags.append("--mlir-print-op-generic")
            p["argv"] = ["emb-opt"] + flags + ["input.mlir"]
        elif target in ("run", "compile"):
            for _ in range(20):
                path, text = rng.choice(self.corpus.models)
                mutated, notes = mutateIR(text, rng, self.corpus, count,
                                          model=True)
                if not tooLargeToRun(mutated):
                    break
            else:
                mutated, notes = text, []
            text = mutated
            names = entries(text) or ["main"]
            entry = rng.choice(names)
            pipeline = rng.choice([None, None, "emb-ikbo", "emb-from-torch",
                                   "emb-batch-tables", "canonicalize",
                                   "emb-raise"])
            if target == "run":
                argv = ["emb-run", "input.mlir", "--entry", entry,
                        "--random-inputs", "--seed", str(rng.randrange(100)),
                        "--dynamic-size", str(rng.choice([0, 1, 2, 4, 7]))]
                if pipeline:
                    argv += ["--pipeline", pipeline]
                if rng.random() < 0.2:
                    argv.append("--compare-unoptimized")
                argv.append("--print")
            else:
                argv = ["emb-compile", "input.mlir", "--entry", entry,
                        "-o", "out/model", "--target",
                        rng.choice(["cpu", "cpu", "cpu", "cuda"])]
                if pipeline:
                    argv += ["--pipeline", pipeline]
                if rng.random() < 0.3:
                    argv.append("--with-reference")
            p["argv"] = argv
        elif target == "compare":
            text, p["files"], p["argv"], notes = generate(rng)
            path = "generated"
            p.update(source=path, text=text, notes=notes)
            return p
        else:  # npy: the model as written, its inputs mutated
            for _ in range(50):
                path, text = rng.choice(self.corpus.models)
                entry = rng.choice(entries(text))
                sig = signature(text, entry)
                files = npyInputs(rng, sig) if sig else None
                if files and not tooLargeToRun(text):
                    break
            else:
                return self.planFallback(index, rng)
            notes = []
            names = []
            # One input in eight runs as written: the model's own numbers.
            mutate = set(rng.sample(range(len(files)), min(
                len(files), rng.choice([0, 1, 1, 1, 1, 1, 2, 2]))))
            for i, f in enumerate(files):
                if i in mutate:
                    data, note = mutateNpy(rng, f)
                    notes.append("input %d: %s" % (i, note))
                else:
                    data = npyBytes(f["descr"], f["shape"], f["values"])
                p["files"]["in%d.npy" % i] = data
                names.append("in%d.npy" % i)
            p["argv"] = ["emb-run", "input.mlir", "--entry", entry,
                         "--inputs", ",".join(names), "--print"]
            # A fifth of the time against a rewrite: bad inputs must be
            # refused on both sides, or on neither.
            if rng.random() < 0.2:
                p["argv"] += ["--compare-unoptimized", "--pipeline",
                              rng.choice(["emb-ikbo", "emb-from-torch",
                                          "emb-batch-tables", "emb-erase-dead",
                                          "emb-raise"])]
        p.update(source=path, text=text, notes=notes)
        return p

    def planFallback(self, index, rng):
        path, text = rng.choice(self.corpus.chunks)
        return {"index": index, "target": "opt", "files": {}, "source": path,
                "text": text, "notes": ["no model with .npy inputs"],
                "argv": ["emb-opt", "input.mlir"]}

    def runOne(self, index, workroot):
        p = self.plan(index)
        workdir = os.path.join(workroot, "w%d" % threading.get_ident())
        shutil.rmtree(workdir, ignore_errors=True)
        outcome, key, rc, out, secs = self.tools.execute(
            p["argv"], p["text"], p["files"], workdir)
        shutil.rmtree(workdir, ignore_errors=True)
        found = outcome in FINDINGS
        p.update(outcome=outcome, key=key, rc=rc, seconds=secs,
                 output=out if found else "")
        return p


def tooLargeToRun(text):
    """Whether a static shape holds between 256 MiB and 16 TiB: such a
    model may run long on sizes that fit the machine, and is left to
    Tools/emb-run/sizes.test; larger ones are refused at once."""
    for s, e, kind in tokens(text):
        if kind != "shaped":
            continue
        m = SHAPED.match(text[s:e])
        dm = DIMS.match(m.group(2).split(",")[0])
        count = 8
        for d in dm.group(1).split("x"):
            if d.isdigit():
                count *= int(d)
        if 1 << 28 <= count < 1 << 44:
            return True
    return False


# Sanitizer reports, the most telling line first: ASan's ERROR line comes
# after its DEADLYSIGNAL line.
SANITIZER = [re.compile(r) for r in (
    r"ERROR: (?:Address|Leak|Memory|Thread|UndefinedBehavior)Sanitizer"
    r"[^\n]*", r"[^\n]*: runtime error: [^\n]*",
    r"AddressSanitizer:DEADLYSIGNAL")]
CRASH_REPORT = re.compile(r"^([\w.-]+): internal error: ([^\n]*)", re.M)
FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (\S+)", re.M)


def normalize(line):
    line = re.sub(r"0x[0-9a-fA-F]+", "ADDR", line)
    line = re.sub(r"==\d+==", "", line)
    line = re.sub(r"\d+", "N", line)
    return line.strip()


# emb-run --compare-unoptimized's verdicts that break the rule.
ONE_SIDE = re.compile(r"^outcomes: only @(.+) reports an error: MISMATCH",
                      re.M)
ARGUMENT = re.compile(r"^argument #(\d+)(?: \(%[^)]*\))? [^\n]*: MISMATCH$",
                      re.M)
RESULT = re.compile(r"^result #(\d+)[ :][^\n]*: MISMATCH$", re.M)


EXTRACT_OUTSIDE = re.compile(
    r"^outcome of @[^\n]* as written: error: EMBRT_OUT_OF_RANGE: tensor\.extract "
    r"in @\S+ \(input\.mlir:(\d+):\d+\): dim \d+: index -?\d+ is outside", re.M)


def foldedSplatRead(out, text):
    """Whether the model as written failed only at a tensor.extract outside
    a splat constant: MLIR's folder replaces such a read by the splat's
    value (an out-of-range extract is undefined in MLIR), so the rewritten
    model returns it. The rule's stated exception (docs/ikbo.md, "What a
    rewrite keeps"), not a finding."""
    m = EXTRACT_OUTSIDE.search(out)
    lines = (text or "").split("\n")
    if not m or not 0 < int(m.group(1)) <= len(lines):
        return False
    source = re.search(r"tensor\.extract (%[\w.$-]+)\[", lines[int(m.group(1)) - 1])
    return bool(source) and re.search(
        r"^\s*%s = arith\.constant dense<[^<>\[\]]*> : tensor<" % re.escape(source.group(1)),
        text, re.M) is not None


def mismatch(out, argv, text=None):
    """The key of a comparison in `out` that breaks the rule, or None: an
    error on one side only (which side, and its status), an argument
    updated in place that differs, a result that differs; with the
    pipeline it ran. `text`: the model, for the rule's stated exceptions."""
    pipeline = argv[argv.index("--pipeline") + 1] if argv and \
        "--pipeline" in argv[:-1] else "emb-ikbo"
    m = ONE_SIDE.search(out)
    if m and m.group(1).endswith(" as written") and foldedSplatRead(out, text):
        return None
    if m:
        status = re.search(r"^outcome of @%s: error: (\w+)" % re.escape(
            m.group(1)), out, re.M)
        key = "one side fails: only the %s reports an error (%s)" % (
            "model as written" if m.group(1).endswith(" as written")
            else "rewritten model", status.group(1) if status else "?")
    elif ARGUMENT.search(out):
        key = "an argument updated in place differs: argument #%s" % (
            ARGUMENT.search(out).group(1))
    elif RESULT.search(out):
        key = "a result differs: result #%s" % RESULT.search(out).group(1)
    else:
        return None
    return "mismatch: %s [--pipeline %s]" % (key, pipeline)


def classify(rc, out, timedOut, argv=None, text=None):
    """(outcome, key): outcome one of ok, error, crash, hang, mismatch; the
    key says which crash or mismatch it is, for grouping and for reduction
    to keep."""
    if timedOut:
        return "hang", "hang"
    m = next(filter(None, (r.search(out) for r in SANITIZER)), None)
    report = CRASH_REPORT.search(out)
    if m:
        # The report's first line and top frames; where a fault left no
        # frames (a jump to 0), what emb's crash report says it was doing.
        frames = [f for f in FRAME.findall(out[m.start():])
                  if not f.startswith(("__interceptor", "__asan", "__ubsan",
                                       "__sanitizer", "__lsan"))][:2]
        stage = re.search(r" while (.*)", report.group(2)) if report else None
        return "crash", "sanitizer: %s %s%s" % (
            normalize(m.group(0))[:160], " ".join(frames),
            " [while %s]" % stage.group(1) if stage else "")
    m = report
    if m:
        pipeline = re.search(r"^  pipeline: ([^\n]*)", out, re.M)
        return "crash", "%s: internal error: %s%s" % (
            m.group(1), m.group(2),
            " [%s]" % pipeline.group(1) if pipeline else "")
    if rc is not None and rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = "signal %d" % -rc
        return "crash", "killed by " + name
    if "LLVM ERROR:" in out:
        return "crash", normalize(out[out.index("LLVM ERROR:"):].split(
            "\n")[0])[:160]
    key = mismatch(out, argv, text)
    if key:
        return "mismatch", key
    return ("ok" if rc == 0 else "error"), ""


#===-----------------------------------------------------------------------===#
# Reduction: delete lines, then tokens, while the crash stays the same
#===-----------------------------------------------------------------------===#

def reduce(fuzzer, p, workdir, budget):
    """The smallest input found that crashes with p's key, the number of
    runs it took, and whether the input as found crashed again (its first
    run): one that does not (a hang of a machine too busy to finish a run in
    --timeout, say) is reported as not reproduced and kept as found. A hang
    costs a whole timeout a run: a few runs only."""
    runs = [0]
    if p["outcome"] == "hang":
        budget = min(budget, 8)
    if p["target"] == "compare":
        budget = 0  # generated small: only run it again

    def crashes(text):
        if runs[0] >= budget:
            return False
        runs[0] += 1
        outcome, key, _, _, _ = fuzzer.tools.execute(p["argv"], text,
                                                     p["files"], workdir)
        return outcome in FINDINGS and key == p["key"]

    text = p["text"]
    budget += 1  # the first run, of the input as found, is not reduction
    if not crashes(text):
        return text, runs[0], False
    for unit in ("lines", "tokens"):
        text = ddmin(text, unit, crashes)
    return text, runs[0], True


def pieces(text, unit):
    """`text` cut into lines, or into tokens each with the space before."""
    if unit == "lines":
        return text.split("\n"), "\n"
    parts, prev = [], 0
    for _, end, _ in tokens(text):
        parts.append(text[prev:end])
        prev = end
    if text[prev:]:
        parts.append(text[prev:])
    return parts, ""


def ddmin(text, unit, crashes):
    """Deletes runs of pieces (halves, then quarters, ... then single ones)
    while what is left still crashes."""
    parts, sep = pieces(text, unit)
    chunk = max(1, len(parts) // 2)
    while chunk >= 1 and len(parts) > 1:
        i, changed = 0, False
        while i < len(parts):
            candidate = parts[:i] + parts[i + chunk:]
            if candidate and crashes(sep.join(candidate)):
                parts, changed = candidate, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return sep.join(parts)


def alsoCrashesMlirOpt(mlirOpt, text, workdir):
    """The stock mlir-opt command that dies of a signal on `text`: parsing
    and verifying it, then canonicalizing it (the pass every emb pipeline
    runs). Then the crash is MLIR's own. False when neither dies, None when
    there is no mlir-opt."""
    if not mlirOpt or not os.path.exists(mlirOpt):
        return None
    path = os.path.join(workdir, "upstream.mlir")
    with open(path, "w", encoding="utf-8", errors="replace") as f:
        f.write(text)
    for extra in ([], ["--canonicalize"]):
        try:
            r = subprocess.run([mlirOpt, "--allow-unregistered-dialect"] +
                               extra + [path], capture_output=True,
                               timeout=60)
        except subprocess.TimeoutExpired:
            return " ".join(["mlir-opt"] + extra)
        if r.returncode < 0:
            return " ".join(["mlir-opt"] + extra)
    return False


#===-----------------------------------------------------------------------===#
# The driver
#===-----------------------------------------------------------------------===#

def saveCrash(outDir, p, reduced, runs, upstream, reproduced):
    ident = hashlib.sha1(p["key"].encode()).hexdigest()[:10]
    d = os.path.join(outDir, "mismatches" if p["outcome"] == "mismatch"
                     else "crashes", "%s-%s" % (p["target"], ident))
    os.makedirs(os.path.join(d, "inputs"), exist_ok=True)
    with open(os.path.join(d, "input.mlir"), "w") as f:
        f.write(p["text"])
    with open(os.path.join(d, "reduced.mlir"), "w") as f:
        f.write(reduced)
    for name, data in p["files"].items():
        with open(os.path.join(d, "inputs", name), "wb") as f:
            f.write(data)
    with open(os.path.join(d, "output.txt"), "w") as f:
        f.write(p["output"])
    info = {k: p[k] for k in ("index", "target", "argv", "source", "notes",
                              "key", "outcome", "rc")}
    info.update(reduction_runs=runs, upstream=upstream, reproduced=reproduced,
                input_lines=p["text"].count("\n") + 1,
                reduced_lines=reduced.count("\n") + 1)
    with open(os.path.join(d, "crash.json"), "w") as f:
        json.dump(info, f, indent=1)
    return d


def replay(args):
    d = args.replay
    with open(os.path.join(d, "crash.json")) as f:
        info = json.load(f)
    tools = Tools(args.bin_dir, args.timeout)
    files = {}
    for name in sorted(os.listdir(os.path.join(d, "inputs"))):
        with open(os.path.join(d, "inputs", name), "rb") as f:
            files[name] = f.read()
    status = 0
    for which in ("input.mlir", "reduced.mlir"):
        with open(os.path.join(d, which)) as f:
            text = f.read()
        outcome, key, rc, out, _ = tools.execute(
            info["argv"], text, files, os.path.join(d, "replay"))
        print("emb-fuzz: %s: %s (exit %s) %s" % (which, outcome, rc, key))
        if outcome in FINDINGS:
            status = 1
    shutil.rmtree(os.path.join(d, "replay"), ignore_errors=True)
    return status


def writeGenerated(args):
    name, _, variant = args.generate.partition(":")
    if name not in GENERATORS:
        raise SystemExit("emb-fuzz: error: --generate: no generator %r (%s)"
                         % (name, ", ".join(sorted(GENERATORS))))
    rng = random.Random("%d/generate" % args.seed)
    for _ in range(1000):
        text, files, argv, notes = generate(rng, name)
        if not variant or notes[0].endswith("variant " + variant):
            break
    else:
        raise SystemExit("emb-fuzz: error: --generate: %s draws no variant "
                         "%r" % (name, variant))
    os.makedirs(os.path.join(args.out, "inputs"), exist_ok=True)
    for which in ("input.mlir", "reduced.mlir"):
        with open(os.path.join(args.out, which), "w") as f:
            f.write(text)
    for n, data in files.items():
        with open(os.path.join(args.out, "inputs", n), "wb") as f:
            f.write(data)
    with open(os.path.join(args.out, "crash.json"), "w") as f:
        json.dump({"target": "compare", "argv": argv, "notes": notes}, f,
                  indent=1)
    print("emb-fuzz: wrote %s (%s): %s" % (args.out, notes[0],
                                          " ".join(argv)))
    return 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.dirname(os.path.dirname(here))
    ap.add_argument("--bin-dir", default=os.path.join(src, "build", "bin"),
                    help="where emb-opt, emb-run and emb-compile are")
    ap.add_argument("--corpus", nargs="+", default=[
        os.path.join(src, "test"), os.path.join(src, "examples")],
        help=".mlir files or folders to mutate (default: test/, examples/)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--executions", type=int, default=1000)
    ap.add_argument("--start", type=int, default=0,
                    help="the first execution's index (resume a run)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                    help="tools run at once (default: one a core)")
    ap.add_argument("--timeout", type=float, default=60,
                    help="seconds before a run counts as a hang")
    ap.add_argument("--targets", default=",".join(TARGETS),
                    help="which of %s to draw from" % ",".join(TARGETS))
    ap.add_argument("--weights", default="",
                    help="relative weights, e.g. opt=5,run=2,npy=2,compile=1")
    ap.add_argument("--out", default="emb-fuzz-out")
    ap.add_argument("--reduce-budget", type=int, default=400,
                    help="runs at most spent reducing one crash")
    ap.add_argument("--mlir-opt", default="/usr/lib/llvm-22/bin/mlir-opt",
                    help="the stock mlir-opt, to tell upstream crashes")
    ap.add_argument("--check-outcomes", action="store_true",
                    help="exit 2 unless every target had inputs accepted "
                    "and inputs refused")
    ap.add_argument("--replay", metavar="CRASH_DIR",
                    help="run a saved crash or mismatch (input and reduced) "
                    "again")
    ap.add_argument("--generate", metavar="GENERATOR:VARIANT",
                    help="write a model of the compare target (the first "
                    "the seed draws of that variant) into --out, as a "
                    "saved finding that --replay runs")
    ap.add_argument("--log", metavar="FILE",
                    help="write each execution (its command, mutations and "
                    "outcome) as a line of JSON")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    args.bin_dir = os.path.abspath(args.bin_dir)  # tools run in a folder each

    if args.replay:
        return replay(args)
    if args.generate:
        return writeGenerated(args)
    args.targets = [t for t in args.targets.split(",") if t]
    bad = [t for t in args.targets if t not in TARGETS]
    if bad or not args.targets:
        ap.error("--targets: unknown %s" % ",".join(bad))
    args.weights_given = args.weights
    weights = dict(DEFAULT_WEIGHTS)
    for item in filter(None, args.weights.split(",")):
        k, _, v = item.partition("=")
        if k not in TARGETS or not v.isdigit():
            ap.error("--weights: bad %r" % item)
        weights[k] = int(v)
    args.weights = weights
    for t in set(TOOL_OF[t] for t in args.targets):
        if not os.access(os.path.join(args.bin_dir, t), os.X_OK):
            ap.error("%s is not in --bin-dir %s" % (t, args.bin_dir))

    fuzzer = Fuzzer(args)
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "work")
    stats = {t: {"executions": 0, "ok": 0, "error": 0, "crash": 0, "hang": 0,
                 "mismatch": 0, "seconds": 0.0} for t in args.targets}
    crashes = {}  # key -> first plan, with a count
    start = time.monotonic()
    indices = range(args.start, args.start + args.executions)
    done = 0
    log = open(args.log, "w") if args.log else None
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for p in pool.map(lambda i: fuzzer.runOne(i, work), indices):
            if log:
                log.write(json.dumps({k: p[k] for k in (
                    "index", "target", "source", "argv", "notes", "outcome",
                    "key")}) + "\n")
            s = stats[p["target"]]
            s["executions"] += 1
            s[p["outcome"]] += 1
            s["seconds"] += p["seconds"]
            if p["outcome"] in FINDINGS:
                if p["key"] not in crashes:
                    crashes[p["key"]] = dict(p, count=0)
                    if not args.quiet:
                        print("emb-fuzz: #%d %s: %s" % (
                            p["index"], p["target"], p["key"]), flush=True)
                crashes[p["key"]]["count"] += 1
            done += 1
            if not args.quiet and done % 1000 == 0:
                print("emb-fuzz: %d executions, %d crashes, %d mismatches, "
                      "%.0f s" % (done, sum(c["outcome"] != "mismatch"
                                            for c in crashes.values()),
                                  sum(c["outcome"] == "mismatch"
                                      for c in crashes.values()),
                                  time.monotonic() - start), flush=True)
    elapsed = time.monotonic() - start
    if log:
        log.close()

    # Reduce and save each distinct crash, in the order first found.
    found = []
    for key, p in sorted(crashes.items(), key=lambda kv: kv[1]["index"]):
        rdir = os.path.join(work, "reduce")
        reduced, runs, again = reduce(fuzzer, p, rdir, args.reduce_budget)
        upstream = (alsoCrashesMlirOpt(args.mlir_opt, reduced, rdir)
                    if again and p["outcome"] != "mismatch" else None)
        shutil.rmtree(rdir, ignore_errors=True)
        d = saveCrash(args.out, p, reduced, runs, upstream, again)
        found.append({"key": key, "target": p["target"], "dir": d,
                      "outcome": p["outcome"],
                      "count": p["count"], "first": p["index"],
                      "upstream": upstream, "reproduced": again,
                      "reduced_lines": reduced.count("\n") + 1})
    shutil.rmtree(work, ignore_errors=True)

    summary = {"seed": args.seed, "start": args.start,
               "executions": args.executions, "seconds": round(elapsed, 1),
               "targets": stats,
               "crashes": [c for c in found if c["outcome"] != "mismatch"],
               "mismatches": [c for c in found if c["outcome"] == "mismatch"]}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print("emb-fuzz: seed %d, executions %d..%d, %.0f s, %d jobs" % (
        args.seed, args.start, args.start + args.executions - 1, elapsed,
        args.jobs))
    print("  %-8s %-12s %10s %8s %8s %6s %5s %8s" % (
        "target", "tool", "executions", "ok", "error", "crash", "hang",
        "mismatch"))
    for t in args.targets:
        s = stats[t]
        print("  %-8s %-12s %10d %8d %8d %6d %5d %8d" % (
            t, TOOL_OF[t], s["executions"], s["ok"], s["error"], s["crash"],
            s["hang"], s["mismatch"]))
    for c in found:
        if c["outcome"] == "mismatch":
            print("emb-fuzz: mismatch (%d times, first #%d%s): %s\n  saved "
                  "in %s" % (c["count"], c["first"], "" if c["reproduced"]
                             else ", not reproduced", c["key"], c["dir"]))
            continue
        print("emb-fuzz: crash (%d times, first #%d, %s): %s\n  saved in %s,"
              " reduced to %d lines" % (
                  c["count"], c["first"],
                  "not reproduced: no crash when run again"
                  if not c["reproduced"] else
                  "upstream: %s crashes too" % c["upstream"]
                  if c["upstream"]
                  else "mlir-opt does not crash" if c["upstream"] is False
                  else "mlir-opt not checked", c["key"], c["dir"],
                  c["reduced_lines"]))
    print("emb-fuzz: %d distinct crashes" % sum(
        c["outcome"] != "mismatch" for c in found))
    print("emb-fuzz: %d distinct mismatches" % sum(
        c["outcome"] == "mismatch" for c in found))
    if args.check_outcomes:
        for t in args.targets:
            s = stats[t]
            if s["executions"] >= 10 and (s["ok"] == 0 or s["error"] == 0):
                print("emb-fuzz: error: target %s: %d executions, %d "
                      "accepted, %d refused: its mutations are not doing "
                      "what they should" % (t, s["executions"], s["ok"],
                                           s["error"]))
                return 2
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""Checks that codegen's source files call each other without a cycle.

Usage: check_codegen_calls.py SOURCE_ROOT
codegen/ shares one private header (lowering.h), so its #includes cannot show
which file depends on which; the calls do. Reads every codegen/**/*.c, finds
where each emb* function is defined, and makes an edge from a file to every
other file whose functions it calls. A cycle (say, the GPU kernels asking
the runtime lowerings whether an op is theirs while the value map's file
frees the GPU plans) means two parts decide the same thing, which
codegen/classify.c decides once (docs/codegen.md). Prints each cycle's files;
exits 1 if any.
"""
import os
import re
import sys

DEFINITION = re.compile(r"^[A-Za-z_][\w \*]*?\b(emb[A-Z]\w*)\s*\([^;{]*\)\s*\{",
                        re.M)
CALL = re.compile(r"\b(emb[A-Z]\w*)\s*\(")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def sources(root):
    for d, _, names in os.walk(os.path.join(root, "codegen")):
        for n in sorted(names):
            if n.endswith(".c"):
                yield os.path.relpath(os.path.join(d, n), root)


def cycles(edges):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def main():
    root = sys.argv[1]
    text = {}
    for f in sources(root):
        with open(os.path.join(root, f), errors="replace") as src:
            text[f] = COMMENT.sub("", src.read())
    defined = {}
    for f, s in text.items():
        for m in DEFINITION.finditer(s):
            defined[m.group(1)] = f
    edges = {f: set() for f in text}
    for f, s in text.items():
        for name in set(CALL.findall(s)):
            g = defined.get(name)
            if g and g != f:
                edges[f].add(g)
    found = cycles(edges)
    for c in found:
        print("codegen files that call one another: " + ", ".join(c))
    print("%d cycle(s) among %d codegen files" % (len(found), len(text)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Compares the PTX of every kernel translation unit of two source trees,
function by function: the check that a change to kernels/ is a pure
restructure (files moved, definitions shared) and changes no kernel.

  # the tree before, beside the checkout (the build's generated headers too)
  mkdir -p /tmp/before && git archive main | tar -x -C /tmp/before
  tools/dev/ptx-compare.py ptx build-cuda /tmp/before /tmp/ptx-before
  tools/dev/ptx-compare.py ptx build-cuda . /tmp/ptx-after
  tools/dev/ptx-compare.py diff /tmp/ptx-before /tmp/ptx-after

`ptx` compiles each kernels/*.cu of BUILD's compile_commands.json (configure
with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON; the library's sources and the
variants' objects of kernels/variants.cmake, each with its own defines) with
the build's flags, but with nvcc -ptx for sm_90 (sm_90a for *_sm90a.cu), from
the sources of SRC. JOBS (default 2) compiles run at once; ONLY (a regular
expression) keeps the sources whose path matches it (ONLY=tbe_backward).

`diff` pairs the functions (.entry and .func bodies) of each file by name and
compares them, and the module's other lines as a set. It ignores what moves
with a definition and not with the code: comment and blank lines (an inline
asm string's trailing newline), the hashes nvcc puts in the names of a
translation unit's anonymous namespace (_GLOBAL__N__<hash>_,
_INTERNAL_<hash>_, <file>_cu_<hash>: they follow the main file's text), and
the function number in block labels ($L__BB<n>_, the function's place in the
module). It prints each file's counts and every function that differs, and
exits 1 if any does.
"""
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

FUNC = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+"
                  r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)")


def ptx(build, src, out):
    build, src = os.path.abspath(build), os.path.abspath(src)
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    root = os.path.dirname(os.path.dirname(entries[0]["file"]))
    for e in entries:
        if "/kernels/" in e["file"]:
            root = e["file"][:e["file"].index("/kernels/")]
            break
    os.makedirs(out, exist_ok=True)
    commands = []
    for e in entries:
        f = e["file"]
        if not f.endswith(".cu") or not f.startswith(root + "/kernels/"):
            continue
        if not re.search(os.environ.get("ONLY", ""), f):
            continue
        args = shlex.split(e["command"])
        obj = args[args.index("-o") + 1]
        name = re.sub(r"[^\w.-]", "_", obj)[:-len(".cu.o")] + ".ptx"
        cmd, skip = [], False
        for a in args:
            if skip:
                skip = False
                continue
            if a in ("-o", "-c"):
                skip = a == "-o"
                continue
            if a.startswith(("--generate-code", "-gencode")) or "ccache" in a:
                continue
            # Sources and include paths from SRC; the build's generated
            # headers (emb/version.h) from BUILD.
            if build not in a and a.startswith(("-I", root)):
                a = a.replace(root, src)
            cmd.append(a)
        cmd = [c for c in cmd if not c.endswith(os.path.relpath(f, root))]
        arch = "sm_90a" if f.endswith("_sm90a.cu") else "sm_90"
        cmd += ["-arch=" + arch, "-ptx", src + f[len(root):], "-o",
                os.path.join(out, name)]
        commands.append(cmd)

    def run(cmd):
        r = subprocess.run(cmd, cwd=build, capture_output=True, text=True)
        return cmd[-1], r.returncode, r.stderr

    failed = 0
    with ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as pool:
        for name, rc, err in pool.map(run, commands):
            print(("ok   " if rc == 0 else "FAIL ") + name)
            if rc:
                failed += 1
                sys.stderr.write(err)
    return 1 if failed else 0


def canon(text):
    text = re.sub(r"(_GLOBAL__N__|_INTERNAL_)[0-9a-f]{8}_", r"\1H_", text)
    return re.sub(r"(_\d+_\w+?_cuh?_)[0-9a-f]{8}", r"\1H", text)


def lines(block):
    out = []
    for line in block:
        line = line.split("//")[0].strip()
        if line:
            out.append(re.sub(r"\$L__BB\d+_", "$L__BB_", line))
    return out


def parse(path):
    with open(path) as f:
        text = canon(f.read()).split("\n")
    funcs, other, i = {}, [], 0
    while i < len(text):
        m = FUNC.match(text[i])
        if not m:
            other.append(text[i])
            i += 1
            continue
        body, depth, started, j = [], 0, False, i
        while j < len(text):
            body.append(text[j])
            if text[j].startswith("{"):
                started = True
            if started:
                depth += text[j].count("{") - text[j].count("}")
                if depth == 0:
                    break
            elif text[j].rstrip().endswith(";"):
                break
            j += 1
        if started:
            funcs[m.group(1)] = lines(body)
        else:
            other.append(" ".join(x.strip() for x in body))
        i = j + 1
    return funcs, sorted(lines(other))


def diff(before, after):
    bad = 0
    for name in sorted(os.listdir(before)):
        if not os.path.exists(os.path.join(after, name)):
            print("%s: missing after" % name)
            bad += 1
            continue
        fb, ob = parse(os.path.join(before, name))
        fa, oa = parse(os.path.join(after, name))
        same = [n for n in fb if fa.get(n) == fb[n]]
        differ = sorted(set(fb) ^ set(fa) | {n for n in fb if n in fa
                                             and fa[n] != fb[n]})
        print("%s: %d functions, %d identical, %d not; module lines %s" %
              (name, len(fb), len(same), len(differ),
               "same" if ob == oa else "DIFFER"))
        for n in differ:
            print("    %s %s" % ("differs" if n in fb and n in fa else
                                 "only before" if n in fb else "only after",
                                 n))
        bad += len(differ) + (ob != oa)
    return 1 if bad else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "ptx":
        return ptx(*sys.argv[2:])
    if len(sys.argv) == 4 and sys.argv[1] == "diff":
        return diff(*sys.argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())

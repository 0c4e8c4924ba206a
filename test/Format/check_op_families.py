"""Checks the rows of an op family (docs/architecture.md, "Adding an op
family") that no compiler or linker ties together.

Usage: check_op_families.py SOURCE_ROOT
  - every op named in dialect/ir.h (EMB_OP_*) is an IRDL operation of
    dialect/emb.irdl.mlir, has a row in op_verifier.c's table (an op without
    one is accepted unchecked) and a section of docs/dialect.md;
  - every emb:: op that python/emb_torch registers (torch.library.custom_op)
    has a row in the op table of docs/pytorch.md ("The ops");
  - every runtime function python/emb_torch calls as lib.embrt<Name>(...)
    has its ctypes signature: a row of ENTRY_POINTS in _runtime.py, or its
    argtypes or restype set by name (without them, ctypes passes each
    argument and reads the result as a C int).
Prints each missing row; exits 1 if any.
"""
import glob
import os
import re
import sys


def read(root, path):
    with open(os.path.join(root, path), errors="replace") as f:
        return f.read()


def dialect(root):
    ops = re.findall(r'^#define (EMB_OP_\w+) "emb\.(\w+)"',
                     read(root, "dialect/ir.h"), re.M)
    irdl = set(re.findall(r"irdl\.operation\s+@(\w+)",
                          read(root, "dialect/emb.irdl.mlir")))
    verified = set(re.findall(r"\{\s*(EMB_OP_\w+)\s*,",
                              read(root, "dialect/op_verifier.c")))
    documented = set(re.findall(r"^#+ .*`emb\.(\w+)`",
                                read(root, "docs/dialect.md"), re.M))
    bad = []
    for macro, name in ops:
        if name not in irdl:
            bad.append("dialect/ir.h: %s: emb.%s is no irdl.operation of "
                       "dialect/emb.irdl.mlir" % (macro, name))
        if macro not in verified:
            bad.append("dialect/ir.h: %s: emb.%s has no row in the table of "
                       "dialect/op_verifier.c" % (macro, name))
        if name not in documented:
            bad.append("dialect/ir.h: %s: emb.%s has no section in "
                       "docs/dialect.md" % (macro, name))
    return len(ops), bad


def op_table(text):
    """The rows of the table under "## The ops", up to its first blank line
    (a blank line ends a Markdown table: rows after it are no table's)."""
    m = re.search(r"^## The ops\n", text, re.M)
    if not m:
        return []
    rows, started = [], False
    for line in text[m.end():].split("\n"):
        if line.startswith("|"):
            rows.append(line)
            started = True
        elif started or line.startswith("#"):
            break
    return rows


def torch_ops(root, sources):
    ops = []
    for path in sources:
        for m in re.finditer(r'custom_op\(\s*"emb::(\w+)"', read(root, path)):
            ops.append((path, m.group(1)))
    table = "\n".join(op_table(read(root, "docs/pytorch.md")))
    listed = set(re.findall(r"`emb::(\w+)", table))
    return len(ops), ["%s: emb::%s has no row in the op table of "
                      "docs/pytorch.md" % (path, name)
                      for path, name in ops if name not in listed]


def runtime_calls(root, sources):
    runtime = read(root, "python/emb_torch/_runtime.py")
    m = re.search(r"^ENTRY_POINTS = \[(.*?)\]", runtime, re.M | re.S)
    typed = set()
    for name, query in re.findall(r'\(\s*"(\w+)"\s*,\s*(?:"(\w+)"|None)',
                                  m.group(1) if m else ""):
        typed.update("embrt" + n for n in (name, query) if n)
    calls = []
    for path in sources:
        text = read(root, path)
        typed.update(re.findall(r"\blib\.(embrt\w+)\.(?:argtypes|restype)\b",
                                text))
        for m in re.finditer(r"\blib\.(embrt\w+)\(", text):
            calls.append((path, m.group(1)))
    names = sorted(set(c for _, c in calls))
    bad = ["%s: %s is called without its ctypes signature (a row of "
           "ENTRY_POINTS in python/emb_torch/_runtime.py)" % (path, name)
           for path, name in sorted(set(calls)) if name not in typed]
    return len(names), bad


def main():
    root = sys.argv[1]
    sources = sorted(os.path.relpath(p, root) for p in glob.glob(
        os.path.join(root, "python", "emb_torch", "**", "*.py"),
        recursive=True))
    n_ops, bad_ops = dialect(root)
    n_torch, bad_torch = torch_ops(root, sources)
    n_calls, bad_calls = runtime_calls(root, sources)
    bad = bad_ops + bad_torch + bad_calls
    for line in bad:
        print(line)
    print("%d ops, %d emb_torch ops, %d runtime functions emb_torch calls; "
          "missing rows: %d" % (n_ops, n_torch, n_calls, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

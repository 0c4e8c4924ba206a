"""Compares the symbols a shared library of emb exports with the public headers.

Usage: check_exports.py LIBRARY INCLUDE_DIR
Every emb*/embrt* symbol the library exports must be a function declared in
INCLUDE_DIR/emb/*.h (nothing internal leaks), and every function emb.h
declares (the compiler's C API) must be exported. Prints what is extra or
missing; exits 1 if anything is.
"""
import glob
import os
import re
import subprocess
import sys

DECL = re.compile(r"\b(emb[A-Za-z0-9_]*)\s*\(")


def declared(include_dir):
    """Functions declared by each public header, by header name."""
    out = {}
    for path in sorted(glob.glob(os.path.join(include_dir, "emb", "*.h"))):
        text = open(path).read()
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        text = re.sub(r"//[^\n]*", "", text)
        # Statements at file scope; skip typedefs (function pointer types),
        # macros and static inline helpers (not exported).
        names = set()
        for stmt in re.split(r";|\n#[^\n]*", text):
            s = stmt.strip()
            if s.startswith("typedef") or "static inline" in s:
                continue
            m = DECL.search(s)
            if m and "{" not in s.split(m.group(1))[0]:
                names.add(m.group(1))
        out[os.path.basename(path)] = names
    return out


def exported(library):
    nm = subprocess.run(["nm", "-D", "--defined-only", library],
                        capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in nm.splitlines()
            if line.split() and line.split()[-1].startswith("emb")}


def main():
    library, include_dir = sys.argv[1], sys.argv[2]
    decls = declared(include_dir)
    allDecl = set().union(*decls.values())
    exp = exported(library)
    extra = sorted(exp - allDecl)
    missing = sorted(decls.get("emb.h", set()) - exp)
    print("exported %d emb symbols; the headers declare %d functions" %
          (len(exp), len(allDecl)))
    print("not in a public header: %s" % (" ".join(extra) or "none"))
    print("declared in emb.h, not exported: %s" % (" ".join(missing) or "none"))
    return 1 if extra or missing else 0


if __name__ == "__main__":
    sys.exit(main())

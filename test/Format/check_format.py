"""Checks that emb's C, header and CUDA sources are clang-format clean.

Usage: check_format.py --clang-format BIN SOURCE_ROOT
Lists the files git tracks (or, outside a checkout, every source file) and
runs clang-format --dry-run --Werror on them; prints the offenders.
"""
import argparse
import os
import subprocess
import sys

SUFFIXES = (".c", ".h", ".cu", ".cuh")
FOLDERS = ("include", "dialect", "passes", "codegen", "runtime", "kernels",
           "tools", "test", "bench", "examples")


def sources(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached",
                              "--others", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout
        files = out.split()
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder in FOLDERS:
            for dirpath, _, names in os.walk(os.path.join(root, folder)):
                files += [os.path.relpath(os.path.join(dirpath, n), root)
                          for n in names]
    return sorted(f for f in files
                  if f.endswith(SUFFIXES) and f.split("/")[0] in FOLDERS
                  and os.path.exists(os.path.join(root, f)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clang-format", required=True)
    ap.add_argument("root")
    args = ap.parse_args()
    files = sources(args.root)
    if not files:
        print("no sources found under %s" % args.root)
        return 1
    bad = []
    for f in files:
        r = subprocess.run([args.clang_format, "--style=file", "--dry-run",
                            "--Werror", f], cwd=args.root,
                           capture_output=True, text=True)
        if r.returncode != 0:
            bad.append(f)
    print("checked %d files" % len(files))
    for f in bad:
        print("not clang-format clean: %s (run clang-format -i %s)" % (f, f))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

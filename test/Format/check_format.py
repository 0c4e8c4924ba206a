"""Checks that emb's C, header and CUDA sources are clang-format clean.

Usage: check_format.py --clang-format BIN SOURCE_ROOT
Lists the files git tracks (or, outside a checkout, every source file) and
runs clang-format --dry-run --Werror on them; prints the offenders.

The tree is formatted with one major version of clang-format, PINNED_MAJOR:
the one Debian 12's packages give (clang-format-14, which
tools/dev/bootstrap.sh installs). Other majors lay out the same LLVM style
differently in places, so with one of them this refuses to judge (exit 2,
saying which version it found and which it needs) rather than report their
differences as the tree's, or miss the pinned one's. test/lit.cfg.py asks
version_problem() too, and leaves the Format test unsupported, with a
warning, where it answers.
"""
import argparse
import os
import re
import subprocess
import sys

PINNED_MAJOR = 14


def version_problem(binary):
    """None when `binary` is clang-format PINNED_MAJOR.x; else why not."""
    try:
        out = subprocess.run([binary, "--version"], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        return "cannot run %s --version (%s)" % (binary, e)
    m = re.search(r"clang-format version (\d+)\.", out)
    if not m:
        return "%s --version does not name a clang-format version: %r" % (
            binary, out.strip())
    if int(m.group(1)) != PINNED_MAJOR:
        return ("%s is clang-format %s but the tree is formatted with "
                "clang-format %d (Debian 12's clang-format-%d, "
                "tools/dev/bootstrap.sh); another major version formats "
                "some code differently, so its verdict would be about the "
                "version, not the code. Install clang-format-%d and point "
                "CMake at it (-DEMB_CLANG_FORMAT=/usr/bin/clang-format-%d)"
                % (binary, out.split("version", 1)[1].split()[0], PINNED_MAJOR,
                   PINNED_MAJOR, PINNED_MAJOR, PINNED_MAJOR))
    return None

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
    problem = version_problem(args.clang_format)
    if problem:
        print("refusing to check the format: %s" % problem)
        return 2
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

"""Checks that emb's layers include one way (docs/architecture.md).

Usage: check_layers.py SOURCE_ROOT [FILE...]
Reads every quoted #include of emb's C, header and CUDA sources (or of the
FILEs given, relative to SOURCE_ROOT), resolves it the way the build does
(the including file's folder, the source root, include/, dialect/, passes/),
and checks the edge against LAYERS: the folders a folder may include from. A
private runtime header (runtime/*.h) is included only from runtime/, and a
backend's header (runtime/cpu/*.h, runtime/cuda/*.h) only from that
backend's folder: what both backends share lives in runtime/ itself.
kernels/common/, what every kernel family builds on, includes nothing of the
families (only itself and include/). Prints each offending line; exits 1 if
any.
"""
import os
import re
import subprocess
import sys

SUFFIXES = (".c", ".h", ".cu", ".cuh", ".def", ".cpp")
# Who may include whom, by top-level folder (the includer's folder is always
# allowed). The compiler goes dialect -> passes -> codegen -> tools; the
# runtime goes runtime -> kernels; everything may include the public headers.
LAYERS = {
    "include": set(),
    "dialect": {"include"},
    "passes": {"dialect", "include"},
    "codegen": {"passes", "dialect", "include"},
    "runtime": {"kernels", "include"},
    "kernels": {"include"},
    "tools": {"include"},
    "test": {"include", "kernels"},
    "bench": {"include", "kernels", "test"},
    "examples": {"include"},
}
# Header search order after the including file's own folder.
SEARCH = ("", "include", "dialect", "passes", "codegen")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sources(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached",
                              "--others", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout
        files = out.split()
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, n), root)
                 for folder in LAYERS
                 for d, _, names in os.walk(os.path.join(root, folder))
                 for n in names]
    return sorted(f for f in files if f.endswith(SUFFIXES)
                  and f.split("/")[0] in LAYERS
                  and os.path.exists(os.path.join(root, f)))


def resolve(root, includer, name):
    for base in (os.path.dirname(includer),) + SEARCH:
        path = os.path.normpath(os.path.join(base, name))
        if os.path.exists(os.path.join(root, path)):
            return path
    return None


def backend(path):
    """The backend folder ("runtime/cpu") a runtime path is in, or None."""
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 and parts[0] == "runtime" \
        else None


def main():
    root = sys.argv[1]
    bad = []
    for f in sys.argv[2:] or sources(root):
        layer = f.split("/")[0]
        with open(os.path.join(root, f), errors="replace") as src:
            for lineno, line in enumerate(src, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(root, f, m.group(1))
                if target is None:
                    continue  # generated or system header
                to = target.split("/")[0]
                private_runtime = (to == "runtime" and layer != "runtime")
                other_backend = (backend(target) is not None
                                 and backend(target) != backend(f))
                family = (f.startswith("kernels/common/") and to == "kernels"
                          and not target.startswith("kernels/common/"))
                if (private_runtime or other_backend or family
                        or (to != layer and to not in LAYERS[layer])):
                    bad.append("%s:%d: %s includes %s" %
                               (f, lineno, backend(f) or layer + " layer",
                                target))
    for b in bad:
        print(b)
    print("%d include(s) against the layers" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

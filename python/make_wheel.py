#!/usr/bin/env python3
"""Builds emb_torch's wheel: the package (python/emb_torch) with the runtime it calls,
libembrt.so, inside it at emb_torch/lib/libembrt.so, where emb_torch looks first after
$EMB_RUNTIME_LIB. Then `pip install emb_torch-<version>-py3-none-<platform>.whl` is the whole
install, as with FBGEMM's and TorchRec's wheels. The CMake target emb_torch_wheel runs it
with the build's library and version (docs/pytorch.md, "Install").

    make_wheel.py --lib LIBEMBRT_SO --version VERSION --out DIR [--platform TAG]
                  [--ops-lib LIBEMB_TORCH_OPS_SO]

The wheel is written by the standard library alone (PEP 427: a zip with a .dist-info folder
holding METADATA, WHEEL and RECORD), so building it needs no build backend and no network.
Its platform tag is the machine's (linux_x86_64): libembrt.so is built for this machine's
C library and, in a CUDA build, links the CUDA 13 toolkit's runtime and cuBLAS by their
sonames, which PyTorch's own CUDA libraries provide once torch is imported. With --ops-lib the
wheel also holds libemb_torch_ops.so (emb_torch's C++ ops) and the torch version it was built
against (the .torch_version file beside it), and requires exactly that torch, as wheels of C++
PyTorch extensions do. Prints the wheel's path.
"""
import argparse
import base64
import hashlib
import os
import sys
import sysconfig
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "emb_torch"
# The oldest PyTorch emb_torch runs on: torch.library.custom_op (python/emb_torch/__init__.py).
REQUIRES = ["torch>=2.4"]


def metadata(version, requires):
    lines = [
        "Metadata-Version: 2.1",
        "Name: emb-torch",
        "Version: " + version,
        "Summary: emb's table-batched embeddings, IKBO ops and compiled models as PyTorch ops "
        "and TorchRec-compatible modules",
        "License: Apache-2.0 WITH LLVM-exception",
    ]
    lines += ["Requires-Dist: " + r for r in requires]
    return "\n".join(lines) + "\n"


def wheel_file(tag):
    return ("Wheel-Version: 1.0\nGenerator: emb (python/make_wheel.py)\n"
            "Root-Is-Purelib: false\nTag: %s\n" % tag)


def record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (path, digest.decode(), len(data))


def platform_tag():
    return sysconfig.get_platform().replace("-", "_").replace(".", "_")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", required=True, help="the libembrt.so to put in the wheel")
    ap.add_argument("--version", required=True, help="emb's version (CMake's PROJECT_VERSION)")
    ap.add_argument("--out", required=True, help="the folder to write the wheel into")
    ap.add_argument("--platform", default=platform_tag(),
                    help="the platform tag (default: this machine's, %(default)s)")
    ap.add_argument("--ops-lib", default=None,
                    help="libemb_torch_ops.so to put in the wheel (its .torch_version beside it)")
    args = ap.parse_args()
    if not os.path.isfile(args.lib):
        sys.exit("make_wheel.py: --lib %s: no such file" % args.lib)
    requires = list(REQUIRES)
    ops = None
    if args.ops_lib:
        stamp = os.path.splitext(args.ops_lib)[0] + ".torch_version"
        if not os.path.isfile(args.ops_lib) or not os.path.isfile(stamp):
            sys.exit("make_wheel.py: --ops-lib %s: no such file, or no %s beside it"
                     % (args.ops_lib, os.path.basename(stamp)))
        with open(stamp) as f:
            torch_version = f.read().strip()
        with open(args.ops_lib, "rb") as f:
            ops = f.read()
        requires = ["torch==" + torch_version]
    parts = args.version.split(".")
    if not (1 <= len(parts) <= 3 and all(p.isdigit() for p in parts)):
        sys.exit("make_wheel.py: --version %r is not a release number like 0.1.0" % args.version)

    tag = "py3-none-" + args.platform
    files = []  # (path in the wheel, bytes, mode)
    package = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(package)):
        if name.endswith(".py"):
            with open(os.path.join(package, name), "rb") as f:
                files.append(("%s/%s" % (NAME, name), f.read(), 0o644))
    if not files:
        sys.exit("make_wheel.py: no modules in %s" % package)
    with open(args.lib, "rb") as f:
        files.append(("%s/lib/libembrt.so" % NAME, f.read(), 0o755))
    if ops is not None:
        files.append(("%s/lib/libemb_torch_ops.so" % NAME, ops, 0o755))
        files.append(("%s/lib/libemb_torch_ops.torch_version" % NAME,
                      (torch_version + "\n").encode(), 0o644))
    info = "%s-%s.dist-info" % (NAME, args.version)
    files.append((info + "/METADATA", metadata(args.version, requires).encode(), 0o644))
    files.append((info + "/WHEEL", wheel_file(tag).encode(), 0o644))
    files.append((info + "/top_level.txt", (NAME + "\n").encode(), 0o644))
    record = [record_line(path, data) for path, data, _ in files] + [info + "/RECORD,,"]

    os.makedirs(args.out, exist_ok=True)
    wheel = os.path.join(args.out, "%s-%s-%s.whl" % (NAME, args.version, tag))
    tmp = wheel + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for path, data, mode in files + [(info + "/RECORD", ("\n".join(record) + "\n").encode(),
                                          0o644)]:
            entry = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    os.replace(tmp, wheel)
    print(wheel)


if __name__ == "__main__":
    main()

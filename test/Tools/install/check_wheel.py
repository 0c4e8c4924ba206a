"""Checks emb_torch's wheel (wheel.test): pip installs it into a fresh folder; its name and
METADATA give emb's version, the platform and torch>=2.4; every module of python/emb_torch is
in it; the libembrt.so inside it is the build's, byte for byte, executable, and loads with its
entry points; and emb_torch's lookup (_library.py, free of torch) picks that copy. No torch
needed: the package itself is not imported.

    check_wheel.py <dist folder> <site folder> <build's libembrt.so> <source root> <version>
Prints one line per problem and exits 1 if there is any, else prints "emb_torch wheel: ok".
"""
import ctypes
import importlib.util
import os
import subprocess
import sys
import sysconfig

dist, site, built_lib, source_root, version = sys.argv[1:6]
problems = []

wheels = [f for f in os.listdir(dist) if f.endswith(".whl")]
if len(wheels) != 1:
    sys.exit("dist: %d wheels, not one: %s" % (len(wheels), wheels))
platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
expected = "emb_torch-%s-py3-none-%s.whl" % (version, platform)
if wheels[0] != expected:
    problems.append("wheel: named %s, not %s" % (wheels[0], expected))

pip = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index",
                      "--no-cache-dir", "--disable-pip-version-check", "--target", site,
                      os.path.join(dist, wheels[0])], capture_output=True, text=True)
if pip.returncode != 0:
    sys.exit("pip install: exit %d\n%s%s" % (pip.returncode, pip.stdout, pip.stderr))

package = os.path.join(site, "emb_torch")
wanted = sorted(f for f in os.listdir(os.path.join(source_root, "python", "emb_torch"))
                if f.endswith(".py"))
have = sorted(f for f in os.listdir(package) if f.endswith(".py"))
if have != wanted:
    problems.append("emb_torch: modules %s, not %s" % (have, wanted))

info = os.path.join(site, "emb_torch-%s.dist-info" % version)
try:
    with open(os.path.join(info, "METADATA")) as f:
        fields = [line.rstrip("\n").split(": ", 1) for line in f if ": " in line]
except OSError as e:
    fields = []
    problems.append("METADATA: %s" % e)
for key, value in (("Name", "emb-torch"), ("Version", version), ("Requires-Dist", "torch>=2.4")):
    if [key, value] not in fields:
        problems.append("METADATA: no %s: %s" % (key, value))

lib = os.path.join(package, "lib", "libembrt.so")
if not os.path.isfile(lib):
    problems.append("emb_torch/lib/libembrt.so: not installed")
else:
    with open(lib, "rb") as a, open(built_lib, "rb") as b:
        if a.read() != b.read():
            problems.append("emb_torch/lib/libembrt.so: differs from the build's %s" % built_lib)
    if not os.access(lib, os.X_OK):
        problems.append("emb_torch/lib/libembrt.so: not executable")
    runtime = ctypes.CDLL(lib)
    for symbol in ("embrtContextCreate", "embrtTbeForward", "embrtTbeBackward"):
        if not hasattr(runtime, symbol):
            problems.append("libembrt.so: %s is not exported" % symbol)

os.environ.pop("EMB_RUNTIME_LIB", None)
lookup = os.path.join(package, "_library.py")
if os.path.isfile(lookup):
    spec = importlib.util.spec_from_file_location("emb_torch_library", lookup)
    library = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(library)
    found = library.default_library()
    if os.path.realpath(found) != os.path.realpath(lib):
        problems.append("emb_torch looks for libembrt.so at %s, not in the package" % found)

for line in problems:
    print(line)
if problems:
    sys.exit(1)
print("emb_torch wheel: ok")

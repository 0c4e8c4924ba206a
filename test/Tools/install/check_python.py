"""Checks emb_torch as `cmake --install` puts it (install.test): Python finds the package under
P/python_packages, every module of python/emb_torch is there, the torch-free _abi.py loads and
declares its structs, and libembrt.so is where the package looks for it in the installed layout
(../../lib/libembrt.so from the package's folder), loads with its entry points and is the one
the package's lookup (_library.py) picks. No torch needed:
the package itself is not imported.

    check_python.py <prefix> <source root>
Prints one line per problem and exits 1 if there is any, else prints "emb_torch: ok".
"""
import ctypes
import importlib.util
import os
import sys

prefix, source_root = sys.argv[1], sys.argv[2]
problems = []

sys.path.insert(0, os.path.join(prefix, "python_packages"))
spec = importlib.util.find_spec("emb_torch")
if spec is None:
    sys.exit("emb_torch: not found under %s/python_packages" % prefix)
package = spec.submodule_search_locations[0]
if os.path.realpath(package) != os.path.realpath(os.path.join(prefix, "python_packages",
                                                              "emb_torch")):
    problems.append("emb_torch: found at %s, not in the prefix" % package)

wanted = sorted(f for f in os.listdir(os.path.join(source_root, "python", "emb_torch"))
                if f.endswith(".py"))
for name in wanted:
    if not os.path.isfile(os.path.join(package, name)):
        problems.append("emb_torch/%s: not installed" % name)

abi_spec = importlib.util.spec_from_file_location("emb_torch_abi",
                                                  os.path.join(package, "_abi.py"))
abi = importlib.util.module_from_spec(abi_spec)
abi_spec.loader.exec_module(abi)
if not abi.STRUCTS:
    problems.append("emb_torch/_abi.py: declares no structs")

runtime = os.path.join(package, "..", "..", "lib", "libembrt.so")
if not os.path.isfile(runtime):
    problems.append("libembrt.so: not at ../../lib from the package (%s)" % runtime)
else:
    lib = ctypes.CDLL(runtime)
    for symbol in ("embrtContextCreate", "embrtTbeForward", "embrtTbeBackward"):
        if not hasattr(lib, symbol):
            problems.append("libembrt.so: %s is not exported" % symbol)

library_spec = importlib.util.spec_from_file_location("emb_torch_library",
                                                      os.path.join(package, "_library.py"))
library = importlib.util.module_from_spec(library_spec)
library_spec.loader.exec_module(library)
os.environ.pop("EMB_RUNTIME_LIB", None)
found = library.default_library()
if os.path.realpath(found) != os.path.realpath(runtime):
    problems.append("emb_torch looks for libembrt.so at %s, not %s" % (found, runtime))

for line in problems:
    print(line)
if problems:
    sys.exit(1)
print("emb_torch: ok")

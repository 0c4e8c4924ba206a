"""Compares the ctypes structs of python/emb_torch/_abi.py with their C layout, as
test/PyTorch/abi_layout.c prints it from the headers: every struct's size, every field's offset
and size, and that neither side has a field the other lacks. No torch needed.

    abi_layout | python3 check_abi.py
Prints one line per difference; exit status 1 if there is any.
"""
import ctypes
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "_abi", os.path.join(here, "..", "..", "python", "emb_torch", "_abi.py"))
abi = importlib.util.module_from_spec(spec)
spec.loader.exec_module(abi)

c = {}
for line in sys.stdin:
    parts = line.split()
    c[parts[0]] = tuple(int(x) for x in parts[1:])

bad = []
checked = 0
for name, cls in abi.STRUCTS:
    if c.get(name) != (ctypes.sizeof(cls),):
        bad.append("%s: ctypes size %d, C %s" % (name, ctypes.sizeof(cls), c.get(name)))
    mine = set()
    for field in cls._fields_:
        f = field[0]
        mine.add(f)
        got = (getattr(cls, f).offset, getattr(cls, f).size)
        want = c.get("%s.%s" % (name, f))
        checked += 1
        if got != want:
            bad.append("%s.%s: ctypes offset and size %s, C %s" % (name, f, got, want))
    theirs = {k.split(".", 1)[1] for k in c if k.startswith(name + ".")}
    for f in sorted(theirs - mine):
        bad.append("%s.%s: in the C list but not in ctypes" % (name, f))
for line in bad:
    print(line)
print("%d structs, %d fields: %d differences" % (len(abi.STRUCTS), checked, len(bad)))
sys.exit(1 if bad else 0)

"""Where emb_torch finds libembrt.so, the runtime it calls (docs/pytorch.md, "Install"). Free
of torch, so that the install tests can ask it without importing the package."""
import os


def default_library():
    """The first of: $EMB_RUNTIME_LIB; the copy inside the package (the wheel,
    python/make_wheel.py); P/lib beside P/python_packages/emb_torch (cmake --install);
    build/lib beside python/emb_torch (a checkout); else the bare name, for the dynamic
    loader's path."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.environ.get("EMB_RUNTIME_LIB", ""),
                 os.path.join(here, "lib", "libembrt.so"),
                 os.path.join(here, "..", "..", "lib", "libembrt.so"),
                 os.path.join(here, "..", "..", "build", "lib", "libembrt.so")):
        if path and os.path.exists(path):
            return path
    return "libembrt.so"

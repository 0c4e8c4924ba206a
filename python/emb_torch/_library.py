"""Where emb_torch finds libembrt.so, the runtime it calls, and libemb_torch_ops.so, its C++ ops
(docs/pytorch.md, "Install"). Free of torch, so that the install tests can ask it without
importing the package."""
import os


def _candidates(name):
    """Where a library of emb's is looked for, in order: the copy inside the package (the
    wheel, python/make_wheel.py); P/lib beside P/python_packages/emb_torch (cmake --install);
    build/lib beside python/emb_torch (a checkout)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return (os.path.join(here, "lib", name),
            os.path.join(here, "..", "..", "lib", name),
            os.path.join(here, "..", "..", "build", "lib", name))


def default_library():
    """The first of: $EMB_RUNTIME_LIB; _candidates' places; else the bare name, for the dynamic
    loader's path."""
    for path in (os.environ.get("EMB_RUNTIME_LIB", ""),) + _candidates("libembrt.so"):
        if path and os.path.exists(path):
            return path
    return "libembrt.so"


def default_ops_library():
    """libemb_torch_ops.so: $EMB_TORCH_OPS_LIB when set ("off": none), else the first of
    _candidates' places that has it, else None (emb_torch then runs its Python path)."""
    env = os.environ.get("EMB_TORCH_OPS_LIB")
    if env is not None:
        return None if env in ("", "off") else env
    for path in _candidates("libemb_torch_ops.so"):
        if os.path.exists(path):
            return path
    return None

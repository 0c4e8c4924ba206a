"""emb_torch's C++ ops: libemb_torch_ops.so (python/csrc/), loaded with
torch.ops.load_library when emb_torch finds one built against this torch (docs/pytorch.md, "The
C++ ops library"). Without it every caller takes its Python path, which computes the same.

    emb_torch.torch_ops_library()   # the loaded library's path, or None
"""
import os
import warnings

import torch

from . import _library

_loaded = {}  # "path": the loaded library or None, "why": why none was loaded


def _load():
    if _loaded:
        return _loaded["path"]
    _loaded["path"], _loaded["why"] = None, None
    path = _library.default_ops_library()
    if path is None:
        _loaded["why"] = "none found ($EMB_TORCH_OPS_LIB, the package's lib/, the build's lib/)"
        return None
    stamp = os.path.splitext(path)[0] + ".torch_version"
    try:
        with open(stamp) as f:
            built = f.read().strip()
    except OSError:
        built = None
    if built != torch.__version__:
        why = ("%s was built against torch %s, this is torch %s: rebuild it (cmake) for this "
               "torch; until then emb_torch runs its Python path" % (
                   path, built if built else "(unknown: no %s)" % os.path.basename(stamp),
                   torch.__version__))
        warnings.warn("emb_torch: not loading " + why, RuntimeWarning, stacklevel=3)
        _loaded["why"] = why
        return None
    try:
        torch.ops.load_library(path)
        torch.ops.emb_torch.write_inputs.default  # noqa: B018 (registered)
    except (OSError, RuntimeError, AttributeError) as e:
        why = "%s did not load (%s); emb_torch runs its Python path" % (path, e)
        warnings.warn("emb_torch: " + why, RuntimeWarning, stacklevel=3)
        _loaded["why"] = why
        return None
    _loaded["path"] = path
    return path


def library():
    """The path of the loaded libemb_torch_ops.so, or None (see why_not())."""
    return _load()


def why_not():
    """Why no library is loaded (None when one is)."""
    _load()
    return _loaded["why"]


def write_inputs():
    """torch.ops.emb_torch.write_inputs.default, or None without the library."""
    return torch.ops.emb_torch.write_inputs.default if _load() else None


def tbe_forward():
    """torch.ops.emb_torch.tbe_forward.default (the TBE lookup's host path, python/csrc/tbe.cpp),
    or None without the library or in one built before it."""
    return _op("tbe_forward")


def tbe_backward():
    """torch.ops.emb_torch.tbe_backward.default, as tbe_forward()."""
    return _op("tbe_backward")


def tbe_forward_quantized():
    """torch.ops.emb_torch.tbe_forward_quantized.default, as tbe_forward()."""
    return _op("tbe_forward_quantized")


def _op(name):
    """The default overload of emb_torch::<name>, looked up once."""
    try:
        return _ops[name]
    except KeyError:
        packet = getattr(torch.ops.emb_torch, name, None) if _load() else None
        op = _ops[name] = packet.default if packet is not None else None
        return op


_ops = {}  # name: the op's default overload, or None


def scalar_type_index(dtype):
    """c10's number for `dtype` (the bit of a plan's dtype mask); needs the library."""
    return torch.ops.emb_torch.scalar_type_index.default(dtype)

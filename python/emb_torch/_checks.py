"""The argument checks the ops of ikbo.py and input_dist.py share: each raises TypeError (a
dtype, not a tensor) or ValueError (a rank, a dim, a device) naming the op and the argument
(`emb::ikbo_lce: cand_to_user must be int32 or int64, got torch.float32`)."""
import torch


def _tensor(op, name, t):
    if not isinstance(t, torch.Tensor):
        raise TypeError("emb::%s: %s must be a Tensor, got %s" % (op, name, type(t).__name__))


def _dtype_in(op, name, t, allowed, what):
    _tensor(op, name, t)
    if t.dtype not in allowed:
        raise TypeError("emb::%s: %s must be %s, got %s" % (op, name, what, t.dtype))


def _same_dtype(op, name, t, first_name, first):
    if t.dtype != first.dtype:
        raise TypeError("emb::%s: %s is %s but %s is %s" % (op, name, t.dtype, first_name,
                                                            first.dtype))


def _rank(op, name, t, rank, what):
    if t.dim() != rank:
        raise ValueError("emb::%s: %s must be %s, got %d dims %s" % (op, name, what, t.dim(),
                                                                    tuple(t.shape)))


def _dim(op, name, t, d, sym, other_name, value):
    if t.shape[d] != value:
        raise ValueError("emb::%s: %s has %s = %s but %s has %s = %s" % (
            op, name, sym, t.shape[d], other_name, sym, value))


def _devices(op, named, fake):
    """All tensors of `named` ((name, tensor or None) pairs) on one device, CPU or CUDA."""
    named = [(n, t) for n, t in named if t is not None]
    first_name, first = named[0]
    for name, t in named[1:]:
        if t.device != first.device:
            raise ValueError("emb::%s: %s is on %s but %s is on %s" % (op, name, t.device,
                                                                      first_name, first.device))
    # The fake kernel also serves meta tensors; the real one runs CPU and CUDA tensors only.
    if not fake and first.device.type not in ("cpu", "cuda"):
        raise ValueError("emb::%s: %s is on %s; emb runs cpu and cuda tensors" % (
            op, first_name, first.device))


def _vector(op, name, t, allowed, what):
    """A 1-D tensor of one of the `allowed` dtypes (`what` names them)."""
    _dtype_in(op, name, t, allowed, what)
    if t.dim() != 1:
        raise ValueError("emb::%s: %s must be 1-D, got shape %s" % (op, name, tuple(t.shape)))

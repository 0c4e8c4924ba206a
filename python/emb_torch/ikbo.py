"""emb's IKBO and sequence ops as PyTorch operators, and the IKBO modules built on them.

Operators (torch.library custom ops, namespace `emb`; each has a fake kernel for torch.compile and
torch.export, runs on PyTorch's current stream with outputs and workspaces from PyTorch's allocator,
and never synchronises the host):

  emb::broadcast(user, cand_to_user) -> out
      out[b] = user[cand_to_user[b]]; user of any rank >= 1 and any dtype.
  emb::jagged_to_padded(values, offsets, max_length, padding_value=0.0) -> (padded, lengths)
      user u's rows values[offsets[u]:offsets[u+1]] into padded[u, :lengths[u]], the rest
      padding_value; lengths[u] = min(offsets[u+1] - offsets[u], max_length) (FBGEMM's
      jagged_to_padded_dense: rows past max_length are dropped).
  emb::ikbo_lce(w_user, w_cand, user, cand, cand_to_user, compute_dtype=None) -> out
      out[b] = w_cand @ cand[b] + w_user @ user[cand_to_user[b]], the user product at user
      batch size. The weights may be column blocks of one wider matrix (read in place).
  emb::attention(q, k, v, key_lengths=None, scale=None, compute_dtype=None) -> out
  emb::ikbo_attention(q, k, v, cand_to_user, user_lengths=None, scale=None, compute_dtype=None)
      softmax(scale q k^T) v per candidate and head in the runtime's [B, L, H, Dh] layout; for
      ikbo_attention k and v are [U, Lk, H, Dh] and candidate b reads user cand_to_user[b]'s keys,
      the first user_lengths[u] of them. A row with no key gives zeros (as SDPA's math path does
      for a fully masked row). scale defaults to 1/sqrt(Dh).

compute_dtype (ikbo_lce, attention, ikbo_attention): None or the data's dtype computes on the data
as it is (f32 data: exact f32); torch.bfloat16 or torch.float16 with float32 data rounds the
operands once to that type, runs that type's kernels (f32 accumulation) and widens the result,
rounded to that type, into the f32 output (docs/runtime.md, "What f32 attention computes in").

Autograd. The runtime has no backward for these ops; each registers one written in PyTorch ops:
broadcast and ikbo_lce reduce the output gradient over each user's candidates (index_add) and
run the user products at user batch size; jagged_to_padded gathers the padded gradient back to
the values; the attention ops recompute the scores in f32 and apply the softmax backward (exact,
but at the memory of the broadcast form: a [B, H, Lq, Lk] score tensor and the keys and values
gathered to candidates). The compute_dtype rounding is passed through as the identity.

Contiguity. The runtime reads dense row-major tensors, except ikbo_lce's weights, whose row
stride it takes (wUserStride/wCandStride). So every op calls .contiguous() on its tensor inputs
(a no-op on contiguous ones) except the weights of ikbo_lce, which are read in place whenever
their columns are contiguous; IkboLinearCompression passes the two column blocks of its one
weight that way, without a copy.

Modules: IkboLinearCompression and IkboTargetAttention (below).
"""
import ctypes
import math
from typing import Optional, Tuple

import torch
from torch import nn

from . import _runtime
from ._checks import _devices, _dim, _dtype_in, _rank, _same_dtype, _tensor  # noqa: F401
from ._runtime import BF16, F16, F32, I32, I64

__all__ = ["IkboLinearCompression", "IkboTargetAttention", "broadcast", "jagged_to_padded",
           "ikbo_lce", "attention", "ikbo_attention"]

#===------------------------------------------------------------------------------------------===#
# The C API (include/emb/runtime.h)
#===------------------------------------------------------------------------------------------===#

from ._abi import (EMBRT_IKBO_LCE_MAX_PIECES, F64, I8, AttentionArgs,  # noqa: E402,F401
                   BroadcastArgs, IkboLceArgs, JaggedToPaddedArgs)

def _lib():
    """The Runtime and its library (their entry points are declared by _runtime.Runtime)."""
    rt = _runtime.runtime()
    return rt, rt.lib


#===------------------------------------------------------------------------------------------===#
# Argument checks (shared by the real and the fake kernels: they read metadata only)
#===------------------------------------------------------------------------------------------===#

_FLOATS = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16}
_SEQ_FLOATS = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16, torch.float64: F64}
_INDEX = {torch.int32: I32, torch.int64: I64}
_FLOAT_NAMES = "float32, float16 or bfloat16"


def _compute_code(op, compute_dtype, data_dtype):
    """The runtime's computeDtype for `compute_dtype` on data of `data_dtype`."""
    if compute_dtype is None or compute_dtype == data_dtype:
        return F32  # EMBRT_F32 (0): the data as it is
    if not isinstance(compute_dtype, torch.dtype):
        raise TypeError("emb::%s: compute_dtype must be a torch.dtype or None, got %s" % (
            op, type(compute_dtype).__name__))
    if data_dtype != torch.float32 or compute_dtype not in (torch.bfloat16, torch.float16):
        raise ValueError("emb::%s: compute_dtype %s needs float32 data and must be bfloat16 or "
                         "float16 (None: the data as it is), got %s data" % (
                             op, compute_dtype, data_dtype))
    return _FLOATS[compute_dtype]


def _check_broadcast(user, cand_to_user, fake):
    op = "broadcast"
    _tensor(op, "user", user)
    _dtype_in(op, "cand_to_user", cand_to_user, _INDEX, "int32 or int64")
    if user.dim() < 1:
        raise ValueError("emb::broadcast: user must have a user dim (rank >= 1), got a scalar")
    _rank(op, "cand_to_user", cand_to_user, 1, "1-D [B]")
    _devices(op, [("user", user), ("cand_to_user", cand_to_user)], fake)


def _check_jagged(values, offsets, max_length, padding_value, fake):
    op = "jagged_to_padded"
    _dtype_in(op, "values", values, _SEQ_FLOATS, "float32, float16, bfloat16 or float64")
    _dtype_in(op, "offsets", offsets, _INDEX, "int32 or int64")
    if values.dim() < 1:
        raise ValueError("emb::jagged_to_padded: values must be [N, ...] (rank >= 1), got a "
                         "scalar")
    _rank(op, "offsets", offsets, 1, "1-D [U + 1]")
    if offsets.shape[0] < 1:
        raise ValueError("emb::jagged_to_padded: offsets must have U + 1 >= 1 entries, got 0")
    if max_length < 1:
        raise ValueError("emb::jagged_to_padded: max_length must be >= 1, got %s" % max_length)
    if padding_value != padding_value:
        raise ValueError("emb::jagged_to_padded: padding_value is NaN")
    _devices(op, [("values", values), ("offsets", offsets)], fake)


def _check_ikbo_lce(w_user, w_cand, user, cand, cand_to_user, compute_dtype, fake):
    op = "ikbo_lce"
    _dtype_in(op, "w_user", w_user, _FLOATS, _FLOAT_NAMES)
    for name, t in (("w_cand", w_cand), ("user", user), ("cand", cand)):
        _tensor(op, name, t)
        _same_dtype(op, name, t, "w_user", w_user)
    _dtype_in(op, "cand_to_user", cand_to_user, _INDEX, "int32 or int64")
    _rank(op, "w_user", w_user, 2, "[M, Ku]")
    _rank(op, "w_cand", w_cand, 2, "[M, Kc]")
    _rank(op, "user", user, 3, "[U, Ku, N]")
    _rank(op, "cand", cand, 3, "[B, Kc, N]")
    _rank(op, "cand_to_user", cand_to_user, 1, "1-D [B]")
    _dim(op, "w_cand", w_cand, 0, "M", "w_user", w_user.shape[0])
    _dim(op, "user", user, 1, "Ku", "w_user", w_user.shape[1])
    _dim(op, "cand", cand, 1, "Kc", "w_cand", w_cand.shape[1])
    _dim(op, "cand", cand, 2, "N", "user", user.shape[2])
    _dim(op, "cand_to_user", cand_to_user, 0, "B", "cand", cand.shape[0])
    _devices(op, [("w_user", w_user), ("w_cand", w_cand), ("user", user), ("cand", cand),
                  ("cand_to_user", cand_to_user)], fake)
    return _compute_code(op, compute_dtype, w_user.dtype)


def _check_attention(op, q, k, v, cand_to_user, lengths, lengths_name, compute_dtype, fake):
    _dtype_in(op, "q", q, _FLOATS, _FLOAT_NAMES)
    for name, t in (("k", k), ("v", v)):
        _tensor(op, name, t)
        _same_dtype(op, name, t, "q", q)
    _rank(op, "q", q, 4, "[B, Lq, H, Dh]")
    users = "U" if cand_to_user is not None else "B"
    _rank(op, "k", k, 4, "[%s, Lk, H, Dh]" % users)
    _rank(op, "v", v, 4, "[%s, Lk, H, Dh]" % users)
    if cand_to_user is not None:
        _dtype_in(op, "cand_to_user", cand_to_user, _INDEX, "int32 or int64")
        _rank(op, "cand_to_user", cand_to_user, 1, "1-D [B]")
        _dim(op, "cand_to_user", cand_to_user, 0, "B", "q", q.shape[0])
    else:
        _dim(op, "k", k, 0, "B", "q", q.shape[0])
    _dim(op, "k", k, 2, "H", "q", q.shape[2])
    _dim(op, "k", k, 3, "Dh", "q", q.shape[3])
    for d, sym in enumerate((users, "Lk", "H", "Dh")):
        _dim(op, "v", v, d, sym, "k", k.shape[d])
    if lengths is not None:
        _dtype_in(op, lengths_name, lengths, _INDEX, "int32 or int64")
        _rank(op, lengths_name, lengths, 1, "1-D [%s]" % users)
        _dim(op, lengths_name, lengths, 0, users, "k", k.shape[0])
    _devices(op, [("q", q), ("k", k), ("v", v), ("cand_to_user", cand_to_user),
                  (lengths_name, lengths)], fake)
    return _compute_code(op, compute_dtype, q.dtype)


def _ptr(t):
    return t.data_ptr() if t is not None else None


def _default_scale(scale, head_dim):
    if scale is not None:
        return float(scale)
    return 1.0 / math.sqrt(head_dim) if head_dim > 0 else 1.0


#===------------------------------------------------------------------------------------------===#
# emb::broadcast
#===------------------------------------------------------------------------------------------===#

@torch.library.custom_op("emb::broadcast", mutates_args=())
@_runtime.keeps_device
def broadcast(user: torch.Tensor, cand_to_user: torch.Tensor) -> torch.Tensor:
    _check_broadcast(user, cand_to_user, fake=False)
    user = user.contiguous()  # the runtime reads dense rows
    cand_to_user = cand_to_user.contiguous()
    out = torch.empty((cand_to_user.shape[0],) + tuple(user.shape[1:]), dtype=user.dtype,
                      device=user.device)
    rt, lib = _lib()
    ctx = rt.context(user.device)
    # emb.broadcast is a byte copy of rows for any dtype: pass rows of bytes (I8), which serves
    # every torch dtype (bool, complex, ...) including those the runtime has no code for.
    args = BroadcastArgs(
        structSize=ctypes.sizeof(BroadcastArgs), ro=_ptr(user), numUsers=user.shape[0],
        rowElements=math.prod(user.shape[1:]) * user.element_size(), dtype=I8,
        candToUser=_ptr(cand_to_user), indexDtype=_INDEX[cand_to_user.dtype],
        batchSize=cand_to_user.shape[0], nro=None, output=_ptr(out))
    rt.check(ctx, lib.embrtBroadcast(ctx, ctypes.byref(args)), "emb::broadcast")
    rt.poll(ctx, "emb::broadcast")
    return out


@broadcast.register_fake
def _broadcast_fake(user, cand_to_user):
    _check_broadcast(user, cand_to_user, fake=True)
    return user.new_empty((cand_to_user.shape[0],) + tuple(user.shape[1:]))


def _broadcast_setup(ctx, inputs, output):
    user, cand_to_user = inputs
    ctx.save_for_backward(cand_to_user)
    ctx.user_shape = tuple(user.shape)


def _broadcast_backward(ctx, grad):
    cand_to_user, = ctx.saved_tensors
    users = ctx.user_shape[0]
    grad_user = grad.new_zeros(ctx.user_shape)
    if users > 0 and grad.shape[0] > 0:
        # The clamp keeps a bad map (reported by the forward) from indexing out of bounds.
        grad_user = grad_user.index_add(0, cand_to_user.clamp(0, users - 1), grad)
    return grad_user, None


broadcast.register_autograd(_broadcast_backward, setup_context=_broadcast_setup)


#===------------------------------------------------------------------------------------------===#
# emb::jagged_to_padded
#===------------------------------------------------------------------------------------------===#

@torch.library.custom_op("emb::jagged_to_padded", mutates_args=())
@_runtime.keeps_device
def jagged_to_padded(values: torch.Tensor, offsets: torch.Tensor, max_length: int,
                     padding_value: float = 0.0) -> Tuple[torch.Tensor, torch.Tensor]:
    _check_jagged(values, offsets, max_length, padding_value, fake=False)
    values = values.contiguous()  # the runtime reads dense rows
    offsets = offsets.contiguous()
    users = offsets.shape[0] - 1
    padded = torch.empty((users, max_length) + tuple(values.shape[1:]), dtype=values.dtype,
                         device=values.device)
    lengths = torch.empty(users, dtype=offsets.dtype, device=values.device)
    rt, lib = _lib()
    ctx = rt.context(values.device)
    args = JaggedToPaddedArgs(
        structSize=ctypes.sizeof(JaggedToPaddedArgs), values=_ptr(values),
        numValues=values.shape[0], rowElements=math.prod(values.shape[1:]),
        dtype=_SEQ_FLOATS[values.dtype], offsets=_ptr(offsets),
        indexDtype=_INDEX[offsets.dtype], numUsers=users, maxLength=max_length,
        paddingValue=float(padding_value), padded=_ptr(padded), lengths=_ptr(lengths))
    rt.check(ctx, lib.embrtJaggedToPadded(ctx, ctypes.byref(args)), "emb::jagged_to_padded")
    rt.poll(ctx, "emb::jagged_to_padded")
    return padded, lengths


@jagged_to_padded.register_fake
def _jagged_to_padded_fake(values, offsets, max_length, padding_value=0.0):
    _check_jagged(values, offsets, max_length, padding_value, fake=True)
    users = offsets.shape[0] - 1
    padded = values.new_empty((users, max_length) + tuple(values.shape[1:]))
    return padded, offsets.new_empty((users,))


def _jagged_setup(ctx, inputs, output):
    values, offsets, max_length, _ = inputs
    ctx.save_for_backward(offsets)
    ctx.values_shape = tuple(values.shape)
    ctx.max_length = max_length


def _jagged_backward(ctx, grad_padded, grad_lengths):
    """values[j] went to padded[u, j - offsets[u]] when that is < max_length: gather it back.
    u is the user whose range holds j (searchsorted of j in offsets[1:]); rows outside every
    range, or past max_length, get 0."""
    offsets, = ctx.saved_tensors
    shape, length = ctx.values_shape, ctx.max_length
    num, users, row = shape[0], offsets.shape[0] - 1, math.prod(shape[1:])
    if num == 0 or users == 0:
        return grad_padded.new_zeros(shape), None, None, None
    pos = torch.arange(num, dtype=offsets.dtype, device=offsets.device)
    user = torch.searchsorted(offsets[1:], pos, right=True)  # int64, in 0..users
    clamped = user.clamp(max=users - 1)
    at = (pos - offsets.index_select(0, clamped)).long()
    valid = (user < users) & (at >= 0) & (at < length)
    flat = clamped * length + at.clamp(0, length - 1)
    grad = grad_padded.reshape(users * length, row).index_select(0, flat)
    grad = torch.where(valid.unsqueeze(1), grad, torch.zeros_like(grad))
    return grad.reshape(shape), None, None, None


jagged_to_padded.register_autograd(_jagged_backward, setup_context=_jagged_setup)


#===------------------------------------------------------------------------------------------===#
# emb::ikbo_lce
#===------------------------------------------------------------------------------------------===#

def _weight_rows(w):
    """`w` [M, K] as the runtime reads a weight: unit column stride and a row stride of at least
    K (0 = packed). A column block of a wider matrix passes as it is; anything else is copied."""
    rows, cols = w.shape
    if not (cols <= 1 or w.stride(1) == 1) or (rows > 1 and cols > 0 and w.stride(0) < cols):
        w = w.contiguous()
    return w, (w.stride(0) if rows > 1 and cols > 0 else 0)


@_runtime.keeps_device
def _ikbo_lce(w_user: torch.Tensor, w_cand: torch.Tensor, user: torch.Tensor, cand: torch.Tensor,
              cand_to_user: torch.Tensor,
              compute_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    compute = _check_ikbo_lce(w_user, w_cand, user, cand, cand_to_user, compute_dtype,
                              fake=False)
    w_user, user_stride = _weight_rows(w_user)
    w_cand, cand_stride = _weight_rows(w_cand)
    user = user.contiguous()  # the runtime reads dense [U, Ku, N] and [B, Kc, N]
    cand = cand.contiguous()
    cand_to_user = cand_to_user.contiguous()
    (m, k_user), k_cand = w_user.shape, w_cand.shape[1]
    batch, n = cand.shape[0], cand.shape[2]
    out = torch.empty((batch, m, n), dtype=cand.dtype, device=cand.device)
    rt, lib = _lib()
    ctx = rt.context(cand.device)
    args = IkboLceArgs(
        structSize=ctypes.sizeof(IkboLceArgs), dtype=_FLOATS[cand.dtype], batchSize=batch,
        numUsers=user.shape[0], m=m, kUser=k_user, kCand=k_cand, n=n, wUser=_ptr(w_user),
        wCand=_ptr(w_cand), user=_ptr(user), cand=_ptr(cand), candToUser=_ptr(cand_to_user),
        indexDtype=_INDEX[cand_to_user.dtype], output=_ptr(out), configId=-1,
        wUserStride=user_stride, wCandStride=cand_stride, numCandPieces=0,
        computeDtype=compute)
    ws = rt.workspace(ctx, lib.embrtIkboLceWorkspaceSize, args, cand.device)
    if ws is not None:
        args.workspace, args.workspaceBytes = ws.data_ptr(), ws.numel()
    rt.check(ctx, lib.embrtIkboLce(ctx, ctypes.byref(args)), "emb::ikbo_lce")
    rt.poll(ctx, "emb::ikbo_lce")
    return out


ikbo_lce = torch.library.custom_op("emb::ikbo_lce", mutates_args=())(_ikbo_lce)


@ikbo_lce.register_fake
def _ikbo_lce_fake(w_user, w_cand, user, cand, cand_to_user, compute_dtype=None):
    _check_ikbo_lce(w_user, w_cand, user, cand, cand_to_user, compute_dtype, fake=True)
    return cand.new_empty((cand.shape[0], w_user.shape[0], cand.shape[2]))


def _ikbo_lce_setup(ctx, inputs, output):
    w_user, w_cand, user, cand, cand_to_user, _ = inputs
    ctx.save_for_backward(w_user, w_cand, user, cand, cand_to_user)


def _half(dtype):
    return dtype in (torch.float16, torch.bfloat16)


def _ikbo_lce_backward(ctx, grad):
    """The candidate side as torch's matmul backward computes it; the user side at user batch
    size: the output gradient summed over each user's candidates (in f32 for f16/bf16), then
    the user products in that precision."""
    w_user, w_cand, user, cand, cand_to_user = ctx.saved_tensors
    need = ctx.needs_input_grad
    g_wu = g_wc = g_u = g_c = None
    if need[1]:
        g_wc = torch.einsum("bmn,bkn->mk", grad, cand)
    if need[3]:
        g_c = torch.matmul(w_cand.t(), grad)
    if need[0] or need[2]:
        acc = torch.float32 if _half(grad.dtype) else grad.dtype
        users = user.shape[0]
        per_user = grad.new_zeros((users,) + tuple(grad.shape[1:]), dtype=acc)
        if users > 0 and grad.shape[0] > 0:
            per_user = per_user.index_add(0, cand_to_user.clamp(0, users - 1), grad.to(acc))
        if need[0]:
            g_wu = torch.einsum("umn,ukn->mk", per_user, user.to(acc)).to(w_user.dtype)
        if need[2]:
            g_u = torch.matmul(w_user.t().to(acc), per_user).to(user.dtype)
    return g_wu, g_wc, g_u, g_c, None, None


ikbo_lce.register_autograd(_ikbo_lce_backward, setup_context=_ikbo_lce_setup)


#===------------------------------------------------------------------------------------------===#
# emb::attention and emb::ikbo_attention
#===------------------------------------------------------------------------------------------===#

@_runtime.keeps_device

def _run_attention(op, q, k, v, cand_to_user, lengths, scale, compute):
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()  # dense [*, L, H, Dh] only
    index = cand_to_user if cand_to_user is not None else lengths
    if cand_to_user is not None:
        cand_to_user = cand_to_user.contiguous()
    if lengths is not None:
        # One indexDtype types both: widen an int32 one to the other's int64 (exact).
        if index.dtype != lengths.dtype:
            if lengths.dtype == torch.int32:
                lengths = lengths.long()
            else:
                cand_to_user = cand_to_user.long()
            index = lengths
        lengths = lengths.contiguous()
    batch, lq, heads, head_dim = q.shape
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    rt, lib = _lib()
    ctx = rt.context(q.device)
    args = AttentionArgs(
        structSize=ctypes.sizeof(AttentionArgs), dtype=_FLOATS[q.dtype], batchSize=batch,
        numUsers=k.shape[0], lq=lq, lk=k.shape[1], heads=heads, headDim=head_dim,
        scale=_default_scale(scale, head_dim), q=_ptr(q), k=_ptr(k), v=_ptr(v),
        candToUser=_ptr(cand_to_user), userLengths=_ptr(lengths),
        indexDtype=_INDEX[index.dtype] if index is not None else I64, output=_ptr(out),
        configId=-1, computeDtype=compute)
    ws = rt.workspace(ctx, lib.embrtAttentionWorkspaceSize, args, q.device)
    if ws is not None:
        args.workspace, args.workspaceBytes = ws.data_ptr(), ws.numel()
    fn = lib.embrtIkboAttention if cand_to_user is not None else lib.embrtAttention
    rt.check(ctx, fn(ctx, ctypes.byref(args)), op)
    rt.poll(ctx, op)
    return out


@torch.library.custom_op("emb::attention", mutates_args=())
def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
              key_lengths: Optional[torch.Tensor] = None, scale: Optional[float] = None,
              compute_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    compute = _check_attention("attention", q, k, v, None, key_lengths, "key_lengths",
                               compute_dtype, fake=False)
    return _run_attention("attention", q, k, v, None, key_lengths, scale, compute)


@attention.register_fake
def _attention_fake(q, k, v, key_lengths=None, scale=None, compute_dtype=None):
    _check_attention("attention", q, k, v, None, key_lengths, "key_lengths", compute_dtype,
                     fake=True)
    return q.new_empty(q.shape)


def _ikbo_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cand_to_user: torch.Tensor,
                    user_lengths: Optional[torch.Tensor] = None, scale: Optional[float] = None,
                    compute_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    if cand_to_user is None:
        raise TypeError("emb::ikbo_attention: cand_to_user must be a Tensor, got None")
    compute = _check_attention("ikbo_attention", q, k, v, cand_to_user, user_lengths,
                               "user_lengths", compute_dtype, fake=False)
    return _run_attention("ikbo_attention", q, k, v, cand_to_user, user_lengths, scale, compute)


ikbo_attention = torch.library.custom_op("emb::ikbo_attention", mutates_args=())(
    _ikbo_attention)


@ikbo_attention.register_fake
def _ikbo_attention_fake(q, k, v, cand_to_user, user_lengths=None, scale=None,
                         compute_dtype=None):
    _check_attention("ikbo_attention", q, k, v, cand_to_user, user_lengths, "user_lengths",
                     compute_dtype, fake=True)
    return q.new_empty(q.shape)


def _attention_setup(ctx, inputs, output):
    if len(inputs) == 7:  # ikbo_attention
        q, k, v, cand_to_user, lengths, scale, _ = inputs
    else:
        (q, k, v, lengths, scale, _), cand_to_user = inputs, None
    ctx.save_for_backward(q, k, v, cand_to_user, lengths)
    ctx.scale = _default_scale(scale, q.shape[3])
    ctx.ikbo = len(inputs) == 7


def _attention_backward(ctx, grad):
    """The softmax attention backward, recomputed in f32 from q, k and v: P = softmax(S) with
    S = scale q k^T over each row's keys (a row with no key: P = 0, the output 0), then
    dV = P^T dO, dS = P (dO V^T - rowsum(P * dO V^T)), dQ = scale dS K, dK = scale dS^T Q; for
    ikbo_attention dK and dV are summed over each user's candidates."""
    q, k, v, cand_to_user, lengths = ctx.saved_tensors
    need = ctx.needs_input_grad
    users, lk = k.shape[0], k.shape[1]
    f32 = torch.float32
    if cand_to_user is not None:
        # The clamp keeps a bad map (reported by the forward) from indexing out of bounds.
        index = cand_to_user.clamp(0, users - 1) if users > 0 else None
        kb = k.to(f32).index_select(0, index) if index is not None else None
        vb = v.to(f32).index_select(0, index) if index is not None else None
    else:
        index, kb, vb = None, k.to(f32), v.to(f32)
    if kb is None:  # no user, so no candidate either (a valid map): every gradient is 0
        return (torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v)) + (None,) * (
            len(need) - 3)
    qf, g = q.to(f32), grad.to(f32)
    s = torch.einsum("bqhd,bkhd->bhqk", qf, kb) * ctx.scale
    keep = None
    if lengths is not None:
        row_lengths = lengths.index_select(0, index) if index is not None else lengths
        keys = torch.arange(lk, device=q.device)
        keep = (keys.unsqueeze(0) < row_lengths.unsqueeze(1))[:, None, None, :]
        s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s, dim=-1)
    if keep is not None:
        p = p.masked_fill(~keep, 0.0)  # a row of no key: softmax gives NaN, the op gives 0
    dp = torch.einsum("bqhd,bkhd->bhqk", g, vb)
    ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True))
    g_q = g_k = g_v = None
    if need[0]:
        g_q = (torch.einsum("bhqk,bkhd->bqhd", ds, kb) * ctx.scale).to(q.dtype)
    if need[1]:
        g_k = torch.einsum("bhqk,bqhd->bkhd", ds, qf) * ctx.scale
        if index is not None:
            g_k = torch.zeros((users,) + tuple(k.shape[1:]), dtype=f32,
                              device=k.device).index_add(0, index, g_k)
        g_k = g_k.to(k.dtype)
    if need[2]:
        g_v = torch.einsum("bhqk,bqhd->bkhd", p, g)
        if index is not None:
            g_v = torch.zeros((users,) + tuple(v.shape[1:]), dtype=f32,
                              device=v.device).index_add(0, index, g_v)
        g_v = g_v.to(v.dtype)
    return (g_q, g_k, g_v) + (None,) * (len(need) - 3)


attention.register_autograd(_attention_backward, setup_context=_attention_setup)
ikbo_attention.register_autograd(_attention_backward, setup_context=_attention_setup)


#===------------------------------------------------------------------------------------------===#
# Modules
#===------------------------------------------------------------------------------------------===#

def _module_tensor(module, name, t, rank_what, ranks):
    if not isinstance(t, torch.Tensor):
        raise TypeError("%s: %s must be a Tensor, got %s" % (module, name, type(t).__name__))
    if t.dim() not in ranks:
        raise ValueError("%s: %s must be %s, got %d dims %s" % (module, name, rank_what, t.dim(),
                                                               tuple(t.shape)))


class IkboLinearCompression(nn.Module):
    """Linear compression of user and candidate embeddings without broadcasting the users.

    A drop-in for the form emb raises from PyTorch (docs/frontend.md: a gather of the user rows,
    a K-concat, `torch.matmul(W[M,K], X[B,K,N])`)::

        x = torch.cat([user.index_select(0, cand_to_user), cand], dim=1)   # [B, Ku + Kc, N]
        out = torch.matmul(self.weight, x)                                  # [B, M, N]

    (`user_first=False`: `torch.cat([cand, user[cand_to_user]], dim=1)`), computed as
    emb::ikbo_lce: out[b] = W_cand @ cand[b] + W_user @ user[cand_to_user[b]], the user product
    on U user rows instead of B broadcast copies, and no [B, Ku + Kc, N] concat written.

    `weight` is one [out_features, user_features + cand_features] Parameter initialised as
    nn.Linear's (kaiming uniform with a = sqrt(5): U(-1/sqrt(K), 1/sqrt(K)), K = Ku + Kc), so a
    checkpoint of the torch form's W loads as it is. Its user and candidate column blocks are
    passed to the runtime in place (a row stride of Ku + Kc), no copy. Gradients flow to
    `weight`, `user` and `cand` (emb::ikbo_lce's backward).

    forward(user [U, Ku, N], cand [B, Kc, N], cand_to_user [B] int32/int64) -> [B, M, N]; all
    of the weight's dtype (float32, float16 or bfloat16) and device. `compute_dtype`
    (bfloat16 or float16, float32 weights only) rounds the operands once to that type and runs
    its kernels, as autocast would run the matmul.
    """

    def __init__(self, user_features: int, cand_features: int, out_features: int, *,
                 user_first: bool = True, compute_dtype: Optional[torch.dtype] = None,
                 device=None, dtype=None):
        super().__init__()
        for name, value in (("user_features", user_features), ("cand_features", cand_features),
                            ("out_features", out_features)):
            if not isinstance(value, int) or value < 0:
                raise ValueError("IkboLinearCompression: %s must be an int >= 0, got %r" % (
                    name, value))
        self.user_features = user_features
        self.cand_features = cand_features
        self.out_features = out_features
        self.user_first = user_first
        self.compute_dtype = compute_dtype
        self.weight = nn.Parameter(torch.empty((out_features, user_features + cand_features),
                                               device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))  # as nn.Linear

    def weights(self):
        """The (user, candidate) column blocks of `weight`: views, no copy."""
        ku, kc = self.user_features, self.cand_features
        if self.user_first:
            return self.weight[:, :ku], self.weight[:, ku:]
        return self.weight[:, kc:], self.weight[:, :kc]

    def forward(self, user, cand, cand_to_user):
        name = "IkboLinearCompression"
        _module_tensor(name, "user", user, "[U, Ku, N]", (3,))
        _module_tensor(name, "cand", cand, "[B, Kc, N]", (3,))
        if user.shape[1] != self.user_features:
            raise ValueError("%s: user has Ku = %d but the module has user_features = %d" % (
                name, user.shape[1], self.user_features))
        if cand.shape[1] != self.cand_features:
            raise ValueError("%s: cand has Kc = %d but the module has cand_features = %d" % (
                name, cand.shape[1], self.cand_features))
        w_user, w_cand = self.weights()
        return _runtime.run_op(torch.ops.emb.ikbo_lce, _ikbo_lce, w_user, w_cand, user, cand,
                               cand_to_user, self.compute_dtype)

    def extra_repr(self):
        return "user_features=%d, cand_features=%d, out_features=%d, user_first=%s%s" % (
            self.user_features, self.cand_features, self.out_features, self.user_first,
            ", compute_dtype=%s" % self.compute_dtype if self.compute_dtype else "")


class IkboTargetAttention(nn.Module):
    """Target attention of candidates over their user's history, without broadcasting it.

    A drop-in for the form emb raises from PyTorch (docs/frontend.md: SDPA on keys and values
    gathered to candidates, masked by the history's lengths)::

        B, Lq, E = q.shape; U, Lk, _ = k.shape; H = num_heads; Dh = E // H
        mask = torch.arange(Lk) < key_lengths.unsqueeze(1)                 # [U, Lk]
        o = F.scaled_dot_product_attention(
            q.view(B, Lq, H, Dh).transpose(1, 2),
            k.index_select(0, cand_to_user).view(B, Lk, H, Dh).transpose(1, 2),
            v.index_select(0, cand_to_user).view(B, Lk, H, Dh).transpose(1, 2),
            attn_mask=mask.index_select(0, cand_to_user)[:, None, None, :],
            scale=scale)
        out = o.transpose(1, 2).reshape(B, Lq, E)

    computed as emb::ikbo_attention: each candidate reads its user's keys and values in place.
    The simplest useful form: no projections (apply your nn.Linear to the history at user batch
    size, before this module, and to the candidates' queries), no dropout, no causal mask.

    forward(q [B, Lq, E] or [B, E] (one query a candidate), k [U, Lk, E], v [U, Lk, E],
    cand_to_user [B], key_lengths [U] or None) -> q's shape; E = num_heads * head dim; q, k and
    v of one float dtype (float32, float16, bfloat16), the indices int32 or int64. key_lengths
    are per user (a history's lengths, as emb::jagged_to_padded returns them); candidate b
    attends to the first key_lengths[cand_to_user[b]] keys, and a candidate whose user has none
    gets zeros (as SDPA's math path gives for a fully masked row). scale defaults to
    1/sqrt(head dim). Gradients flow to q, k and v (recomputed in f32 in the backward).
    """

    def __init__(self, num_heads: int, *, scale: Optional[float] = None,
                 compute_dtype: Optional[torch.dtype] = None):
        super().__init__()
        if not isinstance(num_heads, int) or num_heads < 1:
            raise ValueError("IkboTargetAttention: num_heads must be an int >= 1, got %r" % (
                num_heads,))
        self.num_heads = num_heads
        self.scale = scale
        self.compute_dtype = compute_dtype

    def forward(self, q, k, v, cand_to_user, key_lengths=None):
        name, heads = "IkboTargetAttention", self.num_heads
        _module_tensor(name, "q", q, "[B, Lq, E] or [B, E]", (2, 3))
        _module_tensor(name, "k", k, "[U, Lk, E]", (3,))
        _module_tensor(name, "v", v, "[U, Lk, E]", (3,))
        embed = q.shape[-1]
        if embed % heads != 0:
            raise ValueError("%s: q has E = %d, not a multiple of num_heads = %d" % (
                name, embed, heads))
        for what, t in (("k", k), ("v", v)):
            if t.shape[2] != embed:
                raise ValueError("%s: %s has E = %d but q has E = %d" % (name, what, t.shape[2],
                                                                         embed))
        if v.shape[:2] != k.shape[:2]:
            raise ValueError("%s: v is %s but k is %s" % (name, tuple(v.shape), tuple(k.shape)))
        one_row = q.dim() == 2
        qh = q.unsqueeze(1) if one_row else q
        head_dim = embed // heads
        out = _runtime.run_op(
            torch.ops.emb.ikbo_attention, _ikbo_attention,
            qh.reshape(qh.shape[0], qh.shape[1], heads, head_dim),
            k.reshape(k.shape[0], k.shape[1], heads, head_dim),
            v.reshape(v.shape[0], v.shape[1], heads, head_dim),
            cand_to_user, key_lengths, self.scale, self.compute_dtype)
        out = out.reshape(qh.shape[0], qh.shape[1], embed)
        return out.squeeze(1) if one_row else out

    def extra_repr(self):
        return "num_heads=%d%s%s" % (
            self.num_heads, ", scale=%s" % self.scale if self.scale is not None else "",
            ", compute_dtype=%s" % self.compute_dtype if self.compute_dtype else "")

"""Tests emb_torch's IKBO and sequence ops and modules against PyTorch (plain python, no pytest).

Each op (emb::broadcast, emb::jagged_to_padded, emb::ikbo_lce, emb::attention,
emb::ikbo_attention) against its torch form computed in f64 on the CPU, on fresh random inputs:
random and unsorted cand_to_user maps with users no candidate maps to, empty lengths, rows past
max_length, an empty batch; f32, bf16 and f16 with per-dtype tolerances (relative to the
largest reference value), int32 and int64 indices, compute_dtype. Then: gradients of every op
against autograd of its torch form in f64; the fake kernels under FakeTensorMode (shapes, dtypes
and devices of the real outputs); torch.library.opcheck of each op (schema, autograd
registration, fake kernel, AOT dispatch static and dynamic); IkboLinearCompression and
IkboTargetAttention against the broadcast-then-matmul and broadcast-then-SDPA forms, forward and
gradients; torch.compile(fullgraph=True) of a small model using both modules against eager;
the profiler naming the ops; wrong dtypes, devices and shapes raising TypeError/ValueError that
name the argument; on CUDA, the ops on a side stream and replayed from a CUDA graph.

    python3 test/PyTorch/test_ikbo.py [--device cuda|cpu] [--lib build/lib/libembrt.so] [--seed N]
Exit status 0 when every check passed; one line per failure, the last line says how many passed
and failed.
"""
import math
import os
import sys
import traceback

import torch
import torch.nn.functional as F

import harness  # noqa: E402  (test/PyTorch/harness.py)
from harness import check, run  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
from emb_torch import _runtime  # noqa: E402
from emb_torch import ikbo  # noqa: E402

DEV = None
GEN = torch.Generator().manual_seed(37)
FLOATS = (torch.float32, torch.bfloat16, torch.float16)
INDEX = (torch.int32, torch.int64)
# Relative to max(1, the largest reference value): f32 to a few ulps of f32 sums; f16/bf16 to
# about two roundings of the output (the IKBO LCE may keep the user product in the dtype).
TOL = {torch.float32: 2e-5, torch.float16: 3e-3, torch.bfloat16: 2e-2, torch.float64: 1e-12}
ATT_TOL = {torch.float32: 2e-5, torch.float16: 5e-3, torch.bfloat16: 3e-2}


def rand(*shape, dtype=torch.float32):
    return torch.randn(*shape, generator=GEN, dtype=torch.float64).to(dtype).to(DEV)


def cand_map(users, batch, dtype):
    """[batch] user ids, random and unsorted, never naming the last of a random permutation of
    the users (when there are two or more): a user no candidate maps to."""
    perm = torch.randperm(users, generator=GEN)
    pool = perm[:-1] if users > 1 else perm
    pick = torch.randint(0, max(len(pool), 1), (batch,), generator=GEN)
    ids = pool[pick] if users > 0 else torch.zeros(batch, dtype=torch.int64)
    return ids.to(dtype).to(DEV), (perm[-1].item() if users > 1 else None)


def err_bound(out, ref, tol):
    """(max |out - ref|, tol * max(1, max |ref|)), both on the CPU in f64."""
    out, ref = out.detach().double().cpu(), ref.detach().double().cpu()
    if ref.numel() == 0:
        return 0.0, tol
    return (out - ref).abs().max().item(), tol * max(1.0, ref.abs().max().item())


def check_close(out, ref, tol, what):
    if tuple(out.shape) != tuple(ref.shape):
        check(False, "%s: shape %s, expected %s" % (what, tuple(out.shape), tuple(ref.shape)))
        return
    err, bound = err_bound(out, ref, tol)
    check(err <= bound, "%s: max error %.3g > %.3g" % (what, err, bound))


def d64(t):
    return t.detach().double().cpu() if t.is_floating_point() else t.detach().cpu()


#===------------------------------------------------------------------------------------------===#
# Torch forms (f64 references)
#===------------------------------------------------------------------------------------------===#

def jagged_ref(values, offsets, length, pad):
    """padded, lengths as FBGEMM's jagged_to_padded_dense: built with torch ops (autograd)."""
    offs = offsets.tolist()
    rows, lengths = [], []
    for u in range(len(offs) - 1):
        n = max(0, min(offs[u + 1] - offs[u], length))
        fill = torch.full((length - n,) + tuple(values.shape[1:]), pad, dtype=values.dtype)
        rows.append(torch.cat([values[offs[u]:offs[u] + n], fill]))
        lengths.append(n)
    padded = (torch.stack(rows) if rows else
              torch.zeros((0, length) + tuple(values.shape[1:]), dtype=values.dtype))
    return padded, torch.tensor(lengths, dtype=offsets.dtype)


def lce_ref(w_user, w_cand, user, cand, c2u):
    return torch.matmul(w_cand, cand) + torch.matmul(w_user, user).index_select(0, c2u)


def lce_torch_form(weight, user, cand, c2u, user_first=True):
    """The form IkboLinearCompression replaces: broadcast, K-concat, matmul."""
    ub = user.index_select(0, c2u)
    x = torch.cat([ub, cand] if user_first else [cand, ub], dim=1)
    return torch.matmul(weight, x)


def attn_ref(q, k, v, c2u, lengths, scale):
    """softmax(scale q k^T) v over each row's keys, [B, L, H, Dh]; a row of no key gives 0."""
    keep = None
    if c2u is not None:
        k, v = k.index_select(0, c2u), v.index_select(0, c2u)
        lengths = lengths.index_select(0, c2u) if lengths is not None else None
    s = torch.einsum("bqhd,bkhd->bhqk", q, k) * scale
    if lengths is not None:
        keep = (torch.arange(k.shape[1]).unsqueeze(0) < lengths.unsqueeze(1))[:, None, None, :]
        s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s, dim=-1)
    if keep is not None:
        p = p.masked_fill(~keep, 0.0)
    return torch.einsum("bhqk,bkhd->bqhd", p, v)


def sdpa_form(q, k, v, c2u, key_lengths, heads, scale):
    """The form IkboTargetAttention replaces: broadcast keys, values and mask, then SDPA."""
    one_row = q.dim() == 2
    if one_row:
        q = q.unsqueeze(1)
    (b, lq, e), (_, lk, _) = q.shape, k.shape
    dh = e // heads
    mask = None
    if key_lengths is not None:
        # A user with no key attends to all of them here and its rows are zeroed below, so
        # that no backend's fully masked row (NaN in some) reaches the gradients.
        empty_user = (key_lengths == 0).unsqueeze(1)
        mask = (torch.arange(lk) < key_lengths.unsqueeze(1)) | empty_user
        mask = mask.index_select(0, c2u)[:, None, None, :]
    o = F.scaled_dot_product_attention(
        q.view(b, lq, heads, dh).transpose(1, 2),
        k.index_select(0, c2u).view(b, lk, heads, dh).transpose(1, 2),
        v.index_select(0, c2u).view(b, lk, heads, dh).transpose(1, 2), attn_mask=mask,
        scale=scale)
    o = o.transpose(1, 2).reshape(b, lq, e)
    if key_lengths is not None:  # a row of no key gives 0, as SDPA's math path gives
        empty = (key_lengths.index_select(0, c2u) == 0)[:, None, None]
        o = torch.where(empty, torch.zeros_like(o), o)
    return o.squeeze(1) if one_row else o


#===------------------------------------------------------------------------------------------===#
# Forward against the torch forms
#===------------------------------------------------------------------------------------------===#

def random_of(shape, dtype):
    if dtype == torch.bool:
        return (torch.rand(shape, generator=GEN) < 0.5).to(DEV)
    if dtype in (torch.int32, torch.int64, torch.int8, torch.uint8, torch.int16):
        return torch.randint(-100 if dtype != torch.uint8 else 0, 100, shape, generator=GEN,
                             dtype=torch.int64).to(dtype).to(DEV)
    if dtype.is_complex:
        return torch.randn(shape, generator=GEN, dtype=dtype).to(DEV)
    return rand(*shape, dtype=dtype)


def test_broadcast():
    for idx in INDEX:
        for dtype in (torch.float32, torch.bfloat16, torch.float16, torch.float64, torch.int64,
                      torch.int32, torch.int16, torch.uint8, torch.bool, torch.complex64):
            for shape in ((5,), (5, 3), (5, 2, 3)):
                user = random_of(shape, dtype)
                c2u, _ = cand_map(5, 11, idx)
                out = ikbo.broadcast(user, c2u)
                ref = user.cpu().index_select(0, c2u.cpu().long())
                check(out.dtype == dtype and out.device == user.device and
                      torch.equal(out.cpu(), ref),
                      "broadcast %s %s %s: not user[cand_to_user]" % (dtype, idx, shape))
    # A non-contiguous user (a transposed view) and an empty batch.
    user = rand(3, 4).t()
    c2u, _ = cand_map(4, 6, torch.int64)
    check(torch.equal(ikbo.broadcast(user, c2u).cpu(), user.cpu()[c2u.cpu()]),
          "broadcast: a transposed user")
    out = ikbo.broadcast(rand(4, 3), torch.zeros(0, dtype=torch.int32, device=DEV))
    check(tuple(out.shape) == (0, 3), "broadcast: an empty batch gives [0, 3]")


def test_jagged_to_padded():
    for idx in INDEX:
        for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
            for row in ((), (3,), (2, 2)):
                # 5 users, lengths 3, 0, 7 (past max_length 4), 1, 0; values before the first
                # offset and after the last are no user's.
                lens = [3, 0, 7, 1, 0]
                start = 2
                offs = [start]
                for n in lens:
                    offs.append(offs[-1] + n)
                values = rand(offs[-1] + 3, *row, dtype=dtype)
                offsets = torch.tensor(offs, dtype=idx, device=DEV)
                padded, lengths = ikbo.jagged_to_padded(values, offsets, 4, -1.5)
                ref_p, ref_l = jagged_ref(values.cpu(), offsets.cpu(), 4, -1.5)
                check(padded.dtype == dtype and lengths.dtype == idx and
                      torch.equal(padded.cpu(), ref_p) and torch.equal(lengths.cpu(), ref_l),
                      "jagged_to_padded %s %s row %s: not the padded rows" % (dtype, idx, row))
    # No user; no value.
    padded, lengths = ikbo.jagged_to_padded(rand(4, 3), torch.zeros(1, dtype=torch.int64,
                                                                     device=DEV), 2)
    check(tuple(padded.shape) == (0, 2, 3) and tuple(lengths.shape) == (0,),
          "jagged_to_padded: no user gives [0, 2, 3] and [0]")
    padded, lengths = ikbo.jagged_to_padded(rand(0, 3), torch.zeros(3, dtype=torch.int32,
                                                                     device=DEV), 2, 0.5)
    check(torch.equal(padded.cpu(), torch.full((2, 2, 3), 0.5)) and
          torch.equal(lengths.cpu(), torch.zeros(2, dtype=torch.int32)),
          "jagged_to_padded: empty users are all padding, lengths 0")


def lce_case(dtype, idx, m, ku, kc, n, users, batch, layout="block", compute=None):
    weight = rand(m, ku + kc, dtype=dtype)
    if layout == "block":  # column blocks of one matrix, read in place
        w_user, w_cand = weight[:, :ku], weight[:, ku:]
    elif layout == "packed":
        w_user, w_cand = weight[:, :ku].contiguous(), weight[:, ku:].contiguous()
    else:  # transposed views: no unit column stride, copied by the op
        w_user = weight[:, :ku].t().contiguous().t()
        w_cand = weight[:, ku:].t().contiguous().t()
    user, cand = rand(users, ku, n, dtype=dtype), rand(batch, kc, n, dtype=dtype)
    c2u, _ = cand_map(users, batch, idx)
    out = ikbo.ikbo_lce(w_user, w_cand, user, cand, c2u, compute)
    ops = [d64(t) for t in (w_user, w_cand, user, cand)]
    if compute is not None:
        ops = [t.to(compute).double() for t in ops]
    ref = lce_ref(*ops, c2u.cpu().long())
    if compute is not None:
        ref = ref.to(compute).double()
    check(out.dtype == dtype, "ikbo_lce %s: output dtype %s" % (dtype, out.dtype))
    check_close(out, ref, TOL[compute or dtype], "ikbo_lce %s %s [M%d Ku%d Kc%d N%d U%d B%d] %s%s"
                % (dtype, idx, m, ku, kc, n, users, batch, layout,
                   " compute %s" % compute if compute else ""))


def test_ikbo_lce():
    for dtype in FLOATS:
        for idx in INDEX:
            lce_case(dtype, idx, 6, 5, 7, 4, 4, 9)
        # Sizes the GPU's tiled kernels take (multiples of 8 and 16, a few tiles).
        lce_case(dtype, torch.int64, 96, 72, 136, 64, 6, 150)
        lce_case(dtype, torch.int32, 40, 24, 40, 16, 3, 33, layout="packed")
    lce_case(torch.float32, torch.int64, 6, 5, 7, 4, 4, 9, layout="transposed")
    lce_case(torch.float32, torch.int64, 6, 5, 7, 4, 4, 0)  # empty batch
    for compute in (torch.bfloat16, torch.float16):
        lce_case(torch.float32, torch.int64, 6, 5, 7, 4, 4, 9, compute=compute)
        lce_case(torch.float32, torch.int32, 96, 72, 136, 64, 6, 150, compute=compute)


def attention_case(dtype, idx, batch, users, lq, lk, heads, dh, ikbo_form, with_lengths,
                   scale=None, compute=None, lengths_idx=None):
    q = rand(batch, lq, heads, dh, dtype=dtype)
    kv_rows = users if ikbo_form else batch
    k, v = rand(kv_rows, lk, heads, dh, dtype=dtype), rand(kv_rows, lk, heads, dh, dtype=dtype)
    c2u, unused = cand_map(users, batch, idx) if ikbo_form else (None, None)
    lengths = None
    if with_lengths:
        lengths = torch.randint(0, lk + 1, (kv_rows,), generator=GEN)
        if kv_rows > 1:
            lengths[0], lengths[1] = 0, lk  # an empty row and a full one
        if ikbo_form and unused is not None:
            # A user no candidate maps to: its length is never read and may hold anything.
            lengths[unused] = 10 ** 6
        lengths = lengths.to(lengths_idx or idx).to(DEV)
    if ikbo_form:
        out = ikbo.ikbo_attention(q, k, v, c2u, lengths, scale, compute)
    else:
        out = ikbo.attention(q, k, v, lengths, scale, compute)
    ops = [d64(t) for t in (q, k, v)]
    if compute is not None:
        ops = [t.to(compute).double() for t in ops]
    s = scale if scale is not None else 1.0 / math.sqrt(dh)
    ref = attn_ref(*ops, c2u.cpu().long() if c2u is not None else None,
                   lengths.cpu().long() if lengths is not None else None, s)
    if compute is not None:
        ref = ref.to(compute).double()
    check(out.dtype == dtype, "attention %s: output dtype %s" % (dtype, out.dtype))
    check_close(out, ref, ATT_TOL[compute or dtype],
                "%s %s %s [B%d U%d Lq%d Lk%d H%d Dh%d] lengths %s scale %s%s" % (
                    "ikbo_attention" if ikbo_form else "attention", dtype, idx, batch, users,
                    lq, lk, heads, dh, with_lengths, scale,
                    " compute %s" % compute if compute else ""))


def test_attention():
    for dtype in FLOATS:
        for idx in INDEX:
            for ikbo_form in (False, True):
                for with_lengths in (False, True):
                    attention_case(dtype, idx, 7, 4, 3, 6, 2, 8, ikbo_form, with_lengths)
        # Head dims and lengths the GPU's tensor-core kernels take.
        attention_case(dtype, torch.int64, 6, 3, 16, 80, 2, 64, True, True)
        attention_case(dtype, torch.int32, 5, 2, 8, 130, 1, 128, True, True)
        attention_case(dtype, torch.int64, 4, 4, 8, 64, 2, 128, False, True)
    attention_case(torch.float32, torch.int64, 7, 4, 3, 6, 2, 8, True, True, scale=0.3)
    attention_case(torch.float32, torch.int64, 7, 4, 3, 6, 2, 8, False, False, scale=0.3)
    attention_case(torch.float32, torch.int64, 7, 4, 3, 6, 2, 8, True, True,
                   lengths_idx=torch.int32)  # cand_to_user int64, user_lengths int32
    attention_case(torch.float32, torch.int32, 7, 4, 3, 6, 2, 8, True, True,
                   lengths_idx=torch.int64)
    attention_case(torch.float32, torch.int64, 0, 3, 3, 6, 2, 8, True, True)  # empty batch
    for compute in (torch.bfloat16, torch.float16):
        attention_case(torch.float32, torch.int64, 7, 4, 3, 6, 2, 8, True, True,
                       compute=compute)
        attention_case(torch.float32, torch.int64, 6, 3, 16, 80, 2, 64, True, True,
                       compute=compute)
        attention_case(torch.float32, torch.int32, 4, 4, 8, 64, 2, 128, False, True,
                       compute=compute)


#===------------------------------------------------------------------------------------------===#
# Gradients against autograd of the torch forms
#===------------------------------------------------------------------------------------------===#

def leaf(t):
    return t.detach().clone().requires_grad_(True)


def leaf64(t):
    return t.detach().double().cpu().requires_grad_(True)


def grads_of(out, inputs, weight):
    return torch.autograd.grad((out * weight).sum(), inputs, allow_unused=True)


def test_grads():
    # broadcast
    user = leaf(rand(5, 3, 2))
    c2u, _ = cand_map(5, 9, torch.int32)
    g = rand(9, 3, 2)
    got, = grads_of(ikbo.broadcast(user, c2u), [user], g)
    u64 = leaf64(user)
    ref, = grads_of(u64.index_select(0, c2u.cpu().long()), [u64], d64(g))
    check_close(got, ref, 1e-5, "broadcast grad of user")

    # jagged_to_padded
    offsets = torch.tensor([1, 4, 4, 10, 11], dtype=torch.int64, device=DEV)
    values = leaf(rand(13, 3))
    padded, _ = ikbo.jagged_to_padded(values, offsets, 4, 2.0)
    g = rand(*padded.shape)
    got, = grads_of(padded, [values], g)
    v64 = leaf64(values)
    ref_p, _ = jagged_ref(v64, offsets.cpu(), 4, 2.0)
    ref, = grads_of(ref_p, [v64], d64(g))
    check_close(got, ref, 1e-6, "jagged_to_padded grad of values")

    # ikbo_lce, the weights as column blocks of one leaf
    for dtype, tol in ((torch.float32, 2e-5), (torch.bfloat16, 3e-2)):
        m, ku, kc, n, users, batch = 6, 5, 7, 4, 4, 9
        weight, user, cand = (leaf(rand(m, ku + kc, dtype=dtype)),
                              leaf(rand(users, ku, n, dtype=dtype)),
                              leaf(rand(batch, kc, n, dtype=dtype)))
        c2u, _ = cand_map(users, batch, torch.int64)
        g = rand(batch, m, n, dtype=dtype)
        out = ikbo.ikbo_lce(weight[:, :ku], weight[:, ku:], user, cand, c2u)
        got = grads_of(out, [weight, user, cand], g)
        r = [leaf64(t) for t in (weight, user, cand)]
        ref = grads_of(lce_torch_form(r[0], r[1], r[2], c2u.cpu()), r, d64(g))
        for name, a, b in zip(("weight", "user", "cand"), got, ref):
            check_close(a, b, tol, "ikbo_lce %s grad of %s" % (dtype, name))

    # attention and ikbo_attention, with empty rows
    for ikbo_form in (False, True):
        for with_lengths in (False, True):
            batch, users, lq, lk, heads, dh = 7, 4, 3, 6, 2, 8
            rows = users if ikbo_form else batch
            q = leaf(rand(batch, lq, heads, dh))
            k, v = leaf(rand(rows, lk, heads, dh)), leaf(rand(rows, lk, heads, dh))
            c2u = cand_map(users, batch, torch.int64)[0] if ikbo_form else None
            lengths = None
            if with_lengths:
                lengths = torch.randint(0, lk + 1, (rows,), generator=GEN)
                lengths[0] = 0
                lengths = lengths.to(torch.int32).to(DEV)
            if ikbo_form:
                out = ikbo.ikbo_attention(q, k, v, c2u, lengths)
            else:
                out = ikbo.attention(q, k, v, lengths)
            g = rand(*out.shape)
            got = grads_of(out, [q, k, v], g)
            r = [leaf64(t) for t in (q, k, v)]
            ref_out = attn_ref(*r, c2u.cpu() if c2u is not None else None,
                               lengths.cpu().long() if lengths is not None else None,
                               1.0 / math.sqrt(dh))
            ref = grads_of(ref_out, r, d64(g))
            for name, a, b in zip("qkv", got, ref):
                check_close(a, b, 5e-5, "%s lengths %s grad of %s" % (
                    "ikbo_attention" if ikbo_form else "attention", with_lengths, name))


#===------------------------------------------------------------------------------------------===#
# Fake kernels and opcheck
#===------------------------------------------------------------------------------------------===#

def samples(requires_grad):
    """(name, op, args) with small inputs; floats require grad when asked."""
    def f(t):
        return leaf(t) if requires_grad else t

    c2u, _ = cand_map(4, 6, torch.int64)
    c2u32, _ = cand_map(3, 5, torch.int32)
    weight = f(rand(5, 7))
    lens = torch.tensor([2, 0, 3, 1], dtype=torch.int64, device=DEV)
    return [
        ("broadcast", ikbo.broadcast, (f(rand(4, 3, 2)), c2u)),
        ("broadcast int", ikbo.broadcast, (torch.arange(8, device=DEV).view(4, 2), c2u32[:3])),
        ("jagged_to_padded", ikbo.jagged_to_padded,
         (f(rand(9, 3)), torch.tensor([0, 2, 2, 9], dtype=torch.int32, device=DEV), 4, 0.5)),
        ("ikbo_lce", ikbo.ikbo_lce,
         (f(rand(5, 3)), f(rand(5, 4)), f(rand(4, 3, 2)), f(rand(6, 4, 2)), c2u)),
        ("ikbo_lce column blocks", ikbo.ikbo_lce,
         (weight[:, :3], weight[:, 3:], f(rand(4, 3, 2)), f(rand(6, 4, 2)), c2u)),
        ("ikbo_lce bf16 compute", ikbo.ikbo_lce,
         (f(rand(5, 3)), f(rand(5, 4)), f(rand(4, 3, 2)), f(rand(6, 4, 2)), c2u,
          torch.bfloat16)),
        ("attention", ikbo.attention,
         (f(rand(4, 2, 2, 8)), f(rand(4, 5, 2, 8)), f(rand(4, 5, 2, 8)), lens, 0.25)),
        ("attention no lengths", ikbo.attention,
         (f(rand(4, 2, 2, 8)), f(rand(4, 5, 2, 8)), f(rand(4, 5, 2, 8)))),
        ("ikbo_attention", ikbo.ikbo_attention,
         (f(rand(6, 2, 2, 8)), f(rand(4, 5, 2, 8)), f(rand(4, 5, 2, 8)), c2u, lens)),
        ("ikbo_attention bf16", ikbo.ikbo_attention,
         (f(rand(5, 1, 2, 8, dtype=torch.bfloat16)), f(rand(3, 5, 2, 8, dtype=torch.bfloat16)),
          f(rand(3, 5, 2, 8, dtype=torch.bfloat16)), c2u32)),
    ]


def test_fake():
    from torch._subclasses.fake_tensor import FakeTensorMode
    for name, op, args in samples(False):
        real = op(*args)
        mode = FakeTensorMode()
        fake_args = tuple(mode.from_tensor(a) if isinstance(a, torch.Tensor) else a
                          for a in args)
        with mode:
            fake = op(*fake_args)
        real = real if isinstance(real, tuple) else (real,)
        fake = fake if isinstance(fake, tuple) else (fake,)
        check(len(real) == len(fake) and all(
            tuple(r.shape) == tuple(f.shape) and r.dtype == f.dtype and r.device == f.device
            and r.stride() == f.stride() for r, f in zip(real, fake)),
            "fake %s: %s, the op gives %s" % (
                name, [(tuple(f.shape), f.dtype, f.device) for f in fake],
                [(tuple(r.shape), r.dtype, r.device) for r in real]))
    # The fake kernel checks what the real one checks.
    mode = FakeTensorMode()
    with mode:
        try:
            ikbo.ikbo_lce(torch.empty(4, 3, device=DEV), torch.empty(4, 5, device=DEV),
                          torch.empty(2, 3, 6, device=DEV), torch.empty(7, 5, 6, device=DEV),
                          torch.zeros(8, dtype=torch.int64, device=DEV))
            check(False, "fake ikbo_lce: a cand_to_user of 8 for 7 candidates passed")
        except ValueError as e:
            check("cand_to_user" in str(e), "fake ikbo_lce: %s does not name cand_to_user" % e)


def test_opcheck():
    for name, op, args in samples(True):
        try:
            torch.library.opcheck(op, args)
            check(True, "opcheck " + name)
        except Exception as e:  # noqa: BLE001
            check(False, "opcheck %s: %s" % (name, str(e).splitlines()[0][:300]))
            traceback.print_exc()


#===------------------------------------------------------------------------------------------===#
# Modules
#===------------------------------------------------------------------------------------------===#

def test_linear_compression():
    for dtype, tol in ((torch.float32, 2e-5), (torch.bfloat16, 3e-2), (torch.float16, 5e-3)):
        for user_first in (True, False):
            ku, kc, m, n, users, batch = 5, 7, 6, 4, 4, 11
            mod = ikbo.IkboLinearCompression(ku, kc, m, user_first=user_first, device=DEV,
                                             dtype=dtype)
            bound = 1.0 / math.sqrt(ku + kc)
            w = mod.weight.detach().double()
            check(tuple(mod.weight.shape) == (m, ku + kc) and mod.weight.dtype == dtype and
                  w.abs().max().item() <= bound * 1.01 and w.std().item() > bound / 4,
                  "IkboLinearCompression: weight not [M, Ku + Kc] in U(-1/sqrt(K), 1/sqrt(K))")
            user, cand = leaf(rand(users, ku, n, dtype=dtype)), leaf(rand(batch, kc, n,
                                                                          dtype=dtype))
            c2u, _ = cand_map(users, batch, torch.int64)
            out = mod(user, cand, c2u)
            r = [leaf64(t) for t in (mod.weight, user, cand)]
            ref = lce_torch_form(r[0], r[1], r[2], c2u.cpu(), user_first)
            what = "IkboLinearCompression %s user_first %s" % (dtype, user_first)
            check_close(out, ref, TOL[dtype], what)
            g = rand(batch, m, n, dtype=dtype)
            got = grads_of(out, [mod.weight, user, cand], g)
            want = grads_of(ref, r, d64(g))
            for name, a, b in zip(("weight", "user", "cand"), got, want):
                check_close(a, b, tol, "%s grad of %s" % (what, name))
    compute = ikbo.IkboLinearCompression(5, 7, 6, compute_dtype=torch.bfloat16, device=DEV)
    user, cand = rand(4, 5, 4), rand(9, 7, 4)
    c2u, _ = cand_map(4, 9, torch.int32)
    ref = lce_torch_form(d64(compute.weight).bfloat16().double(), d64(user).bfloat16().double(),
                         d64(cand).bfloat16().double(), c2u.cpu().long())
    check_close(compute(user, cand, c2u), ref.bfloat16().double(), TOL[torch.bfloat16],
                "IkboLinearCompression compute_dtype bfloat16")


def test_target_attention():
    for dtype in FLOATS:
        for one_row in (False, True):
            for with_lengths in (False, True):
                heads, dh, users, batch, lq, lk = 2, 8, 4, 9, 3, 6
                mod = ikbo.IkboTargetAttention(heads)
                q = leaf(rand(batch, heads * dh, dtype=dtype) if one_row else
                         rand(batch, lq, heads * dh, dtype=dtype))
                k = leaf(rand(users, lk, heads * dh, dtype=dtype))
                v = leaf(rand(users, lk, heads * dh, dtype=dtype))
                c2u, unused = cand_map(users, batch, torch.int64)
                lengths = None
                if with_lengths:
                    lengths = torch.randint(0, lk + 1, (users,), generator=GEN)
                    lengths[c2u[0].item()] = 0  # a candidate whose user has no history
                    lengths = lengths.to(DEV)
                out = mod(q, k, v, c2u, lengths)
                r = [leaf64(t) for t in (q, k, v)]
                ref = sdpa_form(*r, c2u.cpu(), lengths.cpu() if lengths is not None else None,
                                heads, None)
                what = "IkboTargetAttention %s one_row %s lengths %s" % (dtype, one_row,
                                                                        with_lengths)
                check_close(out, ref, ATT_TOL[dtype], what)
                if dtype == torch.float32:
                    g = rand(*out.shape)
                    got = grads_of(out, [q, k, v], g)
                    want = grads_of(ref, r, d64(g))
                    for name, a, b in zip("qkv", got, want):
                        check_close(a, b, 5e-5, "%s grad of %s" % (what, name))


def test_direct_modules():
    """Under no_grad the IKBO modules call their ops' kernels without the dispatcher
    (_runtime.direct_call): the results are the ops', bit for bit. Meta inputs (where fake
    kernels exist) take the op, whose fake kernel gives meta results."""
    heads, dh, users, batch, lk, ku, kc, m, n = 2, 8, 4, 9, 6, 5, 7, 6, 4
    att = ikbo.IkboTargetAttention(heads)
    q, k, v = rand(batch, heads * dh), rand(users, lk, heads * dh), rand(users, lk, heads * dh)
    c2u, _ = cand_map(users, batch, torch.int64)
    lengths = torch.randint(1, lk + 1, (users,), generator=GEN).to(DEV)
    lce = ikbo.IkboLinearCompression(ku, kc, m, device=DEV)
    user, cand = rand(users, ku, n), rand(batch, kc, n)
    with torch.no_grad():
        got = att(q, k, v, c2u, lengths)
        want = torch.ops.emb.ikbo_attention(
            q.reshape(batch, 1, heads, dh), k.reshape(users, lk, heads, dh),
            v.reshape(users, lk, heads, dh), c2u, lengths, None, None).reshape(batch, heads * dh)
        check(torch.equal(got, want), "IkboTargetAttention under no_grad: the op's result")
        got = lce(user, cand, c2u)
        want = torch.ops.emb.ikbo_lce(*lce.weights(), user, cand, c2u, lce.compute_dtype)
        check(torch.equal(got, want), "IkboLinearCompression under no_grad: the op's result")
        if hasattr(torch.library, "register_fake"):
            meta = att(*(t.to("meta") for t in (q, k, v, c2u, lengths)))
            check(meta.is_meta and meta.shape == q.shape and meta.dtype == q.dtype,
                  "IkboTargetAttention on meta tensors: a meta result of q's shape, got %s %s"
                  % (meta.device, tuple(meta.shape)))


class TinyRanker(torch.nn.Module):
    """History projected at user batch size, target attention, the IKBO LCE, a head."""

    def __init__(self, dim=16, heads=2, ku=5, kc=7, m=6, n=4):
        super().__init__()
        self.key = torch.nn.Linear(dim, dim)
        self.value = torch.nn.Linear(dim, dim)
        self.query = torch.nn.Linear(dim, dim)
        self.attention = ikbo.IkboTargetAttention(heads)
        self.compress = ikbo.IkboLinearCompression(ku, kc, m)
        self.head = torch.nn.Linear(m * n + dim, 1)

    def forward(self, history, lengths, cand_feat, user, cand, cand_to_user):
        a = self.attention(self.query(cand_feat), self.key(history), self.value(history),
                           cand_to_user, lengths)
        z = self.compress(user, cand, cand_to_user).flatten(1)
        return torch.sigmoid(self.head(torch.cat([z, a], dim=1)))


def ranker_inputs(users=4, batch=10, lk=6, dim=16, ku=5, kc=7, n=4):
    c2u, _ = cand_map(users, batch, torch.int64)
    lengths = torch.randint(0, lk + 1, (users,), generator=GEN).to(DEV)
    return (rand(users, lk, dim), lengths, rand(batch, dim), rand(users, ku, n),
            rand(batch, kc, n), c2u)


def test_compile():
    import torch._dynamo
    torch._dynamo.reset()
    model = TinyRanker().to(DEV)
    compiled = torch.compile(model, fullgraph=True)
    for step in range(2):  # a second call reuses the compiled graph
        inputs = ranker_inputs()
        eager = model(*inputs)
        got = compiled(*inputs)
        check_close(got, eager, 1e-5, "torch.compile(fullgraph=True) forward, call %d" % step)
        params = list(model.parameters())
        want = torch.autograd.grad(eager.sum(), params)
        have = torch.autograd.grad(got.sum(), params)
        for (name, _), a, b in zip(model.named_parameters(), have, want):
            check_close(a, b, 1e-4, "torch.compile(fullgraph=True) grad of %s, call %d" % (
                name, step))


def test_profiler():
    from torch.profiler import ProfilerActivity, profile
    model = TinyRanker().to(DEV)
    inputs = ranker_inputs()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        model(*inputs)
    names = {e.name for e in prof.events()}
    for op in ("emb::ikbo_lce", "emb::ikbo_attention"):
        check(op in names, "profiler: no event named %s" % op)


#===------------------------------------------------------------------------------------------===#
# Bad input
#===------------------------------------------------------------------------------------------===#

def expect(fn, exc, words, what):
    try:
        fn()
    except exc as e:
        msg = str(e)
        check(all(w in msg for w in words), "%s: %r does not name %s" % (what, msg, words))
        return
    except Exception as e:  # noqa: BLE001
        check(False, "%s: raised %r, expected %s" % (what, e, exc.__name__))
        return
    check(False, "%s: no error" % what)


def test_errors():
    c2u = torch.tensor([0, 2, 1], device=DEV)
    user, cand = rand(3, 4, 2), rand(3, 5, 2)
    w_user, w_cand = rand(6, 4), rand(6, 5)
    q, k = rand(3, 2, 2, 8), rand(3, 5, 2, 8)
    lens = torch.tensor([1, 2, 3], device=DEV)
    E = ValueError
    expect(lambda: ikbo.broadcast(user, c2u.float()), TypeError,
           ["emb::broadcast", "cand_to_user", "int32 or int64", "torch.float32"],
           "broadcast float map")
    expect(lambda: ikbo.broadcast(user, c2u.view(3, 1)), E, ["cand_to_user"],
           "broadcast 2-D map")
    expect(lambda: ikbo.broadcast(rand(()), c2u), E, ["user"], "broadcast scalar user")
    offs = torch.tensor([0, 2, 5], device=DEV)
    expect(lambda: ikbo.jagged_to_padded(torch.ones(5, 2, dtype=torch.int32, device=DEV), offs,
                                         3), TypeError, ["values"], "jagged int values")
    expect(lambda: ikbo.jagged_to_padded(rand(5, 2), offs.float(), 3), TypeError, ["offsets"],
           "jagged float offsets")
    expect(lambda: ikbo.jagged_to_padded(rand(5, 2), offs.view(1, 3), 3), E, ["offsets"],
           "jagged 2-D offsets")
    expect(lambda: ikbo.jagged_to_padded(rand(5, 2), offs, 0), E, ["max_length"],
           "jagged max_length 0")
    expect(lambda: ikbo.jagged_to_padded(rand(5, 2), offs, 3, float("nan")), E,
           ["padding_value"], "jagged NaN padding")
    expect(lambda: ikbo.ikbo_lce(w_user, w_cand, user.half(), cand, c2u), TypeError,
           ["user", "torch.float16"], "ikbo_lce user dtype")
    expect(lambda: ikbo.ikbo_lce(w_user, w_cand, user, rand(3, 4, 2), c2u), E, ["cand", "Kc"],
           "ikbo_lce cand K")
    expect(lambda: ikbo.ikbo_lce(w_user, w_cand, user, rand(3, 5, 3), c2u), E, ["cand", "N"],
           "ikbo_lce cand N")
    expect(lambda: ikbo.ikbo_lce(w_user, w_cand, user, cand, c2u[:2]), E, ["cand_to_user", "B"],
           "ikbo_lce map length")
    expect(lambda: ikbo.ikbo_lce(w_user, rand(5, 5), user, cand, c2u), E, ["w_cand", "M"],
           "ikbo_lce w_cand M")
    expect(lambda: ikbo.ikbo_lce(w_user.view(2, 3, 4), w_cand, user, cand, c2u), E, ["w_user"],
           "ikbo_lce 3-D w_user")
    expect(lambda: ikbo.ikbo_lce(w_user.bfloat16(), w_cand.bfloat16(), user.bfloat16(),
                                 cand.bfloat16(), c2u, torch.float16), E, ["compute_dtype"],
           "ikbo_lce f16 compute on bf16 data")
    expect(lambda: ikbo.attention(q, rand(3, 5, 1, 8), rand(3, 5, 1, 8)), E, ["k", "H"],
           "attention k heads")
    expect(lambda: ikbo.attention(q, k, rand(3, 4, 2, 8)), E, ["v", "Lk"], "attention v Lk")
    expect(lambda: ikbo.attention(q, rand(2, 5, 2, 8), rand(2, 5, 2, 8)), E, ["k", "B"],
           "attention k batch")
    expect(lambda: ikbo.attention(q, k, k, lens.float()), TypeError, ["key_lengths"],
           "attention float lengths")
    expect(lambda: ikbo.attention(q.double(), k.double(), k.double()), TypeError, ["q"],
           "attention f64")
    expect(lambda: ikbo.ikbo_attention(q, rand(2, 5, 2, 8), rand(2, 5, 2, 8), c2u[:2]), E,
           ["cand_to_user", "B"], "ikbo_attention map length")
    expect(lambda: ikbo.ikbo_attention(q, k, k, c2u, lens[:2]), E, ["user_lengths", "U"],
           "ikbo_attention lengths")
    expect(lambda: ikbo.ikbo_attention(q.half(), k.half(), k.half(), c2u, None, None,
                                       torch.bfloat16), E, ["compute_dtype"],
           "ikbo_attention bf16 compute on f16 data")
    mod = ikbo.IkboTargetAttention(3)
    expect(lambda: mod(rand(3, 2, 16), rand(3, 5, 16), rand(3, 5, 16), c2u), E,
           ["q", "num_heads"], "IkboTargetAttention E % heads")
    lce = ikbo.IkboLinearCompression(4, 5, 6, device=DEV)
    expect(lambda: lce(rand(3, 3, 2), cand, c2u), E, ["user", "user_features"],
           "IkboLinearCompression user K")
    other = None
    if DEV.type == "cuda":
        other = torch.device("cpu")
    elif torch.cuda.is_available():
        other = torch.device("cuda")
    if other is not None:
        expect(lambda: ikbo.ikbo_lce(w_user, w_cand, user, cand.to(other), c2u), E,
               ["cand", str(other.type)], "ikbo_lce cand on another device")
        expect(lambda: ikbo.ikbo_attention(q, k, k, c2u.to(other)), E,
               ["cand_to_user"], "ikbo_attention map on another device")
    if DEV.type == "cpu":
        # The CPU backend checks the map before writing (CUDA records it on the device, reported
        # at the next synchronisation).
        bad = torch.tensor([0, 3, 1], device=DEV)
        expect(lambda: ikbo.broadcast(user, bad), RuntimeError, ["cand_to_user[1]"],
               "broadcast map entry out of range")
        expect(lambda: ikbo.ikbo_lce(w_user, w_cand, user, cand, bad), RuntimeError,
               ["cand_to_user[1]"], "ikbo_lce map entry out of range")
        expect(lambda: ikbo.jagged_to_padded(rand(5, 2), torch.tensor([0, 3, 2], device=DEV),
                                             2), RuntimeError, ["offsets"],
               "jagged offsets out of order")


#===------------------------------------------------------------------------------------------===#
# CUDA: streams and graphs
#===------------------------------------------------------------------------------------------===#

def test_cuda_streams_and_graphs():
    model = TinyRanker().to(DEV).half()
    inputs = [t.half() if t.is_floating_point() else t for t in ranker_inputs(users=6, batch=40)]
    with torch.no_grad():
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            # Inputs made on the side stream and read by the ops there, without a host sync.
            doubled = [t * 2 if t.is_floating_point() else t for t in inputs]
            got = model(*doubled)
        torch.cuda.current_stream().wait_stream(side)
        check_close(got, model(*doubled), TOL[torch.float16], "ops on a side stream")

        # The emb ops alone, captured once and replayed on new inputs: bit for bit.
        def emb_only(q, k, v, lengths, user, cand, c2u):
            return (model.attention(q, k, v, c2u, lengths), model.compress(user, cand, c2u))

        def emb_inputs():
            c2u, _ = cand_map(6, 40, torch.int32)
            return [rand(40, 16, dtype=torch.float16), rand(6, 8, 16, dtype=torch.float16),
                    rand(6, 8, 16, dtype=torch.float16),
                    torch.randint(0, 9, (6,), generator=GEN, dtype=torch.int32).to(DEV),
                    rand(6, 5, 4, dtype=torch.float16), rand(40, 7, 4, dtype=torch.float16),
                    c2u]

        static = emb_inputs()
        capture = torch.cuda.Stream()
        capture.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(capture):
            for _ in range(2):  # warm up on the capture stream: its runtime context
                emb_only(*static)
        torch.cuda.current_stream().wait_stream(capture)
        old = [o.clone() for o in emb_only(*static)]
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=capture):
            outs = emb_only(*static)
        fresh = emb_inputs()
        for s, f in zip(static, fresh):
            s.copy_(f)
        graph.replay()
        torch.cuda.synchronize()
        eager = emb_only(*fresh)
        for name, o, e, b in zip(("ikbo_attention", "ikbo_lce"), outs, eager, old):
            check(torch.equal(o, e), "CUDA graph replay of %s differs from eager" % name)
            check(not torch.equal(e, b), "CUDA graph test: new inputs give %s's old output" % name)


def main():
    global DEV
    ap = harness.parser()
    ap.add_argument("--seed", type=int, default=37)
    a = ap.parse_args()
    DEV = torch.device(a.device)
    _runtime.runtime(a.lib)
    GEN.manual_seed(a.seed)
    torch.manual_seed(a.seed)
    tests = [test_broadcast, test_jagged_to_padded, test_ikbo_lce, test_attention, test_grads,
             test_fake, test_opcheck, test_linear_compression, test_target_attention,
             test_direct_modules, test_compile, test_profiler, test_errors]
    if DEV.type == "cuda":
        tests.append(test_cuda_streams_and_graphs)
    for t in tests:
        print("--", t.__name__, flush=True)
        run(t.__name__, t)
    sys.exit(harness.finish())


if __name__ == "__main__":
    main()

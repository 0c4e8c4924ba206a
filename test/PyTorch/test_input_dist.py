"""Tests emb_torch's input-dist ops against PyTorch references (plain python, no pytest).

emb::bucketize against its contract (include/emb/runtime.h, embrtBucketizeArgs) written in plain
torch, on fresh random batches (empty bags, ids outside the table, ids at the least values of
their type) and slot layouts: row-wise shards (uneven and empty ranges), table-wise slots with
features that have no slot (data-parallel ones), column shards (depth > 1) mixed with table-wise
slots, and random overlapping ranges; int32 and int64 indices; without per-sample weights and with
float32, float16 and bfloat16 ones; an empty batch and a batch of size 0; non-contiguous inputs.
Every output is compared whole: lengths, counts, the kept ids and weights bit for bit, the
entries past sum(counts) zero, the ids' size N * depth with depth from bucketize_depth, which is
checked against the runtime's embrtBucketizeDepth. emb::lengths_to_offsets against cumsum and
block sums, int32 and int64, empty lengths. Then: the fake kernels under FakeTensorMode (shapes,
dtypes, devices and strides of the real outputs, and the same argument checks);
torch.library.opcheck of both ops; torch.compile(fullgraph=True) of bucketize then
lengths_to_offsets against eager; wrong dtypes, devices, shapes and slots raising
TypeError/ValueError that name the argument, bad offsets and negative lengths raising
EmbIndexError (on CUDA from the device's error record); on CUDA, the ops on a side stream and
lengths_to_offsets replayed from a CUDA graph.

    python3 test/PyTorch/test_input_dist.py [--device cuda|cpu] [--lib build/lib/libembrt.so]
Exit status 0 when every check passed; one line per failure, the last line says how many passed
and failed.
"""
import ctypes
import os
import sys
import traceback

import torch

import harness  # noqa: E402  (test/PyTorch/harness.py)
from harness import check, run  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
from emb_torch import _runtime  # noqa: E402
from emb_torch import input_dist  # noqa: E402

DEV = None
GEN = torch.Generator().manual_seed(37)
INDEX = (torch.int32, torch.int64)
WEIGHTS = (None, torch.float32, torch.float16, torch.bfloat16)
LEAST = {torch.int32: -2 ** 31, torch.int64: -2 ** 63}
MOST = {torch.int32: 2 ** 31 - 1, torch.int64: 2 ** 63 - 1}


def randint(lo, hi, n):
    return torch.randint(lo, hi, (n,), generator=GEN, dtype=torch.int64)


#===------------------------------------------------------------------------------------------===#
# Slot layouts (rank-major, as a sharding plan gives them)
#===------------------------------------------------------------------------------------------===#

class Layout:
    """A plan's slots over `features` features of `rows[f]` rows and `world` ranks."""

    def __init__(self, name, world, rows, slots):
        self.name, self.world, self.rows = name, world, rows
        slots = sorted(slots, key=lambda s: s[0])  # stable: rank-major, plan order within
        self.ranks = [s[0] for s in slots]
        self.features = [s[1] for s in slots]
        self.begin = [s[2] for s in slots]
        self.end = [s[3] for s in slots]

    def args(self):
        return (self.world, self.ranks, self.features, self.begin, self.end)


def row_wise(world, rows):
    """Every feature's table split in row ranges over the ranks (uneven; a rank past the rows
    gets an empty range)."""
    slots = []
    for r in range(world):
        for f, n in enumerate(rows):
            chunk = -(-n // world)  # TorchRec's block size: ceil(rows / world)
            cut = [min(n, chunk * k) for k in range(world + 1)]
            slots.append((r, f, cut[r], cut[r + 1]))
    return Layout("row-wise", world, rows, slots)


def table_wise(world, rows):
    """Each feature but the last (a data-parallel one: no slot) on one rank; a rank may hold
    several features or none."""
    slots = [(int(randint(0, world, 1)), f, 0, n) for f, n in enumerate(rows[:-1])]
    return Layout("table-wise", world, rows, slots)


def column_wise(world, rows):
    """Feature 0 in three column shards (three slots over its whole table: depth 3, two on one
    rank), feature 1 in two, the others table-wise."""
    slots = [(0, 0, 0, rows[0]), (world - 1, 0, 0, rows[0]), (world - 1, 0, 0, rows[0]),
             (0, 1, 0, rows[1]), (1 % world, 1, 0, rows[1])]
    slots += [(int(randint(0, world, 1)), f, 0, n) for f, n in enumerate(rows) if f >= 2]
    return Layout("column-wise", world, rows, slots)


def random_ranges(world, rows):
    """Random, possibly overlapping or empty row ranges, one to three a feature."""
    slots = []
    for f, n in enumerate(rows):
        for _ in range(int(randint(1, 4, 1))):
            a, b = sorted(randint(0, n + 2, 2).tolist())
            slots.append((int(randint(0, world, 1)), f, a, b))
    return Layout("random ranges", world, rows, slots)


LAYOUTS = (row_wise, table_wise, column_wise, random_ranges)


def make_batch(rows, batch, index_dtype, weight_dtype, max_bag=5, extremes=True):
    """Feature-major ids and offsets of len(rows) features of `batch` bags (some empty); ids
    mostly in the table, some just outside it, a few at the least and largest values of the
    index type; per-sample weights of weight_dtype (or None)."""
    F = len(rows)
    lengths = randint(0, max_bag + 1, F * batch)
    values = []
    for g, n in enumerate(lengths.tolist()):
        r = rows[g // batch] if batch else 1
        ids = randint(-3, r + 3, n)
        if extremes and n:
            pick = torch.rand(n, generator=GEN)
            ids[pick < 0.05] = LEAST[index_dtype]
            ids[(pick >= 0.05) & (pick < 0.1)] = MOST[index_dtype]
        values.append(ids)
    values = torch.cat(values) if values else torch.zeros(0, dtype=torch.int64)
    offsets = torch.zeros(F * batch + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)
    weights = None
    if weight_dtype is not None:
        weights = torch.randn(values.numel(), generator=GEN).to(weight_dtype).to(DEV)
    return values.to(index_dtype).to(DEV), offsets.to(index_dtype).to(DEV), weights


#===------------------------------------------------------------------------------------------===#
# References in plain torch
#===------------------------------------------------------------------------------------------===#

def bucketize_ref(indices, offsets, weights, world, ranks, features, begin, end, batch):
    """(ids, lengths, counts, weights) as embrtBucketizeArgs defines them: slot by slot, bag by
    bag, the ids of the slot's feature whose clamped value falls in the slot's rows, minus its
    first row (saturated at the least value of the index type)."""
    idx, off = indices.cpu().long(), offsets.cpu().long()
    w = weights.cpu() if weights is not None else None
    least = LEAST[indices.dtype]
    ids, kept_w, lengths = [], [], []
    counts = torch.zeros(world, dtype=torch.int64)
    for s in range(len(ranks)):
        f = features[s]
        lo = min(begin[k] for k in range(len(ranks)) if features[k] == f)
        hi = max(end[k] for k in range(len(ranks)) if features[k] == f)
        first, last = int(off[f * batch]), int(off[(f + 1) * batch])
        seg = idx[first:last]
        bag = torch.repeat_interleave(torch.arange(batch),
                                      off[f * batch + 1:(f + 1) * batch + 1] -
                                      off[f * batch:(f + 1) * batch])
        clamped = torch.where(seg < lo, torch.full_like(seg, lo),
                              torch.where(seg > hi - 1, torch.full_like(seg, hi - 1), seg))
        keep = (clamped >= begin[s]) & (clamped < end[s])
        mine = seg[keep]
        ids.append(torch.where(mine < least + begin[s], torch.full_like(mine, least),
                               mine - begin[s]))
        if w is not None:
            kept_w.append(w[first:last][keep])
        n = torch.bincount(bag[keep], minlength=batch)
        lengths.append(n)
        counts[ranks[s]] += n.sum()
    ids = torch.cat(ids).to(indices.dtype)
    lengths = torch.cat(lengths).to(indices.dtype)
    kept_w = torch.cat(kept_w) if w is not None else None
    return ids, lengths, counts, kept_w


def offsets_ref(lengths, blocks):
    lens = lengths.cpu().long()
    offsets = torch.zeros(lens.numel() + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lens, 0)
    sums = lens.view(blocks, -1).sum(1) if lens.numel() else torch.zeros(blocks,
                                                                         dtype=torch.int64)
    return offsets.to(lengths.dtype), sums


def check_bucketize(what, indices, offsets, weights, layout, batch):
    depth = input_dist.bucketize_depth(layout.features, layout.begin, layout.end)
    out = input_dist.bucketize(indices, offsets, weights, *layout.args(), batch)
    ids, lengths, counts, kept = (t.cpu() for t in out)
    r_ids, r_lengths, r_counts, r_kept = bucketize_ref(indices, offsets, weights, *layout.args(),
                                                       batch)
    n = indices.numel()
    total = int(r_counts.sum())
    check(all(t.device == indices.device for t in out), "%s: outputs not on %s" % (
        what, indices.device))
    check(ids.dtype == indices.dtype and tuple(ids.shape) == (n * depth,),
          "%s: ids %s %s, expected %s [%d]" % (what, ids.dtype, tuple(ids.shape), indices.dtype,
                                               n * depth))
    check(lengths.dtype == indices.dtype and torch.equal(lengths, r_lengths),
          "%s: lengths %s, expected %s" % (what, lengths.tolist()[:40], r_lengths.tolist()[:40]))
    check(counts.dtype == torch.int64 and torch.equal(counts, r_counts),
          "%s: counts %s, expected %s" % (what, counts.tolist(), r_counts.tolist()))
    check(torch.equal(ids[:total], r_ids), "%s: the kept ids differ: %s, expected %s" % (
        what, ids[:total].tolist()[:40], r_ids.tolist()[:40]))
    check(not ids[total:].any(), "%s: ids past sum(counts) not zero" % what)
    if weights is None:
        check(kept.dtype == torch.float32 and kept.numel() == 0,
              "%s: weights without per_sample_weights: %s %s, expected an empty float32" % (
                  what, kept.dtype, tuple(kept.shape)))
    else:
        check(kept.dtype == weights.dtype and tuple(kept.shape) == (n * depth,),
              "%s: weights %s %s, expected %s [%d]" % (what, kept.dtype, tuple(kept.shape),
                                                       weights.dtype, n * depth))
        check(torch.equal(kept[:total], r_kept), "%s: the kept weights differ" % what)
        check(not kept[total:].any(), "%s: weights past sum(counts) not zero" % what)


#===------------------------------------------------------------------------------------------===#
# Forward against the references
#===------------------------------------------------------------------------------------------===#

def test_depth():
    """bucketize_depth (what the fake kernel sizes ids with) is the runtime's
    embrtBucketizeDepth, and what the layouts say."""
    rt, lib = input_dist._lib()
    for world in (1, 2, 3):
        for make in LAYOUTS:
            for _ in range(4):
                layout = make(world, randint(1, 40, 4).tolist())
                S = len(layout.features)
                arrays = [(ctypes.c_int64 * S)(*v) for v in
                          (layout.features, layout.begin, layout.end)]
                want = lib.embrtBucketizeDepth(S, *arrays)
                got = input_dist.bucketize_depth(layout.features, layout.begin, layout.end)
                check(got == want, "depth of %s %s: %d, the runtime says %d" % (
                    layout.name, list(zip(layout.features, layout.begin, layout.end)), got,
                    want))
    rows = [10, 20, 5, 7]
    check(input_dist.bucketize_depth(*row_wise(3, rows).args()[2:]) == 1, "row-wise depth 1")
    check(input_dist.bucketize_depth(*table_wise(3, rows).args()[2:]) == 1, "table-wise depth 1")
    check(input_dist.bucketize_depth(*column_wise(3, rows).args()[2:]) == 3,
          "column-wise depth 3")
    check(input_dist.bucketize_depth([0, 0], [0, 3], [0, 3]) == 0, "empty slots: depth 0")


def test_bucketize():
    for make in LAYOUTS:
        for world in (1, 2, 4):
            for index_dtype in INDEX:
                for weight_dtype in WEIGHTS:
                    rows = randint(1, 30, 4).tolist()
                    layout = make(world, rows)
                    batch = int(randint(1, 6, 1))
                    indices, offsets, weights = make_batch(rows, batch, index_dtype,
                                                           weight_dtype)
                    what = "bucketize %s W=%d %s weights %s" % (layout.name, world,
                                                                index_dtype, weight_dtype)
                    check_bucketize(what, indices, offsets, weights, layout, batch)


def test_bucketize_edges():
    rows = [12, 7, 30]
    layout = column_wise(2, rows)
    for index_dtype in INDEX:
        # No id at all (every bag empty), and a batch of size 0.
        indices = torch.zeros(0, dtype=index_dtype, device=DEV)
        offsets = torch.zeros(3 * 4 + 1, dtype=index_dtype, device=DEV)
        check_bucketize("bucketize empty bags %s" % index_dtype, indices, offsets, None, layout,
                        4)
        check_bucketize("bucketize empty bags weighted %s" % index_dtype, indices, offsets,
                        torch.zeros(0, device=DEV), layout, 4)
        check_bucketize("bucketize batch 0 %s" % index_dtype, indices, offsets[:1], None, layout,
                        0)
        # Saturation: ids near the least value of the type, in a slot that starts above 0.
        least = LEAST[index_dtype]
        ids = torch.tensor([least, least + 1, least + 5, -1, 0, 5, 6, 11, 12, MOST[index_dtype]],
                           dtype=index_dtype, device=DEV)
        offs = torch.tensor([0, 10], dtype=index_dtype, device=DEV)
        shards = Layout("two row shards", 2, [12], [(0, 0, 0, 6), (1, 0, 6, 12)])
        check_bucketize("bucketize extremes %s" % index_dtype, ids, offs, None, shards, 1)
        out = input_dist.bucketize(ids, offs, None, *shards.args(), 1)
        want = [least, least + 1, least + 5, -1, 0, 5, 0, 5, 6, MOST[index_dtype] - 6]
        check(out[0].cpu().tolist() == want, "bucketize extremes %s: ids %s, expected %s" % (
            index_dtype, out[0].cpu().tolist(), want))
        check(out[2].cpu().tolist() == [6, 4], "bucketize extremes %s: counts %s" % (
            index_dtype, out[2].cpu().tolist()))
        shifted = Layout("a shard from row 3", 1, [12], [(0, 0, 3, 12)])
        low = torch.tensor([least, least + 2, least + 3, least + 5], dtype=index_dtype,
                           device=DEV)
        out = input_dist.bucketize(low, offs.new_tensor([0, 4]), None, *shifted.args(), 1)
        check(out[0].cpu().tolist() == [least, least, least, least + 2],
              "bucketize %s: ids below least + begin saturate at the least value, got %s" % (
                  index_dtype, out[0].cpu().tolist()))
    # Non-contiguous inputs (strided views) give what their contiguous copies give.
    indices, offsets, weights = make_batch(rows, 3, torch.int64, torch.float32)
    wide = torch.stack([indices, indices], 1)[:, 0]
    wide_w = torch.stack([weights, weights], 1)[:, 1]
    check(not wide.is_contiguous(), "a strided view for the non-contiguous case")
    a = input_dist.bucketize(wide, offsets, wide_w, *layout.args(), 3)
    b = input_dist.bucketize(indices, offsets, weights, *layout.args(), 3)
    check(all(torch.equal(x, y) for x, y in zip(a, b)), "bucketize of strided views differs")
    # The op by its registered name.
    c = torch.ops.emb.bucketize(indices, offsets, weights, *layout.args(), 3)
    check(all(torch.equal(x, y) for x, y in zip(c, b)), "torch.ops.emb.bucketize differs")


def test_lengths_to_offsets():
    for dtype in INDEX:
        for blocks in (1, 2, 3, 5):
            for per in (0, 1, 4, 7):
                lengths = randint(0, 9, blocks * per).to(dtype).to(DEV)
                offsets, sums = input_dist.lengths_to_offsets(lengths, blocks)
                r_offsets, r_sums = offsets_ref(lengths, blocks)
                what = "lengths_to_offsets %s K=%d L=%d" % (dtype, blocks, blocks * per)
                check(offsets.dtype == dtype and offsets.device == lengths.device and
                      torch.equal(offsets.cpu(), r_offsets),
                      "%s: offsets %s, expected %s" % (what, offsets.cpu().tolist(),
                                                       r_offsets.tolist()))
                check(sums.dtype == torch.int64 and torch.equal(sums.cpu(), r_sums),
                      "%s: block_sums %s, expected %s" % (what, sums.cpu().tolist(),
                                                          r_sums.tolist()))
    # Large lengths: int64 offsets past INT32_MAX; a strided view.
    big = torch.tensor([2 ** 31, 2 ** 31, 5, 0], dtype=torch.int64, device=DEV)
    offsets, sums = input_dist.lengths_to_offsets(big, 2)
    check(offsets.cpu().tolist() == [0, 2 ** 31, 2 ** 32, 2 ** 32 + 5, 2 ** 32 + 5] and
          sums.cpu().tolist() == [2 ** 32, 5], "lengths_to_offsets past INT32_MAX in int64: %s %s"
          % (offsets.cpu().tolist(), sums.cpu().tolist()))
    lengths = randint(0, 9, 12).to(torch.int32).to(DEV)
    offsets, sums = input_dist.lengths_to_offsets(lengths[::2], 3)
    r_offsets, r_sums = offsets_ref(lengths[::2].contiguous(), 3)
    check(torch.equal(offsets.cpu(), r_offsets) and torch.equal(sums.cpu(), r_sums),
          "lengths_to_offsets of a strided view")
    # The receiving side of the lengths' all-to-all: bucketize's lengths of a world of one.
    rows = [9, 14, 3]
    layout = table_wise(1, rows)
    indices, offsets, _ = make_batch(rows, 4, torch.int64, None)
    ids, lens, counts, _ = input_dist.bucketize(indices, offsets, None, *layout.args(), 4)
    offs, sums = torch.ops.emb.lengths_to_offsets(lens, 1)
    check(torch.equal(sums.cpu(), counts.cpu()) and int(offs[-1]) == int(counts.sum()),
          "lengths_to_offsets of bucketize's lengths: block sums %s, counts %s" % (
              sums.cpu().tolist(), counts.cpu().tolist()))


#===------------------------------------------------------------------------------------------===#
# Fake kernels, opcheck, torch.compile
#===------------------------------------------------------------------------------------------===#

def samples():
    """(name, op, args) with small inputs."""
    rows = [10, 6, 9]
    out = []
    for make in LAYOUTS:
        layout = make(2, rows)
        for index_dtype, weight_dtype in ((torch.int64, None), (torch.int32, torch.float32),
                                          (torch.int64, torch.bfloat16)):
            indices, offsets, weights = make_batch(rows, 3, index_dtype, weight_dtype)
            out.append(("bucketize %s %s %s" % (layout.name, index_dtype, weight_dtype),
                        input_dist.bucketize,
                        (indices, offsets, weights) + layout.args() + (3,)))
    for dtype in INDEX:
        out.append(("lengths_to_offsets %s" % dtype, input_dist.lengths_to_offsets,
                    (randint(0, 9, 12).to(dtype).to(DEV), 4)))
    return out


def test_fake():
    from torch._subclasses.fake_tensor import FakeTensorMode
    for name, op, args in samples():
        real = op(*args)
        mode = FakeTensorMode()
        fake_args = tuple(mode.from_tensor(a) if isinstance(a, torch.Tensor) else a
                          for a in args)
        with mode:
            fake = op(*fake_args)
        check(len(real) == len(fake) and all(
            tuple(r.shape) == tuple(f.shape) and r.dtype == f.dtype and r.device == f.device
            and r.stride() == f.stride() for r, f in zip(real, fake)),
            "fake %s: %s, the op gives %s" % (
                name, [(tuple(f.shape), f.dtype, f.device) for f in fake],
                [(tuple(r.shape), r.dtype, r.device) for r in real]))
    # The fake kernels check what the real ones check.
    mode = FakeTensorMode()
    with mode:
        try:
            input_dist.bucketize(torch.zeros(4, dtype=torch.int64, device=DEV),
                                 torch.zeros(8, dtype=torch.int64, device=DEV), None, 2, [0, 1],
                                 [0, 0], [0, 5], [5, 10], 3)
            check(False, "fake bucketize: offsets of 8 entries for batch_size 3 passed")
        except ValueError as e:
            check("offsets" in str(e), "fake bucketize: %s does not name offsets" % e)
        try:
            input_dist.lengths_to_offsets(torch.zeros(5, dtype=torch.int32, device=DEV), 2)
            check(False, "fake lengths_to_offsets: 5 lengths in 2 blocks passed")
        except ValueError as e:
            check("num_blocks" in str(e), "fake lengths_to_offsets: %s does not name num_blocks"
                  % e)


def test_opcheck():
    for name, op, args in samples():
        try:
            torch.library.opcheck(op, args)
            check(True, "opcheck " + name)
        except Exception as e:  # noqa: BLE001
            check(False, "opcheck %s: %s" % (name, str(e).splitlines()[0][:300]))
            traceback.print_exc()


def test_compile():
    """bucketize then lengths_to_offsets (a world of one's input dist) under
    torch.compile(fullgraph=True): no graph break, the eager outputs."""
    import torch._dynamo
    torch._dynamo.reset()
    rows = [10, 6, 9]
    layout = column_wise(2, rows)

    def dist(indices, offsets, weights):
        ids, lengths, counts, kept = torch.ops.emb.bucketize(indices, offsets, weights,
                                                             *layout.args(), 4)
        offs, sums = torch.ops.emb.lengths_to_offsets(lengths, 2)
        return ids, offs, sums, counts, kept * 2

    compiled = torch.compile(dist, fullgraph=True)
    for call in range(2):  # a second call, of other sizes, reuses or recompiles the graph
        indices, offsets, weights = make_batch(rows, 4, torch.int64, torch.float32)
        want = dist(indices, offsets, weights)
        got = compiled(indices, offsets, weights)
        check(all(torch.equal(g, w) for g, w in zip(got, want)),
              "torch.compile(fullgraph=True) of the input dist differs from eager, call %d"
              % call)


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
    idx = torch.tensor([1, 5, 9, 3, 7], device=DEV)
    off = torch.tensor([0, 2, 3, 5], device=DEV)
    psw = torch.ones(5, device=DEV)
    slots = ([0, 1], [0, 0], [0, 5], [5, 10])  # slot_ranks, features, row begin, row end
    E = ValueError

    def bucketize(indices=idx, offsets=off, weights=None, world=2, ranks=slots[0],
                  features=slots[1], begin=slots[2], end=slots[3], batch=3):
        return input_dist.bucketize(indices, offsets, weights, world, ranks, features, begin,
                                    end, batch)

    check(bucketize()[2].cpu().tolist() == [2, 3], "errors: the good call works")
    expect(lambda: bucketize(indices=idx.float()), TypeError,
           ["emb::bucketize", "indices", "int32 or int64", "torch.float32"], "float indices")
    expect(lambda: bucketize(indices=idx.view(5, 1)), E, ["indices", "1-D"], "2-D indices")
    expect(lambda: bucketize(offsets=off.int()), TypeError, ["offsets", "torch.int32",
                                                             "torch.int64"],
           "offsets of another dtype")
    expect(lambda: bucketize(offsets=off[:3]), E, ["offsets", "batch_size"],
           "offsets not F * B + 1")
    expect(lambda: bucketize(batch=0), E, ["offsets", "batch_size 0"],
           "batch_size 0 with bags")
    expect(lambda: bucketize(batch=-1), E, ["batch_size"], "negative batch_size")
    expect(lambda: bucketize(weights=psw.double()), TypeError, ["per_sample_weights",
                                                                "torch.float64"],
           "f64 per_sample_weights")
    expect(lambda: bucketize(weights=psw[:4]), E, ["per_sample_weights", "indices"],
           "short per_sample_weights")
    expect(lambda: bucketize(world=0), E, ["world_size"], "world_size 0")
    expect(lambda: bucketize(world=70000), E, ["world_size"], "world_size too large")
    expect(lambda: bucketize(ranks=[], features=[], begin=[], end=[]), E, ["slot_ranks"],
           "no slot")
    expect(lambda: bucketize(features=[0]), E, ["slot_features", "slot_ranks"],
           "slot lists of other lengths")
    expect(lambda: bucketize(end=[5, 10, 12]), E, ["slot_row_end"], "slot_row_end too long")
    expect(lambda: bucketize(ranks=[0, 2]), E, ["slot_ranks[1]", "world_size"],
           "a rank outside the world")
    expect(lambda: bucketize(ranks=[1, 0]), E, ["slot_ranks", "decrease"], "decreasing ranks")
    expect(lambda: bucketize(features=[0, 1]), E, ["slot_features[1]"],
           "a feature outside offsets")
    expect(lambda: bucketize(begin=[-1, 5]), E, ["slot_row_begin[0]"], "a negative first row")
    expect(lambda: bucketize(end=[5, 4]), E, ["slot_row_end[1]"], "a range that ends before it "
           "starts")
    expect(lambda: input_dist.lengths_to_offsets(off.float(), 1), TypeError,
           ["emb::lengths_to_offsets", "lengths", "torch.float32"], "float lengths")
    expect(lambda: input_dist.lengths_to_offsets(off.view(2, 2), 1), E, ["lengths", "1-D"],
           "2-D lengths")
    expect(lambda: input_dist.lengths_to_offsets(off, 0), E, ["num_blocks"], "num_blocks 0")
    expect(lambda: input_dist.lengths_to_offsets(off, 3), E, ["num_blocks", "lengths"],
           "num_blocks not dividing")
    if DEV.type == "cuda":
        expect(lambda: bucketize(offsets=off.cpu()), E, ["offsets", "cpu", "cuda"],
               "offsets on another device")
        expect(lambda: bucketize(weights=psw.cpu()), E, ["per_sample_weights", "cpu"],
               "per_sample_weights on another device")
    # Data the runtime checks where it lives: on the CPU at once, on CUDA from the device's
    # error record, raised at the latest by the next synchronisation.
    rt = _runtime.runtime()

    def then_sync(fn):
        def call():
            fn()
            rt.synchronize(DEV)
        return call

    expect(then_sync(lambda: bucketize(offsets=torch.tensor([0, 3, 2, 5], device=DEV))),
           _runtime.EmbIndexError, ["offset", "out of order"], "offsets out of order")
    expect(then_sync(lambda: bucketize(offsets=torch.tensor([0, 2, 3, 9], device=DEV))),
           _runtime.EmbIndexError, ["offset"], "offsets past the ids")
    expect(then_sync(lambda: input_dist.lengths_to_offsets(
        torch.tensor([1, -2, 3, 4], dtype=torch.int32, device=DEV), 2)),
           _runtime.EmbIndexError, ["lengths[1]", "negative"], "a negative length")
    # Reported once: the ops work on afterwards.
    offs, sums = input_dist.lengths_to_offsets(torch.tensor([1, 2], device=DEV), 1)
    rt.synchronize(DEV)
    check(offs.cpu().tolist() == [0, 1, 3] and sums.cpu().tolist() == [3],
          "errors: lengths_to_offsets runs on after an error")


#===------------------------------------------------------------------------------------------===#
# CUDA: streams and graphs
#===------------------------------------------------------------------------------------------===#

def test_cuda_streams_and_graphs():
    rows = [40, 25, 33]
    layout = column_wise(3, rows)
    indices, offsets, weights = make_batch(rows, 64, torch.int64, torch.float16, max_bag=20)
    want = input_dist.bucketize(indices, offsets, weights, *layout.args(), 64)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        # Inputs made on the side stream and read by the ops there, without a host sync.
        shifted = indices + 1
        got = input_dist.bucketize(shifted, offsets, weights, *layout.args(), 64)
        offs, sums = input_dist.lengths_to_offsets(got[1], 3)
    torch.cuda.current_stream().wait_stream(side)
    ref = input_dist.bucketize(shifted, offsets, weights, *layout.args(), 64)
    check(all(torch.equal(a, b) for a, b in zip(got, ref)), "bucketize on a side stream")
    r_offs, r_sums = offsets_ref(ref[1], 3)
    check(torch.equal(offs.cpu(), r_offs) and torch.equal(sums.cpu(), r_sums),
          "lengths_to_offsets on a side stream")
    check(not all(torch.equal(a, b) for a, b in zip(got[:3], want[:3])),
          "side stream test: shifted ids give the unshifted outputs")

    # lengths_to_offsets captured once and replayed on new lengths: bit for bit.
    static = randint(0, 50, 96).to(DEV)
    capture = torch.cuda.Stream()
    capture.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(capture):
        for _ in range(2):  # warm up on the capture stream: its runtime context
            input_dist.lengths_to_offsets(static, 4)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=capture):
            outs = input_dist.lengths_to_offsets(static, 4)
    torch.cuda.current_stream().wait_stream(capture)
    old = [o.clone() for o in outs]
    static.copy_(randint(0, 50, 96).to(DEV))
    graph.replay()
    torch.cuda.synchronize()
    eager = input_dist.lengths_to_offsets(static, 4)
    for name, o, e, b in zip(("offsets", "block_sums"), outs, eager, old):
        check(torch.equal(o, e), "CUDA graph replay of lengths_to_offsets: %s differs" % name)
        check(not torch.equal(e, b), "CUDA graph test: new lengths give the old %s" % name)


def main():
    global DEV
    ap = harness.parser()
    ap.add_argument("--seed", type=int, default=37)
    a = ap.parse_args()
    DEV = torch.device(a.device)
    _runtime.runtime(a.lib)
    GEN.manual_seed(a.seed)
    torch.manual_seed(a.seed)
    tests = [test_depth, test_bucketize, test_bucketize_edges, test_lengths_to_offsets,
             test_fake, test_opcheck, test_compile, test_errors]
    if DEV.type == "cuda":
        tests.append(test_cuda_streams_and_graphs)
    for t in tests:
        print("--", t.__name__, flush=True)
        run(t.__name__, t)
    sys.exit(harness.finish())


if __name__ == "__main__":
    main()

"""The local ops of a sharded lookup's input dist as PyTorch operators (docs/sharding.md).

Operators (torch.library custom ops, namespace `emb`; each has a fake kernel for torch.compile and
torch.export, runs on PyTorch's current stream with outputs and workspaces from PyTorch's allocator,
and never synchronises the host):

  emb::bucketize(indices, offsets, per_sample_weights, world_size, slot_ranks, slot_features,
                 slot_row_begin, slot_row_end, batch_size) -> (ids, lengths, counts, weights)
      Splits a local batch of F features of B bags (feature-major offsets, as emb::tbe_forward
      takes them: F * B + 1 entries, from 0, never decreasing, the last N) into S slots, the send
      buffer of an all-to-all (embrtBucketize). Slot s takes bag b of feature slot_features[s]
      for rank slot_ranks[s]: the bag's ids i with slot_row_begin[s] <= i' < slot_row_end[s],
      written as i - slot_row_begin[s] (saturated at the least value of the index dtype), where
      i' is i clamped to the rows the feature's slots cover (an id outside the table goes to its
      first or last row shard, whose lookup's bounds check then sees it). slot_ranks must not
      decrease (each rank's slots are one block).
        lengths [S * B], the index dtype: lengths[s * B + b] counts slot s's ids of bag b.
        counts [W] int64: counts[r] sums the lengths of rank r's slots (what rank r is sent).
        ids [N * depth], the index dtype: the kept ids slot by slot, bag by bag, in their order
            within the bag, in the first sum(counts) entries; the rest are 0. depth
            (bucketize_depth) is the most slots of one feature one id can fall in: 1 for row-wise
            shards and table-wise slots, k for a feature of k column shards. How many ids are
            kept depends on the data, so the size is the most there can be: static, as a fake
            kernel needs, and what emb's compiler allocates. The all-to-all sends ids[:sum(counts)]
            by the counts.
        weights: with per_sample_weights, [N * depth] of their dtype, each kept id's weight at its
            position (0 past sum(counts)); without, an empty float32 tensor.
      indices and offsets share one dtype (int32 or int64); per_sample_weights are float32,
      float16 or bfloat16. offsets are checked where they live: on the CPU a bad offset raises
      EmbIndexError at once, on CUDA the device records it and a later emb call raises it.
      On CUDA the slots are staged through host memory, so the op cannot be captured in a CUDA
      graph.

  emb::lengths_to_offsets(lengths, num_blocks) -> (offsets, block_sums)
      offsets [L + 1] (lengths' dtype) is the exclusive prefix sum of lengths [L] from 0, with a
      last entry; block_sums [num_blocks] int64 sums each of num_blocks equal blocks of lengths
      (num_blocks divides L): on the receiving side of the lengths' all-to-all, the ids each source
      rank sends (embrtLengthsToOffsets). A negative length, or an int32 offset past INT32_MAX,
      raises EmbIndexError (CUDA: from a later emb call).

Neither op has autograd: their outputs are indices and routed weights (the runtime has no
backward for them). Arguments are checked first, in the real and the fake kernel alike: a wrong
dtype is a TypeError, a wrong shape, device or value a ValueError, each naming the argument.

The ids capacity: outputs are zero-filled past sum(counts) rather than left as they come from the
allocator, so that the op's outputs are a function of its inputs (torch.library.opcheck and
torch.compile compare whole outputs); that costs one fill of N * depth entries.
"""
import ctypes
from typing import List, Optional, Tuple

import torch
from torch import Tensor

from . import _runtime
from ._checks import _devices, _tensor, _vector  # noqa: F401
from ._runtime import BF16, F16, F32, I32, I64

__all__ = ["bucketize", "lengths_to_offsets", "bucketize_depth", "BucketizeArgs",
           "LengthsToOffsetsArgs"]

#===------------------------------------------------------------------------------------------===#
# The C API (include/emb/runtime.h)
#===------------------------------------------------------------------------------------------===#

from ._abi import BucketizeArgs, LengthsToOffsetsArgs  # noqa: E402


def _lib():
    """The Runtime and its library (their entry points are declared by _runtime.Runtime)."""
    rt = _runtime.runtime()
    return rt, rt.lib


#===------------------------------------------------------------------------------------------===#
# Argument checks (shared by the real and the fake kernels: they read metadata only)
#===------------------------------------------------------------------------------------------===#

_INDEX = {torch.int32: I32, torch.int64: I64}
_WEIGHTS = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16}
INT32_MAX = 2 ** 31 - 1
MAX_WORLD = 65536  # the runtime's bound on worldSize


def bucketize_depth(slot_features, slot_row_begin, slot_row_end):
    """The most slots of one feature that one id can fall in (embrtBucketizeDepth, a pure
    function of the slots): 1 for disjoint row ranges, k for k column shards of a feature, 0 when
    every slot is empty. emb::bucketize's ids hold N times this many entries."""
    depth = 0
    slots = list(zip(slot_features, slot_row_begin, slot_row_end))
    for f, begin, end in slots:
        if begin >= end:
            continue
        # The deepest point of a feature's ranges is the start of one of them.
        here = sum(1 for g, b, e in slots if g == f and b <= begin < e)
        depth = max(depth, here)
    return depth


def _check_bucketize(indices, offsets, per_sample_weights, world_size, slot_ranks, slot_features,
                     slot_row_begin, slot_row_end, batch_size, fake):
    """Checks a bucketize's arguments; returns (F, depth)."""
    op = "bucketize"
    _vector(op, "indices", indices, _INDEX, "int32 or int64")
    _vector(op, "offsets", offsets, _INDEX, "int32 or int64")
    if offsets.dtype != indices.dtype:
        raise TypeError("emb::bucketize: offsets is %s but indices is %s: indices, offsets, ids "
                        "and lengths share one dtype" % (offsets.dtype, indices.dtype))
    if per_sample_weights is not None:
        _vector(op, "per_sample_weights", per_sample_weights, _WEIGHTS,
                "float32, float16 or bfloat16")
        if per_sample_weights.shape[0] != indices.shape[0]:
            raise ValueError("emb::bucketize: per_sample_weights has %s entries but indices has "
                             "%s: one weight an id" % (per_sample_weights.shape[0],
                                                       indices.shape[0]))
    _devices(op, [("indices", indices), ("offsets", offsets),
                  ("per_sample_weights", per_sample_weights)], fake)
    if indices.dtype == torch.int32 and indices.shape[0] > INT32_MAX:
        raise ValueError("emb::bucketize: indices has %s entries, too many for int32 offsets"
                         % indices.shape[0])
    if not 1 <= world_size <= MAX_WORLD:
        raise ValueError("emb::bucketize: world_size is %s, must be in 1..%d"
                         % (world_size, MAX_WORLD))
    S = len(slot_ranks)
    if S < 1:
        raise ValueError("emb::bucketize: slot_ranks is empty, needs at least one slot")
    for name, lst in (("slot_features", slot_features), ("slot_row_begin", slot_row_begin),
                      ("slot_row_end", slot_row_end)):
        if len(lst) != S:
            raise ValueError("emb::bucketize: %s has %d entries but slot_ranks has %d: one each "
                             "a slot" % (name, len(lst), S))
    if batch_size < 0:
        raise ValueError("emb::bucketize: batch_size is %s, must be >= 0" % batch_size)
    entries = offsets.shape[0]
    if batch_size == 0:
        if entries != 1:
            raise ValueError("emb::bucketize: offsets has %s entries, must be 1 (F * B + 1) for "
                             "batch_size 0" % entries)
        features = max(slot_features) + 1  # no bag to read: every slot's feature is one
    else:
        if entries < 1 or (entries - 1) % batch_size != 0:
            raise ValueError("emb::bucketize: offsets has %s entries, must be F * B + 1 with "
                             "B = batch_size %d" % (entries, batch_size))
        features = (entries - 1) // batch_size
    for s in range(S):
        r, f = slot_ranks[s], slot_features[s]
        if not 0 <= r < world_size:
            raise ValueError("emb::bucketize: slot_ranks[%d] is %d, not a rank of world_size %d"
                             % (s, r, world_size))
        if s > 0 and r < slot_ranks[s - 1]:
            raise ValueError("emb::bucketize: slot_ranks must not decrease (each rank's slots are "
                             "one block), got %d after %d at slot %d" % (r, slot_ranks[s - 1], s))
        if not 0 <= f < features:
            raise ValueError("emb::bucketize: slot_features[%d] is %d but offsets has %s features "
                             "of batch_size %d" % (s, f, features, batch_size))
        if slot_row_begin[s] < 0:
            raise ValueError("emb::bucketize: slot_row_begin[%d] is %d, must be >= 0"
                             % (s, slot_row_begin[s]))
        if slot_row_end[s] < slot_row_begin[s]:
            raise ValueError("emb::bucketize: slot_row_end[%d] is %d, before slot_row_begin[%d] "
                             "%d" % (s, slot_row_end[s], s, slot_row_begin[s]))
    return features, bucketize_depth(slot_features, slot_row_begin, slot_row_end)


def _check_lengths_to_offsets(lengths, num_blocks, fake):
    op = "lengths_to_offsets"
    _vector(op, "lengths", lengths, _INDEX, "int32 or int64")
    _devices(op, [("lengths", lengths)], fake)
    if num_blocks < 1:
        raise ValueError("emb::lengths_to_offsets: num_blocks is %s, must be >= 1" % num_blocks)
    if lengths.shape[0] % num_blocks != 0:
        raise ValueError("emb::lengths_to_offsets: lengths has %s entries, which num_blocks %d "
                         "does not divide" % (lengths.shape[0], num_blocks))


def _ptr(t):
    return t.data_ptr() if t is not None else None


def _host(values):
    return (ctypes.c_int64 * len(values))(*values)


#===------------------------------------------------------------------------------------------===#
# emb::bucketize
#===------------------------------------------------------------------------------------------===#

@torch.library.custom_op("emb::bucketize", mutates_args=())
@_runtime.keeps_device
def bucketize(indices: Tensor, offsets: Tensor, per_sample_weights: Optional[Tensor],
              world_size: int, slot_ranks: List[int], slot_features: List[int],
              slot_row_begin: List[int], slot_row_end: List[int],
              batch_size: int) -> Tuple[Tensor, Tensor, Tensor, Tensor]:
    features, depth = _check_bucketize(indices, offsets, per_sample_weights, world_size,
                                       slot_ranks, slot_features, slot_row_begin, slot_row_end,
                                       batch_size, fake=False)
    indices, offsets = indices.contiguous(), offsets.contiguous()  # the runtime reads dense
    if per_sample_weights is not None:
        per_sample_weights = per_sample_weights.contiguous()
    device, n, S = indices.device, indices.shape[0], len(slot_ranks)
    capacity = n * depth
    ids = torch.zeros(capacity, dtype=indices.dtype, device=device)
    lengths = torch.empty(S * batch_size, dtype=indices.dtype, device=device)
    counts = torch.empty(world_size, dtype=torch.int64, device=device)
    if per_sample_weights is not None:
        weights = torch.zeros(capacity, dtype=per_sample_weights.dtype, device=device)
    else:
        weights = torch.empty(0, dtype=torch.float32, device=device)
    rt, lib = _lib()
    ctx = rt.context(device)
    slots = [_host(slot_ranks), _host(slot_features), _host(slot_row_begin),
             _host(slot_row_end)]  # held until the call returns (the runtime stages them)
    args = BucketizeArgs(
        structSize=ctypes.sizeof(BucketizeArgs), indexDtype=_INDEX[indices.dtype],
        indices=_ptr(indices), numIndices=n, offsets=_ptr(offsets), numFeatures=features,
        batchSize=batch_size, worldSize=world_size, numSlots=S, slotRanks=slots[0],
        slotFeatures=slots[1], slotRowBegin=slots[2], slotRowEnd=slots[3], ids=_ptr(ids),
        idsCapacity=capacity, lengths=_ptr(lengths), counts=_ptr(counts))
    if per_sample_weights is not None:
        args.perSampleWeights = _ptr(per_sample_weights)
        args.weightDtype = _WEIGHTS[per_sample_weights.dtype]
        args.weights = _ptr(weights)
    ws = rt.workspace(ctx, lib.embrtBucketizeWorkspaceSize, args, device)
    if ws is not None:
        args.workspace, args.workspaceBytes = ws.data_ptr(), ws.numel()
    rt.check(ctx, lib.embrtBucketize(ctx, ctypes.byref(args)), "emb::bucketize")
    rt.poll(ctx, "emb::bucketize")
    return ids, lengths, counts, weights


@bucketize.register_fake
def _bucketize_fake(indices, offsets, per_sample_weights, world_size, slot_ranks, slot_features,
                    slot_row_begin, slot_row_end, batch_size):
    _, depth = _check_bucketize(indices, offsets, per_sample_weights, world_size, slot_ranks,
                                slot_features, slot_row_begin, slot_row_end, batch_size,
                                fake=True)
    capacity = indices.shape[0] * depth
    ids = indices.new_empty((capacity,))
    lengths = indices.new_empty((len(slot_ranks) * batch_size,))
    counts = indices.new_empty((world_size,), dtype=torch.int64)
    if per_sample_weights is not None:
        weights = per_sample_weights.new_empty((capacity,))
    else:
        weights = indices.new_empty((0,), dtype=torch.float32)
    return ids, lengths, counts, weights


#===------------------------------------------------------------------------------------------===#
# emb::lengths_to_offsets
#===------------------------------------------------------------------------------------------===#

@torch.library.custom_op("emb::lengths_to_offsets", mutates_args=())
@_runtime.keeps_device
def lengths_to_offsets(lengths: Tensor, num_blocks: int) -> Tuple[Tensor, Tensor]:
    _check_lengths_to_offsets(lengths, num_blocks, fake=False)
    lengths = lengths.contiguous()
    device, n = lengths.device, lengths.shape[0]
    offsets = torch.empty(n + 1, dtype=lengths.dtype, device=device)
    block_sums = torch.empty(num_blocks, dtype=torch.int64, device=device)
    rt, lib = _lib()
    ctx = rt.context(device)
    args = LengthsToOffsetsArgs(
        structSize=ctypes.sizeof(LengthsToOffsetsArgs), dtype=_INDEX[lengths.dtype],
        lengths=_ptr(lengths), numLengths=n, numBlocks=num_blocks, offsets=_ptr(offsets),
        blockSums=_ptr(block_sums))
    ws = rt.workspace(ctx, lib.embrtLengthsToOffsetsWorkspaceSize, args, device)
    if ws is not None:
        args.workspace, args.workspaceBytes = ws.data_ptr(), ws.numel()
    rt.check(ctx, lib.embrtLengthsToOffsets(ctx, ctypes.byref(args)), "emb::lengths_to_offsets")
    rt.poll(ctx, "emb::lengths_to_offsets")
    return offsets, block_sums


@lengths_to_offsets.register_fake
def _lengths_to_offsets_fake(lengths, num_blocks):
    _check_lengths_to_offsets(lengths, num_blocks, fake=True)
    return (lengths.new_empty((lengths.shape[0] + 1,)),
            lengths.new_empty((num_blocks,), dtype=torch.int64))

"""emb's table-batched embedding ops, registered with torch.library.

    torch.ops.emb.tbe_forward(weights, feature_table, indices, offsets, ...) -> Tensor
    torch.ops.emb.tbe_backward_sgd(weights, ...) -> None                 (updates in place)
    torch.ops.emb.tbe_backward_rowwise_adagrad(weights, momentum1, ...) -> None
    torch.ops.emb.tbe_backward_adam(weights, momentum1, momentum2, ...) -> None
    torch.ops.emb.tbe_forward_train(placeholder, weights, ...) -> Tensor  (the forward whose
        backward is the fused optimizer step, as FBGEMM's lookup functions)

Each op has a fake kernel (shapes and dtypes, no data read), so torch.compile traces it without a
graph break and torch.export records it by name; the training lookup has its backward registered,
which runs the fused optimizer on the tables in place and returns no gradient for them. Every op
runs on PyTorch's current stream, with outputs and workspaces from PyTorch's allocator, and never
waits for the device. A device error of an earlier call (an id outside its table under
bounds_check "fatal") is raised, as emb_torch.EmbIndexError naming the feature, bag and id, by the
first op that runs after the device found it (embrtPollDeviceErrors). Arguments are checked first: a wrong dtype is a TypeError, a wrong shape,
device or value a ValueError, each naming the argument.

A lookup: T tables, F features, B bags per feature. Feature f reads table feature_table[f]; bag b
of feature f is indices[offsets[f * B + b] : offsets[f * B + b + 1]] (TorchRec's
KeyedJaggedTensor layout: feature-major). Pooled output is [B, sum of the features' D], feature f
at its column range in feature order; pooling "none" gives [N, D] (every feature's D equal).
"""
import ctypes
from typing import List, Optional

import torch
from torch import Tensor

from . import _runtime as R
from . import _torch_ops

__all__ = ["tbe_forward", "tbe_backward_sgd", "tbe_backward_rowwise_adagrad",
           "tbe_backward_adam", "tbe_forward_train", "OPTIMIZERS", "STATE_PRECISIONS",
           "state_dtype"]

TABLE_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
INDEX_DTYPES = (torch.int32, torch.int64)
OPTIMIZERS = ("sgd", "rowwise_adagrad", "adam")
MAX_DIM = 2048  # EMBRT_MAX_TABLE_DIM
# How an optimizer state is stored (embrtStatePrecision), and the tensor dtype that holds it:
# fp8 states are their codes as uint8 (torch's float8 dtypes are taken too, where they exist),
# with f32 scales beside them (momentum<k>_scales).
STATE_PRECISIONS = ("f32", "bf16", "fp8_e4m3", "fp8_e5m2")
_FAST_STATES = ("f32", "bf16")  # the states the C++ host path takes (no scales)


def state_dtype(precision: str) -> torch.dtype:
    """The dtype of a state tensor of `precision` (f32, bf16, fp8_e4m3, fp8_e5m2)."""
    if precision not in STATE_PRECISIONS:
        raise ValueError("state precision must be one of %s, got %r"
                         % (list(STATE_PRECISIONS), precision))
    return {"f32": torch.float32, "bf16": torch.bfloat16}.get(precision, torch.uint8)


def _state_dtypes(precision):
    extra = {"fp8_e4m3": "float8_e4m3fn", "fp8_e5m2": "float8_e5m2"}.get(precision)
    dtypes = [state_dtype(precision)]
    if extra and hasattr(torch, extra):
        dtypes.append(getattr(torch, extra))
    return dtypes


#===------------------------------------------------------------------------------------------===#
# Checks (shared by the real and the fake kernels: metadata only)
#===------------------------------------------------------------------------------------------===#

def _check_features(op, num_tables, feature_table, indices, offsets, pooling, bounds_check,
                    device):
    """Checks what a lookup says of its features: the table of each, the ids and offsets (F * B
    + 1 of them), the pooling and bounds-check names."""
    F = len(feature_table)
    if F == 0:
        raise ValueError("%s: feature_table is empty, needs at least one feature" % op)
    for f, t in enumerate(feature_table):
        if not 0 <= t < num_tables:
            raise ValueError("%s: feature_table[%d] is %d, outside the %d tables"
                             % (op, f, t, num_tables))
    for name, x in (("indices", indices), ("offsets", offsets)):
        if x.dtype not in INDEX_DTYPES:
            raise TypeError("%s: %s must be int32 or int64, got %s" % (op, name, x.dtype))
        if x.dim() != 1:
            raise ValueError("%s: %s must be 1-D, got shape %s" % (op, name, tuple(x.shape)))
        if x.device != device:
            raise ValueError("%s: %s is on %s but the tables are on %s"
                             % (op, name, x.device, device))
    if offsets.shape[0] < 1 or (offsets.shape[0] - 1) % F != 0:
        raise ValueError("%s: offsets has %d entries, must be F * B + 1 with F = %d features"
                         % (op, offsets.shape[0], F))
    if pooling not in R.POOLING:
        raise ValueError("%s: pooling must be one of %s, got %r" % (op, sorted(R.POOLING), pooling))
    if bounds_check not in R.BOUNDS:
        raise ValueError("%s: bounds_check must be one of %s, got %r"
                         % (op, sorted(R.BOUNDS), bounds_check))


def _check_lookup(op, weights, feature_table, indices, offsets, per_sample_weights, pooling,
                  bounds_check):
    """Checks a lookup's arguments; returns (B, the output's width or D)."""
    if len(weights) == 0:
        raise ValueError("%s: weights is empty, needs at least one table" % op)
    dtype, device = weights[0].dtype, weights[0].device
    for t, w in enumerate(weights):
        if w.dtype not in TABLE_DTYPES:
            raise TypeError("%s: weights[%d] must be float32, float16 or bfloat16, got %s"
                            % (op, t, w.dtype))
        if w.dtype != dtype:
            raise TypeError("%s: weights[%d] is %s but weights[0] is %s: one lookup's tables share "
                            "a dtype" % (op, t, w.dtype, dtype))
        if w.device != device:
            raise ValueError("%s: weights[%d] is on %s but weights[0] is on %s"
                             % (op, t, w.device, device))
        if w.dim() != 2:
            raise ValueError("%s: weights[%d] must be 2-D [rows, dim], got shape %s"
                             % (op, t, tuple(w.shape)))
        if not 1 <= w.shape[1] <= MAX_DIM:
            raise ValueError("%s: weights[%d] has dim %d, must be 1..%d"
                             % (op, t, w.shape[1], MAX_DIM))
        if not w.is_contiguous():
            raise ValueError("%s: weights[%d] must be contiguous (rows packed)" % (op, t))
    _check_features(op, len(weights), feature_table, indices, offsets, pooling, bounds_check,
                    device)
    F = len(feature_table)
    if per_sample_weights is not None:
        if pooling != "sum":
            raise ValueError("%s: per_sample_weights needs pooling \"sum\", got %r" % (op, pooling))
        if per_sample_weights.dtype not in (torch.float32, dtype):
            raise TypeError("%s: per_sample_weights must be float32 or the tables' %s, got %s"
                            % (op, dtype, per_sample_weights.dtype))
        if per_sample_weights.dim() != 1 or per_sample_weights.shape[0] != indices.shape[0]:
            raise ValueError("%s: per_sample_weights has shape %s, must be [%d] like indices"
                             % (op, tuple(per_sample_weights.shape), indices.shape[0]))
        if per_sample_weights.device != device:
            raise ValueError("%s: per_sample_weights is on %s but the tables are on %s"
                             % (op, per_sample_weights.device, device))
    dims = [weights[t].shape[1] for t in feature_table]
    if pooling == "none":
        if any(d != dims[0] for d in dims):
            raise ValueError("%s: pooling \"none\" needs every feature's table to have one dim, "
                             "got %s" % (op, dims))
        return (offsets.shape[0] - 1) // F, dims[0]
    return (offsets.shape[0] - 1) // F, sum(dims)


def _output_dtype(op, weights, output_dtype):
    if output_dtype is None:
        return weights[0].dtype
    if output_dtype not in (torch.float32, weights[0].dtype):
        raise TypeError("%s: output_dtype must be float32 or the tables' %s, got %s"
                        % (op, weights[0].dtype, output_dtype))
    return output_dtype


def _empty_output(weights, indices, B, width, pooling, dtype):
    rows = indices.shape[0] if pooling == "none" else B
    return weights[0].new_empty((rows, width), dtype=dtype)


#===------------------------------------------------------------------------------------------===#
# Runtime calls
#===------------------------------------------------------------------------------------------===#

REFUSED = object()  # host_path's answer to a call its C++ op refused


def host_path(op, fast, device, *args):
    """`fast(*args, context, runtime)`: a TBE op's C++ host path (python/csrc/tbe.cpp, in
    libemb_torch_ops.so) on the runtime's context of `device`, which does the op's checks,
    runtime call and poll in C++. Its output (None for an update), or REFUSED where it refused
    the call (an argument the Python kernel rejects: nothing was done, and the Python kernel runs,
    checks again and names what is wrong); a device error it polled is raised here."""
    rt = R.runtime()
    ctx = rt.context(device)
    try:
        answer = fast(*args, ctx.value, rt.entry_points)
    except (TypeError, RuntimeError):  # arguments the op's schema does not take
        return REFUSED
    out, status = answer if isinstance(answer, tuple) else ([None], answer)
    if status < 0:
        return REFUSED
    rt.check(ctx, status, op)
    return out[0]


def _ptrs(tensors, ctype=ctypes.c_void_p):
    return (ctype * len(tensors))(*tensors)


def _lookup_args(weights, feature_table, indices, offsets, per_sample_weights, pooling,
                 bounds_check, padding_idx, keep):
    """The embrtTbeArgs of a lookup; `keep` holds the host arrays while the call runs."""
    T, F = len(weights), len(feature_table)
    tables = _ptrs([w.data_ptr() for w in weights])
    rows = _ptrs([w.shape[0] for w in weights], ctypes.c_int64)
    dims = _ptrs([w.shape[1] for w in weights], ctypes.c_int64)
    features = _ptrs(list(feature_table), ctypes.c_int64)
    keep.extend((tables, rows, dims, features))
    a = R.TbeArgs()
    a.structSize = ctypes.sizeof(R.TbeArgs)
    a.pooling = R.POOLING[pooling]
    a.boundsCheck = R.BOUNDS[bounds_check]
    a.numTables = T
    # An array assigned to a pointer field of its element type: no ctypes.cast (a
    # microsecond each); the struct keeps the array alive too.
    a.tables = tables
    a.tableRows = rows
    a.tableDims = dims
    a.tableDtype = R.DTYPES[weights[0].dtype]
    a.numFeatures = F
    a.featureTables = features
    a.batchSize = (offsets.shape[0] - 1) // F
    a.numIndices = indices.shape[0]
    a.indices = indices.data_ptr()
    a.indexDtype = R.DTYPES[indices.dtype]
    a.offsets = offsets.data_ptr()
    a.offsetDtype = R.DTYPES[offsets.dtype]
    if per_sample_weights is not None:
        a.perSampleWeights = per_sample_weights.data_ptr()
        a.perSampleWeightDtype = R.DTYPES[per_sample_weights.dtype]
    a.hasPaddingIdx = padding_idx is not None
    a.paddingIdx = padding_idx if padding_idx is not None else 0
    a.configId = -1
    return a


def _forward(op, weights, feature_table, indices, offsets, per_sample_weights, pooling,
             bounds_check, padding_idx, output_dtype):
    # The C++ host path first; its op keeps the current device itself (a device guard).
    fast = _torch_ops.tbe_forward()
    if fast is not None and weights and pooling in R.POOLING and bounds_check in R.BOUNDS:
        out = host_path(op, fast, weights[0].device, weights, feature_table, indices, offsets,
                        per_sample_weights, R.POOLING[pooling], R.BOUNDS[bounds_check],
                        padding_idx, output_dtype)
        if out is not REFUSED:
            return out
    return _forward_python(op, weights, feature_table, indices, offsets, per_sample_weights,
                           pooling, bounds_check, padding_idx, output_dtype)


@R.keeps_device
def _forward_python(op, weights, feature_table, indices, offsets, per_sample_weights, pooling,
                    bounds_check, padding_idx, output_dtype):
    B, width = _check_lookup(op, weights, feature_table, indices, offsets, per_sample_weights,
                             pooling, bounds_check)
    dtype = _output_dtype(op, weights, output_dtype)
    out = _empty_output(weights, indices, B, width, pooling, dtype)
    rt = R.runtime()
    device = weights[0].device
    ctx = rt.context(device)
    indices, offsets = indices.contiguous(), offsets.contiguous()
    if per_sample_weights is not None:
        per_sample_weights = per_sample_weights.contiguous()
    keep = []
    a = _lookup_args(weights, feature_table, indices, offsets, per_sample_weights, pooling,
                     bounds_check, padding_idx, keep)
    a.output = out.data_ptr()
    a.outputDtype = R.DTYPES[dtype]
    ws = rt.workspace(ctx, rt.lib.embrtTbeWorkspaceSize, a, device)
    if ws is not None:
        a.workspace, a.workspaceBytes = ws.data_ptr(), ws.numel()
    rt.check(ctx, rt.lib.embrtTbeForward(ctx, ctypes.byref(a)), op)
    rt.poll(ctx, op)  # an earlier call's bad id, found by the device since: raised now
    return out


def _backward(op, optimizer, weights, momentum1, momentum2, hyper_params, step, feature_table,
              indices, offsets, per_sample_weights, grad_output, pooling, bounds_check,
              padding_idx, seed, precisions=("f32", "f32"), scales=(None, None)):
    # The C++ host path first, as _forward.
    fast = _torch_ops.tbe_backward()
    if (fast is not None and weights and pooling in R.POOLING and bounds_check in R.BOUNDS
            and precisions[0] in _FAST_STATES and precisions[1] in _FAST_STATES
            and scales[0] is None and scales[1] is None):
        # fp8 states (with their scales) take the Python kernel.
        seed64 = seed & (2 ** 64 - 1)
        done = host_path(op, fast, weights[0].device, R.OPTIMIZERS[optimizer], weights,
                         momentum1, momentum2, R.STATE_PRECISIONS[precisions[0]],
                         R.STATE_PRECISIONS[precisions[1]], hyper_params, step, feature_table,
                         indices, offsets, per_sample_weights, grad_output, R.POOLING[pooling],
                         R.BOUNDS[bounds_check], padding_idx,
                         seed64 - 2 ** 64 if seed64 >= 2 ** 63 else seed64)
        if done is not REFUSED:
            return
    _backward_python(op, optimizer, weights, momentum1, momentum2, hyper_params, step,
                     feature_table, indices, offsets, per_sample_weights, grad_output, pooling,
                     bounds_check, padding_idx, seed, precisions, scales)


@R.keeps_device
def _backward_python(op, optimizer, weights, momentum1, momentum2, hyper_params, step,
                     feature_table, indices, offsets, per_sample_weights, grad_output, pooling,
                     bounds_check, padding_idx, seed, precisions, scales):
    B, width = _check_lookup(op, weights, feature_table, indices, offsets, per_sample_weights,
                             pooling, bounds_check)
    device = weights[0].device
    rows = indices.shape[0] if pooling == "none" else B
    if grad_output.shape != (rows, width):
        raise ValueError("%s: grad_output has shape %s, the lookup's output is [%d, %d]"
                         % (op, tuple(grad_output.shape), rows, width))
    if grad_output.device != device:
        raise ValueError("%s: grad_output is on %s but the tables are on %s"
                         % (op, grad_output.device, device))
    if grad_output.dtype not in (torch.float32, weights[0].dtype):
        grad_output = grad_output.float()
    # Rows of unit-stride columns (the lookup's part of a concatenation's
    # gradient) are read in place, a row stride apart; anything else is
    # copied once.
    grad_row_stride = grad_output.stride(0) if rows > 1 else width
    if grad_output.stride(1) != 1 or grad_row_stride < width:
        grad_output = grad_output.contiguous()
        grad_row_stride = width
    states = {"sgd": 0, "rowwise_adagrad": 1, "adam": 2}[optimizer]
    for k, (name, lst) in enumerate((("momentum1", momentum1), ("momentum2", momentum2))):
        precision = precisions[k]
        if precision not in STATE_PRECISIONS:
            raise ValueError("%s: %s_precision must be one of %s, got %r"
                             % (op, name, list(STATE_PRECISIONS), precision))
        if k >= states:
            if precision != "f32":
                raise ValueError("%s: %s_precision is %s, but %s has no %s"
                                 % (op, name, precision, optimizer, name))
            continue
        if len(lst) != len(weights):
            raise ValueError("%s: %s has %d tensors for %d tables" % (op, name, len(lst), len(weights)))
        dtypes = _state_dtypes(precision)
        for t, (m, w) in enumerate(zip(lst, weights)):
            want = (w.shape[0],) if optimizer == "rowwise_adagrad" else tuple(w.shape)
            if m.dtype not in dtypes or tuple(m.shape) != want or m.device != device \
                    or not m.is_contiguous():
                raise ValueError("%s: %s[%d] must be a contiguous %s %s on %s (%s_precision %s), "
                                 "got %s %s on %s"
                                 % (op, name, t, dtypes[0], list(want), device, name, precision,
                                    m.dtype, list(m.shape), m.device))
        if precision.startswith("fp8"):
            scale_list = scales[k]
            what = ("[rows] (one a row)" if optimizer == "adam"
                    else "[1] (the table's, read only)")
            if scale_list is None or len(scale_list) != len(weights):
                raise ValueError("%s: %s_scales must hold a float32 %s tensor a table for a %s "
                                 "%s, got %s" % (op, name, what, precision, name,
                                                 None if scale_list is None
                                                 else "%d tensors" % len(scale_list)))
            for t, (sc, w) in enumerate(zip(scale_list, weights)):
                want = (w.shape[0],) if optimizer == "adam" else (1,)
                if sc.dtype != torch.float32 or tuple(sc.shape) != want or sc.device != device \
                        or not sc.is_contiguous():
                    raise ValueError("%s: %s_scales[%d] must be a contiguous float32 %s on %s, "
                                     "got %s %s on %s" % (op, name, t, list(want), device,
                                                          sc.dtype, list(sc.shape), sc.device))
    if hyper_params.dtype != torch.float32 or hyper_params.shape != (5,) \
            or hyper_params.device != device:
        raise ValueError("%s: hyper_params must be float32 [5] on %s (lr, eps, beta1, beta2, "
                         "weight_decay), got %s %s on %s" % (op, device, hyper_params.dtype,
                                                             list(hyper_params.shape),
                                                             hyper_params.device))
    if step.dtype != torch.int64 or step.numel() != 1 or step.device != device:
        raise ValueError("%s: step must be one int64 on %s, got %s %s on %s"
                         % (op, device, step.dtype, list(step.shape), step.device))
    rt = R.runtime()
    ctx = rt.context(device)
    indices, offsets = indices.contiguous(), offsets.contiguous()
    if per_sample_weights is not None:
        per_sample_weights = per_sample_weights.contiguous()
    step.add_(1)  # on the device: Adam's bias correction and the rounding's seed
    keep = []
    b = R.TbeBackwardArgs()
    b.structSize = ctypes.sizeof(R.TbeBackwardArgs)
    b.lookup = _lookup_args(weights, feature_table, indices, offsets, per_sample_weights,
                            pooling, bounds_check, padding_idx, keep)
    b.gradOutput = grad_output.data_ptr()
    b.gradDtype = R.DTYPES[grad_output.dtype]
    b.gradRowStride = grad_row_stride
    b.optimizer = R.OPTIMIZERS[optimizer]
    for which, lst in ((1, momentum1), (2, momentum2))[:states]:
        arr = _ptrs([m.data_ptr() for m in lst])
        keep.append(arr)
        setattr(b, "momentum%d" % which, arr)
        precision = precisions[which - 1]
        setattr(b, "momentum%dPrecision" % which, R.STATE_PRECISIONS[precision])
        if precision.startswith("fp8"):
            arr = _ptrs([sc.data_ptr() for sc in scales[which - 1]])
            keep.append(arr)
            setattr(b, "momentum%dScales" % which, arr)
    b.hyperParams = hyper_params.data_ptr()
    b.step = step.data_ptr()
    b.seed = seed & (2 ** 64 - 1)
    b.configId = -1
    ws = rt.workspace(ctx, rt.lib.embrtTbeBackwardWorkspaceSize, b, device)
    if ws is not None:
        b.workspace, b.workspaceBytes = ws.data_ptr(), ws.numel()
    rt.check(ctx, rt.lib.embrtTbeBackward(ctx, ctypes.byref(b)), op)
    rt.poll(ctx, op)


#===------------------------------------------------------------------------------------------===#
# The ops
#===------------------------------------------------------------------------------------------===#

def _tbe_forward(weights: List[Tensor], feature_table: List[int], indices: Tensor, offsets: Tensor,
                 per_sample_weights: Optional[Tensor] = None, pooling: str = "sum",
                 bounds_check: str = "fatal", padding_idx: Optional[int] = None,
                 output_dtype: Optional[torch.dtype] = None) -> Tensor:
    """The pooled (or unpooled) lookups of every feature in one launch (embrtTbeForward).
    Accumulates in f32 (f64 for f32 tables on the CPU); output_dtype is float32 or the tables'
    (default). No autograd: for training use tbe_forward_train."""
    return _forward("emb::tbe_forward", weights, feature_table, indices, offsets,
                    per_sample_weights, pooling, bounds_check, padding_idx, output_dtype)


tbe_forward = torch.library.custom_op("emb::tbe_forward", mutates_args=())(_tbe_forward)


@tbe_forward.register_fake
def _(weights, feature_table, indices, offsets, per_sample_weights=None, pooling="sum",
      bounds_check="fatal", padding_idx=None, output_dtype=None):
    op = "emb::tbe_forward"
    B, width = _check_lookup(op, weights, feature_table, indices, offsets, per_sample_weights,
                             pooling, bounds_check)
    return _empty_output(weights, indices, B, width, pooling,
                         _output_dtype(op, weights, output_dtype))


@torch.library.custom_op("emb::tbe_backward_sgd", mutates_args=("weights", "step"))
def tbe_backward_sgd(weights: List[Tensor], hyper_params: Tensor, step: Tensor,
                     feature_table: List[int], indices: Tensor, offsets: Tensor,
                     per_sample_weights: Optional[Tensor], grad_output: Tensor, pooling: str,
                     bounds_check: str, padding_idx: Optional[int], seed: int) -> None:
    """SGD on every row the lookup touched, in place: w -= lr * (g + wd * w). step += 1."""
    _backward("emb::tbe_backward_sgd", "sgd", weights, [], [], hyper_params, step, feature_table,
              indices, offsets, per_sample_weights, grad_output, pooling, bounds_check,
              padding_idx, seed)


@torch.library.custom_op("emb::tbe_backward_rowwise_adagrad",
                         mutates_args=("weights", "momentum1", "step"))
def tbe_backward_rowwise_adagrad(weights: List[Tensor], momentum1: List[Tensor],
                                 hyper_params: Tensor, step: Tensor, feature_table: List[int],
                                 indices: Tensor, offsets: Tensor,
                                 per_sample_weights: Optional[Tensor], grad_output: Tensor,
                                 pooling: str, bounds_check: str, padding_idx: Optional[int],
                                 seed: int, momentum1_scales: List[Tensor],
                                 momentum1_precision: str = "f32") -> None:
    """Exact rowwise Adagrad (FBGEMM's EXACT_ROWWISE_ADAGRAD) in place; momentum1[t] is [rows]
    of momentum1_precision (state_dtype); an fp8 one divided by momentum1_scales[t] ([1] f32,
    the table's scale, read only); momentum1_scales is [] for other precisions."""
    _backward("emb::tbe_backward_rowwise_adagrad", "rowwise_adagrad", weights, momentum1, [],
              hyper_params, step, feature_table, indices, offsets, per_sample_weights,
              grad_output, pooling, bounds_check, padding_idx, seed,
              (momentum1_precision, "f32"), (momentum1_scales or None, None))


@torch.library.custom_op("emb::tbe_backward_adam",
                         mutates_args=("weights", "momentum1", "momentum2", "step",
                                       "momentum1_scales", "momentum2_scales"))
def tbe_backward_adam(weights: List[Tensor], momentum1: List[Tensor], momentum2: List[Tensor],
                      hyper_params: Tensor, step: Tensor, feature_table: List[int],
                      indices: Tensor, offsets: Tensor, per_sample_weights: Optional[Tensor],
                      grad_output: Tensor, pooling: str, bounds_check: str,
                      padding_idx: Optional[int], seed: int, momentum1_scales: List[Tensor],
                      momentum2_scales: List[Tensor], momentum1_precision: str = "f32",
                      momentum2_precision: str = "f32") -> None:
    """Adam with decoupled weight decay (FBGEMM's ADAM) in place; moments are [rows, D] of
    momentum<k>_precision (state_dtype); an fp8 one with [rows] f32 scales in
    momentum<k>_scales, rewritten with the row ([] for other precisions)."""
    _backward("emb::tbe_backward_adam", "adam", weights, momentum1, momentum2, hyper_params, step,
              feature_table, indices, offsets, per_sample_weights, grad_output, pooling,
              bounds_check, padding_idx, seed, (momentum1_precision, momentum2_precision),
              (momentum1_scales or None, momentum2_scales or None))


for _op in (tbe_backward_sgd, tbe_backward_rowwise_adagrad, tbe_backward_adam):
    _op.register_fake(lambda *args, **kwargs: None)
    R.backend_kernels(_op, _op._init_fn)
R.backend_kernels(tbe_forward, _tbe_forward)


def _backward_call(optimizer, weights, momentum1, momentum2, hyper_params, step, feature_table,
                   indices, offsets, per_sample_weights, grad_output, pooling, bounds_check,
                   padding_idx, seed, momentum1_scales=None, momentum2_scales=None,
                   momentum1_precision="f32", momentum2_precision="f32"):
    tail = (hyper_params, step, feature_table, indices, offsets, per_sample_weights, grad_output,
            pooling, bounds_check, padding_idx, seed)
    if optimizer == "sgd":
        torch.ops.emb.tbe_backward_sgd(weights, *tail)
    elif optimizer == "rowwise_adagrad":
        torch.ops.emb.tbe_backward_rowwise_adagrad(weights, momentum1, *tail,
                                                   momentum1_scales or [], momentum1_precision)
    else:
        torch.ops.emb.tbe_backward_adam(weights, momentum1, momentum2, *tail,
                                        momentum1_scales or [], momentum2_scales or [],
                                        momentum1_precision, momentum2_precision)


@torch.library.custom_op("emb::tbe_forward_train", mutates_args=())
def tbe_forward_train(placeholder: Tensor, weights: List[Tensor], momentum1: List[Tensor],
                      momentum2: List[Tensor], hyper_params: Tensor, step: Tensor,
                      feature_table: List[int], indices: Tensor, offsets: Tensor,
                      per_sample_weights: Optional[Tensor], pooling: str, bounds_check: str,
                      padding_idx: Optional[int], output_dtype: Optional[torch.dtype],
                      optimizer: str, seed: int, momentum1_scales: List[Tensor],
                      momentum2_scales: List[Tensor], momentum1_precision: str = "f32",
                      momentum2_precision: str = "f32") -> Tensor:
    """tbe_forward whose backward is emb::tbe_backward_<optimizer>: the tables and states are
    updated in place with the output's gradient, and no gradient flows to them. `placeholder` is
    a scalar that requires grad, so that autograd runs the backward (FBGEMM's
    placeholder_autograd_tensor); momentum1/momentum2 are empty where the optimizer has none, and
    stored at momentum<k>_precision (fp8 with momentum<k>_scales, else []), as the backward ops
    take them."""
    if optimizer not in OPTIMIZERS:
        raise ValueError("emb::tbe_forward_train: optimizer must be one of %s, got %r"
                         % (list(OPTIMIZERS), optimizer))
    return _forward("emb::tbe_forward_train", weights, feature_table, indices, offsets,
                    per_sample_weights, pooling, bounds_check, padding_idx, output_dtype)


@tbe_forward_train.register_fake
def _(placeholder, weights, momentum1, momentum2, hyper_params, step, feature_table, indices,
      offsets, per_sample_weights, pooling, bounds_check, padding_idx, output_dtype, optimizer,
      seed, momentum1_scales, momentum2_scales, momentum1_precision="f32",
      momentum2_precision="f32"):
    op = "emb::tbe_forward_train"
    B, width = _check_lookup(op, weights, feature_table, indices, offsets, per_sample_weights,
                             pooling, bounds_check)
    return _empty_output(weights, indices, B, width, pooling,
                         _output_dtype(op, weights, output_dtype))


_TRAIN_DEFAULTS = ("f32", "f32")  # the precisions, when not passed


def _train_setup(ctx, inputs, output):
    inputs = tuple(inputs) + _TRAIN_DEFAULTS[len(inputs) - 18:]
    (placeholder, weights, momentum1, momentum2, hyper_params, step, feature_table, indices,
     offsets, per_sample_weights, pooling, bounds_check, padding_idx, output_dtype, optimizer,
     seed, momentum1_scales, momentum2_scales, momentum1_precision, momentum2_precision) = inputs
    # The tables and states are held, not saved: the backward updates them in place, and a
    # saved tensor's version check would refuse the second of two lookups into one table.
    ctx.state = (weights, momentum1, momentum2, hyper_params, step, momentum1_scales,
                 momentum2_scales)
    ctx.save_for_backward(indices, offsets, per_sample_weights)
    ctx.lookup = (feature_table, pooling, bounds_check, padding_idx, optimizer, seed,
                  momentum1_precision, momentum2_precision)


def _train_backward(ctx, grad_output):
    indices, offsets, per_sample_weights = ctx.saved_tensors
    weights, momentum1, momentum2, hyper_params, step, scales1, scales2 = ctx.state
    (feature_table, pooling, bounds_check, padding_idx, optimizer, seed, precision1,
     precision2) = ctx.lookup
    _backward_call(optimizer, weights, momentum1, momentum2, hyper_params, step, feature_table,
                   indices, offsets, per_sample_weights, grad_output, pooling, bounds_check,
                   padding_idx, seed, scales1, scales2, precision1, precision2)
    # One entry an input, lists for the tensor lists (PyTorch checks the structure), as many as
    # the op was called with: the dispatcher drops trailing arguments equal to their defaults
    # (the precisions), and ctx.needs_input_grad has an entry for each argument it kept, while
    # setup_context may have seen them filled back in (PyTorch 2.5+).
    grads = (None, [None] * len(weights), [None] * len(momentum1),
             [None] * len(momentum2)) + (None,) * 12 + (
                 [None] * len(scales1), [None] * len(scales2), None, None)
    return grads[:len(ctx.needs_input_grad)]


tbe_forward_train.register_autograd(_train_backward, setup_context=_train_setup)

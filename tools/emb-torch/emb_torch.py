"""emb_torch: emb's table-batched embeddings as a PyTorch module, trained by a fused backward.

A thin binding of the emb runtime's C API (include/emb/runtime.h) through ctypes: no extension to
compile, only libembrt.so (CMake target embrt_shared). It behaves like TorchRec's
EmbeddingBagCollection with a fused optimizer:

    ebc = EmbeddingBagCollection(
        [EmbeddingBagConfig("t0", num_embeddings=1000, embedding_dim=64, feature_names=["f0", "f1"]),
         EmbeddingBagConfig("t1", num_embeddings=500, embedding_dim=32, feature_names=["f2"])],
        optimizer="rowwise_adagrad", lr=0.01, device="cuda")
    pooled = ebc(KeyedJaggedTensor(["f0", "f1", "f2"], values, offsets=offsets))  # KeyedTensor
    loss = model(pooled.values()).sum()
    loss.backward()  # the embedding update happens here, inside the backward

The forward is embrtTbeForward; the autograd backward calls embrtTbeBackward, which sums each touched
row's gradient and applies the optimizer (SGD, exact rowwise Adagrad, Adam) in place, and returns no
weight gradient. Everything runs on PyTorch's current CUDA stream (the runtime context is created on
it) with PyTorch's allocator (outputs and workspaces are torch tensors): no copies, no host
synchronisation. The learning rate and the step count live in device tensors, so a step can be
captured in a CUDA graph. Device-side errors (an id outside its table under bounds_check="fatal")
surface at synchronize(). CPU tensors run on the runtime's CPU reference backend.

Tables are the module's parameters (requires_grad False: nothing else should step them), states its
buffers; both are in state_dict.
"""
import ctypes
import os

import torch

__all__ = ["EmbeddingBagConfig", "EmbeddingBagCollection", "KeyedJaggedTensor", "KeyedTensor",
           "Runtime"]

#===------------------------------------------------------------------------------------------===#
# The C API (include/emb/runtime.h)
#===------------------------------------------------------------------------------------------===#

F32, F16, BF16, I32, I64 = 0, 1, 2, 3, 4
DTYPES = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16, torch.int32: I32,
          torch.int64: I64}
POOLING = {"sum": 0, "mean": 1, "none": 2}
BOUNDS = {"fatal": 0, "warning": 1, "ignore": 2, "none": 3}
OPTIMIZERS = {"sgd": 0, "rowwise_adagrad": 1, "adam": 2}
DEVICE_CPU, DEVICE_CUDA = 0, 1
CUDA_STREAM_LEGACY = 1  # cudaStreamLegacy: the legacy default stream as a stream handle

_p = ctypes.c_void_p
_i64p = ctypes.POINTER(ctypes.c_int64)
_pp = ctypes.POINTER(ctypes.c_void_p)


class TbeArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("pooling", ctypes.c_int),
                ("boundsCheck", ctypes.c_int), ("numTables", ctypes.c_int64), ("tables", _pp),
                ("tableRows", _i64p), ("tableDims", _i64p), ("tableDtype", ctypes.c_int),
                ("numFeatures", ctypes.c_int64), ("featureTables", _i64p),
                ("batchSize", ctypes.c_int64), ("numIndices", ctypes.c_int64), ("indices", _p),
                ("indexDtype", ctypes.c_int), ("offsets", _p), ("offsetDtype", ctypes.c_int),
                ("perSampleWeights", _p), ("perSampleWeightDtype", ctypes.c_int),
                ("paddingIdx", ctypes.c_int64), ("hasPaddingIdx", ctypes.c_int), ("output", _p),
                ("outputDtype", ctypes.c_int), ("configId", ctypes.c_int64), ("workspace", _p),
                ("workspaceBytes", ctypes.c_size_t)]


class TbeBackwardArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("lookup", TbeArgs), ("gradOutput", _p),
                ("gradDtype", ctypes.c_int), ("optimizer", ctypes.c_int), ("momentum1", _pp),
                ("momentum2", _pp), ("hyperParams", _p), ("step", _p), ("seed", ctypes.c_uint64),
                ("configId", ctypes.c_int64), ("workspace", _p), ("workspaceBytes", ctypes.c_size_t)]


def _default_library():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.environ.get("EMB_RUNTIME_LIB", ""),
                 os.path.join(here, "..", "..", "build", "lib", "libembrt.so")):
        if path and os.path.exists(path):
            return path
    return "libembrt.so"


class Runtime:
    """libembrt.so and its contexts: one per (device, stream), created on first use."""

    def __init__(self, path=None):
        # torch first: libembrt.so then shares its CUDA runtime and cuBLAS (same sonames).
        lib = ctypes.CDLL(path or _default_library())
        lib.embrtContextCreate.argtypes = [ctypes.c_int, ctypes.c_int, _p, ctypes.POINTER(_p)]
        lib.embrtContextDestroy.argtypes = [_p]
        lib.embrtGetCreateError.restype = ctypes.c_char_p
        lib.embrtContextGetLastError.argtypes = [_p]
        lib.embrtContextGetLastError.restype = ctypes.c_char_p
        lib.embrtContextClearError.argtypes = [_p]
        lib.embrtSynchronize.argtypes = [_p]
        for name, args in (("TbeWorkspaceSize", TbeArgs), ("TbeBackwardWorkspaceSize", TbeBackwardArgs)):
            fn = getattr(lib, "embrt" + name)
            fn.argtypes = [_p, ctypes.POINTER(args), ctypes.POINTER(ctypes.c_size_t)]
        lib.embrtTbeForward.argtypes = [_p, ctypes.POINTER(TbeArgs)]
        lib.embrtTbeBackward.argtypes = [_p, ctypes.POINTER(TbeBackwardArgs)]
        self.lib = lib
        self.contexts = {}

    def context(self, device):
        """The context of `device` on PyTorch's current stream there."""
        if device.type == "cuda":
            stream = torch.cuda.current_stream(device)
            key = ("cuda", device.index, stream.cuda_stream)
            ordinal = device.index if device.index is not None else torch.cuda.current_device()
            # PyTorch's default stream is the legacy default stream, handle 0; a NULL stream would
            # give emb a stream of its own, not ordered with PyTorch's work: pass cudaStreamLegacy.
            kind, handle = DEVICE_CUDA, stream.cuda_stream or CUDA_STREAM_LEGACY
        else:
            key, kind, ordinal, handle = ("cpu",), DEVICE_CPU, 0, None
        ctx = self.contexts.get(key)
        if ctx is None:
            ctx = _p()
            if self.lib.embrtContextCreate(kind, ordinal, handle, ctypes.byref(ctx)) != 0:
                raise RuntimeError("emb: " + self.lib.embrtGetCreateError().decode())
            self.contexts[key] = ctx
        return ctx

    def check(self, ctx, status, what):
        if status != 0:
            message = self.lib.embrtContextGetLastError(ctx).decode()
            self.lib.embrtContextClearError(ctx)
            raise RuntimeError("emb %s: %s" % (what, message))

    def workspace(self, ctx, fn, args, device):
        size = ctypes.c_size_t(0)
        self.check(ctx, fn(ctx, ctypes.byref(args), ctypes.byref(size)), "workspace query")
        if size.value == 0:
            return None
        return torch.empty(size.value, dtype=torch.uint8, device=device)

    def __del__(self):
        for ctx in getattr(self, "contexts", {}).values():
            self.lib.embrtContextDestroy(ctx)


_runtime = None


def runtime(path=None):
    global _runtime
    if _runtime is None:
        _runtime = Runtime(path)
    return _runtime


#===------------------------------------------------------------------------------------------===#
# TorchRec-style inputs and outputs
#===------------------------------------------------------------------------------------------===#

class KeyedJaggedTensor:
    """Ids of several features, bag by bag (TorchRec's layout): feature f's bag b is
    values[offsets[f * B + b] : offsets[f * B + b + 1]]. Give offsets or lengths."""

    def __init__(self, keys, values, offsets=None, lengths=None, weights=None):
        if offsets is None:
            offsets = torch.zeros(lengths.numel() + 1, dtype=lengths.dtype, device=lengths.device)
            torch.cumsum(lengths, 0, out=offsets[1:])
        self._keys, self._values, self._offsets, self._weights = list(keys), values, offsets, weights

    def keys(self):
        return self._keys

    def values(self):
        return self._values

    def offsets(self):
        return self._offsets

    def weights_or_none(self):
        return self._weights


class KeyedTensor:
    """Pooled embeddings [B, sum of D], feature f at its column range."""

    def __init__(self, keys, length_per_key, values):
        self._keys, self._lengths, self._values = keys, length_per_key, values

    def keys(self):
        return self._keys

    def values(self):
        return self._values

    def length_per_key(self):
        return self._lengths

    def to_dict(self):
        return dict(zip(self._keys, torch.split(self._values, self._lengths, dim=1)))

    def __getitem__(self, key):
        return self.to_dict()[key]


class EmbeddingBagConfig:
    def __init__(self, name, num_embeddings, embedding_dim, feature_names):
        self.name, self.num_embeddings = name, num_embeddings
        self.embedding_dim, self.feature_names = embedding_dim, list(feature_names)


#===------------------------------------------------------------------------------------------===#
# The module
#===------------------------------------------------------------------------------------------===#

class _Lookup(torch.autograd.Function):
    """Forward: embrtTbeForward. Backward: embrtTbeBackward (the update), no gradient out."""

    @staticmethod
    def forward(ctx, module, values, offsets, weights, trigger):
        ctx.module = module
        ctx.save_for_backward(values, offsets, weights)
        return module._forward(values, offsets, weights)

    @staticmethod
    def backward(ctx, grad):
        values, offsets, weights = ctx.saved_tensors
        ctx.module._backward(values, offsets, weights, grad)
        return None, None, None, None, None


class EmbeddingBagCollection(torch.nn.Module):
    """TorchRec's EmbeddingBagCollection with a fused optimizer, on emb's runtime.

    optimizer: "sgd", "rowwise_adagrad" (one f32 state per row) or "adam" (f32 moments); lr, eps,
    betas, weight_decay as the runtime defines them (runtime.h). pooling: "sum", "mean" or "none"
    (then forward returns [N, D]). dtype: the tables' (f32, f16, bf16; states are f32). f16/bf16
    rows are written back with stochastic rounding seeded by `seed` and the step.
    """

    def __init__(self, tables, optimizer="rowwise_adagrad", lr=0.01, eps=1e-8, betas=(0.9, 0.999),
                 weight_decay=0.0, pooling="sum", dtype=torch.float32, device=None, seed=0,
                 padding_idx=None, bounds_check="fatal", init_std=None, library=None):
        super().__init__()
        self.rt = runtime(library)
        device = torch.device(device or "cpu")
        self.tables = list(tables)
        self.optimizer = optimizer
        self.pooling = pooling
        self.seed = seed
        self.padding_idx = padding_idx
        self.bounds_check = bounds_check
        self.feature_names = [f for t in self.tables for f in t.feature_names]
        self.feature_tables = [i for i, t in enumerate(self.tables) for _ in t.feature_names]
        self.weights = torch.nn.ParameterList()
        for t in self.tables:
            w = torch.empty(t.num_embeddings, t.embedding_dim, dtype=dtype, device=device)
            std = init_std if init_std is not None else t.embedding_dim ** -0.5
            torch.nn.init.normal_(w, std=std)
            self.weights.append(torch.nn.Parameter(w, requires_grad=False))
        for i, t in enumerate(self.tables):
            if optimizer == "rowwise_adagrad":
                self.register_buffer("momentum1_%d" % i, torch.zeros(t.num_embeddings, device=device))
            elif optimizer == "adam":
                shape = (t.num_embeddings, t.embedding_dim)
                self.register_buffer("momentum1_%d" % i, torch.zeros(shape, device=device))
                self.register_buffer("momentum2_%d" % i, torch.zeros(shape, device=device))
        hyper = torch.tensor([lr, eps, betas[0], betas[1], weight_decay], dtype=torch.float32)
        self.register_buffer("hyper", hyper.to(device))
        self.register_buffer("step", torch.zeros(1, dtype=torch.int64, device=device))
        self._trigger = {}

    def set_learning_rate(self, lr):
        """Changes the learning rate on the device (no synchronisation)."""
        self.hyper[0].fill_(lr)

    def _state(self, which):
        if (which == 1 and self.optimizer == "sgd") or (which == 2 and self.optimizer != "adam"):
            return None
        return [getattr(self, "momentum%d_%d" % (which, i)).data_ptr() for i in range(len(self.tables))]

    def _lookup_args(self, values, offsets, weights, out=None):
        T, F = len(self.tables), len(self.feature_names)
        a = TbeArgs()
        a.structSize = ctypes.sizeof(TbeArgs)
        a.pooling = POOLING[self.pooling]
        a.boundsCheck = BOUNDS[self.bounds_check]
        a.numTables = T
        self._keep = [
            (ctypes.c_void_p * T)(*[w.data_ptr() for w in self.weights]),
            (ctypes.c_int64 * T)(*[t.num_embeddings for t in self.tables]),
            (ctypes.c_int64 * T)(*[t.embedding_dim for t in self.tables]),
            (ctypes.c_int64 * F)(*self.feature_tables)]
        a.tables = ctypes.cast(self._keep[0], _pp)
        a.tableRows = ctypes.cast(self._keep[1], _i64p)
        a.tableDims = ctypes.cast(self._keep[2], _i64p)
        a.tableDtype = DTYPES[self.weights[0].dtype]
        a.numFeatures = F
        a.featureTables = ctypes.cast(self._keep[3], _i64p)
        a.batchSize = (offsets.numel() - 1) // F
        a.numIndices = values.numel()
        a.indices = values.data_ptr()
        a.indexDtype = DTYPES[values.dtype]
        a.offsets = offsets.data_ptr()
        a.offsetDtype = DTYPES[offsets.dtype]
        if weights is not None:
            a.perSampleWeights = weights.data_ptr()
            a.perSampleWeightDtype = DTYPES[weights.dtype]
        a.hasPaddingIdx = self.padding_idx is not None
        a.paddingIdx = self.padding_idx or 0
        if out is not None:
            a.output = out.data_ptr()
            a.outputDtype = DTYPES[out.dtype]
        a.configId = -1
        return a

    def _forward(self, values, offsets, weights):
        device = self.weights[0].device
        ctx = self.rt.context(device)
        F = len(self.feature_names)
        B = (offsets.numel() - 1) // F
        dims = [self.tables[t].embedding_dim for t in self.feature_tables]
        shape = (values.numel(), dims[0]) if self.pooling == "none" else (B, sum(dims))
        out = torch.empty(shape, dtype=self.weights[0].dtype, device=device)
        a = self._lookup_args(values, offsets, weights, out)
        ws = self.rt.workspace(ctx, self.rt.lib.embrtTbeWorkspaceSize, a, device)
        if ws is not None:
            a.workspace, a.workspaceBytes = ws.data_ptr(), ws.numel()
        self.rt.check(ctx, self.rt.lib.embrtTbeForward(ctx, ctypes.byref(a)), "forward")
        return out

    def _backward(self, values, offsets, weights, grad):
        device = self.weights[0].device
        ctx = self.rt.context(device)
        dtype = self.weights[0].dtype
        if grad.dtype not in (torch.float32, dtype):
            grad = grad.float()
        grad = grad.contiguous()
        self.step.add_(1)  # on the device: Adam's bias correction and the rounding's seed
        T = len(self.tables)
        b = TbeBackwardArgs()
        b.structSize = ctypes.sizeof(TbeBackwardArgs)
        b.lookup = self._lookup_args(values, offsets, weights)
        b.gradOutput = grad.data_ptr()
        b.gradDtype = DTYPES[grad.dtype]
        b.optimizer = OPTIMIZERS[self.optimizer]
        keep = []
        for which in (1, 2):
            ptrs = self._state(which)
            if ptrs is not None:
                arr = (ctypes.c_void_p * T)(*ptrs)
                keep.append(arr)
                setattr(b, "momentum%d" % which, ctypes.cast(arr, _pp))
        b.hyperParams = self.hyper.data_ptr()
        b.step = self.step.data_ptr()
        b.seed = self.seed
        b.configId = -1
        ws = self.rt.workspace(ctx, self.rt.lib.embrtTbeBackwardWorkspaceSize, b, device)
        if ws is not None:
            b.workspace, b.workspaceBytes = ws.data_ptr(), ws.numel()
        self.rt.check(ctx, self.rt.lib.embrtTbeBackward(ctx, ctypes.byref(b)), "backward")
        del keep

    def forward(self, features, offsets=None, per_sample_weights=None):
        """features: a KeyedJaggedTensor (keys in this module's feature order), or the ids with
        offsets [F * B + 1] (and per-sample weights). Returns a KeyedTensor (pooled) or the [N, D]
        rows (pooling "none")."""
        if offsets is None:
            if list(features.keys()) != self.feature_names:
                raise ValueError("emb: features %s, expected %s" % (features.keys(), self.feature_names))
            values, offsets = features.values(), features.offsets()
            per_sample_weights = features.weights_or_none()
        else:
            values = features
        values, offsets = values.contiguous(), offsets.contiguous()
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.contiguous()
        device = self.weights[0].device
        trigger = self._trigger.get(device)
        if trigger is None:  # makes autograd run the backward: it has no other input to train
            trigger = self._trigger[device] = torch.zeros((), device=device, requires_grad=True)
        out = _Lookup.apply(self, values, offsets, per_sample_weights, trigger)
        if self.pooling == "none":
            return out
        dims = [self.tables[t].embedding_dim for t in self.feature_tables]
        return KeyedTensor(self.feature_names, dims, out)

    def synchronize(self):
        """Waits for the stream and raises on errors the device recorded (bad ids, bad offsets)."""
        ctx = self.rt.context(self.weights[0].device)
        self.rt.check(ctx, self.rt.lib.embrtSynchronize(ctx), "synchronize")

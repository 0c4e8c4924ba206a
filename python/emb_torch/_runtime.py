"""The emb runtime's C API (include/emb/runtime.h) through ctypes: libembrt.so, its contexts on
PyTorch's current stream, argument structs, status checks and workspaces.

Every op of emb_torch calls the runtime through this module. ctypes rather than a C++ extension: the
runtime's API is plain C, so nothing here is compiled against a particular torch (no C++ ABI to match,
no compiler on the user's machine); torch.library's Python custom ops give the ops their names, fake
kernels and autograd, which is what torch.compile, torch.export and CUDA graphs need. Where
libemb_torch_ops.so is built (python/csrc/), the TBE ops' kernels hand their host work to it
(ops.host_path): the same checks and calls, in C++.
"""
import ctypes
import functools

import torch

__all__ = ["EmbError", "EmbIndexError", "Runtime", "runtime", "synchronize"]

#===------------------------------------------------------------------------------------------===#
# The C API (include/emb/runtime.h)
#===------------------------------------------------------------------------------------------===#

from ._library import default_library
from ._abi import (BF16, F16, F32, I32, I64, AttentionArgs, BroadcastArgs,  # noqa: F401
                   BucketizeArgs, IkboLceArgs, JaggedToPaddedArgs, LengthsToOffsetsArgs,
                   QuantizeTableArgs, TbeArgs, TbeBackwardArgs, _i64p, _p, _pp)

# The ops' entry points: embrt<name>(ctx, args) and, where one exists, the workspace query
# embrt<query>(ctx, args, &bytes), both over the args struct of include/emb/runtime.h.
ENTRY_POINTS = [
    ("TbeForward", "TbeWorkspaceSize", TbeArgs),
    ("TbeBackward", "TbeBackwardWorkspaceSize", TbeBackwardArgs),
    ("Broadcast", None, BroadcastArgs), ("JaggedToPadded", None, JaggedToPaddedArgs),
    ("IkboLce", "IkboLceWorkspaceSize", IkboLceArgs),
    ("Attention", "AttentionWorkspaceSize", AttentionArgs), ("IkboAttention", None, AttentionArgs),
    ("Bucketize", "BucketizeWorkspaceSize", BucketizeArgs),
    ("LengthsToOffsets", "LengthsToOffsetsWorkspaceSize", LengthsToOffsetsArgs),
    ("QuantizeTable", None, QuantizeTableArgs), ("DequantizeTable", None, QuantizeTableArgs)]

DTYPES = {torch.float32: F32, torch.float16: F16, torch.bfloat16: BF16, torch.int32: I32,
          torch.int64: I64}
POOLING = {"sum": 0, "mean": 1, "none": 2}
BOUNDS = {"fatal": 0, "warning": 1, "ignore": 2, "none": 3}
OPTIMIZERS = {"sgd": 0, "rowwise_adagrad": 1, "adam": 2}
# embrtStatePrecision: how an optimizer state is stored.
STATE_PRECISIONS = {"f32": 0, "bf16": 1, "fp8_e4m3": 2, "fp8_e5m2": 3}
DEVICE_CPU, DEVICE_CUDA = 0, 1
CUDA_STREAM_LEGACY = 1  # cudaStreamLegacy: the legacy default stream as a stream handle

def keeps_device(fn):
    """Runs `fn` (which calls the runtime) and puts the caller's current CUDA device back after
    it: the runtime makes its context's device current (cudaSetDevice) and leaves it so, and a
    PyTorch op must not move torch.cuda.current_device(), as c10's device guards keep it. CUDA
    tensors have initialised CUDA, so an op that has none makes no CUDA context."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        if not torch.cuda.is_initialized():  # CPU tensors only: no CUDA context is made
            return fn(*args, **kwargs)
        previous = torch.cuda.current_device()
        try:
            return fn(*args, **kwargs)
        finally:
            if torch.cuda.current_device() != previous:
                torch.cuda.set_device(previous)
    return run


_C = torch._C
# The current stream of a CUDA device as its handle, without a torch.cuda.Stream made for it
# (what torch.cuda.current_stream(i).cuda_stream gives; Inductor's generated code reads it so).
_raw_stream = getattr(_C, "_cuda_getCurrentRawStream", None)
_graph = getattr(torch.autograd, "graph", None)
# What direct_call reads; without one of them (an older torch), every call takes the op.
_DIRECT = all(callable(f) for f in (
    getattr(_C, "_len_torch_dispatch_stack", None),
    getattr(_C, "_is_torch_function_mode_enabled", None),
    getattr(_C, "_are_functorch_transforms_active", None),
    getattr(_C, "_get_tracing_state", None),
    getattr(getattr(_C, "_autograd", None), "_profiler_enabled", None),
    getattr(getattr(torch, "compiler", None), "is_compiling", None),
    getattr(_graph, "increment_version", None)))


def direct_call(args):
    """Whether a module may call an op's kernel itself with `args` (its tensors), skipping the
    dispatcher's Python layers (torch.library's autograd, aliasing and dynamo wrappers): true
    for plain torch.Tensors in an eager call that nothing sees or changes. Not under
    torch.compile or torch.export, a TorchDispatchMode (fake tensors, functionalization), a
    TorchFunctionMode, a functorch transform, the JIT tracer, forward-mode AD or the profiler
    (which then shows the op by name), nor for meta tensors or a tensor subclass other than
    nn.Parameter: those calls go through the op."""
    if not direct_mode():
        return False
    for x in args:
        if type(x) not in PLAIN or x.is_meta:  # meta tensors: the op's fake kernel
            return False
    return True


# The tensor types a direct call takes: a Parameter dispatches as a plain tensor.
PLAIN = (torch.Tensor, torch.nn.Parameter)


def direct_mode():
    """direct_call's checks of the call's mode, without those of its tensors: nothing traces,
    transforms or records the call."""
    return _DIRECT and not (
        torch.compiler.is_compiling() or _C._len_torch_dispatch_stack()
        or _C._is_torch_function_mode_enabled() or _C._are_functorch_transforms_active()
        or _C._get_tracing_state() is not None or _C._autograd._profiler_enabled()
        or _forward_ad_level() >= 0)


def _forward_ad_level():
    """The innermost forward-mode AD level (torch.autograd.forward_ad.dual_level), -1 outside
    one: dual tensors go through the op, which refuses them as torch does."""
    fwd = getattr(torch.autograd, "forward_ad", None)
    return getattr(fwd, "_current_level", -1) if fwd is not None else -1


def run_op(op, kernel, *args):
    """`op(*args)` for a module: or `kernel(*args)`, the op's own Python kernel, where the call
    may skip the dispatcher (direct_call, over the tensors of `args` and of their lists) and
    autograd would record nothing (grad mode off, or no tensor requiring grad). For ops that
    update nothing in place: the same results either way."""
    tensors = []
    for a in args:
        if isinstance(a, torch.Tensor):
            tensors.append(a)
        elif isinstance(a, (list, tuple)):
            tensors.extend(x for x in a if isinstance(x, torch.Tensor))
    if direct_call(tensors) and not (torch.is_grad_enabled()
                                     and any(t.requires_grad for t in tensors)):
        return kernel(*args)
    return op(*args)


# The Library that holds the ops' kernels registered by backend_kernels (alive as long as the
# module: a Library's registrations go with it).
_backend_libraries = {}


def backend_kernels(opdef, kernel):
    """Registers `kernel`, the Python kernel of the torch.library.custom_op `opdef`, for the CPU
    and CUDA dispatch keys, so that a call on CPU or CUDA tensors reaches it from the dispatcher
    without custom_op's backend wrapper (its output-aliasing check and dynamo guard: about 8 us
    of host time a call on an H100 machine, docs/pytorch.md "Host time"). The op's schema,
    fake kernel, autograd and version-counter bumps (custom_op's Autograd and ADInplaceOrView
    kernels) stay as custom_op registered them; every kernel of emb_torch returns new tensors,
    none aliasing an input, which is what the skipped check asserts."""
    ns, name = opdef._qualname.split("::")
    lib = _backend_libraries.get(ns)
    if lib is None:
        lib = _backend_libraries[ns] = torch.library.Library(ns, "IMPL")
    for key in ("CPU", "CUDA"):
        lib.impl(name, kernel, key)


def increment_version(tensors):
    """Bumps the version counters of `tensors`, which a direct call updated in place, as the
    dispatcher does for an op's mutable arguments."""
    for t in tensors:  # one at a time: torch before 2.6 takes one tensor
        _graph.increment_version(t)


class EmbError(RuntimeError):
    """An error the runtime reported; `status` is its embrtStatus."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class EmbIndexError(EmbError, IndexError):
    """EMBRT_OUT_OF_RANGE: an id outside its table, a bad offset, length or cand_to_user entry."""


_ERRORS = {2: EmbIndexError}


class Runtime:
    """libembrt.so and its contexts: one per (device, stream), created on first use."""

    def __init__(self, path=None):
        # torch first: libembrt.so then shares its CUDA runtime and cuBLAS (same sonames).
        lib = ctypes.CDLL(path or default_library())
        lib.embrtContextCreate.argtypes = [ctypes.c_int, ctypes.c_int, _p, ctypes.POINTER(_p)]
        lib.embrtContextDestroy.argtypes = [_p]
        lib.embrtGetCreateError.restype = ctypes.c_char_p
        lib.embrtContextGetLastError.argtypes = [_p]
        lib.embrtContextGetLastError.restype = ctypes.c_char_p
        lib.embrtContextClearError.argtypes = [_p]
        lib.embrtSynchronize.argtypes = [_p]
        lib.embrtPollDeviceErrors.argtypes = [_p]
        for name, query, args in ENTRY_POINTS:
            fn = getattr(lib, "embrt" + name)
            fn.argtypes = [_p, ctypes.POINTER(args)]
            fn.restype = ctypes.c_int
            if query:
                fn = getattr(lib, "embrt" + query)
                fn.argtypes = [_p, ctypes.POINTER(args), ctypes.POINTER(ctypes.c_size_t)]
                fn.restype = ctypes.c_int
        lib.embrtBucketizeDepth.argtypes = [ctypes.c_int64, _i64p, _i64p, _i64p]
        lib.embrtBucketizeDepth.restype = ctypes.c_int64
        lib.embrtQuantizedRowBytes.argtypes = [ctypes.c_int, ctypes.c_int64]
        lib.embrtQuantizedRowBytes.restype = ctypes.c_int64
        self.lib = lib
        self.contexts = {}
        # The entry points libemb_torch_ops.so's TBE ops call (python/csrc/tbe.cpp): their
        # count, then their addresses; `entry_points` is the words' address.
        fns = [ctypes.cast(getattr(lib, "embrt" + name), _p).value for name in (
            "TbeForward", "TbeWorkspaceSize", "TbeBackward", "TbeBackwardWorkspaceSize",
            "ContextClearError", "PollDeviceErrors")]
        self._entry_words = (ctypes.c_int64 * (1 + len(fns)))(len(fns), *fns)
        self.entry_points = ctypes.addressof(self._entry_words)

    def context(self, device):
        """The context of `device` (a torch.device or its name) on PyTorch's current stream
        there; "cuda" is the current CUDA device, the same context as "cuda:<its index>"."""
        device = torch.device(device)
        if device.type == "cuda":
            ordinal = device.index if device.index is not None else torch.cuda.current_device()
            stream = (_raw_stream(ordinal) if _raw_stream is not None
                      else torch.cuda.current_stream(ordinal).cuda_stream)
            key = ("cuda", ordinal, stream)
        else:
            key = ("cpu",)
        ctx = self.contexts.get(key)
        return ctx if ctx is not None else self._create(key)

    @keeps_device
    def _create(self, key):
        """Creates the context of `key` (context's): creation makes its device current."""
        if key[0] == "cuda":
            # PyTorch's default stream is the legacy default stream, handle 0; a NULL stream would
            # give emb a stream of its own, not ordered with PyTorch's work: pass cudaStreamLegacy.
            kind, ordinal, handle = DEVICE_CUDA, key[1], key[2] or CUDA_STREAM_LEGACY
        else:
            kind, ordinal, handle = DEVICE_CPU, 0, None
        ctx = _p()
        if self.lib.embrtContextCreate(kind, ordinal, handle, ctypes.byref(ctx)) != 0:
            raise RuntimeError("emb: " + self.lib.embrtGetCreateError().decode())
        self.contexts[key] = ctx
        return ctx

    def check(self, ctx, status, what):
        if status != 0:
            message = self.lib.embrtContextGetLastError(ctx).decode()
            self.lib.embrtContextClearError(ctx)
            raise _ERRORS.get(status, EmbError)("%s: %s" % (what, message), status)

    def poll(self, ctx, what):
        """Raises the device errors (a bad id under bounds_check "fatal") that finished work
        recorded, without waiting for the device (embrtPollDeviceErrors)."""
        self.check(ctx, self.lib.embrtPollDeviceErrors(ctx), what)

    @keeps_device
    def synchronize(self, device, what="emb: synchronize"):
        """Waits for emb's work on the current stream of `device`; raises its device errors."""
        ctx = self.context(device)
        self.check(ctx, self.lib.embrtSynchronize(ctx), what)

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


def synchronize(device=None):
    """Waits for emb's work on PyTorch's current stream of `device` (a torch.device or its name;
    default the current CUDA device) and raises what the device recorded, as the next emb call
    would: an id outside its table under bounds_check "fatal" is an EmbIndexError. The op-level
    counterpart of EmbeddingBagCollection.synchronize()."""
    runtime().synchronize(torch.device("cuda") if device is None else device)

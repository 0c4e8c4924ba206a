"""Models compiled by `emb-compile --shared`, called from PyTorch (docs/codegen.md, "Shared objects").

    model = emb_torch.load("out/model.so")         # the first entry; entry="name" for another
    scores, pooled = model(ids, offsets, t0, t1, dense, w)
    torch.ops.emb_model.dense_tower(ids, offsets, t0, t1, dense, w)   # the same call, as an op

`load` reads the shared object's own description of its entries (the `<prefix>models` descriptor,
EmbSharedModel in include/emb/model.h): no header, nothing built for the model. The module's
forward takes one torch tensor per input of the entry, in order, and returns its results (a tensor,
or a tuple of them), through the op the load registered with torch.library:

- The op is emb_model::<entry> (model.op_name; model.op is its OpOverload), or <entry>_2, _3, ...
  when an earlier load in the process took that name (the same file loaded again, or another
  model with an entry of that name), or the name passed as op_name. Its schema comes from the
  descriptor (model.schema): `Tensor input<i>` per input, `Tensor(a<i>!)` for each input the
  model updates in place, and one Tensor or a tuple of them as results; an entry of more than 64
  inputs (MAX_OP_ARGS, the most a schema takes) takes `Tensor[] inputs` (those it reads) and
  `Tensor(a!)[] updated` (those it updates, if any) instead, each in input order. Its fake
  kernel runs the checks below that read only metadata and gives the results' dtypes and shapes,
  a dynamic dim as a new dynamic size, so torch.compile(fullgraph=True) traces a model that
  calls it without a graph break, torch.export records it by name, and the profiler shows it. The op stays
  registered, and the model loaded, for the life of the process.

- Checked before the call: the number of inputs (TypeError), each input's dtype (TypeError), device
  (the model's target: cpu or cuda, one device for all), rank and static dims (ValueError), each
  message naming the input and what it takes; all but the count also by the fake kernel, so that
  tracing reports them. The compiled entry does not check them itself: it reads static dims from
  its code, so a wrong buffer would be read out of bounds. Dynamic dims that must agree (ids and
  offsets) are checked by the runtime during the call.
- Zero copy: the memref descriptors point at the tensors' own memory. The entry takes dense
  row-major buffers (it ignores strides), so a non-contiguous input is made contiguous first (a
  copy), except an input the entry updates in place (a table or optimizer state of a training
  step), which must be contiguous: its update lands in the caller's tensor.
- Results of static shape are allocated by torch (torch.empty, on the inputs' device) and written
  by the model. A result with a dynamic dim comes back in a buffer the model allocated in the
  runtime (embrtCompiledResult): it is copied into a torch tensor and the runtime's buffer freed,
  both ordered on the stream (one device copy; the host reads only the shape, which the call set).
- The call runs on PyTorch's current stream, through the runtime context of that stream
  (_runtime.runtime().context(device)). Afterwards the context's status is read without waiting
  for the device (embrtContextGetStatus): errors the host finds (shapes, dynamic extents that
  disagree, a failed allocation) raise RuntimeError at once; errors the device finds (an id out
  of range under bounds check "fatal") raise emb_torch.EmbIndexError in the first call into emb
  after the device found them (embrtPollDeviceErrors), or at the next synchronisation.
- CUDA graphs: after one call on a stream (the warm-up: it uploads the model's constants and loads
  its kernels into that stream's context), a call on that stream can be captured with
  torch.cuda.graph(g, stream=s); results and inputs are torch's memory, the model's intermediates
  come from the runtime's stream-ordered pool (allocation nodes of the graph), nothing waits.
  Capturing a call on a stream the model has not run on raises RuntimeError, as does capturing a
  model with a result of dynamic shape (its buffer is allocated by the call).
- Not differentiable: the module passes inputs that require grad detached, and the results carry
  no autograd history. Inputs updated in place get their version counter bumped, by the
  dispatcher, since the op declares them mutated.
- Host time: an eager call of plain tensors runs the op's kernel straight from the module
  (_runtime.direct_call), not through the dispatcher's Python layers, with the same checks,
  results and version-counter bumps; under torch.compile or torch.export, a dispatch mode (fake
  tensors, functionalization), a torch function mode, a functorch transform, the JIT tracer,
  forward-mode AD or the profiler, and for meta tensors and tensor subclasses, the module calls
  the op. Calling model.op directly always goes through the dispatcher.
"""
import ctypes
import inspect
import os
import re

import torch

from . import _runtime, _torch_ops

__all__ = ["load", "CompiledModel", "ArgSpec"]

#===------------------------------------------------------------------------------------------===#
# The descriptor (include/emb/model.h)
#===------------------------------------------------------------------------------------------===#

SHARED_MODEL_VERSION = 1  # EMB_SHARED_MODEL_VERSION: the newest layout this loader reads
ABI_VERSION = 4  # EMB_ABI_VERSION (emb/compiled.h): the compiled ABI these structs describe
MAX_RANK = 8  # EMB_MODEL_MAX_RANK, EMBRT_MAX_RANK
ROLES = ("data", "ids", "offsets", "index", "lengths", "weights", "packed_table",
         "row_offsets")  # EmbArgRole
# embrtDtype -> the torch dtype of a result, and the dtypes an input takes (i8 holds booleans too).
_RESULT_DTYPES = {0: torch.float32, 1: torch.float16, 2: torch.bfloat16, 3: torch.int32,
                  4: torch.int64, 5: torch.float64, 6: torch.int8}
_INPUT_DTYPES = {k: (v,) for k, v in _RESULT_DTYPES.items()}
_INPUT_DTYPES[6] = (torch.int8, torch.uint8, torch.bool)  # i8: also packed table rows
_DTYPE_NAMES = ("f32", "f16", "bf16", "i32", "i64", "f64", "i8")
_COPY_DEVICE_TO_DEVICE = 2  # EMBRT_COPY_DEVICE_TO_DEVICE
_PLAIN_TYPES = frozenset(_runtime.PLAIN)
OP_NAMESPACE = "emb_model"  # torch.ops.emb_model.<name>: one op per loaded entry


from ._abi import ArgSpecStruct as _ArgSpec  # noqa: E402
from ._abi import CompiledResultStruct as _CompiledResult  # noqa: E402
from ._abi import ModelSpecStruct as _ModelSpec  # noqa: E402,F401
from ._abi import SharedModelStruct as _SharedModel  # noqa: E402

# EmbPackedFn: args[0] points to the context pointer, args[1 + i] to argument i's descriptor pointer.
_PackedFn = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p))

_memref_types = {}
# forward's direct path declined the inputs (CompiledModel._run_fast).
_NOT_FAST = object()


def _memref_type(rank):
    """The memref descriptor of `rank` dims: {allocated, aligned, offset, sizes[rank], strides[rank]}."""
    t = _memref_types.get(rank)
    if t is None:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
        t = type("Memref%d" % rank, (ctypes.Structure,), {"_fields_": fields})
        _memref_types[rank] = t
    return t


class _Lazy:
    """A message part built only when a message is (the checks of every call pass it)."""

    def __init__(self, make):
        self._make = make

    def __str__(self):
        return self._make()


def _set_extents(d, shape):
    """Sizes and row-major strides of a memref descriptor."""
    stride = 1
    for k in reversed(range(len(shape))):
        d.sizes[k] = shape[k]
        d.strides[k] = stride
        stride *= shape[k]


class ArgSpec:
    """An input or result of an entry, as its descriptor gives it."""

    def __init__(self, kind, index, spec):
        if not 0 <= spec.dtype < len(_DTYPE_NAMES):
            raise ValueError("%s #%d has dtype code %d, which is not an embrtDtype"
                             % (kind, index, spec.dtype))
        if not 0 <= spec.rank <= MAX_RANK:
            raise ValueError("%s #%d has rank %d, outside 0..%d" % (kind, index, spec.rank, MAX_RANK))
        self.kind, self.index = kind, index
        self.dtype_code = spec.dtype
        self.dtype = _RESULT_DTYPES[spec.dtype]
        self.rank = spec.rank
        self.shape = tuple(None if spec.dims[d] < 0 else int(spec.dims[d]) for d in range(spec.rank))
        self.role = ROLES[spec.role] if 0 <= spec.role < len(ROLES) else "data"
        self.updated = bool(spec.updated)
        self.dynamic = any(d is None for d in self.shape)

    def type_text(self):
        return "tensor<%s>" % "x".join(["?" if d is None else str(d) for d in self.shape]
                                        + [_DTYPE_NAMES[self.dtype_code]])

    def __repr__(self):
        return "%s #%d: %s %s%s" % (self.kind, self.index, self.type_text(), self.role,
                                    ", updated in place" if self.updated else "")


#===------------------------------------------------------------------------------------------===#
# The runtime functions the loader calls itself
#===------------------------------------------------------------------------------------------===#

_functions = {}


def _runtime_functions(lib):
    """Function pointers of their own (lib[name] makes a new one), so that setting their argtypes
    here leaves the ones other modules use alone."""
    fns = _functions.get(id(lib))
    if fns is None:
        p, i64 = ctypes.c_void_p, ctypes.c_int64
        status = lib["embrtContextGetStatus"]
        status.argtypes, status.restype = [p], ctypes.c_int
        copy = lib["embrtCompiledCopy"]
        copy.argtypes, copy.restype = [p, i64, p, p, i64], None
        free = lib["embrtCompiledFree"]
        free.argtypes, free.restype = [p, p], None
        fns = _functions[id(lib)] = (status, copy, free)
    return fns


#===------------------------------------------------------------------------------------------===#
# Loading
#===------------------------------------------------------------------------------------------===#


def _read_descriptor(lib, path, prefix):
    name = prefix + "models"
    try:
        version = ctypes.c_uint32.in_dll(lib, name).value
    except ValueError:
        raise ValueError("emb_torch.load: '%s' has no symbol '%s': it is not a model of "
                         "emb-compile --shared, or was compiled with another --symbol-prefix "
                         "(pass prefix=)" % (path, name)) from None
    if version > SHARED_MODEL_VERSION:
        raise ValueError("emb_torch.load: '%s' describes itself in version %d of the descriptor, "
                         "newer than this loader's %d: load it with the emb it was compiled with, "
                         "or compile it again with this one" % (path, version, SHARED_MODEL_VERSION))
    model = _SharedModel.in_dll(lib, name)
    if version < 1 or model.size < ctypes.sizeof(_SharedModel):
        raise ValueError("emb_torch.load: '%s': the descriptor is malformed: version %d of %d bytes "
                         "(version 1 has %d)" % (path, version, model.size,
                                                 ctypes.sizeof(_SharedModel)))
    if model.numEntries < 1 or not model.entries:
        raise ValueError("emb_torch.load: '%s': the descriptor is malformed: it lists no entries"
                         % path)
    return model


def _entry_specs(model, path):
    """{name: _ModelSpec} of every entry, each checked."""
    entries = {}
    for i in range(model.numEntries):
        ptr = model.entries[i]
        spec = ptr.contents if ptr else None
        bad = None
        if spec is None:
            bad = "it is null"
        elif not spec.name or not spec.target or not spec.invoke:
            bad = "its name, target or invoke is null"
        elif spec.target not in (b"cpu", b"cuda"):
            bad = "its target is neither cpu nor cuda"
        elif spec.numInputs < 0 or spec.numResults < 0:
            bad = "its argument counts are negative"
        elif (spec.numInputs and not spec.inputs) or (spec.numResults and not spec.results):
            bad = "its argument list is null"
        if bad:
            raise ValueError("emb_torch.load: '%s': entry #%d of the descriptor is malformed: %s"
                             % (path, i, bad))
        entries[spec.name.decode()] = spec
    return entries


_ABI_SYMBOL = "undefined symbol: embrtCompiledAbi"


def _runtime_abi_version(rt):
    """The compiled ABI version the runtime (libembrt.so) implements, checked against this
    package's."""
    try:
        version_fn = rt.lib["embrtCompiledAbiVersion"]
    except AttributeError:
        raise RuntimeError("emb_torch.load: the runtime (libembrt.so) has no "
                           "embrtCompiledAbiVersion: it is older than this package, which "
                           "needs compiled ABI version %d" % ABI_VERSION) from None
    version_fn.argtypes, version_fn.restype = [], ctypes.c_int32
    version = version_fn()
    if version != ABI_VERSION:
        raise RuntimeError("emb_torch.load: the runtime (libembrt.so) implements version %d of the "
                           "compiled ABI, but this package reads version %d: use the emb_torch of "
                           "the same emb" % (version, ABI_VERSION))
    return version


def _load_error(rt, path, error):
    """Why the shared object did not load, in words: one compiled for another compiled ABI version
    needs an embrtCompiledAbi<N> the runtime lacks, which the dynamic loader reports as an
    undefined symbol."""
    text = str(error)
    at = text.find(_ABI_SYMBOL)
    digits = ""
    if at >= 0:
        for c in text[at + len(_ABI_SYMBOL):]:
            if not c.isdigit():
                break
            digits += c
    if digits:
        return OSError("emb_torch.load: cannot load '%s': it was compiled for version %s of the "
                       "compiled ABI, but this runtime implements version %d (it has no "
                       "embrtCompiledAbi%s): load it with the emb it was compiled with, or compile "
                       "it again with this one" % (path, digits, _runtime_abi_version(rt), digits))
    return OSError("emb_torch.load: cannot load '%s': %s" % (path, text))


def _check_abi_version(rt, lib, path, prefix):
    """The compiled ABI version the object records (`<prefix>abi_version`) against the runtime's
    and this package's: an object whose code reached another runtime (a copy linked into it), or
    one of an emb-compile that recorded none, is refused before its descriptor's entries are read."""
    runtime_version = _runtime_abi_version(rt)
    name = prefix + "abi_version"
    try:
        recorded = ctypes.c_uint32.in_dll(lib, name).value
    except ValueError:
        raise ValueError("emb_torch.load: '%s' records no compiled ABI version (no symbol '%s'; "
                         "this runtime implements version %d): it was compiled by an emb-compile "
                         "older than the check, compile it again with this one"
                         % (path, name, runtime_version)) from None
    if recorded != runtime_version:
        raise ValueError("emb_torch.load: '%s' was compiled for version %d of the compiled ABI, "
                         "but this runtime implements version %d: load it with the emb it was "
                         "compiled with, or compile it again with this one"
                         % (path, recorded, runtime_version))


def load(path, device=None, entry=None, prefix="emb_", op_name=None):
    """The entry `entry` (default: the first) of the shared object `path` (emb-compile --shared) as
    a torch.nn.Module whose forward calls the op torch.ops.emb_model.<op_name>, registered here.
    `device` (a torch.device or string) pins the device its inputs must be on; by default the
    inputs' own device, of the model's target type. `prefix` is the --symbol-prefix it was
    compiled with. `op_name` names the op; by default the entry's name, or <entry>_2, _3, ... when
    a model loaded earlier in the process has taken it."""
    rt = _runtime.runtime()  # first: the model's libembrt.so dependency resolves to this one
    path = os.fspath(path)
    if op_name is not None and not _valid_op_name(op_name):
        raise ValueError("emb_torch.load: op_name must be a Python identifier (letters, digits "
                         "and _, not starting with a digit), got %r" % (op_name,))
    try:
        lib = ctypes.CDLL(os.path.abspath(path), mode=os.RTLD_NOW | os.RTLD_LOCAL)
    except OSError as e:
        raise _load_error(rt, path, e) from None
    model = _read_descriptor(lib, path, prefix)
    _check_abi_version(rt, lib, path, prefix)
    entries = _entry_specs(model, path)
    names = [model.entries[i].contents.name.decode() for i in range(model.numEntries)]
    if entry is None:
        entry = names[0]
    if entry not in entries:
        raise ValueError("emb_torch.load: '%s' has no entry '%s' (it has %s)"
                         % (path, entry, ", ".join(names)))
    return CompiledModel(rt, lib, entries[entry], path, names, device, op_name)


#===------------------------------------------------------------------------------------------===#
# The op of a loaded entry
#===------------------------------------------------------------------------------------------===#

# The op names this process has registered in OP_NAMESPACE. An op stays registered for the life of
# the process (a compiled or exported graph that calls it keeps the model loaded), and registering
# a name again would replace the kernel of the model that holds it: a later load takes a new name.
_op_names = set()


def _valid_op_name(name):
    return isinstance(name, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) is not None


def _op_registered(name):
    """Whether torch.ops.emb_model.<name> exists (registered by anyone, this module included)."""
    if name in _op_names:
        return True
    try:
        getattr(getattr(torch.ops, OP_NAMESPACE), name)
    except (AttributeError, RuntimeError):
        return False
    return True


def _free_op_name(entry, requested, path):
    """The op name of a loaded entry: `requested` if free (else ValueError), or the entry's name
    made an identifier, with _2, _3, ... appended while one is taken."""
    if requested is not None:
        if _op_registered(requested):
            raise ValueError("emb_torch.load: '%s': op_name '%s' is taken: %s::%s is registered "
                             "already (by an earlier load); pass another op_name"
                             % (path, requested, OP_NAMESPACE, requested))
        return requested
    base = re.sub(r"[^A-Za-z0-9_]", "_", entry)
    if not base or base[0].isdigit():
        base = "_" + base
    name, k = base, 1
    while _op_registered(name):
        k += 1
        name = "%s_%d" % (base, k)
    return name


# The most arguments a schema may have (c10's limit): an entry with more inputs takes them as
# tensor lists (_op_schema).
MAX_OP_ARGS = 64


def _op_schema(inputs, results):
    """The op's schema from the descriptor: one Tensor per input (input<i>), those the model
    updates in place as mutated (alias set a<i>, as torch.library's infer_schema writes them),
    the results as one Tensor or a tuple. An entry of more than MAX_OP_ARGS inputs (a whole
    ranking model's tables) takes two lists instead: `Tensor[] inputs`, the inputs it reads, and
    `Tensor(a!)[] updated`, those it updates in place (when it has any), each in input order.
    Returns (schema, mutated argument names, argument names)."""
    returns = "Tensor" if len(results) == 1 else "(%s)" % ", ".join(["Tensor"] * len(results))
    if len(inputs) > MAX_OP_ARGS:
        args, names = ["Tensor[] inputs"], ["inputs"]
        if any(a.updated for a in inputs):
            args.append("Tensor(a!)[] updated")
            names.append("updated")
        return "(%s) -> %s" % (", ".join(args), returns), tuple(names[1:]), names
    args, mutated = [], []
    for a in inputs:
        name = "input%d" % a.index
        if a.updated:
            args.append("Tensor(a%d!) %s" % (a.index, name))
            mutated.append(name)
        else:
            args.append("Tensor " + name)
    names = ["input%d" % a.index for a in inputs]
    return "(%s) -> %s" % (", ".join(args), returns), tuple(mutated), names


def _with_signature(fn, names, name):
    """`fn(*inputs)` as a function `name` with the signature (input0, input1, ...) of the op's
    schema, as torch.library reads it."""
    def call(*inputs):
        return fn(*inputs)
    call.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
    call.__name__ = call.__qualname__ = name
    return call


#===------------------------------------------------------------------------------------------===#
# The module
#===------------------------------------------------------------------------------------------===#


class CompiledModel(torch.nn.Module):
    """An entry of a shared object of emb-compile --shared; see the module's documentation."""

    def __init__(self, rt, lib, spec, path, entries, device=None, op_name=None):
        super().__init__()
        self._rt, self._lib, self._spec = rt, lib, spec  # lib: keeps the object loaded
        self.path, self.entries = path, entries
        self.name = spec.name.decode()
        self.target = spec.target.decode()
        try:
            self.inputs = [ArgSpec("input", i, spec.inputs[i]) for i in range(spec.numInputs)]
            self.results = [ArgSpec("result", i, spec.results[i]) for i in range(spec.numResults)]
        except ValueError as e:
            raise ValueError("emb_torch.load: '%s': entry @%s of the descriptor is malformed: %s"
                             % (path, self.name, e)) from None
        self.device = torch.device(device) if device is not None else None
        if self.device is not None and self.device.type != self.target:
            raise ValueError("emb_torch.load: @%s was compiled for target %s; device %s is not one"
                             % (self.name, self.target, self.device))
        self._invoke = _PackedFn(spec.invoke)
        self._status, self._copy, self._free = _runtime_functions(rt.lib)
        self._dynamic = any(r.dynamic for r in self.results)
        self._warm = set()  # the CUDA streams this model has run on: a call there can be captured
        self._prepare()
        self._register(_free_op_name(self.name, op_name, path))

    def _register(self, name):
        """Registers the entry as the op emb_model::<name> (torch.library.custom_op): its schema
        from the descriptor, the ctypes call as its kernel, and a fake kernel that checks the
        inputs' metadata and gives the results' shapes, so that torch.compile traces it without a
        graph break and torch.export records it by name."""
        schema, mutated, names = _op_schema(self.inputs, self.results)
        self.op_name = "%s::%s" % (OP_NAMESPACE, name)
        self.schema = self.op_name + schema
        self._lists = len(self.inputs) > MAX_OP_ARGS
        self._updated = [i for i, a in enumerate(self.inputs) if a.updated]
        run, fake = self._run, self._fake
        if self._lists:  # the lists back into input order
            run = lambda *lists: self._run(*self._unpack(lists))  # noqa: E731
            fake = lambda *lists: self._fake(*self._unpack(lists))  # noqa: E731
        opdef = torch.library.custom_op(self.op_name, mutates_args=mutated, schema=schema)(
            _with_signature(run, names, name))
        opdef.register_fake(_with_signature(fake, names, name))
        _op_names.add(name)
        try:
            self.op = getattr(getattr(torch.ops, OP_NAMESPACE), name).default
        except (AttributeError, RuntimeError):
            self.op = opdef  # a torch.library without the dispatcher's op (the 1.13 stand-in)

    def _prepare(self):
        """What every call reuses: per input its accepted dtypes, rank and static shape (a call
        compares them at once and builds a message only when one differs), one memref
        descriptor per input and static result (sizes and strides written once where static),
        all in one buffer of 64-bit words (`_words`), and the packed argument arrays pointing at
        them. A call writes only data pointers and dynamic extents, so a module runs one call at
        a time (as a CUDA graph replays one). `_fast`: per input what forward's direct path
        compares (its static shape, None for a dynamic one) and where its pointers go."""
        n, m = len(self.inputs), len(self.results)
        self._expect = [(_INPUT_DTYPES[a.dtype_code], a.rank, a.shape, a.dynamic, a.updated)
                        for a in self.inputs]
        self._dynamic_inputs = [i for i, a in enumerate(self.inputs) if a.dynamic]
        self._ptrs = (ctypes.c_void_p * (1 + n + m))()
        self._slots = (ctypes.c_void_p * (1 + n + m))()
        for k in range(1 + n + m):
            self._slots[k] = ctypes.addressof(self._ptrs) + k * ctypes.sizeof(ctypes.c_void_p)
        args = self.inputs + self.results
        has = [not (a.kind == "result" and a.dynamic) for a in args]
        at, total = [], 0  # each descriptor's first word: allocated, then aligned
        for a, h in zip(args, has):
            at.append(total)
            total += 3 + 2 * a.rank if h else 0
        self._buffer = (ctypes.c_uint64 * max(total, 1))()
        self._words = memoryview(self._buffer).cast("B").cast("Q")
        self._descs = []
        for k, (a, h) in enumerate(zip(args, has)):
            d = _memref_type(a.rank).from_buffer(self._buffer, 8 * at[k]) if h else None
            if d is not None and not a.dynamic:
                _set_extents(d, a.shape)
            if d is not None:
                self._ptrs[1 + k] = ctypes.addressof(d)
            self._descs.append(d)
        self._fast = [(_INPUT_DTYPES[a.dtype_code], None if a.dynamic else tuple(a.shape), at[i])
                      for i, a in enumerate(self.inputs)]
        # The same checks and writes in C++ (libemb_torch_ops.so, emb_torch::write_inputs),
        # from a plan of int64 words: the inputs' count and the descriptors' address, then per
        # input its dtype mask, rank, first word and static shape (-1 dynamic).
        self._write_inputs = _torch_ops.write_inputs()
        self._plan = None
        if self._write_inputs is not None:
            plan = [n, ctypes.addressof(self._buffer)]
            for i, a in enumerate(self.inputs):
                mask = 0
                for dtype in _INPUT_DTYPES[a.dtype_code]:
                    mask |= 1 << _torch_ops.scalar_type_index(dtype)
                plan += [mask, a.rank, at[i]] + [-1 if d is None else d for d in a.shape]
            self._plan = (ctypes.c_int64 * len(plan))(*plan)
            self._plan_address = ctypes.addressof(self._plan)

    def extra_repr(self):
        return "@%s from '%s' as %s, target %s, %d inputs, %d results" % (
            self.name, self.path, self.op_name, self.target, len(self.inputs), len(self.results))

    def _check(self, i, x, device):
        spec = self.inputs[i]
        what = _Lazy(lambda: "emb model @%s: input #%d (%s)" % (self.name, i, spec.type_text()))
        if not isinstance(x, torch.Tensor):
            raise TypeError("%s must be a torch.Tensor, got %s" % (what, type(x).__name__))
        if x.dtype not in _INPUT_DTYPES[spec.dtype_code]:
            raise TypeError("%s must be %s, got %s" % (
                what, " or ".join(str(d) for d in _INPUT_DTYPES[spec.dtype_code]), x.dtype))
        if x.device.type != self.target:
            raise ValueError("%s must be on a %s device (the model's target), got %s"
                             % (what, self.target, x.device))
        if x.device != device:
            raise ValueError("%s must be on %s, where %s, got %s" % (
                what, device, "the module is pinned" if self.device is not None
                else "input #0 is", x.device))
        if x.dim() != spec.rank:
            raise ValueError("%s must have %d dims, got %d (shape %s)"
                             % (what, spec.rank, x.dim(), list(x.shape)))
        for d, want in enumerate(spec.shape):
            if want is not None and x.shape[d] != want:
                raise ValueError("%s must have %d in dim %d, got shape %s"
                                 % (what, want, d, list(x.shape)))
        if spec.updated and not x.is_contiguous():
            raise ValueError("%s must be contiguous: the model updates it in place" % what)

    def _data(self, x, keep, kind, index):
        """The address of the contiguous tensor `x`'s first element (a scratch element for an
        empty tensor without memory: the runtime refuses null buffers). A tensor with elements
        but no memory (meta, or fake outside the dispatcher) is refused: the entry would read
        or write through a null pointer."""
        ptr = x.data_ptr()
        if not ptr and x.numel():
            raise ValueError("emb model @%s: %s #%d has no memory (a meta or fake tensor): the "
                             "model reads and writes tensors' data" % (self.name, kind, index))
        if not ptr:
            scratch = torch.empty(1, dtype=x.dtype, device=x.device)
            keep.append(scratch)
            ptr = scratch.data_ptr()
        return ptr

    def forward(self, *inputs):
        """Calls the op with the inputs; the results (a tensor, or a tuple of them) carry no
        autograd history. An eager call of plain tensors that nothing traces, transforms or
        records runs the op's kernel without the dispatcher (_runtime.direct_call): the same
        checks, call and version-counter bumps, for a fraction of the host time."""
        n = len(self.inputs)
        if len(inputs) != n:
            raise TypeError("emb model @%s takes %d inputs, got %d" % (self.name, n, len(inputs)))
        if _runtime.direct_mode():
            out = self._run_native(inputs) if self._plan is not None else _NOT_FAST
            if out is _NOT_FAST:
                out = self._run_fast(inputs)
            if out is not _NOT_FAST:
                if self._updated:
                    _runtime.increment_version([inputs[i] for i in self._updated])
                return () if out is None else out
        args = []
        for i, x in enumerate(inputs):
            if not isinstance(x, torch.Tensor):
                self._check(i, x, None)  # raises, naming the input
            args.append(x.detach() if x.requires_grad else x)
        if _runtime.direct_call(args):
            out = self._run(*args)
            if self._updated:  # what the op's mutable arguments get from the dispatcher
                _runtime.increment_version([args[i] for i in self._updated])
        else:
            out = self.op(*self._pack(args))
        return () if out is None else out

    def _pack(self, inputs):
        """The op's arguments for the inputs in order: themselves, or (for an entry of more than
        MAX_OP_ARGS inputs) the list of those it reads and the list of those it updates."""
        if not self._lists:
            return inputs
        read = [x for x, a in zip(inputs, self.inputs) if not a.updated]
        updated = [x for x, a in zip(inputs, self.inputs) if a.updated]
        return (read, updated) if len(self.inputs) > len(read) else (read,)

    def _unpack(self, lists):
        """The inputs in order from the op's lists (_pack's inverse); a list of the wrong length
        is a TypeError naming the counts."""
        read, updated = list(lists[0]), list(lists[1]) if len(lists) > 1 else []
        want = sum(1 for a in self.inputs if a.updated)
        if len(read) != len(self.inputs) - want or len(updated) != want:
            raise TypeError("emb model @%s takes %d inputs it reads and %d it updates, got lists "
                            "of %d and %d" % (self.name, len(self.inputs) - want, want, len(read),
                                              len(updated)))
        read.reverse()
        updated.reverse()
        return [updated.pop() if a.updated else read.pop() for a in self.inputs]

    def _device(self, inputs):
        """The device of a call: the pinned one, else input #0's, with its CUDA index."""
        device = self.device
        if device is None:
            device = inputs[0].device if inputs else torch.device(self.target)
        if device.type == "cuda" and device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
        return device

    @staticmethod
    def _results(outs):
        """The op's return: one tensor, a tuple of them, or None (no results)."""
        if len(outs) == 1:
            return outs[0]
        return tuple(outs) if outs else None

    def _fake(self, *inputs):
        """The op's fake kernel: the checks of `_check` (metadata only), then empty results of
        the descriptor's dtypes and shapes on the call's device; a dynamic dim is a new size
        (torch.library.get_ctx().new_dynamic_size()), since only the call knows it."""
        device = self._device(inputs)
        for i, x in enumerate(inputs):
            self._check(i, x, device)
        outs, ctx = [], None
        for r in self.results:
            shape = r.shape
            if r.dynamic:
                ctx = ctx or torch.library.get_ctx()
                shape = tuple(ctx.new_dynamic_size() if d is None else d for d in r.shape)
            outs.append(torch.empty(shape, dtype=r.dtype, device=device))
        return self._results(outs)

    def _run_native(self, inputs):
        """forward's direct path with the C++ ops: _run_fast's checks and writes in
        emb_torch::write_inputs, whose inputs must be plain tensors (checked here first: a
        subclass goes through the op); _NOT_FAST as _run_fast's."""
        if not all(map(_PLAIN_TYPES.__contains__, map(type, inputs))):
            return _NOT_FAST
        device = self._device(inputs)
        if device.type != self.target:
            return _NOT_FAST
        index = device.index if device.type == "cuda" else -1
        if not self._write_inputs(list(inputs), self._plan_address, index):
            return _NOT_FAST
        return self._call(inputs, device, [])

    def _run_fast(self, inputs):
        """forward's direct path: each input a plain, contiguous tensor with memory, of an
        accepted dtype and shape, on the call's device, checked and its pointers written in one
        pass (the dynamic ones' extents after); then the call as _run makes it. Any input
        otherwise gives _NOT_FAST before anything runs, and forward takes the general path,
        which checks again and names what differs (or runs the op's fake kernel for meta
        tensors)."""
        if inputs and type(inputs[0]) not in _runtime.PLAIN:
            return _NOT_FAST  # the general path names it
        device = self._device(inputs)
        if device.type != self.target:
            return _NOT_FAST
        words, plain = self._words, _runtime.PLAIN
        cpu, index = device.type == "cpu", device.index
        for x, (dtypes, shape, at) in zip(inputs, self._fast):
            if type(x) not in plain or x.dtype not in dtypes \
                    or not (x.is_cpu if cpu else x.is_cuda and x.get_device() == index) \
                    or (shape is not None and x.shape != shape) or not x.is_contiguous():
                return _NOT_FAST
            ptr = x.data_ptr()
            if not ptr:
                return _NOT_FAST
            words[at] = words[at + 1] = ptr
        for i in self._dynamic_inputs:
            x, spec = inputs[i], self.inputs[i]
            if x.dim() != spec.rank or any(w is not None and w != g
                                           for w, g in zip(spec.shape, x.shape)):
                return _NOT_FAST
            _set_extents(self._descs[i], x.shape)
        return self._call(inputs, device, [])

    def _run(self, *inputs):
        """The op's kernel: checks the inputs, calls the entry through ctypes on the current
        stream, and returns its results."""
        device = self._device(inputs)
        if device.type != self.target:  # input #0's device: the first input names it
            self._check(0, inputs[0], device)
        cuda = device.type == "cuda"
        index = device.index if cuda else -1
        expect = self._expect
        for i, x in enumerate(inputs):
            dtypes, rank, shape, dynamic, _ = expect[i]
            # The device as is_cuda/get_device (is_cpu): cheaper than comparing torch.devices.
            if x.dtype not in dtypes or x.dim() != rank \
                    or ((not x.is_cuda or x.get_device() != index) if cuda else not x.is_cpu) \
                    or dynamic or x.shape != shape:
                self._check(i, x, device)  # raises, naming what differs; checks dynamic dims
        descs = self._descs
        keep = []  # what the call reads: tensors made here
        with torch.no_grad():
            for i, x in enumerate(inputs):
                if not x.is_contiguous():
                    if expect[i][4]:
                        self._check(i, x, device)  # raises: updated in place needs contiguous
                    x = x.contiguous()  # a copy: the entry reads dense row-major buffers
                    keep.append(x)
                d = descs[i]
                ptr = x.data_ptr()
                d.allocated = d.aligned = ptr if ptr else self._data(x, keep, "input", i)
        for i in self._dynamic_inputs:
            _set_extents(descs[i], inputs[i].shape)
        return self._call(inputs, device, keep)

    @_runtime.keeps_device
    def _call(self, inputs, device, keep):
        """The call once the inputs' descriptors hold their pointers and extents (`keep`: the
        tensors made for them, alive until the call returns): the capture checks, the results,
        the entry on the current stream, its status and device errors."""
        n = len(self.inputs)
        cuda = device.type == "cuda"
        stream = torch.cuda.current_stream(device) if cuda else None
        warm_key = (device.index, stream.cuda_stream) if cuda else None
        if cuda and torch.cuda.is_current_stream_capturing():
            if self._dynamic:
                raise RuntimeError(
                    "emb model @%s cannot be captured into a CUDA graph: a result of dynamic "
                    "shape is allocated by the call" % self.name)
            if warm_key not in self._warm:
                raise RuntimeError(
                    "emb model @%s has not run on this stream yet: call it once on the stream "
                    "you capture on before capturing (a warm-up uploads its constants and loads "
                    "its kernels), e.g. torch.cuda.graph(g, stream=s) after a call under "
                    "torch.cuda.stream(s)" % self.name)
        rt = self._rt
        descs, ptrs = self._descs, self._ptrs
        ctx = rt.context(device)
        ptrs[0] = ctx.value if isinstance(ctx, ctypes.c_void_p) else ctx
        outs, records = [], {}
        for j, r in enumerate(self.results):
            if r.dynamic:
                rec = _CompiledResult()
                records[j] = rec
                outs.append(None)
                ptrs[1 + n + j] = ctypes.addressof(rec)
            else:
                out = torch.empty(r.shape, dtype=r.dtype, device=device)
                outs.append(out)
                d = descs[n + j]
                d.allocated = d.aligned = self._data(out, keep, "result", j)
        if cuda:
            with torch.cuda.device(device):
                self._invoke(self._slots)
        else:
            self._invoke(self._slots)
        status = self._status(ctx)
        if status == 0:
            for j, rec in records.items():
                outs[j] = self._take(ctx, j, rec, device)
            status = self._status(ctx)
        if status != 0:
            for rec in records.values():
                if rec.data:
                    self._free(ctx, rec.data)
                    rec.data = None
            rt.check(ctx, status, "emb model @%s" % self.name)
        rt.poll(ctx, "emb model @%s" % self.name)
        if cuda and not torch.cuda.is_current_stream_capturing():
            self._warm.add(warm_key)
        return self._results(outs)

    def _take(self, ctx, j, rec, device):
        """A result of dynamic shape: a torch tensor of the shape the call set, copied from the
        runtime's buffer, which is then freed (both on the context's stream)."""
        spec = self.results[j]
        rank = rec.rank
        dims = tuple(int(rec.dims[d]) for d in range(rank)) if 0 <= rank <= MAX_RANK else ()
        if rank != spec.rank or any(w is not None and w != g for w, g in zip(spec.shape, dims)):
            if rec.data:
                self._free(ctx, rec.data)
                rec.data = None
            raise RuntimeError("emb model @%s: result #%d (%s): the call reported shape %s"
                               % (self.name, j, spec.type_text(), list(dims)))
        out = torch.empty(dims, dtype=spec.dtype, device=device)
        nbytes = out.numel() * out.element_size()
        if nbytes and rec.data:
            self._copy(ctx, _COPY_DEVICE_TO_DEVICE, out.data_ptr(), rec.data, nbytes)
        if rec.data:
            self._free(ctx, rec.data)
            rec.data = None
        return out

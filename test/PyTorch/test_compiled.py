"""Tests emb_torch.load (python/emb_torch/compiled.py) on models of emb-compile --shared, against
references computed here in torch (f64). Plain python, no pytest; compiles nothing itself.

The models are test/PyTorch/Inputs/compiled_models.mlir, compiled by make_compiled_models.sh on a
machine with MLIR into a folder (`<entry>_<target>.so`, and bad_descriptors.so):

    test/PyTorch/make_compiled_models.sh out/compiled
    python3 test/PyTorch/test_compiled.py --models out/compiled --device cuda --lib build/lib/libembrt.so

Checks, on fresh random inputs per case:
- the op each load registers (emb_model::<entry>): its schema from the descriptor (the tables of
  @sgd_step mutated, nothing of @dense_tower), the op called directly gives the module's numbers,
  a second load of the same file gets emb_model::<entry>_2 and both work, op_name= names it (a
  taken or malformed one is refused); the profiler shows the op by name;
- PyTorch 2.4+ only (reported as not run, a failure, on an older one): the fake kernel under
  FakeTensorMode gives eager's shapes and dtypes (a new dynamic size for @sequence's rows) and
  refuses what the kernel refuses; torch.compile(fullgraph=True) of small modules around
  @dense_tower and @sgd_step (no graph break, the op in the graph, eager's numbers and in-place
  updates) and around @sequence (a result of dynamic shape); torch.export (the op in the graph,
  eager's numbers on new inputs); torch.library.opcheck of the ops;
- @dense_tower (a weighted TBE lookup, then relu(concat(pooled, dense) @ w)): both results, with empty bags,
  with no ids at all, with a non-contiguous input (made contiguous by the loader), on a side stream;
- @sgd_step: the tables are updated in place in the caller's tensors (SGD on the rows the bags
  touched), the pooled forward is returned; a non-contiguous table is refused;
- @sequence: a result of dynamic shape (one row per id) comes back as a torch tensor;
- errors: the wrong number of inputs, a wrong dtype (TypeError), rank, static dim or device
  (ValueError), each naming the input and what it takes; dynamic extents that disagree (weights
  and ids: RuntimeError from the runtime's status, and the next call works); a model for the other
  target;
  loading: a missing file, another symbol prefix, an unknown entry, a descriptor of a newer version;
  the compiled ABI version: an object of the next one (dlopen fails on its embrtCompiledAbi<N>),
  one that records another version or none;
- on CUDA: a call captured with torch.cuda.graph after a warm-up on the capture stream replays bit
  for bit like an eager call on new inputs written into the captured ones; capturing on a stream the
  model has not run on, or a model with a dynamic result, raises RuntimeError.
Exit status 0 when every check passed; one line per failure; the last line says how many passed
and failed.
"""
import os
import sys
import traceback

import torch

import harness  # noqa: E402  (test/PyTorch/harness.py)
from harness import check  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from emb_torch import _runtime  # noqa: E402
from emb_torch.compiled import ABI_VERSION, OP_NAMESPACE, load  # noqa: E402


B, F, D = 4, 2, 16            # the models' batch, features and embedding dim
ROWS = (50, 30)               # the rows of their two tables
TOL = {torch.float32: 1e-5}   # rtol and atol (times the reference's largest magnitude, at least 1)


def close(got, ref, what):
    """got (any float dtype, any device) against the f64 reference `ref` on the CPU."""
    tol = TOL[got.dtype]
    got = got.detach().double().cpu()
    scale = max(1.0, ref.abs().max().item()) if ref.numel() else 1.0
    ok = got.shape == ref.shape and bool(torch.all((got - ref).abs() <= tol * ref.abs() + tol * scale))
    if not ok and got.shape == ref.shape and ref.numel():
        what += ": max abs diff %.3g" % (got - ref).abs().max().item()
    elif not ok:
        what += ": shape %s, expected %s" % (list(got.shape), list(ref.shape))
    check(ok, what)


def expect(exc, words, fn, what):
    """fn() raises `exc` with every string of `words` in its message."""
    try:
        fn()
    except exc as e:
        missing = [w for w in words if w not in str(e)]
        check(not missing, "%s: the message lacks %s: %s" % (what, missing, e))
        return
    except Exception as e:  # noqa: BLE001 - a wrong exception type is a failure to report
        check(False, "%s: raised %s, not %s: %s" % (what, type(e).__name__, exc.__name__, e))
        return
    check(False, "%s: raised nothing" % what)


#===------------------------------------------------------------------------------------------===#
# Inputs and references
#===------------------------------------------------------------------------------------------===#


def bags(gen, device, max_bag=3, empty=False):
    """Ids and offsets of F * B bags (feature-major, some empty), ids below each feature's rows."""
    lengths = torch.zeros(F * B, dtype=torch.int64) if empty else \
        torch.randint(0, max_bag + 1, (F * B,), generator=gen)
    ids = [torch.randint(0, ROWS[g // B], (int(n),), generator=gen) for g, n in enumerate(lengths)]
    ids = torch.cat(ids)
    offsets = torch.zeros(F * B + 1, dtype=torch.int64)
    offsets[1:] = torch.cumsum(lengths, 0)
    return ids.to(device), offsets.to(device)


def tables(gen, device):
    return [(torch.rand(r, D, generator=gen) * 2 - 1).to(device) for r in ROWS]


def pooled_reference(ids, offsets, ts, weights=None):
    """[B, F * D] in f64: the (weighted) sum of each bag's rows, feature f in columns f*D ..
    f*D + D - 1."""
    ids, offsets = ids.cpu(), offsets.cpu().tolist()
    wts = weights.double().cpu() if weights is not None else torch.ones(ids.numel(),
                                                                         dtype=torch.float64)
    out = torch.zeros(B, F * D, dtype=torch.float64)
    for f in range(F):
        t = ts[f].double().cpu()
        for b in range(B):
            lo, hi = offsets[f * B + b], offsets[f * B + b + 1]
            if hi > lo:
                out[b, f * D:(f + 1) * D] = (t[ids[lo:hi]] * wts[lo:hi, None]).sum(0)
    return out


def sgd_reference(ids, offsets, ts, grad, lr):
    """The tables after SGD (w -= lr * g, no weight decay) on the gradient of the sum pooling."""
    ids, offsets = ids.cpu(), offsets.cpu().tolist()
    new = [t.double().cpu().clone() for t in ts]
    g = grad.double().cpu()
    for f in range(F):
        for b in range(B):
            for k in range(offsets[f * B + b], offsets[f * B + b + 1]):
                new[f][ids[k]] -= lr * g[b, f * D:(f + 1) * D]
    return new


def dense_inputs(gen, device, empty=False):
    ids, offsets = bags(gen, device, empty=empty)
    weights = torch.rand(ids.numel(), generator=gen).to(device)
    t0, t1 = tables(gen, device)
    dense = (torch.rand(B, 32, generator=gen) * 2 - 1).to(device)
    w = ((torch.rand(64, 8, generator=gen) * 2 - 1) / 8).to(device)
    return [ids, offsets, weights, t0, t1, dense, w]


def dense_reference(ids, offsets, weights, t0, t1, dense, w):
    pooled = pooled_reference(ids, offsets, [t0, t1], weights)
    x = torch.cat([pooled, dense.double().cpu()], 1)
    return torch.relu(x @ w.double().cpu()), pooled


#===------------------------------------------------------------------------------------------===#
# Cases
#===------------------------------------------------------------------------------------------===#


def test_dense(path, device, gen):
    model = load(path)
    check(model.name == "dense_tower" and len(model.inputs) == 7 and len(model.results) == 2,
          "dense_tower: the descriptor's entry")
    check([a.shape for a in model.inputs] ==
          [(None,), (9,), (None,), (50, 16), (30, 16), (4, 32), (64, 8)],
          "dense_tower: the inputs' shapes, dynamic dims as None: %s" % model.inputs)
    for case in range(3):
        args = dense_inputs(gen, device)
        y, pooled = model(*args)
        ry, rp = dense_reference(*args)
        close(pooled, rp, "dense_tower #%d: pooled" % case)
        close(y, ry, "dense_tower #%d: relu(concat @ w)" % case)
        check(y.device == args[0].device and y.dtype == torch.float32,
              "dense_tower #%d: the result's device and dtype" % case)
    args = dense_inputs(gen, device, empty=True)
    check(args[0].numel() == 0, "dense_tower: no ids at all")
    y, pooled = model(*args)
    ry, rp = dense_reference(*args)
    close(pooled, rp, "dense_tower, every bag empty: pooled")
    close(y, ry, "dense_tower, every bag empty: result")
    # A non-contiguous input: the loader makes it contiguous.
    args = dense_inputs(gen, device)
    args[5] = args[5].t().contiguous().t()
    check(not args[5].is_contiguous(), "dense_tower: the input is not contiguous")
    y, _ = model(*args)
    close(y, dense_reference(*args)[0], "dense_tower, a transposed input")
    if device == "cuda":
        # On a side stream: the context of that stream, ordered with its work.
        s = torch.cuda.Stream()
        args = dense_inputs(gen, device)
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            y, _ = model(*args)
            y = y * 1  # torch's work on the same stream, after the model's
        torch.cuda.current_stream().wait_stream(s)
        close(y, dense_reference(*args)[0], "dense_tower on a side stream")
    return model


def test_errors(model, device, gen):
    args = dense_inputs(gen, device)
    expect(TypeError, ["takes 7 inputs, got 6"], lambda: model(*args[:6]), "too few inputs")
    bad = list(args)
    bad[3] = args[3].double()
    expect(TypeError, ["input #3 (tensor<50x16xf32>)", "torch.float32", "got torch.float64"],
           lambda: model(*bad), "a wrong dtype")
    bad = list(args)
    bad[1] = args[1].to(torch.int32)
    expect(TypeError, ["input #1 (tensor<9xi64>)", "torch.int64", "got torch.int32"],
           lambda: model(*bad), "an int32 offsets for i64")
    bad = list(args)
    bad[4] = args[4][:29]
    expect(ValueError, ["input #4 (tensor<30x16xf32>)", "must have 30 in dim 0", "[29, 16]"],
           lambda: model(*bad), "a wrong static dim")
    bad = list(args)
    bad[6] = args[6].reshape(-1)
    expect(ValueError, ["input #6 (tensor<64x8xf32>)", "must have 2 dims, got 1"],
           lambda: model(*bad), "a wrong rank")
    bad = list(args)
    bad[5] = [[0.0] * 32] * 4
    expect(TypeError, ["input #5", "must be a torch.Tensor, got list"], lambda: model(*bad),
           "a list for a tensor")
    other = "cpu" if device == "cuda" else "meta"
    bad = list(args)
    bad[0] = args[0].to(other)
    expect(ValueError, ["input #0"], lambda: model(*bad), "an input on another device")
    # What the runtime checks during the call, on the host: the dynamic extents that must agree.
    bad = list(args)
    bad[2] = torch.ones(args[0].numel() + 1, device=args[0].device)
    expect(RuntimeError, ["emb model @dense_tower", "per_sample_weights"], lambda: model(*bad),
           "weights of another length than the ids (the runtime's status)")
    y, _ = model(*args)
    close(y, dense_reference(*args)[0], "a call after an error")


def test_sgd(path, device, gen):
    model = load(path)
    check([a.updated for a in model.inputs] == [False, False, True, True, False, False],
          "sgd_step: the descriptor says the tables are updated in place: %s" % model.inputs)
    lr = 0.5
    for case in range(2):
        ids, offsets = bags(gen, device)
        t0, t1 = tables(gen, device)
        grad = (torch.rand(B, F * D, generator=gen) * 2 - 1).to(device)
        hyper = torch.tensor([lr, 0, 0, 0, 0], dtype=torch.float32, device=device)
        ref_pooled = pooled_reference(ids, offsets, [t0, t1])
        ref0, ref1 = sgd_reference(ids, offsets, [t0, t1], grad, lr)
        before = t0._version
        pooled = model(ids, offsets, t0, t1, grad, hyper)
        close(pooled, ref_pooled, "sgd_step #%d: the pooled forward" % case)
        close(t0, ref0, "sgd_step #%d: table 0 updated in the caller's tensor" % case)
        close(t1, ref1, "sgd_step #%d: table 1 updated in the caller's tensor" % case)
        check(t0._version > before, "sgd_step #%d: the table's version counter moved" % case)
    t0 = torch.zeros(D, ROWS[0], device=device).t()
    expect(ValueError, ["input #2", "must be contiguous: the model updates it in place"],
           lambda: model(ids, offsets, t0, t1, grad, hyper), "a non-contiguous table")


def test_sequence(path, device, gen):
    model = load(path)
    check(model.results[0].dynamic and model.results[0].shape == (None, 8),
          "sequence: a result of dynamic shape")
    for n in (7, 0, 33):
        w = torch.rand(100, 8, generator=gen).to(device)
        ids = torch.randint(0, 100, (n,), generator=gen).to(device)
        offsets = torch.tensor([0, n // 3, n // 3, n], dtype=torch.int64, device=device)
        rows = model(w, ids, offsets)
        check(rows.shape == (n, 8) and rows.device == w.device and
              torch.equal(rows.cpu(), w.cpu()[ids.cpu()]),
              "sequence with %d ids: the rows of w" % n)


def test_loading(models, device, other):
    expect(OSError, ["cannot load", "nope.so"], lambda: load(os.path.join(models, "nope.so")),
           "a missing file")
    path = os.path.join(models, "dense_tower_%s.so" % device)
    expect(ValueError, ["has no symbol 'mine_models'", "--symbol-prefix"],
           lambda: load(path, prefix="mine_"), "another symbol prefix")
    expect(ValueError, ["has no entry 'nope'", "dense_tower"], lambda: load(path, entry="nope"),
           "an unknown entry")
    bad = os.path.join(models, "bad_descriptors.so")
    expect(ValueError, ["version 2 of the descriptor, newer than this loader's 1"],
           lambda: load(bad, prefix="newer_"), "a descriptor of a newer version")
    expect(ValueError, ["entry #0 of the descriptor is malformed: it is null"],
           lambda: load(bad, prefix="null_"), "a null entry")
    expect(ValueError, ["rank 9"], lambda: load(bad, prefix="rank_"), "a rank above 8")
    nxt = ABI_VERSION + 1
    expect(OSError, ["compiled for version %d of the compiled ABI" % nxt,
                     "this runtime implements version %d" % ABI_VERSION,
                     "embrtCompiledAbi%d" % nxt],
           lambda: load(os.path.join(models, "next_abi.so")),
           "a shared object of the next compiled ABI version")
    expect(ValueError, ["compiled for version %d of the compiled ABI" % nxt,
                        "this runtime implements version %d" % ABI_VERSION],
           lambda: load(bad, prefix="abi2_"), "a record of another compiled ABI version")
    expect(ValueError, ["records no compiled ABI version", "noabi_abi_version"],
           lambda: load(bad, prefix="noabi_"), "no record of the compiled ABI version")
    expect(ValueError, ["compiled for target %s" % other],
           lambda: load(os.path.join(models, "dense_tower_%s.so" % other), device=device),
           "a model of the other target pinned to this device")
    m = load(os.path.join(models, "dense_tower_%s.so" % other))
    gen = torch.Generator().manual_seed(9)
    expect(ValueError, ["input #0", "must be on a %s device" % other],
           lambda: m(*dense_inputs(gen, device)), "inputs on a device of the other target")
    # An entry of static inputs only: its checks compare shapes at once, the target still first.
    m = load(os.path.join(models, "many_inputs_%s.so" % other))
    xs = [torch.randn(4, generator=gen).to(device) for _ in range(66)]
    expect(ValueError, ["input #0", "must be on a %s device" % other],
           lambda: m(*xs), "static inputs on a device of the other target")
    expect(ValueError, ["input #0", "must be on a %s device" % other],
           lambda: m.op(xs), "static inputs on a device of the other target, by the op")


def test_graphs(models, gen):
    model = load(os.path.join(models, "dense_tower_cuda.so"))
    static = dense_inputs(gen, "cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        model(*static)  # the warm-up, on the stream that captures
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        y, pooled = model(*static)
    for case in range(3):
        fresh = dense_inputs(gen, "cuda")
        # The same ids count: the captured ids buffer has a fixed length.
        n = static[0].numel()
        fresh[0] = torch.randint(0, min(ROWS), (n,), generator=gen).cuda()
        fresh[2] = torch.rand(n, generator=gen).cuda()
        fresh[1] = torch.sort(torch.randint(0, n + 1, (F * B + 1,), generator=gen))[0].cuda()
        fresh[1][0], fresh[1][-1] = 0, n
        for x, v in zip(static, fresh):
            x.copy_(v)
        g.replay()
        ey, ep = model(*fresh)
        torch.cuda.synchronize()
        check(torch.equal(y, ey) and torch.equal(pooled, ep),
              "CUDA graph replay #%d is bit for bit the eager call" % case)
        close(y, dense_reference(*fresh)[0], "CUDA graph replay #%d against torch" % case)
    cold = load(os.path.join(models, "dense_tower_cuda.so"))
    g2 = torch.cuda.CUDAGraph()

    def capture_cold():
        with torch.cuda.graph(g2, stream=torch.cuda.Stream()):
            cold(*static)
    expect(RuntimeError, ["has not run on this stream yet"], capture_cold,
           "capturing without a warm-up on the stream")
    seq = load(os.path.join(models, "sequence_cuda.so"))
    w = torch.rand(100, 8, device="cuda")
    ids = torch.randint(0, 100, (5,), device="cuda")
    offsets = torch.tensor([0, 2, 5], device="cuda")
    s3 = torch.cuda.Stream()
    with torch.cuda.stream(s3):
        seq(w, ids, offsets)
    g3 = torch.cuda.CUDAGraph()

    def capture_dynamic():
        with torch.cuda.graph(g3, stream=s3):
            seq(w, ids, offsets)
    expect(RuntimeError, ["cannot be captured", "dynamic shape"], capture_dynamic,
           "capturing a model with a result of dynamic shape")


#===------------------------------------------------------------------------------------------===#
# The op of a loaded entry
#===------------------------------------------------------------------------------------------===#

SCHEMAS = {
    "dense_tower": "(Tensor input0, Tensor input1, Tensor input2, Tensor input3, Tensor input4, "
                   "Tensor input5, Tensor input6) -> (Tensor, Tensor)",
    "sgd_step": "(Tensor input0, Tensor input1, Tensor(a2!) input2, Tensor(a3!) input3, "
                "Tensor input4, Tensor input5) -> Tensor",
    "sequence": "(Tensor input0, Tensor input1, Tensor input2) -> Tensor",
}


def sgd_inputs(gen, device, lr=0.5):
    ids, offsets = bags(gen, device)
    t0, t1 = tables(gen, device)
    grad = (torch.rand(B, F * D, generator=gen) * 2 - 1).to(device)
    hyper = torch.tensor([lr, 0, 0, 0, 0], dtype=torch.float32, device=device)
    return [ids, offsets, t0, t1, grad, hyper]


def sequence_inputs(gen, device, n):
    w = torch.rand(100, 8, generator=gen).to(device)
    ids = torch.randint(0, 100, (n,), generator=gen).to(device)
    offsets = torch.tensor([0, n // 3, n // 3, n], dtype=torch.int64, device=device)
    return [w, ids, offsets]


def mutated_flags(schema):
    """Per argument of a parsed schema, whether it is written (Tensor(x!))."""
    return [a.alias_info is not None and a.alias_info.is_write for a in schema.arguments]


def test_op(models, device, gen):
    """Runs first in the process: the first load of each entry takes its plain name."""
    loaded = {}
    for entry, schema in SCHEMAS.items():
        model = load(os.path.join(models, "%s_%s.so" % (entry, device)))
        loaded[entry] = model
        qualified = "%s::%s" % (OP_NAMESPACE, entry)
        check(model.op_name == qualified, "%s: the op is %s, got %s" % (entry, qualified,
                                                                       model.op_name))
        check(model.schema == qualified + schema,
              "%s: the schema from the descriptor: %s" % (entry, model.schema))
        parsed = torch._C.parse_schema(model.schema)
        want = [a.updated for a in model.inputs]
        check(mutated_flags(parsed) == want and len(parsed.returns) == len(model.results),
              "%s: the schema parses, mutated %s, %d results" % (entry, want, len(model.results)))
        registered = getattr(model.op, "_schema", None)
        if registered is None:
            print("note: this torch.library keeps no schema of its own (the 1.13 stand-in): "
                  "the registered schema of %s is not compared" % qualified)
        else:
            check(str(registered.name) == qualified and mutated_flags(registered) == want
                  and len(registered.returns) == len(model.results),
                  "%s: the registered schema %s" % (entry, registered))
            check(getattr(getattr(torch.ops, OP_NAMESPACE), entry).default is model.op,
                  "%s: torch.ops.%s.%s is the module's op" % (entry, OP_NAMESPACE, entry))
    check("!" not in loaded["dense_tower"].schema, "dense_tower: no input is mutated")
    check(loaded["sgd_step"].schema.count("!") == 2, "sgd_step: the two tables are mutated")
    # The op called directly is the module's call.
    dense = loaded["dense_tower"]
    args = dense_inputs(gen, device)
    y, pooled = dense.op(*args)
    ry, rp = dense_reference(*args)
    close(y, ry, "the op emb_model::dense_tower called directly")
    close(pooled, rp, "the op emb_model::dense_tower called directly: pooled")
    # The same file again: a new op, both models work.
    again = load(os.path.join(models, "dense_tower_%s.so" % device))
    check(again.op_name == "%s::dense_tower_2" % OP_NAMESPACE,
          "a second load of the same file: %s" % again.op_name)
    for which, model in (("first", dense), ("second", again)):
        args = dense_inputs(gen, device)
        y, _ = model(*args)
        close(y, dense_reference(*args)[0], "the %s load of dense_tower after the second" % which)
    # Another model with an entry of that name (the other target's object) gets its own op.
    other = "cpu" if device == "cuda" else "cuda"
    third = load(os.path.join(models, "dense_tower_%s.so" % other))
    check(third.op_name == "%s::dense_tower_3" % OP_NAMESPACE,
          "another model with an entry dense_tower: %s" % third.op_name)
    named = load(os.path.join(models, "sgd_step_%s.so" % device), op_name="my_step")
    check(named.op_name == "%s::my_step" % OP_NAMESPACE, "op_name=: %s" % named.op_name)
    args = sgd_inputs(gen, device)
    ref = sgd_reference(args[0], args[1], args[2:4], args[4], 0.5)
    named(*args)
    close(args[2], ref[0], "the model loaded as my_step updates table 0")
    expect(ValueError, ["op_name 'my_step' is taken", "emb_model::my_step"],
           lambda: load(os.path.join(models, "sgd_step_%s.so" % device), op_name="my_step"),
           "an op_name taken already")
    expect(ValueError, ["op_name must be a Python identifier", "'my.step'"],
           lambda: load(os.path.join(models, "sgd_step_%s.so" % device), op_name="my.step"),
           "a malformed op_name")
    # A tensor with elements but no memory (meta, or fake outside the dispatcher) never reaches
    # the entry as a null pointer.
    expect(ValueError, ["emb model @dense_tower: input #2 has no memory (a meta or fake tensor)"],
           lambda: dense._data(torch.empty(4, 8, device="meta"), [], "input", 2),
           "a tensor without memory")
    # Inputs that require grad: the results carry no history, the inputs get no gradient.
    args = dense_inputs(gen, device)
    args[5].requires_grad_(True)
    y, pooled = dense(*args)
    check(not y.requires_grad and not pooled.requires_grad and y.grad_fn is None,
          "an input that requires grad: the results carry no autograd history")


def fake_mode(shape_env=False):
    from torch._subclasses.fake_tensor import FakeTensorMode
    if not shape_env:
        return FakeTensorMode()
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    return FakeTensorMode(shape_env=ShapeEnv())


def same_meta(fake, real, what):
    fake = fake if isinstance(fake, tuple) else (fake,)
    real = real if isinstance(real, tuple) else (real,)
    check(len(fake) == len(real) and all(
        tuple(f.shape) == tuple(r.shape) and f.dtype == r.dtype and f.device == r.device
        for f, r in zip(fake, real)),
        "%s: fake %s, eager %s" % (what, [(tuple(f.shape), f.dtype, str(f.device)) for f in fake],
                                   [(tuple(r.shape), r.dtype, str(r.device)) for r in real]))


def test_fake(models, device, gen):
    """The fake kernel under FakeTensorMode: eager's shapes and dtypes, nothing run (the tables of
    @sgd_step unchanged), the kernel's refusals."""
    dense = load(os.path.join(models, "dense_tower_%s.so" % device))
    sgd = load(os.path.join(models, "sgd_step_%s.so" % device))
    seq = load(os.path.join(models, "sequence_%s.so" % device))
    for model, args in ((dense, dense_inputs(gen, device)), (sgd, sgd_inputs(gen, device))):
        real = model(*[a.clone() for a in args])
        mode = fake_mode()
        fake_args = [mode.from_tensor(a) for a in args]
        with mode:
            fake = model(*fake_args)
        same_meta(fake, real, "fake %s" % model.name)
    args = sgd_inputs(gen, device)
    before = [a.clone() for a in args]
    mode = fake_mode()
    with mode:
        sgd(*[mode.from_tensor(a) for a in args])
    check(all(torch.equal(a, b) for a, b in zip(args, before)),
          "fake sgd_step: the real tables are untouched")
    # A result of dynamic shape: a new size, not a number (a shape environment holds it).
    args = sequence_inputs(gen, device, 7)
    real = seq(*args)
    mode = fake_mode(shape_env=True)
    with mode:
        rows = seq(*[mode.from_tensor(a) for a in args])
    check(rows.dim() == 2 and not isinstance(rows.shape[0], int) and rows.shape[1] == 8 and
          rows.dtype == real.dtype and rows.device == real.device,
          "fake sequence: rows [new size, 8] (%s), eager %s" % (list(rows.shape),
                                                              list(real.shape)))
    # What the kernel refuses from metadata, the fake kernel refuses with the same message.
    args = dense_inputs(gen, device)
    for i, bad, exc, words in (
            (4, args[4][:29], ValueError, ["input #4 (tensor<30x16xf32>)",
                                           "must have 30 in dim 0", "[29, 16]"]),
            (3, args[3].double(), TypeError, ["input #3 (tensor<50x16xf32>)", "got torch.float64"]),
            (6, args[6].reshape(-1), ValueError, ["input #6", "must have 2 dims, got 1"])):
        mode = fake_mode()
        fake_args = [mode.from_tensor(a) for a in args]
        fake_args[i] = mode.from_tensor(bad)

        def call():
            with mode:
                dense(*fake_args)
        expect(exc, words, call, "fake dense_tower, a bad input #%d" % i)
    t0 = torch.zeros(D, ROWS[0], device=device).t()
    args = sgd_inputs(gen, device)
    mode = fake_mode()
    fake_args = [mode.from_tensor(a) for a in args]
    fake_args[2] = mode.from_tensor(t0)

    def call_sgd():
        with mode:
            sgd(*fake_args)
    expect(ValueError, ["input #2", "must be contiguous: the model updates it in place"],
           call_sgd, "fake sgd_step, a non-contiguous table")


def test_profiler(models, device, gen):
    from torch.profiler import ProfilerActivity, profile
    model = load(os.path.join(models, "dense_tower_%s.so" % device))
    args = dense_inputs(gen, device)
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=acts) as prof:
        model(*args)
    names = {e.key for e in prof.key_averages()}
    check(model.op_name in names, "profiler: %s is named (%s)" % (
        model.op_name, sorted(n for n in names if OP_NAMESPACE in n)))


def test_direct(models, device, gen):
    """An eager call of plain tensors runs the op's kernel from the module, without the
    dispatcher (_runtime.direct_call); under the profiler, a dispatch mode or with a tensor
    subclass the module calls the op. Every way gives the same results, bit for bit."""
    from torch.profiler import ProfilerActivity, profile
    from torch.utils._python_dispatch import TorchDispatchMode

    class Passing(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    class Sub(torch.Tensor):
        pass

    model = load(os.path.join(models, "dense_tower_%s.so" % device))
    args = dense_inputs(gen, device)
    want = model.op(*args)
    op, calls = model.op, []

    def counted(*a):
        calls.append(1)
        return op(*a)

    def same(got, what):
        check(all(torch.equal(g, w) for g, w in zip(got, want)),
              "%s: the results of the op, bit for bit" % what)

    model.op = counted
    try:
        same(model(*args), "an eager call")
        direct = _runtime._DIRECT
        check(len(calls) == (0 if direct else 1), "an eager call of plain tensors %s (%d op "
              "calls)" % ("skips the dispatcher" if direct else "takes the op: this torch lacks "
                          "what direct_call reads", len(calls)))
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
        import torch.autograd.forward_ad as fwAD
        for what, run in (
                ("under the profiler", lambda: _in(profile(activities=acts), model, args)),
                ("under a TorchDispatchMode", lambda: _in(Passing(), model, args)),
                ("in a forward-AD level", lambda: _in(fwAD.dual_level(), model, args)),
                ("with a tensor subclass", lambda: model(*(args[:-1] + [
                    args[-1].as_subclass(Sub)])))):
            before = len(calls)
            same(run(), what)
            check(len(calls) == before + 1, "%s: the module calls the op" % what)
        # Meta tensors go through the op, whose checks refuse them (not the model's target).
        before = len(calls)
        expect(ValueError, ["input #0", "must be on a %s device" % device],
               lambda: model(*[a.to("meta") for a in args]), "meta inputs")
        check(len(calls) == before + 1, "meta inputs: the module calls the op")
    finally:
        model.op = op


def _in(context, model, args):
    with context:
        out = model(*args)
    return out


#===------------------------------------------------------------------------------------------===#
# torch.compile, torch.export, opcheck (PyTorch 2.4+)
#===------------------------------------------------------------------------------------------===#


class DenseHead(torch.nn.Module):
    """Torch work around @dense_tower on both sides."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, offsets, weights, t0, t1, dense, w):
        y, pooled = self.model(ids, offsets, weights, t0, t1, torch.tanh(dense), w)
        return torch.sigmoid(y).sum(1) + pooled.mean(1)


class SgdHead(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids, offsets, t0, t1, grad, hyper):
        return self.model(ids, offsets, t0, t1, grad * 0.5, hyper) * 2


class SequenceHead(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, w, ids, offsets):
        return self.model(w * 2, ids, offsets).sum(1)


def dense_head_reference(args):
    a = list(args)
    a[5] = torch.tanh(a[5])
    ry, rp = dense_reference(*a)
    return torch.sigmoid(ry).sum(1) + rp.mean(1)


def recording_backend(graphs):
    """A torch.compile backend that keeps each graph's code and runs it as traced."""
    def backend(gm, example_inputs):
        graphs.append(gm.code)
        return gm.forward
    return backend


def test_compile(models, device, gen):
    model = load(os.path.join(models, "dense_tower_%s.so" % device))
    dotted = model.op_name.replace("::", ".")
    graphs = []
    traced = torch.compile(DenseHead(model), fullgraph=True, backend=recording_backend(graphs))
    args = dense_inputs(gen, device)
    close(traced(*args), dense_head_reference(args), "compile fullgraph (traced graph)")
    check(len(graphs) == 1 and dotted in graphs[0],
          "compile fullgraph: one graph that calls %s" % dotted)
    head = DenseHead(model)
    compiled = torch.compile(head, fullgraph=True)
    for call in range(3):  # new inputs, a new id count: the same op in a recompiled graph
        args = dense_inputs(gen, device)
        got = compiled(*args)
        want = head(*args)
        check(torch.allclose(got, want, rtol=1e-5, atol=1e-5),
              "compile fullgraph (inductor) call %d: eager's numbers (max diff %.3g)"
              % (call, (got - want).abs().max().item()))
        close(got, dense_head_reference(args), "compile fullgraph (inductor) call %d" % call)
    # The training step: the tables the op declares mutated are updated in the caller's tensors.
    sgd = load(os.path.join(models, "sgd_step_%s.so" % device))
    step = torch.compile(SgdHead(sgd), fullgraph=True)
    for call in range(2):
        args = sgd_inputs(gen, device)
        eager_args = [a.clone() for a in args]
        ref0, ref1 = sgd_reference(args[0], args[1], args[2:4], args[4] * 0.5, 0.5)
        got = step(*args)
        want = SgdHead(sgd)(*eager_args)
        check(torch.allclose(got, want, rtol=1e-5, atol=1e-5),
              "compile fullgraph sgd_step call %d: eager's pooled output" % call)
        check(torch.equal(args[2], eager_args[2]) and torch.equal(args[3], eager_args[3]),
              "compile fullgraph sgd_step call %d: the tables updated in place as eager's" % call)
        close(args[2], ref0, "compile fullgraph sgd_step call %d: table 0 against torch" % call)
        close(args[3], ref1, "compile fullgraph sgd_step call %d: table 1 against torch" % call)
    # A result of dynamic shape: the op's new size flows through the graph.
    seq = load(os.path.join(models, "sequence_%s.so" % device))
    from torch._dynamo import config as dynamo_config
    with dynamo_config.patch(capture_dynamic_output_shape_ops=True):
        rows = torch.compile(SequenceHead(seq), fullgraph=True)
        for n in (7, 12):
            args = sequence_inputs(gen, device, n)
            got = rows(*args)
            want = SequenceHead(seq)(*args)
            check(got.shape == (n,) and torch.allclose(got, want, rtol=1e-6, atol=1e-6),
                  "compile fullgraph of sequence (a dynamic result) with %d ids" % n)


def test_export(models, device, gen):
    model = load(os.path.join(models, "dense_tower_%s.so" % device))
    head = DenseHead(model)
    args = dense_inputs(gen, device)
    ep = torch.export.export(head, tuple(args))
    text = str(ep.graph)
    dotted = model.op_name.replace("::", ".")
    check(dotted in text, "export: the graph calls %s" % dotted)
    fresh = dense_inputs(gen, device)
    fresh[:3] = args[:3]  # the exported graph's id count; new tables, dense and w
    got = ep.module()(*fresh)
    want = head(*fresh)
    check(torch.allclose(got, want, rtol=1e-6, atol=1e-6) and not torch.allclose(got, head(*args)),
          "export: the exported program gives the model's numbers on new inputs")
    close(got, dense_head_reference(fresh), "export: against torch")


def test_opcheck(models, device, gen):
    from torch.library import opcheck
    for entry, args in (("dense_tower", dense_inputs(gen, device)),
                        ("sgd_step", sgd_inputs(gen, device))):
        model = load(os.path.join(models, "%s_%s.so" % (entry, device)))
        res = opcheck(model.op, tuple(args))
        check(all(v == "SUCCESS" for v in res.values()), "opcheck %s: %s" % (model.op_name, res))


def needs_torch2(name, fn):
    """A check of PyTorch 2.4+ (fake kernels that the dispatcher calls, torch.compile,
    torch.export, opcheck): on an older PyTorch it is reported as not run, a failure, never
    skipped silently."""
    def run():
        missing = [what for what, ok in (
            ("torch.library.register_fake", hasattr(torch.library, "register_fake")),
            ("torch.compile", hasattr(torch, "compile")), ("torch.export", hasattr(torch, "export")),
            ("torch.library.opcheck", hasattr(torch.library, "opcheck"))) if not ok]
        if missing:
            harness.fail("%s: not run: needs PyTorch 2.4 or newer (this is %s, without %s)"
                         % (name, torch.__version__, ", ".join(missing)))
            return
        fn()
    return run


def test_many_inputs(models, device, gen):
    """An entry of more inputs than a schema takes (66 > 64, as a whole ranking model's tables):
    the op takes them as a list, and the module as separate tensors, as any other."""
    model = load(os.path.join(models, "many_inputs_%s.so" % device))
    check(model.schema.endswith("(Tensor[] inputs) -> Tensor"),
          "66 inputs: the op takes a list: %s" % model.schema)
    xs = [torch.randn(4, generator=gen).to(device) for _ in range(66)]
    want = xs[0]
    for x in xs[1:]:  # the entry's order of the f32 adds
        want = want + x
    check(torch.equal(model(*xs), want), "66 inputs: the module's call gives the sum")
    check(torch.equal(model.op(xs), want), "66 inputs: the op on the list gives the sum")
    try:
        model.op(xs[:-1])
        check(False, "66 inputs: a list of 65 raised nothing")
    except (TypeError, RuntimeError) as e:
        check("65" in str(e), "66 inputs: a list of 65 names the counts: %s" % e)
    # With tables it updates in place: a second list, declared mutated; the update lands in the
    # caller's tensors through the module and through the op.
    sgd = load(os.path.join(models, "many_inputs_sgd_%s.so" % device))
    check(sgd.schema.endswith("(Tensor[] inputs, Tensor(a!)[] updated) -> (Tensor, Tensor)"),
          "66 inputs, 2 updated: the op takes two lists: %s" % sgd.schema)
    lr = 0.5
    for via in ("module", "op"):
        ids, offsets = bags(gen, device)
        t0, t1 = tables(gen, device)
        grad = (torch.rand(B, F * D, generator=gen) * 2 - 1).to(device)
        hyper = torch.tensor([lr, 0, 0, 0, 0], dtype=torch.float32, device=device)
        extra = [torch.randn(4, generator=gen).to(device) for _ in range(60)]
        ref_pooled = pooled_reference(ids, offsets, [t0, t1])
        ref0, ref1 = sgd_reference(ids, offsets, [t0, t1], grad, lr)
        want = extra[0]
        for x in extra[1:]:
            want = want + x
        if via == "module":
            pooled, total = sgd(ids, offsets, t0, t1, grad, hyper, *extra)
        else:
            pooled, total = sgd.op([ids, offsets, grad, hyper] + extra, [t0, t1])
        close(pooled, ref_pooled, "66 inputs by the %s: the pooled forward" % via)
        check(torch.equal(total, want), "66 inputs by the %s: the sum of the rest" % via)
        close(t0, ref0, "66 inputs by the %s: table 0 updated in the caller's tensor" % via)
        close(t1, ref1, "66 inputs by the %s: table 1 updated in the caller's tensor" % via)
    try:
        sgd.op([ids, offsets, grad, hyper] + extra, [t0])
        check(False, "66 inputs: an updated list of 1 raised nothing")
    except (TypeError, RuntimeError) as e:
        check("2 it updates" in str(e), "66 inputs: an updated list of 1 names the counts: %s" % e)


def test_torch_ops(models, device, gen, want):
    """libemb_torch_ops.so (python/csrc/emb_torch_ops.cpp): `want` is "required" (the run must
    have loaded it), "off" (the run must not have: every call takes the Python path) or "any".
    With it: emb_torch::write_inputs on a hand-made plan writes each input's pointer (and a
    dynamic one's sizes and strides) and refuses, without raising, what the Python path would
    send on (wrong count, dtype, rank, static dim, device, layout, contiguity, meta); a loaded
    model's eager call takes it (the Python checks never run) and gives the op's results bit for
    bit, with dynamic inputs too; a bad input still gets the Python path's error."""
    import ctypes

    import emb_torch
    from emb_torch import _torch_ops
    path = emb_torch.torch_ops_library()
    if want == "required":
        check(path is not None, "torch ops: libemb_torch_ops.so loaded (%s)" % _torch_ops.why_not())
    elif want == "off":
        check(path is None, "torch ops: none loaded with EMB_TORCH_OPS_LIB=off (%s)" % path)
    if path is None:
        model = load(os.path.join(models, "dense_tower_%s.so" % device))
        check(model._plan is None, "torch ops: without the library a model has no plan")
        return

    # The op itself, on a plan of two inputs: a static f32 [2, 3] and a dynamic i64 [?].
    write = torch.ops.emb_torch.write_inputs.default
    index = 0 if device == "cuda" else -1
    if device == "cuda":
        index = torch.cuda.current_device()
    words = (ctypes.c_uint64 * 16)()
    f32 = 1 << _torch_ops.scalar_type_index(torch.float32)
    i64 = 1 << _torch_ops.scalar_type_index(torch.int64)
    plan_words = [2, ctypes.addressof(words), f32, 2, 0, 2, 3, i64, 1, 7, -1]
    plan = (ctypes.c_int64 * len(plan_words))(*plan_words)
    a = torch.rand(2, 3, generator=gen).to(device)
    b = torch.arange(5, device=device)
    check(write([a, b], ctypes.addressof(plan), index) is True, "write_inputs: a good pair")
    check(words[0] == words[1] == a.data_ptr() and words[7] == words[8] == b.data_ptr(),
          "write_inputs: the data pointers in the allocated and aligned words")
    check(words[10] == 5 and words[11] == 1, "write_inputs: the dynamic input's size and stride")
    other = "cpu" if device == "cuda" else "meta"
    for what, xs in (
            ("one input of two", [a]),
            ("a wrong dtype", [a.double(), b]),
            ("a wrong rank", [a.reshape(6), b]),
            ("a wrong static dim", [torch.rand(3, 3, device=device), b]),
            ("another device", [a.to(other), b]),
            ("a non-contiguous tensor", [torch.rand(3, 2, device=device).t(), b]),
            ("a meta tensor", [a.to("meta"), b]),
            ("a sparse tensor", [a.to_sparse(), b])):
        try:
            got = write(xs, ctypes.addressof(plan), index)
            check(got is False, "write_inputs: %s is refused (got %r)" % (what, got))
        except Exception as e:  # noqa: BLE001 - raising is the failure checked
            check(False, "write_inputs: %s raised %r instead of returning False" % (what, e))

    # Through a model: the eager call takes the C++ path (the Python path would raise here).
    def no_python(*_):
        raise AssertionError("the Python path ran")

    for entry, inputs in (("dense_tower", dense_inputs(gen, device)),
                          ("sequence", sequence_inputs(gen, device, 11))):
        model = load(os.path.join(models, "%s_%s.so" % (entry, device)))
        want_out = model.op(*inputs)
        want_out = want_out if isinstance(want_out, tuple) else (want_out,)
        model._run_fast = no_python
        try:
            got = model(*inputs)
            got = got if isinstance(got, tuple) else (got,)
            check(all(torch.equal(g, w) for g, w in zip(got, want_out)),
                  "torch ops: %s's eager call gives the op's results bit for bit" % entry)
        except AssertionError as e:
            check(False, "torch ops: %s's eager call did not take the C++ path: %s" % (entry, e))
        finally:
            del model._run_fast
        if entry == "dense_tower":
            bad = list(inputs)
            bad[3] = bad[3].double()
            expect(TypeError, ["input #3", "must be"], lambda: model(*bad),
                   "torch ops: a wrong dtype still named by the Python path")


def main():
    p = harness.parser()
    p.add_argument("--models", required=True, help="the folder of make_compiled_models.sh")
    harness.torch_ops_option(p)
    a = p.parse_args()
    harness.torch_ops_mode(a)
    _runtime.runtime(a.lib)
    gen = torch.Generator().manual_seed(2026)
    other = "cpu" if a.device == "cuda" else "cuda"
    cases = [
        ("op", lambda: test_op(a.models, a.device, gen)),  # first: the entries' plain op names
        ("fake", needs_torch2("fake", lambda: test_fake(a.models, a.device, gen))),
        ("profiler", lambda: test_profiler(a.models, a.device, gen)),
        ("direct", lambda: test_direct(a.models, a.device, gen)),
        ("compile", needs_torch2("compile", lambda: test_compile(a.models, a.device, gen))),
        ("export", needs_torch2("export", lambda: test_export(a.models, a.device, gen))),
        ("opcheck", needs_torch2("opcheck", lambda: test_opcheck(a.models, a.device, gen))),
        ("dense", lambda: test_errors(
            test_dense(os.path.join(a.models, "dense_tower_%s.so" % a.device), a.device, gen),
            a.device, gen)),
        ("sgd", lambda: test_sgd(os.path.join(a.models, "sgd_step_%s.so" % a.device), a.device,
                                 gen)),
        ("sequence", lambda: test_sequence(os.path.join(a.models, "sequence_%s.so" % a.device),
                                           a.device, gen)),
        ("many_inputs", lambda: test_many_inputs(a.models, a.device, gen)),
        ("torch_ops", lambda: test_torch_ops(a.models, a.device, gen, a.torch_ops)),
        ("loading", lambda: test_loading(a.models, a.device, other)),
    ]
    if a.device == "cuda":
        cases.append(("graphs", lambda: test_graphs(a.models, gen)))
    for name, fn in cases:
        try:
            fn()
        except Exception:  # noqa: BLE001 - report and go on with the next case
            check(False, "%s: raised\n%s" % (name, traceback.format_exc()))
    return harness.finish()


if __name__ == "__main__":
    sys.exit(main())

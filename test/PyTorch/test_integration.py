"""emb_torch inside PyTorch's machinery (plain python, self-checking, no pytest).

Checks, on fresh random inputs against torch references in f64:
  - the ops' fake kernels (FakeTensorMode) and torch.library.opcheck (schema, fake, autograd,
    declared mutations);
  - EmbeddingBagCollection: features found by key (any key order, extra keys), tables grouped by
    (dtype, pooling) into launches, f16/f32 groups, mean and sum, weighted bags;
  - EmbeddingCollection (unpooled, jagged out);
  - a small ranking model's training step under torch.compile(fullgraph=True) against eager,
    learning-rate changes without a recompile, torch.export of the inference model, a CUDA graph
    of the training step replayed bit for bit against eager, the profiler naming the ops;
  - state_dict keys (TorchRec's), a weights-only checkpoint loaded with fresh states, and, when
    torchrec is importable, a round trip with torchrec's own EmbeddingBagCollection;
  - refusal under a process group of two ranks (DistributedDataParallel).

    python3 test/PyTorch/test_integration.py [--device cuda|cpu] [--lib build/lib/libembrt.so]
Exit status 0 when every check passed; the last line says how many passed and failed.
"""
import os
import sys
import tempfile

import torch

import harness  # noqa: E402  (test/PyTorch/harness.py)
from harness import check  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import emb_torch as et  # noqa: E402


def section(fn):
    """Runs one section; an exception fails it with its message instead of ending the run."""
    def run(*args):
        try:
            fn(*args)
            print("ok", fn.__name__, flush=True)
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            harness.fail("%s raised %s: %s" % (fn.__name__, type(e).__name__, e))
    return run


def random_kjt(gen, keys, rows_of, B, max_bag, device, weighted=False, dtype=torch.int64):
    lengths = torch.randint(0, max_bag + 1, (len(keys) * B,), generator=gen)
    values = torch.cat([torch.randint(0, rows_of[k], (int(lengths[i * B:(i + 1) * B].sum()),),
                                      generator=gen) for i, k in enumerate(keys)])
    weights = torch.rand(values.numel(), generator=gen) + 0.5 if weighted else None
    return et.KeyedJaggedTensor(keys=keys, values=values.to(device, dtype),
                                lengths=lengths.to(device, dtype),
                                weights=weights.to(device) if weighted else None)


def reference_pooled(ebc, kjt, configs):
    """[B, sum D] in f64 from the module's own tables, by torch.nn.functional.embedding_bag."""
    d = {k: i for i, k in enumerate(kjt.keys())}
    F = len(kjt.keys())
    offsets = kjt.offsets().cpu()
    B = (offsets.numel() - 1) // F
    w8 = kjt.weights_or_none()
    cols = []
    for c in configs:
        table = ebc.embedding_bags[c.name].weight.detach().double().cpu()
        mode = "mean" if et.modules._enum_name(c.pooling, "", "") == "MEAN" else "sum"
        for f in c.feature_names:
            i = d[f]
            lo, hi = int(offsets[i * B]), int(offsets[(i + 1) * B])
            ids = kjt.values().cpu()[lo:hi]
            offs = offsets[i * B:(i + 1) * B] - lo
            psw = w8.cpu().double()[lo:hi] if (w8 is not None and ebc.is_weighted()) else None
            cols.append(torch.nn.functional.embedding_bag(ids, table, offs, mode=mode,
                                                          per_sample_weights=psw))
    return torch.cat(cols, 1)


@section
def test_fake_and_opcheck(device):
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.library import opcheck
    gen = torch.Generator().manual_seed(11)
    w = [torch.randn(30, 8, generator=gen).to(device), torch.randn(20, 4, generator=gen).to(device)]
    kjt = random_kjt(gen, ["a", "b", "c"], {"a": 30, "b": 30, "c": 20}, 5, 3, device)
    args = (w, [0, 0, 1], kjt.values(), kjt.offsets())
    real = torch.ops.emb.tbe_forward(*args)
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        fake_args = (list(map(mode.from_tensor, w)), [0, 0, 1], mode.from_tensor(kjt.values()),
                     mode.from_tensor(kjt.offsets()))
        fake = torch.ops.emb.tbe_forward(*fake_args)
    check(fake.shape == real.shape and fake.dtype == real.dtype == torch.float32,
          "fake: tbe_forward shape %s dtype %s, real %s %s" % (tuple(fake.shape), fake.dtype,
                                                               tuple(real.shape), real.dtype))
    for kwargs in ({}, {"pooling": "mean", "output_dtype": torch.float32}):
        res = opcheck(torch.ops.emb.tbe_forward.default, args, kwargs)
        check(all(v == "SUCCESS" for v in res.values()), "opcheck tbe_forward %s: %s" % (kwargs, res))
    m1 = [torch.zeros(30, device=device), torch.zeros(20, device=device)]
    hyper = torch.tensor([0.1, 1e-8, 0.9, 0.999, 0.0], device=device)
    step = torch.zeros(1, dtype=torch.int64, device=device)
    grad = torch.randn(5, 20, generator=gen).to(device)
    res = opcheck(torch.ops.emb.tbe_backward_rowwise_adagrad.default,
                  ([x.clone() for x in w], m1, hyper, step, [0, 0, 1], kjt.values(),
                   kjt.offsets(), None, grad, "sum", "fatal", None, 0, []))
    check(all(v == "SUCCESS" for v in res.values()), "opcheck tbe_backward_rowwise_adagrad: %s" % res)
    placeholder = torch.zeros((), device=device, requires_grad=True)
    res = opcheck(torch.ops.emb.tbe_forward_train.default,
                  (placeholder, [x.clone() for x in w], m1, [], hyper, step, [0, 0, 1],
                   kjt.values(), kjt.offsets(), None, "sum", "fatal", None, None,
                   "rowwise_adagrad", 0, [], []),
                  test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_static"))
    check(all(v == "SUCCESS" for v in res.values()), "opcheck tbe_forward_train: %s" % res)


def configs_mixed():
    return [
        et.EmbeddingBagConfig(name="t0", embedding_dim=16, num_embeddings=50,
                              feature_names=["f0", "f1"]),
        et.EmbeddingBagConfig(name="t1", embedding_dim=8, num_embeddings=30, feature_names=["f2"],
                              data_type=et.DataType.FP16),
        et.EmbeddingBagConfig(name="t2", embedding_dim=4, num_embeddings=40, feature_names=["f3"],
                              pooling=et.PoolingType.MEAN),
        et.EmbeddingBagConfig(name="t3", embedding_dim=12, num_embeddings=20,
                              feature_names=["f4"]),
    ]


@section
def test_keys_and_groups(device):
    gen = torch.Generator().manual_seed(12)
    configs = configs_mixed()
    ebc = et.EmbeddingBagCollection(tables=configs, device=device)
    check(len(ebc._groups) == 3, "groups: (fp32 sum), (fp16 sum), (fp32 mean): got %d"
          % len(ebc._groups))
    rows = {"f0": 50, "f1": 50, "f2": 30, "f3": 40, "f4": 20, "extra": 7}
    B = 6
    for keys in (["f0", "f1", "f2", "f3", "f4"], ["f3", "f0", "f4", "f2", "f1"],
                 ["f1", "extra", "f0", "f2", "f4", "f3"]):
        kjt = random_kjt(gen, keys, rows, B, 4, device)
        kt = ebc(kjt)
        ref = reference_pooled(ebc, kjt, configs)
        got = kt.values().double().cpu()
        err = (got - ref).abs().max().item()
        check(kt.keys() == ["f0", "f1", "f2", "f3", "f4"] and got.shape == ref.shape and err < 2e-3,
              "keys %s: KeyedTensor keys %s, shape %s, error %g" % (keys, kt.keys(),
                                                                   tuple(got.shape), err))
        check(kt.values().dtype == torch.float32, "keys %s: output float32" % keys)
        f2 = kt["f2"] if hasattr(kt, "__getitem__") else kt.to_dict()["f2"]
        check(torch.equal(f2.cpu(), kt.values()[:, 32:40].cpu()), "KeyedTensor['f2'] is its columns")
    # A bad id in a gathered group is still reported, also one of the padding id's value.
    keys = ["f0", "extra", "f1", "f2", "f3", "f4"]
    good = et.KeyedJaggedTensor(
        keys=keys, values=torch.cat([torch.randint(0, rows[k], (2 * B,), generator=gen)
                                     for k in keys]).to(device),
        lengths=torch.full((len(keys) * B,), 2, dtype=torch.int64).to(device))
    for bad in (-1, torch.iinfo(torch.int64).min):
        values = good.values().clone()
        values[0] = bad  # feature f0, bag 0
        raised = None
        try:
            ebc(et.KeyedJaggedTensor(keys=keys, values=values, lengths=good.lengths()))
            if device == "cuda":
                torch.cuda.synchronize()
                ebc(good)
        except et.EmbIndexError as e:
            raised = e
        check(raised is not None and "feature 0 bag 0" in str(raised),
              "a bad id %d in a gathered group: %s" % (bad, raised))
    # Training through the gathered groups (the padded tail): one SGD step of a two-group module
    # on a KJT with an extra key against each group's own module fed only its keys.
    both = et.EmbeddingBagCollection(tables=[configs[0], configs[2]], device=device,
                                     fused_params={"optimizer": "sgd", "learning_rate": 0.5})
    alone = [et.EmbeddingBagCollection(tables=[c], device=device,
                                       fused_params={"optimizer": "sgd", "learning_rate": 0.5})
             for c in (configs[0], configs[2])]
    for one, name in zip(alone, ("t0", "t2")):
        one.embedding_bags[name].weight.data.copy_(both.embedding_bags[name].weight.data)
    kjt = random_kjt(gen, ["f3", "extra", "f1", "f0"], rows, B, 4, device)
    G = torch.randn(B, 36, generator=gen).to(device)
    before = {n: both.embedding_bags[n].weight.detach().clone() for n in ("t0", "t2")}
    (both(kjt).values() * G).sum().backward()
    parts = kjt.to_dict()
    for one, feats, cols in ((alone[0], ["f0", "f1"], slice(0, 32)), (alone[1], ["f3"],
                                                                       slice(32, 36))):
        sub = et.KeyedJaggedTensor(keys=feats, values=torch.cat([parts[f].values() for f in feats]),
                                   lengths=torch.cat([parts[f].lengths() for f in feats]))
        (one(sub).values() * G[:, cols]).sum().backward()
    for one, name in zip(alone, ("t0", "t2")):
        err = (one.embedding_bags[name].weight - both.embedding_bags[name].weight).abs().max()
        moved = bool((both.embedding_bags[name].weight != before[name]).any())
        check(moved and float(err) < 1e-6, "gathered groups train as separate modules: %s "
              "moved %s, differs by %g" % (name, moved, float(err)))
    weighted = et.EmbeddingBagCollection(tables=configs[:1], is_weighted=True, device=device)
    kjt = random_kjt(gen, ["f0", "f1"], rows, B, 4, device, weighted=True, dtype=torch.int32)
    err = (weighted(kjt).values().double().cpu() - reference_pooled(weighted, kjt, configs[:1])) \
        .abs().max().item()
    check(err < 1e-5, "weighted bags, int32 ids: error %g" % err)


@section
def test_embedding_collection(device):
    gen = torch.Generator().manual_seed(13)
    configs = [et.EmbeddingConfig(name="s0", embedding_dim=8, num_embeddings=40,
                                  feature_names=["q0", "q1"]),
               et.EmbeddingConfig(name="s1", embedding_dim=4, num_embeddings=25,
                                  feature_names=["q2"])]
    ec = et.EmbeddingCollection(tables=configs, device=device,
                                fused_params={"optimizer": "sgd", "learning_rate": 0.5})
    kjt = random_kjt(gen, ["q2", "q0", "q1"], {"q0": 40, "q1": 40, "q2": 25}, 4, 5, device)
    out = ec(kjt)
    check(list(out.keys()) == ["q0", "q1", "q2"], "EmbeddingCollection keys %s" % list(out.keys()))
    per = kjt.to_dict()
    table = {"q0": "s0", "q1": "s0", "q2": "s1"}
    before = {n: ec.embeddings[n].weight.detach().clone() for n in ("s0", "s1")}
    for f, jt in out.items():
        ids = per[f].values()
        ref = before[table[f]][ids]
        check(torch.equal(jt.values().detach(), ref) and torch.equal(jt.lengths().cpu(),
                                                                     per[f].lengths().cpu()),
              "EmbeddingCollection %s: rows and lengths" % f)
    loss = sum((jt.values() ** 2).sum() for jt in out.values())
    loss.backward()
    # SGD with lr 0.5 on sum of squares: each touched row r -= 0.5 * 2 * r * count(r).
    ids0 = torch.cat([per["q0"].values(), per["q1"].values()]).cpu()
    counts = torch.bincount(ids0, minlength=40).double()
    ref = before["s0"].double().cpu() * (1 - counts[:, None])
    err = (ec.embeddings["s0"].weight.detach().double().cpu() - ref).abs().max().item()
    check(err < 1e-5, "EmbeddingCollection SGD step: error %g" % err)


class Ranking(torch.nn.Module):
    """A small ranking model: EBC of 3 tables, an MLP over dense + pooled features."""

    def __init__(self, device, optimizer="exact_rowwise_adagrad"):
        super().__init__()
        self.ebc = et.EmbeddingBagCollection(tables=[
            et.EmbeddingBagConfig(name="t%d" % i, embedding_dim=16, num_embeddings=100 + 50 * i,
                                  feature_names=["f%d" % i]) for i in range(3)], device=device,
            fused_params={"optimizer": optimizer, "learning_rate": 0.05})
        self.dense = torch.nn.Linear(8, 16, device=device)
        self.top = torch.nn.Sequential(torch.nn.Linear(64, 32, device=device), torch.nn.ReLU(),
                                       torch.nn.Linear(32, 1, device=device))

    def forward(self, dense, kjt):
        pooled = self.ebc(kjt).values()
        x = torch.cat([torch.relu(self.dense(dense)), pooled], 1)
        return self.top(x).squeeze(1)


def ranking_batches(device, n, B=32, seed=14):
    gen = torch.Generator().manual_seed(seed)
    rows = {"f0": 100, "f1": 150, "f2": 200}
    return [(torch.randn(B, 8, generator=gen).to(device),
             random_kjt(gen, ["f0", "f1", "f2"], rows, B, 5, device),
             torch.rand(B, generator=gen).round().to(device)) for _ in range(n)]


def train(model, batches, forward=None):
    """Steps of SGD on the dense part (the tables train in the backward); `forward` is the model
    to call (the model itself, or torch.compile of it), the backward runs as the user's would."""
    forward = model if forward is None else forward
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.05)
    losses = []
    for dense, kjt, label in batches:
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(forward(dense, kjt), label)
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return torch.stack(losses)


@section
def test_compile(device):
    import torch._dynamo.testing as dt
    batches = ranking_batches(device, 4)
    torch.manual_seed(0)
    eager = Ranking(device)
    torch.manual_seed(0)
    compiled = Ranking(device)
    l_eager = train(eager, batches)
    counter = dt.CompileCounterWithBackend("inductor")
    forward = torch.compile(compiled, fullgraph=True, backend=counter)
    l_comp = train(compiled, batches, forward)
    err = (l_eager - l_comp).abs().max().item()
    check(err < 1e-4, "compile fullgraph: losses differ by %g" % err)
    # The fused update ran in the compiled backward: the tables moved as eager's did.
    werr = max((a.weight - b.weight).abs().max().item() for a, b in
               zip(eager.ebc.embedding_bags.values(), compiled.ebc.embedding_bags.values()))
    check(werr < 1e-4 and int(compiled.ebc.step_0) == len(batches),
          "compile fullgraph: tables differ by %g after %d steps (step count %d)"
          % (werr, len(batches), int(compiled.ebc.step_0)))
    frames = counter.frame_count
    compiled.ebc.set_learning_rate(0.01)
    eager.ebc.set_learning_rate(0.01)
    more = ranking_batches(device, 2, seed=15)
    l_eager = train(eager, more)
    l_comp = train(compiled, more, forward)
    check(counter.frame_count == frames, "a learning-rate change recompiled: %d frames, then %d"
          % (frames, counter.frame_count))
    err = (l_eager - l_comp).abs().max().item()
    check(err < 1e-4, "compile after lr change: losses differ by %g" % err)


@section
def test_export(device):
    torch.manual_seed(1)
    model = Ranking(device).eval()
    dense, kjt, _ = ranking_batches(device, 1, seed=16)[0]
    ep = torch.export.export(model, (dense, kjt))
    text = str(ep.graph)
    check("emb.tbe_forward" in text, "export: the graph calls emb.tbe_forward")
    with torch.no_grad():
        want = model(dense, kjt)
        # Shapes are static unless declared dynamic: new ids and dense inputs of the same sizes
        # (every id below 100 is in each feature's table).
        dense2, kjt2, _ = ranking_batches(device, 1, seed=17)[0]
        same = et.KeyedJaggedTensor(keys=kjt.keys(), values=kjt.values().flip(0) % 100,
                                    lengths=kjt.lengths())
        got = ep.module()(dense2, same)
        want2 = model(dense2, same)
    check(torch.equal(got, want2) and not torch.equal(want, want2),
          "export: the exported program gives the model's numbers on new inputs")
    # A serving graph takes any number of ids: the ids' count declared dynamic. (The eager calls
    # above cached kjt's offsets; the exported program's inputs have the structure of the KJT
    # it was exported with, as TorchRec's flatten: a fresh one, as the next batches come.)
    fresh = et.KeyedJaggedTensor(keys=kjt.keys(), values=kjt.values(), lengths=kjt.lengths())
    shapes = torch.export.ShapesCollection()
    shapes[fresh.values()] = {0: torch.export.Dim("ids", min=2, max=1 << 20)}
    ep = torch.export.export(model, (dense, fresh), dynamic_shapes=shapes)
    check(kjt2.values().numel() != kjt.values().numel(), "export: the second batch has another "
          "id count (%d, %d)" % (kjt2.values().numel(), kjt.values().numel()))
    with torch.no_grad():
        got = ep.module()(dense2, kjt2)
        want2 = model(dense2, kjt2)
    check(torch.equal(got, want2),
          "export with a dynamic id count: the model's numbers on a batch of another count")


def fixed_batches(device, n, B=32, seed=18):
    """Batches of one id count (3 ids a bag), so that one captured graph serves them all."""
    gen = torch.Generator().manual_seed(seed)
    rows = [100, 150, 200]
    out = []
    for _ in range(n):
        values = torch.cat([torch.randint(0, r, (3 * B,), generator=gen) for r in rows])
        kjt = et.KeyedJaggedTensor(keys=["f0", "f1", "f2"], values=values.to(device),
                                   lengths=torch.full((3 * B,), 3, device=device))
        out.append((torch.randn(B, 8, generator=gen).to(device), kjt,
                    torch.rand(B, generator=gen).round().to(device)))
    return out


@section
def test_cuda_graph(device):
    if device != "cuda":
        return
    batches = fixed_batches(device, 5)
    torch.manual_seed(2)
    eager = Ranking(device)
    torch.manual_seed(2)
    graphed = Ranking(device)
    start = {k: v.clone() for k, v in graphed.state_dict().items()}
    l_eager = train(eager, batches)

    params = [p for p in graphed.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=0.05)
    dense0, kjt0, label0 = batches[0]
    static_dense, static_label = dense0.clone(), label0.clone()
    static_values, static_lengths = kjt0.values().clone(), kjt0.lengths().clone()

    def step():
        kjt = et.KeyedJaggedTensor(keys=["f0", "f1", "f2"], values=static_values,
                                   lengths=static_lengths)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            graphed(static_dense, kjt), static_label)
        loss.backward()
        return loss.detach()

    # Warm up on the stream that captures (emb's context and first-use work are per stream).
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            opt.zero_grad(set_to_none=True)
            step()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g, stream=s):
        static_loss = step()
    # Warm-up steps trained: back to the start (in place: the graph keeps the storages).
    graphed.load_state_dict(start)
    losses = []
    for dense, kjt, label in batches:
        static_dense.copy_(dense)
        static_label.copy_(label)
        static_values.copy_(kjt.values())
        static_lengths.copy_(kjt.lengths())
        g.replay()
        opt.step()
        losses.append(static_loss.clone())
    torch.cuda.synchronize()
    l_graph = torch.stack(losses)
    check(torch.equal(l_graph, l_eager), "cuda graph: losses bit for bit (%s vs %s)"
          % (l_graph.tolist()[:3], l_eager.tolist()[:3]))
    same = all(torch.equal(a.weight, b.weight) for a, b in
               zip(eager.ebc.embedding_bags.values(), graphed.ebc.embedding_bags.values()))
    check(same, "cuda graph: tables bit for bit after %d replayed steps" % len(batches))


@section
def test_profiler(device):
    from torch.profiler import ProfilerActivity, profile
    torch.manual_seed(3)
    model = Ranking(device)
    batches = ranking_batches(device, 1, seed=20)
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=acts) as prof:
        train(model, batches)
    names = {e.key for e in prof.key_averages()}
    for op in ("emb::tbe_forward_train", "emb::tbe_backward_rowwise_adagrad"):
        check(op in names, "profiler: %s is named (%s)" % (op, sorted(n for n in names
                                                                     if "emb" in n)))


@section
def test_checkpoint(device):
    torch.manual_seed(4)
    configs = configs_mixed()
    ebc = et.EmbeddingBagCollection(tables=configs, device=device,
                                    fused_params={"optimizer": "adam", "learning_rate": 0.01})
    sd = ebc.state_dict()
    weights = sorted(k for k in sd if k.endswith(".weight"))
    check(weights == ["embedding_bags.%s.weight" % c.name for c in configs],
          "state_dict weight keys: %s" % weights)
    check("embedding_bags.t0.momentum1" in sd and "embedding_bags.t0.momentum2" in sd,
          "state_dict holds the optimizer states")
    # Train a step so that states are nonzero, save, load into a fresh module.
    kjt = random_kjt(torch.Generator().manual_seed(21), ["f0", "f1", "f2", "f3", "f4"],
                     {"f0": 50, "f1": 50, "f2": 30, "f3": 40, "f4": 20}, 4, 3, device)
    ebc(kjt).values().sum().backward()
    path = os.path.join(tempfile.mkdtemp(), "ebc.pt")
    torch.save(ebc.state_dict(), path)
    fresh = et.EmbeddingBagCollection(tables=configs, device=device,
                                      fused_params={"optimizer": "adam", "learning_rate": 0.01})
    fresh.load_state_dict(torch.load(path))
    same = all(torch.equal(a, b) for a, b in zip(ebc.state_dict().values(),
                                                 fresh.state_dict().values()))
    check(same, "checkpoint round trip: every tensor equal")
    # A weights-only checkpoint (TorchRec's keys alone) loads strictly, states start at zero.
    only = {k: v for k, v in sd.items() if k.endswith(".weight")}
    fresh.load_state_dict(only)
    check(float(fresh.embedding_bags["t0"].momentum1.abs().sum()) == 0.0,
          "weights-only checkpoint: fresh optimizer states")
    try:
        import torchrec
        from torchrec.modules.embedding_configs import EmbeddingBagConfig as TrConfig
        from torchrec.modules.embedding_configs import PoolingType as TrPooling
        from torchrec.modules.embedding_modules import EmbeddingBagCollection as TrEBC
        from torchrec.sparse.jagged_tensor import KeyedJaggedTensor as TrKJT
    except Exception as e:  # noqa: BLE001
        print("torchrec is not importable (%s): its own modules are not compared" % e)
        return
    print("torchrec", getattr(torchrec, "__version__", "?"), "is importable: comparing")
    tr_configs = [TrConfig(name="a", embedding_dim=8, num_embeddings=30, feature_names=["x"]),
                  TrConfig(name="b", embedding_dim=4, num_embeddings=20, feature_names=["y"],
                           pooling=TrPooling.MEAN)]
    tr = TrEBC(tables=tr_configs, device=torch.device(device))
    ours = et.EmbeddingBagCollection(tables=tr_configs, device=device)
    ours.load_state_dict(tr.state_dict())
    tr_kjt = TrKJT(keys=["x", "y"], values=torch.tensor([1, 2, 3, 4, 5, 19], device=device),
                   lengths=torch.tensor([2, 1, 2, 1], device=device))
    a, b = tr(tr_kjt), ours(tr_kjt)
    check(type(b).__module__.startswith("torchrec"), "a torchrec KeyedTensor is returned")
    check(torch.allclose(a.values(), b.values(), atol=1e-6), "torchrec EBC and ours agree")
    tr.load_state_dict({k: v for k, v in ours.state_dict().items() if k.endswith(".weight")})


def _ddp_worker(rank, path, lib):
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method="file://" + path, rank=rank, world_size=2)
    et.runtime(lib)
    try:
        et.EmbeddingBagCollection(tables=[et.EmbeddingBagConfig(
            name="t", embedding_dim=4, num_embeddings=10, feature_names=["f"])])
        result = "nothing raised"
    except RuntimeError as e:
        result = str(e)
    with open(path + ".%d" % rank, "w") as f:
        f.write(result)
    dist.destroy_process_group()


@section
def test_ddp_refused(device, lib):
    import torch.multiprocessing as mp
    path = os.path.join(tempfile.mkdtemp(), "pg")
    mp.spawn(_ddp_worker, args=(path, lib), nprocs=2, join=True)
    for rank in range(2):
        text = open(path + ".%d" % rank).read()
        check("DistributedDataParallel" in text and "diverge" in text,
              "ddp: rank %d refused with a clear error (%s)" % (rank, text[:120]))


def main():
    a = harness.parser().parse_args()
    print("torch", torch.__version__, "device", a.device, flush=True)
    et.runtime(a.lib)
    test_fake_and_opcheck(a.device)
    test_keys_and_groups(a.device)
    test_embedding_collection(a.device)
    test_compile(a.device)
    test_export(a.device)
    test_cuda_graph(a.device)
    test_profiler(a.device)
    test_checkpoint(a.device)
    test_ddp_refused(a.device, a.lib)
    sys.exit(harness.finish())


if __name__ == "__main__":
    main()

"""DLRM-DCNv2 training step (MLPerf DLRMv2's configuration): emb_torch's embeddings against torch's.

One implementation a process; bench/dlrm_train/run.sh runs them all, report.py merges them
(bench/dlrm_train/NOTES.md).

The model (TorchRec's DLRM_DCN as MLPerf DLRMv2 runs it, one GPU's share):
  - 26 sparse features cat_0..cat_25, one table each, dim 128, rows as MLPerf DLRMv2's
    num_embeddings_per_feature capped at --cap-rows, multi-hot bags of MLPerf's fixed sizes
    (--multi_hot_sizes), SUM pooling, f32 tables trained by exact rowwise Adagrad;
  - 13 dense features, bottom MLP 512-256-128 (ReLU after each layer);
  - DCNv2 low-rank cross network, 3 layers of rank 512, over [bottom output, 26 pooled] (3456
    wide): x_{l+1} = x_0 * (W_l (V_l x_l) + b_l) + x_l, as TorchRec's LowRankCrossNet;
  - top MLP 1024-1024-512-256-1 (ReLU between, none after the last), BCE-with-logits loss;
  - the dense part under torch.autocast(bfloat16), its parameters f32, trained by
    torch.optim.Adagrad; batch 16384.
Learning rates 0.005 (tables) and 0.0001 (dense part): no kernel depends on them; they give the
synthetic ring a smooth loss curve at B 16384 (at 0.001 on the dense part the loss spikes to
about 2 at steps 12-16, which amplifies rounding differences between implementations), so that
the curves of two implementations can be compared step by step.

Implementations (--impl), the same dense torch code, init and data on every side:
  emb_eager             emb_torch.EmbeddingBagCollection with fused exact rowwise Adagrad (the
                        tables train inside loss.backward())
  emb_compiled          the same under torch.compile(fullgraph=True): forward and loss compiled,
                        the backward compiled with them (AOTAutograd); --compile-scope step also
                        puts loss.backward() inside the compiled function
  torch_eager           one nn.EmbeddingBag(mode="sum", sparse=True) a table + torch.optim.Adagrad
                        on the sparse gradients (element-wise Adagrad: torch has no rowwise one)
  torch_compiled_dense  torch_eager with the dense part under torch.compile(fullgraph=True)
  torch_rowwise         the lookup by F.embedding_bag on the tables (no autograd), then exact
                        rowwise Adagrad written in torch: the pooled gradient gathered to the
                        ids, rows made unique (torch.unique), summed (index_add_), the per-row
                        state and the rows updated in place; the same math as emb's

Data (synthetic, on the GPU before anything is timed): a ring of --ring batches, ids uniform in
each table (or Zipf(--zipf) ranks scattered by a random permutation of the rows), bags of the
fixed MLPerf sizes, dense features randn, labels Bernoulli(0.5).

Measurements, each printed and appended to --out as a JSON line:
  config   the shapes, rows, memory of the tables and states, versions
  curve    the losses of the first --curve-steps steps from the init (also the warm-up)
  step     ms a step: CUDA events around --steps steps, --runs runs, their median and every run
  profile  the embedding part of the step: device time of the kernels of the sparse part, from
           torch.profiler, per step, over --profile-runs windows of --profile-steps steps
  dense    the dense part alone: the same dense step (forward, loss, backward, Adagrad) on
           pooled inputs computed beforehand, timed as the step
  check    emb's fused backward ran once a step (its step counter), every loss finite
  memory   the tables' and optimizer states' GB, the peak GPU memory
  error    the phase that failed and why (the others still report)

    python3 bench/dlrm_train/dlrm.py --impl emb_eager --lib build/lib/libembrt.so \
        --out /tmp/dlrm_train.jsonl
    python3 bench/dlrm_train/dlrm.py --impl torch_rowwise --device cpu --batch 64 \
        --cap-rows 1000 --curve-steps 5 --steps 2    # a smoke run without a GPU
"""
import argparse
import collections
import json
import math
import os
import statistics
import sys
import time
import traceback

import torch
import torch.nn.functional as F
from torch import nn
from torch.autograd import DeviceType
from torch.profiler import ProfilerActivity, profile, record_function

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_split import split_kernels  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DEV = "cuda"  # --device: "cpu" for a smoke run of the torch implementations at a small size

# MLPerf DLRMv2 (Criteo 1TB, multi-hot): the reference's --num_embeddings_per_feature and
# --multi_hot_sizes (mlcommons training recommendation_v2/torchrec_dlrm).
NUM_EMBEDDINGS = [40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956,
                  405282, 10, 2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152,
                  12973, 108, 36]
MULTI_HOT = [3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1, 6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1]
KEYS = ["cat_%d" % i for i in range(len(NUM_EMBEDDINGS))]
NF = len(KEYS)
DIM = 128
DENSE_IN = 13
BOTTOM = [512, 256, 128]
TOP = [1024, 1024, 512, 256, 1]
CROSS_LAYERS, CROSS_RANK = 3, 512

IMPLS = ("emb_eager", "emb_compiled", "torch_eager", "torch_compiled_dense", "torch_rowwise")

# record_function ranges of the torch implementations' sparse part (main thread).
SPARSE_FORWARD, SPARSE_BACKWARD, SPARSE_OPTIMIZER = (
    "dlrm::sparse_forward", "dlrm::sparse_backward", "dlrm::sparse_optimizer")
# emb's kernels by name (kernels/tbe.cu, kernels/tbe_backward.cu, and CUB's sort, encode and
# scan under the backward): a cross-check of the attribution by op, emb implementations only.
EMB_KERNEL_KEYS = ("tbeForward", "linearize", "classify", "accumulateKernel", "shortRuns",
                   "Onesweep", "RadixSort", "DeviceScan", "ExclusiveSum", "RunLengthEncode",
                   "ReduceByKey", "DeviceCompact", "ScanInit", "CompactInit", "SingleTile")

Batch = collections.namedtuple("Batch", "values lengths offsets dense labels")


#===------------------------------------------------------------------------------------------===#
# Data
#===------------------------------------------------------------------------------------------===#

def draw_ids(rows, n, alpha, gen, perm):
    """n ids of a table of `rows`: uniform, or Zipf(alpha) ranks (inverse transform of the
    power law on [1, rows + 1)) mapped to rows by `perm`, so that the hot rows are scattered."""
    if alpha <= 0:
        return torch.randint(0, rows, (n,), generator=gen, device=DEV)
    u = torch.rand(n, generator=gen, device=DEV, dtype=torch.float64)
    if abs(alpha - 1.0) < 1e-9:
        x = torch.exp(u * math.log(rows + 1.0))
    else:
        a1 = 1.0 - alpha
        x = (u * ((rows + 1.0) ** a1 - 1.0) + 1.0) ** (1.0 / a1)
    rank = (x.floor().long() - 1).clamp_(0, rows - 1)
    return perm[rank]


class Data:
    """The ring of batches in TorchRec's KeyedJaggedTensor layout: values feature-major, feature
    f's bag b at values[offsets[f * B + b] : offsets[f * B + b + 1]]. The multi-hot sizes are
    fixed, so lengths and offsets are the same in every batch."""

    def __init__(self, args):
        B = self.batch = args.batch
        self.rows = [min(e, args.cap_rows) for e in NUM_EMBEDDINGS]
        self.counts = [B * n for n in MULTI_HOT]  # ids of each feature in a batch
        self.starts = [sum(self.counts[:f]) for f in range(NF)]
        self.num_ids = sum(self.counts)
        gen = torch.Generator(device=DEV)
        gen.manual_seed(args.seed + 1)
        perms = ([torch.randperm(r, generator=gen, device=DEV) for r in self.rows]
                 if args.zipf > 0 else [None] * NF)
        lengths = torch.tensor(MULTI_HOT, dtype=torch.int64, device=DEV).repeat_interleave(B)
        offsets = torch.zeros(NF * B + 1, dtype=torch.int64, device=DEV)
        torch.cumsum(lengths, 0, out=offsets[1:])
        self.ring = []
        for _ in range(args.ring):
            values = torch.cat([draw_ids(r, n, args.zipf, gen, p)
                                for r, n, p in zip(self.rows, self.counts, perms)])
            dense = torch.randn(B, DENSE_IN, generator=gen, device=DEV)
            labels = torch.bernoulli(torch.full((B,), 0.5, device=DEV), generator=gen)
            self.ring.append(Batch(values, lengths, offsets, dense, labels))
        del perms


def table_init(seed, t):
    """TorchRec's init (uniform in +-sqrt(1 / rows)) from a generator of table t's own: every
    implementation starts from the same tables whatever their layout (one tensor a table, or a
    slice of one concatenated tensor: the same shape and strides draw the same numbers)."""
    def init(w):
        gen = torch.Generator(device=w.device)
        gen.manual_seed(seed * 1009 + t)
        bound = math.sqrt(1.0 / w.shape[0])
        with torch.no_grad():
            return w.uniform_(-bound, bound, generator=gen)
    return init


#===------------------------------------------------------------------------------------------===#
# The dense part (the same torch code for every implementation)
#===------------------------------------------------------------------------------------------===#

def mlp(sizes, last_relu):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if last_relu or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class LowRankCrossNet(nn.Module):
    """TorchRec's LowRankCrossNet: x_{l+1} = x_0 * (W_l (V_l x_l) + b_l) + x_l, W_l [N, r] and
    V_l [r, N] xavier-normal, b_l zero. The products are taken as [B, N] x [N, r] matmuls (TorchRec
    writes them as batched [N, r] x [r, 1]; the same sums)."""

    def __init__(self, n, layers, rank):
        super().__init__()
        self.W = nn.ParameterList([nn.Parameter(nn.init.xavier_normal_(torch.empty(n, rank)))
                                   for _ in range(layers)])
        self.V = nn.ParameterList([nn.Parameter(nn.init.xavier_normal_(torch.empty(rank, n)))
                                   for _ in range(layers)])
        self.b = nn.ParameterList([nn.Parameter(torch.zeros(n)) for _ in range(layers)])

    def forward(self, x0):
        x = x0
        for W, V, b in zip(self.W, self.V, self.b):
            x = x0 * (F.linear(F.linear(x, V), W) + b) + x
        return x


class DenseArch(nn.Module):
    """Everything but the tables: forward(dense features, pooled embeddings [B, 26 * 128],
    labels) -> the loss. bf16 autocast as MLPerf runs it; the loss in f32."""

    def __init__(self):
        super().__init__()
        n = (NF + 1) * DIM
        self.bottom = mlp([DENSE_IN] + BOTTOM, last_relu=True)
        self.cross = LowRankCrossNet(n, CROSS_LAYERS, CROSS_RANK)
        self.top = mlp([n] + TOP, last_relu=False)

    def forward(self, dense, pooled, labels):
        with torch.autocast(DEV.split(":")[0], dtype=torch.bfloat16):
            x = torch.cat([self.bottom(dense), pooled], dim=1)
            logits = self.top(self.cross(x)).squeeze(1)
        return F.binary_cross_entropy_with_logits(logits.float(), labels)


#===------------------------------------------------------------------------------------------===#
# Implementations
#===------------------------------------------------------------------------------------------===#

class Trainer:
    """The dense part, its Adagrad and the dense step all implementations share.

    step(batch) -> loss: forward, loss, backward, both optimizers (no host sync of ours).
    pooled(batch): the sparse part's output without gradients (the dense part's input alone).
    sparse_ops / sparse_substrings: the profiler events whose kernels are the sparse part.
    """

    sparse_ops = ()
    sparse_substrings = ()

    def __init__(self, args, data):
        self.args, self.data = args, data
        torch.manual_seed(args.seed)  # the dense init, on the CPU: the same on every side
        self.dense = DenseArch().to(DEV)
        self.dense_opt = torch.optim.Adagrad(self.dense.parameters(), lr=args.lr_dense,
                                             eps=args.eps)
        self.dense_fn = self.dense

    def dense_step(self, b, pooled):
        self.dense_opt.zero_grad(set_to_none=True)
        pooled.grad = None
        loss = self.dense_fn(b.dense, pooled, b.labels)
        loss.backward()
        self.dense_opt.step()
        return loss.detach()

    def check(self, steps):
        return {}

    def state_bytes(self):
        return 0


class EmbDLRM(nn.Module):
    """forward(dense features, KeyedJaggedTensor, labels) -> loss, as TorchRec's DLRM takes its
    batch."""

    def __init__(self, ebc, dense):
        super().__init__()
        self.ebc, self.dense = ebc, dense

    def forward(self, dense, kjt, labels):
        return self.dense(dense, self.ebc(kjt).values(), labels)


class EmbTrainer(Trainer):
    """emb_eager / emb_compiled: emb_torch's EmbeddingBagCollection, fused exact rowwise Adagrad
    (FBGEMM's fused_params), the tables updated inside loss.backward()."""

    sparse_ops = ("emb::tbe_forward_train", "emb::tbe_backward_rowwise_adagrad")

    def __init__(self, args, data, compiled):
        super().__init__(args, data)
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import emb_torch
        emb_torch.runtime(args.lib)
        self.et = emb_torch
        tables = [emb_torch.EmbeddingBagConfig(name="t_" + k, embedding_dim=DIM,
                                               num_embeddings=rows, feature_names=[k],
                                               init_fn=table_init(args.seed, t))
                  for t, (k, rows) in enumerate(zip(KEYS, data.rows))]
        self.ebc = emb_torch.EmbeddingBagCollection(
            tables=tables, device=DEV, bounds_check_mode=args.bounds_check,
            fused_params={"optimizer": "exact_rowwise_adagrad", "learning_rate": args.lr_sparse,
                          "eps": args.eps})
        self.model = EmbDLRM(self.ebc, self.dense)
        self.forward_fn, self.step_fn = self.model, None
        self.scope = None
        if compiled:
            self.scope = args.compile_scope
            if self.scope == "step":
                def fwd_bwd(dense, kjt, labels):
                    loss = self.model(dense, kjt, labels)
                    loss.backward()
                    return loss.detach()
                self.step_fn = torch.compile(fwd_bwd, fullgraph=True)
            else:
                self.forward_fn = torch.compile(self.model, fullgraph=True)
            self.dense_fn = torch.compile(self.dense, fullgraph=True)

    def kjt(self, b):
        # lengths and offsets both given: the module reads the offsets, nothing is recomputed.
        return self.et.KeyedJaggedTensor(keys=KEYS, values=b.values, lengths=b.lengths,
                                         offsets=b.offsets)

    def step(self, b):
        self.dense_opt.zero_grad(set_to_none=True)
        if self.step_fn is not None:
            loss = self.step_fn(b.dense, self.kjt(b), b.labels)
        else:
            loss = self.forward_fn(b.dense, self.kjt(b), b.labels)
            loss.backward()
            loss = loss.detach()
        self.dense_opt.step()
        return loss

    def pooled(self, b):
        with torch.no_grad():
            return self.ebc(self.kjt(b)).values()

    def check(self, steps):
        # The fused backward adds one to the group's step count each time it runs: a compiled
        # step that lost the tables' update (no gradient reaching the lookup) shows here.
        ran = int(self.ebc.step_0.item())
        out = {"emb_backward_runs": ran, "steps": steps, "scope": self.scope}
        if ran != steps:
            out["error"] = ("emb's fused backward ran %d times in %d steps: the tables did not "
                            "train once a step" % (ran, steps))
        return out

    def state_bytes(self):
        return sum(self.data.rows) * 4  # one f32 a row


class TorchBagsTrainer(Trainer):
    """torch_eager / torch_compiled_dense: nn.EmbeddingBag(mode="sum", sparse=True) a table (as
    TorchRec's unsharded EmbeddingBagCollection), torch.optim.Adagrad on the sparse gradients."""

    sparse_ops = (SPARSE_FORWARD, SPARSE_OPTIMIZER)
    sparse_substrings = ("EmbeddingBagBackward", "embedding_bag_backward",
                         "embedding_bag_sparse_backward", "embedding_bag_dense_backward")

    def __init__(self, args, data, compiled_dense):
        super().__init__(args, data)
        self.bags = nn.ModuleList()
        for t, rows in enumerate(data.rows):
            bag = nn.EmbeddingBag(rows, DIM, mode="sum", sparse=True, include_last_offset=True,
                                  device=DEV)
            table_init(args.seed, t)(bag.weight)
            self.bags.append(bag)
        self.sparse_opt = torch.optim.Adagrad(self.bags.parameters(), lr=args.lr_sparse,
                                              eps=args.eps)
        if compiled_dense:
            self.dense_fn = torch.compile(self.dense, fullgraph=True)

    def lookup(self, b):
        # Each feature's ids are a slice (the fixed multi-hot sizes give the counts on the host;
        # TorchRec's KeyedJaggedTensor.split reads them from the device) and its offsets the
        # batch's, rebased.
        B = self.data.batch
        with record_function(SPARSE_FORWARD):
            outs = []
            for f, bag in enumerate(self.bags):
                s, n = self.data.starts[f], self.data.counts[f]
                offsets = b.offsets[f * B:(f + 1) * B + 1] - b.offsets[f * B]
                outs.append(bag(b.values[s:s + n], offsets))
            return torch.cat(outs, dim=1)

    def step(self, b):
        self.dense_opt.zero_grad(set_to_none=True)
        self.sparse_opt.zero_grad(set_to_none=True)
        loss = self.dense_fn(b.dense, self.lookup(b), b.labels)
        loss.backward()
        self.dense_opt.step()
        with record_function(SPARSE_OPTIMIZER):
            self.sparse_opt.step()
        return loss.detach()

    def pooled(self, b):
        with torch.no_grad():
            return self.lookup(b)

    def state_bytes(self):
        return sum(self.data.rows) * DIM * 4  # Adagrad's sum: one f32 an element


class RowwiseTrainer(Trainer):
    """torch_rowwise: exact rowwise Adagrad written in torch, what a skilled user writes without
    FBGEMM. The tables are one nn.EmbeddingBag's weight (the tables' rows one after another), so
    that the lookup is one F.embedding_bag and the update one torch.unique: one host sync a step
    (unique's count), against one a table with a module a table."""

    sparse_ops = (SPARSE_FORWARD, SPARSE_BACKWARD)

    def __init__(self, args, data):
        super().__init__(args, data)
        total = sum(data.rows)
        self.bag = nn.EmbeddingBag(total, DIM, mode="sum", include_last_offset=True, device=DEV)
        self.bag.weight.requires_grad_(False)
        bases, base = [], 0
        for t, rows in enumerate(data.rows):
            table_init(args.seed, t)(self.bag.weight[base:base + rows])
            bases.append(base)
            base += rows
        self.table_base = torch.tensor(bases, dtype=torch.int64, device=DEV)
        self.momentum = torch.zeros(total, device=DEV)
        self.bag_ids = torch.arange(NF * data.batch, device=DEV)

    def lookup(self, b):
        """pooled [B, 26 * 128] (a leaf, no graph behind it), and what the update needs."""
        B = self.data.batch
        with torch.no_grad(), record_function(SPARSE_FORWARD):
            # Each id's bag (f * B + b) from the lengths, its table, its row in the big table.
            bag = torch.repeat_interleave(self.bag_ids, b.lengths, output_size=b.values.numel())
            feature = torch.div(bag, B, rounding_mode="floor")
            ids = b.values + self.table_base[feature]
            out = self.bag(ids, b.offsets)  # [26 * B, 128], feature-major
            pooled = out.view(NF, B, DIM).transpose(0, 1).reshape(B, NF * DIM)
        return pooled, (bag, feature, ids)

    def update(self, grad, saved):
        """Exact rowwise Adagrad (FBGEMM's EXACT_ROWWISE_ADAGRAD, emb's rowwise_adagrad): per
        touched row r, g = the sum of its ids' bag gradients, s_r += mean(g^2), and
        w_r -= lr * g / (sqrt(s_r) + eps)."""
        B = self.data.batch
        lr, eps = self.args.lr_sparse, self.args.eps
        bag, feature, ids = saved
        with torch.no_grad(), record_function(SPARSE_BACKWARD):
            grad_row = (bag - feature * B) * NF + feature  # the id's row of grad [B * 26, 128]
            per_id = grad.reshape(B * NF, DIM).index_select(0, grad_row)
            rows, inverse = torch.unique(ids, return_inverse=True)
            g = torch.zeros(rows.numel(), DIM, device=DEV).index_add_(0, inverse, per_id)
            s = self.momentum.index_select(0, rows).add_(g.square().mean(dim=1))
            self.momentum.index_copy_(0, rows, s)
            # rows are unique: index_add_ adds each update once.
            self.bag.weight.index_add_(0, rows, g.mul_((-lr / (s.sqrt() + eps)).unsqueeze(1)))

    def step(self, b):
        self.dense_opt.zero_grad(set_to_none=True)
        pooled, saved = self.lookup(b)
        pooled.requires_grad_(True)
        loss = self.dense_fn(b.dense, pooled, b.labels)
        loss.backward()
        self.dense_opt.step()
        self.update(pooled.grad, saved)
        return loss.detach()

    def pooled(self, b):
        return self.lookup(b)[0]

    def state_bytes(self):
        return sum(self.data.rows) * 4


def make_trainer(args, data):
    if args.impl in ("emb_eager", "emb_compiled"):
        return EmbTrainer(args, data, compiled=args.impl == "emb_compiled")
    if args.impl in ("torch_eager", "torch_compiled_dense"):
        return TorchBagsTrainer(args, data, compiled_dense=args.impl == "torch_compiled_dense")
    return RowwiseTrainer(args, data)


#===------------------------------------------------------------------------------------------===#
# Measurements
#===------------------------------------------------------------------------------------------===#

def cuda():
    return torch.device(DEV).type == "cuda"


def sync():
    if cuda():
        torch.cuda.synchronize()


def timed(fn, batches, start, steps, runs):
    """ms a step of each run: CUDA events around `steps` calls, no host sync between them (on
    the CPU, the host's clock)."""
    out = []
    i = start
    for _ in range(runs):
        sync()
        if cuda():
            begin = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            begin.record()
        t0 = time.perf_counter()
        for _ in range(steps):
            fn(i % len(batches))
            i += 1
        if cuda():
            end.record()
            end.synchronize()
            out.append(begin.elapsed_time(end) / steps)
        else:
            out.append((time.perf_counter() - t0) * 1e3 / steps)
    return out, i


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--impl", required=True, choices=IMPLS)
    ap.add_argument("--lib", default=None, help="libembrt.so (emb implementations)")
    ap.add_argument("--device", default="cuda",
                    help="cuda; cpu runs the torch implementations at a small size, a smoke test")
    ap.add_argument("--out", default=None, help="JSON lines appended here")
    ap.add_argument("--batch", type=int, default=16384)
    ap.add_argument("--cap-rows", type=int, default=20_000_000,
                    help="rows of a table at most (MLPerf's largest are 40M)")
    ap.add_argument("--zipf", type=float, default=0.0, help="Zipf alpha of the ids; 0: uniform")
    ap.add_argument("--ring", type=int, default=8, help="batches generated before timing")
    ap.add_argument("--curve-steps", type=int, default=200,
                    help="steps from the init whose losses are recorded (also the warm-up)")
    ap.add_argument("--steps", type=int, default=20, help="steps a timed run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile-steps", type=int, default=3)
    ap.add_argument("--profile-runs", type=int, default=3)
    ap.add_argument("--dense-warmup", type=int, default=5)
    ap.add_argument("--lr-sparse", type=float, default=0.005)
    ap.add_argument("--lr-dense", type=float, default=0.0001)
    ap.add_argument("--eps", type=float, default=1e-8)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bounds-check", default="fatal",
                    help="emb's bounds_check_mode (fatal, warning, ignore, none)")
    ap.add_argument("--compile-scope", default="forward", choices=("forward", "step"),
                    help="emb_compiled: compile forward + loss (the backward is compiled with "
                         "them), or the function that also calls loss.backward()")
    a = ap.parse_args()
    out = open(a.out, "a") if a.out else None

    def emit(kind, **kw):
        rec = dict(kind=kind, impl=a.impl, **kw)
        if out:
            out.write(json.dumps(rec) + "\n")
            out.flush()
        shown = {k: (v if not isinstance(v, list) or len(v) <= 8 else
                     v[:3] + ["..."] + v[-3:]) for k, v in rec.items()}
        print(json.dumps(shown), flush=True)

    def fail(phase, e):
        emit("error", phase=phase, error="%s: %s" % (type(e).__name__, str(e).splitlines()[0]
                                                     if str(e) else ""))
        traceback.print_exc()

    if a.curve_steps < 1 or a.steps < 1 or a.runs < 1:
        ap.error("--curve-steps, --steps and --runs must be at least 1")
    global DEV
    DEV = a.device
    data = Data(a)
    rows = sum(data.rows)
    emit("config", torch=torch.__version__, cuda=torch.version.cuda,
         device=torch.cuda.get_device_name() if cuda() else DEV, batch=a.batch, dim=DIM, features=NF,
         multi_hot=MULTI_HOT, rows=data.rows, cap_rows=a.cap_rows, total_rows=rows,
         ids_per_batch=data.num_ids, zipf=a.zipf, ring=a.ring, lr_sparse=a.lr_sparse,
         lr_dense=a.lr_dense, eps=a.eps, bounds_check=a.bounds_check,
         compile_scope=a.compile_scope if a.impl == "emb_compiled" else None,
         table_gb=rows * DIM * 4 / 1e9)
    try:
        tr = make_trainer(a, data)
    except Exception as e:  # noqa: BLE001  (recorded: the other implementations still run)
        fail("setup", e)
        return 1
    emit("memory", table_gb=rows * DIM * 4 / 1e9, state_gb=tr.state_bytes() / 1e9,
         allocated_gb=torch.cuda.memory_allocated() / 1e9 if cuda() else None)
    ring = data.ring

    # The loss curve from the init: every implementation sees the same batches in the same order.
    try:
        losses = torch.empty(a.curve_steps, device=DEV)
        t0 = time.perf_counter()
        losses[0] = tr.step(ring[0])
        sync()
        first = time.perf_counter() - t0
        for i in range(1, a.curve_steps):
            losses[i] = tr.step(ring[i % len(ring)])
        curve = losses.tolist()
        emit("curve", steps=a.curve_steps, first_step_s=round(first, 3), losses=curve)
        checks = tr.check(a.curve_steps)
        if not all(math.isfinite(x) for x in curve):
            checks["error"] = "a loss is not finite"
        emit("check", **checks)
        if "error" in checks:
            return 1
    except Exception as e:  # noqa: BLE001
        fail("curve", e)
        return 1
    i = a.curve_steps

    try:
        runs, i = timed(lambda k: tr.step(ring[k]), ring, i, a.steps, a.runs)
        emit("step", ms=statistics.median(runs), ms_runs=runs, steps=a.steps)
    except Exception as e:  # noqa: BLE001
        fail("step", e)
        return 1

    try:
        emb_keys = EMB_KERNEL_KEYS if a.impl.startswith("emb") else ()
        parts = []
        for _ in range(a.profile_runs):
            sync()
            activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda() else [])
            with profile(activities=activities) as prof:
                for _ in range(a.profile_steps):
                    tr.step(ring[i % len(ring)])
                    i += 1
                sync()
            parts.append(split_kernels(prof.events(), tr.sparse_ops, tr.sparse_substrings,
                                       emb_keys, DeviceType.CPU, DeviceType.CUDA))
        n = a.profile_steps * 1e3  # us over the window -> ms a step
        emb_runs = [p[0] / n for p in parts]
        total_runs = [p[1] / n for p in parts]
        rec = dict(embedding_ms=statistics.median(emb_runs), embedding_ms_runs=emb_runs,
                   kernel_ms=statistics.median(total_runs), kernel_ms_runs=total_runs,
                   dense_kernel_ms=statistics.median([t - s for s, t in
                                                      zip(emb_runs, total_runs)]),
                   kernels_a_step=parts[0][3] / a.profile_steps, steps=a.profile_steps,
                   method="ops " + ", ".join(tr.sparse_ops + tr.sparse_substrings))
        if emb_keys:
            rec["embedding_ms_by_kernel_name"] = statistics.median([p[2] / n for p in parts])
        # The sparse part's kernels by name (the first profiled window; ms a step, largest
        # first, names cut at 80 characters).
        rec["embedding_kernels_ms"] = {name[:80]: round(us / n, 4) for name, us in
                                       parts[0][4].most_common()}
        emit("profile", **rec)
    except Exception as e:  # noqa: BLE001  (the other measurements stand without it)
        fail("profile", e)

    try:
        pooled = [tr.pooled(b).detach().clone().requires_grad_(True) for b in ring]
        for k in range(a.dense_warmup):
            tr.dense_step(ring[k % len(ring)], pooled[k % len(ring)])
        runs, _ = timed(lambda k: tr.dense_step(ring[k], pooled[k]), ring, 0, a.steps, a.runs)
        emit("dense", ms=statistics.median(runs), ms_runs=runs, steps=a.steps)
        del pooled
    except Exception as e:  # noqa: BLE001
        fail("dense", e)
    emit("memory", peak_gb=torch.cuda.max_memory_allocated() / 1e9 if cuda() else None)
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Tests emb_torch.quant.EmbeddingBagCollection: TorchRec's quantized EmbeddingBagCollection on emb.

Against emb_torch.EmbeddingBagCollection (float32 tables) holding the values the quantized tables
read as (emb::dequantize_table): INT8, INT4, INT2, FP8, FP16 and FP32 tables mixed in one module,
SUM and MEAN, weighted features, float32/float16/bfloat16 outputs; the same numbers, up to one
rounding to the output dtype. from_float's bytes are emb::quantize_table's; TorchRec's forms of
the rows (FBGEMM's fused rows with scale and bias last, a float table's bytes, split scale/bias
state dicts, UInt4Tensor-like wrappers) load to the same bytes, built here with the FBGEMM
quantizer written in torch (test_quantized.ref_quantize); state_dict keys and shapes are TorchRec's
and round trip through torch.save; key order and keys no table reads change nothing; .to(device)
moves the tables; a QuantConfig chooses data types and output dtype; bad tables, checkpoints and
inputs raise TypeError/ValueError/KeyError naming the table; on PyTorch 2.x torch.compile
(fullgraph) and torch.export give eager's output. Where torchrec imports, its own quantized
module is compared (its state dict loads here and gives the same output).

    python3 test/PyTorch/test_quant_modules.py [--device cuda|cpu] [--lib build/lib/libembrt.so]
Exit status 0 when every check passed; the last line says how many passed and failed.
"""
import io
import os
import sys
import types
from typing import Dict, NamedTuple, Optional

import torch

import harness  # noqa: E402  (test/PyTorch/harness.py)
from harness import check, run  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
import emb_torch as et  # noqa: E402
from emb_torch import quant  # noqa: E402
from emb_torch import quantized as Q  # noqa: E402
from test_quantized import ref_quantize  # noqa: E402

DEV = None
GEN = torch.Generator().manual_seed(41)
QEBC = quant.EmbeddingBagCollection
DT = et.DataType
PRECISION = {"INT8": "int8", "INT4": "int4", "INT2": "int2", "FP8": "fp8"}

# name, rows, D, features, data type, pooling
TABLES = [("t_i8", 40, 16, ["a", "b"], "INT8", "SUM"),
          ("t_i4", 30, 8, ["c"], "INT4", "SUM"),
          ("t_m", 15, 8, ["m"], "INT4", "MEAN"),
          ("t_i2", 20, 12, ["d"], "INT2", "SUM"),
          ("t_f8", 25, 5, ["e"], "FP8", "SUM"),
          ("t_h", 10, 6, ["g"], "FP16", "SUM"),
          ("t_f", 12, 4, ["h"], "FP32", "SUM")]


def configs(tables=TABLES, float_tables=False):
    return [et.EmbeddingBagConfig(name=n, num_embeddings=r, embedding_dim=d, feature_names=f,
                                  data_type=DT.FP32 if float_tables else DT[t],
                                  pooling=et.PoolingType[p])
            for n, r, d, f, t, p in tables]


def float_module(tables=TABLES, weighted=False):
    """A float EmbeddingBagCollection with normal tables (wide and zero rows among them)."""
    ebc = et.EmbeddingBagCollection(configs(tables, True), is_weighted=weighted, device=DEV)
    with torch.no_grad():
        for n, r, d, _, _, _ in tables:
            w = torch.randn((r, d), generator=GEN)
            w[1] = 0.0
            w[2] *= 100.0
            ebc.embedding_bags[n].weight.copy_(w)
    return ebc


def data_types(tables=TABLES):
    return {n: t for n, _, _, _, t, _ in tables}


def reference(q, tables=TABLES, weighted=False):
    """A float32 EmbeddingBagCollection holding what q's tables read as."""
    ref = et.EmbeddingBagCollection(configs(tables, True), is_weighted=weighted, device=DEV)
    with torch.no_grad():
        for n, _, d, _, t, _ in tables:
            w = q.embedding_bags[n].weight
            if t in PRECISION:
                w = torch.ops.emb.dequantize_table(w, PRECISION[t], d, torch.float32)
            ref.embedding_bags[n].weight.copy_(w.float())
    return ref


def kjt(keys, rows, weighted=False, B=4, extra=None):
    """A KJT of `keys` (rows[k]: the table's rows), bag 1 of every key empty; `extra` keys
    (no table reads them) hold ids far outside every table."""
    keys = list(keys) + list(extra or [])
    lengths, ids = [], []
    for k in keys:
        for b in range(B):
            n = 0 if b == 1 else int(torch.randint(1, 5, (1,), generator=GEN))
            lengths.append(n)
            if k in rows:
                ids += torch.randint(0, rows[k], (n,), generator=GEN).tolist()
            else:
                ids += [10 ** 9] * n
    w = torch.rand((len(ids),), generator=GEN) + 0.5 if weighted else None
    return et.KeyedJaggedTensor(keys, torch.tensor(ids, dtype=torch.int64, device=DEV),
                                weights=None if w is None else w.to(DEV),
                                lengths=torch.tensor(lengths, dtype=torch.int64, device=DEV))


def rows_of(tables=TABLES):
    return {f: r for _, r, _, fs, _, _ in tables for f in fs}


def ulps(got, want):
    """The largest difference in units of the output dtype's spacing at the bag's largest value
    (a sum that cancels is as exact as its terms' magnitude, not its own)."""
    eps = torch.finfo(got.dtype).eps
    d = (got.double() - want.double()).abs()
    if not d.numel():
        return 0.0
    scale = want.double().abs().amax(-1, keepdim=True) * eps
    return float((d / scale.clamp(min=torch.finfo(got.dtype).tiny)).max())


#===------------------------------------------------------------------------------------------===#
# Tests
#===------------------------------------------------------------------------------------------===#

def test_matches_float():
    """Every data type, both poolings, every output dtype: the float module's numbers on the
    tables' values, rounded once to the output dtype."""
    for weighted in (False, True):
        tables = [t for t in TABLES if not (weighted and t[5] == "MEAN")]
        ebc = float_module(tables, weighted)
        keys = [f for t in tables for f in t[3]]
        feats = kjt(keys, rows_of(tables), weighted)
        for out in (torch.float32, torch.float16, torch.bfloat16):
            q = QEBC.from_float(ebc, per_table_data_type=data_types(tables), output_dtype=out)
            want = reference(q, tables, weighted)(feats)
            got = q(feats)
            # TorchRec's quantized order: SUM tables first (the first pooling), then MEAN.
            order = [f for p in ("SUM", "MEAN") for t in tables if t[5] == p for f in t[3]]
            check(got.keys() == order, "keys in TorchRec's quantized order: %s" % got.keys())
            check(got.values().dtype == out, "output dtype %s, got %s" % (out,
                                                                            got.values().dtype))
            worst = max(ulps(got[k], want[k].to(out)) for k in order)
            limit = 8.0 if out == torch.float32 else 1.0
            check(worst <= limit, "weighted=%s out %s: %.3g ulps from the float module's "
                  "numbers (at most %.3g)" % (weighted, out, worst, limit))
            if out != torch.float32:
                exact = all(torch.equal(got[k], want[k].to(out)) for k in order)
                print("weighted=%s out %s: %s" % (weighted, out, "equal to the float module's "
                      "rounded once" if exact else "within %.3g ulps" % worst))
    # Several groups: t_h (FP16) and t_f (FP32) cannot share a lookup; one call per pooling
    # otherwise.
    q = QEBC(configs(), device=DEV)
    check(len(q._groups) == 3, "SUM with FP16, SUM's FP32 and MEAN: 3 lookups, got %d"
          % len(q._groups))


def test_from_float_bytes():
    ebc = float_module()
    q = QEBC.from_float(ebc, per_table_data_type=data_types())
    for n, _, _, _, t, _ in TABLES:
        w = ebc.embedding_bags[n].weight
        got = q.embedding_bags[n].weight
        want = torch.ops.emb.quantize_table(w, PRECISION[t]) if t in PRECISION else \
            w.to({"FP16": torch.float16, "FP32": torch.float32}[t])
        check(torch.equal(got, want), "from_float table %s (%s) holds quantize_table's rows"
              % (n, t))
    check(q.output_dtype() == torch.float32 and q.is_weighted() is False and
          q.device.type == DEV.type, "output_dtype() float32 by default (TorchRec's), "
          "is_weighted, device")
    check([c.data_type for c in q.embedding_bag_configs()] == [DT[t[4]] for t in TABLES],
          "embedding_bag_configs() carry the data types")
    check([c.data_type for c in ebc.embedding_bag_configs()] == [DT.FP32] * len(TABLES),
          "the float module's configs are left as they were")
    check(q._get_name() == "QuantizedEmbeddingBagCollection", "printed as TorchRec's")


def test_key_order():
    ebc = float_module()
    q = QEBC.from_float(ebc, data_type="INT8", per_table_data_type={"t_i4": DT.INT4})
    keys = [f for t in TABLES for f in t[3]]
    feats = kjt(keys, rows_of())
    base = q(feats)
    # The same bags under a shuffled key order, with keys no table reads (ids far out of range).
    perm = torch.randperm(len(keys), generator=GEN).tolist()
    d = feats.to_dict()
    shuffled = [keys[i] for i in perm] + ["zz", "yy"]
    vals, lens = [], []
    for k in shuffled:
        if k in d:
            vals.append(d[k].values())
            lens.append(d[k].lengths())
        else:
            lens.append(torch.full((4,), 2, dtype=torch.int64, device=DEV))
            vals.append(torch.full((8,), 10 ** 9, dtype=torch.int64, device=DEV))
    other = et.KeyedJaggedTensor(shuffled, torch.cat(vals), lengths=torch.cat(lens))
    got = q(other)
    check(got.keys() == base.keys() and torch.equal(got.values(), base.values()),
          "a shuffled key order with unread keys gives the same output")


def test_state_dict():
    ebc = float_module()
    q = QEBC.from_float(ebc, per_table_data_type=data_types(), output_dtype=torch.float16)
    sd = q.state_dict()
    check(list(sd) == ["embedding_bags.%s.weight" % t[0] for t in TABLES],
          "state_dict keys are TorchRec's: %s" % list(sd))
    # Where torchrec imports, INT4/INT2 rows come in its UInt4Tensor/UInt2Tensor (rows in .elem),
    # as its own module's do.
    shapes = {k.split(".")[1]: (tuple(getattr(v, "elem", v).shape), v.dtype)
              for k, v in sd.items()}
    want = {"t_i8": (40, 32), "t_i4": (30, 16), "t_m": (15, 16), "t_i2": (20, 16),
            "t_f8": (25, 16), "t_h": (10, 16), "t_f": (12, 16)}
    for n, shape in want.items():
        check(shapes[n] == (shape, torch.uint8), "%s: uint8 %s (TorchRec's padded rows), got %s"
              % (n, shape, shapes[n]))
    check(torch.equal(sd["embedding_bags.t_h.weight"][:, :12],
                      q.embedding_bags["t_h"].weight.view(torch.uint8)),
          "an FP16 table's state is its rows' bytes")
    buf = io.BytesIO()
    torch.save(sd, buf)
    buf.seek(0)
    fresh = QEBC(configs(), device=DEV, output_dtype=torch.float16)
    fresh.load_state_dict(torch.load(buf))
    feats = kjt([f for t in TABLES for f in t[3]], rows_of())
    check(all(torch.equal(fresh.embedding_bags[t[0]].weight, q.embedding_bags[t[0]].weight)
              for t in TABLES), "torch.save round trip: every table's rows equal")
    check(torch.equal(fresh(feats).values(), q(feats).values()),
          "torch.save round trip: the same output")
    # TorchRec's split scale/bias form.
    split = QEBC(configs(), device=DEV, output_dtype=torch.float16,
                 quant_state_dict_split_scale_bias=True)
    split.load_state_dict(sd)
    ssd = split.state_dict()
    check(torch.equal(split(feats).values(), q(feats).values()),
          "the padded form loads into a split-form module")
    check(tuple(ssd["embedding_bags.t_i4.weight"].shape) == (30, 4) and
          tuple(ssd["embedding_bags.t_i4.weight_qscale"].shape) == (30, 1) and
          ssd["embedding_bags.t_i4.weight_qbias"].dtype == torch.float16,
          "split: an INT4 D 8 table is weight [30, 4], weight_qscale/qbias float16 [30, 1]")
    check(tuple(ssd["embedding_bags.t_f8.weight"].shape) == (25, 9) and
          "embedding_bags.t_f8.weight_qscale" not in ssd and
          tuple(ssd["embedding_bags.t_h.weight"].shape) == (10, 12),
          "split: FP8 and FP16 tables hold their unpadded rows alone")
    scale = q.embedding_bags["t_i8"].weight[:, 0:2].contiguous().view(torch.float16)
    check(torch.equal(ssd["embedding_bags.t_i8.weight_qscale"], scale),
          "split: weight_qscale is the rows' fp16 scale")
    back = QEBC(configs(), device=DEV, output_dtype=torch.float16)
    back.load_state_dict(ssd)
    check(all(torch.equal(back.embedding_bags[t[0]].weight[:, :Q.row_bytes(
        PRECISION[t[4]], t[2])] if t[4] in PRECISION else back.embedding_bags[t[0]].weight,
        q.embedding_bags[t[0]].weight) for t in TABLES),
          "the split form loads into a padded-form module, the same rows")


def test_torchrec_forms():
    """Rows as TorchRec's quantize_state_dict hands them (FBGEMM's fused rows: columns, then
    fp16 scale and bias; a float table's bytes), built with the FBGEMM quantizer in torch."""
    ebc = float_module()
    q = QEBC.from_float(ebc, per_table_data_type=data_types())
    given = {}
    for n, _, d, _, t, _ in TABLES:
        w = ebc.embedding_bags[n].weight.detach().cpu()
        if t in ("INT8", "INT4", "INT2"):
            ref = ref_quantize(w, PRECISION[t])
            nb = d * Q.BITS[PRECISION[t]] // 8
            fused = torch.cat([ref[:, 4:4 + nb], ref[:, 0:4]], 1)  # FBGEMM's SBHalf rows
            given[n] = (fused[:, :-4].to(DEV), fused[:, -4:].to(DEV))
        elif t == "FP8":
            given[n] = (ref_quantize(w, "fp8").to(DEV), None)
        else:
            dt = {"FP16": torch.float16, "FP32": torch.float32}[t]
            given[n] = (w.to(dt).contiguous().view(torch.uint8).to(DEV), None)
    tr = QEBC(configs(), device=DEV, table_name_to_quantized_weights=given)
    for t in TABLES:
        check(torch.equal(tr.embedding_bags[t[0]].weight, q.embedding_bags[t[0]].weight),
              "table_name_to_quantized_weights %s (%s): the same rows as from_float"
              % (t[0], t[4]))
    # TorchRec's UInt4Tensor/UInt2Tensor hold the rows in `.elem`.
    sd = dict(q.state_dict())
    sd["embedding_bags.t_i4.weight"] = types.SimpleNamespace(elem=sd["embedding_bags.t_i4.weight"])
    fresh = QEBC(configs(), device=DEV)
    fresh.load_state_dict(sd)
    check(torch.equal(fresh.embedding_bags["t_i4"].weight, q.embedding_bags["t_i4"].weight),
          "a wrapped int4 weight (.elem) loads")
    # A float table's float rows load too.
    sd = dict(q.state_dict())
    sd["embedding_bags.t_h.weight"] = q.embedding_bags["t_h"].weight.clone()
    fresh.load_state_dict(sd)
    check(torch.equal(fresh.embedding_bags["t_h"].weight, q.embedding_bags["t_h"].weight),
          "an FP16 table's float16 rows load")


def test_to_device():
    ebc = float_module()
    q = QEBC.from_float(ebc, per_table_data_type=data_types())
    names = sorted(n for n, _ in q.named_buffers())
    check(names == sorted("embedding_bags.%s.weight" % t[0] for t in TABLES),
          "the tables are buffers: %s" % names)
    feats = kjt([f for t in TABLES for f in t[3]], rows_of())
    here = q(feats).values()
    cpu = q.to("cpu")
    check(cpu.device.type == "cpu", "to(cpu) moves the tables")
    cpu_feats = et.KeyedJaggedTensor(feats.keys(), feats.values().cpu(),
                                     lengths=feats.lengths().cpu())
    # The same rows decoded the same way; the f32 sums may round differently in their order.
    worst = ulps(cpu(cpu_feats).values(), here.cpu())
    check(worst <= 1.0, "on the cpu: the device's output within an ulp (%.3g ulps)" % worst)
    back = cpu.to(DEV)
    check(back.device.type == DEV.type and torch.equal(back(feats).values(), here),
          "back on %s: the same output" % DEV)


class QuantConfig(NamedTuple):  # TorchRec's torchrec.modules.embedding_configs.QuantConfig
    activation: object
    weight: object
    per_table_weight_dtype: Optional[Dict[str, torch.dtype]] = None


def test_qconfig():
    from torch.ao.quantization import PlaceholderObserver
    ebc = float_module()
    ebc.qconfig = QuantConfig(
        activation=PlaceholderObserver.with_args(dtype=torch.float16),
        weight=PlaceholderObserver.with_args(dtype=torch.quint4x2),
        per_table_weight_dtype={"t_i8": torch.qint8, "t_i2": torch.quint2x4,
                                "t_h": torch.float16, "t_f": torch.float32, "t_i4": torch.quint8,
                                "t_f8": torch.quint8})
    quant.quant_prep_enable_quant_state_dict_split_scale_bias(ebc)
    q = QEBC.from_float(ebc)
    got = {c.name: c.data_type for c in q.embedding_bag_configs()}
    want = {"t_i8": DT.INT8, "t_i4": DT.INT8, "t_m": DT.INT4, "t_i2": DT.INT2, "t_f8": DT.INT8,
            "t_h": DT.FP16, "t_f": DT.FP32}
    check(got == want, "qconfig's dtypes give the data types: %s" % got)
    check(q.output_dtype() == torch.float16, "qconfig's activation dtype is the output dtype")
    check("embedding_bags.t_m.weight_qscale" in q.state_dict(),
          "quant_prep_enable_quant_state_dict_split_scale_bias: split state dict")
    if hasattr(torch, "float8_e4m3fn"):
        ebc.qconfig = QuantConfig(activation=PlaceholderObserver.with_args(dtype=torch.float16),
                                  weight=PlaceholderObserver.with_args(dtype=torch.float8_e4m3fn))
        q = QEBC.from_float(ebc, per_table_data_type={"t_f8": "FP8"})
        check(all(c.data_type == DT.FP8 for c in q.embedding_bag_configs()),
              "torch.float8_e4m3fn weights: emb's FP8 tables")


def test_errors():
    def cfg(**kw):
        base = dict(name="t", num_embeddings=10, embedding_dim=8, feature_names=["f"],
                    data_type=DT.INT4)
        base.update(kw)
        return [et.EmbeddingBagConfig(**base)]

    q = QEBC(cfg(), device=DEV)
    bad_sd = {"embedding_bags.t.weight": torch.zeros((10, 16), dtype=torch.float32)}
    cases = [
        (lambda: QEBC(cfg(embedding_dim=7), device=DEV), ValueError,
         "table 't': embedding_dim 7 cannot be stored as INT4: it packs 2 columns a byte"),
        (lambda: QEBC(cfg(embedding_dim=6, data_type=DT.INT2), device=DEV), ValueError,
         "table 't': embedding_dim 6 cannot be stored as INT2"),
        (lambda: QEBC(cfg(data_type="NFP8"), device=DEV), ValueError,
         "table 't': data_type NFP8 is not one emb serves"),
        (lambda: QEBC(cfg(data_type="INT3"), device=DEV), ValueError,
         "table 't': data_type INT3 is not one emb serves"),
        (lambda: QEBC(cfg(embedding_dim=4096), device=DEV), ValueError,
         "table 't': embedding_dim is 4096"),
        (lambda: QEBC(cfg(num_embeddings_post_pruning=6), device=DEV), ValueError,
         "table 't': num_embeddings_post_pruning is 6; emb does not remap pruned ids"),
        (lambda: QEBC(cfg(), device=DEV, output_dtype=torch.int32), TypeError,
         "output_dtype must be torch.float32, torch.float16 or torch.bfloat16, got torch.int32"),
        (lambda: QEBC(cfg(), device=DEV, row_alignment=8), ValueError, "row_alignment is 8"),
        (lambda: QEBC(cfg(pooling=et.PoolingType.MEAN), is_weighted=True, device=DEV),
         ValueError, "table 't': pooling MEAN with is_weighted=True"),
        (lambda: QEBC(cfg(), device=DEV, table_name_to_quantized_weights={
            "t": (torch.zeros((10, 4), dtype=torch.uint8), None)}), ValueError,
         "table 't': table_name_to_quantized_weights['t'] has shape (10, 4), must be [10, 16]"),
        (lambda: QEBC(cfg(), device=DEV, table_name_to_quantized_weights={
            "u": (torch.zeros((10, 16), dtype=torch.uint8), None)}), ValueError,
         "names table 'u'"),
        (lambda: q.load_state_dict(bad_sd), RuntimeError,
         "table 't': state_dict['embedding_bags.t.weight'] must be uint8 (packed INT4 rows), "
         "got torch.float32"),
        (lambda: q.load_state_dict({"embedding_bags.t.weight": torch.zeros(
            (9, 16), dtype=torch.uint8)}), RuntimeError,
         "table 't': state_dict['embedding_bags.t.weight'] has shape (9, 16), the table has 10 "
         "rows"),
        (lambda: q.load_state_dict({"embedding_bags.t.weight": torch.zeros(
            (10, 4), dtype=torch.uint8), "embedding_bags.t.weight_qscale": torch.zeros(
            (10, 1), dtype=torch.float16)}), RuntimeError,
         "table 't': weight_qscale comes without weight_qbias"),
        (lambda: q.load_state_dict({"embedding_bags.t.weight": torch.zeros(
            (10, 16), dtype=torch.uint8), "embedding_bags.t.extra": torch.zeros(1)}),
         RuntimeError, "Unexpected key(s) in state_dict: \"embedding_bags.t.extra\""),
        (lambda: q.load_state_dict({}), RuntimeError,
         "Missing key(s) in state_dict: \"embedding_bags.t.weight\""),
        (lambda: QEBC(cfg(data_type=DT.FP16), device=DEV).load_state_dict(
            {"embedding_bags.t.weight": torch.zeros((10, 8), dtype=torch.bfloat16)}),
         RuntimeError, "table 't': state_dict['embedding_bags.t.weight'] is torch.bfloat16"),
        (lambda: QEBC.from_float(et.EmbeddingBagCollection(cfg(data_type=DT.FP32),
                                                           device=DEV)), ValueError,
         "table 't' has no data type: give the module a qconfig"),
        (lambda: QEBC.from_float(et.EmbeddingBagCollection(cfg(data_type=DT.FP32), device=DEV),
                                 data_type="INT4", per_table_data_type={"x": "INT8"}),
         ValueError, "per_table_data_type names ['x']"),
        (lambda: QEBC.from_float(torch.nn.Linear(2, 2)), TypeError,
         "module must be an EmbeddingBagCollection"),
        (lambda: q(et.KeyedJaggedTensor(["g"], torch.tensor([0], device=DEV),
                                        lengths=torch.tensor([1], device=DEV))), KeyError,
         "has no key 'f'"),
        (lambda: q(et.KeyedJaggedTensor(["f"], torch.tensor([0.0], device=DEV),
                                        lengths=torch.tensor([1], device=DEV))), TypeError,
         "values and offsets must be int32 or int64"),
        (lambda: QEBC(cfg(), is_weighted=True, device=DEV)(et.KeyedJaggedTensor(
            ["f"], torch.tensor([0], device=DEV), lengths=torch.tensor([1], device=DEV))),
         ValueError, "is_weighted=True but the KeyedJaggedTensor has no weights"),
        (lambda: et.EmbeddingBagCollection(cfg(), device=DEV), ValueError,
         "emb_torch.quant.EmbeddingBagCollection serves INT8, INT4, INT2 and FP8 tables"),
    ]
    for fn, exc, text in cases:
        try:
            fn()
            check(False, "%s was not raised (%s)" % (exc.__name__, text))
        except exc as e:
            check(text in str(e), "%s names what is wrong: %s (want %r)" % (exc.__name__, e, text))
    # A bad id: EmbIndexError naming the feature and id, as the float module's.
    try:
        q(et.KeyedJaggedTensor(["f"], torch.tensor([12], device=DEV),
                               lengths=torch.tensor([1], device=DEV)))
        q.synchronize()
        check(False, "an id outside an INT4 table raised nothing")
    except et.EmbIndexError as e:
        check("id 12" in str(e), "the bad id is named: %s" % e)


def test_compile_export():
    """torch.compile(fullgraph=True) and torch.export of the module: one tbe_forward_quantized
    call in the graph, eager's numbers (PyTorch 2.x)."""
    if not hasattr(torch, "compile") or not hasattr(torch, "export"):
        print("note: this PyTorch has no torch.compile/torch.export; not checked")
        return
    tables = [t for t in TABLES if t[5] == "SUM" and t[4] in PRECISION]
    q = QEBC.from_float(float_module(tables), per_table_data_type=data_types(tables),
                        output_dtype=torch.float16)
    feats = kjt([f for t in tables for f in t[3]], rows_of(tables))
    want = q(feats).values()
    got = torch.compile(q, fullgraph=True)(feats).values()
    check(torch.equal(got, want), "compile fullgraph: eager's output")
    ep = torch.export.export(q, (feats,))
    text = str(ep.graph)
    check(text.count("emb.tbe_forward_quantized") == 1,
          "export: one emb.tbe_forward_quantized call in the graph")
    check(torch.equal(ep.module()(feats).values(), want), "export: eager's output")


def test_torchrec():
    """torchrec's own quantized EmbeddingBagCollection, where torchrec imports: its from_float
    and ours on one float module, its state dict loaded here, the same outputs."""
    try:
        import torchrec
        from torch.ao.quantization import PlaceholderObserver
        from torchrec.modules.embedding_configs import EmbeddingBagConfig as TrConfig
        from torchrec.modules.embedding_configs import QuantConfig as TrQuantConfig
        from torchrec.modules.embedding_modules import EmbeddingBagCollection as TrEBC
        from torchrec.quant.embedding_modules import EmbeddingBagCollection as TrQEBC
        from torchrec.sparse.jagged_tensor import KeyedJaggedTensor as TrKJT
    except Exception as e:  # noqa: BLE001
        print("torchrec is not importable (%s): its quantized module is not compared" % e)
        return
    print("torchrec", getattr(torchrec, "__version__", "?"), "is importable: comparing")
    tables = [TrConfig(name="a", embedding_dim=16, num_embeddings=40, feature_names=["x"]),
              TrConfig(name="b", embedding_dim=8, num_embeddings=30, feature_names=["y"])]
    ebc = TrEBC(tables=tables, device=DEV)
    ebc.qconfig = TrQuantConfig(
        activation=PlaceholderObserver.with_args(dtype=torch.float16),
        weight=PlaceholderObserver.with_args(dtype=torch.quint4x2),
        per_table_weight_dtype={"a": torch.qint8})
    theirs = TrQEBC.from_float(ebc)
    ours = QEBC.from_float(ebc)
    fresh = QEBC(theirs.embedding_bag_configs(), device=DEV, output_dtype=torch.float16)
    fresh.load_state_dict(theirs.state_dict())
    for n in ("a", "b"):
        check(torch.equal(fresh.embedding_bags[n].weight, ours.embedding_bags[n].weight),
              "torchrec's quantized table %s loads to our from_float's bytes" % n)
    feats = TrKJT(keys=["y", "x"], values=torch.tensor([1, 2, 3, 4, 5, 29], device=DEV),
                  lengths=torch.tensor([2, 1, 2, 1], device=DEV))
    a, b = theirs(feats), ours(feats)
    check(a.keys() == b.keys(), "the same keys: %s, %s" % (a.keys(), b.keys()))
    check(ulps(b.values(), a.values()) <= 1.0, "torchrec's quantized output and ours agree "
          "(%.3g ulps)" % ulps(b.values(), a.values()))
    theirs.load_state_dict(ours.state_dict())
    check(torch.equal(theirs(feats).values(), a.values()), "our state dict loads into torchrec's")


def main():
    global DEV
    args = harness.parser().parse_args()
    if args.lib:
        os.environ["EMB_RUNTIME_LIB"] = args.lib
    DEV = torch.device(args.device)
    tests = [("matches_float", test_matches_float), ("from_float_bytes", test_from_float_bytes),
             ("key_order", test_key_order), ("state_dict", test_state_dict),
             ("torchrec_forms", test_torchrec_forms), ("to_device", test_to_device),
             ("qconfig", test_qconfig), ("errors", test_errors),
             ("compile_export", test_compile_export), ("torchrec", test_torchrec)]
    for name, fn in tests:
        run(name, fn)
    return harness.finish()


if __name__ == "__main__":
    sys.exit(main())

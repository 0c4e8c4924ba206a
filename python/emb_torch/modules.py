"""TorchRec's embedding modules on emb's runtime: EmbeddingBagCollection and EmbeddingCollection.

Drop-in for torchrec.modules.embedding_modules: the same constructor (tables=[EmbeddingBagConfig(
name=..., embedding_dim=..., num_embeddings=..., feature_names=[...], pooling=..., data_type=...)],
is_weighted=False, device=None), forward(KeyedJaggedTensor) looking features up by key and returning
a KeyedTensor (EmbeddingCollection: a dict of JaggedTensor), state_dict keys
`embedding_bags.<table>.weight` (`embeddings.<table>.weight`), TorchRec's initialisation (uniform in
+-sqrt(1 / num_embeddings) unless weight_init_min/max or init_fn say otherwise). When torchrec is
importable its configs, KeyedJaggedTensor and KeyedTensor are accepted, and a KeyedTensor of
torchrec's is returned.

Training: the tables train inside the backward with a fused optimizer (SGD, exact rowwise Adagrad,
Adam), set with `fused_params` ({"optimizer": "exact_rowwise_adagrad", "learning_rate": 0.01, ...},
FBGEMM's keys) or `apply_optimizer_in_backward(optimizer_class, ebc.parameters(), kwargs)`
(TorchRec's). Without one the tables are frozen: the output needs no gradient. Tables are grouped by
(data type, pooling) into one lookup launch per group.
"""
import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Dict, List, Optional

import torch
from torch import Tensor, nn

from . import _runtime as R
from . import ops  # registers torch.ops.emb.*
from .ops import STATE_PRECISIONS, state_dtype

try:  # TorchRec's own types, accepted and returned when present
    from torchrec.sparse.jagged_tensor import KeyedTensor as _TorchRecKeyedTensor
except Exception:  # noqa: BLE001  (any import failure: torchrec is optional)
    _TorchRecKeyedTensor = None

__all__ = ["DataType", "PoolingType", "EmbeddingBagConfig", "EmbeddingConfig", "JaggedTensor",
           "KeyedJaggedTensor", "KeyedTensor", "EmbeddingBagCollection", "EmbeddingCollection",
           "apply_optimizer_in_backward"]


#===------------------------------------------------------------------------------------------===#
# Configs (torchrec.modules.embedding_configs)
#===------------------------------------------------------------------------------------------===#

class PoolingType(Enum):
    SUM = "SUM"
    MEAN = "MEAN"
    NONE = "NONE"


class DataType(Enum):
    """A table's storage type. FP32, FP16 and BF16 tables train (these modules); INT8, INT4,
    INT2 (FBGEMM's rowwise rows, TorchRec's names) and FP8 (emb's: e4m3 with an fp32 scale a
    row, not TorchRec's NFP8) are served by emb_torch.quant.EmbeddingBagCollection."""
    FP32 = "FP32"
    FP16 = "FP16"
    BF16 = "BF16"
    INT8 = "INT8"
    INT4 = "INT4"
    INT2 = "INT2"
    FP8 = "FP8"


_TORCH_DTYPES = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16}


@dataclass
class BaseEmbeddingConfig:
    num_embeddings: int
    embedding_dim: int
    name: str = ""
    data_type: DataType = DataType.FP32
    feature_names: List[str] = field(default_factory=list)
    weight_init_max: Optional[float] = None
    weight_init_min: Optional[float] = None
    num_embeddings_post_pruning: Optional[int] = None
    init_fn: Optional[Callable[[Tensor], Optional[Tensor]]] = None
    need_pos: bool = False

    def get_weight_init_max(self) -> float:
        if self.weight_init_max is None:
            return math.sqrt(1 / self.num_embeddings)
        return self.weight_init_max

    def get_weight_init_min(self) -> float:
        if self.weight_init_min is None:
            return -math.sqrt(1 / self.num_embeddings)
        return self.weight_init_min


@dataclass
class EmbeddingBagConfig(BaseEmbeddingConfig):
    pooling: PoolingType = PoolingType.SUM


@dataclass
class EmbeddingConfig(BaseEmbeddingConfig):
    pass


def _enum_name(value, what, table):
    """The name of a PoolingType/DataType of ours or torchrec's, or of a string."""
    name = getattr(value, "name", value)
    if not isinstance(name, str):
        raise TypeError("table %r: %s must be a PoolingType/DataType or a string, got %r"
                        % (table, what, value))
    return name.upper()


def _table_spec(config, pooled, quantized=False):
    """(name, rows, dim, features, torch dtype, pooling) of a config of ours or torchrec's;
    quantized: the data type's name (FP32 ... INT2, FP8) in place of the torch dtype."""
    name = config.name
    if not isinstance(name, str) or not name:
        raise ValueError("every table needs a name, got %r" % (name,))
    for attr in ("num_embeddings", "embedding_dim"):
        v = getattr(config, attr)
        if not isinstance(v, int) or v < 1:
            raise ValueError("table %r: %s must be a positive int, got %r" % (name, attr, v))
    if config.embedding_dim > ops.MAX_DIM:
        raise ValueError("table %r: embedding_dim is %d, emb's lookups take at most %d"
                         % (name, config.embedding_dim, ops.MAX_DIM))
    features = list(config.feature_names)
    if not features:
        raise ValueError("table %r: feature_names is empty" % name)
    data_type = _enum_name(config.data_type, "data_type", name)
    if quantized:
        if data_type not in DataType.__members__:
            raise ValueError("table %r: data_type %s is not one emb serves (%s)%s"
                             % (name, data_type, ", ".join(DataType.__members__),
                                "; emb's FP8 rows carry a scale each, TorchRec's NFP8 rows none: "
                                "quantize the float table to FP8 (from_float)"
                                if data_type == "NFP8" else ""))
    elif data_type not in _TORCH_DTYPES:
        raise ValueError("table %r: data_type %s is not one emb trains or looks up (FP32, FP16, "
                         "BF16; emb_torch.quant.EmbeddingBagCollection serves INT8, INT4, INT2 "
                         "and FP8 tables)" % (name, data_type))
    pooling = _enum_name(getattr(config, "pooling", "NONE"), "pooling", name) if pooled else "NONE"
    if pooled and pooling not in ("SUM", "MEAN"):
        raise ValueError("table %r: pooling %s; an EmbeddingBagCollection pools SUM or MEAN "
                         "(EmbeddingCollection gives unpooled rows)" % (name, pooling))
    return name, config.num_embeddings, config.embedding_dim, features, \
        data_type if quantized else _TORCH_DTYPES[data_type], pooling.lower()


def _table_specs(cls, tables, pooled, quantized=False):
    """_table_spec of each config; ValueError for no tables, a name or a feature twice."""
    specs = [_table_spec(t, pooled, quantized) for t in tables]
    if not specs:
        raise ValueError("%s: tables is empty" % cls)
    names = [s[0] for s in specs]
    if len(set(names)) != len(names):
        raise ValueError("%s: table names repeat: %s" % (cls, names))
    features = [f for s in specs for f in s[3]]
    if len(set(features)) != len(features):
        raise ValueError("%s: a feature is listed by two tables: %s" % (cls, features))
    return specs


def _module_device(cls, device, bounds_check_mode):
    """A module's device (cpu by default; meta refused), its bounds_check_mode checked."""
    device = torch.device(device if device is not None else "cpu")
    if device.type == "meta":
        raise ValueError("%s: device meta is not supported" % cls)
    if bounds_check_mode not in R.BOUNDS:
        raise ValueError("%s: bounds_check_mode must be one of %s, got %r"
                         % (cls, sorted(R.BOUNDS), bounds_check_mode))
    return device


#===------------------------------------------------------------------------------------------===#
# Jagged inputs and keyed outputs (torchrec.sparse.jagged_tensor)
#===------------------------------------------------------------------------------------------===#

def _offsets_from_lengths(lengths):
    return torch.cat([lengths.new_zeros(1), torch.cumsum(lengths, 0).to(lengths.dtype)])


class _Jagged:
    """What JaggedTensor and KeyedJaggedTensor share: values, optional weights, and lengths or
    offsets, each computed from the other on first use."""

    def values(self) -> Tensor:
        return self._values

    def weights_or_none(self) -> Optional[Tensor]:
        return self._weights

    def lengths(self) -> Tensor:
        if self._lengths is not None:
            return self._lengths
        lengths = self._offsets[1:] - self._offsets[:-1]
        if not torch.compiler.is_compiling():  # no side effect on a traced input
            self._lengths = lengths
        return lengths

    def offsets(self) -> Tensor:
        if self._offsets is not None:
            return self._offsets
        offsets = _offsets_from_lengths(self._lengths)
        if not torch.compiler.is_compiling():
            self._offsets = offsets
        return offsets


class JaggedTensor(_Jagged):
    """Rows of variable-length sequences: sequence i is values[offsets[i]:offsets[i+1]]."""

    def __init__(self, values: Tensor, weights: Optional[Tensor] = None,
                 lengths: Optional[Tensor] = None, offsets: Optional[Tensor] = None):
        if lengths is None and offsets is None:
            raise ValueError("JaggedTensor: give lengths or offsets")
        self._values, self._weights = values, weights
        self._lengths, self._offsets = lengths, offsets

    def to_dense(self) -> List[Tensor]:
        return list(torch.split(self._values, self.lengths().tolist()))


class KeyedJaggedTensor(_Jagged):
    """Ids of several features (TorchRec's layout): lengths [F * B] feature-major, feature f's
    bag b is values[offsets[f * B + b] : offsets[f * B + b + 1]]. Same constructor as TorchRec's:
    KeyedJaggedTensor(keys, values, weights=None, lengths=None, offsets=None, stride=None)."""

    def __init__(self, keys: List[str], values: Tensor, weights: Optional[Tensor] = None,
                 lengths: Optional[Tensor] = None, offsets: Optional[Tensor] = None,
                 stride: Optional[int] = None):
        if lengths is None and offsets is None:
            raise ValueError("KeyedJaggedTensor: give lengths or offsets")
        self._keys, self._values, self._weights = list(keys), values, weights
        self._lengths, self._offsets = lengths, offsets
        n = (lengths.shape[0] if lengths is not None else offsets.shape[0] - 1)
        if self._keys and n % len(self._keys):
            raise ValueError("KeyedJaggedTensor: %d bags is not a multiple of the %d keys"
                             % (n, len(self._keys)))
        self._stride = stride if stride is not None else (n // len(self._keys) if self._keys else 0)

    @staticmethod
    def from_offsets_sync(keys, values, offsets, weights=None, stride=None):
        return KeyedJaggedTensor(keys, values, weights=weights, offsets=offsets, stride=stride)

    @staticmethod
    def from_lengths_sync(keys, values, lengths, weights=None, stride=None):
        return KeyedJaggedTensor(keys, values, weights=weights, lengths=lengths, stride=stride)

    def keys(self) -> List[str]:
        return self._keys

    def weights(self) -> Tensor:
        if self._weights is None:
            raise ValueError("KeyedJaggedTensor: no weights")
        return self._weights

    def stride(self) -> int:
        return self._stride

    def length_per_key(self) -> List[int]:
        """Ids per key (reads the lengths on the host: a synchronisation on CUDA)."""
        return self.lengths().view(len(self._keys), -1).sum(1).tolist()

    def to_dict(self) -> Dict[str, JaggedTensor]:
        B = self._stride
        values = torch.split(self._values, self.length_per_key())
        weights = (torch.split(self._weights, self.length_per_key())
                   if self._weights is not None else [None] * len(self._keys))
        lengths = self.lengths()
        return {k: JaggedTensor(values[i], weights[i], lengths=lengths[i * B:(i + 1) * B])
                for i, k in enumerate(self._keys)}

    def __getitem__(self, key: str) -> JaggedTensor:
        return self.to_dict()[key]


class KeyedTensor:
    """Pooled embeddings [B, sum of D] (key_dim 1), key k at its column range."""

    def __init__(self, keys: List[str], length_per_key: List[int], values: Tensor,
                 key_dim: int = 1):
        self._keys, self._lengths, self._values = list(keys), list(length_per_key), values
        self._key_dim = key_dim

    def keys(self) -> List[str]:
        return self._keys

    def values(self) -> Tensor:
        return self._values

    def length_per_key(self) -> List[int]:
        return self._lengths

    def offset_per_key(self) -> List[int]:
        out = [0]
        for n in self._lengths:
            out.append(out[-1] + n)
        return out

    def key_dim(self) -> int:
        return self._key_dim

    def to_dict(self) -> Dict[str, Tensor]:
        return dict(zip(self._keys, torch.split(self._values, self._lengths, dim=self._key_dim)))

    def __getitem__(self, key: str) -> Tensor:
        i = self._keys.index(key)
        start = sum(self._lengths[:i])
        return self._values.narrow(self._key_dim, start, self._lengths[i])


def _register_pytrees():
    """KeyedJaggedTensor and KeyedTensor flatten into their tensors (torch.export, compile)."""
    from torch.utils import _pytree as pytree

    def kjt_flatten(k):
        return [k._values, k._weights, k._lengths, k._offsets], (k._keys, k._stride)

    def kjt_unflatten(children, context):
        values, weights, lengths, offsets = children
        return KeyedJaggedTensor(context[0], values, weights, lengths, offsets, context[1])

    def kt_flatten(k):
        return [k._values], (k._keys, k._lengths, k._key_dim)

    def kt_unflatten(children, context):
        return KeyedTensor(context[0], context[1], children[0], context[2])

    def with_keys(flatten, names):
        # torch.export names each child (PyTorch 2.2+: flatten_with_keys_fn).
        def flatten_with_keys(k):
            children, context = flatten(k)
            return [(pytree.GetAttrKey(n), c) for n, c in zip(names, children)], context
        return flatten_with_keys

    keyed = hasattr(pytree, "GetAttrKey")
    kjt_keys = {"flatten_with_keys_fn": with_keys(
        kjt_flatten, ("_values", "_weights", "_lengths", "_offsets"))} if keyed else {}
    kt_keys = {"flatten_with_keys_fn": with_keys(kt_flatten, ("_values",))} if keyed else {}
    pytree.register_pytree_node(KeyedJaggedTensor, kjt_flatten, kjt_unflatten,
                                serialized_type_name="emb_torch.KeyedJaggedTensor", **kjt_keys)
    pytree.register_pytree_node(KeyedTensor, kt_flatten, kt_unflatten,
                                serialized_type_name="emb_torch.KeyedTensor", **kt_keys)


_register_pytrees()


#===------------------------------------------------------------------------------------------===#
# Optimizers
#===------------------------------------------------------------------------------------------===#

# FBGEMM's EmbOptimType names (fused_params["optimizer"]) and torch's classes, to emb's.
_OPTIMIZER_NAMES = {"sgd": "sgd", "exact_sgd": "sgd", "exact_rowwise_adagrad": "rowwise_adagrad",
                    "rowwise_adagrad": "rowwise_adagrad", "adam": "adam"}
_OPTIMIZER_CLASSES = {"SGD": "sgd", "RowWiseAdagrad": "rowwise_adagrad", "Adam": "adam"}


def _fused_optimizer(fused_params):
    """(optimizer, [lr, eps, beta1, beta2, weight_decay], state precisions) from FBGEMM-style
    fused_params. emb's own keys: momentum1_precision and momentum2_precision (f32, bf16,
    fp8_e4m3, fp8_e5m2: how the states are stored), and momentum1_scale, the table scale of an
    fp8 rowwise Adagrad state (required there: the row states over it must lie in the format's
    range)."""
    p = dict(fused_params)
    states = {"momentum1_precision": p.pop("momentum1_precision", "f32"),
              "momentum2_precision": p.pop("momentum2_precision", "f32"),
              "momentum1_scale": p.pop("momentum1_scale", None)}
    for k in ("momentum1_precision", "momentum2_precision"):
        if states[k] not in STATE_PRECISIONS:
            raise ValueError("fused_params: %s must be one of %s, got %r"
                             % (k, list(STATE_PRECISIONS), states[k]))
    name = p.pop("optimizer", None)
    if name is None:
        raise ValueError("fused_params: needs \"optimizer\" (sgd, exact_rowwise_adagrad, adam)")
    key = str(getattr(name, "name", name)).lower()
    if key not in _OPTIMIZER_NAMES:
        raise ValueError("fused_params: optimizer %r is not one emb fuses (sgd, "
                         "exact_rowwise_adagrad, adam)" % (name,))
    hyper = [p.pop("learning_rate", 0.01), p.pop("eps", 1e-8), p.pop("beta1", 0.9),
             p.pop("beta2", 0.999), p.pop("weight_decay", 0.0)]
    for k in ("stochastic_rounding", "output_dtype", "weight_decay_mode"):
        p.pop(k, None)  # taken by the module, or emb's only mode
    if p:
        raise ValueError("fused_params: unknown keys %s" % sorted(p))
    name = _OPTIMIZER_NAMES[key]
    held = {"sgd": 0, "rowwise_adagrad": 1, "adam": 2}[name]
    for k in (1, 2):
        if k > held and states["momentum%d_precision" % k] != "f32":
            raise ValueError("fused_params: momentum%d_precision is %s, but %s has no momentum%d"
                             % (k, states["momentum%d_precision" % k], name, k))
    scale = states["momentum1_scale"]
    if name == "rowwise_adagrad" and states["momentum1_precision"].startswith("fp8"):
        if scale is None or not (0 < float(scale) < math.inf):
            raise ValueError("fused_params: a %s rowwise_adagrad state needs momentum1_scale, a "
                             "positive finite table scale (row states / scale must lie in the "
                             "format's range), got %r" % (states["momentum1_precision"], scale))
    elif scale is not None:
        raise ValueError("fused_params: momentum1_scale is the table scale of an fp8 "
                         "rowwise_adagrad state; %s with momentum1_precision %s takes none"
                         % (name, states["momentum1_precision"]))
    return name, hyper, states


def apply_optimizer_in_backward(optimizer_class, params, optimizer_kwargs):
    """TorchRec's apply_optimizer_in_backward for emb modules: the tables owning `params` train
    inside the backward with `optimizer_class` (torch.optim.SGD, torch.optim.Adam,
    torchrec.optim.RowWiseAdagrad, or emb_torch.RowWiseAdagrad) and `optimizer_kwargs` (lr, eps,
    betas, weight_decay). Every table of a module shares one optimizer."""
    name = _OPTIMIZER_CLASSES.get(getattr(optimizer_class, "__name__", None))
    if name is None:
        raise ValueError("apply_optimizer_in_backward: %r is not an optimizer emb fuses (SGD, "
                         "RowWiseAdagrad, Adam)" % (optimizer_class,))
    kw = dict(optimizer_kwargs)
    betas = kw.pop("betas", (0.9, 0.999))
    hyper = [kw.pop("lr", 0.01), kw.pop("eps", 1e-8), betas[0], betas[1],
             kw.pop("weight_decay", 0.0)]
    kw.pop("initial_accumulator_value", None)
    if kw:
        raise ValueError("apply_optimizer_in_backward: unknown optimizer_kwargs %s" % sorted(kw))
    params = list(params)
    owners = {id(m): m for p in params for m in getattr(p, "_emb_owners", ())}
    if not owners:
        raise ValueError("apply_optimizer_in_backward: none of params is a table of an emb module")
    for module in owners.values():
        module._set_optimizer(name, hyper, None)


class RowWiseAdagrad:
    """The name of exact rowwise Adagrad for apply_optimizer_in_backward (torchrec.optim's)."""


#===------------------------------------------------------------------------------------------===#
# The modules
#===------------------------------------------------------------------------------------------===#

class _Table(nn.Module):
    """One table: `weight` [rows, dim] and its optimizer states (momentum1, momentum2) as
    buffers, in their stored form (ops.state_dtype; fp8 states with momentum1_scale /
    momentum2_scale beside them). A checkpoint without states (TorchRec's) loads with fresh zero
    states."""

    def __init__(self, rows, dim, dtype, device):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(rows, dim, dtype=dtype, device=device),
                                   requires_grad=False)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)
        for state in ("momentum1", "momentum2"):
            if prefix + state in missing_keys:
                missing_keys.remove(prefix + state)
                getattr(self, state).zero_()
            # Zero codes read as zero whatever the scale: a missing scale keeps its value.
            if prefix + state + "_scale" in missing_keys:
                missing_keys.remove(prefix + state + "_scale")


class _KeyedLookups(nn.Module):
    """What emb's collections (these and emb_torch.quant's) share: features found by key in a
    KeyedJaggedTensor, tables grouped into one lookup launch each, pooled outputs put into the
    module's key order. A subclass sets _specs [(name, rows, dim, features, ..., pooling)],
    _groups (lists of spec indices) and _feature_names, then calls _init_keys(); _device() says
    where its tables are."""

    def _init_keys(self):
        self._feature_spec = [i for i, s in enumerate(self._specs) for _ in s[3]]
        self._feature_dim = {f: s[2] for s in self._specs for f in s[3]}
        self._column_index = {}

    def _device(self) -> torch.device:
        raise NotImplementedError

    def synchronize(self) -> None:
        """Waits for emb's work on the current stream; raises the errors the device recorded."""
        R.runtime().synchronize(self._device(), type(self).__name__)

    def _inputs(self, features):
        """values, offsets (module order is not required), weights, keys of a KJT."""
        cls = type(self).__name__
        for attr in ("keys", "values"):
            if not callable(getattr(features, attr, None)):
                raise TypeError("%s.forward: features must be a KeyedJaggedTensor, got %s"
                                % (cls, type(features).__name__))
        keys = list(features.keys())
        values = features.values()
        offsets = features.offsets()
        weights = features.weights_or_none()
        device = self._device()
        if values.dtype not in ops.INDEX_DTYPES or offsets.dtype not in ops.INDEX_DTYPES:
            raise TypeError("%s.forward: the KeyedJaggedTensor's values and offsets must be int32 "
                            "or int64, got %s and %s" % (cls, values.dtype, offsets.dtype))
        for name, t in (("values", values), ("offsets", offsets), ("weights", weights)):
            if t is not None and t.device != device:
                raise ValueError("%s.forward: the KeyedJaggedTensor's %s are on %s, the module "
                                 "on %s" % (cls, name, t.device, device))
        if len(set(keys)) != len(keys):
            raise ValueError("%s.forward: the KeyedJaggedTensor's keys repeat: %s" % (cls, keys))
        missing = [f for f in self._feature_names if f not in keys]
        if missing:
            raise KeyError("%s.forward: the KeyedJaggedTensor has no key %s (its keys: %s)"
                           % (cls, ", ".join(repr(m) for m in missing), keys))
        return keys, values, offsets, weights

    def _group_inputs(self, g, keys, values, offsets, weights, pad_tail=True):
        """Group g's features in the KJT's key order, their ids, offsets and per-sample weights,
        and the padding id of the lookup. All of the KJT's keys: the KJT as it is (no copy).
        Fewer (other groups' keys, keys no table reads): the group's bags gathered to the front
        of a buffer of the KJT's size, without reading the lengths on the host; with pad_tail,
        the rest of the buffer holds a padding id (the smallest value of the ids' type) and ends
        the last bag, so the lookup reads static sizes and the padding adds nothing (nor counts
        for a mean, nor trains).
        Without pad_tail the tail is cut (reads the group's id count: one synchronisation)."""
        mine = {f for i in self._groups[g] for f in self._specs[i][3]}
        order = [k for k in keys if k in mine]
        if len(order) == len(keys):
            return order, values, offsets, weights, None
        F, N = len(keys), values.shape[0]
        B = (offsets.shape[0] - 1) // F
        device = offsets.device
        # The group's keys' positions in the KJT: made once per key order (a host-to-device
        # copy), not in every call, and never during a CUDA graph capture after a warm-up.
        pick = self._column_index.get((g, tuple(keys)))
        if pick is None:
            pick = torch.tensor([keys.index(k) for k in order], device=device)
            self._column_index[(g, tuple(keys))] = pick
        rows = (pick[:, None] * B + torch.arange(B, device=device)).reshape(-1)
        starts, ends = offsets[:-1][rows], offsets[1:][rows]
        offs = _offsets_from_lengths(ends - starts)
        position = torch.arange(N, device=device, dtype=offs.dtype)
        bag = torch.searchsorted(offs[1:], position, right=True)
        inside = bag < rows.shape[0]
        bag = bag.clamp(max=max(rows.shape[0] - 1, 0))
        source = (starts[bag] + position - offs[bag]).clamp(0, max(N - 1, 0))
        if not pad_tail:
            n = int(offs[-1])
            vals = values[source[:n]]
            wts = weights[source[:n]] if weights is not None else None
            return order, vals, offs.to(offsets.dtype), wts, None
        # The padding id: the smallest value of the ids' type. A caller's id of that value (out
        # of every table) becomes the next one up, still out of range, so it is still reported.
        pad = torch.iinfo(values.dtype).min
        gathered = values[source]
        gathered = torch.where(gathered == pad, gathered + 1, gathered)
        vals = torch.where(inside, gathered, torch.full_like(values, pad))
        wts = (torch.where(inside, weights[source], torch.zeros_like(weights))
               if weights is not None else None)
        offs = torch.cat([offs[:-1], offs.new_full((1,), N)])
        return order, vals, offs.to(offsets.dtype), wts, pad

    def _apply(self, fn, *args, **kwargs):
        # Moved or cast: the cached column orders and key positions are rebuilt on the new device.
        self._column_index = {}
        return super()._apply(fn, *args, **kwargs)

    def feature_names(self) -> List[str]:
        return list(self._feature_names)

    def _keyed_output(self, pieces, piece_keys, out_dtype, keys, length_per_key):
        """The groups' pooled outputs [B, sum of D] (columns of the keys piece_keys, in order)
        as a KeyedTensor of `keys` (each of length_per_key columns): a gather of the columns
        when the orders differ (autograd maps the gradient back), made once per order."""
        out = pieces[0] if len(pieces) == 1 else torch.cat(
            [p.to(out_dtype or torch.float32) for p in pieces], 1)
        if piece_keys != keys:
            index = self._column_index.get(tuple(piece_keys))
            if index is None:
                starts, col = {}, 0
                for k in piece_keys:
                    starts[k] = col
                    col += self._feature_dim[k]
                index = torch.cat([torch.arange(starts[f], starts[f] + d)
                                   for f, d in zip(keys, length_per_key)])
                index = self._column_index[tuple(piece_keys)] = index.to(out.device)
            out = out.index_select(1, index)
        if _TorchRecKeyedTensor is not None:
            return _TorchRecKeyedTensor(keys=keys, length_per_key=length_per_key, values=out)
        return KeyedTensor(keys, length_per_key, out)


class _Collection(_KeyedLookups):
    """What EmbeddingBagCollection and EmbeddingCollection share: tables, groups, optimizer."""

    _tables_attr = "embedding_bags"

    def __init__(self, tables, pooled, device, bounds_check_mode, fused_params, output_dtype,
                 seed, allow_replicated):
        super().__init__()
        cls = type(self).__name__
        device = _module_device(cls, device, bounds_check_mode)
        self._allow_replicated = allow_replicated
        self._check_not_replicated()
        specs = _table_specs(cls, tables, pooled)
        self._specs = specs
        self._feature_names = [f for s in specs for f in s[3]]
        self._bounds_check = bounds_check_mode
        self._output_dtype = output_dtype
        self._seed = seed
        tables_dict = nn.ModuleDict()
        for (name, rows, dim, feats, dtype, pooling), config in zip(specs, tables):
            table = _Table(rows, dim, dtype, device)
            init = getattr(config, "init_fn", None)
            with torch.no_grad():
                if init is not None:
                    init(table.weight)
                else:
                    table.weight.uniform_(config.get_weight_init_min()
                                          if hasattr(config, "get_weight_init_min")
                                          else -math.sqrt(1 / rows),
                                          config.get_weight_init_max()
                                          if hasattr(config, "get_weight_init_max")
                                          else math.sqrt(1 / rows))
            table.weight._emb_owners = (self,)
            tables_dict[name] = table
        setattr(self, self._tables_attr, tables_dict)
        # Groups: one lookup each, tables of one (dtype, pooling) in table order.
        groups = {}
        for i, s in enumerate(specs):
            groups.setdefault((s[4], s[5]), []).append(i)
        self._groups = list(groups.values())
        self._optimizer = None
        self.register_buffer("hyper_params", torch.zeros(5, device=device), persistent=False)
        for g in range(len(self._groups)):
            self.register_buffer("step_%d" % g, torch.zeros(1, dtype=torch.int64, device=device))
        # A scalar that requires grad, so that autograd runs a training lookup's backward.
        self.register_buffer("_placeholder", torch.zeros((), device=device, requires_grad=True),
                             persistent=False)
        self._init_keys()
        if fused_params is not None:
            self._set_optimizer(*_fused_optimizer(fused_params))

    def _device(self) -> torch.device:
        return self.hyper_params.device

    # Optimizer ---------------------------------------------------------------------------------

    def _set_optimizer(self, name, hyper, states):
        """`states`: the state precisions of _fused_optimizer, or None (this module's, else
        f32)."""
        if self._optimizer is not None and self._optimizer != name:
            raise ValueError("%s: its tables already train with %s, not %s"
                             % (type(self).__name__, self._optimizer, name))
        if states is None:
            states = getattr(self, "_states", None) or {
                "momentum1_precision": "f32", "momentum2_precision": "f32",
                "momentum1_scale": None}
        self._optimizer = name
        self._states = states
        for s in self._specs:
            table = getattr(self, self._tables_attr)[s[0]]
            w = table.weight
            shapes = {"sgd": (), "rowwise_adagrad": ((w.shape[0],),),
                      "adam": (tuple(w.shape), tuple(w.shape))}[name]
            for i, shape in enumerate(shapes):
                attr = "momentum%d" % (i + 1)
                precision = states[attr + "_precision"]
                if getattr(table, attr, None) is None:
                    # Zero codes read as 0 at every precision and scale.
                    table.register_buffer(attr, torch.zeros(shape, dtype=state_dtype(precision),
                                                            device=w.device))
                if precision.startswith("fp8") and getattr(table, attr + "_scale", None) is None:
                    scale = (torch.ones(w.shape[0], device=w.device) if name == "adam"
                             else torch.full((1,), float(states["momentum1_scale"]),
                                             device=w.device))
                    table.register_buffer(attr + "_scale", scale)
        with torch.no_grad():
            self.hyper_params.copy_(torch.tensor(hyper, dtype=torch.float32))

    @property
    def optimizer(self) -> Optional[str]:
        """The fused optimizer ("sgd", "rowwise_adagrad", "adam"), or None (frozen tables)."""
        return self._optimizer

    def set_learning_rate(self, lr: float) -> None:
        """Sets the fused optimizer's learning rate in place on the device: no synchronisation,
        and a compiled or captured step reads the new value without recompiling."""
        self.hyper_params[0].fill_(lr)

    # Checks ------------------------------------------------------------------------------------

    def _check_not_replicated(self):
        dist = torch.distributed
        if self._allow_replicated or not dist.is_available() or not dist.is_initialized():
            return
        n = dist.get_world_size()
        if n > 1:
            raise RuntimeError(
                "%s: a process group of %d ranks is initialised. emb's tables train inside the "
                "backward on this rank's batch only, so under DistributedDataParallel (or any "
                "data-parallel replication) each rank's tables would silently diverge. Shard the "
                "tables across ranks with emb's sharded lookups instead (docs/sharding.md), or "
                "keep the tables on one rank; to replicate on purpose (inference, or tables you "
                "keep equal yourself), pass allow_replicated=True."
                % (type(self).__name__, n))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        # A checkpoint without the step counts (TorchRec's) loads with the counts kept.
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)
        for g in range(len(self._groups)):
            if prefix + "step_%d" % g in missing_keys:
                missing_keys.remove(prefix + "step_%d" % g)

    def _lookup(self, g, feature_table, values, offsets, weights, pooling, output_dtype,
                padding_idx=None):
        """One group's lookup: trained in the backward when an optimizer is set and grads are
        on, else frozen."""
        tables = getattr(self, self._tables_attr)
        specs = [self._specs[i] for i in self._groups[g]]
        w = [tables[s[0]].weight for s in specs]
        common = (feature_table, values, offsets, weights, pooling, self._bounds_check,
                  padding_idx, output_dtype)
        if self._optimizer is None or not (self.training and torch.is_grad_enabled()):
            return R.run_op(torch.ops.emb.tbe_forward, ops._tbe_forward, w, *common)
        m1 = [tables[s[0]].momentum1 for s in specs] if self._optimizer != "sgd" else []
        m2 = [tables[s[0]].momentum2 for s in specs] if self._optimizer == "adam" else []
        p1, p2 = self._states["momentum1_precision"], self._states["momentum2_precision"]
        s1 = [tables[s[0]].momentum1_scale for s in specs] if p1.startswith("fp8") else []
        s2 = [tables[s[0]].momentum2_scale for s in specs] if p2.startswith("fp8") else []
        return torch.ops.emb.tbe_forward_train(
            self._placeholder, w, m1, m2, self.hyper_params,
            getattr(self, "step_%d" % g), *common, self._optimizer, self._seed, s1, s2, p1, p2)

    def reset_parameters(self) -> None:
        """TorchRec's initialisation again (uniform in +-sqrt(1 / num_embeddings))."""
        tables = getattr(self, self._tables_attr)
        with torch.no_grad():
            for s in self._specs:
                bound = math.sqrt(1 / s[1])
                tables[s[0]].weight.uniform_(-bound, bound)


class EmbeddingBagCollection(_Collection):
    """TorchRec's EmbeddingBagCollection on emb: pooled lookups of many tables, one launch per
    (data type, pooling) group, trained in the backward by a fused optimizer.

    forward(features: KeyedJaggedTensor) -> KeyedTensor [B, sum of D] in table order, features
    found by key (any key order; keys no table reads are ignored), with no host
    synchronisation. bounds_check_mode "fatal" (an id
    outside its table raises emb_torch.EmbIndexError naming the feature and id, at the latest on
    the first emb call after the device ran the lookup), "warning", "ignore" or "none".
    output_dtype: float32 (FBGEMM's default) or None (each group's table dtype).
    """

    def __init__(self, tables: List[EmbeddingBagConfig], is_weighted: bool = False,
                 device: Optional[torch.device] = None, *,
                 fused_params: Optional[dict] = None, bounds_check_mode: str = "fatal",
                 output_dtype: Optional[torch.dtype] = torch.float32, seed: int = 0,
                 allow_replicated: bool = False):
        super().__init__(tables, True, device, bounds_check_mode, fused_params, output_dtype,
                         seed, allow_replicated)
        self._is_weighted = is_weighted
        self._embedding_bag_configs = list(tables)
        self._length_per_key = [self._specs[i][2] for i in self._feature_spec]

    def embedding_bag_configs(self):
        return self._embedding_bag_configs

    def is_weighted(self) -> bool:
        return self._is_weighted

    def forward(self, features) -> KeyedTensor:
        if not torch.compiler.is_compiling():
            self._check_not_replicated()
        keys, values, offsets, weights = self._inputs(features)
        if self._is_weighted and weights is None:
            raise ValueError("EmbeddingBagCollection.forward: is_weighted=True but the "
                             "KeyedJaggedTensor has no weights")
        if not self._is_weighted:
            weights = None
        pieces, piece_keys = [], []
        for g, members in enumerate(self._groups):
            order, v, o, w, pad = self._group_inputs(g, keys, values, offsets, weights)
            table_of = {f: j for j, i in enumerate(members) for f in self._specs[i][3]}
            feature_table = [table_of[f] for f in order]
            pooling = self._specs[members[0]][5]
            pieces.append(self._lookup(g, feature_table, v, o, w, pooling, self._output_dtype,
                                       pad))
            piece_keys.extend(order)
        return self._keyed_output(pieces, piece_keys, self._output_dtype, self._feature_names,
                                  self._length_per_key)


class EmbeddingCollection(_Collection):
    """TorchRec's EmbeddingCollection on emb: unpooled lookups (sequence features).

    forward(features: KeyedJaggedTensor) -> Dict[str, JaggedTensor]: each feature's rows
    [its ids, D] with the KeyedJaggedTensor's lengths. Tables of one (data type, dim) share one
    launch. Splitting the rows by feature reads the lengths on the host (one synchronisation, as
    TorchRec's)."""

    _tables_attr = "embeddings"

    def __init__(self, tables: List[EmbeddingConfig], device: Optional[torch.device] = None,
                 need_indices: bool = False, *, fused_params: Optional[dict] = None,
                 bounds_check_mode: str = "fatal", seed: int = 0,
                 allow_replicated: bool = False):
        super().__init__(tables, False, device, bounds_check_mode, fused_params, None, seed,
                         allow_replicated)
        # Unpooled lookups share one D: regroup by (dtype, dim).
        groups = {}
        for i, s in enumerate(self._specs):
            groups.setdefault((s[4], s[2]), []).append(i)
        if len(groups) != len(self._groups):
            for g in range(len(self._groups), len(groups)):
                self.register_buffer("step_%d" % g, torch.zeros(1, dtype=torch.int64,
                                                                 device=self.hyper_params.device))
        self._groups = list(groups.values())
        self._need_indices = need_indices
        self._embedding_configs = list(tables)

    def embedding_configs(self):
        return self._embedding_configs

    def forward(self, features) -> Dict[str, JaggedTensor]:
        if not torch.compiler.is_compiling():
            self._check_not_replicated()
        keys, values, offsets, _ = self._inputs(features)
        F = len(keys)
        B = (offsets.shape[0] - 1) // F
        out = {}
        for g, members in enumerate(self._groups):
            order, v, o, _, _ = self._group_inputs(g, keys, values, offsets, None,
                                                   pad_tail=False)
            table_of = {f: j for j, i in enumerate(members) for f in self._specs[i][3]}
            rows = self._lookup(g, [table_of[f] for f in order], v, o, None, "none", None)
            lengths = (o[1:] - o[:-1]).view(len(order), B)
            per_key = lengths.sum(1).tolist()
            for f, piece, ids, n in zip(order, torch.split(rows, per_key),
                                        torch.split(v, per_key), range(len(order))):
                jt = JaggedTensor(piece, lengths=lengths[n])
                if self._need_indices:
                    jt._weights = ids  # TorchRec puts the ids in weights with need_indices
                out[f] = jt
        return {f: out[f] for f in self._feature_names}

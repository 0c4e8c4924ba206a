"""TorchRec's quantized EmbeddingBagCollection on emb's runtime: tables served at INT8, INT4, INT2
or FP8 (and FP32, FP16, BF16), inference only.

Drop-in for torchrec.quant.embedding_modules.EmbeddingBagCollection (which torchrec.quant exports
under the same name, as emb_torch.quant does):

    from emb_torch.quant import EmbeddingBagCollection as QuantEmbeddingBagCollection
    qebc = QuantEmbeddingBagCollection(tables, is_weighted, device, output_dtype=torch.float16)
    qebc = QuantEmbeddingBagCollection.from_float(ebc)       # ebc.qconfig, as TorchRec's
    qebc = QuantEmbeddingBagCollection.from_float(ebc, data_type=DataType.INT4,
                                                  per_table_data_type={"t0": DataType.INT8},
                                                  output_dtype=torch.float16)
    pooled = qebc(kjt)                                       # KeyedTensor

The same constructor as TorchRec's (tables with a data_type each, is_weighted, device,
output_dtype=torch.float, table_name_to_quantized_weights, quant_state_dict_split_scale_bias,
row_alignment 16; register_tbes and cache_features_order are accepted and change nothing: the
lookup is one torch.ops.emb call either way, and the key order is cached per order seen). Tables
of one pooling are looked up by one emb::tbe_forward_quantized call whatever their data types
(FBGEMM's IntNBit TBE mixes them too); FP32, FP16 and BF16 tables of a second float dtype in a
pooling take a call of their own. The output's columns are in TorchRec's quantized order: tables
grouped by pooling (in the order the poolings first appear), in table order within a pooling.

State dict (TorchRec's keys): `embedding_bags.<table>.weight` holds the table's rows as TorchRec's
quantized module holds them: uint8 [rows, row_bytes] of FBGEMM's IntNBit rows (an fp16 scale and
an fp16 bias, then the columns, padded to 16 bytes) for INT8/INT4/INT2, the float rows' bytes
padded to 16 for FP32/FP16/BF16, emb's FP8 rows (an fp32 scale, then e4m3 bytes, padded to 16).
With quant_state_dict_split_scale_bias=True (TorchRec's option of that name) an INT table's
`weight` holds the columns' bytes only, [rows, D * bits / 8], beside `weight_qscale` and
`weight_qbias` (float16 [rows, 1]), and every other table's `weight` its unpadded bytes. Either
form loads, whichever the module was made with, and so do the float tables' float [rows, D]
tensors and TorchRec's UInt4Tensor/UInt2Tensor weights. Tables start as zero rows (each reads 0)
until loaded.
"""
import copy
from enum import Enum
from typing import Dict, List, Optional, Tuple

import torch
from torch import Tensor, nn

from . import _runtime
from . import quantized as Q
from .modules import (DataType, EmbeddingBagConfig, KeyedTensor, _enum_name, _KeyedLookups,
                      _module_device, _table_specs)

try:  # TorchRec's int4/int2 weight wrappers: its own module's state_dict holds them
    from torchrec.tensor_types import UInt2Tensor as _UInt2Tensor
    from torchrec.tensor_types import UInt4Tensor as _UInt4Tensor
except Exception:  # noqa: BLE001  (any import failure: torchrec is optional)
    _UInt2Tensor = _UInt4Tensor = None

__all__ = ["EmbeddingBagCollection", "quant_prep_enable_quant_state_dict_split_scale_bias",
           "MODULE_ATTR_QUANT_STATE_DICT_SPLIT_SCALE_BIAS", "DEFAULT_ROW_ALIGNMENT"]

DEFAULT_ROW_ALIGNMENT = 16  # FBGEMM's and emb's (EMBRT_QUANTIZED_ROW_ALIGNMENT)
# TorchRec's attribute on a float module asking from_float for split scale/bias state dicts.
MODULE_ATTR_QUANT_STATE_DICT_SPLIT_SCALE_BIAS = "__quant_state_dict_split_scale_bias"

_PRECISION = {"INT8": "int8", "INT4": "int4", "INT2": "int2", "FP8": "fp8",
              "FP32": "dense", "FP16": "dense", "BF16": "dense"}
_FLOAT = {"FP32": torch.float32, "FP16": torch.float16, "BF16": torch.bfloat16}
_OUTPUT_DTYPES = (torch.float32, torch.float16, torch.bfloat16)
# torch dtypes of a QuantConfig's weight observer (TorchRec's dtype_to_data_type), to data types.
_DTYPE_DATA_TYPE = {getattr(torch, n): d for n, d in (
    ("qint8", "INT8"), ("quint8", "INT8"), ("int8", "INT8"), ("uint8", "INT8"),
    ("quint4x2", "INT4"), ("quint2x4", "INT2"), ("float8_e4m3fn", "FP8"),
    ("float32", "FP32"), ("float16", "FP16"), ("bfloat16", "BF16")) if hasattr(torch, n)}


def quant_prep_enable_quant_state_dict_split_scale_bias(module: nn.Module) -> None:
    """TorchRec's: from_float(module) makes a module whose state_dict splits scale and bias."""
    setattr(module, MODULE_ATTR_QUANT_STATE_DICT_SPLIT_SCALE_BIAS, True)


def _round16(n):
    return (n + DEFAULT_ROW_ALIGNMENT - 1) // DEFAULT_ROW_ALIGNMENT * DEFAULT_ROW_ALIGNMENT


def _set_data_type(config, name):
    """Sets a config's data_type to `name` in its own enum (TorchRec's has no FP8: emb's)."""
    cls = type(config.data_type)
    if isinstance(config.data_type, Enum) and name in cls.__members__:
        config.data_type = cls[name]
    else:
        config.data_type = DataType[name]


class _QuantTable(nn.Module):
    """One table's rows as a buffer `weight` (so .to(device) moves them): uint8 packed rows for
    INT8/INT4/INT2/FP8, float [rows, D] for FP32/FP16/BF16. Saved and loaded in TorchRec's
    quantized module's forms (the module docstring)."""

    def __init__(self, name, rows, dim, data_type, device, split):
        super().__init__()
        self._name, self._rows, self._dim, self._data_type = name, rows, dim, data_type
        self._precision, self._split = _PRECISION[data_type], split
        if self._precision == "dense":
            rows_ = torch.zeros((rows, dim), dtype=_FLOAT[data_type], device=device)
        else:
            rows_ = torch.zeros((rows, Q.row_bytes(self._precision, dim)), dtype=torch.uint8,
                                device=device)
        self.register_buffer("weight", rows_)

    def _data_bytes(self):
        return self._dim * Q.BITS[self._precision] // 8

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        w = self.weight
        if self._precision == "dense":
            raw = w.view(torch.uint8)  # [rows, D * itemsize], the buffer's memory
            if not self._split and raw.shape[1] % DEFAULT_ROW_ALIGNMENT:
                padded = raw.new_zeros((self._rows, _round16(raw.shape[1])))
                padded[:, :raw.shape[1]] = raw
                raw = padded
            destination[prefix + "weight"] = raw
        elif self._precision == "fp8":
            destination[prefix + "weight"] = w[:, :4 + self._dim] if self._split else w
        elif self._split:
            destination[prefix + "weight"] = w[:, 4:4 + self._data_bytes()]
            destination[prefix + "weight_qscale"] = w[:, 0:2].contiguous().view(torch.float16)
            destination[prefix + "weight_qbias"] = w[:, 2:4].contiguous().view(torch.float16)
        else:
            wrap = {"int4": _UInt4Tensor, "int2": _UInt2Tensor}.get(self._precision)
            destination[prefix + "weight"] = wrap(w) if wrap is not None else w

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        names = ("weight", "weight_qscale", "weight_qbias")
        if strict:
            unexpected_keys.extend(k for k in state_dict if k.startswith(prefix)
                                   and k[len(prefix):] not in names)
        if prefix + "weight" not in state_dict:
            missing_keys.append(prefix + "weight")
            return
        qscale, qbias = state_dict.get(prefix + "weight_qscale"), state_dict.get(prefix +
                                                                                 "weight_qbias")
        try:
            scale_bias = None
            if (qscale is None) != (qbias is None):
                raise ValueError("table %r: %s comes without %s" % (
                    self._name, *(("weight_qscale", "weight_qbias") if qbias is None
                                  else ("weight_qbias", "weight_qscale"))))
            if qscale is not None:
                for what, t in (("weight_qscale", qscale), ("weight_qbias", qbias)):
                    if t.dtype != torch.float16 or t.numel() != self._rows:
                        raise ValueError("table %r: %s must be float16 [%d, 1], got %s %s"
                                         % (self._name, what, self._rows, t.dtype,
                                            tuple(t.shape)))
                scale_bias = torch.cat([qscale.reshape(self._rows, 1).contiguous()
                                        .view(torch.uint8),
                                        qbias.reshape(self._rows, 1).contiguous()
                                        .view(torch.uint8).to(qscale.device)], 1)
            rows = self.rows_from(state_dict[prefix + "weight"], scale_bias,
                                  "state_dict[%r]" % (prefix + "weight"))
        except (TypeError, ValueError) as e:
            error_msgs.append(str(e))
            return
        with torch.no_grad():
            self.weight.copy_(rows)

    def rows_from(self, weight, scale_bias, what):
        """The buffer's rows from the forms TorchRec and FBGEMM hold them in: full rows, or
        (INT) the columns' bytes [rows, D * bits / 8] with scale_bias uint8 [rows, 4] (fp16 scale
        then fp16 bias). TypeError/ValueError naming the table for anything else."""
        name, rows, dim, p = self._name, self._rows, self._dim, self._precision
        elem = getattr(weight, "elem", None)  # TorchRec's UInt4Tensor/UInt2Tensor
        if isinstance(elem, Tensor):
            weight = elem
        if not isinstance(weight, Tensor):
            raise TypeError("table %r: %s must be a tensor, got %s"
                            % (name, what, type(weight).__name__))
        if weight.dim() != 2 or weight.shape[0] != rows:
            raise ValueError("table %r: %s has shape %s, the table has %d rows"
                             % (name, what, tuple(weight.shape), rows))
        if p == "dense":
            dtype = _FLOAT[self._data_type]
            n = dim * torch.empty((), dtype=dtype).element_size()
            if scale_bias is not None:
                raise ValueError("table %r is %s: it has no scale and bias" % (name,
                                                                                 self._data_type))
            if weight.dtype == torch.uint8:
                if weight.shape[1] not in (n, _round16(n)):
                    raise ValueError("table %r: %s has shape %s, must be [%d, %d] (or %d: padded "
                                     "to 16 bytes): the bytes of %d %s columns"
                                     % (name, what, tuple(weight.shape), rows, n, _round16(n),
                                        dim, self._data_type))
                return weight[:, :n].contiguous().view(dtype)
            if weight.dtype != dtype or weight.shape[1] != dim:
                raise TypeError("table %r: %s is %s %s, the table %s [%d, %d] (or its bytes, "
                                "uint8)" % (name, what, weight.dtype, tuple(weight.shape), dtype,
                                            rows, dim))
            return weight
        if weight.dtype != torch.uint8:
            raise TypeError("table %r: %s must be uint8 (packed %s rows), got %s"
                            % (name, what, self._data_type, weight.dtype))
        rb = Q.row_bytes(p, dim)
        if p == "fp8":
            if scale_bias is not None:
                raise ValueError("table %r is FP8: its rows hold their scale, it has no "
                                 "separate scale and bias" % name)
            if weight.shape[1] not in (rb, 4 + dim):
                raise ValueError("table %r: %s has shape %s, must be [%d, %d] (or %d unpadded): "
                                 "emb's FP8 rows of %d columns (an fp32 scale, then e4m3 bytes)"
                                 % (name, what, tuple(weight.shape), rows, rb, 4 + dim, dim))
            full = weight.new_zeros((rows, rb))
            full[:, :weight.shape[1]] = weight
            return full
        n = self._data_bytes()
        if scale_bias is None:
            if weight.shape[1] != rb:
                raise ValueError("table %r: %s has shape %s, must be [%d, %d]: FBGEMM's %s rows "
                                 "of %d columns (fp16 scale and bias, %d bytes of columns, "
                                 "padded to 16 bytes), or the columns' %d bytes with their "
                                 "scale and bias apart" % (name, what, tuple(weight.shape), rows,
                                                           rb, self._data_type, dim, n, n))
            return weight
        if weight.shape[1] != n:
            raise ValueError("table %r: %s has shape %s, must be [%d, %d]: the bytes of %d %s "
                             "columns, beside their scale and bias"
                             % (name, what, tuple(weight.shape), rows, n, dim, self._data_type))
        if scale_bias.dtype != torch.uint8 or tuple(scale_bias.shape) != (rows, 4):
            raise ValueError("table %r: the scale and bias must be uint8 [%d, 4] (fp16 scale, "
                             "fp16 bias), got %s %s" % (name, rows, scale_bias.dtype,
                                                       tuple(scale_bias.shape)))
        full = weight.new_zeros((rows, rb))
        full[:, :4] = scale_bias.to(weight.device)
        full[:, 4:4 + n] = weight
        return full


class EmbeddingBagCollection(_KeyedLookups):
    """TorchRec's quantized EmbeddingBagCollection on emb (torchrec.quant.embedding_modules'):
    pooled lookups of tables stored at each table's data_type (INT8, INT4, INT2: FBGEMM's
    rowwise rows; FP8: emb's e4m3 rows with an fp32 scale; FP32, FP16, BF16), inference only.

    forward(features: KeyedJaggedTensor) -> KeyedTensor [B, sum of D] of output_dtype (float32
    by default, as TorchRec's; float16 or bfloat16), features found by key (any key order; keys
    no table reads are ignored), one emb::tbe_forward_quantized call per pooling, no host
    synchronisation. Quantized rows are dequantised in registers, summed in float32 and rounded
    once to the output dtype. bounds_check_mode as emb_torch.EmbeddingBagCollection's ("fatal":
    an id outside its table raises emb_torch.EmbIndexError naming the feature and id).
    """

    def __init__(self, tables: List[EmbeddingBagConfig], is_weighted: bool = False,
                 device: Optional[torch.device] = None,
                 output_dtype: torch.dtype = torch.float,
                 table_name_to_quantized_weights: Optional[
                     Dict[str, Tuple[Tensor, Optional[Tensor]]]] = None,
                 register_tbes: bool = False, quant_state_dict_split_scale_bias: bool = False,
                 row_alignment: int = DEFAULT_ROW_ALIGNMENT, cache_features_order: bool = False,
                 *, bounds_check_mode: str = "fatal"):
        super().__init__()
        cls = "QuantEmbeddingBagCollection"
        device = _module_device(cls, device, bounds_check_mode)
        if output_dtype not in _OUTPUT_DTYPES:
            raise TypeError("%s: output_dtype must be torch.float32, torch.float16 or "
                            "torch.bfloat16, got %s" % (cls, output_dtype))
        if row_alignment != DEFAULT_ROW_ALIGNMENT:
            raise ValueError("%s: row_alignment is %r; emb's quantized rows are padded to %d "
                             "bytes (FBGEMM's default)" % (cls, row_alignment,
                                                           DEFAULT_ROW_ALIGNMENT))
        specs = _table_specs(cls, tables, True, quantized=True)
        names = [s[0] for s in specs]
        for (name, rows, dim, _, data_type, pooling), t in zip(specs, tables):
            pruned = getattr(t, "num_embeddings_post_pruning", None)
            if pruned is not None and pruned != rows:
                # TorchRec serves the first rows and FBGEMM remaps the ids to them; emb has no
                # remapping, and an id read as it is would find another row.
                raise ValueError("table %r: num_embeddings_post_pruning is %d; emb does not "
                                 "remap pruned ids: give the pruned table as num_embeddings and "
                                 "its ids remapped" % (name, pruned))
            p = _PRECISION[data_type]
            if p != "dense" and dim * Q.BITS[p] % 8:
                raise ValueError("table %r: embedding_dim %d cannot be stored as %s: it packs "
                                 "%d columns a byte, so embedding_dim must be a multiple of %d"
                                 % (name, dim, data_type, 8 // Q.BITS[p], 8 // Q.BITS[p]))
            if is_weighted and pooling != "sum":
                raise ValueError("table %r: pooling %s with is_weighted=True; emb weighs ids "
                                 "in SUM pooling only" % (name, pooling.upper()))
        self._specs = specs
        self._is_weighted = is_weighted
        self._embedding_bag_configs = list(tables)
        self._output_dtype = output_dtype
        self._bounds_check = bounds_check_mode
        self._split = quant_state_dict_split_scale_bias
        self.register_tbes = register_tbes
        self._cache_features_order = cache_features_order
        setattr(self, MODULE_ATTR_QUANT_STATE_DICT_SPLIT_SCALE_BIAS,
                quant_state_dict_split_scale_bias)
        # Groups: a pooling's tables in one lookup, whatever their data types, except float
        # tables of a second float dtype (a lookup reads one float dtype).
        groups, first_float = {}, {}
        for i, (_, _, _, _, data_type, pooling) in enumerate(specs):
            key = (pooling, None)
            if data_type in _FLOAT and first_float.setdefault(pooling, data_type) != data_type:
                key = (pooling, data_type)
            groups.setdefault(key, []).append(i)
        self._groups = list(groups.values())
        self._group_args = []
        for members in self._groups:
            floats = {specs[i][4] for i in members if specs[i][4] in _FLOAT}
            float_dtype = _FLOAT[floats.pop()] if floats else None
            # The lookup's own output: output_dtype where the op gives it (float32, or the
            # group's float tables' dtype, or any over quantized tables only), else float32,
            # cast once (the same number: the op sums in float32 and rounds once).
            out = output_dtype if output_dtype in (torch.float32, float_dtype) or \
                float_dtype is None else torch.float32
            self._group_args.append((
                Q.precision_codes([_PRECISION[specs[i][4]] for i in members]),
                [specs[i][2] for i in members], specs[members[0]][5], out))
        # Output keys: TorchRec's quantized order, tables grouped by pooling.
        poolings = list(dict.fromkeys(s[5] for s in specs))
        ordered = [s for p in poolings for s in specs if s[5] == p]
        self._feature_names = [f for s in ordered for f in s[3]]
        self._length_per_key = [s[2] for s in ordered for _ in s[3]]
        self._embedding_names = list(self._feature_names)
        self._init_keys()
        self.embedding_bags = nn.ModuleDict()
        for name, rows, dim, _, data_type, _ in specs:
            self.embedding_bags[name] = _QuantTable(name, rows, dim, data_type, device,
                                                    quant_state_dict_split_scale_bias)
        for name, pair in (table_name_to_quantized_weights or {}).items():
            if name not in self.embedding_bags:
                raise ValueError("%s: table_name_to_quantized_weights names table %r, which is "
                                 "not one of %s" % (cls, name, names))
            weight, scale_bias = pair
            table = self.embedding_bags[name]
            with torch.no_grad():
                table.weight.copy_(table.rows_from(
                    weight, scale_bias, "table_name_to_quantized_weights[%r]" % name))

    # TorchRec's accessors --------------------------------------------------------------------

    def _get_name(self) -> str:
        return "QuantizedEmbeddingBagCollection"

    def _device(self) -> torch.device:
        return next(iter(self.embedding_bags.values())).weight.device

    @property
    def device(self) -> torch.device:
        return self._device()

    def embedding_bag_configs(self) -> List[EmbeddingBagConfig]:
        return self._embedding_bag_configs

    def is_weighted(self) -> bool:
        return self._is_weighted

    def output_dtype(self) -> torch.dtype:
        return self._output_dtype

    # Forward ---------------------------------------------------------------------------------

    def forward(self, features) -> KeyedTensor:
        keys, values, offsets, weights = self._inputs(features)
        if self._is_weighted and weights is None:
            raise ValueError("QuantEmbeddingBagCollection.forward: is_weighted=True but the "
                             "KeyedJaggedTensor has no weights")
        if not self._is_weighted:
            weights = None
        elif weights.dtype != torch.float32:
            weights = weights.float()  # the lookup takes float32 weights with any table
        pieces, piece_keys = [], []
        for g, members in enumerate(self._groups):
            order, v, o, w, pad = self._group_inputs(g, keys, values, offsets, weights)
            table_of = {f: j for j, i in enumerate(members) for f in self._specs[i][3]}
            codes, dims, pooling, out = self._group_args[g]
            rows = [self.embedding_bags[self._specs[i][0]].weight for i in members]
            piece = _runtime.run_op(
                torch.ops.emb.tbe_forward_quantized, Q._tbe_forward_quantized,
                rows, codes, dims, [table_of[f] for f in order], v, o, w, pooling,
                self._bounds_check, pad, out)
            pieces.append(piece if out == self._output_dtype else piece.to(self._output_dtype))
            piece_keys.extend(order)
        return self._keyed_output(pieces, piece_keys, self._output_dtype, self._feature_names,
                                  self._length_per_key)

    # From a float module ---------------------------------------------------------------------

    @classmethod
    def from_float(cls, module: nn.Module, use_precomputed_fake_quant: bool = False, *,
                   data_type=None, per_table_data_type: Optional[Dict[str, object]] = None,
                   output_dtype: Optional[torch.dtype] = None,
                   bounds_check_mode: Optional[str] = None) -> "EmbeddingBagCollection":
        """The quantized module of a float EmbeddingBagCollection (emb_torch's or TorchRec's):
        each table quantized with FBGEMM's rowwise quantizer (emb::quantize_table) on the
        tables' device, at the data type TorchRec's from_float would choose: module.qconfig's
        per_table_weight_dtype or weight() dtype (torch.quint8/qint8: INT8, torch.quint4x2:
        INT4, torch.quint2x4: INT2, torch.float8_e4m3fn: emb's FP8, torch.float16: FP16), the
        output dtype its activation() dtype. Without a qconfig, or to override it: data_type
        (every table) and per_table_data_type ({table: data type}), DataType members or their
        names, and output_dtype (float32 by default). use_precomputed_fake_quant is TorchRec's
        and changes nothing."""
        op = "QuantEmbeddingBagCollection.from_float"
        if not callable(getattr(module, "embedding_bag_configs", None)) or \
                not hasattr(module, "embedding_bags"):
            raise TypeError("%s: module must be an EmbeddingBagCollection (emb_torch's or "
                            "torchrec's), got %s" % (op, type(module).__name__))
        configs = copy.deepcopy(list(module.embedding_bag_configs()))
        names = [c.name for c in configs]
        default, per_table = None, {}
        qconfig = getattr(module, "qconfig", None)
        if qconfig is not None:
            default = cls._data_type_of(qconfig.weight().dtype, "qconfig.weight()'s dtype")
            for name, dtype in (getattr(qconfig, "per_table_weight_dtype", None) or {}).items():
                per_table[name] = cls._data_type_of(
                    dtype, "qconfig.per_table_weight_dtype[%r]" % name)
            if output_dtype is None:
                output_dtype = qconfig.activation().dtype
        if data_type is not None:
            default = _enum_name(data_type, "data_type", "*")
        for name, dt in (per_table_data_type or {}).items():
            per_table[name] = _enum_name(dt, "data_type", name)
        unknown = sorted(set(per_table) - set(names))
        if unknown:
            raise ValueError("%s: per_table_data_type names %s, not tables of the module (%s)"
                             % (op, unknown, names))
        for c in configs:
            dt = per_table.get(c.name, default)
            if dt is None:
                raise ValueError("%s: table %r has no data type: give the module a qconfig "
                                 "(TorchRec's QuantConfig) or pass data_type= or "
                                 "per_table_data_type=" % (op, c.name))
            _set_data_type(c, dt)
        weights = [module.embedding_bags[c.name].weight.detach() for c in configs]
        if bounds_check_mode is None:
            bounds_check_mode = getattr(module, "_bounds_check", "fatal")
        split = getattr(module, MODULE_ATTR_QUANT_STATE_DICT_SPLIT_SCALE_BIAS, False)
        q = cls(configs, module.is_weighted(), weights[0].device,
                output_dtype=output_dtype if output_dtype is not None else torch.float32,
                quant_state_dict_split_scale_bias=split, bounds_check_mode=bounds_check_mode)
        with torch.no_grad():
            for w, (name, rows, dim, _, dt, _) in zip(weights, q._specs):
                if tuple(w.shape) != (rows, dim):
                    raise ValueError("%s: table %r's weight has shape %s, its config [%d, %d]"
                                     % (op, name, tuple(w.shape), rows, dim))
                table = q.embedding_bags[name]
                p = _PRECISION[dt]
                if p == "dense":
                    table.weight.copy_(w)
                else:
                    table.weight.copy_(torch.ops.emb.quantize_table(w.contiguous(), p))
        return q

    @staticmethod
    def _data_type_of(dtype, what):
        if dtype not in _DTYPE_DATA_TYPE:
            raise ValueError("QuantEmbeddingBagCollection.from_float: %s is %s, not one emb "
                             "serves (%s)" % (what, dtype, ", ".join(
                                 str(d) for d in _DTYPE_DATA_TYPE)))
        return _DTYPE_DATA_TYPE[dtype]

"""emb_torch: emb as a PyTorch extension (docs/pytorch.md).

    import emb_torch
    ebc = emb_torch.EmbeddingBagCollection(tables=[emb_torch.EmbeddingBagConfig(
        name="t0", embedding_dim=128, num_embeddings=1000, feature_names=["f0"])],
        device="cuda", fused_params={"optimizer": "exact_rowwise_adagrad", "learning_rate": 0.01})
    pooled = ebc(kjt)                      # KeyedTensor, as TorchRec's
    qebc = emb_torch.quant.EmbeddingBagCollection.from_float(ebc, data_type="INT4")  # serving
    torch.ops.emb.tbe_forward(...)         # the ops, for torch.compile and torch.export

libembrt.so is found through $EMB_RUNTIME_LIB, next to this package's build tree, or by the loader;
libemb_torch_ops.so (C++ for what runs per input of a call) through $EMB_TORCH_OPS_LIB or the same
places, when built against this torch (emb_torch.torch_ops_library() says which).
"""
import torch

if not hasattr(torch.library, "custom_op"):
    raise ImportError("emb_torch needs PyTorch 2.4 or newer (torch.library.custom_op); this is "
                      "PyTorch %s" % torch.__version__)

from . import ikbo, input_dist, ops, quant, quantized  # noqa: E402
from ._runtime import EmbError, EmbIndexError, runtime, synchronize
from ._torch_ops import library as torch_ops_library
from .compiled import CompiledModel, load
from .ikbo import IkboLinearCompression, IkboTargetAttention
from .modules import (DataType, EmbeddingBagCollection, EmbeddingBagConfig, EmbeddingCollection,
                      EmbeddingConfig, JaggedTensor, KeyedJaggedTensor, KeyedTensor, PoolingType,
                      RowWiseAdagrad, apply_optimizer_in_backward)
from .ops import STATE_PRECISIONS, state_dtype

__all__ = ["ikbo", "input_dist", "ops", "quant", "quantized", "CompiledModel", "load",
           "IkboLinearCompression", "IkboTargetAttention", "EmbError", "EmbIndexError", "runtime",
           "synchronize", "torch_ops_library",
           "DataType", "EmbeddingBagCollection", "EmbeddingBagConfig", "EmbeddingCollection",
           "EmbeddingConfig", "JaggedTensor", "KeyedJaggedTensor", "KeyedTensor", "PoolingType",
           "RowWiseAdagrad", "apply_optimizer_in_backward", "STATE_PRECISIONS", "state_dtype"]

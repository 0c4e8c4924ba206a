# Annotations torch.library.custom_op refuses (check_schemas.py's negative case; never imported).
from typing import List, Optional

import torch
from torch import Tensor


@torch.library.custom_op("emb_test::names", mutates_args=())
def names(x: Tensor, names: List[str], scale: Optional[List[float]] = None) -> Tensor:
    return x


@torch.library.custom_op("emb_test::maybe_tensors", mutates_args=())
def maybe_tensors(x: Tensor, scales: Optional[List[Tensor]] = None) -> Tensor:
    return x


@torch.library.custom_op("emb_test::fine", mutates_args=())
def fine(x: Tensor, dims: List[int], mode: str = "sum") -> Tensor:
    return x


@torch.library.custom_op("emb_test::unannotated", mutates_args=())
def unannotated(x: Tensor, y):
    return x


def _tensor_names(x: Tensor, names: List[str]) -> Tensor:
    return x


tensor_names = torch.library.custom_op("emb_test::tensor_names", mutates_args=())(_tensor_names)

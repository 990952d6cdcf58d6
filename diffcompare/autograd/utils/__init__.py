"""``torch.utils``' names that tutorials import: ``from torch.utils.data import DataLoader``
becomes ``from diffcompare.autograd.utils.data import DataLoader``; activation checkpointing
is ``utils.checkpoint``; ``utils.swap_tensors`` exchanges two tensors in place."""

from . import backcompat, checkpoint, data, hooks
from .swap import swap_tensors

__all__ = ["backcompat", "checkpoint", "data", "hooks", "swap_tensors"]

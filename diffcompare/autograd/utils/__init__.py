"""``torch.utils``' names that tutorials import: ``from torch.utils.data import DataLoader``
becomes ``from diffcompare.autograd.utils.data import DataLoader``; activation checkpointing
is ``utils.checkpoint``; ``utils.swap_tensors`` exchanges two tensors in place;
``utils.model_zoo.load_url`` reads pretrained weights from the hub's cache."""

from . import backcompat, checkpoint, data, hooks, model_zoo
from .swap import swap_tensors

__all__ = ["backcompat", "checkpoint", "data", "hooks", "model_zoo", "swap_tensors"]

"""``torch.utils``' names that tutorials import: ``from torch.utils.data import DataLoader``
becomes ``from diffcompare.autograd.utils.data import DataLoader``; activation checkpointing
is ``utils.checkpoint``."""

from . import backcompat, checkpoint, data

__all__ = ["backcompat", "checkpoint", "data"]

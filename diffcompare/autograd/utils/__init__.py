"""``torch.utils``' names that tutorials import: ``from torch.utils.data import DataLoader``
becomes ``from diffcompare.autograd.utils.data import DataLoader``; activation checkpointing
is ``utils.checkpoint``."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]

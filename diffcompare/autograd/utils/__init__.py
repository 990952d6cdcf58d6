"""``torch.utils``' names that tutorials import: ``from torch.utils.data import DataLoader``
becomes ``from diffcompare.autograd.utils.data import DataLoader``."""

from . import data

__all__ = ["data"]

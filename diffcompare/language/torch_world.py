"""PyTorch as a world of the function table: each row's ``torch`` column (by default
torch's function of the row's name) called on ``torch`` tensors, so expressions and
functions written with :mod:`diffcompare.functions` run on PyTorch. The table is the only
place a row's torch form lives: a new row needs no edit here.

Importing this module registers the world; it imports PyTorch only when the world is
first used. :func:`available` says whether PyTorch is installed without importing it.

>>> import pytest; torch = pytest.importorskip("torch")
>>> from diffcompare.language.table import ROWS, implementation
>>> float(implementation(ROWS["sin"], TORCH)(torch.tensor(0.5, dtype=torch.float64)))
0.47942553...
"""

from __future__ import annotations

import importlib.util

from diffcompare.language.table import EXTRA_WORLDS, Row
from diffcompare.language.worlds import TORCH

torch = None
_FORMS: dict = {}          # row name -> its torch function, made on first use


def available() -> bool:
    """Whether PyTorch is installed (without importing it)."""
    return importlib.util.find_spec("torch") is not None


def load():
    """The torch module, imported on first use."""
    global torch
    if torch is None:
        import torch as module
        torch = module
    return torch


def _tensors(func):
    """A torch function of tensors; numbers (max(x, 0)) become tensors of the other's dtype."""
    def call(*args):
        like = next((a for a in args if isinstance(a, torch.Tensor)), None)
        dtype = like.dtype if like is not None else torch.float64
        return func(*(a if isinstance(a, torch.Tensor) else torch.tensor(float(a), dtype=dtype) for a in args))
    return call


def torch_form(row: Row):
    """``row``'s function on torch tensors: its ``torch`` column, or torch's function of
    its name. Functions of numbers (not operators, not whole-array rows) also accept plain
    numbers beside tensors."""
    if row.name not in _FORMS:
        t = load()
        form = row.torch(t) if row.torch is not None else getattr(t, row.name)
        _FORMS[row.name] = _tensors(form) if row.arity > 0 and not row.is_operator and not row.structural else form
    return _FORMS[row.name]


EXTRA_WORLDS[TORCH] = torch_form

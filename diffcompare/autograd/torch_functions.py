"""The torch-level functions of ``diffcompare.autograd`` (``ag.sin``, ``ag.cat``, ``ag.sum``):
the ops that every family of :mod:`.ops` lists in its ``PUBLIC``, exported under the
names PyTorch gives them at ``torch.<name>``.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd import torch_functions
>>> torch_functions.sin is ag.sin
True
>>> ag.cat([ag.tensor([1.0]), ag.tensor([2.0])])
tensor([1., 2.])
"""

from . import ops
from .ops import *  # noqa: F401,F403  (the package's names; `__all__` below keeps the torch-level ones)

__all__ = list(ops.PUBLIC)

"""``torch.autograd.forward_ad``'s names (see :mod:`diffcompare.autograd.forward_ad`):
``import torch.autograd.forward_ad as fwAD`` becomes
``import diffcompare.autograd.autograd.forward_ad as fwAD``.

>>> import diffcompare.autograd.autograd.forward_ad as fwAD
>>> from diffcompare import autograd as ag
>>> with fwAD.dual_level():
...     fwAD.unpack_dual(fwAD.make_dual(ag.tensor(3.0), ag.tensor(1.0)) ** 2).tangent
tensor(6.)
"""

from ..forward_ad import UnpackedDualTensor, dual_level, enter_dual_level, exit_dual_level, make_dual, unpack_dual

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]

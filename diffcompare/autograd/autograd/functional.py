"""``torch.autograd.functional``'s names (see :mod:`diffcompare.autograd.functional`).

>>> from diffcompare.autograd.autograd.functional import jacobian
>>> from diffcompare import autograd as ag
>>> jacobian(lambda x: x ** 2, ag.tensor([1.0, 3.0]))
tensor([[2., 0.],
        [0., 6.]])
"""

from ..functional import hessian, hvp, jacobian, jvp, vhp, vjp

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

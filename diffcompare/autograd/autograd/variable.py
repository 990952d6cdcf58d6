"""``torch.autograd.Variable``, the name tensors had before PyTorch 0.4: calling it gives a
new leaf sharing the data (``requires_grad`` as asked), and every tensor is an instance.

>>> from diffcompare import autograd as ag
>>> t = ag.ones(2)
>>> v = Variable(t, requires_grad=True)
>>> v is t, v.is_leaf, v.requires_grad, isinstance(t, Variable)
(False, True, True, True)
"""

from __future__ import annotations

from ..tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor)

    def __call__(cls, data, requires_grad=False, volatile=False):
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)


class Variable(metaclass=_VariableMeta):
    """Legacy constructor: ``Variable(t)`` is ``t.detach()`` with ``requires_grad`` set."""

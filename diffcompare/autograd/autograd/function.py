"""``torch.autograd.function``: ``from torch.autograd.function import Function,
once_differentiable, FunctionCtx`` ports as
``from diffcompare.autograd.autograd.function import ...``.

>>> from diffcompare.autograd.autograd.function import Function, once_differentiable
>>> Function.__name__, once_differentiable.__name__
('Function', 'once_differentiable')
"""

from ..function import DelayedError, Function, FunctionCtx, once_differentiable

__all__ = ["DelayedError", "Function", "FunctionCtx", "once_differentiable"]

"""``torch.utils.swap_tensors``: two tensor objects exchange everything they are — values,
gradients, history, class (a ``Parameter`` and a plain tensor trade places) and attributes —
so that every reference to one now sees what the other was.

>>> from diffcompare import autograd as ag
>>> a, b = ag.tensor([1.0, 2.0]), ag.nn.Parameter(ag.tensor([3.0]))
>>> swap_tensors(a, b)
>>> a, type(b).__name__, b
(Parameter containing:
tensor([3.], requires_grad=True), 'Tensor', tensor([1., 2.]))
"""

from __future__ import annotations

from ..tensor import Tensor

__all__ = ["swap_tensors"]

# what a tensor is, slot by slot (its __dict__ and class go with them)
_STATE = tuple(name for name in Tensor.__slots__ if name not in ("__weakref__", "__dict__"))
_EMPTY = object()


def swap_tensors(t1, t2):
    """Exchange the whole of ``t1`` and ``t2`` (both tensors) in place."""
    if not isinstance(t1, Tensor) or not isinstance(t2, Tensor):
        raise TypeError(f"Expected t1 and t2 to be tensors but got {type(t1).__name__} and {type(t2).__name__}")
    for name in _STATE:
        first, second = getattr(t1, name, _EMPTY), getattr(t2, name, _EMPTY)
        for target, value in ((t1, second), (t2, first)):
            if value is _EMPTY:
                if hasattr(target, name):
                    delattr(target, name)
            else:
                setattr(target, name, value)
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__

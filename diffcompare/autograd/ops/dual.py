"""The dual namespace ``D``: one spelling for arrays and tensors. Backward rules call
``D.exp(x)``, ``D.where(...)``, ...: NumPy when every argument is an array (plain backward),
the differentiable op when one is a tensor (``create_graph=True``), so one formula serves
both. Each op family registers its tensor forms here when it is imported.

>>> import numpy as np
>>> from diffcompare.autograd.ops.dual import D
>>> float(D.exp(np.float64(0.0)))
1.0
"""

from __future__ import annotations

import numpy as np

from ..broadcast import broadcast_view
from ..tensor import Tensor
from . import special

TENSOR_FORMS: dict = {}     # name -> the differentiable op, registered by the op families


def register(**forms) -> None:
    """Make ``forms`` (name -> op on tensors) the tensor side of ``D.name``."""
    TENSOR_FORMS.update(forms)


def _pick(np_func, name):
    def f(a, *rest):
        if rest:
            for b in (a,) + rest:
                if isinstance(b, Tensor):
                    return TENSOR_FORMS[name](a, *rest)
            return np_func(a, *rest)
        return TENSOR_FORMS[name](a) if isinstance(a, Tensor) else np_func(a)   # one argument: no loop
    f.__name__ = name
    return f


class _Dual:
    """Functions that take arrays or tensors and return the same kind."""


D = _Dual()
_P = special.float32_as_pytorch     # (float32 results as PyTorch's kernels give them)
for _name, _np_func in {
    "exp": special.exp, "log": _P(np.log), "sqrt": np.sqrt, "sin": _P(np.sin), "cos": _P(np.cos), "sinh": _P(np.sinh),
    "cosh": _P(np.cosh), "conj": np.conj, "real": np.real, "sigmoid": special.sigmoid, "abs": np.abs, "pow": np.power, "where": np.where,
    "expand": broadcast_view, "unsqueeze": np.expand_dims, "permute": np.transpose, "moveaxis": np.moveaxis,
    "cast": lambda a, dtype: a.astype(dtype),
    "cumsum": lambda a, dim: np.cumsum(a, axis=dim),
    "prod": lambda a, dim: np.prod(a, axis=dim),
    "mean": lambda a, axis, keep: np.mean(a, axis=axis, keepdims=keep),
}.items():
    setattr(D, _name, _pick(_np_func, _name))
TENSOR_FORMS["zeros_like"] = lambda t: Tensor._make(np.zeros_like(t._data))
D.zeros_like = _pick(np.zeros_like, "zeros_like")
del _name, _np_func


def define(name, np_func) -> None:
    """Add ``D.name``: ``np_func`` on arrays, the op a family registers under ``name`` on tensors."""
    setattr(D, name, _pick(np_func, name))


def _cast(a, dtype):
    """``a`` as ``dtype``; a complex gradient of a real value keeps its real part, as PyTorch's
    gradients of real inputs do (every real op's rule is real-linear in the gradient, so the
    part may be taken at the end)."""
    if a.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        a = D.real(a)
    if isinstance(a, Tensor):
        return TENSOR_FORMS["cast"](a, dtype)
    return a.astype(dtype)


D.cast = _cast


# what the family exports to `ops`
__all__ = ['D', 'define']

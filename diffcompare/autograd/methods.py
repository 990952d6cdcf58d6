"""Tensor's operators and methods are the functions of ``ops``: bind them here, once."""

from __future__ import annotations

import numbers

import numpy as np

from . import ops
from .backward import backward
from .tensor import Tensor


def _scalar_or_tensor(other):
    """Operands: tensors stay, Python numbers stay (they never change the dtype), arrays wrap."""
    if type(other) is float or type(other) is int or isinstance(other, (Tensor, numbers.Number)):
        return other
    return Tensor._make(np.asarray(other))


def _add(a, b):
    return ops.apply(ops.AddBackward0, (a, _scalar_or_tensor(b)))


def _sub(a, b):
    return ops.apply(ops.SubBackward0, (a, _scalar_or_tensor(b)))


def _rsub(a, b):
    b = _scalar_or_tensor(b)
    if isinstance(b, Tensor):
        return ops.apply(ops.SubBackward0, (b, a))
    return ops.apply(ops.RsubBackward1, (a, b))


def _mul(a, b):
    if type(b) is float or type(b) is int:
        return ops.apply(ops.MulScalarBackward, (a, b))
    return ops.apply(ops.MulBackward0, (a, _scalar_or_tensor(b)))


def _div(a, b):
    return ops.apply(ops.DivBackward0, (a, _scalar_or_tensor(b)))


def _rdiv(a, b):
    b = _scalar_or_tensor(b)
    if isinstance(b, Tensor):
        return ops.apply(ops.DivBackward0, (b, a))
    return _mul(ops.reciprocal(a), b)  # PyTorch records c / x as reciprocal(x) * c


def _pow(a, b):
    return ops.pow(a, _scalar_or_tensor(b))


def _rpow(a, b):
    b = _scalar_or_tensor(b)
    return ops.pow(b, a)


def _matmul(a, b):
    return ops.matmul(a, _scalar_or_tensor(b))


def _rmatmul(a, b):
    return ops.matmul(_scalar_or_tensor(b), a)


def _neg(a):
    return ops.apply(ops.NegBackward0, (a,))


def _max(self, dim=None, keepdim=False):
    return ops.max(self, dim, keepdim)


def _min(self, dim=None, keepdim=False):
    return ops.min(self, dim, keepdim)



def tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the gradient of this tensor w.r.t. the graph leaves and add it to their ``.grad``.

    ``gradient`` is the vector v of the vector-Jacobian product vᵀJ; it may be omitted only
    for a one-element tensor (v = 1). See :func:`diffcompare.autograd.backward`.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
    >>> (x ** 2).backward(ag.tensor([1.0, 0.1, 0.01]))
    >>> x.grad
    tensor([4.0000, 0.6000, 0.0800])
    """
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


BINARY = {
    "__add__": _add, "__radd__": _add, "add": _add,
    "__sub__": _sub, "__rsub__": _rsub, "sub": _sub,
    "__mul__": _mul, "__rmul__": _mul, "mul": _mul,
    "__truediv__": _div, "__rtruediv__": _rdiv, "div": _div,
    "__pow__": _pow, "__rpow__": _rpow, "pow": _pow,
    "__matmul__": _matmul, "__rmatmul__": _rmatmul,
    "__lt__": ops.lt, "__le__": ops.le, "__gt__": ops.gt, "__ge__": ops.ge, "__eq__": ops.eq, "__ne__": ops.ne,
    "lt": ops.lt, "le": ops.le, "gt": ops.gt, "ge": ops.ge, "eq": ops.eq, "ne": ops.ne,
    "maximum": ops.maximum, "minimum": ops.minimum, "atan2": ops.atan2, "hypot": ops.hypot,
    "matmul": ops.matmul, "mm": ops.mm, "mv": ops.mv, "dot": ops.dot,
}

METHODS = {
    "backward": tensor_backward,
    "__neg__": _neg, "neg": _neg, "__pos__": lambda a: a, "__abs__": ops.abs,
    "__getitem__": ops.getitem, "__setitem__": ops.setitem,
    "max": _max, "min": _min,
    **{name: getattr(ops, name) for name in ops.ELEMENTWISE},
    **{name: getattr(ops, name) for name in (
        "square", "softplus", "clamp", "clip", "sum", "mean", "prod", "amax", "amin", "var", "std",
        "norm", "logsumexp", "softmax", "log_softmax", "cumsum", "argmax", "argmin", "reshape", "view",
        "flatten", "transpose", "swapaxes", "t", "permute", "moveaxis", "squeeze", "unsqueeze", "expand",
        "expand_as", "clone", "contiguous", "to", "isnan", "isfinite")},
    "absolute": ops.abs, "arctan2": ops.atan2,
    "double": lambda a: ops.to(a, np.float64), "float": lambda a: ops.to(a, np.float32),
    "view_as": lambda a, other: ops.reshape(a, other.shape),
    "reshape_as": lambda a, other: ops.reshape(a, other.shape),
    "type_as": lambda a, other: ops.to(a, other.dtype),
    "zero_": ops.zero_, "fill_": ops.fill_, "copy_": ops.copy_,
    "cpu": lambda a: a,   # CPU only: ported `x.detach().cpu().numpy()` keeps working
}

INPLACE = {
    "add_": _add, "sub_": _sub, "mul_": _mul, "div_": _div, "pow_": _pow,
    "__iadd__": _add, "__isub__": _sub, "__imul__": _mul, "__itruediv__": _div, "__ipow__": _pow,
}
INPLACE_UNARY = {f"{name}_": getattr(ops, name) for name in
                 ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "neg", "clamp")
                 if hasattr(ops, name)}
INPLACE_UNARY["neg_"] = _neg


def bind():
    for name, func in {**BINARY, **METHODS}.items():
        setattr(Tensor, name, func)
    for name, func in INPLACE.items():
        setattr(Tensor, name, ops.inplace_binary(func))
    for name, func in INPLACE_UNARY.items():
        setattr(Tensor, name, ops.inplace_unary(func))
    Tensor.real = property(ops.real, doc="The real part (a tensor, as in PyTorch; differentiable).")
    Tensor.imag = property(ops.imag, doc="The imaginary part (a tensor, as in PyTorch; differentiable).")

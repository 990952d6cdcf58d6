"""Numerical integration and differentiation of sampled values, composed of other ops as
PyTorch composes them: ``trapezoid`` (``trapz``), ``cumulative_trapezoid`` and ``gradient``.

>>> from diffcompare import autograd as ag
>>> ag.trapezoid(ag.tensor([1.0, 2.0, 3.0]))
tensor(4.)
>>> ag.gradient(ag.tensor([1.0, 4.0, 9.0, 16.0]))
(tensor([3., 4., 6., 7.]),)
"""

from __future__ import annotations

import numbers

import numpy as np

from ..dtypes import default_dtype
from ..tensor import Tensor
from .losses import div_scalar, mul_scalar
from .recording import check_dim
from .shape import cat


def _scaled(x, c):
    return mul_scalar(x, c)


def _halved(x):
    return div_scalar(x, 2.0)


def _ends(y, d):
    """(y without its last sample, y without its first) along ``d``."""
    n = y.shape[d]
    return y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)


def _spacing(x, y, d):
    """The differences of the sample points ``x`` (a 1-d tensor, or one of ``y``'s shape),
    shaped to multiply ``y``'s intervals along ``d``."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        dx = x[1:] - x[:-1]
        return dx.view(*([-1] + [1] * (y.ndim - 1 - d))) if d != y.ndim - 1 else dx
    first, last = _ends(x, d)
    return last - first


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of the samples ``y`` along ``dim`` by the trapezoidal rule: spaced ``dx``
    apart (1 by default), or at the points ``x``, as ``torch.trapezoid``."""
    d = check_dim(dim, y.ndim)
    n = y.shape[d]
    if x is not None and not isinstance(x, numbers.Number):
        if n == 0:
            return y.sum(d)
        first, last = _ends(y, d)
        return _halved((_spacing(x, y, d) * (last + first)).sum(d))
    spacing = 1.0 if x is None and dx is None else float(dx if dx is not None else x)
    if n == 0:
        return _scaled(y.sum(d), spacing)
    return _scaled(y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5, spacing)


def trapz(y, x=None, *, dx=None, dim=-1):
    """``trapezoid`` under its older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral of the samples ``y`` along ``dim`` by the trapezoidal rule (one
    value fewer than the samples), as ``torch.cumulative_trapezoid``."""
    d = check_dim(dim, y.ndim)
    first, last = _ends(y, d)
    if x is not None and not isinstance(x, numbers.Number):
        return _halved(_spacing(x, y, d) * (last + first)).cumsum(d)
    spacing = 1.0 if x is None and dx is None else float(dx if dx is not None else x)
    return _scaled(last + first, spacing / 2.0).cumsum(d)


def _one_gradient(f, d, h, edge_order):
    """The derivative of the samples ``f`` along ``d`` at uniform spacing ``h``: central
    differences inside, one-sided of order ``edge_order`` at the ends (NumPy's and PyTorch's)."""
    n = f.shape[d]
    if n < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    inner = (f.narrow(d, 2, n - 2) - f.narrow(d, 0, n - 2)) / (2.0 * h)
    if edge_order == 1:
        start = (f.narrow(d, 1, 1) - f.narrow(d, 0, 1)) / h
        end = (f.narrow(d, n - 1, 1) - f.narrow(d, n - 2, 1)) / h
    else:
        start = (-1.5 * f.narrow(d, 0, 1) + 2.0 * f.narrow(d, 1, 1) - 0.5 * f.narrow(d, 2, 1)) / h
        end = (0.5 * f.narrow(d, n - 3, 1) - 2.0 * f.narrow(d, n - 2, 1) + 1.5 * f.narrow(d, n - 1, 1)) / h
    return cat([start, inner, end], d)


def _coordinate_gradient(f, d, x, edge_order):
    """The derivative of the samples ``f`` along ``d`` at the points ``x`` (a 1-d tensor):
    NumPy's (and PyTorch's) second-order differences for unequal steps inside, one-sided ones
    of order ``edge_order`` at the ends."""
    n = f.shape[d]
    work = f.dtype if f.dtype.kind in "fc" else default_dtype()     # integer samples: the default float
    x = np.asarray(x._data if isinstance(x, Tensor) else x, dtype=work)
    if x.ndim != 1 or x.shape[0] != n:
        raise RuntimeError("torch.gradient expected each tensor to be on the same device, and of the same size as "
                           "the input along its dimension")
    if n < edge_order + 1:
        raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    shape = [1] * f.ndim
    shape[d] = -1

    def along(values):
        return Tensor._make(np.asarray(values, work).reshape(shape))

    h = np.diff(x)
    dx1, dx2 = h[:-1], h[1:]
    a, b, c = -dx2 / (dx1 * (dx1 + dx2)), (dx2 - dx1) / (dx1 * dx2), dx1 / (dx2 * (dx1 + dx2))
    inner = f.narrow(d, 0, n - 2) * along(a) + f.narrow(d, 1, n - 2) * along(b) + f.narrow(d, 2, n - 2) * along(c)
    if edge_order == 1:
        start = (f.narrow(d, 1, 1) - f.narrow(d, 0, 1)) / float(h[0])
        end = (f.narrow(d, n - 1, 1) - f.narrow(d, n - 2, 1)) / float(h[-1])
    else:
        d1, d2 = float(h[0]), float(h[1])
        start = (f.narrow(d, 0, 1) * (-(2.0 * d1 + d2) / (d1 * (d1 + d2))) + f.narrow(d, 1, 1) * ((d1 + d2) / (d1 * d2))
                 + f.narrow(d, 2, 1) * (-d1 / (d2 * (d1 + d2))))
        d1, d2 = float(h[-2]), float(h[-1])
        end = (f.narrow(d, n - 3, 1) * (d2 / (d1 * (d1 + d2))) + f.narrow(d, n - 2, 1) * (-(d2 + d1) / (d1 * d2))
               + f.narrow(d, n - 1, 1) * ((2.0 * d2 + d1) / (d2 * (d1 + d2))))
    return cat([start, inner, end], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of the samples ``input`` along each dimension (or ``dim``), one tensor per
    dimension, as ``torch.gradient``: ``spacing`` a number, one per dimension, or the sample
    points along each (1-d tensors); central differences inside, one-sided differences of
    order ``edge_order`` (1 or 2) at the ends."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = tuple(range(input.ndim)) if dim is None else \
        ((check_dim(dim, input.ndim),) if isinstance(dim, numbers.Integral) else tuple(check_dim(k, input.ndim) for k in dim))
    steps = spacing if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a list of length equal "
                           f"to 'self.dim() = {input.ndim}', since dim argument was not given, but got a list of "
                           f"length {len(steps)}")
    return tuple(_coordinate_gradient(input, d, h, edge_order) if isinstance(h, Tensor) else
                 _one_gradient(input, d, float(h), edge_order) for d, h in zip(dims, steps))


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ("cumulative_trapezoid", "gradient", "trapezoid", "trapz")
# what the family exports to `ops`
__all__ = [*PUBLIC]

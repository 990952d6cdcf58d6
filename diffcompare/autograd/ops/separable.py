"""Linear maps applied axis by axis to the trailing axes of a tensor, each axis by its *taps*:
output position ``o`` of an axis is ``sum_t weight[o, t] * x[index[o, t]]``. Average pooling
(plain and adaptive), upsampling (nearest, linear, bicubic) and reflection/replication padding
are all such maps, so they share one pair of ops: the map and its transpose (its vector-Jacobian
product), each the other's VJP, so that both differentiate again.

An index equal to the axis's size reads a zero (a window's taps past its end, a padded place).
An axis may also carry a ``divisor`` per output place: the sums are divided, once, by the product
of the axes' divisors (an average pooling's count, as PyTorch divides it).

>>> import numpy as np
>>> taps = (Taps(np.array([[0, 1], [2, 3]]), np.full((2, 2), 0.5), 4),)   # pairwise means of 4 values
>>> apply_taps(np.arange(4.0), taps)
array([0.5, 2.5])
>>> transpose_taps(np.ones(2), taps)
array([0.5, 0.5, 0.5, 0.5])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..tensor import Tensor
from .recording import Op, apply


@dataclass(frozen=True)
class Taps:
    """One axis of a separable map: ``index`` (O, T) into an axis of ``size``, ``weight`` (O, T)
    (None: every weight 1 and T == 1, a pure selection), ``divisor`` (O,) or None."""
    index: np.ndarray
    weight: np.ndarray | None
    size: int
    divisor: np.ndarray | None = None

    def matrix(self, dtype):
        """The (O, size) matrix of the map."""
        m = np.zeros((self.index.shape[0], self.size + 1), dtype=dtype)
        w = np.ones(self.index.shape, dtype=dtype) if self.weight is None else self.weight.astype(dtype)
        np.add.at(m, (np.arange(self.index.shape[0])[:, None], self.index), w)
        return m[:, :self.size]


def _divisors(taps):
    """The product of the axes' divisors, shaped for the trailing axes (None if there are none)."""
    if all(tap.divisor is None for tap in taps):
        return None
    total = np.ones((1,) * len(taps))
    for a, tap in enumerate(taps):
        if tap.divisor is not None:
            shape = [1] * len(taps)
            shape[a] = -1
            total = total * np.asarray(tap.divisor, dtype=np.float64).reshape(shape)
    return total


def apply_taps(x, taps):
    """The map on an array: each of the trailing ``len(taps)`` axes in turn."""
    d = len(taps)
    divisor = _divisors(taps)
    for a, tap in enumerate(taps):
        axis = x.ndim - d + a
        if tap.index.size and tap.index.max() >= tap.size:      # reads past the end: a zero there
            pad = [(0, 0)] * x.ndim
            pad[axis] = (0, 1)
            x = np.pad(x, pad)
        parts = np.take(x, tap.index, axis=axis)                # (..., O, T, ...)
        if tap.weight is None:
            x = parts.squeeze(axis + 1)
        else:
            shape = [1] * parts.ndim
            shape[axis], shape[axis + 1] = tap.weight.shape
            x = (parts * tap.weight.reshape(shape).astype(parts.dtype, copy=False)).sum(axis=axis + 1)
    return x if divisor is None else (x / divisor).astype(x.dtype, copy=False)


def transpose_taps(g, taps):
    """The transposed map (the VJP of :func:`apply_taps`) on an array."""
    d = len(taps)
    divisor = _divisors(taps)
    if divisor is not None:
        g = (g / divisor).astype(g.dtype, copy=False)
    for a, tap in enumerate(taps):
        axis = g.ndim - d + a
        g = np.moveaxis(np.tensordot(g, tap.matrix(g.dtype), axes=([axis], [0])), -1, axis)
    return g


class SeparableMap(Op):
    """A separable linear map of the trailing axes (its ``taps``); its VJP is :attr:`transpose`
    of ``back_taps`` (the same map, but where PyTorch's backward kernel reads other places than
    its forward kernel, as nearest upsampling's can)."""
    transpose = None

    @staticmethod
    def forward(x, taps, back_taps):
        return np.ascontiguousarray(apply_taps(np.asarray(x), taps))

    def backward(self, g):
        if isinstance(g, Tensor):
            return (apply(self.transpose, (g,), {"taps": self.back_taps}),)
        return (transpose_taps(g, self.back_taps),)


class SeparableMapTransposed(Op):
    """The VJP of a :class:`SeparableMap`: its transposed map; its own VJP is the map."""
    map = None

    @staticmethod
    def forward(g, taps):
        return transpose_taps(np.asarray(g), taps)

    def backward(self, gg):
        if isinstance(gg, Tensor):
            return (apply(self.map, (gg,), {"taps": self.taps, "back_taps": self.taps}),)
        return (apply_taps(gg, self.taps),)


def separable_ops(name):
    """The pair of node classes ``name`` and its VJP ``name`` with ``Backward0`` turned into
    ``BackwardBackward0`` (PyTorch's names: ``AvgPool2DBackward0``, ``AvgPool2DBackwardBackward0``)."""
    forward = type(name, (SeparableMap,), {"__doc__": f"``{name}``: a separable linear map of the trailing axes."})
    back = type(name.replace("Backward0", "BackwardBackward0"), (SeparableMapTransposed,),
                {"__doc__": f"The VJP of ``{name}``."})
    forward.transpose, back.map = back, forward
    for cls in (forward, back):
        cls.tangent = "linear"
        cls.batched_backward = cls.backward
    return forward, back


def separable(cls, input, taps, back_taps=None):
    """``input`` through the map ``taps`` of its trailing axes, recorded as ``cls`` (its VJP the
    transpose of ``back_taps``, by default of ``taps``)."""
    taps = tuple(taps)
    return apply(cls, (input,), {"taps": taps, "back_taps": taps if back_taps is None else tuple(back_taps)})


PUBLIC = ()
__all__ = ['SeparableMap', 'SeparableMapTransposed', 'Taps', 'apply_taps', 'separable', 'separable_ops',
           'transpose_taps']

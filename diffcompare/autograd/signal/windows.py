"""``torch.signal.windows``: SciPy's window functions as PyTorch computes them — sample
positions from ``linspace`` and the window's formula on them, symmetric (``sym=True``) or
periodic (one more point, the last dropped, as the spectral windows of ``torch.hann_window``).

>>> from diffcompare import autograd as ag
>>> ag.signal.windows.bartlett(5)
tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
>>> ag.signal.windows.gaussian(3, std=1.0)
tensor([0.6065, 1.0000, 0.6065])
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .. import ops
from ..dtypes import default_dtype
from ..tensor import arange, linspace, ones, tensor, zeros

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming",
           "hann", "kaiser", "nuttall"]


def _checked(name, M, dtype):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    dtype = np.dtype(dtype or default_dtype())
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: torch.{dtype}")
    return dtype


def _positions(start, step, M, dtype, requires_grad):
    return linspace(start, start + (M - 1) * step, M, dtype=dtype, requires_grad=requires_grad)


def _empty_or_one(M, dtype, requires_grad, one=False):
    if M == 0:
        return zeros(0, dtype=dtype, requires_grad=requires_grad)
    return ones(1, dtype=dtype, requires_grad=requires_grad) if one and M == 1 else None


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """exp(-|n - center| / tau)."""
    dtype = _checked("exponential", M, dtype)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _empty_or_one(M, dtype, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = linspace(-center * constant, (-center + (M - 1)) * constant, M, dtype=dtype, requires_grad=requires_grad)
    return ops.exp(-ops.abs(k))


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sin(pi (n + 0.5) / M) (the sine window)."""
    dtype = _checked("cosine", M, dtype)
    if M == 0:
        return _empty_or_one(M, dtype, requires_grad)
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    return ops.sin(_positions(0.5 * constant, constant, M, dtype, requires_grad))


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """exp(-(n - (M - 1) / 2)^2 / (2 std^2))."""
    dtype = _checked("gaussian", M, dtype)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _empty_or_one(M, dtype, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = _positions(start * constant, constant, M, dtype, requires_grad)
    return ops.exp(-k ** 2)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """I0(sqrt(beta^2 - k^2)) / I0(beta), k from -beta to beta."""
    dtype = _checked("kaiser", M, dtype)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    early = _empty_or_one(M, dtype, requires_grad, one=True)
    if early is not None:
        return early
    b = tensor(beta, dtype=dtype)
    start = -b
    constant = 2.0 * b / (M if not sym else M - 1)
    end = ops.minimum(b, start + (M - 1) * constant)
    k = linspace(start.item(), end.item(), M, dtype=dtype, requires_grad=requires_grad)
    return ops.i0(ops.sqrt(b * b - k ** 2)) / ops.i0(b)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """The triangle 1 - |k|, k from -1."""
    dtype = _checked("bartlett", M, dtype)
    early = _empty_or_one(M, dtype, requires_grad, one=True)
    if early is not None:
        return early
    return 1 - ops.abs(_positions(-1, 2 / (M if not sym else M - 1), M, dtype, requires_grad))


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """sum_i (-1)^i a_i cos(2 pi i n / (M - 1))."""
    dtype = _checked("general_cosine", M, dtype)
    early = _empty_or_one(M, dtype, requires_grad, one=True)
    if early is not None:
        return early
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _positions(0, constant, M, dtype, requires_grad)
    a_i = tensor([(-1) ** i * w for i, w in enumerate(a)], dtype=dtype, requires_grad=requires_grad)
    i = arange(a_i.shape[0], dtype=dtype)
    return (a_i.unsqueeze(-1) * ops.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """alpha - (1 - alpha) cos(2 pi n / (M - 1))."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, sym=sym, dtype=dtype, requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype,
                          requires_grad=requires_grad)

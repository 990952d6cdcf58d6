"""Plain NumPy implementations of functions NumPy lacks or gets wrong at the edges, used by
the ops and by the function table's NumPy column alike.

>>> from diffcompare.autograd.ops.special import erf, erfc, sigmoid
>>> float(erf(0.5)), float(erfc(10.0)), float(sigmoid(800.0)), float(sigmoid(-800.0))
(0.5204998778130465, 2.088487583762545e-45, 1.0, 0.0)
"""

from __future__ import annotations

import math

import numpy as np

from ..quiet import IGNORE as QUIET, reset_quiet, set_quiet

_FLOAT32 = np.dtype(np.float32)


def float32_as_pytorch(np_func):
    """``np_func`` whose float32 results are the float64 ones rounded to float32. PyTorch's
    float32 kernels of exp, log, tanh, sin and their kin (SLEEF's, within one unit in the last
    place) give that value for 95 to 100 % of inputs; NumPy's own float32 kernels give it for
    61 % (exp) to 93 %. Float32 programs, whose rounding differences grow over training steps,
    then follow PyTorch's further. Other dtypes call ``np_func`` as it is.

    >>> x = np.array([0.1, 1.7, -3.2], dtype=np.float32)
    >>> bool((float32_as_pytorch(np.exp)(x) == np.exp(x.astype(np.float64)).astype(np.float32)).all())
    True
    """
    def call(x, *args, **kwargs):
        if type(x) is np.ndarray and x.dtype is _FLOAT32:
            return np_func(x.astype(np.float64), *args, **kwargs).astype(np.float32)
        return np_func(x, *args, **kwargs)
    call.__name__ = call.__qualname__ = np_func.__name__
    call.__doc__ = f"NumPy's ``{np_func.__name__}``, its float32 results rounded from float64 (``float32_as_pytorch``)."
    return call


exp = float32_as_pytorch(np.exp)


_erf_scalar = np.frompyfunc(math.erf, 1, 1)
_erfc_scalar = np.frompyfunc(math.erfc, 1, 1)


def erf(x):
    """erf to full double precision (NumPy has none): math.erf per element."""
    x = np.asarray(x)
    return np.asarray(_erf_scalar(x), dtype=np.float64).astype(x.dtype if x.dtype.kind == "f" else np.float64)


def erfc(x):
    """1 - erf(x) to full relative precision in the upper tail (where 1 - erf(x) loses every
    digit): math.erfc per element, in ``x``'s float dtype."""
    x = np.asarray(x)
    return np.asarray(_erfc_scalar(x), dtype=np.float64).astype(x.dtype if x.dtype.kind == "f" else np.float64)


def sigmoid(x):
    """1 / (1 + exp(-x)), as PyTorch's CPU kernel computes it (the same roundings), in three
    NumPy passes. Below x = -709 exp(-x) overflows to inf, silently, and the result is 0."""
    token = set_quiet(QUIET)
    try:
        e = exp(np.negative(x))         # (float32: as PyTorch's exp gives it, then float32 sums as its kernel)
    finally:
        reset_quiet(token)
    e += 1
    return np.divide(1.0, e, out=e) if type(e) is np.ndarray and e.dtype.kind in "fc" else 1.0 / e


def relu(x):
    return np.maximum(x, 0)  # propagates nan, as PyTorch does

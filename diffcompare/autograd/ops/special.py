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
        e = np.exp(np.negative(x))
    finally:
        reset_quiet(token)
    e += 1
    return np.divide(1.0, e, out=e) if type(e) is np.ndarray and e.dtype.kind in "fc" else 1.0 / e


def relu(x):
    return np.maximum(x, 0)  # propagates nan, as PyTorch does

"""Fused multiply-add as PyTorch's CPU kernels round it: ``a * b + c`` rounded once (the
optimizers' ``add(.., alpha=)``/``addcmul``/``lerp``, ``linspace``, the 2-d grid sampler's
unnormalisation), computed in extended precision and rounded to the dtype of ``c``.

>>> import numpy as np
>>> float(fused_multiply_add(np.float64(0.41666666666666663), 6.0, np.float64(-0.5)))  # not 2.0
1.9999999999999998
"""

from __future__ import annotations

import numpy as np


def fused_multiply_add(a, b, c):
    """``a * b + c`` rounded once, to the dtype of ``c``."""
    dtype = np.result_type(c)
    wide = np.longdouble
    return (np.asarray(a, wide) * np.asarray(b, wide) + np.asarray(c, wide)).astype(dtype)


__all__ = ["fused_multiply_add"]

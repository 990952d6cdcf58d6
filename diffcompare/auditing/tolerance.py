"""autograd's tolerance in an audit: rtol × (|entry| + largest entry at the point) + atol,
from the dtype's ε or the suite's own numbers."""

from __future__ import annotations

import numpy as np

from diffcompare.auditing.suite import Case

GRADCHECK_EPS, GRADCHECK_ATOL, GRADCHECK_RTOL = 1e-6, 1e-5, 1e-3   # gradcheck's own defaults
TOLERANCE_ULPS = 128            # ε's allowed to autograd: rounding in a few hundred operations
EPS = {"float64": float(np.finfo(np.float64).eps), "float32": float(np.finfo(np.float32).eps)}
TINY_NORMAL = {"float64": float(np.finfo(np.float64).tiny), "float32": float(np.finfo(np.float32).tiny)}


def tolerance(case: Case) -> dict:
    """autograd's tolerance against the reference: |autograd - exact| ≤ rtol × (|entry| +
    largest entry at the point) + atol, with where each number came from."""
    eps = EPS[case.dtype]
    rtol = case.tolerance.get("rtol", TOLERANCE_ULPS * eps)
    atol = case.tolerance.get("atol", TINY_NORMAL[case.dtype])
    rtol_from = "the suite" if "rtol" in case.tolerance else f"{TOLERANCE_ULPS} ε({case.dtype}), ε = {eps:.3g}"
    atol_from = "the suite" if "atol" in case.tolerance else f"the smallest normal {case.dtype}"
    return {"rtol": rtol, "atol": atol,
            "source": f"rtol {rtol:.3g} ({rtol_from}) × (|entry| + largest entry at the point) + atol {atol:.3g} "
                      f"({atol_from})"}


def autograd_bound(reference, rtol: float, atol: float) -> np.ndarray:
    """The largest |autograd - exact| allowed per entry: rtol × (|entry| + largest entry
    at the point) + atol (see :func:`tolerance`)."""
    magnitude = np.abs(reference)
    return rtol * (magnitude + magnitude.max()) + atol

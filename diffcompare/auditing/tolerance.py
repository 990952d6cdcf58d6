"""autograd's tolerance in an audit: rtol × (|entry| + largest entry at the point) + atol,
from the dtype's ε or the suite's own numbers."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from diffcompare.auditing.suite import Case
from diffcompare.judge.accuracy import SAFETY, path_bound

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
                      f"({atol_from}); for expressions, where autograd misses it, + the rounding of the terms "
                      f"along f's chain-rule paths"}


def autograd_bound(reference, rtol: float, atol: float) -> np.ndarray:
    """The largest |autograd - exact| allowed per entry: rtol × (|entry| + largest entry
    at the point) + atol (see :func:`tolerance`)."""
    magnitude = np.abs(reference)
    return rtol * (magnitude + magnitude.max()) + atol


def with_paths(tol: dict, problem, task, point: dict, dtype: str) -> dict | None:
    """``tol`` widened, entry by entry, by the rounding a backward pass meets at ``point``
    along f's chain-rule paths, in the summing of each node's contributions and in the
    engine's formulas that read a rounded result (:func:`diffcompare.judge.accuracy.path_bound`,
    scaled to the dtype's ε): an exact 0 that cancels from terms of size 1 (x/x), or a
    saturating sigmoid, is judged by what its terms could lose. None where no bound is
    available (Jacobians, Hessians, arrays, functions that are not expressions)."""
    if task.kind != "gradient":
        return None
    bound = path_bound(replace(problem, point=point))
    if bound is None:
        return None
    scale = SAFETY * EPS[dtype] / EPS["float64"]
    paths = np.array([bound[name] for name in problem.variables]) * scale
    return {**tol, "atol": tol["atol"] + paths}

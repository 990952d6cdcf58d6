"""Determinant by expansion by minors: GradBench's ``det`` eval (cmpad's det_by_minor), a
scalar-oriented recursion of O(l!) products, one tensor operation at a time.

The engine has no ``torch.linalg.det``; the workload is the expansion itself, as GradBench
states it, so both libraries run the same recursion of indexing, products and sums.

>>> data = make_data("tiny", seed=0)
>>> [p.shape for p in data.params]
[(3, 3)]
"""

from __future__ import annotations

import numpy as np

from diffcompare import autograd

from .common import Data

NAME = "det"
TITLE = "Determinant by expansion by minors (GradBench det)"
SIZES = {"tiny": dict(ell=3), "small": dict(ell=4), "medium": dict(ell=5)}   # XLA compiles the 6 x 6 recursion in 100 s


def describe(size):
    ell = SIZES[size]["ell"]
    return f"{ell} x {ell}"


def make_data(size, seed=0) -> Data:
    ell = SIZES[size]["ell"]
    return Data([np.random.default_rng(seed).uniform(-1, 1, (ell, ell))])


def _det(A, row, cols):
    """The determinant of the minor of A's rows row.. and columns ``cols``, expanded along
    its first row."""
    if len(cols) == 1:
        return A[row, cols[0]]
    total = 0.0
    for k, col in enumerate(cols):
        term = A[row, col] * _det(A, row + 1, cols[:k] + cols[k + 1:])
        total = total + term if k % 2 == 0 else total - term
    return total


def _objective(torch, A):
    return _det(A, 0, list(range(A.shape[0])))


def objective_engine(*params, **consts):
    return _objective(autograd, *params, **consts)


def objective_torch(*params, **consts):
    import torch
    return _objective(torch, *params, **consts)


def objective_jax(A):
    return _det(A, 0, list(range(A.shape[0])))

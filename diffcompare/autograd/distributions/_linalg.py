"""``torch.linalg.solve_triangular(A, B, upper=False)`` for the distributions (Cholesky
factors): only ``A``'s lower triangle is read, so only it gets a gradient
(LinalgSolveTriangularBackward0, as PyTorch names the node); batch dimensions broadcast.

>>> from diffcompare import autograd as ag
>>> L = ag.tensor([[2.0, 0.0], [1.0, 1.0]], requires_grad=True)
>>> x = solve_lower(L, ag.tensor([[2.0], [3.0]]))
>>> x.detach(), x.grad_fn.name()
(tensor([[1.],
        [2.]]), 'LinalgSolveTriangularBackward0')
"""

from __future__ import annotations

import numpy as np

from ..ops.recording import RESULT, Op, apply


def _broadcast(a, b):
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return np.broadcast_to(a, shape + a.shape[-2:]), np.broadcast_to(b, shape + b.shape[-2:])


class LinalgSolveTriangularBackward0(Op):
    """X = tril(A)^{-1} B; VJP: gB = tril(A)^{-T} g, gA = -tril(gB X^T) (summed over broadcasting)."""
    saves = (0, RESULT)
    broadcasts = True

    @staticmethod
    def forward(a, b):
        return np.linalg.solve(*_broadcast(np.tril(a), b))

    def backward(self, g, a, x):
        gb = solve_lower(a, g, transpose=True)
        if isinstance(gb, np.ndarray):
            ga = np.tril(-(gb @ x.swapaxes(-1, -2)))
        else:
            ga = (-(gb @ x.mT)).tril()
        return (ga if self.needs(0) else None, gb if self.needs(1) else None)


def _reverse(t):
    return t[..., ::-1, ::-1] if isinstance(t, np.ndarray) else t.flip((-2, -1))


def solve_lower(a, b, transpose=False):
    """tril(a)^{-1} b, or tril(a)^{-T} b with ``transpose`` (arrays or tensors)."""
    if transpose:
        # tril(a)^T x = b  <=>  R tril(a)^T R (R x) = R b with R the reversal, R tril(a)^T R lower triangular
        at = a.swapaxes(-1, -2) if isinstance(a, np.ndarray) else a.mT
        rb = b[..., ::-1, :] if isinstance(b, np.ndarray) else b.flip((-2,))
        rx = solve_lower(_reverse(at), rb)
        return rx[..., ::-1, :] if isinstance(rx, np.ndarray) else rx.flip((-2,))
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return LinalgSolveTriangularBackward0.forward(a, b)
    return apply(LinalgSolveTriangularBackward0, (a, b))

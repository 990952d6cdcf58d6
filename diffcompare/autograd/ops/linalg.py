"""Linear algebra: ``mm``, ``mv``, ``dot`` and ``matmul``."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .dual import D
from .forward import matmul_tangent
from .recording import Op, apply, sum_to

class MmBackward0(Op):
    """Matrix product; 1-d operands are treated as a row (left) or a column (right)."""
    saves = (0, 1)
    saved_names = ("self", "mat2")
    forward = staticmethod(np.matmul)

    def backward(self, g, a, b, lead=()):
        if a.ndim == 1 and b.ndim == 1:
            if lead:
                g = g.reshape(lead + (1,))
            return (g * b if self.needs(0) else None), (g * a if self.needs(1) else None)
        a2 = a.reshape((1,) + a.shape) if a.ndim == 1 else a
        b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
        g2 = g
        if a.ndim == 1:
            g2 = D.unsqueeze(g2, -2)
        if b.ndim == 1:
            g2 = D.unsqueeze(g2, -1)
        ga = gb = None
        if self.needs(0):
            ga = sum_to(g2 @ b2.swapaxes(-1, -2), a2.shape, len(lead)).reshape(lead + a.shape)
        if self.needs(1):
            gb = sum_to(a2.swapaxes(-1, -2) @ g2, b2.shape, len(lead)).reshape(lead + b.shape)
        return ga, gb

    def batched_backward(self, g, a, b):
        return self.backward(g, a, b, lead=g.shape[:1])


MmBackward0.tangent = staticmethod(matmul_tangent)


class DotBackward0(MmBackward0):
    saved_names = ("self", "tensor")


class MvBackward0(MmBackward0):
    saved_names = ("self", "vec")


class SqueezeBackward4(MmBackward0):
    """PyTorch's node name for vector @ matrix."""


class MatmulBackward0(MmBackward0):
    """Batched matmul (PyTorch records these through views as UnsafeViewBackward0)."""


def matmul(a, b):
    """Matrix product with NumPy's (and PyTorch's) rules for 1-d and batched operands."""
    a_nd = a.ndim if isinstance(a, Tensor) else np.ndim(a)
    b_nd = b.ndim if isinstance(b, Tensor) else np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a_nd}D and {b_nd}D")
    a_shape = a.shape if isinstance(a, Tensor) else np.shape(a)
    b_shape = b.shape if isinstance(b, Tensor) else np.shape(b)
    inner_a = a_shape[-1]
    inner_b = b_shape[0] if b_nd == 1 else b_shape[-2]
    if inner_a != inner_b:
        left = "x".join(str(n) for n in ((1,) + tuple(a_shape) if a_nd == 1 else a_shape))
        right = "x".join(str(n) for n in (tuple(b_shape) + (1,) if b_nd == 1 else b_shape))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({left} and {right})")
    cls = {(1, 1): DotBackward0, (2, 2): MmBackward0, (2, 1): MvBackward0, (1, 2): SqueezeBackward4}.get(
        (a_nd, b_nd), MatmulBackward0)
    return apply(cls, (a, b))


def mm(a, b):
    """Matrix-matrix product; both operands must be 2-D (as in PyTorch)."""
    if a.ndim != 2:
        raise RuntimeError(f"self must be a matrix (mm expects 2-D tensors; got a {a.ndim}-D tensor of shape "
                           f"{list(a.shape)}: for a vector use matmul, mv or reshape it to (1, n))")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix (mm expects 2-D tensors; got a {b.ndim}-D tensor of shape "
                           f"{list(b.shape)})")
    return matmul(a, b)


def mv(a, v):
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {a.ndim}, {v.ndim}")
    return matmul(a, v)


def dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape != b.shape:
        raise RuntimeError("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same "
                           "number of elements, but got %d and %d elements respectively"
                           % (a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    return matmul(a, b)


# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('dot', 'matmul', 'mm', 'mv')
# what the family exports to `ops`
__all__ = ['DotBackward0', 'MatmulBackward0', 'MmBackward0', 'MvBackward0', 'SqueezeBackward4', 'dot',
           'matmul', 'mm', 'mv']

"""Matrix products: ``mm``, ``mv``, ``dot``, ``matmul``, ``bmm``, and the fused
``addmm`` and ``baddbmm`` (beta * input + alpha * product, one node as in PyTorch)."""

from __future__ import annotations

import numpy as np

from ..dtypes import cpp_type_name, scalar_type_name
from ..tensor import Tensor
from .dual import D
from .forward import matmul_tangent
from .outputs import write_out
from .overloads import scales_first
from .recording import Op, apply, sum_to
from .shape import SqueezeBackward1, unsqueeze

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
        if not lead and a.ndim == 2 and b.ndim == 2:     # matrices: the gradients in the operands' layouts
            return (_mat1_grad(g, b, a) if self.needs(0) else None), (_mat2_grad(g, a, b) if self.needs(1) else None)
        if self.needs(0):
            ga = sum_to(g2 @ b2.swapaxes(-1, -2), a2.shape, len(lead)).reshape(lead + a.shape)
        if self.needs(1):
            gb = sum_to(a2.swapaxes(-1, -2) @ g2, b2.shape, len(lead)).reshape(lead + b.shape)
        return ga, gb

    def batched_backward(self, g, a, b):
        return self.backward(g, a, b, lead=g.shape[:1])


MmBackward0.tangent = staticmethod(matmul_tangent)


def _column_major(m):
    """Whether a matrix is laid out by columns (a transpose's view, ``weight.t()``)."""
    a = m._data if isinstance(m, Tensor) else m
    return a.ndim == 2 and a.flags.f_contiguous and not a.flags.c_contiguous


def _mat1_grad(g, mat2, mat1=None):
    """g @ mat2^T, the first factor's gradient, laid out as that factor is (PyTorch's
    ``mm_mat1_backward``): computed transposed when the factor is a transpose's view, so that
    its own transpose's gradient, the one a leaf gets, is contiguous."""
    if mat1 is not None and _column_major(mat1):
        return (mat2 @ g.swapaxes(-1, -2)).swapaxes(-1, -2)
    return g @ mat2.swapaxes(-1, -2)


def _mat2_grad(g, mat1, mat2):
    """mat1^T @ g, the second factor's gradient, laid out as that factor is (PyTorch's
    ``mm_mat2_backward``): ``linear``'s ``weight.t()`` gets (g^T mat1)^T, so the weight's
    gradient is contiguous (``w.grad.view(-1)`` works, as in PyTorch)."""
    if _column_major(mat2):
        return (g.swapaxes(-1, -2) @ mat1).swapaxes(-1, -2)
    return mat1.swapaxes(-1, -2) @ g


class DotBackward0(MmBackward0):
    saved_names = ("self", "tensor")
    packs_in_order = True       # PyTorch packs self, then tensor (most ops pack other first)


class MvBackward0(MmBackward0):
    saved_names = ("self", "vec")


class SqueezeBackward4(SqueezeBackward1):
    """The last of the three nodes PyTorch records for vector @ matrix: UnsqueezeBackward0 (of
    the vector), MmBackward0, then this squeeze of the product's leading 1 (its in-place
    ``squeeze_(0)``), so that a walk along ``next_functions`` meets PyTorch's nodes."""


class MatmulBackward0(MmBackward0):
    """Batched matmul. PyTorch records it through a fold or an expansion, its last node named
    UnsafeViewBackward0 (CloneBackward0 for a matrix times a batch); the two subclasses below
    carry those names."""


# the node a batched matmul records, by PyTorch's name for the last op of its decomposition
MATMUL_UNSAFE_VIEW = type("UnsafeViewBackward0", (MatmulBackward0,), {"__doc__": MatmulBackward0.__doc__})
MATMUL_CLONE = type("CloneBackward0", (MatmulBackward0,), {"__doc__": MatmulBackward0.__doc__})


def _dtype_of(x):
    return x._data.dtype if isinstance(x, Tensor) else np.result_type(x)


def _same_dtype(a, b, a_nd, b_nd):
    """PyTorch's error for a product of two dtypes (it promotes none), in the words of the
    kernel the product goes to: dot, mv, bmm, or mm."""
    da, db = _dtype_of(a), _dtype_of(b)
    if da == db:
        return
    if a_nd == 1 and b_nd == 1:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {scalar_type_name(da)} and "
                           f"{scalar_type_name(db)}")
    if b_nd == 1:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {scalar_type_name(db)}, "
                           f"{scalar_type_name(da)}, and {scalar_type_name(db)}")
    if b_nd >= 3:
        raise RuntimeError(f"expected scalar type {scalar_type_name(da)} but found {scalar_type_name(db)}")
    raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_type_name(da)} != "
                       f"{cpp_type_name(db)}")


def matmul(input, other, *, out=None):  # noqa: A002  (PyTorch's keyword names: torch.matmul(input=, other=))
    """Matrix product with NumPy's (and PyTorch's) rules for 1-d and batched operands;
    ``out=``: written there."""
    if out is not None:
        return write_out(matmul(input, other), out, "matmul")
    a, b = input, other
    a_nd = a.ndim if isinstance(a, Tensor) else np.ndim(a)
    b_nd = b.ndim if isinstance(b, Tensor) else np.ndim(b)
    if a_nd == 0 or b_nd == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{a_nd}D and {b_nd}D")
    a_shape = a._data.shape if isinstance(a, Tensor) else np.shape(a)
    b_shape = b._data.shape if isinstance(b, Tensor) else np.shape(b)
    inner_a = a_shape[-1]
    inner_b = b_shape[0] if b_nd == 1 else b_shape[-2]
    _same_dtype(a, b, a_nd, b_nd)
    if inner_a != inner_b:
        left = "x".join(str(n) for n in ((1,) + tuple(a_shape) if a_nd == 1 else a_shape))
        right = "x".join(str(n) for n in (tuple(b_shape) + (1,) if b_nd == 1 else b_shape))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({left} and {right})")
    if a_nd == 1 and b_nd == 2:
        row = apply(MmBackward0, (unsqueeze(a, 0) if isinstance(a, Tensor) else np.asarray(a)[None], b))
        shape = row._data.shape
        return apply(SqueezeBackward4, (row,), {"shape": shape[1:], "in_shape": shape})
    cls = {(1, 1): DotBackward0, (2, 2): MmBackward0, (2, 1): MvBackward0}.get(
        (a_nd, b_nd), MATMUL_CLONE if a_nd == 2 else MATMUL_UNSAFE_VIEW)
    return apply(cls, (a, b))


def mm(input, mat2, *, out=None):  # noqa: A002  (PyTorch's keyword names)
    """Matrix-matrix product; both operands must be 2-D (as in PyTorch)."""
    if out is not None:
        return write_out(mm(input, mat2), out, "mm")
    a, b = input, mat2
    if a.ndim != 2:
        raise RuntimeError(f"self must be a matrix (mm expects 2-D tensors; got a {a.ndim}-D tensor of shape "
                           f"{list(a.shape)}: for a vector use matmul, mv or reshape it to (1, n))")
    if b.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix (mm expects 2-D tensors; got a {b.ndim}-D tensor of shape "
                           f"{list(b.shape)})")
    return matmul(a, b)


def mv(input, vec, *, out=None):
    a, v = input, vec       # PyTorch's names, for keyword calls
    if out is not None:
        return write_out(mv(a, v), out, "mv")
    if a.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {a.ndim}, {v.ndim}")
    return matmul(a, v)


def dot(input, tensor, *, out=None):
    a, b = input, tensor    # PyTorch's names, for keyword calls
    if out is not None:
        return write_out(dot(a, b), out, "dot")
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.shape != b.shape:
        raise RuntimeError("inconsistent tensor size, expected tensor [%d] and src [%d] to have the same "
                           "number of elements, but got %d and %d elements respectively"
                           % (a.shape[0], b.shape[0], a.shape[0], b.shape[0]))
    return matmul(a, b)


class BmmBackward0(Op):
    """Batched matrix product of two 3-D tensors."""
    saves = (0, 1)
    forward = staticmethod(np.matmul)
    tangent = staticmethod(matmul_tangent)

    def backward(self, g, a, b):
        return (g @ b.swapaxes(-1, -2) if self.needs(0) else None), \
            (a.swapaxes(-1, -2) @ g if self.needs(1) else None)


def bmm(input, mat2, *, out=None):
    """Batched matrix product: ``input[i] @ mat2[i]`` for 3-D tensors (no broadcasting).

    >>> from diffcompare import autograd as ag
    >>> ag.bmm(ag.ones(2, 1, 3), mat2=ag.ones(2, 3, 1)).shape
    torch.Size([2, 1, 1])
    """
    a, b = input, mat2
    if out is not None:
        return write_out(bmm(a, b), out, "bmm")
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    _same_dtype(a, b, 3, 3)
    if b.shape[:2] != (a.shape[0], a.shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    return apply(BmmBackward0, (a, b))


class AddmmBackward0(Op):
    """beta * input + alpha * (m1 @ m2); input broadcasts to the product's shape."""
    saves = (1, 2)

    @staticmethod
    def forward(c, m1, m2, beta, alpha, input_shape):
        product = np.matmul(m1, m2)
        if alpha != 1:
            product = product * alpha
        if beta == 0:
            return product
        return product + (c if beta == 1 else c * beta)

    def backward(self, g, m1, m2):
        beta, alpha = self.beta, self.alpha
        gc = None
        if self.needs(0):
            gc = sum_to(g if beta == 1 else g * beta, self.input_shape)
        ga = _mat1_grad(g, m2, m1) if self.needs(1) else None
        gb = _mat2_grad(g, m1, m2) if self.needs(2) else None
        if alpha != 1:
            ga = None if ga is None else ga * alpha
            gb = None if gb is None else gb * alpha
        return gc, ga, gb


def _addmm_tangent(node, tangents, arrays, out):
    tc, t1, t2 = tangents
    product = matmul_tangent(node, (t1, t2), arrays[1:], out)
    total = None if product is None else product * node.alpha
    if tc is not None and node.beta != 0:
        total = tc * node.beta if total is None else total + tc * node.beta
    return total


AddmmBackward0.tangent = staticmethod(_addmm_tangent)


class BaddbmmBackward0(AddmmBackward0):
    pass


@scales_first("addmm", ("mat1", "mat2"))
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` in one node (what ``nn.Linear`` records).

    >>> from diffcompare import autograd as ag
    >>> ag.addmm(ag.ones(2), ag.eye(2), ag.full((2, 2), 3.0), beta=2).tolist()
    [[5.0, 5.0], [5.0, 5.0]]
    """
    if mat1.ndim != 2:
        raise RuntimeError("mat1 must be a matrix, got %d-D tensor" % mat1.ndim)
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix, got %d-D tensor" % mat2.ndim)
    for first, name, other in ((input, "self", mat2), (mat1, "mat1", mat2)):
        if isinstance(first, Tensor) and _dtype_of(first) != _dtype_of(other):
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {scalar_type_name(_dtype_of(first))} "
                               f"and {scalar_type_name(_dtype_of(other))}")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x{mat1.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    return _fused(AddmmBackward0, input, mat1, mat2, beta, alpha)


@scales_first("baddbmm", ("batch1", "batch2"))
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)`` in one node."""
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return _fused(BaddbmmBackward0, input, batch1, batch2, beta, alpha)


def _fused(cls, input, m1, m2, beta, alpha, shape=None):
    if shape is None:
        shape = tuple(m1.shape[:-1]) + (m2.shape[-1],)
    in_shape = tuple(np.shape(input._data if isinstance(input, Tensor) else input))
    try:
        if np.broadcast_shapes(in_shape, shape) != shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                           f"({in_shape[-1] if in_shape else 1}) at non-singleton dimension {len(shape) - 1}.  "
                           f"Target sizes: {list(shape)}.  Tensor sizes: {list(in_shape)}") from None
    return apply(cls, (input, m1, m2), {"beta": beta, "alpha": alpha, "input_shape": in_shape})



class AddmvBackward0(AddmmBackward0):
    """beta * input + alpha * (mat @ vec): d mat = alpha g vec^T, d vec = alpha mat^T g."""

    def backward(self, g, m, v):
        gc = sum_to(g if self.beta == 1 else g * self.beta, self.input_shape) if self.needs(0) else None
        gm = (g.reshape(-1, 1) * v.reshape(1, -1)) * self.alpha if self.needs(1) else None
        gv = (m.swapaxes(-1, -2) @ g) * self.alpha if self.needs(2) else None
        return gc, gm, gv


class AddrBackward0(AddmmBackward0):
    """beta * input + alpha * outer(vec1, vec2): d vec1 = alpha g vec2, d vec2 = alpha g^T vec1."""

    @staticmethod
    def forward(c, v1, v2, beta, alpha, input_shape):
        return AddmmBackward0.forward(c, np.reshape(v1, (-1, 1)), np.reshape(v2, (1, -1)), beta, alpha, input_shape)

    def backward(self, g, v1, v2):
        gc = sum_to(g if self.beta == 1 else g * self.beta, self.input_shape) if self.needs(0) else None
        g1 = (g @ v2) * self.alpha if self.needs(1) else None
        g2 = (g.swapaxes(-1, -2) @ v1) * self.alpha if self.needs(2) else None
        return gc, g1, g2


class AddbmmBackward0(AddmmBackward0):
    """beta * input + alpha * sum_b batch1[b] @ batch2[b]."""

    @staticmethod
    def forward(c, b1, b2, beta, alpha, input_shape):
        return AddmmBackward0.forward(c, np.concatenate(list(b1), axis=-1) if len(b1) else np.zeros(b1.shape[1:2] + (0,)),
                                      np.concatenate(list(b2), axis=0) if len(b2) else np.zeros((0,) + b2.shape[2:]),
                                      beta, alpha, input_shape)

    def backward(self, g, b1, b2):
        gc = sum_to(g if self.beta == 1 else g * self.beta, self.input_shape) if self.needs(0) else None
        g1 = (g @ b2.swapaxes(-1, -2)) * self.alpha if self.needs(1) else None
        g2 = (b1.swapaxes(-1, -2) @ g) * self.alpha if self.needs(2) else None
        return gc, g1, g2


AddmvBackward0.tangent = AddrBackward0.tangent = AddbmmBackward0.tangent = None


@scales_first("addmv", ("mat", "vec"))
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)`` in one node."""
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({mat.shape[0]}), mat ({mat.shape[0]}x{mat.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    return _fused(AddmvBackward0, input, mat, vec, beta, alpha, (mat.shape[0],))


@scales_first("addr", ("vec1", "vec2"))
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)`` in one node."""
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D" if vec1.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return _fused(AddrBackward0, input, vec1, vec2, beta, alpha, (vec1.shape[0], vec2.shape[0]))


@scales_first("addbmm", ("batch1", "batch2"))
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` in one node."""
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return _fused(AddbmmBackward0, input, batch1, batch2, beta, alpha, (batch1.shape[1], batch2.shape[2]))

# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('addbmm', 'addmm', 'addmv', 'addr', 'baddbmm', 'bmm', 'dot', 'matmul', 'mm', 'mv')
# what the family exports to `ops`
__all__ = ['AddbmmBackward0', 'AddmvBackward0', 'AddrBackward0', 'addbmm', 'addmv', 'addr', 'AddmmBackward0', 'BaddbmmBackward0', 'BmmBackward0', 'addmm', 'baddbmm', 'bmm', 'DotBackward0', 'MatmulBackward0', 'MmBackward0', 'MvBackward0', 'SqueezeBackward4', 'dot',
           'matmul', 'mm', 'mv']

"""Functions of square matrices (batched over leading dimensions): ``det``, ``slogdet``,
``inv``, ``solve``, ``cholesky`` and the singular values behind the spectral and nuclear
norms. Each backward is written with the differentiable ops themselves (``D.inv``,
``D.solve``, ``@``), so second derivatives come through ``create_graph=True``.

A matrix the factorisation cannot take (singular for ``inv`` and ``solve``, not positive
definite for ``cholesky``) raises :class:`LinAlgError`, a ``RuntimeError`` as in PyTorch.

>>> from diffcompare import autograd as ag
>>> a = ag.tensor([[2.0, 1.0], [0.0, 3.0]], requires_grad=True)
>>> ag.linalg.det(a).backward()          # d det / dA = det(A) A^-T
>>> a.grad
tensor([[ 3.,  0.],
        [-1.,  2.]])
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..dtypes import scalar_type_name
from ..tensor import Tensor
from .dual import D, define, register
from .recording import RESULT, Op, apply, array_of


class LinAlgError(RuntimeError):
    """A matrix that a linear-algebra function cannot take (``torch.linalg.LinAlgError``)."""


def check_square(x, name):
    """PyTorch's refusal of ``x`` unless it is a batch of square matrices."""
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {x.shape[-2]} by "
                           f"{x.shape[-1]} matrices")


def check_same_dtype(prefix, names, a, b, end=""):
    """PyTorch's refusal of two operands of a solver (or product) in different dtypes, in its
    words: ``{prefix}Expected A and B to have the same dtype, but found A of type Double and B
    of type Float instead{end}``."""
    if a.dtype != b.dtype:
        first, second = names
        raise RuntimeError(f"{prefix}Expected {first} and {second} to have the same dtype, but found {first} of type "
                           f"{scalar_type_name(a.dtype)} and {second} of type {scalar_type_name(b.dtype)} instead{end}")


def _mT(a):
    return a.swapaxes(-1, -2)


def _scalar_like(g):
    """A gradient of one value per matrix, broadcastable against the matrices."""
    return D.unsqueeze(D.unsqueeze(g, -1), -1)


class LinalgDetBackward0(Op):
    """det(A); d det = det(A) A^-T (PyTorch's formula for invertible A)."""
    saves = (0, RESULT)

    @staticmethod
    def forward(a):
        return np.asarray(np.linalg.det(a))

    def backward(self, g, a, r):
        return (_scalar_like(g * r) * _mT(D.inv(a)),)


def det(a):
    """The determinant of each square matrix.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.det(ag.tensor([[2.0, 1.0], [0.0, 3.0]]))
    tensor(6.)
    """
    check_square(a, "linalg.det")
    return apply(LinalgDetBackward0, (a,))


class LinalgSlogdetBackward0(Op):
    """log|det A|; its gradient is A^-T (the sign is piecewise constant)."""
    saves = (0,)

    @staticmethod
    def forward(a):
        return np.asarray(np.linalg.slogdet(a)[1])

    def backward(self, g, a):
        return (_scalar_like(g) * _mT(D.inv(a)),)


SlogdetResult = namedtuple("linalg_slogdet", ["sign", "logabsdet"])


def slogdet(a):
    """``(sign, logabsdet)`` of each square matrix: det = sign * exp(logabsdet), without overflow.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.slogdet(ag.tensor([[-2.0, 0.0], [0.0, 3.0]]))
    linalg_slogdet(sign=tensor(-1.), logabsdet=tensor(1.7918))
    """
    check_square(a, "linalg.slogdet")
    sign = Tensor._make(np.asarray(np.linalg.slogdet(array_of(a))[0]))
    return SlogdetResult(sign, apply(LinalgSlogdetBackward0, (a,)))


def logdet(a):
    """log det A: nan where det A < 0, -inf where it is 0 (as PyTorch)."""
    check_square(a, "linalg.slogdet")
    sign, logabs = slogdet(a)
    s = sign._data
    return D.where(s < 0, np.nan, D.where(s == 0, -np.inf, logabs))


class LinalgInvExBackward0(Op):
    """A^-1; d A = -A^-T g A^-T."""
    saves = (RESULT,)

    @staticmethod
    def forward(a):
        return _checked_inv(a, "linalg.inv")

    def backward(self, g, r):
        rt = _mT(r)
        return (-(rt @ g @ rt),)


def _checked_inv(a, name):
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise LinAlgError(f"{name}: The diagonal element {_first_zero_pivot(a)} is zero, the inversion could not "
                          f"be completed because the input matrix is singular.") from None


def _first_zero_pivot(a):
    """The 1-based position of the first zero pivot of LU with partial pivoting (of the first
    singular matrix of a batch), as LAPACK reports it."""
    mats = np.asarray(a, dtype=np.float64).reshape((-1,) + np.shape(a)[-2:])
    for m in mats:
        m = m.copy()
        n = m.shape[0]
        for k in range(n):
            p = k + int(np.argmax(np.abs(m[k:, k])))
            if m[p, k] == 0:
                return k + 1
            m[[k, p]] = m[[p, k]]
            m[k + 1:, k:] -= np.outer(m[k + 1:, k] / m[k, k], m[k, k:])
    return 1


def inv(a):
    """The inverse of each square matrix; a singular one raises :class:`LinAlgError`.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.inv(ag.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    check_square(a, "linalg.inv")
    return apply(LinalgInvExBackward0, (a,))


class LinalgSolveExBackward0(Op):
    """X = A^-1 B: d B = A^-T g, d A = -(d B) X^T; a vector B is a column."""
    saves = (0, RESULT)

    @staticmethod
    def forward(a, b, vector):
        try:
            if vector:
                return np.linalg.solve(a, b[..., None])[..., 0]
            return np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") \
                from None

    def backward(self, g, a, x):
        if self.vector:
            g, x = D.unsqueeze(g, -1), D.unsqueeze(x, -1)
        gb = D.solve(_mT(a), g)
        ga = -(gb @ _mT(x)) if self.needs(0) else None
        if self.vector:
            gb = gb[..., 0]
        return ga, (gb if self.needs(1) else None)


def solve(A, B, *, left=True):
    """X with A X = B for square A; B a matrix, or a vector (then X is one).

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.solve(ag.tensor([[2.0, 0.0], [0.0, 4.0]]), ag.tensor([2.0, 2.0]))
    tensor([1.0000, 0.5000])
    """
    return solve_recorded(A, B, left=left, node=LinalgSolveExBackward0)


def solve_recorded(A, B, *, left=True, node=LinalgSolveExBackward0):
    """``solve``'s checks and its result recorded by ``node`` (LinalgSolveExBackward0, or a
    form of it: ``solve_ex``'s, which gives a singular matrix's infinities)."""
    if not left:
        return _mT(solve_recorded(_mT(A), _mT(B), node=node))
    check_square(A, "linalg.solve")
    check_same_dtype("linalg.solve: ", ("A", "B"), A, B)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    rows = B.shape[-1] if vector else B.shape[-2]
    if rows != A.shape[-1]:
        b_shape = f"{B.shape[-1]}x1" if vector else f"{B.shape[-2]}x{B.shape[-1]}"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {b_shape})")
    return apply(node, (A, B), {"vector": vector})


class LinalgCholeskyExBackward0(Op):
    """A = L L^T: d A = sym(L^-T Φ(L^T g) L^-1), Φ the lower triangle with half its diagonal."""
    saves = (RESULT,)

    @staticmethod
    def forward(a, upper, factor=None):
        if factor is not None:              # (cholesky_ex: computed with its info, LAPACK's partial factor)
            return _mT(factor).copy() if upper else factor
        try:
            lower = np.linalg.cholesky(a)
        except np.linalg.LinAlgError:
            raise LinAlgError(f"linalg.cholesky: The factorization could not be completed because the input is "
                              f"not positive-definite (the leading minor of order {_failing_minor(a)} is not "
                              f"positive-definite).") from None
        return _mT(lower).copy() if upper else lower

    def backward(self, g, r):
        if self.upper:
            g, r = _mT(g), _mT(r)
        phi = D.tril(_mT(r) @ g, 0)
        n = r.shape[-1]
        phi = phi - 0.5 * phi * np.eye(n, dtype=array_of(r).dtype)
        r_inv = D.inv(r)
        s = _mT(r_inv) @ phi @ r_inv
        return (0.5 * (s + _mT(s)),)


def _failing_minor(a):
    mats = np.asarray(a).reshape((-1,) + np.shape(a)[-2:])
    for m in mats:
        for k in range(1, m.shape[0] + 1):
            try:
                np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                return k
    return 1


def cholesky(A, *, upper=False):
    """The lower-triangular L with L L^T = A (upper: L^T); A must be positive definite.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.cholesky(ag.tensor([[4.0, 2.0], [2.0, 5.0]]))
    tensor([[2., 0.],
            [1., 2.]])
    """
    if A.ndim < 2:
        raise RuntimeError("linalg.cholesky: The input tensor A must have at least 2 dimensions.")
    check_square(A, "linalg.cholesky")
    return apply(LinalgCholeskyExBackward0, (A,), {"upper": bool(upper)})


for _cls in (LinalgDetBackward0, LinalgSlogdetBackward0, LinalgInvExBackward0, LinalgSolveExBackward0,
             LinalgCholeskyExBackward0):
    _cls.batched_backward = None

register(inv=inv, solve=solve)
define("inv", np.linalg.inv)
define("solve", np.linalg.solve)

# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ('det', 'inverse', 'logdet', 'slogdet')
inverse = inv
# what the family exports to `ops`
__all__ = ['LinAlgError', 'LinalgCholeskyExBackward0', 'LinalgDetBackward0', 'LinalgInvExBackward0',
           'LinalgSlogdetBackward0', 'LinalgSolveExBackward0', 'SlogdetResult', 'check_same_dtype', 'cholesky',
           'inv', 'solve', 'solve_recorded', *PUBLIC]

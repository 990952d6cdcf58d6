"""Matrix factorisations and the functions built on them, batched over leading dimensions:
``eigh``/``eigvalsh``, ``svd``, ``qr``, ``lu_factor``/``lu``/``lu_solve``, ``pinv``,
``matrix_exp``, ``lstsq``, ``matrix_power``, ``multi_dot``, ``matrix_rank``. A factorisation
with several differentiable results records one node with several outputs, as PyTorch does
(``LinalgEighBackward0`` for both the eigenvalues and the eigenvectors), and its backward is
PyTorch's formula (``linalg_eig_backward``, ``svd_backward``, ``linalg_qr_backward``,
``linalg_lu_backward``, ...), written with operations that serve arrays and tensors alike
(``@``, ``D.solve``), so ``create_graph=True`` differentiates it again.

>>> from diffcompare import autograd as ag
>>> a = ag.tensor([[2.0, 1.0], [1.0, 2.0]], requires_grad=True)
>>> values, vectors = ag.linalg.eigh(a)
>>> values
tensor([1., 3.], grad_fn=<LinalgEighBackward0>)
>>> values.sum().backward()         # d trace / dA = I
>>> print(a.grad.numpy().round(12) + 0.0)
[[1. 0.]
 [0. 1.]]
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from functools import reduce

import numpy as np

from ..dtypes import scalar_type_name
from ..graph import SavedTensor
from ..grad_mode import STATE
from ..quiet import quietly
from ..tensor import Tensor
from .decompositions import (LinAlgError, LinalgCholeskyExBackward0, LinalgInvExBackward0, LinalgSolveExBackward0,
                             check_same_dtype, cholesky as linalg_cholesky, solve_recorded)
from .dual import D, define, register
from .forward import set_tangent, tangent_array
from .linalg import matmul, mm
from .matrices import DiagEmbedBackward0
from .outputs import write_out
from .recording import Op, apply, array_of, check_dim, record
from .scattering import not_differentiable
from .shape import cat

_EPS = np.finfo(np.float64).eps

EighResult = namedtuple("eigh", ["eigenvalues", "eigenvectors"])
SvdResult = namedtuple("svd", ["U", "S", "Vh"])
LegacySvdResult = namedtuple("svd", ["U", "S", "V"])
QrResult = namedtuple("qr", ["Q", "R"])
LuFactorResult = namedtuple("lu_factor", ["LU", "pivots"])
LuFactorExResult = namedtuple("lu_factor_ex", ["LU", "pivots", "info"])
LuResult = namedtuple("lu", ["P", "L", "U"])
LuUnpackResult = namedtuple("lu_unpack", ["P", "L", "U"])
LstsqResult = namedtuple("lstsq", ["solution", "residuals", "rank", "singular_values"])


def _matrix(A, name):
    if A.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")


def _square(A, name):
    _matrix(A, name)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _mH(a):
    return D.conj(a).swapaxes(-1, -2) if a.dtype.kind == "c" else a.swapaxes(-1, -2)


def _eye(n, dtype):
    return np.eye(n, dtype=dtype)


def _wants_grad(args):
    return STATE.grad_enabled and any(isinstance(a, Tensor) and a.requires_grad_flag for a in args)


def _refuse_tangents(cls, args):
    if STATE.forward_level and any(isinstance(a, Tensor) and a._tangent is not None for a in args):
        raise NotImplementedError(f"Trying to use forward AD with {cls.__name__} that does not support it because "
                                  "it has not been implemented yet.")
    return None


def record_outputs(cls, args, params, outs, differentiable, jvp=None):
    """Tensors for the arrays ``outs`` of the op ``cls`` on ``args``: when recording, one node
    with an output per array, those of ``differentiable`` (their positions) requiring grad;
    the node keeps what ``cls.keeps`` names (input positions, then ``"out<i>"`` for outputs).
    ``jvp(tangents, outs)``, where the op has a forward-mode rule, gives the outputs' tangents
    (arrays, one per output or None) from the inputs' tangent arrays (None for one without)."""
    tangents = _tangents_for(cls, args) if jvp is not None else _refuse_tangents(cls, args)
    return _outputs(cls, args, params, outs, differentiable, None if tangents is None else quietly(jvp, tangents, outs))


def _tangents_for(cls, args):
    """The tangent arrays of ``args`` at the open dual level (None where one has none), or None
    when none has one; a tangent that is itself differentiable (a tensor requiring grad) is
    refused."""
    if not STATE.forward_level:
        return None
    tangents = [a._tangent if isinstance(a, Tensor) else None for a in args]
    if all(t is None for t in tangents):
        return None
    if any(isinstance(t, Tensor) and t.requires_grad for t in tangents):
        raise NotImplementedError(f"Trying to use forward AD with {cls.__name__} on a tangent that is itself "
                                  "differentiable (reverse mode over forward mode): not implemented here.")
    return [None if t is None else tangent_array(t) for t in tangents]


def _outputs(cls, args, params, outs, differentiable, tangents):
    """The output tensors, with their ``tangents`` (None, or one array or None per output)
    attached before the node saves them (a saved output keeps its tangent)."""
    if not _wants_grad(args):
        return _with_tangents([Tensor._make(o) for o in outs], tangents)
    first = differentiable[0]
    head = record(cls, args, params or {}, outs[first], STATE)
    node = head.grad_fn
    results = []
    for i, o in enumerate(outs):
        if i == first:
            results.append(head)
        elif i in differentiable:
            t = Tensor._make(o, True, node)
            t._output_nr = differentiable.index(i)
            results.append(t)
        else:
            results.append(Tensor._make(o))
    node.n_outputs = len(differentiable)
    node._special = True
    head._output_nr = 0
    _with_tangents(results, tangents)
    saved = []
    for k in cls.keeps:
        if isinstance(k, int):
            saved.append(SavedTensor(args[k], False))
        else:
            saved.append(SavedTensor(results[int(k[3:])], True))
    node._saved, node._unpack_order = saved, None
    return results


def _with_tangents(results, tangents):
    if tangents is not None:
        for result, tangent in zip(results, tangents):
            if tangent is not None:
                set_tangent(result, tangent)
    return results


class MultiOutputOp(Op):
    """An op whose node has several outputs; ``backward(grads, *kept)`` gets one gradient
    (or None) per differentiable output."""
    keeps = ()
    saves = ()
    batched_backward = None



def output_grads(grads, n):
    """The gradients of a multi-output node's outputs as a list of ``n`` (None where absent)."""
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    return grads + [None] * (n - len(grads))


# -- eigh ------------------------------------------------------------------------------------

class LinalgEighBackward0(MultiOutputOp):
    """``A = V diag(L) V^H``: gA = V (diag(gL) + skew(V^H gV) / E) V^H, E_ij = L_j - L_i."""
    keeps = ("out0", "out1")

    @staticmethod
    def forward(a):
        return a

    def backward(self, grads, L, V):
        gL, gV = output_grads(grads, 2)
        n = L.shape[-1]
        eye = _eye(n, bool)
        if gV is None:
            inner = D.unsqueeze(gL, -2) * eye
        else:
            VhgV = _mH(V) @ gV
            VhgV = 0.5 * (VhgV - _mH(VhgV))
            E = D.unsqueeze(L, -2) - D.unsqueeze(L, -1) + eye
            inner = D.where(eye, 0.0, VhgV / E)
            if gL is not None:
                inner = inner + D.unsqueeze(gL, -2) * eye
        return (V @ (inner @ _mH(V)),)


def eigh(A, UPLO="L"):
    """The eigenvalues (ascending) and eigenvectors of each Hermitian matrix, read from its
    lower (``UPLO="L"``) or upper triangle (LinalgEighBackward0)."""
    _square(A, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    values, vectors = np.linalg.eigh(array_of(A), UPLO=UPLO)
    return EighResult(*record_outputs(LinalgEighBackward0, (A,), None, [values, vectors], [0, 1]))


def eigvalsh(A, UPLO="L"):
    """The eigenvalues (ascending) of each Hermitian matrix (LinalgEighBackward0)."""
    return eigh(A, UPLO).eigenvalues


# -- svd ---------------------------------------------------------------------------------------

class LinalgSvdFull(MultiOutputOp):
    """``A = U diag(S) V^H`` (PyTorch's svd_backward)."""
    keeps = ("out0", "out1", "out2")

    @staticmethod
    def forward(a):
        return a

    def backward(self, grads, U, S, Vh):
        gU, gS, gVh = output_grads(grads, 3)
        k = S.shape[-1]
        m, n = U.shape[-2], Vh.shape[-1]
        if U.shape[-1] != k:
            U, gU = U[..., :k], (None if gU is None else gU[..., :k])
        if Vh.shape[-2] != k:
            Vh, gVh = Vh[..., :k, :], (None if gVh is None else gVh[..., :k, :])
        eye = _eye(k, bool)
        if gU is None and gVh is None:
            return ((U * D.unsqueeze(gS, -2)) @ Vh if gS is not None else None,)
        V = _mH(Vh)
        gV = None if gVh is None else _mH(gVh)
        S2 = S * S
        E = D.unsqueeze(S2, -2) - D.unsqueeze(S2, -1) + eye
        inner = None
        if gU is not None:
            UhgU = _mH(U) @ gU
            UhgU = UhgU - _mH(UhgU)
            inner = UhgU * D.unsqueeze(S, -2) / E
        if gV is not None:
            VhgV = Vh @ gV
            VhgV = VhgV - _mH(VhgV)
            part = D.unsqueeze(S, -1) * VhgV / E
            inner = part if inner is None else inner + part
        inner = D.where(eye, 0.0, inner)
        if gS is not None:
            inner = inner + D.unsqueeze(gS, -2) * eye
        if m > k and gU is not None:
            gA = U @ inner
            gUSinv = gU / D.unsqueeze(S, -2)
            gA = (gA + gUSinv - U @ (_mH(U) @ gUSinv)) @ Vh
        elif n > k and gV is not None:
            gA = inner @ Vh
            gVSinv = gV / D.unsqueeze(S, -2)
            gA = U @ (gA + _mH(gVSinv) - (_mH(gVSinv) @ V) @ Vh)
        else:
            gA = U @ (inner @ Vh)
        return (gA,)


LinalgSvdFull.__name__ = "LinalgSvdBackward0"


def linalg_svd(A, full_matrices=True, *, driver=None):
    """``U, S, Vh`` with ``A = U diag(S) Vh`` (LinalgSvdBackward0), as ``torch.linalg.svd``.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.svd(ag.tensor([[3.0, 0.0], [0.0, -2.0]])).S
    tensor([3., 2.])
    """
    _matrix(A, "linalg.svd")
    u, s, vh = np.linalg.svd(array_of(A), full_matrices=full_matrices)
    return SvdResult(*record_outputs(LinalgSvdFull, (A,), None, [u, s, vh], [0, 1, 2],
                                     jvp=lambda tangents, outs: _svd_jvp(tangents[0], *outs, full_matrices)))


def svdvals(A, *, driver=None):
    """The singular values of each matrix, in descending order (``torch.linalg.svdvals``). When
    recording or carrying a tangent, they are ``linalg.svd``'s S (LinalgSvdBackward0, as in
    PyTorch), whose derivative keeps U and Vh as outputs of the graph: a second derivative
    (``create_graph``, a Hessian) is exact, not that of frozen singular vectors.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.svdvals(ag.tensor([[3.0, 0.0], [0.0, -4.0]]))
    tensor([4., 3.])

    ``driver`` chooses cuSOLVER's algorithm in PyTorch, on CUDA only: here it is checked and
    otherwise means nothing.
    """
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    _matrix(A, "linalg.svd")
    if _wants_grad((A,)) or STATE.forward_level and isinstance(A, Tensor) and A._tangent is not None:
        return linalg_svd(A, full_matrices=False).S
    return Tensor._make(np.linalg.svd(array_of(A), compute_uv=False))


def _svd_jvp(dA, U, S, Vh, full_matrices):
    """The tangents (dU, dS, dVh) of ``A = U diag(S) Vh`` along ``dA`` (PyTorch's linalg_svd_jvp),
    arrays: with dP = U^H dA V, dS = Re diag(dP), dX = dP - diag(dS),
    E_jk = S_k^2 - S_j^2 (1 on the diagonal) and sym(X) = X + X^H,
    dU = U (sym(dX S) / E + i Im diag(dX) / (2S)) [+ (I - U U^H) dA V S^-1 when m > n],
    dVh = (-sym(S dX) / E + i Im diag(dX) / (2S)) Vh [+ S^-1 U^H dA (I - V V^H) when m < n];
    with ``full_matrices`` the extra columns of U (rows of Vh) get a zero tangent, as in PyTorch."""
    if dA is None:
        return None, None, None
    m, n = dA.shape[-2], dA.shape[-1]
    k = S.shape[-1]
    U_full, Vh_full = U, Vh
    U, Vh = U[..., :k], Vh[..., :k, :]
    V = _mH(Vh)
    Uh = _mH(U)
    dP = Uh @ (dA @ V) if m < n else (Uh @ dA) @ V
    diag = np.diagonal(dP, 0, -2, -1)
    complex_ = np.iscomplexobj(dP)
    dS = np.real(diag).copy() if complex_ else diag.copy()
    dX = dP - _diag_embed(dS)
    S2 = S * S
    E = S2[..., None, :] - S2[..., :, None]
    E = np.where(_eye(k, bool), 1, E)
    extra = _diag_embed(np.diagonal(dX, 0, -2, -1) / (2 * S)) if complex_ else 0
    X = dX * S[..., None, :]
    dU = U @ ((X + _mH(X)) / E + extra)
    if m > n:
        dAVSinv = dA @ (V / S[..., None, :])
        dU = dU + dAVSinv - U @ (Uh @ dAVSinv)
        if U_full.shape[-1] > k:
            dU = np.concatenate([dU, np.zeros(dU.shape[:-1] + (U_full.shape[-1] - k,), dU.dtype)], -1)
    Y = dX * (-S)[..., :, None]
    dVh = ((Y + _mH(Y)) / E + extra) @ Vh
    if m < n:
        UhdASinv = (Uh / S[..., :, None]) @ dA
        dVh = dVh + UhdASinv - (UhdASinv @ V) @ Vh
        if Vh_full.shape[-2] > k:
            dVh = np.concatenate([dVh, np.zeros(dVh.shape[:-2] + (Vh_full.shape[-2] - k,) + dVh.shape[-1:], dVh.dtype)], -2)
    return dU, dS, dVh


def _diag_embed(d):
    """Matrices with ``d`` (..., k) on their diagonals (``diag_embed``'s forward on arrays)."""
    return DiagEmbedBackward0.forward(d, 0, d.ndim - 1, d.ndim, d.shape + d.shape[-1:])


def svd(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd``: ``U, S, V`` (V, not its adjoint; reduced unless ``some=False``)."""
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    if not compute_uv:
        return LegacySvdResult(U.new_zeros(U.shape).detach(), S, Vh.new_zeros(Vh.shape).detach())
    return LegacySvdResult(U, S, Vh.mH)


# -- qr ----------------------------------------------------------------------------------------

class LinalgQrBackward0(MultiOutputOp):
    """``A = QR`` (PyTorch's linalg_qr_backward, reduced mode)."""
    keeps = ("out0", "out1")

    @staticmethod
    def forward(a):
        return a

    def backward(self, grads, Q, R):
        gQ, gR = output_grads(grads, 2)
        m, n = Q.shape[-2], R.shape[-1]
        if m >= n:
            return (_qr_tall(Q, R, gQ, gR),)
        # A = [X | Y] with X = Q R1 (square) and Y = Q R2: Y's part reaches Q as Y gR2^H
        R1, R2 = R[..., :m], R[..., m:]
        gR1 = None if gR is None else gR[..., :m]
        gR2 = None if gR is None else gR[..., m:]
        if gR2 is not None:
            part = (Q @ R2) @ _mH(gR2)
            gQ = part if gQ is None else gQ + part
            gY = Q @ gR2
        else:
            gY = D.zeros_like(Q @ R2)
        gX = _qr_tall(Q, R1, gQ, gR1)
        if isinstance(gX, Tensor) or isinstance(gY, Tensor):
            return (cat([gX, gY], -1),)
        return (np.concatenate([gX, gY], axis=-1),)


def _qr_tall(Q, R, gQ, gR):
    """gA = [gQ + Q syminvadj(triu(gR R^H - Q^H gQ))] R^{-H} for m >= n."""
    M = None
    if gR is not None:
        M = gR @ _mH(R)
    if gQ is not None:
        part = _mH(Q) @ gQ
        M = -part if M is None else M - part
    M = D.triu(M)
    n = M.shape[-1]
    M = M + _mH(M)
    M = M - 0.5 * (M * _eye(n, M.dtype))         # the diagonal counted once
    gA = Q @ M
    if gQ is not None:
        gA = gA + gQ
    # gA R^{-H}: solve R Z^H = gA^H for Z
    return _mH(D.solve_triangular(R, _mH(gA), True))


def linalg_qr(A, mode="reduced"):
    """``Q, R`` with ``A = QR`` (LinalgQrBackward0); ``mode`` "reduced", "complete" or "r"."""
    _matrix(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           "'r', or 'complete'")
    q, r = np.linalg.qr(array_of(A), mode="complete" if mode == "complete" else "reduced")
    if mode == "r":
        return QrResult(Tensor._make(np.zeros((0,), dtype=q.dtype)),
                        record_outputs(LinalgQrBackward0, (A,), None, [q, r], [0, 1])[1])
    return QrResult(*record_outputs(LinalgQrBackward0, (A,), None, [q, r], [0, 1]))


def qr(input, some=True, *, out=None):
    """``torch.qr`` (deprecated in PyTorch for ``torch.linalg.qr``)."""
    warnings.warn("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
                  "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = "
                  "torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else "
                  "'complete')", UserWarning, stacklevel=2)
    return linalg_qr(input, "reduced" if some else "complete")


# -- LU ----------------------------------------------------------------------------------------

def _lu_arrays(a):
    """The packed LU factors (L below the diagonal, its unit diagonal implied; U on and above)
    of each matrix, partial pivoting as LAPACK's getrf (the first largest magnitude), the
    1-based pivots (int32) and the info (the first zero pivot, 1-based; 0 if none)."""
    a = np.array(a, dtype=np.result_type(a, np.float64) if a.dtype.kind not in "fc" else a.dtype)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    lu = a.reshape((-1, m, n)).copy()
    k = min(m, n)
    pivots = np.zeros((lu.shape[0], k), dtype=np.int32)
    info = np.zeros(lu.shape[0], dtype=np.int32)
    rows = np.arange(lu.shape[0])
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        swap = lu[rows, p].copy()
        lu[rows, p] = lu[:, j]
        lu[:, j] = swap
        pivot = lu[:, j, j]
        zero = pivot == 0
        info = np.where((info == 0) & zero, j + 1, info)
        safe = np.where(zero, 1, pivot)
        factors = np.where(zero[:, None], 0, lu[:, j + 1:, j] / safe[:, None])
        lu[:, j + 1:, j] = factors
        lu[:, j + 1:, j + 1:] -= factors[:, :, None] * lu[:, j:j + 1, j + 1:]
    return lu.reshape(batch + (m, n)), pivots.reshape(batch + (k,)), info.reshape(batch)


def _permutation(pivots, m, dtype):
    """P with A = P L U, from 1-based pivots (row j swapped with row pivots[j] - 1, in order)."""
    batch = pivots.shape[:-1]
    flat = pivots.reshape((-1, pivots.shape[-1])) - 1
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    for j in range(flat.shape[1]):
        for b in range(flat.shape[0]):
            p = flat[b, j]
            perm[b, j], perm[b, p] = perm[b, p], perm[b, j]
    # row i of P^T A is row perm[i] of A: P[perm[i], i] = 1
    P = np.zeros((flat.shape[0], m, m), dtype=dtype)
    for b in range(flat.shape[0]):
        P[b, perm[b], np.arange(m)] = 1
    return P.reshape(batch + (m, m))


def _unpack(lu):
    m, n = lu.shape[-2:]
    k = min(m, n)
    L = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    U = np.triu(lu[..., :k, :])
    return L, U


def _lu_grad(P, L, U, gL, gU):
    """PyTorch's linalg_lu_backward: for square A = P L U,
    gA = P L^{-H} (tril(L^H gL, -1) + triu(gU U^H)) U^{-H}; a wide A (m < n, U = [U1 U2]) or a
    tall one (m > n, L = [L1; L2]) also carries the extra block's gradient through."""
    m, n = L.shape[-2], U.shape[-1]
    if gL is None:
        gL = np.zeros(L.shape, dtype=L.dtype)
    if gU is None:
        gU = np.zeros(U.shape, dtype=U.dtype)
    if m == n:
        phi = D.tril(_mH(L) @ gL, -1) + D.triu(gU @ _mH(U))
        return P @ _right_solve(D.solve_triangular(_mH(L), phi, True), U)
    if m < n:                            # gA = P L^{-H} [tril(L^H gL - triu(gU) U^H, -1) U1^{-H} + triu(gU1), gU2]
        gU = D.triu(gU)
        U1, gU1, gU2 = U[..., :, :m], gU[..., :, :m], gU[..., :, m:]
        phi = D.tril(_mH(L) @ gL - gU @ _mH(U), -1)
        left = _right_solve(phi, U1) + gU1
        placed = left @ np.eye(m, n, dtype=L.dtype) + gU2 @ np.eye(n - m, n, m, dtype=L.dtype)
        return P @ D.solve_triangular(_mH(L), placed, True)
    # tall: gA = P [L1^{-H} (tril(L1^H gL1, -1) + triu(gU U^H - L2^H gL2)) U^{-H}; gL2 U^{-H}]
    L1, L2, gL1, gL2 = L[..., :n, :], L[..., n:, :], gL[..., :n, :], gL[..., n:, :]
    phi = D.tril(_mH(L1) @ gL1, -1) + D.triu(gU @ _mH(U) - _mH(L2) @ gL2)
    top = _right_solve(D.solve_triangular(_mH(L1), phi, True), U)
    placed = np.eye(m, n, dtype=L.dtype) @ top + np.eye(m, m - n, -n, dtype=L.dtype) @ _right_solve(gL2, U)
    return P @ placed


def _right_solve(X, U):
    """``X U^{-H}`` (U upper triangular)."""
    return _mH(D.solve_triangular(U, _mH(X), True))


def _packed_factors(LU):
    """L (m x k, unit diagonal) and U (k x n) of packed factors, for arrays and tensors."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    return D.tril(LU[..., :, :k], -1) + np.eye(m, k, dtype=LU.dtype), D.triu(LU[..., :k, :])


class LinalgLuFactorExBackward0(MultiOutputOp):
    """The packed factors ``LU`` of ``A = P L U``: its gradient splits into L's (below the
    diagonal) and U's parts."""
    keeps = ("out0",)

    @staticmethod
    def forward(a):
        return a

    def backward(self, grads, LU):
        g = output_grads(grads, 1)[0]
        L, U = _packed_factors(LU)
        gL, gU = _packed_factors(g)
        return (_lu_grad(self.P, L, U, D.tril(gL, -1), gU),)


class LinalgLuBackward0(MultiOutputOp):
    """``A = P L U`` (P constant)."""
    keeps = ("out1", "out2")

    @staticmethod
    def forward(a):
        return a

    def backward(self, grads, L, U):
        gL, gU = output_grads(grads, 2)
        return (_lu_grad(self.P, L, U, gL, gU),)


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``LU, pivots, info`` (LinalgLuFactorExBackward0), as ``torch.linalg.lu_factor_ex``."""
    _matrix(A, "torch.linalg.lu_factor_ex")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, pivots, info = _lu_arrays(array_of(A))
    m = lu.shape[-2]
    LU = record_outputs(LinalgLuFactorExBackward0, (A,), {"P": _permutation(pivots, m, lu.dtype)}, [lu], [0])[0]
    info_t = Tensor._make(info)
    if check_errors and np.any(info):
        raise RuntimeError(f"torch.linalg.lu_factor_ex: U[{int(info.max())},{int(info.max())}] is zero and using it "
                           "on lu_solve would result in a division by zero. If you still want to perform the "
                           "factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return LuFactorExResult(LU, Tensor._make(pivots), info_t)


def lu_factor(A, *, pivot=True):
    """``LU, pivots``: the packed LU factors and LAPACK's 1-based pivots (LinalgLuFactorExBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.lu_factor(ag.tensor([[1.0, 2.0], [3.0, 4.0]]))
    lu_factor(LU=tensor([[3.0000, 4.0000],
            [0.3333, 0.6667]]), pivots=tensor([2, 2], dtype=int32))
    """
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    if np.any(info._data):
        bad = int(info._data.reshape(-1)[np.flatnonzero(info._data)[0]])
        raise RuntimeError(f"torch.linalg.lu_factor: U[{bad},{bad}] is zero and using it on lu_solve would result in "
                           "a division by zero. If you still want to perform the factorization, consider calling "
                           "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return LuFactorResult(LU, pivots)


def linalg_lu(A, *, pivot=True):
    """``P, L, U`` with ``A = P L U`` (L, U: LinalgLuBackward0), as ``torch.linalg.lu``."""
    _matrix(A, "linalg.lu")
    lu_, pivots, _ = _lu_arrays(array_of(A))
    L, U = _unpack(lu_)
    P = _permutation(pivots, lu_.shape[-2], lu_.dtype)
    out = record_outputs(LinalgLuBackward0, (A,), {"P": P}, [P, L, U], [1, 2])
    return LuResult(*out)


class LuUnpackBackward0(MultiOutputOp):
    """``P, L, U`` from packed factors: L's gradient goes to the part below the diagonal of the
    first min(m, n) columns, U's to the part on and above it of the first min(m, n) rows."""

    @staticmethod
    def forward(a):
        return a

    def backward(self, grads):
        gL, gU = output_grads(grads, 2)
        m, n = self.shape[-2:]
        if not self.unpack_data:      # L and U were not unpacked: PyTorch's tril of their empty gradient
            raise RuntimeError("tril: input tensor must have at least 2 dimensions")
        g = None
        if gL is not None:            # m x k, placed in the first k columns
            g = D.tril(gL, -1)
            if m < n:
                g = g @ np.eye(m, n, dtype=self.dtype)
        if gU is not None:            # k x n, placed in the first k rows
            part = D.triu(gU)
            if m > n:
                part = np.eye(m, n, dtype=self.dtype) @ part
            g = part if g is None else g + part
        return (g,)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``P, L, U`` (a named tuple) from ``torch.linalg.lu_factor``'s packed factors and pivots,
    with ``A = P L U``; L and U are differentiable (LuUnpackBackward0), as ``torch.lu_unpack``.

    >>> from diffcompare import autograd as ag
    >>> A = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> P, L, U = ag.lu_unpack(*ag.linalg.lu_factor(A))
    >>> P, L, U.grad_fn.name()
    (tensor([[0., 1.],
            [1., 0.]]), tensor([[1.0000, 0.0000],
            [0.3333, 1.0000]], grad_fn=<LuUnpackBackward0>), 'LuUnpackBackward0')
    """
    lu_ = array_of(LU_data)
    if lu_.ndim < 2:
        if _wants_grad((LU_data,)):       # PyTorch's autograd reads size(-2) first
            check_dim(-2, lu_.ndim)
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(lu_.shape)} instead")
    m, n = lu_.shape[-2:]
    k = min(m, n)
    empty = np.zeros((0,), dtype=lu_.dtype)
    P = empty
    if unpack_pivots:
        pivots = np.asarray(array_of(LU_pivots))
        if pivots.dtype != np.int32:
            raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                               "dtype.\nNote: this function is intended to be used with the output produced by "
                               "torch.linalg.lu_factor")
        if pivots.shape[-1:] != (k,) or np.any(pivots < 1) or np.any(pivots > m):
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                               "properly pass the result of lu_factor?")
        P = _permutation(pivots, m, lu_.dtype)
    L, U = _unpack(lu_) if unpack_data else (empty, empty.copy())
    params = {"shape": lu_.shape, "dtype": lu_.dtype, "unpack_data": unpack_data}
    return LuUnpackResult(*record_outputs(LuUnpackBackward0, (LU_data,), params, [P, L, U], [1, 2]))


def lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu``: ``(A_LU, pivots)``, with ``get_infos`` also the infos (deprecated in PyTorch
    for ``torch.linalg.lu_factor``)."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                  "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
                  "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
                  "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                  "torch.linalg.lu_factor_ex(A, compute_pivots)", UserWarning, stacklevel=2)
    result = lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    return tuple(result) if get_infos else tuple(result[:2])


class LinalgLuSolveBackward0(Op):
    """``X = A^{-1} B`` with ``A = P L U`` given as its packed factors: gB = A^{-H} gX; for LU,
    gR = -U^{-H} gX X^H, gU = triu(gR), gL = tril(L^{-H} gR U^H, -1). The other forms
    (``adjoint``: A^H X = B; ``left=False``: X A = B) are the left, not adjoint one on the
    adjoint system, differentiated through the same rule (PyTorch's linalg_lu_solve_LU and
    linalg_lu_solve_B write them out; the gradients are the same)."""
    saves = (0, 1, -1)
    holomorphic = False

    @staticmethod
    def forward(LU, B, P, left=True, adjoint=False):
        L, U = _unpack(LU)
        if left and not adjoint:
            return np.linalg.solve(U, np.linalg.solve(L, np.swapaxes(P, -1, -2) @ B))
        A = P @ L @ U
        A = np.conj(np.swapaxes(A, -1, -2)) if adjoint else A
        if left:
            return np.linalg.solve(A, B)
        # X A = B: A^T X^T = B^T
        return np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)

    def backward(self, g, LU, B, X):
        if getattr(self, "left", True) and not getattr(self, "adjoint", False):
            return self._left_backward(g, LU, B, X)
        n = LU.shape[-1]
        L = D.tril(LU, -1) + _eye(n, LU.dtype)
        U = D.triu(LU)
        A = self.P @ (L @ U)
        M = _mH(A) if self.adjoint else A            # the matrix the system is solved with
        if self.left:                                # X = M^{-1} B
            gB = D.solve(_mH(M), g)
            gM = -(gB @ _mH(X))
        else:                                        # X = B M^{-1}
            gB = _mH(D.solve(M, _mH(g)))
            gM = -(_mH(X) @ gB)
        gLU = None
        if self.needs(0):
            gA = _mH(gM) if self.adjoint else gM
            gPA = _mH(self.P) @ gA                       # A = P L U: the gradients of L and U
            gL = D.tril(gPA @ _mH(U), -1)
            gU = D.triu(_mH(L) @ gPA)
            gLU = gL + gU
        return gLU, (gB if self.needs(1) else None)

    def _left_backward(self, g, LU, B, X):
        n = LU.shape[-1]
        L = D.tril(LU, -1) + _eye(n, LU.dtype)
        U = D.triu(LU)
        gLU = gB = None
        if self.needs(1):
            gB = self.P @ D.solve(_mH(L), D.solve(_mH(U), g))
        if self.needs(0):
            gR = -D.solve(_mH(U), g @ _mH(X))
            gL = D.tril(D.solve(_mH(L), gR @ _mH(U)), -1)
            gLU = gL + D.triu(gR)
        return gLU, gB


def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The solution X of ``A X = B`` from A's ``lu_factor`` (LinalgLuSolveBackward0); ``adjoint``
    solves ``A^H X = B``, ``left=False`` solves ``X A = B`` (or ``X A^H = B``).

    >>> from diffcompare import autograd as ag
    >>> A = ag.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> ag.linalg.lu_solve(*ag.linalg.lu_factor(A), ag.tensor([[1.0, 2.0]]), left=False)
    tensor([[0.5000, 0.3750]])
    """
    check_same_dtype("linalg.lu_solve: ", ("LU", "B"), LU, B)
    P = _permutation(np.asarray(array_of(pivots)), LU.shape[-2], LU.dtype)
    _refuse_tangents(LinalgLuSolveBackward0, (LU, B))
    return apply(LinalgLuSolveBackward0, (LU, B), {"P": P, "left": bool(left), "adjoint": bool(adjoint)})


def lu_solve(input, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve(b, LU, pivots)`` (deprecated in PyTorch for ``torch.linalg.lu_solve``)."""
    b = input
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                  "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, "
                  "LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)", UserWarning,
                  stacklevel=2)
    return linalg_lu_solve(LU_data, LU_pivots, b)


# -- triangular and Cholesky solves -----------------------------------------------------------------

def trsm(T, B, upper):
    """The solution X of ``T X = B`` for a triangular ``T`` (``upper`` or lower; batched), as
    LAPACK's triangular solve gives it: a zero on T's diagonal is no error, it makes infinities
    and NaNs, as in PyTorch (``linalg.solve_triangular``, and the backward of ``qr`` and ``lu``
    of a rank-deficient matrix). NumPy's general solve serves when T is invertible; it refuses
    a singular one, which is then solved by substitution.

    >>> trsm(np.array([[2.0, 1.0], [0.0, 0.0]]), np.array([[1.0], [1.0]]), True)
    array([[-inf],
           [ inf]])
    """
    try:
        return np.linalg.solve(T, B)
    except np.linalg.LinAlgError:
        pass
    n = T.shape[-1]
    X = np.array(np.broadcast_to(B, np.broadcast_shapes(T.shape[:-2], B.shape[:-2]) + B.shape[-2:]),
                 dtype=np.result_type(T, B))
    with np.errstate(all="ignore"):
        for k in (range(n - 1, -1, -1) if upper else range(n)):       # column by column, as BLAS's trsm
            X[..., k, :] /= T[..., k, k, None]
            rest = slice(0, k) if upper else slice(k + 1, n)
            X[..., rest, :] -= T[..., rest, k, None] * X[..., k, None, :]
    return X


def _triangle(A, upper, unitriangular):
    """The triangle of ``A`` a triangular solve reads (with a unit diagonal when ``unitriangular``)."""
    n = A.shape[-1]
    part = D.triu(A, 1 if unitriangular else 0) if upper else D.tril(A, -1 if unitriangular else 0)
    return part + _eye(n, A.dtype) if unitriangular else part


class LinalgSolveTriangularBackward0(Op):
    """X with ``A X = B`` (``left``) or ``X A = B`` for a triangular A: gB = A^{-H} gX (or gX A^{-H}),
    gA = -gB X^H (or -X^H gB) on A's triangle."""
    saves = (0, -1)

    @staticmethod
    def forward(A, B, upper, left, unitriangular):
        T = _triangle(A, upper, unitriangular)
        return trsm(T, B, upper) if left else np.swapaxes(trsm(np.swapaxes(T, -1, -2), np.swapaxes(B, -1, -2),
                                                              not upper), -1, -2)

    def backward(self, g, A, X):
        T = _triangle(A, self.upper, self.unitriangular)
        if self.left:
            gB = D.solve_triangular(_mH(T), g, not self.upper)
            gA = -(gB @ _mH(X))
        else:
            gB = _mH(D.solve_triangular(T, _mH(g), self.upper))
            gA = -(_mH(X) @ gB)
        if self.needs(0):
            k = 1 if self.unitriangular else 0
            gA = D.triu(gA, k) if self.upper else D.tril(gA, -k)
        return (gA if self.needs(0) else None), (gB if self.needs(1) else None)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """The solution of a triangular system (LinalgSolveTriangularBackward0), as
    ``torch.linalg.solve_triangular``; only A's triangle named by ``upper`` is read."""
    _square(A, "linalg.solve_triangular")
    _refuse_tangents(LinalgSolveTriangularBackward0, (A, B))
    X = apply(LinalgSolveTriangularBackward0, (A, B), {"upper": bool(upper), "left": bool(left),
                                                       "unitriangular": bool(unitriangular)})
    return write_out(X, out, "linalg_solve_triangular")


TriangularResult = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``torch.triangular_solve`` (deprecated in PyTorch for ``torch.linalg.solve_triangular``):
    ``(solution, A's copy)``; ``transpose`` solves with A's transpose."""
    b = input
    warnings.warn("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed "
                  "in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does "
                  "not return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be "
                  "replaced with\nX = torch.linalg.solve_triangular(A, B).", UserWarning, stacklevel=2)
    check_same_dtype("", ("b", "A"), b, A, end=".")
    coefficient = A.mT if transpose else A
    X = solve_triangular(coefficient, b, upper=upper != bool(transpose), unitriangular=unitriangular)
    if X.grad_fn is not None:
        X.grad_fn.__class__ = _TRIANGULAR_SOLVE
    return TriangularResult(X, A.clone())


_TRIANGULAR_SOLVE = type("TriangularSolveBackward0", (LinalgSolveTriangularBackward0,),
                         {"__doc__": "``torch.triangular_solve``'s node (the same rule)."})


class CholeskySolveBackward0(Op):
    """X = (L L^H)^{-1} B from the Cholesky factor L (U^H U with ``upper``): PyTorch's
    cholesky_solve_backward."""
    saves = (1, -1)

    @staticmethod
    def forward(B, L, upper):
        A = np.swapaxes(L, -1, -2).conj() @ L if upper else L @ np.swapaxes(L, -1, -2).conj()
        return np.linalg.solve(A, B)

    def backward(self, g, L, X):
        A = _mH(L) @ L if self.upper else L @ _mH(L)
        gB = D.solve(A, g)
        common = gB @ _mH(X)
        common = common + _mH(common)
        gL = -(L @ common) if self.upper else -(common @ L)
        return (gB if self.needs(0) else None), (gL if self.needs(1) else None)


def cholesky_solve(input, input2, upper=False, *, out=None):
    """The solution of ``A X = B`` from A's Cholesky factor (CholeskySolveBackward0)."""
    B, L = input, input2
    check_same_dtype("", ("b", "A"), B, L, end=".")
    _refuse_tangents(CholeskySolveBackward0, (B, L))
    return write_out(apply(CholeskySolveBackward0, (B, L), {"upper": bool(upper)}), out, "cholesky_solve")


class CholeskyInverseBackward0(Op):
    """(L L^H)^{-1} from the Cholesky factor L: PyTorch's cholesky_inverse_backward."""
    saves = (0, -1)

    @staticmethod
    def forward(L, upper):
        A = np.swapaxes(L, -1, -2).conj() @ L if upper else L @ np.swapaxes(L, -1, -2).conj()
        return np.linalg.inv(A)

    def backward(self, g, L, inverse):
        common = inverse @ ((g + _mH(g)) @ inverse)
        return (-(L @ common) if self.upper else -(common @ L),)


def cholesky_inverse(input, upper=False, *, out=None):
    """The inverse of ``A`` from its Cholesky factor (CholeskyInverseBackward0)."""
    L = input
    _square(L, "cholesky_inverse")
    _refuse_tangents(CholeskyInverseBackward0, (L,))
    return write_out(apply(CholeskyInverseBackward0, (L,), {"upper": bool(upper)}), out, "cholesky_inverse")


# -- pinv, lstsq, matrix_rank -------------------------------------------------------------------

def _pinv_backward(g, pinvA, A):
    """PyTorch's pinv_backward."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh = _mH(pinvA)
    gh = _mH(g)
    if m <= n:
        K = gh @ pinvA
        KpinvAh = K @ pinvAh
        return -_mH(pinvA @ K) + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gh - K @ A)
    K = pinvA @ gh
    pinvAhK = pinvAh @ K
    return -_mH(K @ pinvA) + ((gh - A @ K) @ pinvA) @ pinvAh + pinvAhK - (pinvAhK @ pinvA) @ A


class LinalgPinvBackward0(Op):
    """The Moore-Penrose inverse (PyTorch's pinv_backward)."""
    saves = (0, -1)

    @staticmethod
    def forward(a, rtol, hermitian):
        return np.linalg.pinv(a, rcond=rtol, hermitian=hermitian)

    def backward(self, g, A, pinvA):
        return (_pinv_backward(g, pinvA, A),)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The pseudo-inverse, singular values below ``rtol`` times the largest dropped
    (LinalgPinvBackward0); ``rcond``, PyTorch's older name, is ``rtol`` with ``atol=0``."""
    _matrix(A, "linalg.pinv")
    if rcond is not None:
        if rtol is not None or atol is not None:
            raise TypeError("linalg.pinv() received an invalid combination of arguments: rcond with atol= or rtol=")
        rtol = rcond
    if atol is not None:
        raise NotImplementedError("linalg.pinv: atol= is not implemented (use rtol=)")
    if rtol is None:
        rtol = max(A.shape[-2:]) * np.finfo(A.dtype).eps
    _refuse_tangents(LinalgPinvBackward0, (A,))
    return apply(LinalgPinvBackward0, (A,), {"rtol": rtol, "hermitian": bool(hermitian)})


def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: the pseudo-inverse with ``rcond`` relative to the largest singular value."""
    return pinv(input, rtol=rcond)


class LinalgLstsqBackward0(Op):
    """The least-squares solution ``X = pinv(A) B``: gA through pinv's backward, gB = pinv(A)^H gX."""
    saves = (0, 1)

    @staticmethod
    def forward(a, b, vector):
        bb = b[..., None] if vector else b
        x = np.linalg.pinv(a) @ bb if a.ndim > 2 else np.linalg.lstsq(a, bb, rcond=None)[0]
        return x[..., 0] if vector else x

    def backward(self, g, A, B):
        pinvA = D.pinv(A)
        if self.vector:
            g, B = D.unsqueeze(g, -1), D.unsqueeze(B, -1)
        gA = _pinv_backward(g @ _mH(B), pinvA, A) if self.needs(0) else None
        gB = _mH(pinvA) @ g if self.needs(1) else None
        if self.vector and gB is not None:
            gB = gB[..., 0]
        return gA, gB


def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B`` (LinalgLstsqBackward0), with the other results
    PyTorch's CPU drivers give: the rank (gelsy, the default, gelsd, gelss), the singular values
    of ``A`` (gelsd, gelss), and the residuals, the squared norms of ``B - A X``'s columns,
    where ``A`` is tall and of full rank (all but gelsy); the others empty."""
    _matrix(A, "torch.linalg.lstsq")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
                           f"{scalar_type_name(A.dtype)} and other's dtype {scalar_type_name(B.dtype)}")
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    vector = B.ndim == A.ndim - 1
    _refuse_tangents(LinalgLstsqBackward0, (A, B))
    X = apply(LinalgLstsqBackward0, (A, B), {"vector": vector})
    a, x, b = array_of(A), array_of(X), array_of(B)
    ranks = np.asarray(np.linalg.matrix_rank(a), dtype=np.int64)
    empty = np.zeros((0,), dtype=x.dtype)
    rank = Tensor._make(ranks if driver != "gels" else np.zeros((0,), np.int64))
    values = np.linalg.svd(a, compute_uv=False).astype(np.abs(empty).dtype) if driver in ("gelsd", "gelss") else empty
    residuals = empty
    m, n = a.shape[-2], a.shape[-1]
    if driver != "gelsy" and m > n and bool(np.all(ranks == n)):
        misfit = (b[..., None] if vector else b) - a @ (x[..., None] if vector else x)
        residuals = np.sum(np.abs(misfit) ** 2, axis=-2)      # (a vector B keeps its column: shape (1,))
    return LstsqResult(X, Tensor._make(np.asarray(residuals)), rank, Tensor._make(values))


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, tol=None):
    """The number of singular values above ``max(atol, rtol * largest)`` (int64)."""
    _matrix(A, "linalg.matrix_rank")
    s = np.linalg.svd(array_of(A), compute_uv=False)
    atol = tol if tol is not None else (0.0 if atol is None else float(array_of(atol)))
    if rtol is None:
        rtol = 0.0 if (atol and atol > 0) else max(A.shape[-2:]) * np.finfo(A.dtype).eps
    limit = np.maximum(atol, rtol * (s.max(axis=-1, keepdims=True) if s.size else 0.0))
    return Tensor._make(np.asarray((s > limit).sum(axis=-1), dtype=np.int64))


# -- matrix_exp, matrix_power, multi_dot ----------------------------------------------------

def _expm(a):
    """exp of each matrix: scaling and squaring with a Taylor series (to float64 precision)."""
    a = np.asarray(a)
    norm = np.max(np.abs(a).sum(axis=-2)) if a.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm / 0.25))) if norm > 0.25 else 0)
    x = a / (2.0 ** s)
    out = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
    term = out.copy()
    for k in range(1, 30):
        term = term @ x / k
        out = out + term
        if np.max(np.abs(term)) <= 1e-18 * max(np.max(np.abs(out)), 1e-300):
            break
    for _ in range(s):
        out = out @ out
    return out


class LinalgMatrixExpBackward0(Op):
    """exp(A); its gradient is the upper-right block of exp([[A^H, G], [0, A^H]])."""
    saves = (0,)

    @staticmethod
    def forward(a):
        return _expm(a)

    def backward(self, g, A):
        n = A.shape[-1]
        Ah = _mH(A)
        if isinstance(g, Tensor) or isinstance(A, Tensor):
            g = g if isinstance(g, Tensor) else Tensor._make(g)
            Ah = Ah if isinstance(Ah, Tensor) else Tensor._make(Ah)
            zeros = Tensor._make(np.zeros(tuple(A.shape), dtype=g.dtype))
            block = cat([cat([Ah, g], -1), cat([zeros, Ah], -1)], -2)
            return (matrix_exp(block)[..., :n, n:],)
        top = np.concatenate([Ah, g], axis=-1)
        bottom = np.concatenate([np.zeros_like(Ah), Ah], axis=-1)
        return (_expm(np.concatenate([top, bottom], axis=-2))[..., :n, n:],)


def matrix_exp(A):
    """The matrix exponential of each square matrix (LinalgMatrixExpBackward0).

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.matrix_exp(ag.tensor([[0.0, 1.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [0., 1.]])
    """
    _square(A, "linalg.matrix_exp")
    _refuse_tangents(LinalgMatrixExpBackward0, (A,))
    return apply(LinalgMatrixExpBackward0, (A,), None)


def matrix_power(A, n):
    """``A`` to the integer power ``n`` by repeated squaring (matrix products; the inverse
    first for a negative ``n``; the identity for 0)."""
    _square(A, "linalg.matrix_power")
    if n == 0:
        return Tensor._make(np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), A.shape).copy())
    if n == 1:
        return A.clone()
    if n < 0:
        A, n = A.inverse(), -n
        if n == 1:
            return A
    result, base = None, A
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


def multi_dot(tensors, *, out=None):
    """The product of the matrices in the cheapest order (the first may be a row vector, the
    last a column vector: 1-d), as ``torch.linalg.multi_dot``."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first_vector, last_vector = tensors[0].ndim == 1, tensors[-1].ndim == 1
    if first_vector:
        tensors[0] = tensors[0].unsqueeze(0)
    if last_vector:
        tensors[-1] = tensors[-1].unsqueeze(-1)
    for i, t in enumerate(tensors):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    dims = [t.shape[0] for t in tensors] + [tensors[-1].shape[1]]
    k = len(tensors)
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = float("inf")
            for s in range(i, j):
                c = cost[i][s] + cost[s + 1][j] + dims[i] * dims[s + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, s

    def product(i, j):
        if i == j:
            return tensors[i]
        return mm(product(i, split[i][j]), product(split[i][j] + 1, j))
    result = product(0, k - 1)
    shape = ([] if first_vector else [dims[0]]) + ([] if last_vector else [dims[-1]])
    result = result.view(*shape)
    return write_out(result, out, "multi_dot")


# -- the *_ex variants: the factorisation's info beside its result ------------------------------

CholeskyExResult = namedtuple("linalg_cholesky_ex", ["L", "info"])
InvExResult = namedtuple("linalg_inv_ex", ["inverse", "info"])
SolveExResult = namedtuple("linalg_solve_ex", ["result", "info"])


def _check_info(info, message):
    """Raise PyTorch's ``LinAlgError`` for the first nonzero ``info`` (``message(value)`` its
    words), with "(Batch element i): " before them for a batch, as _linalg_check_errors."""
    flat = np.asarray(info).reshape(-1)
    bad = np.flatnonzero(flat)
    if not bad.size:
        return
    name, text = message(int(flat[bad[0]]))
    prefix = f"(Batch element {int(bad[0])}): " if np.ndim(info) > 0 else ""
    raise LinAlgError(f"{name}: {prefix}{text}")


def _cholesky_partial(a):
    """The lower Cholesky factors of each matrix (its lower triangle read) and LAPACK's info:
    where a leading minor is not positive definite, the unblocked potf2's partial result (the
    columns before it factored, the failing diagonal its Schur complement, the rest as given)."""
    a = np.asarray(a)
    n = a.shape[-1]
    mats = np.tril(a.reshape((-1, n, n)))
    out = np.empty_like(mats)
    info = np.zeros(mats.shape[0], dtype=np.int32)
    for b, m in enumerate(mats):
        try:
            out[b] = np.linalg.cholesky(m + np.conj(np.tril(m, -1)).swapaxes(-1, -2))
            continue
        except np.linalg.LinAlgError:
            pass
        m = m.copy()
        for j in range(n):
            ajj = m[j, j] - np.vdot(m[j, :j], m[j, :j])
            if not np.real(ajj) > 0:
                m[j, j] = ajj
                info[b] = j + 1
                break
            ajj = np.sqrt(np.real(ajj))
            m[j, j] = ajj
            m[j + 1:, j] = (m[j + 1:, j] - m[j + 1:, :j] @ np.conj(m[j, :j])) / ajj
        out[b] = m
    return out.reshape(a.shape), info.reshape(a.shape[:-2])


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``L, info``: the Cholesky factor (LinalgCholeskyExBackward0) and, per matrix, 0 or the
    order of the first leading minor that is not positive definite (then L is LAPACK's partial
    factor: for matrices under LAPACK's block size, 64, as PyTorch's CPU gives it).

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.cholesky_ex(ag.tensor([[4.0, 2.0], [2.0, 5.0]]))
    linalg_cholesky_ex(L=tensor([[2., 0.],
            [1., 2.]]), info=tensor(0, dtype=int32))
    """
    _square(A, "linalg.cholesky")
    lower, info = _cholesky_partial(array_of(A))
    if check_errors:
        _check_info(info, lambda k: ("linalg.cholesky_ex", "The factorization could not be completed because the "
                                     f"input is not positive-definite (the leading minor of order {k} is not "
                                     "positive-definite)."))
    _refuse_tangents(LinalgCholeskyExBackward0, (A,))
    L = apply(LinalgCholeskyExBackward0, (A,), {"upper": bool(upper), "factor": lower})
    return CholeskyExResult(L, Tensor._make(info))


def _lu_solve_arrays(a, b):
    """A^-1 B for each matrix by LU with partial pivoting and substitution, as LAPACK's getrs:
    a zero pivot gives infinities and nans rather than an error (``inv_ex``, ``solve_ex``)."""
    lu_, pivots, info = _lu_arrays(a)
    n = lu_.shape[-1]
    P = _permutation(pivots, n, lu_.dtype)
    y = np.array(np.swapaxes(P, -1, -2) @ b, dtype=np.result_type(lu_, b))
    with np.errstate(all="ignore"):
        for i in range(n):                      # L y = P^T b (unit diagonal)
            y[..., i, :] -= np.einsum("...j,...jk->...k", lu_[..., i, :i], y[..., :i, :])
        for i in reversed(range(n)):            # U x = y
            y[..., i, :] -= np.einsum("...j,...jk->...k", lu_[..., i, i + 1:], y[..., i + 1:, :])
            y[..., i, :] /= lu_[..., i, i, None]
    return y, info


class LinalgInvExUnchecked(LinalgInvExBackward0):
    """``inv_ex``'s node: LinalgInvExBackward0, a singular matrix giving infinities."""

    @staticmethod
    def forward(a):
        try:
            return np.linalg.inv(a)
        except np.linalg.LinAlgError:
            return _lu_solve_arrays(a, np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape))[0]


class LinalgSolveExUnchecked(LinalgSolveExBackward0):
    """``solve_ex``'s node: LinalgSolveExBackward0, a singular matrix giving infinities."""

    @staticmethod
    def forward(a, b, vector):
        try:
            return LinalgSolveExBackward0.forward(a, b, vector)
        except LinAlgError:
            pass
        bb = b[..., None] if vector else b
        batch = np.broadcast_shapes(a.shape[:-2], bb.shape[:-2])
        x = _lu_solve_arrays(np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(bb, batch + bb.shape[-2:]))[0]
        return x[..., 0] if vector else x


LinalgInvExUnchecked.__name__ = "LinalgInvExBackward0"
LinalgSolveExUnchecked.__name__ = "LinalgSolveExBackward0"


def inv_ex(A, *, check_errors=False, out=None):
    """``inverse, info`` (LinalgInvExBackward0): info is 0 or the first zero pivot of the LU
    factorisation (1-based); a singular matrix's "inverse" is then what substitution gives.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.inv_ex(ag.tensor([[2.0, 0.0], [0.0, 4.0]])).inverse
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    _square(A, "linalg.inv")
    a = array_of(A)
    info = _lu_arrays(a)[2] if a.size else np.zeros(a.shape[:-2], dtype=np.int32)
    if check_errors:
        _check_info(info, lambda k: ("linalg.inv_ex", f"The diagonal element {k} is zero, the inversion could not be "
                                     "completed because the input matrix is singular."))
    _refuse_tangents(LinalgInvExBackward0, (A,))
    inverse = apply(LinalgInvExUnchecked, (A,))
    return InvExResult(inverse, Tensor._make(np.asarray(info)))


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``result, info`` (LinalgSolveExBackward0): the solution of ``A X = B`` (``X A = B`` when
    not ``left``) and 0 or the first zero pivot of A's LU factorisation.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.solve_ex(ag.tensor([[2.0, 0.0], [0.0, 4.0]]), ag.tensor([2.0, 2.0]))
    linalg_solve_ex(result=tensor([1.0000, 0.5000]), info=tensor(0, dtype=int32))
    """
    _square(A, "linalg.solve")
    a = array_of(A)
    info = _lu_arrays(a)[2] if a.size else np.zeros(a.shape[:-2], dtype=np.int32)
    if check_errors:
        _check_info(info, lambda k: ("torch.linalg.solve_ex", "The solver failed because the input matrix is "
                                     "singular."))
    return SolveExResult(solve_recorded(A, B, left=left, node=LinalgSolveExUnchecked), Tensor._make(np.asarray(info)))


# -- eig ---------------------------------------------------------------------------------------

EigResult = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])

_EIG_PHASE_ERROR = ("linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by "
                    "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.")


class LinalgEigBackward0(MultiOutputOp):
    """``A V = V diag(L)`` with unit columns (PyTorch's linalg_eig_backward):
    gA = V^{-H} (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / conj(E)) V^H, E_ij = L_j - L_i
    off the diagonal; a real A keeps the real part."""
    keeps = ("out0", "out1")

    @staticmethod
    def forward(a):
        return a

    def backward(self, grads, L, V):
        gL, gV = output_grads(grads, 2)
        Vh = _mH(V)
        if gV is None:
            gA = D.solve(Vh, D.unsqueeze(gL, -1) * Vh)
        else:
            VhgV = Vh @ gV
            diag = VhgV.diagonal(0, -2, -1)
            imag = np.imag(array_of(diag))
            if not np.allclose(imag, 0.0, rtol=1e-2, atol=1e-2):
                raise RuntimeError(_EIG_PHASE_ERROR)
            VhgV = VhgV - Vh @ (V * D.unsqueeze(D.real(diag), -2))
            n = L.shape[-1]
            eye = _eye(n, bool)
            Lc = D.conj(L)
            E = D.unsqueeze(Lc, -2) - D.unsqueeze(Lc, -1) + _eye(n, V.dtype)
            ret = VhgV / E
            if gL is not None:
                ret = D.where(eye, D.unsqueeze(gL, -2), ret)
            gA = D.solve(Vh, ret @ Vh)
        if self.real_input:
            gA = D.real(gA)
        return (gA,)


def _complex_of(dtype):
    return np.result_type(dtype, np.complex64)


def eig(A, *, out=None):
    """``eigenvalues, eigenvectors`` of each square matrix, complex (complex128 for float64
    input); both record LinalgEigBackward0. The eigenvectors have unit norm and LAPACK's geev
    phase (each one's largest component real), computed by NumPy's LAPACK: PyTorch's may give
    some of them the opposite sign (seen on 4 x 4 matrices), which no convention here can
    reproduce; eigenvectors are defined up to that phase, and functions invariant under it
    (|V|, the eigenvalues) have PyTorch's values and gradients.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.eig(ag.tensor([[2.0, 0.0], [0.0, 3.0]])).eigenvalues
    tensor([2.+0.j, 3.+0.j])
    """
    _square(A, "linalg.eig")
    a = array_of(A)
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.eig: Expected a floating point or complex tensor as input. Got {_dtype_name(a)}")
    values, vectors = np.linalg.eig(a)
    cdtype = _complex_of(a.dtype)
    values, vectors = values.astype(cdtype), vectors.astype(cdtype)
    return EigResult(*record_outputs(LinalgEigBackward0, (A,), {"real_input": a.dtype.kind != "c"},
                                     [values, vectors], [0, 1]))


def eigvals(A, *, out=None):
    """The eigenvalues of each square matrix, complex (LinalgEigBackward0, as PyTorch records
    the full decomposition when ``A`` requires grad).

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.eigvals(ag.tensor([[0.0, -1.0], [1.0, 0.0]]))
    tensor([0.+1.j, 0.-1.j])
    """
    _square(A, "linalg.eigvals")
    return eig(A).eigenvalues


def _dtype_name(a):
    return {"i": "Int", "u": "Byte", "b": "Bool"}.get(a.dtype.kind, str(a.dtype)) if a.dtype != np.int64 else "Long"


# -- Householder reflectors: householder_product (orgqr), geqrf, ormqr --------------------------

def _reflector(A, tau, i):
    """H_i = I - tau_i v_i v_i^H, v_i = e_i + A[i+1:, i] (LAPACK's storage), for arrays and tensors."""
    m = A.shape[-2]
    rows = np.arange(m)
    v = A[..., :, i] * (rows > i).astype(A.dtype) + (rows == i).astype(A.dtype)
    t = tau[..., i]
    return _eye(m, A.dtype) - D.unsqueeze(D.unsqueeze(t, -1), -1) * (D.unsqueeze(v, -1) * D.unsqueeze(D.conj(v), -2)), v


def _reflectors_product(A, tau):
    """H_1 H_2 ... H_k (m x m) of arrays."""
    m = A.shape[-2]
    Q = np.broadcast_to(_eye(m, np.result_type(A, tau)), A.shape[:-2] + (m, m)).copy()
    for i in range(tau.shape[-1]):
        Q = Q @ _reflector(A, tau, i)[0]
    return Q


def _reflectors_vjp(A, tau, G, needs_A=True, needs_tau=True):
    """The gradients of A (its reflector part) and tau for the gradient ``G`` (m x m) of the
    product Q = H_1 ... H_k: with G_i = (H_1..H_{i-1})^H G (H_{i+1}..H_k)^H,
    g_tau_i = -v_i^H G_i v_i and g_v_i = -(conj(tau_i) G_i v_i + tau_i G_i^H v_i)."""
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    parts = [_reflector(A, tau, i) for i in range(k)]
    suffix = [None] * k                 # H_{i+1} ... H_k
    acc = None
    for i in reversed(range(k)):
        suffix[i] = acc
        acc = parts[i][0] if acc is None else parts[i][0] @ acc
    gA = gtau = None
    prefix = None                       # H_1 ... H_{i-1}
    for i in range(k):
        H, v = parts[i]
        Gi = G if prefix is None else _mH(prefix) @ G
        if suffix[i] is not None:
            Gi = Gi @ _mH(suffix[i])
        Gv = (Gi @ D.unsqueeze(v, -1))[..., 0]
        t = D.unsqueeze(tau[..., i], -1)
        if needs_tau:
            gt = -(D.conj(v) * Gv).sum(-1)
            place = (np.arange(k) == i).astype(A.dtype)
            term = D.unsqueeze(gt, -1) * place
            gtau = term if gtau is None else gtau + term
        if needs_A:
            gv = -(D.conj(t) * Gv + t * (_mH(Gi) @ D.unsqueeze(v, -1))[..., 0])
            place = ((np.arange(m)[:, None] > i) & (np.arange(n)[None, :] == i)).astype(A.dtype)
            term = D.unsqueeze(gv, -1) * place
            gA = term if gA is None else gA + term
        prefix = H if prefix is None else prefix @ H
    if gA is None and needs_A:
        gA = np.zeros(A.shape, dtype=A.dtype)
    if gtau is None and needs_tau:
        gtau = np.zeros(tau.shape, dtype=tau.dtype)
    return gA, gtau


class LinalgHouseholderProductBackward0(Op):
    """The first n columns of H_1 ... H_k (LAPACK's orgqr), each reflector from a column of A
    below its diagonal and tau; backward: each reflector's share of the gradient (see
    ``_reflectors_vjp``)."""
    saves = (0, 1)
    holomorphic = False

    @staticmethod
    def forward(A, tau):
        return _reflectors_product(A, tau)[..., :, :A.shape[-1]]

    def backward(self, g, A, tau):
        m, n = A.shape[-2:]
        G = g @ np.eye(n, m, dtype=np.result_type(A.dtype, g.dtype))
        return _reflectors_vjp(A, tau, G, self.needs(0), self.needs(1))


def _householder_checks(input, tau, name):
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if input.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if input.ndim - tau.ndim != 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {input.ndim}")
    if input.ndim > 2 and tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")


def householder_product(A, tau, *, out=None):
    """The first n columns of the product of the k Householder reflectors H_i = I - tau_i v_i v_i^H
    whose vectors v_i (a unit i-th entry, zeros above) lie below A's diagonal, as LAPACK's orgqr
    (LinalgHouseholderProductBackward0): with ``geqrf``'s output, the Q of A's QR.

    >>> from diffcompare import autograd as ag
    >>> A = ag.tensor([[1.0, 0.0], [1.0, 1.0]])
    >>> ag.linalg.householder_product(A, ag.tensor([1.0]))
    tensor([[ 0., -1.],
            [-1.,  0.]])
    """
    _householder_checks(A, tau, "torch.linalg.householder_product")
    _refuse_tangents(LinalgHouseholderProductBackward0, (A, tau))
    return write_out(apply(LinalgHouseholderProductBackward0, (A, tau)), out, "linalg_householder_product")


def orgqr(input, tau):
    """``torch.orgqr``: :func:`householder_product` (LinalgHouseholderProductBackward0)."""
    return householder_product(input, tau)


GeqrfResult = namedtuple("geqrf", ["a", "tau"])


class GeqrfBackward0(MultiOutputOp):
    """QR in LAPACK's packed form: PyTorch defines no derivative."""

    @staticmethod
    def forward(a):
        return a

    def backward(self, grads):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input, *, out=None):
    """``a, tau``: A's QR as LAPACK's geqrf packs it, R on and above the diagonal, the Householder
    vectors below it with their scales ``tau`` (GeqrfBackward0, not differentiable in PyTorch);
    ``householder_product(a, tau)`` is Q.

    >>> from diffcompare import autograd as ag
    >>> ag.geqrf(ag.tensor([[3.0], [4.0]]))
    geqrf(a=tensor([[-5.0000],
            [ 0.5000]]), tau=tensor([1.6000]))
    """
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    a = np.asarray(array_of(input))
    m, n = a.shape[-2:]
    mats = a.reshape((-1, m, n))
    packed = np.empty_like(mats)
    taus = np.empty((mats.shape[0], min(m, n)), dtype=a.dtype)
    for b, mat in enumerate(mats):
        if mat.size:
            h, t = np.linalg.qr(mat, mode="raw")
            packed[b], taus[b] = h.T, t
    packed, taus = packed.reshape(a.shape), taus.reshape(a.shape[:-2] + (min(m, n),))
    return GeqrfResult(*record_outputs(GeqrfBackward0, (input,), None, [packed, taus], [0, 1]))


class OrmqrBackward0(Op):
    """op(Q) C (``left``) or C op(Q), Q = H_1 ... H_k (m x m) from reflectors as geqrf packs
    them, op(Q) = Q^H when ``transpose``: gC = op(Q)^H g (or g op(Q)^H); Q's gradient goes to
    the reflectors as in householder_product."""
    saves = (0, 1, 2)
    holomorphic = False

    @staticmethod
    def forward(A, tau, C, left, transpose):
        Q = _reflectors_product(A, tau)
        if transpose:
            Q = np.conj(np.swapaxes(Q, -1, -2))
        return Q @ C if left else C @ Q

    def backward(self, g, A, tau, C):
        Q = _reflectors_product(array_of(A), array_of(tau))
        if isinstance(A, Tensor) or isinstance(tau, Tensor):
            Q = None
        if Q is None:                   # (create_graph: Q as a differentiable product)
            Q = _eye(A.shape[-2], A.dtype)
            for i in range(tau.shape[-1]):
                Q = Q @ _reflector(A, tau, i)[0]
        opQ = _mH(Q) if self.transpose else Q
        gC = gA = gtau = None
        if self.needs(2):
            gC = _mH(opQ) @ g if self.left else g @ _mH(opQ)
        if self.needs(0) or self.needs(1):
            gop = g @ _mH(C) if self.left else _mH(C) @ g
            gQ = _mH(gop) if self.transpose else gop
            gA, gtau = _reflectors_vjp(A, tau, gQ, self.needs(0), self.needs(1))
        return gA, gtau, gC


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """``other`` multiplied by Q (``Q^H`` when ``transpose``) from the left (or the right),
    Q = H_1 ... H_k the full product of geqrf's reflectors, as LAPACK's ormqr (OrmqrBackward0).

    >>> from diffcompare import autograd as ag
    >>> a, tau = ag.geqrf(ag.tensor([[3.0], [4.0]]))
    >>> ag.ormqr(a, tau, ag.tensor([[1.0], [0.0]]))
    tensor([[-0.6000],
            [-0.8000]])
    """
    if input.ndim < 2:
        raise RuntimeError("torch.ormqr: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError("torch.ormqr: other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] < tau.shape[-1]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be greater than or equal to tau.shape[-1]")
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    if tau.shape[-1] > input.shape[-1]:
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1]")
    if input.ndim - tau.ndim != 1:
        raise RuntimeError(f"torch.ormqr: Expected tau to have one dimension less than input, but got tau.ndim equal "
                           f"to {tau.ndim} and input.ndim is equal to {input.ndim}")
    if input.ndim != other.ndim:
        raise RuntimeError(f"torch.ormqr: Expected other to have the same number of dimensions as input, but got "
                           f"other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}")
    if input.ndim > 2:
        for what, t in (("tau", tau.shape[:-1]), ("other", other.shape[:-2])):
            if tuple(t) != tuple(input.shape[:-2]):
                raise RuntimeError(f"torch.ormqr: Expected batch dimensions of {what} to be equal to input.shape[:-2], "
                                   f"but got {list(t)}")
    _refuse_tangents(OrmqrBackward0, (input, tau, other))
    result = apply(OrmqrBackward0, (input, tau, other), {"left": bool(left), "transpose": bool(transpose)})
    return write_out(result, out, "ormqr")


# -- LDL^T (Bunch-Kaufman) ---------------------------------------------------------------------

LdlFactorResult = namedtuple("linalg_ldl_factor", ["LD", "pivots"])
LdlFactorExResult = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
_BK_ALPHA = (1.0 + np.sqrt(17.0)) / 8.0


def _abs1(x):
    return abs(x.real) + abs(x.imag) if np.iscomplexobj(x) else abs(x)


def _sytf2_lower(a):
    """LAPACK's unblocked Bunch-Kaufman factorisation (sytf2, lower) of one symmetric matrix:
    the packed L and D, the 1-based pivots (negative for 2 x 2 blocks) and info."""
    A = np.tril(a).astype(a.dtype, copy=True)
    n = A.shape[0]
    ipiv = np.zeros(n, dtype=np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = _abs1(A[k, k])
        if k < n - 1:
            col = np.array([_abs1(x) for x in A[k + 1:, k]])
            imax = k + 1 + int(np.argmax(col))
            colmax = col.max()
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= _BK_ALPHA * colmax:
                kp = k
            else:
                row = np.array([_abs1(x) for x in A[imax, k:imax]])
                rowmax = row.max()
                if imax < n - 1:
                    rowmax = max(rowmax, max(_abs1(x) for x in A[imax + 1:, imax]))
                if absakk >= _BK_ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif _abs1(A[imax, imax]) >= _BK_ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:
                if kp < n - 1:
                    A[kp + 1:, kk], A[kp + 1:, kp] = A[kp + 1:, kp].copy(), A[kp + 1:, kk].copy()
                seg = A[kk + 1:kp, kk].copy()
                A[kk + 1:kp, kk] = A[kp, kk + 1:kp]
                A[kp, kk + 1:kp] = seg
                A[kk, kk], A[kp, kp] = A[kp, kp], A[kk, kk]
                if kstep == 2:
                    A[k + 1, k], A[kp, k] = A[kp, k], A[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1.0 / A[k, k]
                    x = A[k + 1:, k].copy()
                    A[k + 1:, k + 1:] -= np.tril(d11 * np.outer(x, x))
                    A[k + 1:, k] *= d11
            elif k < n - 2:
                d21 = A[k + 1, k]
                d11 = A[k + 1, k + 1] / d21
                d22 = A[k, k] / d21
                t = 1.0 / (d11 * d22 - 1.0)
                d21 = t / d21
                for j in range(k + 2, n):
                    wk = d21 * (d11 * A[j, k] - A[j, k + 1])
                    wkp1 = d21 * (d22 * A[j, k + 1] - A[j, k])
                    A[j:, j] -= A[j:, k] * wk + A[j:, k + 1] * wkp1
                    A[j, k], A[j, k + 1] = wk, wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return A, ipiv, info


def _sytrs_lower(LD, ipiv, B):
    """LAPACK's sytrs (lower): the solution of A X = B from sytf2's LD and pivots, one matrix."""
    A, B = LD, B.astype(np.result_type(LD, B), copy=True)
    n = A.shape[0]
    k = 0
    while k < n:                               # L D Y = B
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                B[[k, kp]] = B[[kp, k]]
            B[k + 1:] -= np.outer(A[k + 1:, k], B[k])
            B[k] /= A[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                B[[k + 1, kp]] = B[[kp, k + 1]]
            if k < n - 2:
                B[k + 2:] -= np.outer(A[k + 2:, k], B[k]) + np.outer(A[k + 2:, k + 1], B[k + 1])
            akm1k = A[k + 1, k]
            akm1 = A[k, k] / akm1k
            ak = A[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1, bk = B[k] / akm1k, B[k + 1] / akm1k
            B[k], B[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:                              # L^T X = Y
        if ipiv[k] > 0:
            if k < n - 1:
                B[k] -= A[k + 1:, k] @ B[k + 1:]
            kp = ipiv[k] - 1
            if kp != k:
                B[[k, kp]] = B[[kp, k]]
            k -= 1
        else:
            if k < n - 1:
                B[k] -= A[k + 1:, k] @ B[k + 1:]
                B[k - 1] -= A[k + 1:, k - 1] @ B[k + 1:]
            kp = -ipiv[k] - 1
            if kp != k:
                B[[k, kp]] = B[[kp, k]]
            k -= 2
    return B


def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``LD, pivots, info``: the Bunch-Kaufman factorisation A = P L D L^T P^T of each symmetric
    matrix (its lower triangle read), packed as LAPACK's sytrf (for matrices under its block
    size, 64, the unblocked sytf2 PyTorch's CPU then runs). PyTorch defines no derivative
    (``torch::autograd::NotImplemented``). Complex Hermitian matrices are not implemented.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.ldl_factor_ex(ag.tensor([[4.0, 2.0], [2.0, 3.0]])).LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
    """
    _square(A, "torch.linalg.ldl_factor_ex")
    a = np.asarray(array_of(A))
    if a.dtype.kind not in "fc":
        raise RuntimeError(f"torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype_name(a)}")
    if hermitian and a.dtype.kind == "c":
        raise NotImplementedError("linalg.ldl_factor_ex: hermitian=True for complex matrices is not implemented")
    n = a.shape[-1]
    mats = a.reshape((-1, n, n))
    LD = np.empty_like(mats)
    pivots = np.empty((mats.shape[0], n), dtype=np.int32)
    info = np.zeros(mats.shape[0], dtype=np.int32)
    for b, m in enumerate(mats):
        LD[b], pivots[b], info[b] = _sytf2_lower(m)
    LD, pivots, info = LD.reshape(a.shape), pivots.reshape(a.shape[:-1]), info.reshape(a.shape[:-2])
    if check_errors and np.any(info):
        raise RuntimeError(f"false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/"
                           f"BatchLinearAlgebra.cpp\":1642, please report a bug to PyTorch. torch.linalg.ldl_factor_ex: "
                           f"Unknown error code: {int(info.reshape(-1)[np.flatnonzero(info)[0]])}.")
    if _wants_grad((A,)):
        LD_t = not_differentiable((A,), LD, "linalg_ldl_factor_ex")
    else:
        LD_t = Tensor._make(LD)
    return LdlFactorExResult(LD_t, Tensor._make(pivots), Tensor._make(info))


def ldl_factor(A, *, hermitian=False, out=None):
    """``LD, pivots`` of :func:`ldl_factor_ex`; a singular D raises PyTorch's (internal) error.

    >>> from diffcompare import autograd as ag
    >>> ag.linalg.ldl_factor(ag.tensor([[0.0, 1.0], [1.0, 0.0]])).pivots
    tensor([-2, -2], dtype=int32)
    """
    LD, pivots, info = ldl_factor_ex(A, hermitian=hermitian)
    if np.any(info._data):
        raise RuntimeError(f"false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/"
                           f"BatchLinearAlgebra.cpp\":1642, please report a bug to PyTorch. torch.linalg.ldl_factor: "
                           f"Unknown error code: {int(info._data.reshape(-1)[np.flatnonzero(info._data)[0]])}.")
    return LdlFactorResult(LD, pivots)


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """The solution of ``A X = B`` from A's :func:`ldl_factor` (LAPACK's sytrs), not
    differentiable in PyTorch (``torch::autograd::NotImplemented``).

    >>> from diffcompare import autograd as ag
    >>> LD, piv = ag.linalg.ldl_factor(ag.tensor([[4.0, 2.0], [2.0, 3.0]]))
    >>> ag.linalg.ldl_solve(LD, piv, ag.tensor([[6.0], [5.0]]))
    tensor([[1.],
            [1.]])
    """
    _square(LD, "torch.linalg.ldl_solve")
    ld = np.asarray(array_of(LD))
    if ld.dtype.kind not in "fc":
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype_name(ld)}")
    b = np.asarray(array_of(B))
    check_dim(-2, b.ndim)
    if ld.shape[-2] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is {ld.shape[-2]} by "
                           f"{ld.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    piv = np.asarray(array_of(pivots))
    if tuple(piv.shape) != tuple(ld.shape[:-1]):
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but got "
                           f"pivots with shape {list(piv.shape)} instead")
    if piv.dtype.kind not in "iu":
        name = {"f": "Float" if piv.dtype == np.float32 else "Double", "b": "Bool"}.get(piv.dtype.kind, str(piv.dtype))
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected pivots to be integers. Got {name}")
    if b.dtype != ld.dtype:
        raise RuntimeError(f"torch.linalg.ldl_solve: LD dtype {_torch_dtype(ld)} does not match b dtype "
                           f"{_torch_dtype(b)}")
    if hermitian and ld.dtype.kind == "c":
        raise NotImplementedError("linalg.ldl_solve: hermitian=True for complex matrices is not implemented")
    batch = np.broadcast_shapes(ld.shape[:-2], b.shape[:-2])
    n = ld.shape[-1]
    lds = np.broadcast_to(ld, batch + ld.shape[-2:]).reshape((-1, n, n))
    pivs = np.broadcast_to(piv, batch + piv.shape[-1:]).reshape((-1, n))
    bs = np.broadcast_to(b, batch + b.shape[-2:]).reshape((-1,) + b.shape[-2:])
    X = np.stack([_sytrs_lower(l_, p_, b_) for l_, p_, b_ in zip(lds, pivs, bs)]) if bs.shape[0] else \
        np.zeros(bs.shape, dtype=b.dtype)
    X = X.reshape(batch + b.shape[-2:])
    if _wants_grad((LD, B)):
        return not_differentiable((LD, B), X, "linalg_ldl_solve")
    return Tensor._make(X)


def _torch_dtype(a):
    return "torch." + str(np.dtype(a.dtype))


# -- torch.vander, torch.cholesky ------------------------------------------------------------------

def vander(x, N=None, increasing=False):
    """``torch.vander``: the columns x^(N-1), ..., x, 1 (``increasing``: 1, x, ..., x^(N-1)), as
    PyTorch builds it (filled with ones, then the cumulative product written into its columns:
    CopySlices; decreasing: FlipBackward0); integer input gives int64. As in PyTorch 2.13,
    backward fails for N > 1: the cumulative product keeps the columns it then overwrites
    ("modified by an inplace operation").

    >>> from diffcompare import autograd as ag
    >>> ag.vander(ag.tensor([1, 2, 3]), N=3)
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0]
    if N is not None:
        n = int(N)
        if n < 0:
            raise RuntimeError("N must be non-negative.")
    dtype = np.int64 if x.dtype.kind in "biu" else x.dtype
    result = Tensor._make(np.ones((x.shape[0], n), dtype=dtype))
    if n > 0:
        if n > 1:
            result[:, 1:].copy_(x.unsqueeze(1))
            result[:, 1:].copy_(result[:, 1:].cumprod(1))
    if not increasing:
        return result.flip([1])
    return result


def torch_cholesky(input, upper=False, *, out=None):
    """``torch.cholesky`` (deprecated in PyTorch for ``torch.linalg.cholesky``): the lower factor,
    or the upper one (CholeskyBackward0)."""
    warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                  "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\n"
                  "and\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
                  "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.",
                  UserWarning, stacklevel=2)
    result = linalg_cholesky(input, upper=upper)
    if result.grad_fn is not None:
        result.grad_fn.__class__ = _CHOLESKY
    return write_out(result, out, "cholesky")


_CHOLESKY = type("CholeskyBackward0", (LinalgCholeskyExBackward0,),
                 {"__doc__": "``torch.cholesky``'s node (the same rule)."})


register(pinv=lambda a: pinv(a))
define("pinv", np.linalg.pinv)
register(solve_triangular=lambda A, B, upper: solve_triangular(A, B, upper=upper))
define("solve_triangular", trsm)

# the torch-level functions of this family (`ag.<name>`, as `torch.<name>`)
PUBLIC = ("cholesky_inverse", "cholesky_solve", "geqrf", "lu", "lu_solve", "lu_unpack", "matrix_exp", "matrix_power", "orgqr",
          "ormqr", "pinverse", "qr", "svd", "triangular_solve", "vander")
# what the family exports to `ops`
__all__ = ["LinalgEighBackward0", "LinalgLstsqBackward0", "LinalgLuBackward0", "LinalgLuFactorExBackward0",
           "LinalgLuSolveBackward0", "LinalgMatrixExpBackward0", "LinalgPinvBackward0", "LinalgQrBackward0",
           "LinalgSvdFull", "LuUnpackBackward0", "eigh", "eigvalsh", "linalg_lu", "linalg_lu_solve", "linalg_qr", "linalg_svd", "lstsq", "svdvals",
           "lu_factor", "lu_factor_ex", "matrix_rank", "multi_dot", "pinv", "solve_triangular",
           "CholeskyInverseBackward0", "CholeskySolveBackward0", "LinalgSolveTriangularBackward0",
           "CholeskyExResult", "EigResult", "GeqrfBackward0", "GeqrfResult", "InvExResult", "LdlFactorExResult",
           "LdlFactorResult", "LinalgEigBackward0", "LinalgHouseholderProductBackward0", "LinalgInvExUnchecked",
           "LinalgSolveExUnchecked", "OrmqrBackward0",
           "SolveExResult", "cholesky_ex", "eig", "eigvals", "householder_product", "inv_ex", "ldl_factor",
           "ldl_factor_ex", "ldl_solve", "solve_ex", "torch_cholesky", *PUBLIC]

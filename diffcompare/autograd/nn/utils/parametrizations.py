"""``torch.nn.utils.parametrizations``: ``orthogonal``, ``weight_norm`` and ``spectral_norm``
as parametrizations (see ``parametrize``), computed as PyTorch computes them.

- ``orthogonal``: the weight is ``base @ Q(original)`` where ``Q`` is the matrix exponential
  or the Cayley map of a skew-symmetric matrix, or a product of Householder reflections;
  registering it draws nothing for a square weight and an n×(n-k) ``randn`` block otherwise;
- ``weight_norm``: ``original1 * original0 / ‖original1‖`` (WeightNormInterfaceBackward0);
- ``spectral_norm``: the weight divided by its largest singular value, estimated by power
  iteration from ``u``, ``v`` drawn with ``normal_`` (``u`` first) and 15 first iterations.

>>> from diffcompare import autograd as ag
>>> m = weight_norm(ag.nn.Linear(3, 4))
>>> [name for name, _ in m.named_parameters()]
['bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1']
>>> m.weight.grad_fn.name()
'WeightNormInterfaceBackward0'
"""

from __future__ import annotations

import math
from enum import Enum, auto

import numpy as np

from ... import ops
from ...generators import standard_normal
from ...grad_mode import no_grad
from ...ops.decompositions import solve
from ...ops.recording import Op, apply
from ...tensor import Tensor, generator
from ..module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# -- weight norm ----------------------------------------------------------------------------
def _other_axes(ndim, dim):
    """The axes ``norm_except_dim`` reduces over: all but ``dim`` (all of them for dim=-1)."""
    return tuple(range(ndim)) if dim == -1 else tuple(a for a in range(ndim) if a != dim)


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every axis but ``dim``, kept as size-1 axes (a 0-d tensor
    for ``dim=-1``), as ``torch.norm_except_dim``."""
    data = v._data if isinstance(v, Tensor) else np.asarray(v)
    axes = _other_axes(data.ndim, dim)
    out = (np.abs(data) ** pow).sum(axis=axes, keepdims=dim != -1) ** (1.0 / pow)
    return Tensor._make(np.asarray(out, dtype=data.dtype))


class WeightNormInterfaceBackward0(Op):
    """``v * (g / ‖v‖)``, the norm over every axis of ``v`` but ``dim``."""

    saves = (0, 1)

    @staticmethod
    def forward(v, g, dim=0):
        axes = _other_axes(v.ndim, dim)
        norm = np.sqrt((v * v).sum(axis=axes, keepdims=True))
        return (v * (g / norm)).astype(v.dtype)

    def backward(self, grad, v, g):
        axes = _other_axes(v.ndim, self.dim)
        norm = ((v * v).sum(axis=axes, keepdims=True)) ** 0.5
        dot = (grad * v).sum(axis=axes, keepdims=True)
        gg = dot / norm if self.needs(1) else None
        if gg is not None and self.dim == -1:
            gg = gg.reshape(())
        gv = (g / norm) * (grad - v * (dot / (norm * norm))) if self.needs(0) else None
        return gv, gg


def apply_weight_norm(v, g, dim=0):
    """``torch._weight_norm(v, g, dim)``: ``v`` rescaled to the norm ``g`` along ``dim``; the
    fused WeightNormInterfaceBackward0 for the first or last dimension, else ``v * (g / ‖v‖)``."""
    dim = -1 if dim is None else dim
    if dim in (0, v.ndim - 1):
        return apply(WeightNormInterfaceBackward0, (v, g), {"dim": dim})
    axes = _other_axes(v.ndim, dim)
    norm = ops.vector_norm(v, 2, axes, dim != -1)
    return v * (g / norm)


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return apply_weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as magnitude ``original0`` times direction ``original1``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


# -- spectral norm --------------------------------------------------------------------------
def normalized_array(array, eps):
    """``F.normalize(x, dim=0, eps=eps)`` on an array: x / max(‖x‖, eps)."""
    return array / max(float(np.sqrt((array * array).sum())), eps)


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", Tensor._make(normalized_array(u._data, eps)))
            self.register_buffer("_v", Tensor._make(normalized_array(v._data, eps)))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        """u ← W v / ‖W v‖, v ← Wᴴ u / ‖Wᴴ u‖, written into the buffers in place."""
        W = weight_mat._data
        for _ in range(n_power_iterations):
            self._u._data[...] = normalized_array(W @ self._v._data, self.eps)
            self._v._data[...] = normalized_array(W.conj().T @ self._u._data, self.eps)
        self._u._bump()
        self._v._bump()

    def forward(self, weight):
        if weight.ndim == 1:
            norm = ops.clamp_min(ops.vector_norm(weight, 2, 0, True), self.eps)
            return weight / norm.expand_as(weight)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * ops.mv(weight_mat, v)).sum()
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration (one step
    per forward in training mode)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = {"ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"}
        dim = 1 if any(cls.__name__ in transposed for cls in type(module).__mro__) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# -- orthogonal -----------------------------------------------------------------------------
def _eye(n, like):
    return Tensor._make(np.eye(n, dtype=like.dtype))


def _matrix_exp(A):
    """exp(A) by scaling and squaring a degree-18 Taylor polynomial, composed from recorded
    matmuls (so its gradient is the exact derivative of the approximation, exact at A = 0)."""
    norm = float(np.abs(A._data).sum(axis=-2).max()) if A.numel() else 0.0
    squarings = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    X = A / (2.0 ** squarings) if squarings else A
    n = A.shape[-1]
    eye = _eye(n, A)
    result = eye + X / 18.0
    for k in range(17, 0, -1):              # Horner: I + X/1 (I + X/2 (... (I + X/18)))
        result = eye + ops.matmul(X, result) / float(k)
    for _ in range(squarings):
        result = ops.matmul(result, result)
    return result


def _householder_product(A, tau):
    """``torch.linalg.householder_product``: the first k columns of H_1 ⋯ H_k, with
    H_i = I - tau_i v_i v_iᴴ and v_i the i-th column of A below the diagonal, 1 on it."""
    n, k = A.shape[-2], A.shape[-1]
    Q = _eye(n, A).expand(*A.shape[:-2], n, n)
    for i in range(k):
        e = np.zeros((n, 1), dtype=A.dtype)
        e[i] = 1.0
        below = np.zeros((n, 1), dtype=A.dtype)
        below[i + 1:] = 1.0
        v = A[..., :, i:i + 1] * Tensor._make(below) + Tensor._make(e)
        Q = Q - ops.matmul(ops.matmul(Q, v) * tau[..., i:i + 1].unsqueeze(-1), v.mT)
    return Q[..., :, :k]


def _make_orthogonal(A):
    """The Q of A's QR decomposition with R's diagonal made non-negative (columns times sgn)."""
    q, r = np.linalg.qr(A._data)
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return Tensor._make((q * signs[..., None, :]).astype(A.dtype))


def _geqrf(A):
    """``torch.geqrf(A)`` of a matrix: LAPACK's packed QR (R above the diagonal, the
    Householder vectors below) and the scalars tau."""
    h, tau = np.linalg.qr(A, mode="raw")
    return np.ascontiguousarray(h.T), tau


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    eps = 10.0 * n * np.finfo(Q.dtype).eps
    return np.allclose(np.swapaxes(Q.conj(), -1, -2) @ Q, np.eye(k), rtol=1e-5, atol=eps)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.dtype.kind == "c" and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = ops.cat([X, Tensor._make(np.zeros(X.shape[:-2] + (n, n - k), dtype=X.dtype))], -1)
            A = X - X.mT.conj() if X.dtype.kind == "c" else X - X.mT
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _matrix_exp(A)
            else:
                eye = _eye(n, A)
                Q = solve(eye - A * 0.5, eye + A * 0.5)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = _householder_product(A, tau)
            Q = Q * Tensor._make(np.trunc(np.diagonal(X._data, axis1=-2, axis2=-1)).astype(np.int32)).unsqueeze(-2)
        if hasattr(self, "base"):
            Q = ops.matmul(self.base, Q)
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape torch.Size({list(self.shape)}). "
                                 f"Got a tensor of shape torch.Size({list(Q.shape)}).")
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the "
                                              "Cayley parametrizations when use_trivialization=False.")
                A, tau = _geqrf(np.array(Q._data))
                diag = np.sign(np.diagonal(A)).copy()
                diag[tau == 0.0] *= -1
                np.fill_diagonal(A, diag)
                A = Tensor._make(A)
                return A.mT if transpose else A
            if n == k:
                Q = Tensor._make(np.array(Q._data)) if _is_orthogonal(Q._data) else _make_orthogonal(Q)
            else:
                N = _randn(tuple(Q.shape[:-2]) + (n, n - k), Q.dtype)
                Q = _make_orthogonal(ops.cat([Q, N], -1))
            self.base = Q
            neg_id = np.zeros(Q_init.shape, dtype=Q_init.dtype)
            idx = np.arange(min(neg_id.shape[-2:]))
            neg_id[..., idx, idx] = -1.0
            return Tensor._make(neg_id)


def _randn(shape, dtype):
    """``torch.randn(shape, dtype=dtype)`` from the engine's generator."""
    return Tensor._make(standard_normal(generator(), shape, np.dtype(dtype)))


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Constrain ``module.<name>`` (a matrix or a batch of them) to be orthogonal (unitary):
    ``"matrix_exp"`` (the default for square or complex matrices), ``"cayley"`` or
    ``"householder"`` (the default otherwise)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] or weight.dtype.kind == "c" \
            else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module

"""``ag.linalg``, ``einsum`` and the matrix functions against PyTorch 2.13: values, first
and second derivatives (float64, to 1e-10), grad_fn names, a finite-difference check, and
the errors (a matrix that is not positive definite raises LinAlgError, a RuntimeError)."""

from __future__ import annotations

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(29)
A = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
SPD = A @ A.T + np.eye(3)
B = RNG.standard_normal((3, 2))
V = RNG.standard_normal(3)
BATCH = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)

# name -> (function of the library and its leaves, the leaves' arrays, twice differentiable here)
CASES = {
    "det": (lambda L, a: L.linalg.det(a), (A,), True),
    "det_batched": (lambda L, a: L.det(a), (BATCH,), True),
    "slogdet": (lambda L, a: L.linalg.slogdet(a)[1], (A,), True),
    "logdet": (lambda L, a: L.logdet(a), (SPD,), True),
    "inv": (lambda L, a: L.linalg.inv(a), (A,), True),
    "inverse": (lambda L, a: a.inverse(), (BATCH,), True),
    "solve": (lambda L, a, b: L.linalg.solve(a, b), (A, B), True),
    "solve_vector": (lambda L, a, v: L.linalg.solve(a, v), (A, V), True),
    "cholesky": (lambda L, a: L.linalg.cholesky(a @ a.mT + L.eye(3, dtype=L.float64)), (A,), True),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(a, upper=True), (SPD,), True),
    "norm": (lambda L, a: L.linalg.norm(a), (A,), True),
    "norm_fro_dim": (lambda L, a: L.linalg.norm(a, "fro", dim=(0, 1), keepdim=True), (A,), True),
    "norm_vector_dim": (lambda L, a: L.linalg.norm(a, 3, dim=1), (A,), True),
    "norm_1": (lambda L, a: L.linalg.norm(a, 1), (A,), True),
    "norm_inf": (lambda L, a: L.linalg.matrix_norm(a, float("inf"), keepdim=True), (BATCH,), True),
    "norm_-1": (lambda L, a: L.linalg.matrix_norm(a, -1), (A,), True),
    "norm_2": (lambda L, a: L.linalg.norm(a, 2), (A,), False),
    "norm_nuc": (lambda L, a: L.linalg.matrix_norm(a, "nuc"), (BATCH,), False),
    "vector_norm": (lambda L, v: L.linalg.vector_norm(v, float("-inf")), (V,), True),
    "trace": (lambda L, a: L.trace(a), (A,), True),
    "einsum_matmul": (lambda L, a, b: L.einsum("ij,jk->ki", a, b), (A, B), True),
    "einsum_trace": (lambda L, a: L.einsum("ii", a), (A,), True),
    "einsum_batch": (lambda L, a, v: L.einsum("...ij,j->...i", a, v), (BATCH, V), True),
    "einsum_three": (lambda L, v, a: L.einsum("i,ij,j", v, a, v), (V, A), True),
    "bmm": (lambda L, a, b: L.bmm(a, b), (BATCH, BATCH), True),
    "addmm": (lambda L, v, a, b: L.addmm(v[:2], a[:, :2].mT, b, beta=0.5, alpha=2), (V, A, B), True),
    "baddbmm": (lambda L, a, b: L.baddbmm(a, a, b), (BATCH, BATCH), True),
}


def _run(L, case):
    fn, arrays, _ = CASES[case]
    leaves = [L.tensor(a, requires_grad=True, dtype=L.float64) for a in arrays]
    return leaves, fn(L, *leaves)


def _np(t):
    if getattr(t, "_is_zerotensor", lambda: False)():      # torch's lazily-zero results
        return np.zeros(tuple(t.shape))
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))


@pytest.mark.parametrize("case", sorted(CASES))
def test_value_gradients_and_grad_fn_agree_with_torch(case):
    results = {}
    for L in (ag, torch):
        leaves, out = _run(L, case)
        seed = np.random.default_rng(1).uniform(-1, 1, tuple(out.shape))
        grads = L.autograd.grad(out, leaves, L.tensor(seed, dtype=L.float64), create_graph=CASES[case][2])
        second = []
        if CASES[case][2]:
            total = sum((g * g).sum() for g in grads)
            # piecewise-linear norms: torch's gradient keeps a graph whose derivative is 0, the engine's none
            second = L.autograd.grad(total, leaves, allow_unused=True) if total.requires_grad else [None] * len(leaves)
        results[L] = (_np(out), [_np(g) for g in grads],
                      [np.zeros(leaf.shape) if s is None else _np(s) for s, leaf in zip(second, leaves)],
                      type(out.grad_fn).__name__)
    mine, theirs = results[ag], results[torch]
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-12, atol=1e-12)
    for g, h in zip(mine[1], theirs[1]):
        np.testing.assert_allclose(g, h, rtol=1e-10, atol=1e-10)
    for g, h in zip(mine[2], theirs[2]):
        np.testing.assert_allclose(g, h, rtol=1e-9, atol=1e-9)
    assert mine[3] == theirs[3]


@pytest.mark.parametrize("case", ["det", "inv", "solve", "cholesky", "slogdet", "einsum_three", "norm_1"])
def test_gradient_matches_finite_differences(case):
    fn, arrays, twice = CASES[case]
    leaves = [ag.tensor(a, requires_grad=True) for a in arrays]
    assert ag.gradcheck(lambda *xs: fn(ag, *xs), leaves)
    if twice:
        assert ag.gradgradcheck(lambda *xs: fn(ag, *xs), leaves)


def test_slogdet_and_logdet_of_singular_and_negative_determinants():
    for L in (ag, torch):
        sign, logabs = L.linalg.slogdet(L.zeros(3, 3, dtype=L.float64))
        assert float(sign) == 0.0 and float(logabs) == -np.inf
        assert np.isnan(float(L.logdet(L.tensor([[-1.0, 0.0], [0.0, 2.0]], dtype=L.float64))))
        sign, logabs = L.linalg.slogdet(L.tensor([[-2.0, 0.0], [0.0, 3.0]], dtype=L.float64))
        assert float(sign) == -1.0 and abs(float(logabs) - np.log(6.0)) < 1e-15


def test_linalg_error_is_a_runtime_error_with_torch_words():
    assert issubclass(ag.linalg.LinAlgError, RuntimeError)
    bad = [[1.0, 2.0], [2.0, 1.0]]
    for L in (ag, torch):
        with pytest.raises(L.linalg.LinAlgError, match="leading minor of order 2 is not positive-definite"):
            L.linalg.cholesky(L.tensor(bad, dtype=L.float64))
        with pytest.raises(L.linalg.LinAlgError, match="diagonal element 2 is zero.*singular"):
            L.linalg.inv(L.tensor([[1.0, 1.0], [1.0, 1.0]], dtype=L.float64))
        with pytest.raises(L.linalg.LinAlgError, match="input matrix is singular"):
            L.linalg.solve(L.zeros(2, 2, dtype=L.float64), L.ones(2, dtype=L.float64))


@pytest.mark.parametrize("call, message", [
    (lambda L: L.linalg.det(L.ones(2, 3)), "A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda L: L.linalg.inv(L.ones(3)), "The input tensor A must have at least 2 dimensions"),
    (lambda L: L.linalg.cholesky(L.ones(3)), "The input tensor A must have at least 2 dimensions"),
    (lambda L: L.linalg.solve(L.eye(3), L.ones(2)), r"Incompatible shapes of A and B for the equation AX = B \(3x3 and 2x1\)"),
    (lambda L: L.bmm(L.ones(2, 3), L.ones(2, 3)), "batch1 must be a 3D tensor"),
    (lambda L: L.bmm(L.ones(2, 2, 3), L.ones(2, 2, 3)), r"first two dimensions of batch2 tensor to be: \[2, 3\] but got: \[2, 2\]"),
    (lambda L: L.trace(L.ones(3)), "trace: expected a matrix, but got tensor with dim 1"),
    (lambda L: L.tril(L.ones(3)), "tril: input tensor must have at least 2 dimensions"),
    (lambda L: L.linalg.matrix_norm(L.ones(3)), "The input tensor A must have at least 2 dimensions"),
    (lambda L: L.linalg.norm(L.ones(3), "fro"), "linalg.matrix_norm: The input tensor A must have at least 2"),
    (lambda L: L.linalg.cross(L.ones(2), L.ones(2)), "inputs dimension -1 must have length 3. Got 2 and 2"),
    (lambda L: L.einsum("ij,jk", L.ones(2, 3)), "fewer operands were provided than specified in the equation"),
    (lambda L: L.einsum("ij", L.ones(2, 3), L.ones(2)), "more operands were provided than specified"),
    (lambda L: L.einsum("ijk->", L.ones(2, 3)), r"number of subscripts in the equation \(3\) does not match the number "
                                                  r"of dimensions \(2\) for operand 0"),
    (lambda L: L.einsum("ij,jk->ik", L.ones(2, 3), L.ones(2, 3)), "subscript j has size 2 for operand 1 which does "
                                                                   "not broadcast with previously seen size 3"),
    (lambda L: L.einsum("ij->ijk", L.ones(2, 3)), "output subscript k does not appear in the equation"),
    (lambda L: L.einsum("ij->ii", L.ones(2, 3)), "output subscript i appears more than once in the output"),
])
def test_errors_match_torch(call, message):
    for L in (ag, torch):
        with pytest.raises(RuntimeError, match=message):
            call(L)
    with pytest.raises(TypeError, match="must be Number, not str"):
        ag.linalg.vector_norm(ag.ones(3), "fro")


def test_einsum_grad_fn_names_follow_torchs_last_step():
    a, v = ag.ones(3, 3, requires_grad=True), ag.ones(3, requires_grad=True)
    ta, tv = torch.ones(3, 3, requires_grad=True), torch.ones(3, requires_grad=True)
    for eq, ops in [("ij->ji", "a"), ("ii->i", "a"), ("ij->i", "a"), ("i,j->ji", "vv"), ("ij,j->i", "av"),
                    ("ii,i->i", "av"), ("ij,k->ik", "av")]:
        mine = ag.einsum(eq, *[{"a": a, "v": v}[o] for o in ops])
        theirs = torch.einsum(eq, *[{"a": ta, "v": tv}[o] for o in ops])
        assert mine.grad_fn.name() == type(theirs.grad_fn).__name__, eq


def test_forward_mode_through_einsum_addmm_and_cross():
    from diffcompare.autograd import forward_ad as fwAD
    t_a, t_v = RNG.standard_normal((3, 3)), RNG.standard_normal(3)

    def tangent_of(L, fw, f):
        with fw.dual_level():
            a = fw.make_dual(L.tensor(A, dtype=L.float64), L.tensor(t_a, dtype=L.float64))
            v = fw.make_dual(L.tensor(V, dtype=L.float64), L.tensor(t_v, dtype=L.float64))
            return _np(fw.unpack_dual(f(L, a, v)).tangent)

    for f in (lambda L, a, v: L.einsum("ij,j->i", a, v), lambda L, a, v: L.addmm(v, a, a, alpha=2),
              lambda L, a, v: L.linalg.cross(a, v.expand(3, 3))):
        np.testing.assert_allclose(tangent_of(ag, fwAD, f), tangent_of(torch, torch.autograd.forward_ad, f),
                                   rtol=1e-12, atol=1e-12)

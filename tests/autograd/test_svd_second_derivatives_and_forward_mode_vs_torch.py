"""Second derivatives through singular values (``svdvals``, spectral and nuclear norms, ``svd``'s
S and U), by reverse over reverse (``autograd.functional.hessian``) and forward over reverse
(``func.hessian``, ``jvp`` of ``grad``), and ``linalg.svd``'s forward mode, compared with PyTorch.
Before, ``svdvals`` froze the singular vectors in its backward, so a Hessian through it was
silently wrong (zero for the nuclear norm)."""

import numpy as np
import pytest

from diffcompare import autograd as ag

torch = pytest.importorskip("torch")

TALL = [[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0], [1.0, 0.0, 1.0]]
DIRECTION = [[0.1, 0.2, -0.3], [0.5, 0.1, 0.0], [0.2, -0.1, 0.3], [0.0, 0.4, 0.1]]

FUNCTIONS = {
    "sum of svdvals": lambda lib, A: lib.linalg.svdvals(A).sum(),
    "sum of cubed svdvals": lambda lib, A: (lib.linalg.svdvals(A) ** 3).sum(),
    "spectral norm": lambda lib, A: lib.linalg.matrix_norm(A, ord=2),
    "nuclear norm": lambda lib, A: lib.linalg.matrix_norm(A, ord="nuc"),
    "svd's S and U": lambda lib, A: (lib.linalg.svd(A, full_matrices=False).S ** 2).sum()
    + (lambda U: (U @ U.mT)[0, 1])(lib.linalg.svd(A, full_matrices=False).U),
}
HESSIANS = {
    "reverse over reverse": lambda lib, f, A: lib.autograd.functional.hessian(f, A),
    "forward over reverse": lambda lib, f, A: lib.func.hessian(f)(A),
}


def _matrix(lib, rows, transpose):
    A = lib.tensor(rows)
    return A.mT if transpose else A


@pytest.mark.parametrize("transpose", [False, True], ids=["tall", "wide"])
@pytest.mark.parametrize("how", sorted(HESSIANS))
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_hessians_through_singular_values_are_pytorchs(torch_float64, name, how, transpose):
    def hessian(lib):
        A = _matrix(lib, TALL, transpose)
        return HESSIANS[how](lib, lambda X: FUNCTIONS[name](lib, X), A).detach().numpy()
    ours, theirs = hessian(ag), hessian(torch)
    assert np.abs(theirs).max() > 1e-3            # a Hessian that is not zero
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_the_nuclear_norms_hessian_against_finite_differences_of_its_gradient():
    # independent of PyTorch: central differences of the engine's (first-order) gradient
    A = np.array(TALL)
    E = np.array(DIRECTION)
    grad = lambda X: ag.func.grad(lambda Y: ag.linalg.matrix_norm(Y, ord="nuc"))(ag.tensor(X)).numpy()
    h = 1e-5
    expected = (grad(A + h * E) - grad(A - h * E)) / (2 * h)
    hvp = ag.func.jvp(ag.func.grad(lambda Y: ag.linalg.matrix_norm(Y, ord="nuc")),
                      (ag.tensor(A),), (ag.tensor(E),))[1].numpy()
    np.testing.assert_allclose(hvp, expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("full_matrices", [False, True])
@pytest.mark.parametrize("transpose", [False, True], ids=["tall", "wide"])
def test_svd_forward_mode_gives_pytorchs_tangents_up_to_the_vectors_signs(torch_float64, full_matrices, transpose):
    def run(lib):
        A, dA = _matrix(lib, TALL, transpose), _matrix(lib, DIRECTION, transpose)
        (U, S, Vh), (dU, dS, dVh) = lib.func.jvp(lambda X: tuple(lib.linalg.svd(X, full_matrices=full_matrices)),
                                                 (A,), (dA,))
        return [t.detach().numpy() for t in (U, S, Vh, dU, dS, dVh)]
    U, S, Vh, dU, dS, dVh = run(ag)
    tU, tS, tVh, tdU, tdS, tdVh = run(torch)
    np.testing.assert_allclose(dS, tdS, rtol=1e-10)
    k = S.shape[-1]
    signs = np.sign(np.sum(U[:, :k] * tU[:, :k], axis=0))      # each singular vector pair up to a sign
    np.testing.assert_allclose(dU[:, :k] * signs, tdU[:, :k], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dVh[:k] * signs[:, None], tdVh[:k], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dU[:, k:], tdU[:, k:], atol=0)   # the extra columns: a zero tangent
    np.testing.assert_allclose(dVh[k:], tdVh[k:], atol=0)


def test_complex_singular_values_forward_mode_is_pytorchs(torch_float64):
    def run(lib):
        Z = lib.tensor([[1 + 2j, 0.5 - 1j], [0.3j, 2 - 0.5j], [1.0, 1j]])
        dZ = lib.tensor([[0.1 - 0.2j, 0.3j], [0.5, -0.1 + 0.1j], [0.2j, 0.3]])
        projector = lambda z: (lambda r: r.U @ r.U.mH)(lib.linalg.svd(z, full_matrices=False))
        return (lib.func.jvp(lib.linalg.svdvals, (Z,), (dZ,))[1].numpy(),
                lib.func.jvp(projector, (Z,), (dZ,))[1].numpy())
    for ours, theirs in zip(run(ag), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


def test_svdvals_records_pytorchs_node():
    A = ag.tensor(TALL, requires_grad=True)
    assert ag.linalg.svdvals(A).grad_fn.name() == "LinalgSvdBackward0"
    assert ag.linalg.svdvals(ag.tensor(TALL)).grad_fn is None

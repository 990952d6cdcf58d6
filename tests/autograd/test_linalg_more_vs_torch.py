"""The ``torch.linalg`` functions added beside the first ones (``cholesky_ex``, ``inv_ex``,
``solve_ex``, ``eig``, ``eigvals``, ``cond``, ``tensorinv``, ``tensorsolve``, ``vander``,
``vecdot``, ``householder_product``, ``ldl_factor``, ``ldl_factor_ex``, ``ldl_solve``,
``lu_solve``'s ``left``/``adjoint``) and the torch-level ``geqrf``, ``orgqr``, ``ormqr``,
``vander``: values, named tuples, nodes, gradients and errors against PyTorch when it is
installed; each also against a value derived independently (by hand, or central differences
of the engine's own forward), which runs without PyTorch."""

import math

import numpy as np
import pytest

from diffcompare import autograd as ag

RNG = np.random.default_rng(2024)


def _torch():
    return pytest.importorskip("torch")


def _np(t):
    t = t.detach()
    if hasattr(t, "resolve_conj"):          # (PyTorch's lazily conjugated tensors)
        t = t.resolve_conj()
    return t.numpy()


def _central_difference(f, x, h=1e-6):
    """d f / d x (f real-valued of an array) by central differences."""
    x = np.asarray(x, dtype=np.float64)
    grad = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        step = np.zeros_like(x)
        step[idx] = h
        grad[idx] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


def _spd(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


def _same_error(ours, theirs):
    (t1, m1), (t2, m2) = _error(ours), _error(theirs)
    assert m1 == m2
    assert issubclass(t1, RuntimeError) == issubclass(t2, RuntimeError)


# -- *_ex ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_matches_pytorch(upper):
    torch = _torch()
    a = _spd(3, (2,))
    w = RNG.standard_normal((2, 3, 3))
    out = []
    for lib in (ag, torch):
        A = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        res = lib.linalg.cholesky_ex(A, upper=upper)
        assert type(res).__name__ == "linalg_cholesky_ex"
        assert res.L.grad_fn.name() == "LinalgCholeskyExBackward0" and res.info.grad_fn is None
        (res.L * lib.tensor(w)).sum().backward()
        out.append((_np(res.L), res.info.numpy(), _np(A.grad)))
    for mine, theirs in zip(*out):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
    assert out[0][1].dtype == np.int32


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_partial_factor_of_a_matrix_not_positive_definite(upper):
    """LAPACK's partial factor and the order of the failing minor, as PyTorch gives them."""
    torch = _torch()
    for a in ([[4.0, 2.0, 1.0], [2.0, -5.0, 1.0], [1.0, 1.0, 3.0]],
              [[4.0, 2.0, 1.0, 0.5], [2.0, 1.0, 1.0, 2.0], [1.0, 1.0, 3.0, 1.0], [0.5, 2.0, 1.0, 7.0]]):
        mine = ag.linalg.cholesky_ex(ag.tensor(a, dtype=ag.float64), upper=upper)
        theirs = torch.linalg.cholesky_ex(torch.tensor(a, dtype=torch.float64), upper=upper)
        np.testing.assert_allclose(_np(mine.L), _np(theirs.L))
        assert int(mine.info) == int(theirs.info) == 2


def test_cholesky_ex_by_hand():
    L, info = ag.linalg.cholesky_ex(ag.tensor([[4.0, 2.0], [2.0, 5.0]], dtype=ag.float64))
    np.testing.assert_allclose(L.numpy(), [[2.0, 0.0], [1.0, 2.0]])
    assert int(info) == 0
    L, info = ag.linalg.cholesky_ex(ag.tensor([[4.0, 2.0], [2.0, 1.0]], dtype=ag.float64))
    np.testing.assert_allclose(L.numpy(), [[2.0, 0.0], [1.0, 0.0]])      # 1 - 1^2 = 0: order 2 fails
    assert int(info) == 2


def test_ex_errors_match_pytorch():
    torch = _torch()
    for lib_pair in [(ag, torch)]:
        mine, theirs = lib_pair
        _same_error(lambda: mine.linalg.cholesky_ex(mine.stack([mine.eye(2), -mine.eye(2)]), check_errors=True),
                    lambda: theirs.linalg.cholesky_ex(theirs.stack([theirs.eye(2), -theirs.eye(2)]), check_errors=True))
        _same_error(lambda: mine.linalg.cholesky_ex(-mine.eye(3), check_errors=True),
                    lambda: theirs.linalg.cholesky_ex(-theirs.eye(3), check_errors=True))
        _same_error(lambda: mine.linalg.inv_ex(mine.stack([mine.eye(2), 0 * mine.eye(2)]), check_errors=True),
                    lambda: theirs.linalg.inv_ex(theirs.stack([theirs.eye(2), 0 * theirs.eye(2)]), check_errors=True))
        _same_error(lambda: mine.linalg.solve_ex(mine.zeros(3, 3), mine.ones(3), check_errors=True),
                    lambda: theirs.linalg.solve_ex(theirs.zeros(3, 3), theirs.ones(3), check_errors=True))
        _same_error(lambda: mine.linalg.cholesky_ex(mine.ones(2, 3)), lambda: theirs.linalg.cholesky_ex(theirs.ones(2, 3)))
        _same_error(lambda: mine.linalg.inv_ex(mine.ones(3)), lambda: theirs.linalg.inv_ex(theirs.ones(3)))
    assert issubclass(_error(lambda: ag.linalg.inv_ex(ag.zeros(2, 2), check_errors=True))[0], ag.linalg.LinAlgError)


def test_inv_ex_and_solve_ex_match_pytorch():
    torch = _torch()
    a = RNG.standard_normal((2, 3, 3))
    b = RNG.standard_normal((2, 3, 2))
    w = RNG.standard_normal((2, 3, 2))
    out = []
    for lib in (ag, torch):
        A = lib.tensor(a, requires_grad=True)
        B = lib.tensor(b, requires_grad=True)
        inverse, info = lib.linalg.inv_ex(A)
        assert type(lib.linalg.inv_ex(A)).__name__ == "linalg_inv_ex"
        assert inverse.grad_fn.name() == "LinalgInvExBackward0"
        res = lib.linalg.solve_ex(A, B)
        assert type(res).__name__ == "linalg_solve_ex" and res.result.grad_fn.name() == "LinalgSolveExBackward0"
        ((res.result * lib.tensor(w)).sum() + (inverse ** 2).sum()).backward()
        out.append((_np(inverse), info.numpy(), _np(res.result), res.info.numpy(), _np(A.grad), _np(B.grad)))
    for mine, theirs in zip(*out):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
    # a singular matrix: the pivot's position and substitution's infinities, as LAPACK's getrs
    for lib in (ag, torch):
        S = lib.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=lib.float64)
        out.append((_np(lib.linalg.inv_ex(S).inverse), int(lib.linalg.inv_ex(S).info),
                    _np(lib.linalg.solve_ex(S, lib.ones(2, dtype=lib.float64)).result)))
    np.testing.assert_array_equal(out[2][0], out[3][0])
    assert out[2][1] == out[3][1] == 2
    np.testing.assert_array_equal(out[2][2], out[3][2])


def test_inv_ex_and_solve_ex_by_hand():
    inverse, info = ag.linalg.inv_ex(ag.tensor([[2.0, 1.0], [1.0, 1.0]], dtype=ag.float64))
    np.testing.assert_allclose(inverse.numpy(), [[1.0, -1.0], [-1.0, 2.0]])
    assert int(info) == 0
    result, info = ag.linalg.solve_ex(ag.tensor([[2.0, 1.0], [1.0, 1.0]], dtype=ag.float64),
                                      ag.tensor([3.0, 2.0], dtype=ag.float64))
    np.testing.assert_allclose(result.numpy(), [1.0, 1.0])
    _, info = ag.linalg.inv_ex(ag.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=ag.float64))
    assert int(info) == 2


# -- eig, eigvals ----------------------------------------------------------------------------------

def _eig_loss(lib, L, V, w, c):
    """Functions of the eigenvalues and of |V|^2 (invariant under each eigenvector's phase)."""
    return (L.real * lib.tensor(w)).sum() + (L.imag ** 2).sum() + ((V.abs() ** 2) * lib.tensor(c)).sum()


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_eig_matches_pytorch(shape, dtype):
    torch = _torch()
    a = RNG.standard_normal(shape)
    if dtype == "complex128":
        a = a + 1j * RNG.standard_normal(shape)
    n = shape[-1]
    w = RNG.standard_normal(shape[:-1])
    c = RNG.standard_normal(shape)
    out = []
    for lib in (ag, torch):
        A = lib.tensor(a, requires_grad=True)
        L, V = res = lib.linalg.eig(A)
        assert type(res).__name__ == "linalg_eig"
        assert L.grad_fn.name() == V.grad_fn.name() == "LinalgEigBackward0"
        assert str(L.dtype).endswith("complex128")
        _eig_loss(lib, L, V, w, c).backward()
        vals = lib.linalg.eigvals(A.detach().requires_grad_())
        assert vals.grad_fn.name() == "LinalgEigBackward0"
        out.append((_np(L), _np(V), _np(A.grad)))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-10, atol=1e-12)
    # the eigenvectors: unit columns, the same up to each one's phase (LAPACK's geev normalises
    # the largest component real; PyTorch's LAPACK and NumPy's may still differ by a sign)
    mine, theirs = out[0][1], out[1][1]
    phase = np.sum(np.conj(mine) * theirs, axis=-2, keepdims=True)
    np.testing.assert_allclose(np.abs(phase), 1.0, rtol=1e-8)
    np.testing.assert_allclose(mine * phase, theirs, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(out[0][2], out[1][2], rtol=1e-8, atol=1e-10)
    assert np.allclose(np.linalg.norm(out[0][1], axis=-2), np.ones(shape[:-2] + (n,)))


def test_eigvals_gradient_and_phase_error_match_pytorch():
    torch = _torch()
    a = RNG.standard_normal((4, 4))
    w = RNG.standard_normal(4)
    grads = []
    for lib in (ag, torch):
        A = lib.tensor(a, requires_grad=True)
        vals = lib.linalg.eigvals(A)
        ((vals.real * lib.tensor(w)).sum() + (vals.imag ** 2).sum()).backward()
        grads.append(_np(A.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-8, atol=1e-10)
    # a loss that depends on the eigenvectors' phase
    msgs = []
    for lib in (ag, torch):
        A = lib.tensor(a, requires_grad=True)
        V = lib.linalg.eig(A).eigenvectors
        with pytest.raises(RuntimeError) as info:
            V.imag.sum().backward()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    _same_error(lambda: ag.linalg.eig(ag.ones(2, 3)), lambda: torch.linalg.eig(torch.ones(2, 3)))
    _same_error(lambda: ag.linalg.eig(ag.ones(3)), lambda: torch.linalg.eig(torch.ones(3)))
    _same_error(lambda: ag.linalg.eigvals(ag.ones(2, 3)), lambda: torch.linalg.eigvals(torch.ones(2, 3)))


def test_eig_by_hand_and_by_differences():
    # a rotation by 90 degrees: eigenvalues +-i
    vals = ag.linalg.eigvals(ag.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=ag.float64)).numpy()
    np.testing.assert_allclose(sorted(vals, key=lambda z: z.imag), [-1j, 1j], atol=1e-15)
    # a triangular matrix: its diagonal; eigenvector of 3 for [[2, 1], [0, 3]] is (1, 1)/sqrt 2
    L, V = ag.linalg.eig(ag.tensor([[2.0, 1.0], [0.0, 3.0]], dtype=ag.float64))
    np.testing.assert_allclose(L.numpy(), [2.0, 3.0])
    np.testing.assert_allclose(np.abs(V.numpy()[:, 1]), [2 ** -0.5, 2 ** -0.5])
    # gradients of phase-invariant functions against central differences of numpy's eig
    a = RNG.standard_normal((3, 3)) + 3 * np.diag([1.0, 2.0, 3.0])   # real, distinct eigenvalues
    w, c = RNG.standard_normal(3), RNG.standard_normal((3, 3))

    def f(x):
        L_, V_ = np.linalg.eig(x)
        order = np.argsort(L_.real)
        L_, V_ = L_[order], V_[:, order]
        return float((L_.real * w[np.argsort(np.argsort(np.linalg.eig(a)[0].real))]).sum()
                     + ((np.abs(V_) ** 2) * c[:, np.argsort(np.argsort(np.linalg.eig(a)[0].real))]).sum())

    A = ag.tensor(a, requires_grad=True)
    L, V = ag.linalg.eig(A)
    (L.real * ag.tensor(w)).sum().add(((V.abs() ** 2) * ag.tensor(c)).sum()).backward()
    np.testing.assert_allclose(_np(A.grad), _central_difference(f, a), rtol=1e-5, atol=1e-7)


# -- cond ----------------------------------------------------------------------------------------

ORDS = [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf]


@pytest.mark.parametrize("p", ORDS)
def test_cond_matches_pytorch(p):
    """Values and nodes; gradients for 2, -2 and 'nuc'; for the other orders PyTorch 2.13's
    backward fails (the inverse it kept was written in place), and so does the engine's."""
    torch = _torch()
    a = RNG.standard_normal((2, 3, 3))
    out = []
    for lib in (ag, torch):
        A = lib.tensor(a, requires_grad=True)
        r = lib.linalg.cond(A, p)
        out.append((r.grad_fn.name(), _np(r)))
        if p in (None, 2, -2, "nuc"):
            r.sum().backward()
            out[-1] += (_np(A.grad),)
        else:
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                r.sum().backward()
    assert out[0][0] == out[1][0]
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-10)
    for mine, theirs in zip(out[0][2:], out[1][2:]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-7, atol=1e-10)


def test_cond_singular_and_errors_match_pytorch():
    torch = _torch()
    for p in [1, math.inf, -1, "fro", None]:
        mine = ag.linalg.cond(ag.zeros(2, 2, dtype=ag.float64), p)
        theirs = torch.linalg.cond(torch.zeros(2, 2, dtype=torch.float64), p)
        np.testing.assert_array_equal(_np(mine), _np(theirs))
    for args in [((3,), None), ((2, 3), 1), ((2, 3), 1.0), ((2, 3), -math.inf), ((2, 3), "fro"), ((2, 3), "nuc"),
                 ((2, 2), 3), ((2, 2), "abc"), ((3,), "fro"), ((3, 2), "abc")]:
        shape, p = args
        _same_error(lambda: ag.linalg.cond(ag.ones(*shape), p), lambda: torch.linalg.cond(torch.ones(*shape), p))


def test_cond_by_hand():
    A = ag.tensor([[2.0, 0.0], [0.0, 0.5]], dtype=ag.float64)
    assert float(ag.linalg.cond(A)) == pytest.approx(4.0)
    assert float(ag.linalg.cond(A, -2)) == pytest.approx(0.25)
    assert float(ag.linalg.cond(A, 1)) == pytest.approx(4.0)
    assert float(ag.linalg.cond(A, "fro")) == pytest.approx(math.sqrt(4.25) * math.sqrt(4.25))
    assert float(ag.linalg.cond(A, "nuc")) == pytest.approx(2.5 * 2.5)
    a = RNG.standard_normal((3, 3))
    A = ag.tensor(a, requires_grad=True)
    ag.linalg.cond(A, "nuc").backward()
    numeric = _central_difference(lambda x: np.linalg.cond(x, "nuc"), a)
    np.testing.assert_allclose(_np(A.grad), numeric, rtol=1e-6, atol=1e-8)


# -- tensorinv, tensorsolve ---------------------------------------------------------------------------

@pytest.mark.parametrize("shape,ind", [((8, 8), 1), ((2, 4, 8), 2), ((6, 2, 3), 1), ((2, 2, 2, 2), 2)])
def test_tensorinv_matches_pytorch(shape, ind):
    torch = _torch()
    a = RNG.standard_normal(shape)
    out = []
    for lib in (ag, torch):
        A = lib.tensor(a, requires_grad=True)
        r = lib.linalg.tensorinv(A, ind=ind)
        nodes = [r.grad_fn.name(), r.grad_fn.next_functions[0][0].name()]
        (r * r).sum().backward()
        out.append((nodes, _np(r), _np(A.grad)))
    assert out[0][0] == out[1][0] == ["ReshapeAliasBackward0", "LinalgInvExBackward0"]
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(out[0][2], out[1][2], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape,other,dims", [((6, 2, 3), (6,), None), ((2, 3, 6), (2, 3), None),
                                              ((4, 4), (4,), None), ((2, 3, 6), (6,), (0, 1))])
def test_tensorsolve_matches_pytorch(shape, other, dims):
    torch = _torch()
    a, b = RNG.standard_normal(shape), RNG.standard_normal(other)
    out = []
    for lib in (ag, torch):
        A, B = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        r = lib.linalg.tensorsolve(A, B, dims=dims)
        name = r.grad_fn.name()
        (r * r).sum().backward()
        out.append((name, _np(r), _np(A.grad), _np(B.grad)))
    assert out[0][0] == out[1][0] == "ViewBackward0"
    for mine, theirs in zip(out[0][1:], out[1][1:]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-12)


def test_tensorinv_tensorsolve_errors_match_pytorch():
    torch = _torch()
    _same_error(lambda: ag.linalg.tensorinv(ag.ones(2, 3), ind=1), lambda: torch.linalg.tensorinv(torch.ones(2, 3), ind=1))
    _same_error(lambda: ag.linalg.tensorinv(ag.ones(2, 2), ind=0), lambda: torch.linalg.tensorinv(torch.ones(2, 2), ind=0))
    _same_error(lambda: ag.linalg.tensorinv(ag.zeros(2, 2), ind=1), lambda: torch.linalg.tensorinv(torch.zeros(2, 2), ind=1))
    _same_error(lambda: ag.linalg.tensorsolve(ag.ones(2, 3), ag.ones(2)),
                lambda: torch.linalg.tensorsolve(torch.ones(2, 3), torch.ones(2)))


def test_tensorinv_tensorsolve_by_hand():
    a = RNG.standard_normal((4, 2, 2)) + 3 * np.eye(4).reshape(4, 2, 2)
    inverse = ag.linalg.tensorinv(ag.tensor(a), ind=1).numpy()
    np.testing.assert_allclose(np.tensordot(inverse, a, 1), np.eye(4).reshape(2, 2, 2, 2).transpose(0, 1, 2, 3)
                               .reshape(2, 2, 2, 2), atol=1e-12)
    b = RNG.standard_normal(4)
    x = ag.linalg.tensorsolve(ag.tensor(a), ag.tensor(b)).numpy()
    np.testing.assert_allclose(np.tensordot(a, x, 2), b, atol=1e-12)


# -- vander, vecdot ------------------------------------------------------------------------------

@pytest.mark.parametrize("N", [None, 2, 5])
def test_linalg_vander_matches_pytorch(N):
    torch = _torch()
    x = RNG.standard_normal((2, 3))
    out = []
    for lib in (ag, torch):
        X = lib.tensor(x, requires_grad=True)
        r = lib.linalg.vander(X, N=N)
        name = r.grad_fn.name()
        (r ** 2).sum().backward()
        out.append((name, _np(r), _np(X.grad)))
    assert out[0][0] == out[1][0] == "CatBackward0"
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12)
    np.testing.assert_allclose(out[0][2], out[1][2], rtol=1e-10)
    assert ag.linalg.vander(ag.tensor([1, 2], dtype=ag.int32)).dtype == ag.int64
    _same_error(lambda: ag.linalg.vander(ag.ones(3), N=1), lambda: torch.linalg.vander(torch.ones(3), N=1))
    _same_error(lambda: ag.linalg.vander(ag.tensor(2.0)), lambda: torch.linalg.vander(torch.tensor(2.0)))
    _same_error(lambda: ag.linalg.vander(ag.tensor([True])), lambda: torch.linalg.vander(torch.tensor([True])))


@pytest.mark.parametrize("N,increasing", [(None, False), (None, True), (2, True), (5, False), (1, False), (0, True)])
def test_torch_vander_matches_pytorch(N, increasing):
    torch = _torch()
    x = RNG.standard_normal(4)
    out = []
    for lib in (ag, torch):
        X = lib.tensor(x, requires_grad=True)
        r = lib.vander(X, N=N, increasing=increasing)
        out.append((r.grad_fn.name() if r.grad_fn is not None else None, _np(r)))
        n = len(x) if N is None else N
        if n > 1:       # PyTorch 2.13's backward fails: cumprod kept the columns then overwritten
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                (r ** 2).sum().backward()
        elif r.requires_grad and r.numel():
            (r ** 2).sum().backward()
            out[-1] += (_np(X.grad),)
    assert out[0][0] == out[1][0]
    for mine, theirs in zip(out[0][1:], out[1][1:]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)
    assert ag.vander(ag.tensor([1, 2], dtype=ag.int32)).dtype == ag.int64
    _same_error(lambda: ag.vander(ag.ones(2, 2)), lambda: torch.vander(torch.ones(2, 2)))
    _same_error(lambda: ag.vander(ag.ones(2), N=-1), lambda: torch.vander(torch.ones(2), N=-1))


def test_vander_by_hand():
    np.testing.assert_array_equal(ag.linalg.vander(ag.tensor([2.0, 3.0]), N=3).numpy(), [[1, 2, 4], [1, 3, 9]])
    np.testing.assert_array_equal(ag.vander(ag.tensor([2, 3])).numpy(), [[2, 1], [3, 1]])
    np.testing.assert_array_equal(ag.vander(ag.tensor([2.0, 3.0]), 3, increasing=True).numpy(), [[1, 2, 4], [1, 3, 9]])
    x = ag.tensor([2.0, 3.0], dtype=ag.float64, requires_grad=True)
    ag.linalg.vander(x, N=3).sum().backward()                 # d (1 + x + x^2) = 1 + 2x
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0])
    assert not ag.vander(ag.tensor([2.0, 3.0], requires_grad=True), 1).requires_grad   # ones alone


@pytest.mark.parametrize("shapes,dim", [(((3,), (3,)), -1), (((2, 3), (3,)), -1), (((2, 3), (2, 3)), 0),
                                         (((4, 1, 3), (2, 3)), -1)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_vecdot_matches_pytorch(shapes, dim, dtype):
    torch = _torch()
    x, y = (RNG.standard_normal(s) + (1j * RNG.standard_normal(s) if dtype == "complex128" else 0) for s in shapes)
    out = []
    for lib in (ag, torch):
        X, Y = lib.tensor(x, requires_grad=True), lib.tensor(y, requires_grad=True)
        r = lib.linalg.vecdot(X, Y, dim=dim)
        name = r.grad_fn.name()
        (r.abs() ** 2).sum().backward()
        out.append((name, _np(r), _np(X.grad), _np(Y.grad)))
    assert out[0][0] == out[1][0]
    for mine, theirs in zip(out[0][1:], out[1][1:]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
    _same_error(lambda: ag.linalg.vecdot(ag.ones(3, dtype=ag.float32), ag.ones(3, dtype=ag.float64)),
                lambda: torch.linalg.vecdot(torch.ones(3, dtype=torch.float32), torch.ones(3, dtype=torch.float64)))
    _same_error(lambda: ag.linalg.vecdot(ag.tensor([1, 2]), ag.tensor([1, 2])),
                lambda: torch.linalg.vecdot(torch.tensor([1, 2]), torch.tensor([1, 2])))


def test_vecdot_by_hand():
    x = ag.tensor([1 + 1j, 2.0], dtype=ag.complex128)
    y = ag.tensor([1j, 1.0], dtype=ag.complex128)
    assert complex(ag.linalg.vecdot(x, y).numpy()) == pytest.approx((1 - 1j) * 1j + 2)
    np.testing.assert_allclose(ag.linalg.vecdot(ag.tensor([[1.0, 2.0], [3.0, 4.0]]), ag.tensor([1.0, -1.0])).numpy(),
                               [-1.0, -1.0])


# -- householder_product, orgqr, geqrf, ormqr ---------------------------------------------------------

@pytest.mark.parametrize("shape,k", [((4, 3), 2), ((3, 3), 3), ((2, 5, 3), 3), ((4, 2), 1)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_householder_product_matches_pytorch(shape, k, dtype):
    torch = _torch()
    a = RNG.standard_normal(shape)
    t = RNG.standard_normal(shape[:-2] + (k,))
    if dtype == "complex128":
        a, t = a + 1j * RNG.standard_normal(a.shape), t + 1j * RNG.standard_normal(t.shape)
    w = RNG.standard_normal(shape)
    out = []
    for lib in (ag, torch):
        A, T = lib.tensor(a, requires_grad=True), lib.tensor(t, requires_grad=True)
        Q = lib.linalg.householder_product(A, T)
        assert Q.grad_fn.name() == "LinalgHouseholderProductBackward0"
        assert lib.orgqr(A, T).grad_fn.name() == "LinalgHouseholderProductBackward0"
        (Q.abs() ** 2 * lib.tensor(w)).sum().backward()
        out.append((_np(Q), _np(A.grad), _np(T.grad)))
    for mine, theirs in zip(*out):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-11)


def test_householder_product_second_order_matches_pytorch():
    torch = _torch()
    a, t = RNG.standard_normal((4, 3)), RNG.standard_normal(3)
    out = []
    for lib in (ag, torch):
        A, T = lib.tensor(a, requires_grad=True), lib.tensor(t, requires_grad=True)
        Q = lib.linalg.householder_product(A, T)
        gA, gT = lib.autograd.grad((Q ** 3).sum(), (A, T), create_graph=True)
        hA, hT = lib.autograd.grad((gA ** 2).sum() + (gT ** 2).sum(), (A, T))
        out.append((gA.detach().numpy(), gT.detach().numpy(), hA.numpy(), hT.numpy()))
    for mine, theirs in zip(*out):
        np.testing.assert_allclose(mine, theirs, rtol=1e-8, atol=1e-10)


def test_householder_errors_match_pytorch():
    torch = _torch()
    for shapes in [((2, 3), (2,)), ((3, 2), (3,)), ((3,), (1,)), ((2, 3, 2), (3, 2)), ((2, 3, 2), (2,))]:
        _same_error(lambda: ag.linalg.householder_product(ag.ones(*shapes[0]), ag.ones(*shapes[1])),
                    lambda: torch.linalg.householder_product(torch.ones(*shapes[0]), torch.ones(*shapes[1])))


def test_geqrf_matches_pytorch():
    torch = _torch()
    a = RNG.standard_normal((2, 4, 3))
    out = []
    for lib in (ag, torch):
        A = lib.tensor(a, requires_grad=True)
        res = lib.geqrf(A)
        assert type(res).__name__ == "geqrf"
        assert res.a.grad_fn.name() == res.tau.grad_fn.name() == "GeqrfBackward0"
        with pytest.raises(NotImplementedError) as info:
            res.a.sum().backward()
        out.append((_np(res.a), _np(res.tau), str(info.value)))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-10, atol=1e-12)
    assert out[0][2] == out[1][2]
    for shape in [(3, 5), (5, 2)]:
        b = RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)
        mine, theirs = ag.geqrf(ag.tensor(b)), torch.geqrf(torch.tensor(b))
        np.testing.assert_allclose(_np(mine.a), _np(theirs.a), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(_np(mine.tau), _np(theirs.tau), rtol=1e-10, atol=1e-12)
    _same_error(lambda: ag.geqrf(ag.ones(3)), lambda: torch.geqrf(torch.ones(3)))


def test_geqrf_householder_by_hand():
    a, tau = ag.geqrf(ag.tensor([[3.0], [4.0]], dtype=ag.float64))
    # v = (1, 0.5), tau = 1.6: H = I - 1.6 v v^T maps (3, 4) to (-5, 0)
    np.testing.assert_allclose(a.numpy(), [[-5.0], [0.5]])
    np.testing.assert_allclose(tau.numpy(), [1.6])
    m = RNG.standard_normal((5, 3))
    a, tau = ag.geqrf(ag.tensor(m))
    Q = ag.linalg.householder_product(a, tau).numpy()
    R = np.triu(a.numpy())[:3]
    np.testing.assert_allclose(Q @ R, m, atol=1e-12)
    np.testing.assert_allclose(Q.T @ Q, np.eye(3), atol=1e-12)
    # the gradient of the product against central differences
    t = RNG.standard_normal(2)
    w = RNG.standard_normal((5, 3))
    A, T = ag.tensor(m, requires_grad=True), ag.tensor(t, requires_grad=True)
    (ag.linalg.householder_product(A, T) * ag.tensor(w)).sum().backward()
    f = lambda x: float((ag.linalg.householder_product(ag.tensor(x), ag.tensor(t)).numpy() * w).sum())  # noqa: E731
    np.testing.assert_allclose(_np(A.grad), _central_difference(f, m), rtol=1e-6, atol=1e-8)
    g = lambda s: float((ag.linalg.householder_product(ag.tensor(m), ag.tensor(s)).numpy() * w).sum())  # noqa: E731
    np.testing.assert_allclose(_np(T.grad), _central_difference(g, t), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("ishape,oshape,left,transpose", [((4, 3), (4, 2), True, False), ((4, 3), (2, 4), False, False),
                                                          ((4, 3), (2, 4), False, True), ((5, 2), (5, 3), True, True),
                                                          ((3, 3), (3, 2), True, False), ((2, 4, 3), (2, 4, 3), True, True)])
def test_ormqr_matches_pytorch(ishape, oshape, left, transpose):
    torch = _torch()
    a, c = RNG.standard_normal(ishape), RNG.standard_normal(oshape)
    k = min(oshape[-2] if left else oshape[-1], ishape[-1])
    t = RNG.standard_normal(ishape[:-2] + (k,))
    out = []
    for lib in (ag, torch):
        A, T, C = (lib.tensor(v, requires_grad=True) for v in (a, t, c))
        r = lib.ormqr(A, T, C, left, transpose)
        name = r.grad_fn.name()
        (r ** 2).sum().backward()
        out.append((name, _np(r), _np(A.grad), _np(T.grad), _np(C.grad)))
    assert out[0][0] == out[1][0] == "OrmqrBackward0"
    for mine, theirs in zip(out[0][1:], out[1][1:]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-11)


def test_ormqr_errors_match_pytorch():
    torch = _torch()
    for ishape, tshape, oshape, left in [((3, 3), (2,), (3, 2), True), ((4, 3), (2,), (2, 4), False),
                                         ((3, 2), (2,), (4, 2), True), ((3,), (2,), (3, 2), True),
                                         ((3, 2), (2,), (3,), True), ((3, 2), (3,), (3, 4), True)]:
        _same_error(lambda: ag.ormqr(ag.ones(*ishape), ag.ones(*tshape), ag.ones(*oshape), left),
                    lambda: torch.ormqr(torch.ones(*ishape), torch.ones(*tshape), torch.ones(*oshape), left))


def test_ormqr_by_hand():
    m = RNG.standard_normal((4, 3))
    c = RNG.standard_normal((4, 2))
    a, tau = ag.geqrf(ag.tensor(m))
    Q = np.linalg.qr(m, mode="complete")[0]
    Qh = np.linalg.qr(m)[0]
    full = ag.ormqr(a, tau, ag.tensor(c)).numpy()
    # Q's first three columns agree with numpy's up to signs; Q^T Q C = C
    np.testing.assert_allclose(np.abs(full[:, :0] if False else (ag.ormqr(a, tau, ag.tensor(np.eye(4))).numpy()[:, :3])),
                               np.abs(Qh), atol=1e-12)
    np.testing.assert_allclose(ag.ormqr(a, tau, ag.tensor(full), transpose=True).numpy(), c, atol=1e-12)
    assert Q.shape == (4, 4)


# -- ldl ---------------------------------------------------------------------------------------

def _symmetric(n, batch=()):
    a = RNG.standard_normal(batch + (n, n))
    return a + np.swapaxes(a, -1, -2)


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 5), (6, 6), (1, 1)])
def test_ldl_matches_pytorch(shape):
    torch = _torch()
    out = []
    for seed in range(4):
        a = _symmetric(shape[-1], shape[:-2])
        if seed == 1 and shape[-1] > 1:  # zeros on the diagonal: 2 x 2 pivots
            a = a - np.eye(shape[-1]) * np.diagonal(a, axis1=-2, axis2=-1)[..., None, :]
        b = RNG.standard_normal(shape[:-1] + (2,))
        res = []
        for lib in (ag, torch):
            A = lib.tensor(a, requires_grad=True)
            f = lib.linalg.ldl_factor_ex(A)
            assert type(f).__name__ == "linalg_ldl_factor_ex"
            assert f.LD.grad_fn.name() == "torch::autograd::NotImplemented"
            LD, piv = lib.linalg.ldl_factor(A.detach())
            X = lib.linalg.ldl_solve(LD, piv, lib.tensor(b, requires_grad=True))
            assert X.grad_fn.name() == "torch::autograd::NotImplemented"
            with pytest.raises(RuntimeError) as e1:
                f.LD.sum().backward()
            with pytest.raises(RuntimeError) as e2:
                X.sum().backward()
            res.append((_np(f.LD), f.pivots.numpy(), f.info.numpy(), _np(LD), piv.numpy(), _np(X),
                        str(e1.value), str(e2.value)))
        for mine, theirs in zip(*res):
            if isinstance(mine, str):
                assert mine == theirs
            else:
                np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-11)
                assert np.asarray(mine).dtype == np.asarray(theirs).dtype
        out.append(res)


def test_ldl_errors_match_pytorch():
    torch = _torch()
    _same_error(lambda: ag.linalg.ldl_factor(ag.ones(2, 3)), lambda: torch.linalg.ldl_factor(torch.ones(2, 3)))
    _same_error(lambda: ag.linalg.ldl_factor(ag.zeros(2, 2)), lambda: torch.linalg.ldl_factor(torch.zeros(2, 2)))
    LD, piv = torch.linalg.ldl_factor(torch.tensor([[2.0, 1.0], [1.0, 3.0]]))
    mLD, mpiv = ag.tensor(LD.numpy()), ag.tensor(piv.numpy())
    _same_error(lambda: ag.linalg.ldl_solve(mLD, mpiv, ag.ones(3, 2)), lambda: torch.linalg.ldl_solve(LD, piv, torch.ones(3, 2)))
    _same_error(lambda: ag.linalg.ldl_solve(mLD, mpiv.float(), ag.ones(2, 2)),
                lambda: torch.linalg.ldl_solve(LD, piv.float(), torch.ones(2, 2)))
    _same_error(lambda: ag.linalg.ldl_solve(mLD, mpiv[:1], ag.ones(2, 2)),
                lambda: torch.linalg.ldl_solve(LD, piv[:1], torch.ones(2, 2)))
    _same_error(lambda: ag.linalg.ldl_solve(mLD, mpiv, ag.ones(2)), lambda: torch.linalg.ldl_solve(LD, piv, torch.ones(2)))
    zero = ag.linalg.ldl_factor_ex(ag.zeros(2, 2, dtype=ag.float64))
    assert int(zero.info) == 1 and zero.pivots.numpy().tolist() == [1, 2]


def test_ldl_by_hand():
    LD, piv = ag.linalg.ldl_factor(ag.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=ag.float64))
    np.testing.assert_allclose(LD.numpy(), [[4.0, 0.0], [0.5, 2.0]])        # L = [[1, 0], [.5, 1]], D = diag(4, 2)
    assert piv.numpy().tolist() == [1, 2]
    LD, piv = ag.linalg.ldl_factor(ag.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=ag.float64))
    assert piv.numpy().tolist() == [-2, -2]                                   # one 2 x 2 block
    LD, piv, info = ag.linalg.ldl_factor_ex(ag.tensor([[1.0, 0.0], [0.0, 0.0]], dtype=ag.float64))
    assert int(info) == 2 and piv.numpy().tolist() == [1, 2]                  # D's second entry is zero
    np.testing.assert_array_equal(LD.numpy(), [[1.0, 0.0], [0.0, 0.0]])
    for n in (3, 5, 8):
        a = _symmetric(n)
        b = RNG.standard_normal((n, 3))
        LD, piv = ag.linalg.ldl_factor(ag.tensor(a))
        np.testing.assert_allclose(ag.linalg.ldl_solve(LD, piv, ag.tensor(b)).numpy(), np.linalg.solve(a, b),
                                   rtol=1e-8, atol=1e-10)


# -- lu_solve's left and adjoint; lu_factor without pivoting -----------------------------------------

@pytest.mark.parametrize("left,adjoint", [(True, False), (True, True), (False, False), (False, True)])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_lu_solve_forms_match_pytorch(left, adjoint, dtype):
    torch = _torch()
    a = RNG.standard_normal((2, 3, 3))
    b = RNG.standard_normal((2, 3, 2) if left else (2, 2, 3))
    if dtype == "complex128":
        a, b = a + 1j * RNG.standard_normal(a.shape), b + 1j * RNG.standard_normal(b.shape)
    out = []
    for lib in (ag, torch):
        A = lib.tensor(a, requires_grad=True)
        B = lib.tensor(b, requires_grad=True)
        LU, piv = lib.linalg.lu_factor(A)
        X = lib.linalg.lu_solve(LU, piv, B, left=left, adjoint=adjoint)
        assert X.grad_fn.name() == "LinalgLuSolveBackward0"
        (X.abs() ** 2).sum().backward()
        out.append((_np(X), _np(A.grad), _np(B.grad)))
    for mine, theirs in zip(*out):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-11)


def test_lu_solve_forms_by_hand():
    a = RNG.standard_normal((3, 3))
    b = RNG.standard_normal((2, 3))
    LU, piv = ag.linalg.lu_factor(ag.tensor(a))
    np.testing.assert_allclose(ag.linalg.lu_solve(LU, piv, ag.tensor(b), left=False).numpy(), b @ np.linalg.inv(a),
                               atol=1e-12)
    np.testing.assert_allclose(ag.linalg.lu_solve(LU, piv, ag.tensor(b.T), adjoint=True).numpy(),
                               np.linalg.solve(a.T, b.T), atol=1e-12)
    B = ag.tensor(b, requires_grad=True)
    ag.linalg.lu_solve(LU, piv, B, left=False, adjoint=True).sum().backward()    # X = B A^-T: dX/dB = A^-1 ...
    np.testing.assert_allclose(_np(B.grad), np.ones((2, 3)) @ np.linalg.inv(a), atol=1e-12)


def test_lu_factor_without_pivoting_refused_as_pytorch_cpu():
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        ag.linalg.lu_factor(ag.eye(3), pivot=False)
    with pytest.raises(RuntimeError, match="LU without pivoting is not implemented on the CPU"):
        ag.linalg.lu_factor_ex(ag.eye(3), pivot=False)


LSTSQ_A = [[[1.0, 2, 0.5], [0.3, -1, 2], [2, 0.1, 1], [1, 1, 1]], [[2.0, 0, 1], [0, 1, 1], [1, 1, 0], [3, 1, 2]]]
LSTSQ_B = [[[1.0, 2], [0, 1], [3, 1], [1, 0]], [[1.0, 0], [2, 1], [0, 0], [1, 1]]]


@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss", "gels"])
def test_lstsq_drivers_give_pytorchs_other_results(driver):
    """gelsd and gelss give the singular values; all but gelsy the residuals of a tall full-rank
    system (by hand: the squared norm of B - A X by column); gels no rank."""
    A, B = ag.tensor(LSTSQ_A), ag.tensor(LSTSQ_B)
    result = ag.linalg.lstsq(A, B, driver=driver)
    misfit = ((B - A @ result.solution) ** 2).sum(-2)
    if driver in ("gelsd", "gelss", "gels"):
        np.testing.assert_allclose(result.residuals.numpy(), misfit.numpy(), rtol=1e-12)
    else:
        assert result.residuals.shape == (0,)
    assert result.rank.tolist() == ([] if driver == "gels" else [3, 3])
    if driver in ("gelsd", "gelss"):
        np.testing.assert_allclose(result.singular_values.numpy(), np.linalg.svd(np.array(LSTSQ_A), compute_uv=False))
    torch = pytest.importorskip("torch")
    theirs = torch.linalg.lstsq(torch.tensor(LSTSQ_A, dtype=torch.float64), torch.tensor(LSTSQ_B, dtype=torch.float64),
                                driver=driver)
    for mine, other in zip(result, theirs):
        np.testing.assert_allclose(mine.detach().numpy(), other.numpy(), rtol=1e-10, atol=1e-12)


SOLVERS_OF_TWO_DTYPES = [
    lambda L, A, b: L.linalg.solve(A, b),
    lambda L, A, b: L.linalg.solve_ex(A, b),
    lambda L, A, b: L.linalg.lstsq(A, b),
    lambda L, A, b: L.linalg.lstsq(b.T, A),
    lambda L, A, b: L.linalg.lu_solve(*L.linalg.lu_factor(A), b),
    lambda L, A, b: L.cholesky_solve(b, A),
    lambda L, A, b: L.triangular_solve(b, A),
    lambda L, A, b: L.linalg.vecdot(b[:, 0], A[0]),
]


@pytest.mark.parametrize("case", range(len(SOLVERS_OF_TWO_DTYPES)))
def test_solvers_refuse_two_dtypes_as_pytorch(case):
    """A float64 matrix with a float32 right-hand side (float32 data from NumPy, a float64
    default): PyTorch refuses it in each solver's words, and so does the engine."""
    def outcome(L):
        A, b = L.eye(2, dtype=L.float64) * 2, L.ones(2, 1, dtype=L.float32)
        try:
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)     # (triangular_solve's deprecation)
                SOLVERS_OF_TWO_DTYPES[case](L, A, b)
        except RuntimeError as error:
            return str(error)
        return "ran"
    mine = outcome(ag)
    assert mine != "ran" and "same dtype" in mine
    assert mine == outcome(_torch())

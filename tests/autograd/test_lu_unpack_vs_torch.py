"""``torch.lu_unpack``, differentially against PyTorch: P, L and U, the named tuple, the node
(LuUnpackBackward0), gradients and second-order gradients, the errors; independently,
``P @ L @ U`` gives back the factored matrix and the gradient to the packed factors agrees
with central differences of the engine's own forward."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from diffcompare import autograd as ag  # noqa: E402

RNG = np.random.default_rng(11)
SHAPES = [(3, 3), (2, 3, 4), (4, 2), (2, 2, 5, 3)]


pytestmark = pytest.mark.usefixtures("torch_float64")     # PyTorch in float64, as the engine


def _unpack_loss(lib, lu, pivots, wL, wU):
    P, L, U = lib.lu_unpack(lu, pivots)
    return P, L, U, (L * lib.tensor(wL)).sum() + (U * U * lib.tensor(wU)).sum()


@pytest.mark.parametrize("shape", SHAPES)
def test_values_node_and_gradients_match_pytorch(shape):
    a = RNG.standard_normal(shape)
    packed, pivots = torch.linalg.lu_factor(torch.tensor(a))
    m, n = shape[-2:]
    k = min(m, n)
    wL, wU = RNG.standard_normal(shape[:-2] + (m, k)), RNG.standard_normal(shape[:-2] + (k, n))
    results = []
    for lib in (ag, torch):
        lu = lib.tensor(packed.numpy(), requires_grad=True)
        piv = lib.tensor(pivots.numpy())
        P, L, U, loss = _unpack_loss(lib, lu, piv, wL, wU)
        g, = lib.autograd.grad(loss, lu, create_graph=True)
        gg, = lib.autograd.grad((g * g).sum(), lu)
        results.append((P, L, U, g, gg))
        assert L.grad_fn.name() == U.grad_fn.name() == "LuUnpackBackward0"
        assert P.grad_fn is None and not P.requires_grad
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert type(ag.lu_unpack(ag.tensor(packed.numpy()), ag.tensor(pivots.numpy()))).__name__ == "lu_unpack"


@pytest.mark.parametrize("shape", SHAPES)
def test_factors_rebuild_the_matrix(shape):
    a = RNG.standard_normal(shape)
    P, L, U = ag.lu_unpack(*ag.linalg.lu_factor(ag.tensor(a)))
    np.testing.assert_allclose((P @ L @ U).numpy(), a, rtol=1e-12, atol=1e-12)
    assert np.all(np.diagonal(L.numpy(), axis1=-2, axis2=-1) == 1.0)
    assert np.all(np.tril(U.numpy(), -1) == 0.0) and np.all(np.triu(L.numpy(), 1) == 0.0)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5)])
def test_gradient_matches_finite_differences(shape):
    a = RNG.standard_normal(shape)
    packed, pivots = ag.linalg.lu_factor(ag.tensor(a))
    m, n = shape
    k = min(m, n)
    wL, wU = RNG.standard_normal((m, k)), RNG.standard_normal((k, n))

    def f(values):
        return _unpack_loss(ag, ag.tensor(values), pivots, wL, wU)[3].item()

    lu = ag.tensor(packed.numpy(), requires_grad=True)
    _unpack_loss(ag, lu, pivots, wL, wU)[3].backward()
    h, numeric = 1e-6, np.zeros(shape)
    for idx in np.ndindex(*shape):
        step = np.zeros(shape)
        step[idx] = h
        numeric[idx] = (f(packed.numpy() + step) - f(packed.numpy() - step)) / (2 * h)
    np.testing.assert_allclose(lu.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shape", [(2, 4, 4), (3, 5), (5, 3), (2, 2, 4), (2, 4, 2)])
@pytest.mark.parametrize("route", ["lu_unpack", "linalg.lu", "lu_factor"])
def test_through_the_factorisation_to_the_matrix(shape, route):
    """Square, wide and tall matrices: PyTorch's linalg_lu_backward, twice."""
    a = RNG.standard_normal(shape)
    results = []
    for lib in (ag, torch):
        A = lib.tensor(a, requires_grad=True)
        if route == "lu_unpack":
            _, L, U = lib.lu_unpack(*lib.linalg.lu_factor(A))
        elif route == "linalg.lu":
            _, L, U = lib.linalg.lu(A)
        else:
            L = U = lib.linalg.lu_factor(A)[0]
        wL = lib.tensor(np.cos(np.arange(L.numel())).reshape(tuple(L.shape)))
        wU = lib.tensor(np.sin(np.arange(U.numel())).reshape(tuple(U.shape)))
        g, = lib.autograd.grad((L * wL).sum() + (U * U * wU).sum(), A, create_graph=True)
        gg, = lib.autograd.grad((g ** 2).sum(), A)
        results.append((g.detach().numpy(), gg.numpy()))
    for m, t in zip(*results):
        np.testing.assert_allclose(m, t, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(t).max()))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3)])
def test_rectangular_factor_gradient_matches_finite_differences(shape):
    a = RNG.standard_normal(shape)
    m, n = shape
    k = min(m, n)
    wL, wU = RNG.standard_normal((m, k)), RNG.standard_normal((k, n))

    def f(values):
        _, L, U = ag.linalg.lu(ag.tensor(values))
        return ((L * ag.tensor(wL)).sum() + (U * U * ag.tensor(wU)).sum()).item()

    A = ag.tensor(a, requires_grad=True)
    _, L, U = ag.linalg.lu(A)
    ((L * ag.tensor(wL)).sum() + (U * U * ag.tensor(wU)).sum()).backward()
    h, numeric = 1e-6, np.zeros(shape)
    for idx in np.ndindex(*shape):
        step = np.zeros(shape)
        step[idx] = h
        numeric[idx] = (f(a + step) - f(a - step)) / (2 * h)
    np.testing.assert_allclose(A.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("unpack_data, unpack_pivots", [(False, True), (True, False)])
def test_partial_unpacking(unpack_data, unpack_pivots):
    a = RNG.standard_normal((3, 4))
    shapes = []
    for lib in (ag, torch):
        packed, pivots = lib.linalg.lu_factor(lib.tensor(a))
        r = lib.lu_unpack(packed, pivots, unpack_data=unpack_data, unpack_pivots=unpack_pivots)
        shapes.append([tuple(t.shape) for t in r])
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize("case", ["long pivots", "out of range", "one dimension"])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_errors_match(case, requires_grad):
    messages = []
    a = RNG.standard_normal((3, 3))
    for lib in (ag, torch):
        packed, pivots = lib.linalg.lu_factor(lib.tensor(a, requires_grad=requires_grad))
        if case == "long pivots":
            pivots = pivots.long()
        elif case == "out of range":
            pivots = lib.tensor([1, 7, 3], dtype=lib.int32)
        else:
            packed = packed[0]
        with pytest.raises((RuntimeError, IndexError)) as error:
            lib.lu_unpack(packed, pivots)
        messages.append((type(error.value), str(error.value)))
    assert messages[0] == messages[1]

"""Forward-mode AD (``diffcompare.autograd.forward_ad``): every op of the catalogue gives the
directional derivative J t, checked against central differences of f along t (which share
nothing with the tangent rules) and against PyTorch 2.13's forward_ad when it is installed;
the API's errors are PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
from custom_ops import Cube, Square
from op_catalogue import CASES

import diffcompare.autograd.forward_ad as fwAD
from diffcompare import autograd as ag


def _tangents(case, arrays, seed=3):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-1, 1, a.shape) for a in arrays]


def _forward_mode(fn, arrays, tangents):
    with fwAD.dual_level():
        duals = [fwAD.make_dual(ag.tensor(a), ag.tensor(t)) for a, t in zip(arrays, tangents)]
        out = fn(ag, *duals)
        primal, tangent = fwAD.unpack_dual(out)
        return primal.numpy(), (np.zeros(primal.shape) if tangent is None else tangent.numpy())


def _value(fn, arrays):
    with ag.no_grad():
        return fn(ag, *[ag.tensor(a) for a in arrays]).numpy()


@pytest.mark.parametrize("case", CASES, ids=str)
def test_tangent_is_the_directional_derivative(case):
    arrays = [t.detach().numpy() for t in case.inputs(11)]
    tangents = _tangents(case, arrays)
    value, tangent = _forward_mode(case.fn, arrays, tangents)
    np.testing.assert_allclose(value, _value(case.fn, arrays), rtol=1e-15, atol=0)
    h = 1e-6
    plus = _value(case.fn, [a + h * t for a, t in zip(arrays, tangents)])
    minus = _value(case.fn, [a - h * t for a, t in zip(arrays, tangents)])
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-7)


def _torch_cases():
    from differential import DIFFERENTIAL_CASES
    return DIFFERENTIAL_CASES


@pytest.mark.parametrize("case", _torch_cases(), ids=str)
def test_tangent_matches_pytorch_forward_ad(case):
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tfw
    from differential import torch_namespace
    _, spelling = torch_namespace()
    arrays = [t.detach().numpy() for t in case.inputs(12)]
    tangents = _tangents(case, arrays, seed=4)
    _, mine = _forward_mode(case.fn, arrays, tangents)
    with tfw.dual_level():
        duals = [tfw.make_dual(torch.tensor(a), torch.tensor(t)) for a, t in zip(arrays, tangents)]
        out = case.fn(spelling, *duals)
        theirs = tfw.unpack_dual(out).tangent
    theirs = np.zeros(mine.shape) if theirs is None else theirs.detach().numpy()
    np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-14)


def test_errors_are_pytorchs():
    x = ag.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[2\] while the given forward gradient is of "
                                               r"size \[3\]"):
            fwAD.make_dual(x, ag.ones(3))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
        dual = fwAD.make_dual(x, ag.ones(2))
        y = dual.exp()
        assert fwAD.unpack_dual(x).tangent is None
    assert fwAD.unpack_dual(y).tangent is None and fwAD.unpack_dual(dual).tangent is None   # dropped on exit


def test_in_place_writes_and_views_update_tangents():
    with fwAD.dual_level():
        x = fwAD.make_dual(ag.tensor([1.0, 2.0, 3.0]), ag.tensor([1.0, 1.0, 1.0]))
        y = x * 1
        y[1:].mul_(2.0)             # through a view: the base's tangent changes with it
        y[0] = 5.0                  # a constant written: no tangent there
        z = x.clone()
        z.add_(x * x)               # z = x + x²: tangent 1 + 2x
        assert fwAD.unpack_dual(y).tangent.tolist() == [0.0, 2.0, 2.0]
        assert fwAD.unpack_dual(z).tangent.tolist() == [3.0, 5.0, 7.0]


class _CubeWithJvp(Cube):
    """Cube, with its tangent rule 3x² t for forward mode."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_forward(x)
        return Cube.forward(ctx, x)

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * 3 * x ** 2


def test_custom_function_with_and_without_jvp():
    with fwAD.dual_level():
        x = fwAD.make_dual(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 0.5]))
        assert fwAD.unpack_dual(_CubeWithJvp.apply(x)).tangent.tolist() == [3.0, 6.0]    # 3x² t by hand
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            Square.apply(x)


def test_forward_and_reverse_mode_together():
    """A tangent through a recorded graph, and a gradient of the same graph."""
    w = ag.tensor([0.5, -1.0], requires_grad=True)
    with fwAD.dual_level():
        x = fwAD.make_dual(w, ag.tensor([1.0, 0.0]))
        y = (x.sin() * x).sum()
        tangent = fwAD.unpack_dual(y).tangent
        y.backward()
    v = w.detach().numpy()
    assert tangent.item() == pytest.approx(np.cos(v[0]) * v[0] + np.sin(v[0]), rel=1e-15)
    np.testing.assert_allclose(w.grad.numpy(), np.cos(v) * v + np.sin(v), rtol=1e-15)


def test_functional_jvp_runs_forward_mode(monkeypatch):
    """One forward pass with the tangent, no backward at all; the same J v as the double-vjp
    trick (create_graph) and as the Jacobian times v."""
    import importlib
    backward = importlib.import_module("diffcompare.autograd.backward")

    def f(x, y):
        return (x.exp() * y).cumsum(0), (x * y).sum()

    x, y = ag.tensor([0.2, -0.4, 1.0]), ag.tensor([1.5, 2.0, -0.5])
    v = (ag.tensor([1.0, 0.0, 2.0]), ag.tensor([0.5, 0.5, 0.5]))
    trick = ag.functional.jvp(f, (x, y), v, create_graph=True)[1]
    monkeypatch.setattr(backward, "run_backward", lambda *a, **k: pytest.fail("a backward pass ran"))
    outs, forward = ag.functional.jvp(f, (x, y), v)
    for a, b in zip(forward, trick):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-14)
    jx, jy = ag.functional.jacobian(lambda a, b: f(a, b)[0], (x, y), vectorize=True)
    np.testing.assert_allclose(forward[0].numpy(), jx.numpy() @ v[0].numpy() + jy.numpy() @ v[1].numpy(),
                               rtol=1e-14)
    with pytest.raises(RuntimeError, match=r"v has invalid size: should be torch.Size\(\[3\]\)"):
        ag.functional.jvp(lambda a: a * 2, x, ag.ones(2))


def test_forward_over_reverse_gives_hessian_vector_products():
    """The tangent of a gradient taken with create_graph is H v: Rosenbrock's Hessian by hand."""
    from hand_derived import rosenbrock_hessian
    xs, v = np.array([0.3, -1.2, 0.8, 1.1]), np.array([1.0, 0.5, -2.0, 0.25])
    with fwAD.dual_level():
        x = fwAD.make_dual(ag.tensor(xs, requires_grad=True), ag.tensor(v))
        f = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
        (g,) = ag.grad(f, x, create_graph=True)
        hv = fwAD.unpack_dual(g).tangent
    np.testing.assert_allclose(hv.detach().numpy(), rosenbrock_hessian(xs) @ v, rtol=1e-14)


def _vjp(case, arrays, seed):
    inputs = [ag.tensor(a, requires_grad=True) for a in arrays]
    out = case.fn(ag, *inputs)
    grads = ag.grad(out, inputs, ag.tensor(seed), allow_unused=True)
    return [np.zeros(a.shape) if g is None else g.numpy() for g, a in zip(grads, arrays)]


@pytest.mark.parametrize("case", [c for c in CASES if c.twice], ids=str)
def test_forward_over_reverse_on_every_op(case):
    """The tangent of a VJP taken with create_graph is the VJP's derivative along t: checked
    against central differences of the VJP itself."""
    arrays = [t.detach().numpy() for t in case.inputs(13)]
    tangents = _tangents(case, arrays, seed=5)
    with ag.no_grad():
        shape = case.fn(ag, *[ag.tensor(a) for a in arrays]).shape
    seed = np.random.default_rng(6).uniform(-1, 1, tuple(shape))
    with fwAD.dual_level():
        duals = [fwAD.make_dual(ag.tensor(a, requires_grad=True), ag.tensor(t)) for a, t in zip(arrays, tangents)]
        out = case.fn(ag, *duals)
        grads = ag.grad(out, duals, ag.tensor(seed), create_graph=True, allow_unused=True)
        got = [None if g is None else fwAD.unpack_dual(g).tangent for g in grads]
    h = 1e-6
    plus = _vjp(case, [a + h * t for a, t in zip(arrays, tangents)], seed)
    minus = _vjp(case, [a - h * t for a, t in zip(arrays, tangents)], seed)
    for g, p, m in zip(got, plus, minus):
        want = (p - m) / (2 * h)
        np.testing.assert_allclose(np.zeros(want.shape) if g is None else g.detach().numpy(), want, rtol=1e-6, atol=1e-6)


def _reverse_over_forward(lib, fw, fn, arrays, tangents, seed):
    """The gradient of seed · (J t) with respect to the primals and the tangents."""
    primals = [lib.tensor(a, requires_grad=True) for a in arrays]
    dirs = [lib.tensor(t, requires_grad=True) for t in tangents]
    with fw.dual_level():
        out = fn(*[fw.make_dual(p, t) for p, t in zip(primals, dirs)])
        tangent = fw.unpack_dual(out).tangent
    if tangent is None or not tangent.requires_grad:
        return None
    grads = lib.autograd.grad((tangent * lib.tensor(seed)).sum(), primals + dirs, allow_unused=True)
    from differential import _numpy
    return [_numpy(g) for g in grads]


@pytest.mark.parametrize("case", [c for c in _torch_cases() if c.twice], ids=str)
def test_tangents_are_differentiable_as_in_pytorch(case):
    """Reverse over forward: a tangent computed from primals or tangents that require grad
    has a graph, and its gradient is PyTorch's."""
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tfw
    from differential import torch_namespace
    _, spelling = torch_namespace()
    arrays = [t.detach().numpy() for t in case.inputs(14)]
    tangents = _tangents(case, arrays, seed=7)
    with ag.no_grad():
        shape = tuple(case.fn(ag, *[ag.tensor(a) for a in arrays]).shape)
    seed = np.random.default_rng(8).uniform(-1, 1, shape)
    try:
        theirs = _reverse_over_forward(torch, tfw, lambda *xs: case.fn(spelling, *xs), arrays, tangents, seed)
    except RuntimeError as error:       # PyTorch 2.13's formulas for exp-based ops write a saved result in place
        assert "modified by an inplace operation" in str(error)
        theirs = None
    mine = _reverse_over_forward(ag, fwAD, lambda *xs: case.fn(ag, *xs), arrays, tangents, seed)
    if theirs is None:
        return
    assert mine is not None
    for m, t in zip(mine, theirs):
        if m is None or t is None:      # PyTorch may hand back zeros where the engine has no path
            assert m is t or np.all((m if m is not None else t) == 0)
        else:
            np.testing.assert_allclose(m, t, rtol=1e-10, atol=1e-12)


def test_tangent_identity_and_requires_grad_as_in_pytorch():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as tfw

    def flags(lib, fw):
        p = lib.tensor([0.5, -1.0], dtype=lib.float64)
        t = lib.tensor([1.0, 2.0], dtype=lib.float64)
        x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        tr = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        seen = []
        with fw.dual_level():
            seen.append(fw.unpack_dual(fw.make_dual(p, t)).tangent is t)
            seen.append(fw.unpack_dual(fw.make_dual(p, tr)).tangent is tr)
            for primal, tangent in ((p, t), (p, tr), (x, t), (x, tr)):
                d = fw.make_dual(primal, tangent)
                seen.append(fw.unpack_dual(d.sin() * 2).tangent.requires_grad)
                seen.append(fw.unpack_dual(d + 1).tangent.requires_grad)
                with lib.no_grad():
                    seen.append(fw.unpack_dual(d * d).tangent.requires_grad)
            d = fw.make_dual(x, t)
            seen.append(fw.unpack_dual(d).primal.requires_grad)
            seen.append(fw.unpack_dual(d.detach()).tangent is None)
            tangent = fw.unpack_dual((d ** 3).sum()).tangent
        tangent.backward()
        return seen, x.grad.tolist()

    assert flags(ag, fwAD) == flags(torch, tfw)

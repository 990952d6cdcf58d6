"""torch.special completed (ops/special_functions.py, ops/orthogonal_polynomials.py): values
derived by hand or by mpmath at high precision, gradients by the calculus, and — where PyTorch
2.13 is installed — values, gradients, node names, dtypes and errors against it."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from diffcompare import autograd as ag

S = ag.special


def _values(t):
    return t.detach().numpy()


# -- without PyTorch: by hand and by mpmath ----------------------------------------------------------

def test_values_by_hand_and_by_mpmath():
    mpmath.mp.dps = 40
    x = [0.3, 1.2, 2.5, 9.3]
    cases = {
        "i0": (S.i0, lambda v: mpmath.besseli(0, v)),
        "i0e": (S.i0e, lambda v: mpmath.besseli(0, v) * mpmath.exp(-v)),
        "i1": (S.i1, lambda v: mpmath.besseli(1, v)),
        "i1e": (S.i1e, lambda v: mpmath.besseli(1, v) * mpmath.exp(-v)),
        "erfc": (S.erfc, mpmath.erfc),
        "erfcx": (S.erfcx, lambda v: mpmath.erfc(v) * mpmath.exp(v * v)),
        "ndtr": (S.ndtr, mpmath.ncdf),
        "log_ndtr": (S.log_ndtr, lambda v: mpmath.log(mpmath.ncdf(v))),
        "entr": (S.entr, lambda v: -v * mpmath.log(v)),
        "sinc": (S.sinc, lambda v: mpmath.sinpi(v) / (mpmath.pi * v)),
        "bessel_j0": (S.bessel_j0, lambda v: mpmath.besselj(0, v)),
        "bessel_y1": (S.bessel_y1, lambda v: mpmath.bessely(1, v)),
        "modified_bessel_k0": (S.modified_bessel_k0, lambda v: mpmath.besselk(0, v)),
        "scaled_modified_bessel_k1": (S.scaled_modified_bessel_k1, lambda v: mpmath.besselk(1, v) * mpmath.exp(v)),
        "airy_ai": (S.airy_ai, mpmath.airyai),
        "spherical_bessel_j0": (S.spherical_bessel_j0, lambda v: mpmath.sin(v) / v),
    }
    for name, (mine, exact) in cases.items():
        expected = [float(exact(mpmath.mpf(v))) for v in x]
        np.testing.assert_allclose(_values(mine(ag.tensor(x))), expected, rtol=1e-14, atol=0, err_msg=name)
    mpmath.mp.dps = 15
    # far in the tails, where the naive formulas lose everything
    assert _values(S.log_ndtr(ag.tensor([-40.0])))[0] == pytest.approx(-804.6084420137538, rel=1e-15)
    assert _values(S.ndtri(ag.tensor([0.975, 1e-300])))[0] == pytest.approx(1.959963984540054, rel=1e-15)
    assert _values(S.ndtri(ag.tensor([1e-300])))[0] == pytest.approx(-37.0470962993612, rel=1e-15)
    assert _values(S.erfc(ag.tensor([10.0])))[0] == pytest.approx(2.088487583762545e-45, rel=1e-15)
    assert _values(S.erfcx(ag.tensor([1e9])))[0] == pytest.approx(1 / (math.sqrt(math.pi) * 1e9), rel=1e-15)


def test_binary_functions_by_hand():
    x = ag.tensor([0.5, 1.0, 3.0])
    np.testing.assert_allclose(_values(S.gammainc(ag.tensor([1.0, 1.0, 1.0]), x)), 1 - np.exp([-0.5, -1.0, -3.0]), rtol=1e-14)
    np.testing.assert_allclose(_values(S.gammaincc(ag.tensor([2.0, 2.0, 2.0]), x)),
                               (1 + np.array([0.5, 1.0, 3.0])) * np.exp([-0.5, -1.0, -3.0]), rtol=1e-14)
    np.testing.assert_allclose(_values(S.zeta(ag.tensor([2.0, 4.0]), 1.0)), [math.pi ** 2 / 6, math.pi ** 4 / 90], rtol=1e-15)
    np.testing.assert_allclose(_values(S.zeta(2.0, ag.tensor([2.0]))), [math.pi ** 2 / 6 - 1], rtol=1e-15)
    np.testing.assert_allclose(_values(S.xlog1py(ag.tensor([0.0, 2.0, 0.0]), ag.tensor([-1.0, 1.0, np.nan]))),
                               [0.0, 2 * math.log(2.0), np.nan])
    # zeta(x, q) for large x and q, where mpmath's own Hurwitz zeta at double precision is off by 1e-8
    mpmath.mp.dps = 50
    exact = float(mpmath.zeta(mpmath.mpf(20.5), 100))
    mpmath.mp.dps = 15
    assert _values(S.zeta(ag.tensor([20.5]), ag.tensor([100.0])))[0] == pytest.approx(exact, rel=1e-14)
    # polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)
    assert _values(ag.polygamma(20, ag.tensor([30.0])))[0] == pytest.approx(
        -math.factorial(20) * _values(S.zeta(ag.tensor([21.0]), ag.tensor([30.0])))[0], rel=1e-14)


def test_polynomials_by_hand():
    x = np.array([-0.9, -0.3, 0.2, 0.75])
    t = ag.tensor(x)
    for n in (0, 1, 2, 5, 7, 9, 12):           # the trigonometric form from degree 7 (T) and 9 (U) on
        np.testing.assert_allclose(_values(S.chebyshev_polynomial_t(t, n)), np.cos(n * np.arccos(x)), atol=1e-14)
        np.testing.assert_allclose(_values(S.chebyshev_polynomial_u(t, n)),
                                   np.sin((n + 1) * np.arccos(x)) / np.sin(np.arccos(x)), atol=1e-13)
    np.testing.assert_allclose(_values(S.legendre_polynomial_p(t, 2)), (3 * x ** 2 - 1) / 2, rtol=1e-15)
    np.testing.assert_allclose(_values(S.hermite_polynomial_h(t, 3)), 8 * x ** 3 - 12 * x, rtol=1e-14)
    np.testing.assert_allclose(_values(S.hermite_polynomial_he(t, 3)), x ** 3 - 3 * x, rtol=1e-14)
    np.testing.assert_allclose(_values(S.laguerre_polynomial_l(t, 2)), (x ** 2 - 4 * x + 2) / 2, rtol=1e-15)
    np.testing.assert_allclose(_values(S.shifted_chebyshev_polynomial_t(ag.tensor(x / 2 + 0.5), 3)),
                               4 * x ** 3 - 3 * x, atol=1e-14)
    # a tensor of degrees; negative, NaN and infinite degrees give 0; P_n(1) = 1
    assert _values(S.legendre_polynomial_p(1.0, ag.tensor([0.0, 3.0, -1.0, np.nan, np.inf]))).tolist() == [1, 1, 0, 0, 0]
    assert _values(S.hermite_polynomial_h(ag.tensor([0.5]), 600)).tolist() == [0.0] or \
        np.isnan(_values(S.hermite_polynomial_h(ag.tensor([0.5]), 600))).all()


def test_gradients_by_hand():
    x = ag.tensor([-1.5, 0.0, 0.5, 2.0], requires_grad=True)
    S.i0(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _values(S.i1(x)), rtol=1e-15)
    x.grad = None
    S.erfc(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -2 / math.sqrt(math.pi) * np.exp(-x.detach().numpy() ** 2), rtol=1e-15)
    x.grad = None
    S.sinc(x).sum().backward()
    assert x.grad.numpy()[1] == 0.0                        # sinc's rule at 0
    p = ag.tensor([0.1, 0.5, 0.9], requires_grad=True)
    r = S.ndtri(p)
    r.sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), math.sqrt(2 * math.pi) * np.exp(_values(r) ** 2 / 2), rtol=1e-15)
    a, z = ag.tensor([0.5, 2.0]), ag.tensor([1.0, 3.0], requires_grad=True)
    S.gammainc(a, z).sum().backward()
    expected = [float(mpmath.npdf(0) * 0 + z_ ** (a_ - 1) * mpmath.exp(-z_) / mpmath.gamma(a_)) for a_, z_ in ((0.5, 1.0), (2.0, 3.0))]
    np.testing.assert_allclose(z.grad.numpy(), expected, rtol=1e-14)


def test_not_implemented_and_not_differentiable():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    for function, message in ((S.gammainc, "igamma: input"), (S.gammaincc, "igammac: input"), (S.zeta, "zeta")):
        y = function(a, ag.tensor([1.5, 2.5]))
        with pytest.raises(NotImplementedError, match=f"^the derivative for '{message}' is not implemented.$"):
            y.sum().backward()
    with pytest.raises(NotImplementedError, match="zeta"):
        S.zeta(a, 2.0).sum().backward()
    for name in ("bessel_j0", "airy_ai", "modified_bessel_i0", "spherical_bessel_j0"):
        assert not getattr(S, name)(a).requires_grad
    assert not S.chebyshev_polynomial_t(a, 3).requires_grad
    with pytest.raises(TypeError, match="must be Tensor"):
        S.gammainc(a, 2.0)


def test_out_and_methods():
    out = ag.zeros(2)
    assert S.i0e(ag.tensor([0.0, 1.0]), out=out) is out and out.tolist()[0] == 1.0
    with pytest.raises(RuntimeError, match="^special_i0e\\(\\): functions with out="):
        S.i0e(ag.tensor([1.0, 2.0], requires_grad=True), out=ag.zeros(2))
    x = ag.tensor([1.0, 2.0], requires_grad=True) * 1
    x.i0_()
    assert x.grad_fn.name() == "I0Backward0"
    assert ag.tensor([1.0]).igamma(ag.tensor([1.0])).tolist() == pytest.approx([1 - math.exp(-1)])


# -- against PyTorch ---------------------------------------------------------------------------------

X = [-3.5, -1.0, -1e-20, 0.0, 0.25, 1.0, 2.5, 7.9, 8.5, 30.0, 710.0, math.inf, -math.inf, math.nan]
P = [0.0, 1e-300, 1e-20, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-12, 1.0, 1.5, -0.5, math.nan]

# name -> (inputs, PyTorch's node, where the gradient is compared: finite values and derivatives)
DIFFERENTIABLE = {
    "i0": (X, "I0Backward0"), "i0e": (X, "SpecialI0EBackward0"), "i1": (X, "SpecialI1Backward0"),
    "i1e": (X, "SpecialI1EBackward0"), "erfc": (X, "ErfcBackward0"), "erfcx": (X, "SpecialErfcxBackward0"),
    "entr": (X, "SpecialEntrBackward0"), "log_ndtr": (X + [-40.0, -1e5], "SpecialLogNdtrBackward0"),
    "ndtr": (X, "MulBackward1"), "ndtri": (P, "SpecialNdtriBackward0"), "sinc": (X + [1e-170], "SincBackward0"),
    "round": ([0.5, 1.5, -2.5, 0.3], "RoundBackward1"), "exp2": (X, "Exp2Backward0"), "erf": (X, "ErfBackward0"),
}
NOT_DIFFERENTIABLE = ("modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
                      "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0", "airy_ai",
                      "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")


def _same(mine, theirs, rtol, atol=0.0):
    np.testing.assert_allclose(np.asarray(mine, dtype=np.float64), np.asarray(theirs, dtype=np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", list(DIFFERENTIABLE))
def test_differentiable_as_pytorch(name, torch_float64):
    torch = pytest.importorskip("torch")
    values, node = DIFFERENTIABLE[name]
    mine_x = ag.tensor(values, requires_grad=True)
    theirs_x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    mine, theirs = getattr(S, name)(mine_x), getattr(torch.special, name)(theirs_x)
    _same(_values(mine), theirs.detach().numpy(), 1e-13)
    assert mine.grad_fn.name() == theirs.grad_fn.name() == node
    weights = np.linspace(0.5, 1.5, len(values))
    (mine * ag.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    _same(mine_x.grad.numpy(), theirs_x.grad.numpy(), 1e-12, 1e-15)    # erfcx's rule cancels at large x
    for dtype in ("float32", "int64"):           # float32 stays float32; integers promote to the default dtype
        if name in ("ndtri", "round") and dtype == "int64":
            continue
        data = np.array([v for v in values if math.isfinite(v)], dtype=dtype)
        mine32, theirs32 = getattr(S, name)(ag.tensor(data)), getattr(torch.special, name)(torch.tensor(data))
        assert str(mine32.dtype).split(".")[-1] == ("float32" if dtype == "float32" else str(ag.get_default_dtype()).split(".")[-1])
        _same(_values(mine32), theirs32.numpy(), 1e-5)       # PyTorch's float32 kernels: a few ulps


@pytest.mark.parametrize("name", NOT_DIFFERENTIABLE)
def test_not_differentiable_as_pytorch(name):
    torch = pytest.importorskip("torch")
    # PyTorch's Bessel J, Y and Airy kernels lose digits away from these points (see test_known_inaccuracies)
    values = [-1.5, -0.5, 0.0, 0.25, 1.0, 1.5, math.inf, -math.inf, math.nan]
    if name.startswith(("modified", "scaled", "spherical")):
        values += [2.5, 7.9, 9.0, 30.0, 700.0, 710.0, -710.0]
    if name == "airy_ai":
        values += [-2.0, 2.5, 9.0, 103.0, 104.0]
    mine = getattr(S, name)(ag.tensor(values, requires_grad=True))
    theirs = getattr(torch.special, name)(torch.tensor(values, dtype=torch.float64, requires_grad=True))
    assert not mine.requires_grad and not theirs.requires_grad
    _same(_values(mine), theirs.numpy(), 1e-13)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        theirs.sum().backward()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        mine.sum().backward()


def test_known_inaccuracies_of_pytorch():
    # PyTorch's Bessel J/Y kernels drop the leading 1 of Cephes' denominators: 1e-8 off at x = 5,
    # where the engine gives the function's value (mpmath's)
    torch = pytest.importorskip("torch")
    theirs = torch.special.bessel_j0(torch.tensor([5.0], dtype=torch.float64)).item()
    mine = _values(S.bessel_j0(ag.tensor([5.0])))[0]
    assert mine == pytest.approx(float(mpmath.besselj(0, 5)), rel=1e-15)
    assert 1e-9 < abs(theirs / mine - 1) < 1e-6


def _pair(torch, module, name, a, b, grads):
    def make(m, v, wants):
        return m.tensor(v, dtype=m.float64, requires_grad=wants) if isinstance(v, list) else v
    ma, mb = make(ag, a, grads[0]), make(ag, b, grads[1])
    ta, tb = make(torch, a, grads[0]), make(torch, b, grads[1])
    return (ma, mb, getattr(S, name)(ma, mb)), (ta, tb, getattr(module, name)(ta, tb))


BINARY = {   # name: [(input, other, which require grad, PyTorch's node)]
    "xlog1py": [([0.0, 2.0, -1.0, 0.0, 3.0], [-1.0, 0.5, 2.0, -2.0, math.nan], (True, True), "SpecialXlog1PyBackward0"),
                (2.0, [0.5, -0.5, 3.0], (False, True), "SpecialXlog1PyBackward1"),
                ([0.0, 2.0, -1.0], -1.0, (True, False), "SpecialXlog1PyBackward2"),
                ([0.0, 2.0, -1.0], 0.5, (True, False), "SpecialXlog1PyBackward2")],
    "xlogy": [([0.0, 2.0, -1.0, 0.0], [0.0, 0.5, 2.0, -2.0], (True, True), "XlogyBackward0"),
              (2.0, [0.5, 3.0], (False, True), "XlogyBackward1"), ([0.0, 2.0], 0.0, (True, False), "XlogyBackward2")],
    "zeta": [([2.0, 3.5, 1.0, 0.5, 4.0, 2.0, 20.5], [1.0, 0.5, 2.0, 2.0, -1.5, -2.0, 100.0], (False, True), "SpecialZetaBackward0"),
             (3.0, [0.5, 2.0, 30.0], (False, True), "SpecialZetaBackward1")],
    "gammainc": [([0.5, 2.0, 30.0, 150.0, 1e-10, 0.0, 3.0, -1.0], [1.0, 0.3, 31.0, 140.0, 0.5, 1.0, 0.0, 1.0], (False, True),
                  "IgammaBackward0")],
    "gammaincc": [([0.5, 2.0, 30.0, 150.0, 1e-10, 0.0, 3.0, -1.0], [1.0, 0.3, 31.0, 140.0, 0.5, 1.0, 0.0, 1.0], (False, True),
                   "IgammacBackward0")],
}


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_as_pytorch(name):
    torch = pytest.importorskip("torch")
    module = torch if name == "xlogy" else torch.special
    for a, b, grads, node in BINARY[name]:
        (ma, mb, mine), (ta, tb, theirs) = _pair(torch, module, name, a, b, grads)
        _same(_values(mine), theirs.detach().numpy(), 1e-13)
        assert mine.grad_fn.name() == theirs.grad_fn.name() == node
        mine.sum().backward()
        theirs.sum().backward()
        for m, t in ((ma, ta), (mb, tb)):
            if isinstance(m, ag.Tensor) and m.requires_grad:
                _same(m.grad.numpy(), t.grad.numpy(), 1e-12)


def test_binary_errors_and_dtypes_as_pytorch():
    torch = pytest.importorskip("torch")
    for m in (ag, torch):
        ints = m.tensor([1, 2])
        with pytest.raises(NotImplementedError, match="\"igamma_cpu\" not implemented for 'Long'"):
            m.special.gammainc(ints, ints)
        with pytest.raises(TypeError, match=r"^special_gammaincc\(\): argument 'input' \(position 1\) must be Tensor, not float$"):
            m.special.gammaincc(2.5, ints)
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        with pytest.raises(NotImplementedError, match="^the derivative for 'igamma: input' is not implemented.$"):
            m.igamma(x, m.tensor([1.0, 1.0], dtype=m.float64)).sum().backward()
    f32 = np.array([0.5, 2.0], dtype=np.float32)
    for name in ("xlog1py", "zeta", "gammainc"):
        mine = getattr(S, name)(ag.tensor(f32), ag.tensor(f32))
        theirs = getattr(torch.special, name)(torch.tensor(f32), torch.tensor(f32))
        assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        _same(_values(mine), theirs.numpy(), 1e-6)


def test_polynomials_as_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = np.concatenate([[-1.0, 1.0, 0.0, 0.5, 2.0, -1.5, math.nan, math.inf], rng.uniform(-1.1, 1.1, 40)])
    n = np.concatenate([[0, 1, 2, 7, 9, 20, 3, 3], rng.integers(-1, 30, 40)]).astype(float)
    n[5:7] = [math.nan, 0.9]     # (at x = NaN and n >= 2 PyTorch returns an uninitialised value)
    names = [name for name in dir(torch.special) if "polynomial" in name]
    assert sorted(names) == sorted(name for name in dir(S) if "polynomial" in name)
    for name in names:
        for dtype, rtol in (("float64", 1e-12), ("float32", 1e-3)):      # float32: cancellation in the recurrences
            mine = getattr(S, name)(ag.tensor(x.astype(dtype)), ag.tensor(n.astype(dtype)))
            theirs = getattr(torch.special, name)(torch.tensor(x.astype(dtype)), torch.tensor(n.astype(dtype)))
            assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], name
            _same(_values(mine), theirs.numpy(), rtol)
        scalar_x = getattr(S, name)(0.3, ag.tensor([1, 4]))
        _same(_values(scalar_x), getattr(torch.special, name)(0.3, torch.tensor([1, 4])).numpy(), 1e-5)   # float32 there


def test_the_namespace_and_ndtr_chain_as_pytorch():
    torch = pytest.importorskip("torch")
    public = {n for n in dir(torch.special) if not n.startswith("_")} - {"torch", "Tensor", "common_args", "multi_dim_common"}
    assert public <= set(dir(S))
    chain = []
    fn = S.ndtr(ag.tensor([0.5], requires_grad=True)).grad_fn
    while fn is not None and fn.next_functions:
        chain.append(fn.name())
        fn = fn.next_functions[0][0]
    assert chain == ["MulBackward1", "AddBackward1", "ErfBackward0", "MulBackward1"]
    x = torch.tensor([1.0, 2.0], requires_grad=True) * 1
    x.i0_()
    assert x.grad_fn.name() == "I0Backward0"

"""``torch.distributions`` on the engine beside PyTorch: samples (the engine's draws made to
take PyTorch's values for the same calls, so equal samples mean the same calls in the same
order and shapes), ``log_prob``, ``entropy``, moments, ``cdf``/``icdf``, their gradients and
the gradients of reparameterized samples, ``kl_divergence``, shapes, validation errors, and
small programs as real code writes them (a VAE's reparameterization and KL term, REINFORCE
with ``Categorical.log_prob``, a Gaussian NLL with ``MultivariateNormal``). Some values are
also checked against closed forms and mpmath, independently of both engines."""

import math

import mpmath
import numpy as np
import pytest

from diffcompare import autograd as ag
from diffcompare.autograd.ops.sampling import dirichlet_grad, standard_gamma_grad

from differential import assert_same, tensor_array

torch = pytest.importorskip("torch")


# ---------------------------------------------------------------------------------------------
# the engine's draws take PyTorch's values for the same calls
# ---------------------------------------------------------------------------------------------

FUNCTIONS = ("rand", "randn", "normal", "bernoulli", "multinomial", "poisson", "binomial", "_standard_gamma",
             "_sample_dirichlet")
METHODS = ("normal_", "uniform_", "exponential_", "cauchy_", "geometric_", "log_normal_")


def _as_torch(value):
    if isinstance(value, ag.Tensor):
        return torch.from_numpy(np.array(value.detach().numpy(), copy=True))
    if isinstance(value, np.dtype):
        return getattr(torch, value.name)
    if isinstance(value, (list, tuple)):
        return type(value)(_as_torch(v) for v in value)
    return value


@pytest.fixture
def torch_draws(monkeypatch):
    """The engine's random functions run (their checks, their results' history) and then hold
    the values PyTorch's same call draws from its global generator (written in place, so what
    a node saved sees them too)."""
    def function(name):
        original = getattr(ag, name)

        def draw(*args, **kwargs):
            result = original(*args, **kwargs)
            tkwargs = {k: _as_torch(v) for k, v in kwargs.items() if k not in ("requires_grad", "device")}
            values = getattr(torch, name)(*_as_torch(args), **tkwargs).numpy()
            result._data[...] = values.astype(result._data.dtype).reshape(result._data.shape)
            return result
        return draw

    def method(name):
        original = getattr(ag.Tensor, name)

        def draw(tensor, *args, **kwargs):
            result = original(tensor, *args, **kwargs)
            target = _as_torch(tensor)
            getattr(target, name)(*_as_torch(args), **kwargs)
            result._data[...] = target.numpy().astype(result._data.dtype).reshape(result._data.shape)
            return result
        return draw

    for name in FUNCTIONS:
        monkeypatch.setattr(ag, name, function(name))
    for name in METHODS:
        monkeypatch.setattr(ag.Tensor, name, method(name))


def on_both(program, seed=0):
    """``program(lib)`` on PyTorch (float64 its default dtype, as the engine's) and on the engine,
    from the same seed of PyTorch's generator."""
    torch.manual_seed(seed)
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        theirs = program(torch)
    finally:
        torch.set_default_dtype(default)
    torch.manual_seed(seed)
    mine = program(ag)
    assert_same(mine, theirs)
    return mine


def _name(t):
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def t64(lib, values, grad=False):
    return lib.tensor(values, dtype=lib.float64, requires_grad=grad)


# ---------------------------------------------------------------------------------------------
# samples equal PyTorch's
# ---------------------------------------------------------------------------------------------

SAMPLED = {
    "Normal": lambda lib, D: D.Normal(t64(lib, [0.0, 1.0]), t64(lib, [1.0, 2.0])),
    "Uniform": lambda lib, D: D.Uniform(t64(lib, [0.0, -1.0]), t64(lib, [5.0, 1.0])),
    "Bernoulli": lambda lib, D: D.Bernoulli(probs=t64(lib, [0.3, 0.9])),
    "Bernoulli logits": lambda lib, D: D.Bernoulli(logits=t64(lib, [-1.0, 2.0])),
    "Categorical": lambda lib, D: D.Categorical(probs=t64(lib, [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
    "Categorical logits": lambda lib, D: D.Categorical(logits=t64(lib, [0.5, -1.0, 2.0, 0.0])),
    "OneHotCategorical": lambda lib, D: D.OneHotCategorical(t64(lib, [0.25, 0.25, 0.5])),
    "Binomial": lambda lib, D: D.Binomial(t64(lib, [[5.0], [10.0]]), t64(lib, [0.5, 0.8])),
    "Multinomial": lambda lib, D: D.Multinomial(10, t64(lib, [1.0, 2.0, 3.0])),
    "Exponential": lambda lib, D: D.Exponential(t64(lib, [0.5, 3.0])),
    "Laplace": lambda lib, D: D.Laplace(t64(lib, [0.0, 1.0]), t64(lib, [1.0, 0.5])),
    "Cauchy": lambda lib, D: D.Cauchy(t64(lib, [0.0]), t64(lib, [2.0])),
    "Gumbel": lambda lib, D: D.Gumbel(t64(lib, [1.0]), t64(lib, [2.0])),
    "LogNormal": lambda lib, D: D.LogNormal(t64(lib, [0.0]), t64(lib, [0.5])),
    "HalfNormal": lambda lib, D: D.HalfNormal(t64(lib, [1.5])),
    "Geometric": lambda lib, D: D.Geometric(t64(lib, [0.3, 0.7])),
    "Poisson": lambda lib, D: D.Poisson(t64(lib, [0.5, 4.0, 30.0])),
    "Gamma": lambda lib, D: D.Gamma(t64(lib, [0.5, 2.0]), t64(lib, [1.0, 3.0])),
    "Beta": lambda lib, D: D.Beta(t64(lib, [0.5, 2.0]), t64(lib, [0.5, 1.5])),
    "Dirichlet": lambda lib, D: D.Dirichlet(t64(lib, [0.5, 1.0, 2.0])),
    "StudentT": lambda lib, D: D.StudentT(t64(lib, [2.0, 5.0])),
    "MVN covariance": lambda lib, D: D.MultivariateNormal(t64(lib, [1.0, -1.0]),
                                                          covariance_matrix=t64(lib, [[2.0, 0.5], [0.5, 1.0]])),
    "MVN precision": lambda lib, D: D.MultivariateNormal(t64(lib, [0.0, 0.0]),
                                                         precision_matrix=t64(lib, [[2.0, 0.5], [0.5, 1.0]])),
    "RelaxedBernoulli": lambda lib, D: D.RelaxedBernoulli(t64(lib, [0.5]), probs=t64(lib, [0.1, 0.7])),
    "RelaxedOneHotCategorical": lambda lib, D: D.RelaxedOneHotCategorical(t64(lib, [0.7]),
                                                                          logits=t64(lib, [0.1, 0.2, 0.3])),
    "VonMises": lambda lib, D: D.VonMises(t64(lib, [1.0, -2.0]), t64(lib, [1.0, 0.01])),
    "Independent": lambda lib, D: D.Independent(D.Normal(t64(lib, [[0.0, 1.0]]), t64(lib, [[1.0, 3.0]])), 1),
    "MixtureSameFamily": lambda lib, D: D.MixtureSameFamily(D.Categorical(t64(lib, [0.3, 0.7])),
                                                            D.Normal(t64(lib, [-2.0, 2.0]), t64(lib, [0.5, 1.0]))),
}


@pytest.mark.parametrize("name", list(SAMPLED))
def test_samples_equal_pytorch(name, torch_draws):
    def program(lib):
        d = SAMPLED[name](lib, lib.distributions)
        first, second = d.sample(), d.sample((3, 2))
        return [tuple(first.shape), tuple(second.shape), first, second, str(first.dtype).split(".")[-1]]
    on_both(program)


def _param_leaves(lib, name):
    """The distribution ``name`` made from float64 leaves that require grad; returns (dist, leaves)."""
    D = lib.distributions
    if name == "Normal":
        a, b = t64(lib, [0.5, -1.0], True), t64(lib, [1.5, 0.3], True)
        return D.Normal(a, b), [a, b]
    if name == "Uniform":
        a, b = t64(lib, [0.0, -1.0], True), t64(lib, [5.0, 1.0], True)
        return D.Uniform(a, b), [a, b]
    if name == "Exponential":
        a = t64(lib, [0.5, 3.0], True)
        return D.Exponential(a), [a]
    if name == "Laplace":
        a, b = t64(lib, [0.0, 1.0], True), t64(lib, [1.0, 0.5], True)
        return D.Laplace(a, b), [a, b]
    if name == "Cauchy":
        a, b = t64(lib, [0.2], True), t64(lib, [2.0], True)
        return D.Cauchy(a, b), [a, b]
    if name == "Gumbel":
        a, b = t64(lib, [1.0], True), t64(lib, [2.0], True)
        return D.Gumbel(a, b), [a, b]
    if name == "LogNormal":
        a, b = t64(lib, [0.0, 0.3], True), t64(lib, [0.5, 1.2], True)
        return D.LogNormal(a, b), [a, b]
    if name == "Gamma":
        a, b = t64(lib, [0.5, 2.0, 9.0], True), t64(lib, [1.0, 3.0, 0.5], True)
        return D.Gamma(a, b), [a, b]
    if name == "Beta":
        a, b = t64(lib, [0.5, 2.0, 8.0], True), t64(lib, [0.5, 1.5, 7.0], True)
        return D.Beta(a, b), [a, b]
    if name == "Dirichlet":
        a = t64(lib, [0.5, 1.0, 2.0], True)
        return D.Dirichlet(a), [a]
    if name == "StudentT":
        a, b, c = t64(lib, [2.0, 5.0], True), t64(lib, [0.0, 1.0], True), t64(lib, [1.0, 2.0], True)
        return D.StudentT(a, b, c), [a, b, c]
    if name == "MultivariateNormal":
        a = t64(lib, [1.0, -1.0], True)
        L = t64(lib, [[1.5, 0.0], [0.4, 0.8]], True)
        return D.MultivariateNormal(a, scale_tril=L), [a, L]
    if name == "RelaxedBernoulli":
        a, p = t64(lib, [0.5], True), t64(lib, [0.1, 0.7], True)
        return D.RelaxedBernoulli(a, probs=p), [a, p]
    if name == "RelaxedOneHotCategorical":
        a, p = t64(lib, [0.7], True), t64(lib, [0.1, 0.2, 0.3], True)
        return D.RelaxedOneHotCategorical(a, logits=p), [a, p]
    raise KeyError(name)


@pytest.mark.parametrize("name", ["Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "Gumbel", "LogNormal",
                                  "Gamma", "Beta", "Dirichlet", "StudentT", "MultivariateNormal", "RelaxedBernoulli",
                                  "RelaxedOneHotCategorical"])
def test_rsample_gradients_equal_pytorchs(name, torch_draws):
    def program(lib):
        d, leaves = _param_leaves(lib, name)
        x = d.rsample((3,))
        weights = lib.arange(x.numel(), dtype=lib.float64).reshape(x.shape).cos()
        grads = lib.autograd.grad((x * weights).sum(), leaves)
        return [x, _name(x), d.has_rsample] + list(grads)
    on_both(program)


# ---------------------------------------------------------------------------------------------
# log_prob, entropy, moments, cdf/icdf, and their gradients
# ---------------------------------------------------------------------------------------------

SCORED = {   # name -> (make(lib) -> (dist, leaves), value(lib))
    "Normal": (lambda lib: _param_leaves(lib, "Normal"), lambda lib: t64(lib, [[0.3, 2.0], [-1.0, 0.0]])),
    "Uniform": (lambda lib: _param_leaves(lib, "Uniform"), lambda lib: t64(lib, [1.0, 0.5])),
    "Exponential": (lambda lib: _param_leaves(lib, "Exponential"), lambda lib: t64(lib, [0.7, 2.0])),
    "Laplace": (lambda lib: _param_leaves(lib, "Laplace"), lambda lib: t64(lib, [0.7, -2.0])),
    "Cauchy": (lambda lib: _param_leaves(lib, "Cauchy"), lambda lib: t64(lib, [0.7, -2.0])),
    "Gumbel": (lambda lib: _param_leaves(lib, "Gumbel"), lambda lib: t64(lib, [0.7, -2.0])),
    "LogNormal": (lambda lib: _param_leaves(lib, "LogNormal"), lambda lib: t64(lib, [0.7, 2.0])),
    "Gamma": (lambda lib: _param_leaves(lib, "Gamma"), lambda lib: t64(lib, [0.7, 2.0, 15.0])),
    "Beta": (lambda lib: _param_leaves(lib, "Beta"), lambda lib: t64(lib, [0.2, 0.5, 0.6])),
    "Dirichlet": (lambda lib: _param_leaves(lib, "Dirichlet"), lambda lib: t64(lib, [0.2, 0.3, 0.5])),
    "StudentT": (lambda lib: _param_leaves(lib, "StudentT"), lambda lib: t64(lib, [0.7, -2.0])),
    "MultivariateNormal": (lambda lib: _param_leaves(lib, "MultivariateNormal"),
                           lambda lib: t64(lib, [[0.5, 0.2], [2.0, -3.0], [0.0, 0.0]])),
    "Bernoulli": (lambda lib: (lambda p: (lib.distributions.Bernoulli(probs=p), [p]))(t64(lib, [0.3, 0.9], True)),
                  lambda lib: t64(lib, [1.0, 0.0])),
    "Bernoulli logits": (lambda lib: (lambda p: (lib.distributions.Bernoulli(logits=p), [p]))(
        t64(lib, [-0.3, 2.0], True)), lambda lib: t64(lib, [1.0, 0.0])),
    "Categorical": (lambda lib: (lambda p: (lib.distributions.Categorical(logits=p), [p]))(
        t64(lib, [[0.1, -1.0, 2.0], [0.0, 0.5, 0.3]], True)), lambda lib: lib.tensor([[2, 0], [1, 1]])),
    "Categorical probs": (lambda lib: (lambda p: (lib.distributions.Categorical(probs=p), [p]))(
        t64(lib, [0.2, 0.3, 0.5], True)), lambda lib: lib.tensor([2, 0, 1])),
    "OneHotCategorical": (lambda lib: (lambda p: (lib.distributions.OneHotCategorical(probs=p), [p]))(
        t64(lib, [0.2, 0.3, 0.5], True)), lambda lib: t64(lib, [0.0, 1.0, 0.0])),
    "Binomial": (lambda lib: (lambda p: (lib.distributions.Binomial(10, probs=p), [p]))(
        t64(lib, [0.2, 0.7], True)), lambda lib: t64(lib, [3.0, 10.0])),
    "Poisson": (lambda lib: (lambda r: (lib.distributions.Poisson(r), [r]))(t64(lib, [0.5, 4.0], True)),
                lambda lib: t64(lib, [0.0, 3.0])),
    "Geometric": (lambda lib: (lambda p: (lib.distributions.Geometric(p), [p]))(t64(lib, [0.3, 0.8], True)),
                  lambda lib: t64(lib, [0.0, 3.0])),
    "Multinomial": (lambda lib: (lambda p: (lib.distributions.Multinomial(5, probs=p), [p]))(
        t64(lib, [0.2, 0.3, 0.5], True)), lambda lib: t64(lib, [1.0, 1.0, 3.0])),
    "HalfNormal": (lambda lib: (lambda s: (lib.distributions.HalfNormal(s), [s]))(t64(lib, [1.5], True)),
                   lambda lib: t64(lib, [0.3, 2.0])),
    "Weibull": (lambda lib: (lambda s, c: (lib.distributions.Weibull(s, c), [s, c]))(
        t64(lib, [1.5], True), t64(lib, [0.7], True)), lambda lib: t64(lib, [0.3, 2.0])),
    "Pareto": (lambda lib: (lambda s, a: (lib.distributions.Pareto(s, a), [s, a]))(
        t64(lib, [1.0], True), t64(lib, [2.5], True)), lambda lib: t64(lib, [1.3, 2.0])),
    "Chi2": (lambda lib: (lambda d: (lib.distributions.Chi2(d), [d]))(t64(lib, [3.0], True)),
             lambda lib: t64(lib, [1.3, 2.0])),
    "InverseGamma": (lambda lib: (lambda c, r: (lib.distributions.InverseGamma(c, r), [c, r]))(
        t64(lib, [3.0], True), t64(lib, [2.0], True)), lambda lib: t64(lib, [1.3, 2.0])),
    "Kumaraswamy": (lambda lib: (lambda a, b: (lib.distributions.Kumaraswamy(a, b), [a, b]))(
        t64(lib, [2.0], True), t64(lib, [3.0], True)), lambda lib: t64(lib, [0.3, 0.6])),
    "FisherSnedecor": (lambda lib: (lambda a, b: (lib.distributions.FisherSnedecor(a, b), [a, b]))(
        t64(lib, [3.0], True), t64(lib, [6.0], True)), lambda lib: t64(lib, [0.3, 1.6])),
    "ContinuousBernoulli": (lambda lib: (lambda p: (lib.distributions.ContinuousBernoulli(p), [p]))(
        t64(lib, [0.2, 0.5, 0.9], True)), lambda lib: t64(lib, [0.3, 0.6, 0.1])),
    "LogisticNormal": (lambda lib: (lambda a, b: (lib.distributions.LogisticNormal(a, b), [a, b]))(
        t64(lib, [0.2, -0.5], True), t64(lib, [1.0, 0.5], True)), lambda lib: t64(lib, [0.2, 0.3, 0.5])),
    "LowRankMultivariateNormal": (lambda lib: (lambda m, w, d: (lib.distributions.LowRankMultivariateNormal(m, w, d),
                                                                [m, w, d]))(
        t64(lib, [0.2, -0.5], True), t64(lib, [[1.0], [0.3]], True), t64(lib, [1.0, 0.5], True)),
        lambda lib: t64(lib, [0.7, 0.1])),
    "MixtureSameFamily": (lambda lib: (lambda w, m, s: (lib.distributions.MixtureSameFamily(
        lib.distributions.Categorical(logits=w), lib.distributions.Normal(m, s)), [w, m, s]))(
        t64(lib, [0.3, -0.2], True), t64(lib, [-1.0, 2.0], True), t64(lib, [0.5, 1.5], True)),
        lambda lib: t64(lib, [0.7, -1.0])),
    "RelaxedBernoulli": (lambda lib: _param_leaves(lib, "RelaxedBernoulli"), lambda lib: t64(lib, [0.2, 0.9])),
    "RelaxedOneHotCategorical": (lambda lib: _param_leaves(lib, "RelaxedOneHotCategorical"),
                                 lambda lib: t64(lib, [0.2, 0.3, 0.5])),
    "VonMises": (lambda lib: (lambda a, k: (lib.distributions.VonMises(a, k), [a, k]))(
        t64(lib, [1.0], True), t64(lib, [0.5, 5.0], True)), lambda lib: t64(lib, [0.3, -2.0])),
    "Wishart": (lambda lib: (lambda v: (lib.distributions.Wishart(t64(lib, 4.0), covariance_matrix=v), [v]))(
        t64(lib, [[2.0, 0.3], [0.3, 1.0]], True)), lambda lib: t64(lib, [[1.0, 0.2], [0.2, 3.0]])),
    "LKJCholesky": (lambda lib: (lambda c: (lib.distributions.LKJCholesky(3, c), [c]))(t64(lib, 1.5, True)),
                    lambda lib: t64(lib, [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]])),
}


def _maybe(fn):
    try:
        return fn()
    except NotImplementedError:
        return "not implemented"


@pytest.mark.parametrize("name", list(SCORED))
def test_log_prob_entropy_moments_and_their_gradients_equal_pytorchs(name):
    make, value = SCORED[name]

    def program(lib):
        d, leaves = make(lib)
        out = [tuple(d.batch_shape), tuple(d.event_shape)]
        lp = d.log_prob(value(lib))
        out += [lp, _name(lp)]
        out += list(lib.autograd.grad(lp.sum(), leaves, allow_unused=True, retain_graph=True))
        for attr in ("mean", "variance", "stddev"):
            out.append(_maybe(lambda: getattr(d, attr)))
        entropy = _maybe(d.entropy)
        out.append(entropy)
        if not isinstance(entropy, str) and entropy.requires_grad:
            out += list(lib.autograd.grad(entropy.sum(), leaves, allow_unused=True))
        return out
    on_both(program)


@pytest.mark.parametrize("name", ["Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "LogNormal", "HalfNormal",
                                  "ContinuousBernoulli", "Gumbel"])
def test_cdf_and_icdf_equal_pytorchs(name):
    make, value = SCORED[name]

    def program(lib):
        d, leaves = make(lib)
        out = []
        v = value(lib)
        cdf = _maybe(lambda: d.cdf(v))
        out.append(cdf)
        if not isinstance(cdf, str):
            out += list(lib.autograd.grad(cdf.sum(), leaves, allow_unused=True))
            q = t64(lib, [0.1, 0.75, 0.4])[:cdf.shape[-1]]
            icdf = _maybe(lambda: d.icdf(q))
            out.append(icdf)
        return out
    on_both(program)


def test_normal_log_prob_and_entropy_by_hand():
    loc, scale, x = 0.5, 2.0, 1.7
    d = ag.distributions.Normal(ag.tensor(loc), ag.tensor(scale))
    expected = -((x - loc) ** 2) / (2 * scale ** 2) - math.log(scale) - 0.5 * math.log(2 * math.pi)
    assert float(d.log_prob(ag.tensor(x))) == pytest.approx(expected, rel=1e-14)
    assert float(d.entropy()) == pytest.approx(0.5 * math.log(2 * math.pi * math.e * scale ** 2), rel=1e-14)
    assert float(ag.distributions.Uniform(ag.tensor(-1.0), ag.tensor(3.0)).entropy()) == pytest.approx(math.log(4))


def test_gamma_beta_log_prob_and_entropy_against_mpmath():
    a, b, x = 2.5, 1.5, 0.8
    g = ag.distributions.Gamma(ag.tensor(a), ag.tensor(b))
    mp_logpdf = mpmath.log(b ** a * x ** (a - 1) * mpmath.exp(-b * x) / mpmath.gamma(a))
    assert float(g.log_prob(ag.tensor(x))) == pytest.approx(float(mp_logpdf), rel=1e-13)
    mp_entropy = a - mpmath.log(b) + mpmath.loggamma(a) + (1 - a) * mpmath.digamma(a)
    assert float(g.entropy()) == pytest.approx(float(mp_entropy), rel=1e-13)
    beta = ag.distributions.Beta(ag.tensor(a), ag.tensor(b))
    mp_beta = (a - 1) * mpmath.log(0.3) + (b - 1) * mpmath.log(0.7) - mpmath.log(mpmath.beta(a, b))
    assert float(beta.log_prob(ag.tensor(0.3))) == pytest.approx(float(mp_beta), rel=1e-13)


def test_pathwise_gamma_and_beta_gradients_against_mpmath():
    """dx/dalpha = -(dF/dalpha) / f for a Gamma(alpha, 1) draw x (F its CDF), and the Beta
    analogue behind Dirichlet's gradient; PyTorch's approximations are accurate to ~1e-5."""
    for alpha, x in ((0.5, 0.3), (2.0, 2.5), (5.0, 3.0), (12.0, 11.0), (1.5, 4.0)):
        cdf = lambda a: mpmath.gammainc(a, 0, x, regularized=True)  # noqa: E731
        pdf = x ** (alpha - 1) * math.exp(-x) / math.gamma(alpha)
        exact = -float(mpmath.diff(cdf, alpha)) / pdf
        assert float(standard_gamma_grad(alpha, x)) == pytest.approx(exact, rel=2e-4)
    for x, alpha, total in ((0.3, 2.0, 5.0), (0.05, 0.5, 1.0), (0.9, 3.0, 3.5), (0.5, 10.0, 20.0)):
        beta = total - alpha
        cdf = lambda a: mpmath.betainc(a, beta, 0, x, regularized=True)  # noqa: E731
        pdf = x ** (alpha - 1) * (1 - x) ** (beta - 1) / float(mpmath.beta(alpha, beta))
        exact = -float(mpmath.diff(cdf, alpha)) / pdf / (1 - x)
        assert float(dirichlet_grad(x, alpha, total)) == pytest.approx(exact, rel=2e-3)


def test_lgamma_digamma_polygamma_nodes_and_values():
    from diffcompare.autograd import digamma, erfinv, lgamma, polygamma
    for y in (-0.999999, -0.3, 1e-8, 0.5, 0.99, 0.9999999999):
        assert float(erfinv(ag.tensor(y))) == pytest.approx(float(mpmath.erfinv(y)), rel=1e-13)
    assert erfinv(ag.tensor([1.0, -1.0])).tolist() == [math.inf, -math.inf]
    values = [0.2, 1.0, 2.5, 11.0, -1.5]
    for v in values:
        assert float(lgamma(ag.tensor(v))) == pytest.approx(float(mpmath.log(abs(mpmath.gamma(v)))), rel=1e-14)
        assert float(digamma(ag.tensor(v))) == pytest.approx(float(mpmath.digamma(v)), rel=1e-13)
        assert float(polygamma(1, ag.tensor(v))) == pytest.approx(float(mpmath.polygamma(1, v)), rel=1e-9)

    def program(lib, lgamma, digamma):
        x = t64(lib, values, True)
        y = lgamma(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return [y, _name(y), g, _name(g), h, _name(digamma(x))]
    assert_same(program(ag, lgamma, digamma), program(torch, torch.lgamma, torch.digamma))


# ---------------------------------------------------------------------------------------------
# shapes, expand, Independent, TransformedDistribution, constraints
# ---------------------------------------------------------------------------------------------

def test_shapes_expand_and_independent():
    def program(lib):
        D = lib.distributions
        n = D.Normal(lib.zeros(3, 2, dtype=lib.float64), lib.ones(2, dtype=lib.float64))
        e = n.expand((4, 3, 2))
        ind = D.Independent(n, 1)
        mvn = D.MultivariateNormal(lib.zeros(2, dtype=lib.float64), scale_tril=lib.eye(2, dtype=lib.float64))
        mvn_e = mvn.expand((5,))
        cat = D.Categorical(logits=lib.zeros(3, 4, dtype=lib.float64)).expand((2, 3))
        out = []
        for d in (n, e, ind, mvn, mvn_e, cat, D.Independent(e, 2)):
            out += [list(d.batch_shape), list(d.event_shape), list(d.sample((2,)).shape)]
        out += [ind.log_prob(lib.zeros(3, 2, dtype=lib.float64)), mvn_e.log_prob(lib.zeros(5, 2, dtype=lib.float64)),
                cat.enumerate_support().shape == (4, 2, 3), repr(D.constraints.interval(0.0, 1.0)),
                repr(D.constraints.positive), repr(D.constraints.real_vector), repr(ind.support),
                bool(D.constraints.simplex.check(lib.tensor([0.2, 0.8], dtype=lib.float64))),
                D.Bernoulli(probs=lib.tensor([0.3, 0.5], dtype=lib.float64)).enumerate_support().tolist()]
        return out
    on_both(program)


def test_transformed_distribution_with_affine_exp_sigmoid(torch_draws):
    def program(lib):
        D, T = lib.distributions, lib.distributions.transforms
        loc, scale = t64(lib, [0.2, -0.4], True), t64(lib, [0.7, 1.3], True)
        base = D.Normal(loc, scale)
        d = D.TransformedDistribution(base, [T.AffineTransform(loc=1.0, scale=2.0), T.SigmoidTransform()])
        d2 = D.TransformedDistribution(base, T.ExpTransform())
        x = d.rsample((3,))
        value = t64(lib, [0.3, 0.8])
        lp, lp2 = d.log_prob(value), d2.log_prob(t64(lib, [0.5, 2.0]))
        grads = lib.autograd.grad((x.sum() + lp.sum() + lp2.sum()), [loc, scale])
        compose = T.ComposeTransform([T.AffineTransform(0.0, 3.0), T.ExpTransform()])
        y = compose(t64(lib, [0.1, 0.2]))
        return [x, lp, lp2, *grads, list(d.batch_shape), list(d.event_shape), compose.inv(y),
                compose.log_abs_det_jacobian(t64(lib, [0.1, 0.2]), y), d.cdf(value),
                T.ExpTransform() == T.ExpTransform(), T.StickBreakingTransform()(t64(lib, [0.1, -0.3])),
                T.TanhTransform().log_abs_det_jacobian(t64(lib, 0.3), t64(lib, 0.3).tanh())]
    on_both(program)


# ---------------------------------------------------------------------------------------------
# KL divergences
# ---------------------------------------------------------------------------------------------

KL_PAIRS = {
    "Normal": lambda lib, a, b: (lib.distributions.Normal(a, b), lib.distributions.Normal(b - 1.0, a.exp())),
    "Bernoulli": lambda lib, a, b: (lib.distributions.Bernoulli(logits=a), lib.distributions.Bernoulli(probs=b / 3)),
    "Categorical": lambda lib, a, b: (lib.distributions.Categorical(logits=a), lib.distributions.Categorical(probs=b)),
    "OneHotCategorical": lambda lib, a, b: (lib.distributions.OneHotCategorical(logits=a),
                                            lib.distributions.OneHotCategorical(probs=b)),
    "Uniform": lambda lib, a, b: (lib.distributions.Uniform(a, a + 1.0), lib.distributions.Uniform(a - b, a + 3.0)),
    "MultivariateNormal": lambda lib, a, b: (
        lib.distributions.MultivariateNormal(a, scale_tril=lib.diag_embed(b)),
        lib.distributions.MultivariateNormal(b, covariance_matrix=lib.eye(2, dtype=lib.float64) * 2 + 0.5)),
    "Gamma": lambda lib, a, b: (lib.distributions.Gamma(a.exp(), b), lib.distributions.Gamma(b, a.exp())),
    "Beta": lambda lib, a, b: (lib.distributions.Beta(a.exp(), b), lib.distributions.Beta(b, a.exp())),
    "Dirichlet": lambda lib, a, b: (lib.distributions.Dirichlet(a.exp()), lib.distributions.Dirichlet(b)),
    "Exponential": lambda lib, a, b: (lib.distributions.Exponential(b), lib.distributions.Exponential(a.exp())),
    "Laplace": lambda lib, a, b: (lib.distributions.Laplace(a, b), lib.distributions.Laplace(b, a.exp())),
    "Poisson": lambda lib, a, b: (lib.distributions.Poisson(b), lib.distributions.Poisson(a.exp())),
    "Independent Normal": lambda lib, a, b: (lib.distributions.Independent(lib.distributions.Normal(a, b), 1),
                                             lib.distributions.Independent(lib.distributions.Normal(b, b), 1)),
    "LogNormal": lambda lib, a, b: (lib.distributions.LogNormal(a, b), lib.distributions.LogNormal(b, b)),
    "Uniform-Normal": lambda lib, a, b: (lib.distributions.Uniform(a, a + b), lib.distributions.Normal(b, b)),
}


@pytest.mark.parametrize("name", list(KL_PAIRS))
def test_kl_divergence_and_its_gradients_equal_pytorchs(name):
    def program(lib):
        a, b = t64(lib, [0.3, -0.6], True), t64(lib, [0.8, 1.7], True)
        p, q = KL_PAIRS[name](lib, a, b)
        kl = lib.distributions.kl_divergence(p, q)
        return [kl, _name(kl), *lib.autograd.grad(kl.sum(), [a, b], allow_unused=True)]
    on_both(program)


def test_kl_normal_normal_by_hand_register_kl_and_a_missing_pair():
    D = ag.distributions
    kl = D.kl_divergence(D.Normal(ag.tensor(1.0), ag.tensor(2.0)), D.Normal(ag.tensor(-1.0), ag.tensor(0.5)))
    assert float(kl) == pytest.approx(math.log(0.5 / 2.0) + (4.0 + 4.0) / (2 * 0.25) - 0.5, rel=1e-14)

    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return ag.tensor(42.0)

    assert float(D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0))) == 42.0
    assert float(D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 1.0))) == 0.0
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Beta and q type "
                                                  "Normal"):
        D.kl_divergence(D.Beta(1.0, 2.0), D.Normal(0.0, 1.0))


# ---------------------------------------------------------------------------------------------
# errors: PyTorch's types and texts
# ---------------------------------------------------------------------------------------------

ERRORS = [
    lambda lib: lib.distributions.Normal(lib.tensor([0.0]), lib.tensor([-1.0])),
    lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.5]), logits=lib.tensor([0.0])),
    lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([1.5])),
    lambda lib: lib.distributions.Categorical(lib.tensor(0.5)),
    lambda lib: lib.distributions.Categorical(logits=lib.zeros(3)).log_prob(lib.tensor([3])),
    lambda lib: lib.distributions.Normal(lib.zeros(3), lib.ones(3)).log_prob(lib.zeros(2)),
    lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(0.5),
    lambda lib: lib.distributions.Uniform(lib.tensor([1.0]), lib.tensor([0.0])),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2), scale_tril=lib.eye(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(2)),
    lambda lib: lib.distributions.Exponential(lib.tensor([1.0])).log_prob(lib.tensor([-1.0])),
    lambda lib: lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2), lib.ones(2)), 2),
    lambda lib: lib.distributions.Poisson(lib.tensor([4])).sample(),
    lambda lib: lib.distributions.Gamma(lib.tensor([1.0]), lib.tensor([0.0])),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_have_pytorchs_types_and_messages(index):
    def error(lib):
        with pytest.raises(Exception) as info:
            ERRORS[index](lib)
        return type(info.value), str(info.value)
    mine, theirs = error(ag), error(torch)
    assert mine[0] is theirs[0]
    assert mine[1] == theirs[1]


def test_default_validation_can_be_turned_off():
    D = ag.distributions
    D.Distribution.set_default_validate_args(False)
    try:
        d = D.Normal(ag.tensor([0.0]), ag.tensor([-1.0]))
        assert np.isnan(float(d.log_prob(ag.tensor([0.0]))))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(ag.tensor([0.0]), ag.tensor([-1.0]))


# ---------------------------------------------------------------------------------------------
# programs as real code writes them
# ---------------------------------------------------------------------------------------------

def _weights(lib, rows, cols, seed):
    values = np.random.default_rng(seed).normal(size=(rows, cols)) / np.sqrt(cols)
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def test_vae_reparameterization_and_kl_term(torch_draws):
    """Encoder -> (mu, logvar) -> q = Normal(mu, exp(logvar / 2)); z = q.rsample(); decoder ->
    Bernoulli log-likelihood; ELBO with kl_divergence(q, Normal(0, 1)); gradients of every weight."""
    def program(lib):
        D = lib.distributions
        x = lib.tensor(np.random.default_rng(3).random((5, 6)) > 0.5, dtype=lib.float64)
        W_enc, W_mu, W_lv, W_dec = (_weights(lib, 8, 6, 0), _weights(lib, 2, 8, 1), _weights(lib, 2, 8, 2),
                                    _weights(lib, 6, 2, 4))
        h = lib.tanh(x @ W_enc.T)
        mu, logvar = h @ W_mu.T, h @ W_lv.T
        q = D.Normal(mu, lib.exp(0.5 * logvar))
        z = q.rsample()
        logits = z @ W_dec.T
        recon = D.Bernoulli(logits=logits).log_prob(x).sum(-1)
        prior = D.Normal(lib.zeros_like(mu), lib.ones_like(mu))
        kl = D.kl_divergence(q, prior).sum(-1)
        loss = -(recon - kl).mean()
        loss.backward()
        return [z, loss, _name(loss), W_enc.grad, W_mu.grad, W_lv.grad, W_dec.grad]
    on_both(program)


def test_reinforce_with_categorical_log_prob(torch_draws):
    """A policy network's Categorical(logits=...): actions sampled, -log_prob(action) * return,
    an entropy bonus; the policy gradient of the weights."""
    def program(lib):
        D = lib.distributions
        states = lib.tensor(np.random.default_rng(5).normal(size=(6, 4)), dtype=lib.float64)
        W1, W2 = _weights(lib, 16, 4, 6), _weights(lib, 3, 16, 7)
        logits = lib.relu(states @ W1.T) @ W2.T
        policy = D.Categorical(logits=logits)
        actions = policy.sample()
        returns = lib.tensor([1.0, 0.5, -0.2, 2.0, 0.0, 1.5], dtype=lib.float64)
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
        loss = (-policy.log_prob(actions) * returns).sum() - 0.01 * policy.entropy().mean()
        loss.backward()
        return [actions, policy.log_prob(actions), loss, W1.grad, W2.grad]
    on_both(program)


def test_gaussian_nll_with_multivariate_normal():
    """A network predicting a mean and a Cholesky factor (softplus diagonal); the mean negative
    log-likelihood of targets under MultivariateNormal(mean, scale_tril=L)."""
    def program(lib):
        D = lib.distributions
        inputs = lib.tensor(np.random.default_rng(8).normal(size=(7, 3)), dtype=lib.float64)
        targets = lib.tensor(np.random.default_rng(9).normal(size=(7, 2)), dtype=lib.float64)
        W_mean, W_chol = _weights(lib, 2, 3, 10), _weights(lib, 3, 3, 11)
        mean = inputs @ W_mean.T
        raw = inputs @ W_chol.T
        diag = lib.nn.functional.softplus(raw[:, :2]) + 1e-3
        L = lib.diag_embed(diag)
        L = L + lib.stack([lib.zeros_like(raw[:, 2]), raw[:, 2]], -1).unsqueeze(-1) * lib.tensor(
            [1.0, 0.0], dtype=lib.float64)
        mvn = D.MultivariateNormal(mean, scale_tril=L)
        nll = -mvn.log_prob(targets).mean()
        nll.backward()
        return [nll, mvn.entropy(), mvn.covariance_matrix, W_mean.grad, W_chol.grad]
    on_both(program)


def test_multivariate_normal_log_prob_by_hand():
    cov = np.array([[2.0, 0.3], [0.3, 0.5]])
    mean, x = np.array([0.5, -1.0]), np.array([1.0, 0.2])
    d = ag.distributions.MultivariateNormal(ag.tensor(mean), covariance_matrix=ag.tensor(cov))
    diff = x - mean
    expected = -0.5 * (diff @ np.linalg.inv(cov) @ diff + math.log(np.linalg.det(cov)) + 2 * math.log(2 * math.pi))
    assert float(d.log_prob(ag.tensor(x))) == pytest.approx(expected, rel=1e-13)
    np.testing.assert_allclose(tensor_array(d.precision_matrix), np.linalg.inv(cov), rtol=1e-13)


def test_engine_samplers_draw_from_the_right_distribution():
    """Without PyTorch's values: the engine's own draws (NumPy's gamma, Poisson, binomial,
    Dirichlet, and the Cauchy/geometric transforms of uniforms) have the right means."""
    ag.manual_seed(0)
    D = ag.distributions
    n = 20000
    assert float(D.Gamma(ag.tensor(3.0), ag.tensor(2.0)).sample((n,)).mean()) == pytest.approx(1.5, rel=0.03)
    assert float(D.Beta(ag.tensor(2.0), ag.tensor(6.0)).sample((n,)).mean()) == pytest.approx(0.25, rel=0.03)
    assert float(D.Poisson(ag.tensor(4.0)).sample((n,)).mean()) == pytest.approx(4.0, rel=0.03)
    assert float(D.Binomial(10, ag.tensor(0.3)).sample((n,)).mean()) == pytest.approx(3.0, rel=0.03)
    assert float(D.Geometric(ag.tensor(0.25)).sample((n,)).mean()) == pytest.approx(3.0, rel=0.05)
    assert float(ag.empty(n).geometric_(0.25).mean()) == pytest.approx(4.0, rel=0.05)
    assert float(ag.empty(n).cauchy_().median()) == pytest.approx(0.0, abs=0.05)
    assert float(ag.empty(n).log_normal_(0.0, 0.5).log().mean()) == pytest.approx(0.0, abs=0.02)


def test_negative_binomial_and_constraint_registry_transforms(torch_draws):
    def program(lib):
        D = lib.distributions
        total, logits = t64(lib, [3.0, 5.5], True), t64(lib, [-0.3, 0.8], True)
        nb = D.NegativeBinomial(total, logits=logits)
        lp = nb.log_prob(t64(lib, [0.0, 4.0]))
        out = [nb.sample((3,)), lp, nb.mean, nb.variance, *lib.autograd.grad(lp.sum(), [total, logits])]
        x = t64(lib, [0.3, -1.2, 0.7], True)
        for constraint in (D.constraints.positive, D.constraints.interval(-1.0, 2.0), D.constraints.simplex,
                           D.constraints.greater_than(1.5), D.constraints.unit_interval, D.constraints.real_vector,
                           D.constraints.corr_cholesky):
            for registry in (D.biject_to, D.transform_to):
                t = registry(constraint)
                y = t(x)
                out += [y, t.inv(y), t.log_abs_det_jacobian(x, y) if t.bijective else None,
                        list(t.forward_shape((3,))), bool(constraint.check(y).all())]
        m = lib.tensor(np.random.default_rng(2).normal(size=(3, 3)), dtype=lib.float64)
        pd = D.transform_to(D.constraints.positive_definite)
        out += [pd(m), pd.inv(pd(m)), D.transform_to(D.constraints.lower_cholesky)(m)]
        T = D.transforms
        cat = T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=0, lengths=[1, 2])
        stack = T.StackTransform([T.ExpTransform(), T.SigmoidTransform(), T.identity_transform], dim=0)
        cdf = T.CumulativeDistributionTransform(D.Normal(t64(lib, 0.0), t64(lib, 2.0)))
        for t in (cat, stack, cdf):
            y = t(x)
            out += [y, t.inv(y), t.log_abs_det_jacobian(x, y)]
        out += list(lib.autograd.grad(sum(o.sum() for o in out if isinstance(o, lib.Tensor) and o.requires_grad), x))
        return out
    on_both(program)

"""Random draws that depend on tensors: ``torch.bernoulli`` and ``Tensor.bernoulli_``,
``torch.normal`` in its four forms, ``torch.multinomial``, ``Tensor.exponential_``, and the draws
of torch.distributions' samplers: ``Tensor.cauchy_``, ``geometric_``, ``log_normal_``,
``torch.poisson``, ``torch.binomial``, ``torch._standard_gamma`` (differentiable in its
concentration by the pathwise derivative, StandardGammaBackward0), ``torch._sample_dirichlet``. A draw does
not depend differentiably on its parameters in PyTorch: every node here passes a zero gradient
(``BernoulliBackward0``, ``NormalBackward1``, ...), named as PyTorch names it.

>>> from diffcompare import autograd as ag
>>> p = ag.tensor([0.0, 1.0], requires_grad=True)
>>> y = ag.bernoulli(p)
>>> y, y.grad_fn.name()
(tensor([0., 1.], grad_fn=<BernoulliBackward0>), 'BernoulliBackward0')
>>> ag.zeros(3).bernoulli_(1.0)
tensor([1., 1., 1.])
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..generators import rng_of
from ..dtypes import default_dtype
from ..tensor import Tensor, generator as global_generator
from .dual import D
from .inplace import write_in_place
from .recording import Op, apply


def _rng(generator):
    return rng_of(generator, global_generator())


class _Sampled(Op):
    """A draw: its value is given, every input's gradient is zero."""

    @staticmethod
    def forward(*args, values, n_inputs):
        return values

    def backward(self, g):
        return tuple(D.zeros_like(g) if self.needs(i) else None for i in range(self.n_inputs))

    @staticmethod
    def tangent(node, tangents, arrays, out):
        return np.zeros(np.shape(out), dtype=np.result_type(out))


def _sampled_op(name):
    return type(name, (_Sampled,), {"__doc__": _Sampled.__doc__})


BernoulliBackward0 = _sampled_op("BernoulliBackward0")    # torch.bernoulli(p)
BernoulliBackward1 = _sampled_op("BernoulliBackward1")    # t.bernoulli_(p_tensor)
BernoulliBackward2 = _sampled_op("BernoulliBackward2")    # t.bernoulli_(p_float)
NormalBackward1 = _sampled_op("NormalBackward1")          # normal(mean_tensor, std_float)
NormalBackward2 = _sampled_op("NormalBackward2")          # normal(mean_float, std_tensor)
NormalBackward3 = _sampled_op("NormalBackward3")          # normal(mean_tensor, std_tensor)
ExponentialBackward0 = _sampled_op("ExponentialBackward0")


def _record(cls, inputs, values):
    tensors = tuple(t for t in inputs if isinstance(t, Tensor))
    return apply(cls, tensors, {"values": values, "n_inputs": len(tensors)})


def _check_probabilities(p):
    if np.any((p < 0) | (p > 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")


def bernoulli(input, p=None, *, generator=None, out=None):
    """``torch.bernoulli(input)``: 1 with probability ``input`` (elementwise), else 0, with
    ``input``'s dtype (BernoulliBackward0)."""
    if p is not None:
        return empty_like_of(input).bernoulli_(p, generator=generator)
    probs = input._data
    if probs.dtype.kind not in "f":
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{probs.dtype.name}'")
    _check_probabilities(probs)
    values = (_rng(generator).random(probs.shape) < probs).astype(probs.dtype)
    return _record(BernoulliBackward0, (input,), values)


def empty_like_of(t):
    return Tensor._make(np.zeros(t.shape, dtype=t.dtype))


def bernoulli_(t, p=0.5, *, generator=None):
    """``t.bernoulli_(p)``: ``t`` filled with 1 with probability ``p`` (a number or a tensor
    broadcast to ``t``), else 0 (BernoulliBackward2 / BernoulliBackward1)."""
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._data, t.shape)
        _check_probabilities(probs)
        op = BernoulliBackward1
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        probs, op = p, BernoulliBackward2
    values = (_rng(generator).random(t.shape) < probs).astype(t.dtype)
    return write_in_place(t, lambda old: apply(op, (old,), {"values": values, "n_inputs": 1}))


def exponential_(t, lambd=1.0, *, generator=None):
    """``t.exponential_(lambd)``: ``t`` filled with draws from Exp(lambd) (ExponentialBackward0)."""
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    values = (-np.log1p(-_rng(generator).random(t.shape)) / lambd).astype(t.dtype)
    return write_in_place(t, lambda old: apply(ExponentialBackward0, (old,), {"values": values, "n_inputs": 1}))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """``torch.normal``: ``normal(mean, std)`` with either or both tensors (their broadcast
    shape; NormalBackward1/2/3), or ``normal(mean, std, size)`` with numbers."""
    tensors = [isinstance(mean, Tensor), isinstance(std, Tensor)]
    if not any(tensors):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), but "
                            "expected (float mean, float std, tuple of ints size)")
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        shape = (int(size),) if isinstance(size, numbers.Integral) else tuple(int(s) for s in size)
        values = _rng(generator).normal(mean, std, size=shape).astype(np.dtype(dtype) if dtype else default_dtype())
        result = Tensor._make(values)
        if requires_grad:
            result.requires_grad = True
        return result
    m = mean._data if tensors[0] else mean
    s = std._data if tensors[1] else std
    if np.any(np.asarray(s) < 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    dtype_ = np.result_type(*(a.dtype for a in (m, s) if isinstance(a, np.ndarray)))
    shape = np.broadcast_shapes(np.shape(m), np.shape(s))
    values = (m + s * _rng(generator).standard_normal(shape)).astype(dtype_)
    op = NormalBackward3 if all(tensors) else NormalBackward1 if tensors[0] else NormalBackward2
    return _record(op, (mean, std), values)


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """``torch.multinomial``: ``num_samples`` category indices per row of the (unnormalised)
    probabilities ``input`` (1-d or 2-d), int64; without replacement, each index at most once."""
    probs = np.asarray(input._data, dtype=np.float64)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if np.any(probs < 0) or not np.all(np.isfinite(probs)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = probs.reshape(-1, probs.shape[-1])
    if np.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = _rng(generator)
    drawn = np.stack([rng.choice(len(r), size=num_samples, replace=replacement, p=r / r.sum()) for r in rows])
    return Tensor._make(drawn.reshape(probs.shape[:-1] + (num_samples,)).astype(np.int64))


# -- the draws of torch.distributions' samplers ------------------------------------------------

CauchyBackward0 = _sampled_op("CauchyBackward0")
GeometricBackward0 = _sampled_op("GeometricBackward0")
LogNormalBackward0 = _sampled_op("LogNormalBackward0")
PoissonBackward0 = _sampled_op("PoissonBackward0")


def _numpy_rng(rng):
    """A NumPy Generator for the draws only NumPy's has (gamma, Poisson, binomial): ``rng``
    itself, or one seeded from a draw of ``rng`` when it is another kind of generator."""
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(int(rng.integers(0, 2**62)))


def cauchy_(t, median=0.0, sigma=1.0, *, generator=None):
    """``t.cauchy_(median, sigma)``: ``t`` filled with Cauchy draws (CauchyBackward0)."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    u = _rng(generator).random(t.shape)
    values = (median + sigma * np.tan(np.pi * (u - 0.5))).astype(t.dtype)
    return write_in_place(t, lambda old: apply(CauchyBackward0, (old,), {"values": values, "n_inputs": 1}))


def geometric_(t, p, *, generator=None):
    """``t.geometric_(p)``: ``t`` filled with the number of Bernoulli(p) trials up to the first
    success (1, 2, ...; GeometricBackward0)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = _rng(generator).random(t.shape)
    values = np.ceil(np.log1p(-u) / np.log1p(-p)).clip(min=1).astype(t.dtype)
    return write_in_place(t, lambda old: apply(GeometricBackward0, (old,), {"values": values, "n_inputs": 1}))


def log_normal_(t, mean=1.0, std=2.0, *, generator=None):
    """``t.log_normal_(mean, std)``: ``t`` filled with exp of Normal(mean, std) draws (LogNormalBackward0)."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    values = np.exp(_rng(generator).normal(mean, std, size=t.shape)).astype(t.dtype)
    return write_in_place(t, lambda old: apply(LogNormalBackward0, (old,), {"values": values, "n_inputs": 1}))


def _check_float(name, kernel, a):
    if a.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_TYPE_NAMES.get(a.dtype.name, a.dtype.name)}'")


_TYPE_NAMES = {"int64": "Long", "int32": "Int", "bool": "Bool", "uint8": "Byte", "int16": "Short", "int8": "Char"}


def poisson(input, generator=None):
    """``torch.poisson(rates)``: a Poisson draw per element, with the rates' dtype
    (PoissonBackward0: a zero gradient)."""
    rates = input._data
    _check_float("poisson", "poisson_cpu", rates)
    if np.any(rates < 0) or np.any(np.isnan(rates)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    values = _numpy_rng(_rng(generator)).poisson(rates).astype(rates.dtype)
    return _record(PoissonBackward0, (input,), values)


def binomial(count, prob, generator=None):
    """``torch.binomial(count, prob)``: a Binomial(count, prob) draw per element (not differentiable)."""
    n, p = np.broadcast_arrays(count._data, prob._data)
    _check_float("binomial", "binomial_cpu", p)
    values = _numpy_rng(_rng(generator)).binomial(n.astype(np.int64), p).astype(p.dtype)
    return Tensor._make(values)


_PSI_10 = 2.25175258906672110764
_A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3, -4.16666666666666666667E-3,
      3.96825396825396825397E-3, -8.33333333333333333333E-3, 8.33333333333333333333E-2)


def digamma_array(x):
    """digamma(x) elementwise as PyTorch's ``calc_digamma`` computes it: reflection below 0,
    the recurrence up to 10, then the asymptotic series."""
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.float64
    v = np.array(x, dtype=np.float64, copy=True, ndmin=1).ravel()
    out = np.empty_like(v)
    with np.errstate(all="ignore"):
        neg = v < 0
        reflection = np.zeros_like(v)
        if neg.any():
            r = np.modf(v[neg])[0]
            reflection[neg] = -math.pi / np.tan(math.pi * r)
            v = np.where(neg, 1 - v, v)
        result = np.zeros_like(v)
        for _ in range(10):
            small = v < 10
            if not small.any():
                break
            result = np.where(small, result - 1 / v, result)
            v = np.where(small, v + 1, v)
        z = 1.0 / (v * v)
        poly = np.zeros_like(v)
        for a in _A:
            poly = poly * z + a
        y = np.where(v < 1.0e17, z * poly, 0.0)
        out = np.where(v == 10, result + _PSI_10, result + np.log(v) - 0.5 / v - y) + reflection
        original = np.asarray(x, dtype=np.float64).ravel()
        out = np.where(original == 0, np.copysign(np.inf, -original), out)
        out = np.where((original < 0) & (original == np.trunc(original)), np.nan, out)
    return out.reshape(np.shape(x)).astype(dtype)


# Coefficients of PyTorch's bivariate rational approximation of the reparameterized gradient
# of a standard Gamma draw (ATen's standard_gamma_grad_one), for 0.8 <= x and alpha <= 8.
_GAMMA_GRAD_UV = np.array([
    [0.16009398, -0.094634809, 0.025146376, -0.0030648343, 1, 0.32668115, 0.10406089, 0.0014179084],
    [0.53487893, 0.1298071, 0.065735949, -0.0015649758, 0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
    [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777, 0.017050642, -0.0021309326, 0.00085092367,
     -1.5247877e-07]])


def standard_gamma_grad(alpha, x):
    """d x / d alpha for a draw ``x`` of Gamma(alpha, 1), i.e. -(dF/dalpha)(x) / f(x), computed
    as PyTorch computes it: a series for x < 0.8, a saddle-point expansion for alpha > 8, else
    a rational approximation in log(x/alpha) and log(alpha)."""
    alpha, x = np.broadcast_arrays(np.asarray(alpha, dtype=np.float64), np.asarray(x, dtype=np.float64))
    out = np.zeros(alpha.shape)
    with np.errstate(all="ignore"):
        # a Taylor series for small x
        numer, denom = np.ones_like(alpha), alpha.copy()
        series1, series2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer = numer * (-x / i)
            denom = denom + 1
            series1 = series1 + numer / denom
            series2 = series2 + numer / (denom * denom)
        pow_x_alpha = np.power(x, alpha)
        pdf = np.power(x, alpha - 1) * np.exp(-x)
        cdf_alpha = (np.log(x) - digamma_array(alpha)) * (pow_x_alpha * series1) - pow_x_alpha * series2
        small = -cdf_alpha / pdf
        small = np.where(np.isnan(small), 0.0, small)
        # Rice's saddle-point expansion for large alpha
        near = (0.9 * alpha <= x) & (x <= 1.1 * alpha)
        n1 = 1 + 24 * alpha * (1 + 12 * alpha)
        n2 = 1440 * alpha * alpha + 6 * x * (53 - 120 * x) - 65 * x * x / alpha + alpha * (107 + 3600 * x)
        at_mean = n1 * n2 / (1244160 * (alpha * alpha) * (alpha * alpha))
        d = np.sqrt(8 * alpha)
        term2 = d / (alpha - x)
        term3 = np.power(x - alpha - alpha * np.log(x / alpha), -1.5)
        term23 = np.where(x < alpha, term2 - term3, term2 + term3)
        term1 = np.log(x / alpha) * term23 - np.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        large = np.where(near, at_mean, -stirling * (x * term1) / d)
        # the rational approximation
        u, v = np.log(x / alpha), np.log(alpha)
        c = [_GAMMA_GRAD_UV[0, i] + u * (_GAMMA_GRAD_UV[1, i] + u * _GAMMA_GRAD_UV[2, i]) for i in range(8)]
        p = c[0] + v * (c[1] + v * (c[2] + v * c[3]))
        q = c[4] + v * (c[5] + v * (c[6] + v * c[7]))
        rational = np.exp(p / q)
        out = np.where(x < 0.8, small, np.where(alpha > 8.0, large, rational))
    return out


class StandardGammaBackward0(Op):
    """A standard Gamma draw; VJP grad * standard_gamma_grad(alpha, result) (pathwise)."""
    saves = (0,)

    @staticmethod
    def forward(alpha, values):
        return values

    def backward(self, g, alpha):
        grad = standard_gamma_grad(_array(alpha), self.values)
        return (g * grad.astype(np.result_type(self.values)),)


def _array(a):
    return a._data if isinstance(a, Tensor) else a


def standard_gamma(input, generator=None):
    """``torch._standard_gamma(alpha)``: a Gamma(alpha, 1) draw per element, differentiable in
    alpha by its pathwise derivative (StandardGammaBackward0)."""
    alpha = input._data
    _check_float("_standard_gamma", "gamma_cpu", alpha)
    values = _numpy_rng(_rng(generator)).standard_gamma(alpha).astype(alpha.dtype)
    return apply(StandardGammaBackward0, (input,), {"values": values})


def sample_dirichlet(input, generator=None):
    """``torch._sample_dirichlet(alpha)``: a Dirichlet(alpha) draw along the last dimension
    (normalised standard Gamma draws; not differentiable)."""
    alpha = input._data
    _check_float("_sample_dirichlet", "dirichlet", alpha)
    gammas = _numpy_rng(_rng(generator)).standard_gamma(alpha)
    total = gammas.sum(-1, keepdims=True)
    values = np.where(total > 0, gammas / np.where(total > 0, total, 1), 0.0).astype(alpha.dtype)
    return Tensor._make(values)


PUBLIC = ('bernoulli', 'multinomial', 'normal', 'poisson', 'binomial')
# (standard_gamma and sample_dirichlet are torch._standard_gamma and torch._sample_dirichlet: the package
# imports them under those names)
# what the family exports to `ops`
__all__ = ['BernoulliBackward0', 'BernoulliBackward1', 'BernoulliBackward2', 'ExponentialBackward0', 'NormalBackward1',
           'NormalBackward2', 'NormalBackward3', 'bernoulli', 'bernoulli_', 'exponential_', 'multinomial', 'normal',
           'CauchyBackward0', 'GeometricBackward0', 'LogNormalBackward0', 'PoissonBackward0', 'StandardGammaBackward0',
           'cauchy_', 'geometric_', 'log_normal_', 'poisson', 'binomial']


# Coefficients of PyTorch's rational correction for the reparameterized gradient of a Beta
# draw (ATen's dirichlet_grad_one), indexed [numerator/denominator][power of u][power of a][power of b].
_BETA_GRAD_C = np.array([
    [[[1.003668233, -0.01061107488, -0.0657888334, 0.01201642863],
      [0.6336835991, -0.3557432599, 0.05486251648, -0.001465281033],
      [-0.03276231906, 0.004474107445, 0.002429354597, -0.0001557569013]],
     [[0.221950385, -0.3187676331, 0.01799915743, 0.01074823814],
      [-0.2951249643, 0.06219954479, 0.01535556598, 0.001550077057],
      [0.02155310298, 0.004170831599, 0.001292462449, 6.976601077e-05]],
     [[-0.05980841433, 0.008441916499, 0.01085618172, 0.002319392565],
      [0.02911413504, 0.01400243777, -0.002721828457, 0.000751041181],
      [0.005900514878, -0.001936558688, -9.495446725e-06, 5.385558597e-05]]],
    [[[1, -0.02924021934, -0.04438342661, 0.007285809825],
      [0.6357567472, -0.3473456711, 0.05454656494, -0.002407477521],
      [-0.03301322327, 0.004845219414, 0.00231480583, -0.0002307248149]],
     [[0.5925320577, -0.1757678135, 0.01505928619, 0.000564515273],
      [0.1014815858, -0.06589186703, 0.01272886114, -0.0007316646956],
      [-0.007258481865, 0.001096195486, 0.0003934994223, -4.12701925e-05]],
     [[0.06469649321, -0.0236701437, 0.002902096474, -5.896963079e-05],
      [0.001925008108, -0.002869809258, 0.0008000589141, -6.063713228e-05],
      [-0.0003477407336, 6.959756487e-05, 1.097287507e-05, -1.650964693e-06]]]])


def _beta_grad_alpha_small(x, alpha, beta, psi):
    """d x / d alpha of a Beta(alpha, beta) draw x near 0: a Taylor series."""
    factor = psi(alpha) - psi(alpha + beta) - math.log(x)
    numer = 1.0
    series = numer / alpha * (factor + 1 / alpha)
    for i in range(1, 11):
        numer *= (i - beta) * x / i
        denom = alpha + i
        series += numer / denom * (factor + 1 / denom)
    result = x * math.pow(1 - x, -beta) * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_beta_small(x, alpha, beta, psi):
    """d x / d beta of a Beta(alpha, beta) draw x near 0: a Taylor series."""
    factor = psi(alpha + beta) - psi(beta)
    numer, betas, dbetas, series = 1.0, 1.0, 0.0, factor / alpha
    for i in range(1, 9):
        numer *= -x / i
        dbetas = dbetas * (beta - i) + betas
        betas = betas * (beta - i)
        series += numer / (alpha + i) * (dbetas + factor * betas)
    result = -math.pow(1 - x, 1 - beta) * series
    return 0.0 if math.isnan(result) else result


def _beta_grad_alpha_mid(x, alpha, beta):
    """d x / d alpha of a Beta(alpha, beta) draw for large alpha and beta: Rice's saddle point."""
    total = alpha + beta
    mean = alpha / total
    std = math.sqrt(alpha * beta / (total + 1)) / total
    if mean - 0.1 * std <= x <= mean + 0.1 * std:
        poly = 47 * x * (beta * beta) * (beta * beta) + alpha * (
            (43 + 20 * (16 + 27 * beta) * x) * (beta * beta) * beta + alpha * (
                3 * (59 + 180 * beta - 90 * x) * (beta * beta) + alpha * (
                    (453 + 1620 * beta * (1 - x) - 455 * x) * beta + alpha * (8 * (1 - x) * (135 * beta - 11)))))
        prefactor_num = (1 + 12 * alpha) * (1 + 12 * beta) / (total * total)
        prefactor_den = 12960 * alpha * alpha * alpha * beta * beta * (1 + 12 * total)
        return prefactor_num / (1 - x) * poly / prefactor_den
    prefactor = -x / math.sqrt(2 * alpha * beta / total)
    stirling = ((1 + 1 / (12 * alpha) + 1 / (288 * alpha * alpha)) * (1 + 1 / (12 * beta) + 1 / (288 * beta * beta))
                / (1 + 1 / (12 * total) + 1 / (288 * total * total)))
    term1_num = 2 * (alpha * alpha) * (x - 1) + alpha * beta * (x - 1) - x * (beta * beta)
    axbx = alpha * (x - 1) + beta * x
    term1_den = math.sqrt(2 * alpha / beta) * math.pow(total, 1.5) * axbx * axbx
    term1 = term1_num / term1_den
    term2 = 0.5 * math.log(alpha / (total * x))
    term3 = math.sqrt(8 * alpha * beta / total) / (beta * x + alpha * (x - 1))
    term4_base = beta * math.log(beta / (total * (1 - x))) + alpha * math.log(alpha / (total * x))
    term4 = math.pow(term4_base, -1.5)
    term1234 = term1 + term2 * (term3 + (term4 if x < mean else -term4))
    return stirling * prefactor * term1234


def _dirichlet_grad_one(x, alpha, total, psi):
    beta = total - alpha
    boundary = total * x * (1 - x)
    if x <= 0.5 and boundary < 2.5:
        return _beta_grad_alpha_small(x, alpha, beta, psi)
    if x >= 0.5 and boundary < 0.75:
        return -_beta_grad_beta_small(1 - x, beta, alpha, psi)
    if alpha > 6 and beta > 6:
        return _beta_grad_alpha_mid(x, alpha, beta)
    u = math.log(x)
    a = math.log(alpha) - u
    b = math.log(total) - a
    p = q = 0.0
    for i, pu in enumerate((1.0, u, u * u)):
        for j, pa in enumerate((1.0, a, a * a)):
            cp, cq = _BETA_GRAD_C[0, i, j], _BETA_GRAD_C[1, i, j]
            p += pu * pa * (cp[0] + b * (cp[1] + b * (cp[2] + b * cp[3])))
            q += pu * pa * (cq[0] + b * (cq[1] + b * (cq[2] + b * cq[3])))
    approx = x * (psi(total) - psi(alpha)) / beta
    return p / q * approx


def dirichlet_grad(x, alpha, total):
    """PyTorch's ``_dirichlet_grad(x, alpha, total)``: the scaled reparameterized gradient
    -(d/dalpha cdf(x; alpha, total - alpha)) / pdf / (1 - x) of Beta draws ``x``, elementwise,
    by PyTorch's approximations (series near 0 and 1, saddle point, rational correction)."""

    def psi(v):
        return float(digamma_array(np.float64(v)))

    x, alpha, total = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in (x, alpha, total)))
    out = [_dirichlet_grad_one(float(xi), float(ai), float(ti), psi) for xi, ai, ti in zip(x.ravel(), alpha.ravel(),
                                                                                          total.ravel())]
    return np.array(out, dtype=np.float64).reshape(x.shape)

"""Gaussian mixture model with a Wishart prior: ADBench's and GradBench's GMM objective.

    log p = sum_i logsumexp_k(alpha_k + sum(q_k) - |Q_k (x_i - mu_k)|^2 / 2) - n logsumexp(alpha)
            + Wishart prior(Q) + constants

Each Q_k is a lower-triangular matrix with exp(q_k) on its diagonal; ``icf`` holds each
component's log-diagonal q_k (d entries) then its strictly lower part column by column
(d (d - 1) / 2 entries), as in ADBench. The gradient is taken with respect to alphas,
means and icf.

The engine and PyTorch run the same function body (``_objective``, whose first argument is
the module named ``torch``). Where ADBench's PyTorch code writes ``torch.einsum`` (which the
engine lacks), this body multiplies batched matrices with ``@`` instead, and it builds the
triangular factors with one gather of ``icf`` instead of ADBench's column-by-column
``torch.cat`` (which the engine has; the gather is simply the vectorized way).

>>> data = make_data("tiny", seed=0)
>>> [p.shape for p in data.params]
[(3,), (3, 2), (3, 3)]
"""

from __future__ import annotations

import math

import numpy as np

from diffcompare import autograd

from .common import Data

NAME = "gmm"
TITLE = "Gaussian mixture model (ADBench GMM, Wishart prior)"
# d, K, n from ADBench's ranges (d in 2..128, K in 5..200, n = 1,000 or 10,000)
SIZES = {"tiny": dict(d=2, K=3, n=10), "small": dict(d=2, K=5, n=1000), "medium": dict(d=20, K=50, n=1000)}


def describe(size):
    s = SIZES[size]
    return f"d={s['d']}, K={s['K']}, n={s['n']}"


def make_data(size, seed=0) -> Data:
    """Random data of ADBench's shapes (its generator draws uniform parameters and points)."""
    s = SIZES[size]
    d, k, n = s["d"], s["K"], s["n"]
    rng = np.random.default_rng(seed)
    alphas = rng.standard_normal(k)
    means = rng.uniform(0, 1, (k, d))
    icf = rng.uniform(0, 1, (k, d * (d + 1) // 2)) * 0.5
    x = rng.standard_normal((n, d))
    return Data([alphas, means, icf], dict(x=x, wishart_gamma=1.0, wishart_m=0, tril_index=_tril_index(d)))


def _tril_index(d):
    """Where each entry of a d x d factor comes from in [0, icf[d:]...]: 0 above and on the
    diagonal (a zero), 1 + j for the j-th strictly-lower entry, column by column (ADBench's order)."""
    index = np.zeros((d, d), dtype=np.int64)
    j = 1
    for col in range(d):
        for row in range(col + 1, d):
            index[row, col] = j
            j += 1
    return index.reshape(-1)


def _log_gamma_distrib(a, p):
    """log of the multivariate gamma function (scipy.special.multigammaln)."""
    return 0.25 * p * (p - 1) * math.log(math.pi) + sum(math.lgamma(a + 0.5 * (1 - j)) for j in range(1, p + 1))


def _objective(torch, alphas, means, icf, x, wishart_gamma, wishart_m, tril_index):
    n, d = x.shape
    k = alphas.shape[0]
    qs = icf[:, :d]
    Qdiags = torch.exp(qs)
    sum_qs = torch.sum(qs, 1)
    lower = torch.cat([torch.zeros(k, 1, dtype=icf.dtype), icf[:, d:]], 1)
    Ls = lower[:, tril_index].reshape(k, d, d)
    xcentered = x.unsqueeze(0) - means.unsqueeze(1)                         # (K, n, d)
    Lxcentered = Qdiags.unsqueeze(1) * xcentered + xcentered @ Ls.transpose(1, 2)
    sqsum_Lxcentered = torch.sum(Lxcentered ** 2, 2)                         # (K, n)
    inner_term = (alphas + sum_qs).unsqueeze(1) - 0.5 * sqsum_Lxcentered
    slse = torch.sum(torch.logsumexp(inner_term, 0))
    constant = -n * d * 0.5 * math.log(2 * math.pi)
    # the Wishart prior
    m = d + wishart_m + 1
    prior = torch.sum(0.5 * wishart_gamma * wishart_gamma * (torch.sum(Qdiags ** 2, 1) + torch.sum(icf[:, d:] ** 2, 1))
                      - wishart_m * sum_qs)
    c = m * d * math.log(wishart_gamma / math.sqrt(2))
    prior = prior - k * (c - _log_gamma_distrib(0.5 * m, d))
    return constant + slse - n * torch.logsumexp(alphas, 0) + prior


def objective_engine(*params, **consts):
    return _objective(autograd, *params, **consts)


def objective_torch(*params, **consts):
    import torch
    return _objective(torch, *params, **consts)


def objective_jax(alphas, means, icf, x, wishart_gamma, wishart_m, tril_index):
    import jax.numpy as jnp
    from jax.scipy.special import logsumexp
    n, d = x.shape
    k = alphas.shape[0]
    qs = icf[:, :d]
    Qdiags = jnp.exp(qs)
    sum_qs = jnp.sum(qs, 1)
    lower = jnp.concatenate([jnp.zeros((k, 1), icf.dtype), icf[:, d:]], 1)
    Ls = lower[:, tril_index].reshape(k, d, d)
    xcentered = x[None] - means[:, None]
    Lxcentered = Qdiags[:, None] * xcentered + jnp.einsum("kij,knj->kni", Ls, xcentered)
    inner_term = (alphas + sum_qs)[:, None] - 0.5 * jnp.sum(Lxcentered ** 2, 2)
    slse = jnp.sum(logsumexp(inner_term, 0))
    constant = -n * d * 0.5 * math.log(2 * math.pi)
    m = d + wishart_m + 1
    prior = jnp.sum(0.5 * wishart_gamma ** 2 * (jnp.sum(Qdiags ** 2, 1) + jnp.sum(icf[:, d:] ** 2, 1)) - wishart_m * sum_qs)
    prior = prior - k * (m * d * math.log(wishart_gamma / math.sqrt(2)) - _log_gamma_distrib(0.5 * m, d))
    return constant + slse - n * logsumexp(alphas) + prior

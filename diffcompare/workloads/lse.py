"""Log-sum-exp of a vector: GradBench's ``lse`` eval, written as GradBench's PyTorch tool
writes it (the maximum subtracted before ``exp``).

>>> data = make_data("tiny", seed=0)
>>> [p.shape for p in data.params]
[(5,)]
"""

from __future__ import annotations

import numpy as np

from diffcompare import autograd

from .common import Data

NAME = "lse"
TITLE = "Log-sum-exp (GradBench lse)"
SIZES = {"tiny": dict(n=5), "small": dict(n=1000), "medium": dict(n=1_000_000)}


def describe(size):
    return f"n={SIZES[size]['n']:,}"


def make_data(size, seed=0) -> Data:
    return Data([np.random.default_rng(seed).standard_normal(SIZES[size]["n"]) * 3])


def _objective(torch, x):
    max_val = torch.max(x)
    return max_val + torch.log(torch.sum(torch.exp(x - max_val)))


def objective_engine(*params, **consts):
    return _objective(autograd, *params, **consts)


def objective_torch(*params, **consts):
    import torch
    return _objective(torch, *params, **consts)


def objective_jax(x):
    import jax.numpy as jnp
    max_val = jnp.max(x)
    return max_val + jnp.log(jnp.sum(jnp.exp(x - max_val)))

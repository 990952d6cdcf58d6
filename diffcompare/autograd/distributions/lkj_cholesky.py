"""``torch.distributions.LKJCholesky``: the LKJ distribution of the Cholesky factors of
correlation matrices (``dim`` x ``dim``), sampled by the onion method as PyTorch samples it.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import LKJCholesky
>>> LKJCholesky(3, 0.5).event_shape
(3, 3)
"""

from __future__ import annotations

import math

from . import constraints
from ..ops.gamma_functions import lgamma, mvlgamma
from .beta import Beta
from .distribution import Distribution
from .utils import ag, broadcast_all, finfo

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJCholesky(dim, concentration=1.0)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = tuple(self.concentration.shape)
        event_shape = (dim, dim)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = ag.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = ag.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = tuple(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = ag.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
        u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hypersphere[..., 0, :] = 0.0
        w = ag.sqrt(y) * u_hypersphere
        tiny = float(finfo(w.dtype).tiny)
        diag_elems = ag.clamp(1 - ag.sum(w ** 2, dim=-1), min=tiny).sqrt()
        return w + ag.diag_embed(diag_elems)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = ag.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = ag.sum(order * diag_elems.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = lgamma(alpha) * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)

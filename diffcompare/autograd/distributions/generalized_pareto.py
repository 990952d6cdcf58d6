"""``torch.distributions.GeneralizedPareto``: the generalized Pareto distribution with ``loc``,
``scale`` and ``concentration`` (``rsample`` by its inverse CDF of a ``rand`` draw).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import GeneralizedPareto
>>> GeneralizedPareto(ag.tensor([0.0]), ag.tensor([1.0]), ag.tensor([0.0])).mean    # Exponential(1)
tensor([1.])
"""

from __future__ import annotations

import math
import numbers

from . import constraints
from .distribution import Distribution
from .utils import ag, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """GeneralizedPareto(loc, scale, concentration)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, numbers.Number) for v in (loc, scale, concentration)):
            batch_shape = ()
        else:
            batch_shape = tuple(self.loc.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = ag.rand(shape, dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe(self):
        eq_zero = ag.isclose(self.concentration, ag.zeros_like(self.concentration))
        return eq_zero, ag.where(eq_zero, ag.ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe()
        y = 1 / safe_conc + ag.ones_like(z)
        where_nonzero = ag.where(y == 0, y, y * ag.log1p(safe_conc * z))
        return -self.scale.log() - ag.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe()
        return ag.where(eq_zero, -z, -ag.log1p(safe_conc * z) / safe_conc)

    def log_cdf(self, value):
        return ag.log1p(-ag.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return ag.exp(self.log_cdf(value))

    def icdf(self, value):
        eq_zero, safe_conc = self._safe()
        logu = ag.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * ag.expm1(-safe_conc * logu)
        where_zero = self.loc - self.scale * logu
        return ag.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = ag.where(valid, self.concentration, 0.5)
        return ag.where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = ag.where(valid, self.concentration, 0.25)
        return ag.where(valid, self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc)), math.nan)

    def entropy(self):
        return ag.broadcast_to(ag.log(self.scale) + self.concentration + 1, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = ag.where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)

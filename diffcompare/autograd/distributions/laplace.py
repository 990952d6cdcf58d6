"""``torch.distributions.Laplace``: the double exponential with ``loc`` and ``scale``.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import Laplace
>>> Laplace(ag.tensor([0.0]), ag.tensor([1.0])).variance
tensor([2.])
"""

from __future__ import annotations

import math
import numbers

from . import constraints
from .distribution import Distribution
from .utils import ag, broadcast_all, finfo

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace(loc, scale); ``rsample`` by the inverse CDF of a ``uniform_(eps - 1, 1)`` draw."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            batch_shape = ()
        else:
            batch_shape = tuple(self.loc.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = float(finfo(self.loc.dtype).eps)
        u = ag.empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * ag.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -ag.log(2 * self.scale) - ag.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * ag.expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * ag.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + ag.log(2 * self.scale)

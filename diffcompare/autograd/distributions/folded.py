"""What HalfNormal and HalfCauchy share: a distribution symmetric about 0, folded onto
[0, inf) by |x| (``AbsTransform``). The density doubles, the cdf is 2 F(x) - 1, the entropy
loses log 2; each subclass names its base and its own moments.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import HalfNormal
>>> HalfNormal(ag.tensor([2.0])).cdf(ag.tensor([0.0]))
tensor([0.])
"""

from __future__ import annotations

import math

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform
from .utils import ag

__all__ = ["FoldedAtZero"]


class FoldedAtZero(TransformedDistribution):
    """|X| for X = ``base(0, scale)`` (a subclass sets ``base``)."""

    base = None
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        base_dist = self.base(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return ag.zeros_like(self.scale)

    def _as_value(self, value):
        """The value as log_prob takes it after validation (HalfCauchy converts it, as PyTorch's)."""
        return value

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = self._as_value(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ag.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)

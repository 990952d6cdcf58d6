"""``torch.distributions.InverseGamma``: 1 / Gamma(concentration, rate).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import InverseGamma
>>> InverseGamma(ag.tensor([3.0]), ag.tensor([4.0])).mean
tensor([2.])
"""

from __future__ import annotations

import math

from . import constraints
from ..ops.gamma_functions import digamma, lgamma
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform
from .utils import ag

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """InverseGamma(concentration, rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return ag.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        result = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return ag.where(self.concentration > 2, result, math.inf)

    def entropy(self):
        return (self.concentration + self.rate.log() + lgamma(self.concentration)
                - (1 + self.concentration) * digamma(self.concentration))

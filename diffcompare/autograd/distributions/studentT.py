"""``torch.distributions.StudentT``: Student's t with ``df`` degrees of freedom, ``loc`` and
``scale``; ``rsample`` is ``X / sqrt(Z / df)`` with X standard normal, Z a Chi2(df) draw.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import StudentT
>>> StudentT(ag.tensor([1.0])).log_prob(ag.tensor([0.0]))      # Cauchy: -log(pi)
tensor([-1.1447])
"""

from __future__ import annotations

import math

from . import constraints
from ..ops.gamma_functions import digamma, lgamma
from .chi2 import Chi2
from .distribution import Distribution
from .utils import ag, broadcast_all, standard_normal

__all__ = ["StudentT"]


class StudentT(Distribution):
    """StudentT(df, loc=0.0, scale=1.0)."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        m = self.loc.clone()
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        m = self.df.clone()
        big = self.df > 2
        m[big] = self.scale[big].pow(2) * self.df[big] / (self.df[big] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(tuple(self.df.shape), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = tuple(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        X = standard_normal(shape, dtype=self.df.dtype, device=None)
        Z = self._chi2.rsample(sample_shape)
        Y = X * ag.rsqrt(Z / self.df)
        return self.loc + self.scale * Y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + lgamma(0.5 * self.df)
             - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * ag.log1p(y ** 2.0 / self.df) - Z

    def entropy(self):
        lbeta = lgamma(0.5 * self.df) + math.lgamma(0.5) - lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (digamma(0.5 * (self.df + 1)) - digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)

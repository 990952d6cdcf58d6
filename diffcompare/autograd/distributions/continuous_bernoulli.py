"""``torch.distributions.ContinuousBernoulli``: the continuous Bernoulli on [0, 1], with a
Taylor expansion near ``probs = 0.5`` (inside ``lims``) as PyTorch computes it.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import ContinuousBernoulli
>>> ContinuousBernoulli(ag.tensor([0.5])).mean
tensor([0.5000])
"""

from __future__ import annotations

import math
import numbers

from . import constraints
from .bernoulli import bce_with_logits
from .exp_family import ExponentialFamily
from .utils import ag, broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """ContinuousBernoulli(probs=... or logits=..., lims=(0.499, 0.501))."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, numbers.Number)
            (self.probs,) = broadcast_all(probs)
            if validate_args is not None and not bool(self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, numbers.Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = () if is_scalar else tuple(self._param.shape)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = tuple(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _outside_unstable_region(self):
        return ag.le(self.probs, self._lims[0]) | ag.gt(self.probs, self._lims[1])

    def _cut_probs(self):
        return ag.where(self._outside_unstable_region(), self.probs, self._lims[0] * ag.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        cut_probs = self._cut_probs()
        below = ag.where(ag.le(cut_probs, 0.5), cut_probs, ag.zeros_like(cut_probs))
        above = ag.where(ag.ge(cut_probs, 0.5), cut_probs, ag.ones_like(cut_probs))
        log_norm = (ag.log(ag.abs(ag.log1p(-cut_probs) - ag.log(cut_probs)))
                    - ag.where(ag.le(cut_probs, 0.5), ag.log1p(-2.0 * below), ag.log(2.0 * above - 1.0)))
        x = ag.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return ag.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (ag.log1p(-cut_probs) - ag.log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * ag.pow(x, 2)) * x
        return ag.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return ag.sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        vars_ = (cut_probs * (cut_probs - 1.0) / ag.pow(1.0 - 2.0 * cut_probs, 2)
                 + 1.0 / ag.pow(ag.log1p(-cut_probs) - ag.log(cut_probs), 2))
        x = ag.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return ag.where(self._outside_unstable_region(), vars_, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        return tuple(self._param.shape)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = ag.rand(shape, dtype=self.probs.dtype)
        with ag.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = ag.rand(shape, dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -bce_with_logits(logits, value) + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = ((ag.pow(cut_probs, value) * ag.pow(1.0 - cut_probs, 1.0 - value) + cut_probs - 1.0)
                / (2.0 * cut_probs - 1.0))
        unbounded_cdfs = ag.where(self._outside_unstable_region(), cdfs, value)
        return ag.where(ag.le(value, 0.0), ag.zeros_like(value),
                        ag.where(ag.ge(value, 1.0), ag.ones_like(value), unbounded_cdfs))

    def icdf(self, value):
        cut_probs = self._cut_probs()
        return ag.where(self._outside_unstable_region(),
                        (ag.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - ag.log1p(-cut_probs))
                        / (ag.log(cut_probs) - ag.log1p(-cut_probs)), value)

    def entropy(self):
        log_probs0 = ag.log1p(-self.probs)
        log_probs1 = ag.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        out_unst_reg = ag.le(x, self._lims[0] - 0.5) | ag.gt(x, self._lims[1] - 0.5)
        cut_nat_params = ag.where(out_unst_reg, x, (self._lims[0] - 0.5) * ag.ones_like(x))
        log_norm = ag.log(ag.abs(ag.expm1(cut_nat_params))) - ag.log(ag.abs(cut_nat_params))
        taylor = 0.5 * x + ag.pow(x, 2) / 24.0 - ag.pow(x, 4) / 2880.0
        return ag.where(out_unst_reg, log_norm, taylor)

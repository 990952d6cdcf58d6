"""``torch.distributions.Multinomial``: the counts of ``total_count`` Categorical draws.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import Multinomial
>>> Multinomial(2, probs=ag.tensor([0.5, 0.5])).log_prob(ag.tensor([1.0, 1.0])).exp()
tensor(0.5000)
"""

from __future__ import annotations

import math

from . import constraints
from ..ops.gamma_functions import lgamma
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import ag, broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial(total_count=1, probs=... or logits=...): events of shape ``(K,)``."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = tuple(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    def sample(self, sample_shape=()):
        sample_shape = tuple(sample_shape)
        samples = self._categorical.sample((self.total_count,) + sample_shape)
        shifted_idx = list(range(samples.dim()))
        shifted_idx.append(shifted_idx.pop(0))
        samples = samples.permute(*shifted_idx)
        counts = ag.zeros(self._extended_shape(sample_shape), dtype=samples.dtype)
        counts.scatter_add_(-1, samples, ag.ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        n = ag.tensor(self.total_count)
        cat_entropy = self._categorical.entropy()
        support = self._binomial.enumerate_support()
        binomial_probs = ag.exp(self._binomial.log_prob(support))
        weights = lgamma(support + 1)
        return n * cat_entropy - lgamma(n + 1) + (binomial_probs * weights).sum([0, -1])

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone()
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -math.inf)] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers

"""``torch.distributions.Poisson``: counts with mean ``rate``; ``sample`` is ``torch.poisson``
(PyTorch's sampler: the engine's draw has the same distribution, not the same numbers,
unless its draws are PyTorch's).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import Poisson
>>> Poisson(ag.tensor([2.0])).log_prob(ag.tensor([0.0]))     # -rate
tensor([-2.])
"""

from __future__ import annotations

import numbers

from . import constraints
from ..ops.gamma_functions import lgamma
from .exp_family import ExponentialFamily
from .utils import ag, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson(rate)."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = () if isinstance(rate, numbers.Number) else tuple(self.rate.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = tuple(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with ag.no_grad():
            return ag.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return ag.xlogy(value, rate) - rate - lgamma(value + 1)

    @property
    def _natural_params(self):
        return (ag.log(self.rate),)

    def _log_normalizer(self, x):
        return ag.exp(x)

"""``torch.distributions.Gamma``: the Gamma distribution with shape ``concentration`` and ``rate``.
``rsample`` draws with ``torch._standard_gamma`` (PyTorch's sampler: the engine's draw has
the same distribution, not the same numbers, unless its draws are PyTorch's), and is
differentiable in both parameters (the pathwise derivative in ``concentration``).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import Gamma
>>> Gamma(ag.tensor([2.0]), ag.tensor([4.0])).mean
tensor([0.5000])
"""

from __future__ import annotations

import numbers

from . import constraints
from ..ops.gamma_functions import digamma, lgamma
from .exp_family import ExponentialFamily
from .utils import ag, broadcast_all, finfo

__all__ = ["Gamma"]


def _standard_gamma(concentration):
    """``torch._standard_gamma``, its node made to differentiate at the values the draw holds
    when it returns (a caller may replace the package's draw by one that substitutes other
    values, e.g. another generator's, after the node is recorded)."""
    draw = ag._standard_gamma(concentration)
    if draw.grad_fn is not None:
        draw.grad_fn.values = draw._data
    return draw


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number):
            batch_shape = ()
        else:
            batch_shape = tuple(self.rate.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = tuple(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=float(finfo(value.dtype).tiny))   # not recorded
        return value

    def log_prob(self, value):
        value = ag.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (ag.xlogy(self.concentration, self.rate) + ag.xlogy(self.concentration - 1, value)
                - self.rate * value - lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - ag.log(self.rate) + lgamma(self.concentration)
                + (1.0 - self.concentration) * digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * ag.log(-y.reciprocal())

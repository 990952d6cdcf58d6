"""``torch.distributions.ExponentialFamily``: distributions whose density is
``exp(<t(x), theta> - F(theta) + k(x))``; their entropy by the Bregman divergence of the log
normalizer ``F`` (its gradient taken with the engine's ``grad``), as PyTorch computes it.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import Normal, ExponentialFamily
>>> m = Normal(ag.tensor([0.0]), ag.tensor([2.0]))
>>> bool(ag.allclose(ExponentialFamily.entropy(m), m.entropy()))
True
"""

from __future__ import annotations

from .distribution import Distribution
from .utils import ag

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """An exponential-family distribution: ``_natural_params``, ``_log_normalizer``,
    ``_mean_carrier_measure``."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """The entropy by the Bregman divergence of the log normalizer."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = ag.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result

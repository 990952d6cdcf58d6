"""``torch.distributions.HalfCauchy``: |x| of a Cauchy(0, scale).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import HalfCauchy
>>> HalfCauchy(ag.tensor([1.0])).log_prob(ag.tensor([0.0]))     # log(2 / pi)
tensor([-0.4516])
"""

from __future__ import annotations

import math

from .cauchy import Cauchy
from .folded import FoldedAtZero
from .utils import ag

__all__ = ["HalfCauchy"]


class HalfCauchy(FoldedAtZero):
    """HalfCauchy(scale)."""

    base = Cauchy

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return ag.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return self.base_dist.variance

    def _as_value(self, value):
        return ag.as_tensor(value, dtype=self.base_dist.scale.dtype)     # as PyTorch's HalfCauchy.log_prob

"""``torch.distributions.Gumbel``: the Gumbel (type-I extreme value) distribution, as a Uniform
pushed through -log(-log(u)) scaled and shifted (so ``rsample`` draws one ``rand``).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import Gumbel
>>> Gumbel(ag.tensor([0.0]), ag.tensor([1.0])).mean        # Euler's constant
tensor([0.5772])
"""

from __future__ import annotations

import math
import numbers

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import ag, broadcast_all, euler_constant, finfo

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        fi = finfo(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base_dist = Uniform(float(fi.tiny), 1 - float(fi.eps), validate_args=validate_args)
        else:
            base_dist = Uniform(ag.full_like(self.loc, float(fi.tiny)), ag.full_like(self.loc, 1 - float(fi.eps)),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-ag.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return y - y.exp() - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return math.pi / math.sqrt(6) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)

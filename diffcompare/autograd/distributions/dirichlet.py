"""``torch.distributions.Dirichlet``: the Dirichlet distribution on the simplex with
``concentration``. ``rsample`` draws with ``torch._sample_dirichlet``; its gradient in the
concentration is PyTorch's reparameterized one (``_dirichlet_grad``).

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import Dirichlet
>>> Dirichlet(ag.tensor([1.0, 3.0])).mean
tensor([0.2500, 0.7500])
"""

from __future__ import annotations

from ..ops.sampling import dirichlet_grad
from . import constraints
from ..ops.gamma_functions import digamma, lgamma
from .exp_family import ExponentialFamily
from .utils import ag

__all__ = ["Dirichlet"]


def _Dirichlet_backward(x, concentration, grad_output):  # noqa: N802  (PyTorch's name)
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = _dirichlet_grad(x, concentration, total)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


def _dirichlet_grad(x, concentration, total):
    return ag.tensor(dirichlet_grad(x.detach().numpy(), concentration.detach().numpy(), total.detach().numpy()),
                     dtype=x.dtype)


class _Dirichlet(ag.autograd.Function):
    @staticmethod
    def forward(ctx, concentration):
        x = ag._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration): events along the last dimension."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = tuple(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        return _Dirichlet.apply(concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (ag.xlogy(self.concentration - 1.0, value).sum(-1) + lgamma(self.concentration.sum(-1))
                - lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = ag.nn.functional.one_hot(mode[mask].argmax(dim=-1), concentrationm1.shape[-1]).to(mode.dtype)
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (lgamma(self.concentration).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0)
                - ((self.concentration - 1.0) * digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return lgamma(x).sum(-1) - lgamma(x.sum(-1))

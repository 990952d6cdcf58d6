"""``torch.distributions``: parameterizable probability distributions with sampling
(``sample``, and ``rsample`` through which gradients flow: the reparameterization trick),
``log_prob``, ``entropy``, moments, ``kl_divergence``, constraints and transforms, under
PyTorch's names and module layout (``from torch.distributions.normal import Normal`` ports).

Every draw goes through the engine's random functions as PyTorch's source makes it
(``Normal.rsample`` draws ``empty(shape).normal_()``, ``Bernoulli.sample`` calls
``bernoulli(probs)``, ``Gamma.rsample`` calls ``_standard_gamma``), so a sampler makes the same
calls, in the same order and shapes, as PyTorch's.

>>> from diffcompare import autograd as ag
>>> from diffcompare.autograd.distributions import Normal
>>> loc = ag.tensor([0.0], requires_grad=True)
>>> m = Normal(loc, ag.tensor([1.0]))
>>> m.log_prob(ag.tensor([1.0])).sum().backward(); loc.grad          # d/dloc of -(x-loc)^2/2
tensor([1.])
"""

from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "FisherSnedecor", "Gamma", "GeneralizedPareto",
           "Geometric", "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "InverseGamma", "Kumaraswamy",
           "LKJCholesky", "Laplace", "LogNormal", "LogisticNormal", "LowRankMultivariateNormal", "MixtureSameFamily",
           "Multinomial", "MultivariateNormal", "NegativeBinomial", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough",
           "Pareto", "RelaxedBernoulli", "RelaxedOneHotCategorical", "StudentT", "Poisson", "Uniform", "VonMises",
           "Weibull", "Wishart", "TransformedDistribution", "biject_to", "kl_divergence", "register_kl", "transform_to"]
__all__.extend(transforms.__all__)

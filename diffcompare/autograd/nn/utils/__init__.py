"""``torch.nn.utils``: gradient clipping, the flat view of a model's parameters,
parametrizations (``parametrize``, ``parametrizations``), the legacy ``weight_norm`` and
``spectral_norm`` hooks, the padded and packed sequences of ``rnn``, and ``prune``.

>>> from diffcompare import autograd as ag
>>> w = ag.nn.Parameter(ag.ones(4))
>>> (w * 3).sum().backward()
>>> float(clip_grad_norm_([w], 1.0)), round(float(w.grad.norm()), 6)
(6.0, 1.0)
"""

from . import parametrizations, parametrize, prune, rnn, stateless  # noqa: F401  (torch.nn.utils.parametrize, ...)
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm
from .init import skip_init

__all__ = ["skip_init", "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "remove_spectral_norm", "remove_weight_norm", "spectral_norm", "vector_to_parameters",
           "weight_norm"]

"""``torch.nn.utils``: gradient clipping and the flat view of a model's parameters.

>>> from diffcompare import autograd as ag
>>> w = ag.nn.Parameter(ag.ones(4))
>>> (w * 3).sum().backward()
>>> float(clip_grad_norm_([w], 1.0)), round(float(w.grad.norm()), 6)
(6.0, 1.0)
"""

from .clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm_", "clip_grad_value_", "get_total_norm", "parameters_to_vector", "vector_to_parameters"]

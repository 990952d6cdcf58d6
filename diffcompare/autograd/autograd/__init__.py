"""``torch.autograd``'s names, so that code ported by renaming its imports runs:
``import torch.autograd as autograd`` becomes ``import diffcompare.autograd.autograd as
autograd``, ``from torch.autograd import Function, grad`` becomes ``from
diffcompare.autograd.autograd import Function, grad``, and ``from
torch.autograd.functional import jacobian`` becomes ``from
diffcompare.autograd.autograd.functional import jacobian``, and ``import
torch.autograd.forward_ad as fwAD`` becomes ``import diffcompare.autograd.autograd.forward_ad as fwAD``.

>>> import diffcompare.autograd.autograd as autograd
>>> from diffcompare import autograd as ag
>>> x = ag.tensor(2.0, requires_grad=True)
>>> autograd.grad(x ** 3, x)
(tensor(12.),)
"""

from . import anomaly_mode  # noqa: F401  (torch.autograd.anomaly_mode)
from . import gradcheck as _gradcheck_module  # noqa: F401  (torch.autograd.gradcheck, the module; the name is the function)
from ..backward import backward, grad
from ..function import Function, FunctionCtx
from ..gradcheck import GradcheckError, gradcheck, gradgradcheck
from ..grad_mode import (detect_anomaly, enable_grad, inference_mode, is_anomaly_enabled, is_grad_enabled, no_grad,
                         set_detect_anomaly, set_grad_enabled)
from ..graph import Node
from . import forward_ad, function, functional, graph, profiler
from .variable import Variable

__all__ = ["Function", "FunctionCtx", "GradcheckError", "Node", "backward", "detect_anomaly", "enable_grad",
           "forward_ad", "function", "functional", "grad", "graph", "gradcheck", "gradgradcheck", "inference_mode",
           "is_anomaly_enabled", "is_grad_enabled", "no_grad", "profiler", "set_detect_anomaly", "set_grad_enabled",
           "Variable"]

"""functorch's ``make_functional`` and ``make_functional_with_buffers`` (deprecated in
PyTorch for ``torch.func.functional_call``, still in ported code): a module split into a
function and its tensors, ``fmodel(params, *args)`` / ``fmodel(params, buffers, *args)``.

>>> import warnings
>>> from diffcompare import autograd as ag
>>> net = ag.nn.Linear(2, 1)
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     fmodel, params = make_functional(net)
>>> fmodel((ag.tensor([[1.0, 2.0]]), ag.tensor([0.5])), ag.tensor([1.0, 1.0]))
tensor([3.5000])
"""

from __future__ import annotations

import copy
import warnings

from .stateless import functional_call

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "make_functional", "make_functional_with_buffers"]


def _deprecated(name):
    warnings.warn(f"We've integrated functorch into PyTorch. As the final step of the integration, "
                  f"`functorch.{name}` is deprecated as of PyTorch 2.0 and will be deleted in a future version of "
                  "PyTorch >= 2.3. Please use `torch.func.functional_call` instead; see the PyTorch 2.0 release notes "
                  "and/or the `torch.func` migration guide for more details "
                  "https://pytorch.org/docs/main/func.migrating.html", FutureWarning, stacklevel=3)


class FunctionalModuleWithBuffers:
    """A copy of a module called with its parameters and buffers as arguments."""

    def __init__(self, module, param_names, buffer_names):
        self.stateless_model = module
        self.param_names, self.buffer_names = tuple(param_names), tuple(buffer_names)

    def __call__(self, params, buffers, *args, **kwargs):
        values = dict(zip(self.param_names, params))
        values.update(zip(self.buffer_names, buffers))
        return functional_call(self.stateless_model, values, args, kwargs)

    forward = __call__


class FunctionalModule(FunctionalModuleWithBuffers):
    """A copy of a module called with its parameters as the first argument."""

    def __call__(self, params, *args, **kwargs):
        return functional_call(self.stateless_model, dict(zip(self.param_names, params)), args, kwargs)

    forward = __call__


def _split(model, disable_autograd_tracking):
    model = copy.deepcopy(model)
    names, params = zip(*model.named_parameters()) if list(model.parameters()) else ((), ())
    if disable_autograd_tracking:
        params = tuple(p.detach() for p in params)
    return model, names, tuple(params)


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """``(fmodel, params, buffers)``: ``fmodel(params, buffers, *args)`` runs a copy of ``model``
    with the given tensors; ``params`` and ``buffers`` are that copy's."""
    _deprecated("make_functional_with_buffers")
    model, names, params = _split(model, disable_autograd_tracking)
    buffer_names, buffers = zip(*model.named_buffers()) if list(model.buffers()) else ((), ())
    return FunctionalModuleWithBuffers(model, names, buffer_names), params, tuple(buffers)


def make_functional(model, disable_autograd_tracking=False):
    """``(fmodel, params)``: ``fmodel(params, *args)`` runs a copy of ``model`` with the given
    parameters (its buffers as they are)."""
    _deprecated("make_functional")
    model, names, params = _split(model, disable_autograd_tracking)
    return FunctionalModule(model, names, ()), params

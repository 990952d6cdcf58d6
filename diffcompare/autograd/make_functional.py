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

from .device import as_meta
from .nn.module import Module, Parameter
from .ops import stack
from .stateless import functional_call

__all__ = ["FunctionalModule", "FunctionalModuleWithBuffers", "combine_state_for_ensemble", "make_functional",
           "make_functional_with_buffers"]


def _deprecated(name):
    warnings.warn(f"We've integrated functorch into PyTorch. As the final step of the integration, "
                  f"`functorch.{name}` is deprecated as of PyTorch 2.0 and will be deleted in a future version of "
                  "PyTorch >= 2.3. Please use `torch.func.functional_call` instead; see the PyTorch 2.0 release notes "
                  "and/or the `torch.func` migration guide for more details "
                  "https://pytorch.org/docs/main/func.migrating.html", FutureWarning, stacklevel=3)


class FunctionalModuleWithBuffers(Module):
    """A copy of a module (its parameters and buffers left on the meta device: shapes only),
    called with parameters and buffers as arguments."""

    def __init__(self, module, param_names, buffer_names):
        super().__init__()
        self.stateless_model = module
        self.param_names, self.buffer_names = tuple(param_names), tuple(buffer_names)

    def forward(self, params, buffers, *args, **kwargs):
        values = dict(zip(self.param_names, params))
        values.update(zip(self.buffer_names, buffers))
        return functional_call(self.stateless_model, values, args, kwargs)


class FunctionalModule(FunctionalModuleWithBuffers):
    """A copy of a module called with its parameters as the first argument."""

    def forward(self, params, *args, **kwargs):
        return functional_call(self.stateless_model, dict(zip(self.param_names, params)), args, kwargs)


def _split(model, disable_autograd_tracking):
    """A copy of ``model``, its parameters' names, and those parameters (the copy keeps meta
    placeholders in their place, as functorch's stateless model does)."""
    model = copy.deepcopy(model)
    named = list(model.named_parameters())
    names = tuple(n for n, _ in named)
    params = tuple(p.detach() if disable_autograd_tracking else p for _, p in named)
    for name, p in named:
        owner = model
        for part in name.split(".")[:-1]:
            owner = getattr(owner, part)
        placeholder = Parameter(p.detach(), requires_grad=p.requires_grad)
        placeholder._data = as_meta(placeholder._data)
        setattr(owner, name.rpartition(".")[2], placeholder)
    return model, names, params


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


def combine_state_for_ensemble(models):
    """``(fmodel, params, buffers)`` for ``vmap(fmodel, (0, 0, None))(params, buffers, x)``: one
    functional copy of the models' common architecture, and their parameters and buffers
    stacked along a new first axis (detached, as functorch's), as functorch's ensembling
    helper (``torch.func.stack_module_state`` is its successor).

    >>> import warnings
    >>> from diffcompare import autograd as ag
    >>> with warnings.catch_warnings():    # (deprecated, as functorch's: a FutureWarning)
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     fmodel, params, buffers = combine_state_for_ensemble([ag.nn.Linear(3, 2) for _ in range(4)])
    >>> [tuple(p.shape) for p in params], buffers
    ([(4, 2, 3), (4, 2)], ())
    """
    models = list(models)
    if not models:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    _deprecated("combine_state_for_ensemble")
    funcs, params, buffers = zip(*[_functional_with_buffers(m) for m in models])
    stacked = lambda per_model: tuple(stack(list(shards)).detach() for shards in zip(*per_model))  # noqa: E731
    return funcs[0], stacked(params), stacked(buffers)


def _functional_with_buffers(model):
    model, names, params = _split(model, False)
    buffer_names, buffers = zip(*model.named_buffers()) if list(model.buffers()) else ((), ())
    return FunctionalModuleWithBuffers(model, names, buffer_names), params, tuple(buffers)

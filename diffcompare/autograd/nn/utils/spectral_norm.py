"""The legacy ``torch.nn.utils.spectral_norm``: ``weight`` replaced by the parameter
``weight_orig`` and the buffers ``weight_u``, ``weight_v`` (drawn with ``normal_``, u first),
and recomputed before every forward as ``weight_orig / σ``, σ estimated by power iteration
(in training mode); superseded in PyTorch by ``parametrizations.spectral_norm``.

>>> from diffcompare import autograd as ag
>>> m = spectral_norm(ag.nn.Linear(3, 4))
>>> [name for name, _ in m.named_parameters()], [name for name, _ in m.named_buffers()]
(['bias', 'weight_orig'], ['weight_u', 'weight_v'])
"""

from __future__ import annotations

from ... import ops
from ...grad_mode import no_grad
from ...tensor import Tensor
from ..module import Module, Parameter  # noqa: F401  (Module: the type the functions take)
from .parametrizations import normalized_array

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_orig``."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            W = weight_mat._data
            for _ in range(self.n_power_iterations):
                v._data[...] = normalized_array(W.T @ u._data, self.eps)
                u._data[...] = normalized_array(W @ v._data, self.eps)
            u._bump()
            v._bump()
            u, v = u.clone(), v.clone()
        sigma = ops.dot(u, ops.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        h, w = fn.reshape_weight_to_matrix(weight).shape
        u = Tensor._make(normalized_array(weight.new_empty(h).normal_(0, 1)._data, fn.eps))
        v = Tensor._make(normalized_array(weight.new_empty(w).normal_(0, 1)._data, fn.eps))
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm before every forward (the legacy hook form)."""
    if dim is None:
        transposed = {"ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"}
        dim = 1 if any(cls.__name__ in transposed for cls in type(module).__mro__) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo ``spectral_norm``: ``module.<name>`` a plain parameter again, holding its current value."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")

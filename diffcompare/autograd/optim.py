"""``SGD`` and ``Adam``, updating parameters in place as ``torch.optim`` does.

>>> from diffcompare import autograd as ag
>>> w = ag.tensor([1.0, -2.0], requires_grad=True)
>>> opt = ag.optim.SGD([w], lr=0.1)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w
tensor([ 0.8000, -1.6000], requires_grad=True)
"""

from __future__ import annotations

import numpy as np

from .nn import zero_grad_of


class Optimizer:
    def __init__(self, params, defaults):
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if isinstance(params[0], dict):
            self.param_groups = [{**defaults, **group, "params": list(group["params"])} for group in params]
        else:
            self.param_groups = [{**defaults, "params": params}]
        for group in self.param_groups:
            for p in group["params"]:
                if not p.is_leaf:
                    raise ValueError("can't optimize a non-leaf Tensor")
        self.state = {}

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                zero_grad_of(p, set_to_none)

    def _with_grads(self):
        """(group, parameter, gradient array) for every parameter that has a gradient."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    grad = p._grad._data
                    if group["weight_decay"]:
                        grad = grad + group["weight_decay"] * p._data
                    yield group, p, grad

    def _update(self, p, delta):
        # The same in-place write as `with no_grad(): p -= delta`, version bump included.
        p._data -= delta.astype(p.dtype, copy=False)
        p._bump()


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov and weight decay."""

    def __init__(self, params, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group, p, d in self._with_grads():
            if group["momentum"]:
                buf = self.state.get(id(p))
                if buf is None:
                    buf = np.array(d)
                else:
                    buf = group["momentum"] * buf + (1 - group["dampening"]) * d
                self.state[id(p)] = buf
                d = d + group["momentum"] * buf if group["nesterov"] else buf
            self._update(p, group["lr"] * d)
        return loss


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction; ``weight_decay`` adds L2 to the gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad))

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group, p, g in self._with_grads():
            b1, b2 = group["betas"]
            state = self.state.setdefault(id(p), {"step": 0, "m": np.zeros_like(p._data),
                                                  "v": np.zeros_like(p._data), "vmax": np.zeros_like(p._data)})
            state["step"] += 1
            state["m"] = b1 * state["m"] + (1 - b1) * g
            state["v"] = b2 * state["v"] + (1 - b2) * g * g
            v = state["v"]
            if group["amsgrad"]:
                state["vmax"] = np.maximum(state["vmax"], v)
                v = state["vmax"]
            m_hat = state["m"] / (1 - b1 ** state["step"])
            v_hat = v / (1 - b2 ** state["step"])
            self._update(p, group["lr"] * m_hat / (np.sqrt(v_hat) + group["eps"]))
        return loss

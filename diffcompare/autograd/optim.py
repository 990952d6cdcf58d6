"""``SGD``, ``Adam``, ``AdamW``, ``RMSprop`` and ``Adagrad``, updating parameters in place as ``torch.optim`` does.

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

    decoupled = False   # AdamW: weight decay shrinks the parameter instead of adding to the gradient

    def _with_grads(self):
        """(group, parameter, gradient array) for every parameter that has a gradient."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    grad = p._grad._data
                    if group["weight_decay"] and not self.decoupled:
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
    """Adam (Kingma & Ba) with bias correction, in PyTorch's arithmetic; ``weight_decay`` adds
    L2 to the gradient (AdamW decouples it)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False):
        _check(lr=lr, eps=eps, weight_decay=weight_decay)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad))

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group, p, g in self._with_grads():
            b1, b2 = group["betas"]
            if self.decoupled:
                p._data *= 1 - group["lr"] * group["weight_decay"]
            state = self.state.setdefault(id(p), {"step": 0, "m": np.zeros_like(p._data),
                                                  "v": np.zeros_like(p._data), "vmax": np.zeros_like(p._data)})
            state["step"] += 1
            state["m"] = b1 * state["m"] + (1 - b1) * g
            state["v"] = b2 * state["v"] + (1 - b2) * g * g
            v = state["v"]
            if group["amsgrad"]:
                state["vmax"] = np.maximum(state["vmax"], v)
                v = state["vmax"]
            correction1 = 1 - b1 ** state["step"]
            correction2 = 1 - b2 ** state["step"]
            denom = np.sqrt(v) / np.sqrt(correction2) + group["eps"]
            self._update(p, group["lr"] / correction1 * state["m"] / denom)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): each step first multiplies the
    parameter by 1 - lr * weight_decay.

    >>> from diffcompare import autograd as ag
    >>> w = ag.tensor([1.0], requires_grad=True)
    >>> opt = ag.optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> (w * 0).sum().backward(); opt.step(); w          # the gradient is 0: decay alone
    tensor([0.9500], requires_grad=True)
    """

    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)


class RMSprop(Optimizer):
    """RMSprop: the gradient divided by the root of a running mean of its square (centred on
    the running mean of the gradient if ``centered``), with optional momentum."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False):
        _check(lr=lr, eps=eps, weight_decay=weight_decay, momentum=momentum, alpha=alpha)
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered))

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group, p, g in self._with_grads():
            alpha = group["alpha"]
            state = self.state.setdefault(id(p), {"step": 0, "square_avg": np.zeros_like(p._data),
                                                  "grad_avg": np.zeros_like(p._data),
                                                  "momentum_buffer": np.zeros_like(p._data)})
            state["step"] += 1
            state["square_avg"] = alpha * state["square_avg"] + (1 - alpha) * g * g
            if group["centered"]:
                state["grad_avg"] = alpha * state["grad_avg"] + (1 - alpha) * g
                avg = np.sqrt(state["square_avg"] - state["grad_avg"] ** 2) + group["eps"]
            else:
                avg = np.sqrt(state["square_avg"]) + group["eps"]
            if group["momentum"] > 0:
                state["momentum_buffer"] = group["momentum"] * state["momentum_buffer"] + g / avg
                self._update(p, group["lr"] * state["momentum_buffer"])
            else:
                self._update(p, group["lr"] * g / avg)
        return loss


class Adagrad(Optimizer):
    """Adagrad: the gradient divided by the root of the sum of its past squares, with a
    learning rate decaying as lr / (1 + (step - 1) lr_decay)."""

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0, eps=1e-10):
        _check(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, eps=eps,
               initial_accumulator_value=initial_accumulator_value)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, eps=eps,
                                      initial_accumulator_value=initial_accumulator_value))
        for group in self.param_groups:
            for p in group["params"]:
                self.state[id(p)] = {"step": 0, "sum": np.full_like(p._data, group["initial_accumulator_value"])}

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group, p, g in self._with_grads():
            state = self.state[id(p)]
            state["step"] += 1
            clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
            state["sum"] = state["sum"] + g * g
            self._update(p, clr * g / (np.sqrt(state["sum"]) + group["eps"]))
        return loss


_WORDS = {"lr": "learning rate", "eps": "epsilon value", "weight_decay": "weight_decay value",
          "momentum": "momentum value", "alpha": "alpha value", "lr_decay": "lr_decay value",
          "initial_accumulator_value": "initial_accumulator_value value"}


def _check(**values):
    """PyTorch's ValueError for a negative hyperparameter."""
    for name, value in values.items():
        if value < 0:
            raise ValueError(f"Invalid {_WORDS[name]}: {value}")

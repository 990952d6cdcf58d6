"""``Adadelta``, ``Adamax``, ``NAdam``, ``RAdam``, ``ASGD`` and ``Rprop``, in PyTorch's
arithmetic (its single-tensor CPU path), with its defaults, argument checks, ``maximize``
and ``state_dict()`` layout.

Each parameter's state is kept under PyTorch's names as tensors (``opt.state[p]["exp_avg"]``):
its buffers of the parameter's dtype, its scalars (``step``, NAdam's ``mu_product``, ASGD's
``eta`` and ``mu``) 0-d, of the dtype PyTorch gives them (float64 under a float64 default
dtype, the engine's, else float32: ``scalar_dtype``). A step works on their arrays.

>>> from diffcompare import autograd as ag
>>> w = ag.tensor([1.0, -2.0], requires_grad=True)
>>> opt = ag.optim.Rprop([w], lr=0.1)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w                                  # one step of lr against the gradient's sign
tensor([ 0.9000, -1.9000], requires_grad=True)
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from .optimizers import Optimizer, fused_lerp, fused_multiply_add, scalar_dtype



def _add(p, value, alpha=None):
    """``p.add_(value, alpha=alpha)`` (fused when ``alpha`` is given) as an in-place write
    under no_grad, version bump included."""
    if alpha is None:
        p._data += np.asarray(value).astype(p.dtype, copy=False)
    else:
        p._data[...] = fused_multiply_add(alpha, value, p._data)
    p._bump()


def _scale(p, factor):
    p._data *= factor
    p._bump()


def _check_lr(lr):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_common(lr, eps, betas, weight_decay):
    """Adam-family checks, in PyTorch's order."""
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class _PerParameter(Optimizer):
    """An optimizer whose state is, per parameter, a dict of tensors under PyTorch's keys,
    shaped like the parameter or 0-d (``_scalars``); ``_step`` updates a dict of their arrays."""

    _scalars = ("step",)
    _fixed_options = {"capturable": False, "differentiable": False}

    def __init__(self, params, defaults, capturable=False, differentiable=False):
        for name, value in (("capturable", capturable), ("differentiable", differentiable)):
            if value:
                raise NotImplementedError(f"{type(self).__name__}({name}=True) is not supported by this engine")
        super().__init__(params, defaults)

    def _fresh(self, p, group):
        raise NotImplementedError

    def _state(self, p, group):
        state = self.state[p]
        if not state:
            state.update((k, Tensor._make(np.asarray(v))) for k, v in self._fresh(p, group).items())
        return state

    def _grads(self, group):
        """(parameter, gradient array) for the group's parameters that have a gradient,
        negated when the group maximizes."""
        for p in group["params"]:
            if p._grad is not None:
                grad = p._grad._data
                yield p, (-grad if group["maximize"] else grad)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for p, grad in self._grads(group):
                state = self._state(p, group)
                arrays = {k: t._data for k, t in state.items()}
                self._step(group, p, grad, arrays)
                for k, t in state.items():          # the new values into the same tensors
                    if arrays[k] is not t._data:
                        t._data = np.asarray(arrays[k], t._data.dtype)
        return loss


class Adadelta(_PerParameter):
    """Adadelta (Zeiler): the step is the gradient scaled by the ratio of the running RMS of
    past steps to the running RMS of gradients, times ``lr``.

    >>> from diffcompare import autograd as ag
    >>> w = ag.tensor([3.0], requires_grad=True)
    >>> opt = ag.optim.Adadelta([w], lr=1.0, rho=0.0, eps=1e-6)
    >>> (w * 2).sum().backward(); opt.step()
    >>> round(3.0 - w.item(), 9)                 # sqrt(eps) / sqrt(4 + eps) * 2
    0.001
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach), capturable, differentiable)

    def _fresh(self, p, group):
        return {"step": np.zeros((), scalar_dtype()), "square_avg": np.zeros_like(p._data),
                "acc_delta": np.zeros_like(p._data)}

    def _step(self, group, p, grad, state):
        rho, eps = group["rho"], group["eps"]
        state["step"] = state["step"] + 1
        if group["weight_decay"] != 0:
            grad = fused_multiply_add(group["weight_decay"], p._data, grad)
        square_avg = state["square_avg"] = fused_multiply_add((1 - rho) * grad, grad, state["square_avg"] * rho)
        std = np.sqrt(square_avg + eps)
        delta = np.sqrt(state["acc_delta"] + eps) / std * grad
        state["acc_delta"] = fused_multiply_add((1 - rho) * delta, delta, state["acc_delta"] * rho)
        _add(p, delta, -group["lr"])


class Adamax(_PerParameter):
    """Adamax (Kingma & Ba): Adam with the infinity norm, ``exp_inf = max(beta2 * exp_inf, |g| + eps)``.

    >>> from diffcompare import autograd as ag
    >>> w = ag.tensor([1.0], requires_grad=True)
    >>> opt = ag.optim.Adamax([w], lr=0.1)
    >>> (w * 5).sum().backward(); opt.step(); w      # the first step is lr times the sign
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_common(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize), capturable, differentiable)

    def _fresh(self, p, group):
        return {"step": np.zeros((), scalar_dtype()), "exp_avg": np.zeros_like(p._data), "exp_inf": np.zeros_like(p._data)}

    def _step(self, group, p, grad, state):
        beta1, beta2 = group["betas"]
        state["step"] = state["step"] + 1
        if group["weight_decay"] != 0:
            grad = fused_multiply_add(group["weight_decay"], p._data, grad)
        exp_avg = state["exp_avg"] = fused_lerp(state["exp_avg"], grad, 1 - beta1)
        exp_inf = state["exp_inf"] = np.maximum(state["exp_inf"] * beta2, np.abs(grad) + group["eps"])
        clr = group["lr"] / (1 - beta1 ** float(state["step"]))
        _add(p, -clr * exp_avg / exp_inf)


class NAdam(_PerParameter):
    """NAdam (Dozat): Adam with Nesterov momentum, the momentum coefficient warming up as
    ``beta1 * (1 - 0.5 * 0.96 ** (step * momentum_decay))``; ``decoupled_weight_decay`` makes it
    NAdamW.

    >>> from diffcompare import autograd as ag
    >>> w = ag.tensor([1.0], requires_grad=True)
    >>> opt = ag.optim.NAdam([w])
    >>> (w * 3).sum().backward(); opt.step(); round(w.item(), 6)
    0.997887
    """

    _scalars = ("step", "mu_product")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_common(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach), capturable, differentiable)

    def _fresh(self, p, group):
        return {"step": np.zeros((), scalar_dtype()), "mu_product": np.ones((), scalar_dtype()),
                "exp_avg": np.zeros_like(p._data), "exp_avg_sq": np.zeros_like(p._data)}

    def _step(self, group, p, grad, state):
        (beta1, beta2), lr, wd, md = group["betas"], group["lr"], group["weight_decay"], group["momentum_decay"]
        state["step"] = state["step"] + 1
        step = float(state["step"])
        bias_correction2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                _scale(p, 1 - lr * wd)
            else:
                grad = fused_multiply_add(wd, p._data, grad)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * md)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * md)))
        state["mu_product"] = np.array(state["mu_product"] * mu, scalar_dtype())
        exp_avg = state["exp_avg"] = fused_lerp(state["exp_avg"], grad, 1 - beta1)
        exp_avg_sq = state["exp_avg_sq"] = fused_multiply_add((1 - beta2) * grad, grad, state["exp_avg_sq"] * beta2)
        denom = np.sqrt(exp_avg_sq / bias_correction2)
        mu_product = float(state["mu_product"])
        mu_product_next = mu_product * mu_next
        denom = denom + group["eps"]
        _add(p, (-lr * (1.0 - mu) / (1.0 - mu_product)) * grad / denom)
        _add(p, ((-lr * mu_next) / (1.0 - mu_product_next)) * exp_avg / denom)


class RAdam(_PerParameter):
    """RAdam (Liu et al.): Adam whose adaptive step is switched on, rectified, once the
    variance of the adaptive learning rate is tractable (``rho_t > 5``); before that, SGD with
    momentum. ``decoupled_weight_decay`` makes it RAdamW.

    >>> from diffcompare import autograd as ag
    >>> w = ag.tensor([1.0], requires_grad=True)
    >>> opt = ag.optim.RAdam([w], lr=0.1)
    >>> (w * 3).sum().backward(); opt.step(); w      # first step: lr times the gradient
    tensor([0.7000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check_common(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, decoupled_weight_decay=decoupled_weight_decay),
                         capturable, differentiable)

    def _fresh(self, p, group):
        return {"step": np.zeros((), scalar_dtype()), "exp_avg": np.zeros_like(p._data), "exp_avg_sq": np.zeros_like(p._data)}

    def _step(self, group, p, grad, state):
        (beta1, beta2), lr, wd, eps = group["betas"], group["lr"], group["weight_decay"], group["eps"]
        state["step"] = state["step"] + 1
        step = float(state["step"])
        if wd != 0:
            if group["decoupled_weight_decay"]:
                _scale(p, 1 - lr * wd)
            else:
                grad = fused_multiply_add(wd, p._data, grad)
        exp_avg = state["exp_avg"] = fused_lerp(state["exp_avg"], grad, 1 - beta1)
        exp_avg_sq = state["exp_avg_sq"] = fused_multiply_add((1 - beta2) * grad, grad, state["exp_avg_sq"] * beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            adaptive = (bias_correction2 ** 0.5) / (np.sqrt(exp_avg_sq) + eps)
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            _add(p, -1.0 * (corrected * lr * adaptive * rect))
        else:
            _add(p, -1.0 * (corrected * lr))


class ASGD(_PerParameter):
    """Averaged SGD (Polyak & Juditsky): SGD with a decaying step ``eta = lr / (1 + lambd lr
    step) ** alpha`` and a running average ``ax`` of the iterates from step ``t0`` on.

    >>> from diffcompare import autograd as ag
    >>> w = ag.tensor([1.0], requires_grad=True)
    >>> opt = ag.optim.ASGD([w], lr=0.1, lambd=0.0)
    >>> (w * 2).sum().backward(); opt.step(); w
    tensor([0.8000], requires_grad=True)
    """

    _scalars = ("step", "eta", "mu")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize), capturable, differentiable)

    def _fresh(self, p, group):
        return {"step": np.zeros((), scalar_dtype()), "eta": np.array(group["lr"], scalar_dtype()), "mu": np.ones((), scalar_dtype()),
                "ax": np.zeros_like(p._data)}

    def _step(self, group, p, grad, state):
        lr, lambd = group["lr"], group["lambd"]
        state["step"] = state["step"] + 1
        if group["weight_decay"] != 0:
            grad = fused_multiply_add(group["weight_decay"], p._data, grad)
        eta = float(state["eta"])
        _scale(p, 1 - lambd * eta)
        _add(p, grad, -eta)
        if float(state["mu"]) != 1:
            state["ax"] = state["ax"] + (p._data - state["ax"]) * state["mu"]
        else:
            state["ax"] = p._data.copy()
        step = float(state["step"])
        state["eta"] = np.array(lr / ((1 + lambd * lr * step) ** group["alpha"]), scalar_dtype())
        state["mu"] = np.array(1 / max(1, step - group["t0"]), scalar_dtype())


class Rprop(_PerParameter):
    """Rprop (Riedmiller & Braun): each coordinate moves by its own step size against the
    gradient's sign; the size grows by ``etas[1]`` while the sign holds and shrinks by
    ``etas[0]`` (skipping that update) when it flips, kept within ``step_sizes``."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize),
                         capturable, differentiable)

    def _fresh(self, p, group):
        return {"step": np.zeros((), scalar_dtype()), "prev": np.zeros_like(p._data),
                "step_size": np.full_like(p._data, group["lr"])}

    def _step(self, group, p, grad, state):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        state["step"] = state["step"] + 1
        sign = np.array(np.sign(grad * state["prev"]))
        sign[sign > 0] = etaplus
        sign[sign < 0] = etaminus
        sign[sign == 0] = 1
        step_size = state["step_size"] = np.clip(state["step_size"] * sign, step_size_min, step_size_max)
        grad = np.array(grad)
        grad[sign == etaminus] = 0
        _add(p, -1 * np.sign(grad) * step_size)
        state["prev"] = grad

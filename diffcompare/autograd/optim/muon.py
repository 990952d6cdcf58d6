"""``torch.optim.Muon``: momentum whose update is orthogonalised by a Newton–Schulz
iteration, for the 2-d weights of hidden layers (PyTorch 2.9's optimizer).

PyTorch runs the iteration in bfloat16 and adds its bfloat16 result to the parameter; the
engine has no bfloat16 tensors, so the iteration is emulated in float32 with every value
rounded to bfloat16 where PyTorch's is (``dtypes.round_to_bfloat16``): the updates agree with
PyTorch's bit for bit on small matrices (on larger ones float32 sums in another order can round
an entry differently).

>>> from diffcompare import autograd as ag
>>> w = ag.tensor([[3.0, 0.0], [0.0, 1.0]], requires_grad=True)
>>> opt = ag.optim.Muon([w], lr=0.1, weight_decay=0.0)
>>> (w * ag.tensor([[1.0, 0.0], [0.0, 1.0]])).sum().backward()
>>> opt.step()
>>> w                      # the identity's step (orthogonalised), not the gradient's, scaled by lr
tensor([[2.8875, 0.0000],
        [0.0000, 0.8875]], requires_grad=True)
"""

from __future__ import annotations

import math

import numpy as np

from ..dtypes import round_to_bfloat16 as _bf16
from .optimizers import Optimizer, buffer_like, fused_lerp

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


def zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """The quintic Newton–Schulz iteration towards the orthogonal factor of ``grad`` (about
    U S' V^T with S' near 1), in emulated bfloat16 as PyTorch runs it."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float32(v) for v in ns_coefficients)
    x = _bf16(grad)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    norm = _bf16(np.sqrt(np.sum(x * x, dtype=np.float32)))
    x = _bf16(x / _bf16(max(norm, _bf16(np.float32(eps)))))
    for _ in range(ns_steps):
        gram = _bf16(x @ x.T)
        update = _bf16(b * gram + c * (gram @ gram))
        x = _bf16(a * x + update @ x)
    return x.T if tall else x


def _adjusted_lr(lr, adjust_lr_fn, shape):
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr


class Muon(Optimizer):
    """Muon: B = mu B + (1 - mu) g (a lerp), the Nesterov update g + mu (B - g) (or B), its
    Newton–Schulz orthogonalisation O; then p = p (1 - lr wd) - lr' O with lr' scaled by the
    matrix's shape (``adjust_lr_fn``: "original", sqrt(max(1, rows/cols)); "match_rms_adamw",
    0.2 sqrt(max(rows, cols))). Only 2-d parameters."""

    decoupled = True
    _fixed_options = {}

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                                      ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                                      adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{tuple(p.shape)}")

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group, p, g in self._with_grads():
            if p._data.dtype.kind == "c":
                raise RuntimeError("Muon does not support complex parameters")
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = buffer_like(p)
            buf = state["momentum_buffer"]
            momentum = group["momentum"]
            buf._data = fused_lerp(buf._data, g, 1 - momentum)
            update = fused_lerp(g, buf._data, momentum) if group["nesterov"] else buf._data
            update = zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
            lr = group["lr"]
            p._data *= 1 - lr * group["weight_decay"]
            self._add(p, -_adjusted_lr(lr, group["adjust_lr_fn"], p.shape), update.astype(p._data.dtype))
        return loss

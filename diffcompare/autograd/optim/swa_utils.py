"""``torch.optim.swa_utils``: weight averaging (``AveragedModel``: SWA's equal-weight running
mean, or an EMA), the ``SWALR`` schedule that anneals to a constant rate, and ``update_bn``,
which recomputes BatchNorm statistics for averaged weights — in PyTorch's CPU arithmetic.

>>> from diffcompare import autograd as ag
>>> net = ag.nn.Linear(1, 1, bias=False)
>>> swa = ag.optim.swa_utils.AveragedModel(net)
>>> for value in (1.0, 2.0, 6.0):
...     with ag.no_grad():
...         _ = net.weight.fill_(value)
...     swa.update_parameters(net)
>>> swa.module.weight.item(), int(swa.n_averaged)          # the mean of 1, 2 and 6
(3.0, 3)
"""

from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

import numpy as np

from ..grad_mode import no_grad
from ..nn import BatchNorm1d, BatchNorm2d, BatchNorm3d, Module
from ..tensor import Tensor
from .lr_scheduler import LRScheduler
from .optimizers import fused_multiply_add

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn", "get_swa_avg_fn",
           "get_swa_multi_avg_fn", "update_bn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _lerp_into(target, end, weight):
    """``target.lerp_(end, weight)`` in place on a tensor's array (ATen's fused formula)."""
    a, b = target._data, end._data if isinstance(end, Tensor) else np.asarray(end)
    if abs(weight) < 0.5:
        a[...] = fused_multiply_add(weight, b - a, a)
    else:
        a[...] = fused_multiply_add(-(b - a), 1 - weight, b)
    target._bump()


def get_ema_multi_avg_fn(decay=0.999):
    """An in-place EMA over lists of parameters: ``ema = decay ema + (1 - decay) current``."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _):
        with no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                if p_ema._data.dtype.kind in "fc":
                    _lerp_into(p_ema, p_model, 1 - decay)
                else:
                    p_ema._data[...] = p_ema._data * decay + p_model._data * (1 - decay)
                    p_ema._bump()
    return ema_update


def get_swa_multi_avg_fn():
    """An in-place equal-weight running mean over lists of parameters."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        n = float(num_averaged._data if isinstance(num_averaged, Tensor) else num_averaged)
        with no_grad():
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                if p_avg._data.dtype.kind in "fc":
                    _lerp_into(p_avg, p_model, 1 / (n + 1))
                else:
                    p_avg._data[...] = p_avg._data + (p_model._data - p_avg._data) / (n + 1)
                    p_avg._bump()
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """A per-parameter EMA: returns ``decay * ema_param + (1 - decay) * current_param``."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """A per-parameter running mean: returns ``avg + (current - avg) / (num_averaged + 1)``."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def _copy_into(target, source):
    target._data[...] = source._data
    target._bump()


class AveragedModel(Module):
    """A copy of ``model`` (``self.module``) whose parameters ``update_parameters(model)`` keeps
    as a running average of ``model``'s: equal weights by default (SWA), or ``avg_fn`` /
    ``multi_avg_fn`` (e.g. ``get_ema_multi_avg_fn(0.999)``). The first call copies. Buffers are
    copied from ``model`` unless ``use_buffers``, which averages them as well; ``n_averaged`` (an
    int64 buffer) counts the calls."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", Tensor._make(np.array(0, dtype=np.int64)))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model):
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        mine_detached, theirs_detached = [], []
        first = int(self.n_averaged._data) == 0
        for p_averaged, p_model in zip(mine, theirs):
            mine_detached.append(p_averaged)
            theirs_detached.append(p_model.detach())
            if first:
                _copy_into(p_averaged, p_model)
        if int(self.n_averaged._data) > 0:
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(mine_detached, theirs_detached, self.n_averaged)
            elif self.avg_fn is None:          # the CPU path: the per-parameter running mean
                avg_fn = get_swa_avg_fn()
                for p_averaged, p_model in zip(mine_detached, theirs_detached):
                    _copy_into(p_averaged, avg_fn(p_averaged.detach(), p_model, self.n_averaged))
            else:
                for p_averaged, p_model in zip(mine_detached, theirs_detached):
                    _copy_into(p_averaged, self.avg_fn(p_averaged.detach(), p_model, self.n_averaged))
        if not self.use_buffers:
            for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                _copy_into(b_swa, b_model)
        self.n_averaged._data += 1
        self.n_averaged._bump()


def update_bn(loader, model, device=None):
    """Recompute the running statistics of ``model``'s BatchNorm layers with one pass over
    ``loader`` (each batch a tensor, or a list/tuple whose first item is the input) as a
    cumulative average, the layers' momentum and the model's training mode restored afterwards."""
    with no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, (BatchNorm1d, BatchNorm2d, BatchNorm3d)):
                if module.track_running_stats:
                    module.running_mean._data[...] = 0
                    module.running_var._data[...] = 1
                    module.num_batches_tracked._data[...] = 0
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for module, momentum in momenta.items():
            module.momentum = momentum
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's rate from its current value to ``swa_lr`` over ``anneal_epochs``
    steps (``"cos"`` or ``"linear"``), then holds it there."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        if isinstance(swa_lr, (list, tuple)):
            if len(swa_lr) != len(optimizer.param_groups):
                raise ValueError(f"swa_lr must have the same length as optimizer.param_groups. swa_lr has "
                                 f"{len(swa_lr)} values, param_groups has {len(optimizer.param_groups)}.")
            swa_lrs = list(swa_lr)
        else:
            swa_lrs = [swa_lr] * len(optimizer.param_groups)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not getattr(self, "_get_lr_called_within_step", False):
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)

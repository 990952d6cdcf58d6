"""The base ``Optimizer`` (param groups, ``add_param_group``, ``zero_grad``, ``state_dict``)
and ``SGD``, ``Adam``, ``AdamW``, ``RMSprop`` and ``Adagrad``, updating parameters in place as
``torch.optim`` does, with its fused multiply-adds (``fused_multiply_add``), so a step on the same gradient
gives the same bits.

>>> from diffcompare import autograd as ag
>>> w = ag.tensor([1.0, -2.0], requires_grad=True)
>>> opt = ag.optim.SGD([w], lr=0.1)
>>> (w * w).sum().backward()
>>> opt.step()
>>> w
tensor([ 0.8000, -1.6000], requires_grad=True)
"""

from __future__ import annotations

import functools
import warnings
from collections import defaultdict

import numpy as np

from ..dtypes import default_dtype
from ..fused import fused_multiply_add  # noqa: F401  (the optimizers' add(.., alpha=), addcmul)
from ..grad_mode import enable_grad
from ..nn import zero_grad_of
from ..tensor import HookHandle, Tensor


def state_array(value, dtype=None):
    """A copy of a saved state value (an engine tensor, a torch tensor, an array) as ``dtype``
    (None: its own)."""
    if isinstance(value, Tensor):
        value = value._data
    elif hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.array(value, dtype=dtype)


def scalar_dtype():
    """The dtype of an optimizer's scalar state (step counts, NAdam's mu product): float64 under
    a float64 default dtype, else float32 (PyTorch's ``_get_scalar_dtype``)."""
    return np.dtype(np.float64) if default_dtype() == np.float64 else np.dtype(np.float32)


def scalar_tensor(value=0.0):
    """A 0-d state tensor of :func:`scalar_dtype` (a step count, as PyTorch keeps it)."""
    return Tensor._make(np.array(value, scalar_dtype()))


def buffer_like(p, fill=0.0):
    """A state tensor shaped like the parameter ``p``, filled with ``fill``."""
    return Tensor._make(np.full_like(p._data, fill))


def loaded_value(key, value, p):
    """A saved state value as ``load_state_dict`` keeps it (PyTorch's policy): tensors of either
    library as engine tensors (an engine tensor that fits: itself), ``step`` in its own dtype (a number: a 0-d tensor of
    :func:`scalar_dtype`), other floating tensors in the parameter's dtype; anything else as is."""
    if isinstance(value, Tensor) and (key == "step" or value._data.dtype == p.dtype or value._data.dtype.kind != "f"):
        return value            # kept, not copied, as PyTorch's ``.to`` keeps a tensor that fits
    if isinstance(value, Tensor) or hasattr(value, "detach"):
        array = state_array(value)
        if key != "step" and array.dtype.kind == "f" and p.dtype.kind == "f":
            array = array.astype(p.dtype)
        return Tensor._make(array)
    if key == "step":
        return scalar_tensor(float(value))
    return value


def _typename(value):
    return value.type() if isinstance(value, Tensor) else type(value).__name__


def fused_lerp(start, end, weight):
    """``start.lerp(end, weight)`` with ATen's fused formula (exact at both ends)."""
    if abs(weight) < 0.5:
        return fused_multiply_add(weight, end - start, start)
    return fused_multiply_add(-(end - start), 1 - weight, end)


_GLOBAL_PRE_HOOKS: dict = {}
_GLOBAL_POST_HOOKS: dict = {}


def _hook_handle(table, hook, prepend):
    """A handle for ``hook`` added to ``table`` (last, or first with ``prepend``)."""
    handle = HookHandle(table, hook)
    if prepend:
        items = list(table.items())
        table.clear()
        table.update([items[-1]] + items[:-1])
    return handle


def register_optimizer_step_pre_hook(hook):
    """``hook(optimizer, args, kwargs)`` before every optimizer's ``step`` (before its own hooks)."""
    return HookHandle(_GLOBAL_PRE_HOOKS, hook)


def register_optimizer_step_post_hook(hook):
    """``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    return HookHandle(_GLOBAL_POST_HOOKS, hook)


def _hook_step(cls):
    """Wrap ``cls.step`` (once) to run the step hooks around it, as PyTorch patches the step of
    each optimizer class it makes: a subclass's step that calls its parent's runs them once."""
    step = cls.step
    if getattr(step, "_runs_step_hooks", False):
        return

    @functools.wraps(step)
    def with_hooks(*args, **kwargs):
        # the hooks get the step's arguments as PyTorch gives them: the optimizer first among them
        self = args[0]
        pre, post = self.__dict__.get("_optimizer_step_pre_hooks"), self.__dict__.get("_optimizer_step_post_hooks")
        if not (pre or post or _GLOBAL_PRE_HOOKS or _GLOBAL_POST_HOOKS):
            return step(*args, **kwargs)
        for hook in (*_GLOBAL_PRE_HOOKS.values(), *(pre or {}).values()):
            changed = hook(self, args, kwargs)
            if changed is not None:
                if not (isinstance(changed, tuple) and len(changed) == 2):
                    raise RuntimeError(f"{hook} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{changed}.")
                args, kwargs = changed
        result = step(*args, **kwargs)
        for hook in (*(post or {}).values(), *_GLOBAL_POST_HOOKS.values()):
            hook(self, args, kwargs)
        return result
    with_hooks._runs_step_hooks = True
    cls.step = with_hooks


class Optimizer:
    """The base: ``param_groups`` (each a dict of options with its ``params``), ``state`` (keyed
    by the parameter, each a dict of tensors under PyTorch's names: ``opt.state[p]["exp_avg"]``),
    ``zero_grad``, ``add_param_group`` and ``state_dict``.

    >>> from diffcompare import autograd as ag
    >>> w = ag.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ag.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step()
    >>> opt.state[w]["step"], opt.state[w]["exp_avg"]
    (tensor(1.), tensor([ 0.2000, -0.4000]))
    """

    def __init__(self, params, defaults):
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got {_typename(params)}")
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        self._optimizer_step_pre_hooks, self._optimizer_step_post_hooks = {}, {}
        self._optimizer_state_dict_pre_hooks, self._optimizer_state_dict_post_hooks = {}, {}
        self._optimizer_load_state_dict_pre_hooks, self._optimizer_load_state_dict_post_hooks = {}, {}
        _hook_step(type(self))
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __repr__(self):
        """PyTorch's: the class, then each group's options (not its params) in sorted order."""
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {key}: {group[key]}\n" for key in sorted(group) if key != "params")
        return text + ")"

    def register_step_pre_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` before every ``step``; a returned ``(args,
        kwargs)`` replaces the step's arguments. Returns a handle with ``remove()``."""
        return HookHandle(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """Call ``hook(optimizer, args, kwargs)`` after every ``step``."""
        return HookHandle(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """Call ``hook(optimizer)`` before ``state_dict`` builds its dict."""
        return _hook_handle(self.__dict__.setdefault("_optimizer_state_dict_pre_hooks", {}), hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """Call ``hook(optimizer, state_dict)`` on what ``state_dict`` built; a returned dict
        replaces it."""
        return _hook_handle(self.__dict__.setdefault("_optimizer_state_dict_post_hooks", {}), hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """Call ``hook(optimizer, state_dict)`` before ``load_state_dict`` reads it; a returned
        dict is loaded instead (as PyTorch's optim page adapts a state dict to renamed
        parameters)."""
        return _hook_handle(self.__dict__.setdefault("_optimizer_load_state_dict_pre_hooks", {}), hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """Call ``hook(optimizer)`` after ``load_state_dict``."""
        return _hook_handle(self.__dict__.setdefault("_optimizer_load_state_dict_post_hooks", {}), hook, prepend)

    def add_param_group(self, param_group):
        """Add a group (a dict with ``params`` and any options; the rest from the defaults), with
        PyTorch's checks. ``params`` may hold ``(name, tensor)`` pairs (``named_parameters()``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_typename(p)}")
            if not (p.is_leaf or p._retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        for name, value in self._fixed_options.items():     # PyTorch's flags, shown as PyTorch shows them
            param_group.setdefault(name, value)
        if len({id(p) for p in params}) != len(params):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                text = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {text} to the optimizer")
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)
        self._group_added(param_group)

    def _group_added(self, group):
        """For an optimizer whose state starts at construction (Adagrad)."""

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                zero_grad_of(p, set_to_none)

    decoupled = False   # AdamW: weight decay shrinks the parameter instead of adding to the gradient

    # PyTorch's group options that this engine does not act on, with the values state_dict()
    # shows for them (and load_state_dict() accepts)
    _fixed_options = {"foreach": None, "differentiable": False, "fused": None}

    def _implementation(self, **options):
        """PyTorch's options that choose how a step is computed, not what it computes:
        ``foreach`` and ``fused`` (the same updates, here by one implementation) are taken and
        shown in ``state_dict()``; ``capturable`` and ``differentiable`` (CUDA graphs, a step
        recorded for autograd) are refused when set."""
        for name in ("capturable", "differentiable"):
            if options.get(name):
                raise NotImplementedError(f"{type(self).__name__}({name}=True) is not supported by this engine")
        self._fixed_options = {**type(self)._fixed_options,
                               **{k: v for k, v in options.items() if k in ("foreach", "fused")}}

    def _params(self):
        return [p for group in self.param_groups for p in group["params"]]

    def _state_out(self, p, state, group):
        """A parameter's state as ``state_dict()`` shows it: the dict itself, as in PyTorch."""
        return state

    def _state_in(self, p, saved, group):
        """A saved parameter state as this optimizer keeps it (``loaded_value``)."""
        return {k: loaded_value(k, v, p) for k, v in saved.items()}

    def state_dict(self):
        """PyTorch's layout: ``state`` (per parameter index, its state under PyTorch's names, as
        tensors) and ``param_groups`` (each group's options and its parameters' indices). As in
        PyTorch, the state is the optimizer's own: a later ``step`` changes it (``copy.deepcopy``
        keeps a snapshot). The hooks registered with ``register_state_dict_pre_hook`` and
        ``register_state_dict_post_hook`` run before and after."""
        for hook in list(self.__dict__.get("_optimizer_state_dict_pre_hooks", {}).values()):
            hook(self)
        groups, state, index = [], {}, 0
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for k, v in self._fixed_options.items():
                packed.setdefault(k, v)
            for p in group["params"]:
                if p in self.state:
                    saved = self._state_out(p, self.state[p], group)
                    if saved is not None:
                        state[index] = saved
                index += 1
            packed["params"] = list(range(index - len(group["params"]), index))
            groups.append(packed)
        result = {"state": state, "param_groups": groups}
        for hook in list(self.__dict__.get("_optimizer_state_dict_post_hooks", {}).values()):
            replaced = hook(self, result)
            if replaced is not None:
                result = replaced
        return result

    def load_state_dict(self, state_dict):
        """Take the options and buffers of ``state_dict`` (from ``state_dict()`` here or in PyTorch)
        for this optimizer's parameters, matched by position. The hooks registered with
        ``register_load_state_dict_pre_hook`` (which may replace the dict) and
        ``register_load_state_dict_post_hook`` run before and after."""
        state_dict = dict(state_dict)
        for hook in list(self.__dict__.get("_optimizer_load_state_dict_pre_hooks", {}).values()):
            replaced = hook(self, state_dict)
            if replaced is not None:
                state_dict = replaced
        self._load(state_dict)
        for hook in list(self.__dict__.get("_optimizer_load_state_dict_post_hooks", {}).values()):
            hook(self)

    def _load(self, state_dict):
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        by_index, group_of = {}, {}
        for group, saved in zip(self.param_groups, saved_groups):
            for k, v in saved.items():
                if k == "params":
                    continue
                if k in ("foreach", "fused"):
                    continue        # how a step is computed, not what it computes
                if k in self._fixed_options:
                    if v != self._fixed_options[k]:
                        raise NotImplementedError(f"{k}={v!r} is not supported by this engine")
                    continue
                group[k] = tuple(v) if k == "betas" else v
            for i, p in zip(saved["params"], group["params"]):
                by_index[i], group_of[i] = p, group
        self.state = defaultdict(dict)
        for i, saved in state_dict["state"].items():
            p = by_index[i]
            self.state[p] = self._state_in(p, saved, group_of[i])

    @staticmethod
    def _evaluate(closure):
        """The closure's loss, computed with gradient recording on (as PyTorch's ``step`` does)."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    def _with_grads(self):
        """(group, parameter, gradient array) for every parameter that has a gradient, negated
        when the group maximizes, with L2 weight decay added unless it is decoupled."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    grad = p._grad._data
                    if group.get("maximize"):
                        grad = -grad
                    if group.get("weight_decay") and not self.decoupled:
                        grad = fused_multiply_add(group["weight_decay"], p._data, grad)
                    yield group, p, grad

    def _add(self, p, alpha, x):
        """``p.add_(x, alpha=alpha)``: fused, as PyTorch's CPU kernel, version bump included."""
        p._data[...] = fused_multiply_add(alpha, x, p._data)
        p._bump()

    def _update(self, p, delta):
        # The same in-place write as `with no_grad(): p -= delta`, version bump included.
        p._data -= delta.astype(p.dtype, copy=False)
        p._bump()


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov and weight decay."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        self._implementation(foreach=foreach, differentiable=differentiable, fused=fused)
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov, maximize=maximize))

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group, p, d in self._with_grads():
            if group["momentum"]:
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = state["momentum_buffer"] = Tensor._make(np.array(d))
                else:
                    buf._data = fused_multiply_add(1 - group["dampening"], d, group["momentum"] * buf._data)
                d = fused_multiply_add(group["momentum"], buf._data, d) if group["nesterov"] else buf._data
            self._add(p, -group["lr"], d)
        return loss


class Adam(Optimizer):
    """Adam (Kingma & Ba) with bias correction, in PyTorch's arithmetic; ``weight_decay`` adds
    L2 to the gradient (AdamW decouples it)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        self._implementation(foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused)
        if decoupled_weight_decay:      # Adam(decoupled_weight_decay=True) is AdamW's step
            self.decoupled = True
            self._fixed_options = {**self._fixed_options, "decoupled_weight_decay": True}
        _check(lr=lr, eps=eps, weight_decay=weight_decay)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group, p, g in self._with_grads():
            b1, b2 = group["betas"]
            if self.decoupled:
                p._data *= 1 - group["lr"] * group["weight_decay"]
            state = self.state[p]
            if not state:
                state["step"], state["exp_avg"], state["exp_avg_sq"] = scalar_tensor(), buffer_like(p), buffer_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = buffer_like(p)
            step_t, m, v = state["step"], state["exp_avg"], state["exp_avg_sq"]
            step_t._data += 1
            step = float(step_t._data)
            m._data = fused_lerp(m._data, g, 1 - b1)
            v._data = fused_multiply_add((1 - b2) * g, g, v._data * b2)
            second = v._data
            if group["amsgrad"]:
                vmax = state["max_exp_avg_sq"]
                second = vmax._data = np.maximum(vmax._data, second)
            correction1 = 1 - b1 ** step
            correction2 = 1 - b2 ** step
            denom = np.sqrt(second) / np.sqrt(correction2) + group["eps"]
            self._update(p, group["lr"] / correction1 * m._data / denom)
        return loss

    _fixed_options = {"foreach": None, "capturable": False, "differentiable": False, "fused": None,
                      "decoupled_weight_decay": False}



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
    _fixed_options = {**Adam._fixed_options, "decoupled_weight_decay": True}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize, foreach=foreach,
                         capturable=capturable, differentiable=differentiable, fused=fused)


class RMSprop(Optimizer):
    """RMSprop: the gradient divided by the root of a running mean of its square (centred on
    the running mean of the gradient if ``centered``), with optional momentum."""

    _fixed_options = {"capturable": False, "foreach": None, "differentiable": False}

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        self._implementation(capturable=capturable, foreach=foreach, differentiable=differentiable)
        _check(lr=lr, eps=eps, weight_decay=weight_decay, momentum=momentum, alpha=alpha)
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group, p, g in self._with_grads():
            alpha = group["alpha"]
            state = self.state[p]
            if not state:
                state["step"], state["square_avg"] = scalar_tensor(), buffer_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = buffer_like(p)
                if group["centered"]:
                    state["grad_avg"] = buffer_like(p)
            state["step"]._data += 1
            square_avg = state["square_avg"]
            square_avg._data = fused_multiply_add((1 - alpha) * g, g, square_avg._data * alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]
                grad_avg._data = fused_lerp(grad_avg._data, g, 1 - alpha)
                avg = np.sqrt(fused_multiply_add(-grad_avg._data, grad_avg._data, square_avg._data)) + group["eps"]
            else:
                avg = np.sqrt(square_avg._data) + group["eps"]
            if group["momentum"] > 0:
                buf = state["momentum_buffer"]
                buf._data = buf._data * group["momentum"] + g / avg
                self._add(p, -group["lr"], buf._data)
            else:
                self._update(p, group["lr"] * g / avg)
        return loss


class Adagrad(Optimizer):
    """Adagrad: the gradient divided by the root of the sum of its past squares, with a
    learning rate decaying as lr / (1 + (step - 1) lr_decay)."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        self._implementation(foreach=foreach, differentiable=differentiable, fused=fused)
        _check(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, eps=eps,
               initial_accumulator_value=initial_accumulator_value)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay, eps=eps,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize))

    def _group_added(self, group):
        for p in group["params"]:
            self.state[p] = {"step": scalar_tensor(), "sum": buffer_like(p, group["initial_accumulator_value"])}

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group, p, g in self._with_grads():
            state = self.state[p]
            state["step"]._data += 1
            clr = group["lr"] / (1 + (float(state["step"]._data) - 1) * group["lr_decay"])
            total = state["sum"]
            total._data = fused_multiply_add(g, g, total._data)
            self._update(p, clr * g / (np.sqrt(total._data) + group["eps"]))
        return loss


_WORDS = {"lr": "learning rate", "eps": "epsilon value", "weight_decay": "weight_decay value",
          "momentum": "momentum value", "alpha": "alpha value", "lr_decay": "lr_decay value",
          "initial_accumulator_value": "initial_accumulator_value value"}


def _check(**values):
    """PyTorch's ValueError for a negative hyperparameter."""
    for name, value in values.items():
        if value < 0:
            raise ValueError(f"Invalid {_WORDS[name]}: {value}")

"""``torch.amp``: mixed-precision training's loss scaler and autocast context, as they behave
on a CPU.

``GradScaler`` is PyTorch's: the loss is multiplied by a scale (65536 at first), the
gradients are divided by it before the optimizer steps, a step whose gradients hold an inf or
a nan is skipped and the scale halved, and after ``growth_interval`` clean steps it doubles.
On the CPU device it works as PyTorch's does; asked for CUDA (``torch.amp.GradScaler()``'s
default, ``torch.cuda.amp.GradScaler``) it warns and disables itself, as PyTorch does on a
machine without CUDA, and then passes everything through unchanged.

``autocast`` records that it is on (``is_autocast_enabled``) but does not lower precision: on
a CPU, PyTorch runs float32 matrix products and convolutions in bfloat16 or float16 inside it,
which the engine does not (NumPy has no bfloat16), so entering it enabled warns once; float64
operations are left alone by PyTorch as well, so float64 code inside it gives PyTorch's values.

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> opt = ag.optim.SGD([x], lr=0.1)
>>> scaler = ag.amp.GradScaler("cpu")
>>> scaler.scale((x ** 2).sum()).backward()
>>> x.grad                                   # scaled by 65536
tensor([131072., 262144.])
>>> scaler.step(opt); scaler.update()
>>> x.grad, x.detach()                       # unscaled before the step
(tensor([2., 4.]), tensor([0.8000, 1.6000]))
"""

from __future__ import annotations

import warnings

import numpy as np

from .device import device as _device
from .device import namespace
from .dtypes import bfloat16, float16
from .tensor import Tensor

_NO_CUDA = "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling."


def _device_type(device) -> str:
    return _device(device).type if not isinstance(device, _device) else device.type


class GradScaler:
    """``torch.amp.GradScaler(device="cuda", init_scale=2.0**16, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True)``."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = _device_type(device)
        self._enabled = bool(enabled)
        if self._enabled and self._device == "cuda":
            warnings.warn(_NO_CUDA, UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale, self._growth_factor = float(init_scale), float(growth_factor)
        self._backoff_factor, self._growth_interval = float(backoff_factor), int(growth_interval)
        self._scale = None                  # float32, made at the first scale() (as PyTorch's lazy init)
        self._growth_tracker = 0
        self._per_optimizer = {}            # id(optimizer) -> {"stage": ..., "found_inf": bool}

    def is_enabled(self) -> bool:
        return self._enabled

    def _lazy_scale(self):
        if self._scale is None:
            self._scale = np.float32(self._init_scale)
        return self._scale

    def scale(self, outputs):
        """``outputs`` (a tensor, or a list/tuple of them, nested) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * Tensor._make(np.array(self._lazy_scale(), dtype=np.float32))
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _state(self, optimizer):
        return self._per_optimizer.setdefault(id(optimizer), {"stage": "ready", "found_inf": False})

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, in place; note whether one is not finite."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == "unscaled":
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")
        inv_scale = np.float32(1.0 / np.float64(self._scale))
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                data = g._data
                if not np.all(np.isfinite(data)):
                    found = True
                data *= inv_scale.astype(data.dtype) if data.dtype != np.float32 else inv_scale
        state["found_inf"] = found
        state["stage"] = "unscaled"

    def step(self, optimizer, *args, **kwargs):
        """Unscale (unless done), then ``optimizer.step()`` unless a gradient was inf or nan."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] == "stepped":
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == "ready":
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = "stepped"
        return result

    def update(self, new_scale=None):
        """The next scale: ``new_scale`` if given; else halved after an inf/nan, doubled after
        ``growth_interval`` clean steps."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError("Attempted update but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")
        if new_scale is not None:
            value = new_scale.item() if isinstance(new_scale, Tensor) else new_scale
            self._scale = np.float32(value)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values() if s["stage"] != "ready"]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale = np.float32(self._scale * np.float32(self._backoff_factor))
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale = np.float32(self._scale * np.float32(self._growth_factor))
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return float(self._lazy_scale()) if self._scale is None else float(self._scale)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor) -> None:
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor) -> None:
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval) -> None:
        self._growth_interval = int(new_interval)

    def _get_growth_tracker(self) -> int:
        return self._growth_tracker

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        self._scale = np.float32(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])


class _Autocast:
    enabled = {}        # device type -> dtype while an autocast region is on


_STATE = _Autocast()
_WARNED = []


class autocast:  # noqa: N801 - PyTorch's name
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a context
    (and decorator) marking a mixed-precision region. The engine does not lower precision in it
    (see the module's note): enabled, it warns once; float64 code runs as in PyTorch."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        self.device = _device_type(device_type)
        self.dtype = dtype if dtype is not None else (bfloat16 if self.device == "cpu" else float16)
        self.on = bool(enabled)
        if self.on and self.device == "cpu" and self.dtype is not bfloat16 and self.dtype != float16:
            warnings.warn("In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                          "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          UserWarning, stacklevel=2)
            self.on = False
        if self.on and self.device == "cuda":
            warnings.warn("User provided device_type of 'cuda', but CUDA is not available. Disabling",
                          UserWarning, stacklevel=2)
            self.on = False

    def __enter__(self):
        self._before = _STATE.enabled.get(self.device)
        if self.on:
            if not _WARNED:
                _WARNED.append(True)
                warnings.warn("autocast does not lower precision on this engine: float32 matrix products and "
                              "convolutions run in float32 (PyTorch would run them in "
                              f"{self.dtype}); float64 operations are unaffected, as in PyTorch",
                              UserWarning, stacklevel=2)
            _STATE.enabled[self.device] = self.dtype
        else:
            _STATE.enabled.pop(self.device, None)
        return self

    def __exit__(self, *exc):
        if self._before is None:
            _STATE.enabled.pop(self.device, None)
        else:
            _STATE.enabled[self.device] = self._before
        return False

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            with autocast(self.device, self.dtype, self.on):
                return func(*args, **kwargs)
        return wrapped


def is_autocast_enabled(device_type="cuda") -> bool:
    """Whether an enabled autocast region of ``device_type`` is active (PyTorch's)."""
    return _device_type(device_type) in _STATE.enabled


def is_autocast_cpu_enabled() -> bool:
    """PyTorch's deprecated ``torch.is_autocast_cpu_enabled()``: ``is_autocast_enabled("cpu")``."""
    warnings.warn("torch.is_autocast_cpu_enabled() is deprecated. Please use torch.is_autocast_enabled('cpu') instead.",
                  DeprecationWarning, stacklevel=2)
    return is_autocast_enabled("cpu")


def get_autocast_dtype(device_type) -> object:
    """The dtype autocast of ``device_type`` would use (bfloat16 on the CPU by default)."""
    device = _device_type(device_type)
    return _STATE.enabled.get(device, bfloat16 if device == "cpu" else float16)


def is_autocast_available(device_type) -> bool:
    return _device_type(device_type) == "cpu"


__all__ = ["GradScaler", "autocast", "get_autocast_dtype", "is_autocast_available", "is_autocast_cpu_enabled",
           "is_autocast_enabled"]


def _cuda_grad_scaler(init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True):
    """``torch.cuda.amp.GradScaler``: deprecated in PyTorch, and disabled without CUDA."""
    warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                  "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
    return GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def _cuda_autocast(enabled=True, dtype=float16, cache_enabled=True):
    """``torch.cuda.amp.autocast``: deprecated in PyTorch, and disabled without CUDA."""
    warnings.warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
                  "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
    return autocast("cuda", dtype, enabled, cache_enabled)


def _cpu_autocast(enabled=True, dtype=bfloat16, cache_enabled=True):
    """``torch.cpu.amp.autocast``: deprecated in PyTorch for ``torch.amp.autocast('cpu')``."""
    warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                  "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
    return autocast("cpu", dtype, enabled, cache_enabled)


CUDA_AMP = namespace("cuda.amp", "``torch.cuda.amp``: its GradScaler and autocast disable themselves (no CUDA).",
                     GradScaler=_cuda_grad_scaler, autocast=_cuda_autocast)
CPU = namespace("cpu", "``torch.cpu``: its ``amp.autocast`` (deprecated in PyTorch).",
                amp=namespace("cpu.amp", "``torch.cpu.amp``.", autocast=_cpu_autocast, GradScaler=GradScaler),
                is_available=lambda: True, device_count=lambda: 1)

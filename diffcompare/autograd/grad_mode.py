"""Global switches of the engine: whether operations are recorded, and anomaly mode.

Each switch works as a context manager and as a decorator, as in PyTorch:

>>> from diffcompare import autograd as ag
>>> x = ag.tensor([1.0, 2.0], requires_grad=True)
>>> with ag.no_grad():
...     y = x * 2
>>> y.requires_grad, y.is_leaf
(False, True)
>>> @ag.no_grad()
... def frozen(t):
...     return t * 3
>>> frozen(x).requires_grad
False
"""

from __future__ import annotations

import functools
import threading
import warnings


class _State(threading.local):
    """The flags, read on every operation. Per thread, as in PyTorch: no_grad in one
    thread (an audit's worker, say) leaves the others recording. The class attributes
    are every thread's starting values."""

    grad_enabled = True
    anomaly_enabled = False
    anomaly_check_nan = True
    recorder = None      # graph.recording: sees every node as it is recorded
    forward_level = 0    # forward-mode AD: the dual level open (0: none), see forward_ad.py
    dual_tensors = None  # weak references to the tensors given a tangent at that level, cleared when it closes
    saved_hooks = ()     # (pack_hook, unpack_hook) pairs of the active saved_tensors_hooks, innermost last
    saved_hooks_disabled = None   # the error message of disable_saved_tensors_hooks, while it is active
    inference_mode = False   # inside inference_mode(): grad recording is off as well
    mapping = 0          # vmap's per-example calls running (nested vmaps count each)
    vmap_randomness = ()  # the running vmaps' randomness modes ("error", "different", "same"), innermost last
    transforms = 0       # torch.func transforms (grad, vjp, jvp, jacrev, jacfwd) running the user's function
    # Recording with nothing extra to do (grad mode on; no anomaly mode, saved-tensor hooks,
    # recorder or dual level): one flag, read once per op instead of five. Kept by
    # __setattr__ whenever one of those changes, so no switch has to know of it.
    plain = True

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in _PLAIN_DEPENDS:
            super().__setattr__("plain", bool(self.grad_enabled and not self.anomaly_enabled and not self.saved_hooks
                                              and self.recorder is None and not self.forward_level))


_PLAIN_DEPENDS = frozenset({"grad_enabled", "anomaly_enabled", "saved_hooks", "recorder", "forward_level"})


STATE = _State()


def is_grad_enabled() -> bool:
    """True when new operations are recorded for backward."""
    return STATE.grad_enabled


class _GradModeContext:
    """Base of the grad-mode switches: context manager and decorator in one, usable as
    ``@no_grad()`` and, as in PyTorch, as ``@no_grad`` without parentheses."""

    _mode: bool

    def __new__(cls, func=None):
        self = super().__new__(cls)
        return self if func is None else self(func)

    def __enter__(self):
        self._previous = STATE.grad_enabled
        STATE.grad_enabled = self._mode
        return self

    def __exit__(self, *exc):
        STATE.grad_enabled = self._previous
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with type(self)():
                return func(*args, **kwargs)

        return wrapper


class no_grad(_GradModeContext):
    """Operations inside are not recorded: their results are constants (leaves without grad)."""

    _mode = False


class enable_grad(_GradModeContext):
    """Re-enables recording inside a ``no_grad`` block."""

    _mode = True


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(False)`` switches recording off now; as a context it restores on exit.

    >>> from diffcompare import autograd as ag
    >>> with ag.set_grad_enabled(False):
    ...     ag.is_grad_enabled()
    False
    >>> ag.is_grad_enabled()
    True
    """

    def __new__(cls, mode):
        return object.__new__(cls)

    def __init__(self, mode: bool):
        self._mode = bool(mode)
        self._previous = STATE.grad_enabled
        STATE.grad_enabled = self._mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        STATE.grad_enabled = self._previous
        return False

    def __call__(self, func):
        # Used as a decorator: constructing it switched the mode, which only calls should see.
        STATE.grad_enabled = self._previous
        mode = self._mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)

        return wrapper


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return STATE.inference_mode


class inference_mode(_GradModeContext):
    """``no_grad`` for inference, as PyTorch's: inside, operations are not recorded;
    ``inference_mode(False)`` switches recording back on (context manager and decorator,
    with or without parentheses). The engine keeps no separate inference tensors.

    >>> from diffcompare import autograd as ag
    >>> x = ag.tensor([1.0], requires_grad=True)
    >>> with ag.inference_mode():
    ...     (x * 2).requires_grad, ag.is_inference_mode_enabled()
    (False, True)
    """

    def __new__(cls, mode=True):
        self = object.__new__(cls)
        if callable(mode):      # @inference_mode without parentheses
            self._mode = True
            return self(mode)
        self._mode = bool(mode)
        return self

    def __init__(self, mode=True):
        pass

    def __enter__(self):
        self._previous = STATE.grad_enabled, STATE.inference_mode
        STATE.grad_enabled, STATE.inference_mode = not self._mode, self._mode
        return self

    def __exit__(self, *exc):
        STATE.grad_enabled, STATE.inference_mode = self._previous
        return False

    def __call__(self, func):
        mode = self._mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return inference_mode(self._mode)


# --- anomaly detection -------------------------------------------------------------------

def is_anomaly_enabled() -> bool:
    return STATE.anomaly_enabled


def is_anomaly_check_nan_enabled() -> bool:
    return STATE.anomaly_check_nan


def set_detect_anomaly(mode: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off for what follows (no warning, unlike ``detect_anomaly``)."""
    STATE.anomaly_enabled = bool(mode)
    STATE.anomaly_check_nan = bool(check_nan)


class detect_anomaly:
    """Record where each operation was created and stop backward at the first NaN gradient.

    The error names the backward function and the index of its gradient output; a warning
    before it shows the line of the forward call that created that function.
    """

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime "
            "and should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )
        self._previous = (STATE.anomaly_enabled, STATE.anomaly_check_nan)
        STATE.anomaly_enabled = True
        STATE.anomaly_check_nan = self.check_nan
        return self

    def __exit__(self, *exc):
        STATE.anomaly_enabled, STATE.anomaly_check_nan = self._previous
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return func(*args, **kwargs)

        return wrapper

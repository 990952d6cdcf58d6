"""Run NumPy code with floating-point warnings off: log(-1) is nan and 1/0 is inf, silently,
as in PyTorch. ``np.errstate`` costs ~0.8 µs a use, too much per operation, so the
context variable behind it is set directly when this NumPy has one."""

from __future__ import annotations

import numpy as np

try:  # NumPy >= 2
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    IGNORE = _make_extobj(all="ignore")
    set_quiet, reset_quiet = _extobj_contextvar.set, _extobj_contextvar.reset

    def quietly(func, *args, **kwargs):
        token = _extobj_contextvar.set(IGNORE)
        try:
            return func(*args, **kwargs)
        finally:
            _extobj_contextvar.reset(token)

except ImportError:  # pragma: no cover - older NumPy
    def quietly(func, *args, **kwargs):
        with np.errstate(all="ignore"):
            return func(*args, **kwargs)

    IGNORE = None

    def set_quiet(_):
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    def reset_quiet(state):
        state.__exit__(None, None, None)


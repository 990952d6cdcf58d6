"""Time budgets for work that can swell (symbolic derivatives, exact evaluation).

In the main thread on POSIX the budget is enforced by SIGALRM, which interrupts pure
Python such as SymPy between bytecodes. ``TimedOut`` derives from ``BaseException`` so
that SymPy's own ``except Exception`` clauses cannot swallow it. Elsewhere (a worker
thread) the work runs unbounded and the report says so.

>>> with time_limit(1.0):
...     sum(range(1000))
499500
"""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager


class TimedOut(BaseException):
    """The budget ran out."""

    def __init__(self, seconds):
        self.seconds = seconds
        super().__init__(f"timed out after {seconds:g} s")


def can_interrupt() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


NO_LIMIT = 1e7          # seconds (115 days): a budget this long is no limit (the timer cannot hold 1e300)


@contextmanager
def time_limit(seconds: float | None):
    """Raise :class:`TimedOut` in the block after ``seconds`` (None: no limit)."""
    if seconds is None or seconds <= 0 or seconds >= NO_LIMIT or not can_interrupt():
        yield
        return

    def on_alarm(signum, frame):
        raise TimedOut(seconds)

    # a time-out can interrupt mpmath.workdps between setting the precision and the block
    # that restores it: the precision at the start is put back at the end
    mpmath = sys.modules.get("mpmath")
    precision = mpmath.mp.prec if mpmath is not None else None
    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        # the alarm repeats until the block ends: an exception raised while a gc callback or a
        # __del__ runs is printed and dropped by Python, and a one-shot alarm would then be lost.
        # It is armed inside the try, so that however soon it fires, the finally disarms it
        signal.setitimer(signal.ITIMER_REAL, seconds, max(0.01, seconds / 4))
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if precision is not None:
            mpmath.mp.prec = precision

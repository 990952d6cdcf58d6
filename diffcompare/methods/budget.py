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
import time
import contextlib
from contextlib import contextmanager


class TimedOut(BaseException):
    """The budget ran out."""

    def __init__(self, seconds):
        self.seconds = seconds
        super().__init__(f"timed out after {seconds:g} s")


def can_interrupt() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


NO_LIMIT = 1e7          # seconds (115 days): a budget this long is no limit (the timer cannot hold 1e300)


_BUDGETS: list = []      # [deadline, seconds] of the budgets in force in the main thread, outermost first


@contextmanager
def time_limit(seconds: float | None):
    """Raise :class:`TimedOut` in the block after ``seconds`` (None: no limit). Budgets
    nest: an inner one ends at its own deadline or its outer one's, whichever is first,
    and when it ends the outer one is armed again for the time it has left.

    >>> import time
    >>> try:
    ...     with time_limit(0.05):
    ...         with time_limit(10):        # the reference's budget, inside a case's
    ...             time.sleep(0.2)
    ... except TimedOut as stop:
    ...     print(stop.seconds)
    0.05
    """
    if seconds is None or seconds <= 0 or seconds >= NO_LIMIT or not can_interrupt():
        yield
        return

    # a time-out can interrupt mpmath.workdps between setting the precision and the block
    # that restores it: the precision at the start is put back at the end
    mpmath = sys.modules.get("mpmath")
    precision = mpmath.mp.prec if mpmath is not None else None
    budget = [time.monotonic() + seconds, seconds]
    outermost = not _BUDGETS
    previous = signal.signal(signal.SIGALRM, _on_alarm) if outermost else None
    hook = _TimeOutsDropped(sys.unraisablehook) if outermost else None
    if hook is not None:
        sys.unraisablehook = hook
    _BUDGETS.append(budget)
    try:
        # the alarm repeats until the block ends: an exception raised while a gc callback or a
        # __del__ runs is dropped by Python (_TimeOutsDropped), and a one-shot alarm would be lost.
        # It is armed inside the try, so that however soon it fires, the finally disarms it
        _arm()
        yield
    finally:
        # the alarm is held while the budget is taken down: one firing between the block's end
        # and the timer's disarming would raise TimedOut out of a block that finished in time
        held = _hold_alarm()
        try:
            _BUDGETS.remove(budget)
            if _BUDGETS:
                _arm()
            else:
                signal.setitimer(signal.ITIMER_REAL, 0)
        finally:
            _release_alarm(held)         # a held alarm is seen now, by the outer budgets alone
            if outermost:
                signal.signal(signal.SIGALRM, previous)
                if sys.unraisablehook is hook:      # (unless the block set a hook of its own)
                    sys.unraisablehook = hook.previous
            if precision is not None:
                mpmath.mp.prec = precision


class _TimeOutsDropped:
    """``sys.unraisablehook`` while a budget is in force. An alarm that fires while Python
    runs a ``__del__`` or a gc callback raises ``TimedOut`` where it cannot propagate, and
    Python hands it to this hook; printed, it would be a traceback on standard error for
    nothing, since the alarm repeats and raises it again in the block. It is dropped here;
    every other exception goes to the hook that was in place before."""

    def __init__(self, previous):
        self.previous = previous

    def __call__(self, unraisable):
        if not isinstance(unraisable.exc_value, TimedOut):
            self.previous(unraisable)


def _arm():
    """The timer set for the earliest deadline of the budgets in force."""
    deadline, seconds = min(_BUDGETS)
    signal.setitimer(signal.ITIMER_REAL, max(1e-6, deadline - time.monotonic()), max(0.01, seconds / 4))


def _hold_alarm() -> bool:
    """Block SIGALRM (where the platform can); whether it was blocked here."""
    if not hasattr(signal, "pthread_sigmask"):
        return False
    return signal.SIGALRM not in signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})


def _release_alarm(held: bool) -> None:
    if held:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})


def _on_alarm(signum, frame):
    now = time.monotonic()
    expired = [b for b in _BUDGETS if b[0] <= now + 1e-3]
    if expired and frame is not None and frame.f_code in _TEARDOWN:
        # taking a budget down (the block has ended, or is ending with its TimedOut): raised
        # here, a second TimedOut would skip the disarming, and the repeating alarm would go on
        # firing in whatever ran next. The block is over: it is not raised.
        return
    if expired:
        raise TimedOut(min(expired)[1])
    if _BUDGETS:                # early (the timer's resolution): wait for the earliest deadline again
        _arm()


# the code that runs between a block's end and its budget's disarming (contextlib's exit
# throws the block's exception into the generator, whose finally takes the budget down)
_TEARDOWN = frozenset({time_limit.__wrapped__.__code__, _hold_alarm.__code__, _release_alarm.__code__, _arm.__code__,
                       contextlib._GeneratorContextManager.__exit__.__code__})


"""A budget's alarm that fires while the budget is being taken down (its block over, or ending
with its TimedOut) is not raised there: raised, it would skip the disarming, and the repeating
alarm would go on raising TimedOut in whatever code ran next (it did, once, inside pytest)."""

from __future__ import annotations

import signal
import sys
import time

import pytest

from diffcompare.methods import budget

pytestmark = pytest.mark.skipif(not budget.can_interrupt(), reason="SIGALRM budgets need the main thread on POSIX")


def test_an_expired_alarm_in_the_teardown_is_not_raised_and_elsewhere_is():
    expired = [time.monotonic() - 1.0, 0.2]
    budget._BUDGETS.append(expired)
    try:
        def ordinary_frame():
            return sys._getframe()
        for code_owner in (budget._hold_alarm, budget._release_alarm):
            frame = type("Frame", (), {"f_code": code_owner.__code__})()
            assert budget._on_alarm(signal.SIGALRM, frame) is None
        with pytest.raises(budget.TimedOut, match="timed out after 0.2 s"):
            budget._on_alarm(signal.SIGALRM, ordinary_frame())
    finally:
        budget._BUDGETS.remove(expired)
        signal.setitimer(signal.ITIMER_REAL, 0)


def test_after_a_time_out_nothing_is_left_armed():
    for _ in range(20):
        with pytest.raises(budget.TimedOut):
            with budget.time_limit(0.01):
                while True:
                    pass
        assert budget._BUDGETS == [] and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)

"""Timing by repetition with :mod:`timeit`: a batch is grown until it lasts long enough to
be read reliably, then several batches give a median and a spread.

>>> t = measure(lambda: sum(range(100)), batches=3, min_batch_seconds=1e-4)
>>> t.runs >= 3 and t.median > 0
True
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class Timing:
    median: float        # seconds per call
    spread: float        # the batches' median absolute deviation, seconds per call (one slow batch
                         # on a loaded machine does not move it, as (slowest - fastest) / 2 would)
    runs: int            # calls timed in all
    batches: int

    def as_dict(self):
        return {"median_seconds": self.median, "spread_seconds": self.spread, "calls": self.runs,
                "batches": self.batches}


def measure(call, batches: int = 5, min_batch_seconds: float = 1e-3, max_total_seconds: float = 0.5) -> Timing:
    """Seconds per call of ``call()``: the median over ``batches`` batches of equal size,
    each at least ``min_batch_seconds`` long (fewer batches if ``max_total_seconds`` runs out).

    Each batch is :class:`timeit.Timer`'s (the garbage collector off while it runs). The
    batch size is ranged here rather than by ``Timer.autorange``, whose batches last 0.2 s:
    five of them for each of a comparison's methods would take seconds where milliseconds
    read as reliably."""
    import timeit
    timer = timeit.Timer(call)
    batches = max(1, int(batches))
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= min_batch_seconds or number >= 1 << 20:
            break
        number *= 10 if elapsed < min_batch_seconds / 10 else 2
    per_call = [elapsed / number]
    spent = elapsed
    while len(per_call) < batches and spent + elapsed <= max_total_seconds:
        took = timer.timeit(number)
        spent += took
        per_call.append(took / number)
    median = statistics.median(per_call)
    spread = statistics.median(abs(t - median) for t in per_call)
    return Timing(median, spread, number * len(per_call), len(per_call))

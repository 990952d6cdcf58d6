"""The cyclic garbage collector, paused while a large graph is being recorded.

Every recorded op leaves a few objects the cyclic collector tracks (its node, the tuple of
its edges, what it saved). While a graph grows, Python's collector scans the survivors again
and again (a full scan each time the old objects grow by a quarter): on a chain of a million
ops that was a third of the forward's time, for nothing, since the graph holds no cycles
(saved values never point back at the tensors that own them).

So when a graph is large and still growing, the automatic collection is paused: every
``CHECK_EVERY`` nodes, recording looks at whether the checkpoint nodes of the last
``LIVE_CHECKPOINTS`` checks are all alive; if so, collection stops. It starts again as soon
as a backward walk ends or the graph is released (the oldest live checkpoint is freed), and
never if the program had turned the collector off itself. ``STATE.pausing = False`` turns
the pause off.

>>> import gc
>>> from diffcompare import autograd as ag
>>> x = ag.tensor([0.5], requires_grad=True)
>>> y = x
>>> for _ in range(60_000):
...     y = y * 1.0
>>> gc.isenabled()
False
>>> y.backward()
>>> gc.isenabled()
True
"""

from __future__ import annotations

import gc
import weakref

CHECK_EVERY = 1 << 14           # nodes between checks (a power of two: the test is a bit mask)
MASK = CHECK_EVERY - 1
LIVE_CHECKPOINTS = 2            # pause once this many consecutive checkpoints are alive


class _State:
    pausing = True              # False: never pause (the collector runs as Python sets it)
    checkpoints: list = []      # weak references to recent checkpoint nodes
    paused = False              # collection was stopped here (and only then is it restarted here)


STATE = _State()


def checkpoint(node):
    """Called by recording for every node whose sequence number is a multiple of CHECK_EVERY."""
    refs = [r for r in STATE.checkpoints if r() is not None]
    refs.append(weakref.ref(node))
    STATE.checkpoints = refs[-LIVE_CHECKPOINTS:]
    if STATE.paused or not STATE.pausing or len(STATE.checkpoints) < LIVE_CHECKPOINTS or not gc.isenabled():
        return
    gc.disable()
    STATE.paused = True
    oldest = STATE.checkpoints[0]()
    if oldest is not None:
        weakref.finalize(oldest, resume)


def resume():
    """Restart the collection this module stopped (no-op otherwise)."""
    if STATE.paused:
        STATE.paused = False
        STATE.checkpoints = []
        gc.enable()

"""A large graph, while it is being recorded, is kept out of the cyclic collector's sight.

Every recorded op leaves a few objects the cyclic collector tracks (its node, the tuple of
its edges, what it saved). While a graph grows, Python's collector scans the survivors again
and again (a full scan each time the old objects grow by a quarter): on a chain of a million
ops that was a third of the forward's time, for nothing, since the graph holds no cycles
(saved values never point back at the tensors that own them).

So when a graph is large and still growing, what is alive is *frozen* (``gc.freeze()``:
moved to the collector's permanent generation, which its scans skip): every ``CHECK_EVERY``
nodes, recording looks at whether the checkpoint nodes of the last ``LIVE_CHECKPOINTS``
checks are all alive; if so, the young generations are collected and the rest is frozen.
The collector itself stays on: cycles made while the graph is held (a program that keeps a
graph and never calls backward) are collected as usual. Everything is unfrozen as soon as a
backward walk ends or the graph is released (the oldest live checkpoint is freed). Nothing
is frozen if the program turned the collector off or froze objects itself (its freeze is
never undone here). ``STATE.pausing = False`` turns all of this off.

>>> import gc
>>> from diffcompare import autograd as ag
>>> x = ag.tensor([0.5], requires_grad=True)
>>> y = x
>>> for _ in range(60_000):
...     y = y * 1.0
>>> gc.isenabled(), gc.get_freeze_count() > 0
(True, True)
>>> y.backward()
>>> gc.get_freeze_count()
0
"""

from __future__ import annotations

import gc
import weakref

# nodes between checks (a power of two: the test is a bit mask). Fewer than the collector's
# automatic passes would see: a node leaves ~5 tracked objects, so 128 nodes stay under the
# 700 allocations that trigger a young pass; each check's collect(1) is then nearly the only
# scan of what was recorded since the last freeze (one scan per object, not two or three:
# recording an LSTM's 62k nodes spent 180 ms in the collector with checks every 4096 nodes,
# 57 ms with checks every 128)
CHECK_EVERY = 1 << 7
MASK = CHECK_EVERY - 1
LIVE_CHECKPOINTS = 2            # pause once this many consecutive checkpoints are alive


class _State:
    pausing = True              # False: never freeze (the collector runs as Python sets it)
    checkpoints: list = []      # weak references to recent checkpoint nodes
    paused = False              # objects were frozen here (and only then are they unfrozen here)


STATE = _State()


def checkpoint(node):
    """Called by recording for every node whose sequence number is a multiple of CHECK_EVERY."""
    refs = [r for r in STATE.checkpoints if r() is not None]
    refs.append(weakref.ref(node))
    STATE.checkpoints = refs[-LIVE_CHECKPOINTS:]
    if not STATE.pausing or len(STATE.checkpoints) < LIVE_CHECKPOINTS or not gc.isenabled():
        return
    if not STATE.paused:
        if gc.get_freeze_count():
            return              # the program froze objects itself: its freeze is not ours to undo
        STATE.paused = True
        oldest = STATE.checkpoints[0]()
        if oldest is not None:
            weakref.finalize(oldest, resume)
    gc.collect(1)               # what died young is collected, not frozen
    gc.freeze()


def resume():
    """Unfreeze what this module froze (no-op otherwise): the next full collection scans it again."""
    if STATE.paused:
        STATE.paused = False
        STATE.checkpoints = []
        gc.unfreeze()

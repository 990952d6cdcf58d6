"""A large graph is frozen out of the cyclic collector's sight while it is recorded and
unfrozen after: by a backward walk, by releasing the graph. The collector itself stays on,
so cycles made while a graph is held are collected; nothing is frozen when the program
turned the collector off or froze objects itself."""

from __future__ import annotations

import gc
import weakref

import pytest

from diffcompare import autograd as ag
from diffcompare.autograd import collector

LONG = collector.LIVE_CHECKPOINTS * collector.CHECK_EVERY + 2    # enough nodes for that many live checkpoints


@pytest.fixture(autouse=True)
def _collector_restored():
    was = gc.isenabled()
    yield
    collector.resume()
    (gc.enable if was else gc.disable)()


def _chain(n):
    x = ag.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(n):
        y = y * 1.0
    return x, y


def test_frozen_while_a_large_graph_grows_and_unfrozen_by_backward():
    x, y = _chain(LONG)
    assert gc.isenabled() and gc.get_freeze_count() > 0
    y.backward()
    assert gc.get_freeze_count() == 0 and x.grad.item() == 1.0


def test_unfrozen_when_the_graph_is_released():
    x, y = _chain(LONG)
    assert gc.get_freeze_count() > 0
    del y
    assert gc.get_freeze_count() == 0


def test_cycles_made_while_a_graph_is_held_are_collected():
    x, y = _chain(LONG)

    class Cycle:
        pass

    c = Cycle()
    c.self = c
    alive = weakref.ref(c)
    del c
    kept = [[] for _ in range(10 * gc.get_threshold()[0])]    # the collector's automatic passes run
    assert alive() is None and kept
    assert y.grad_fn is not None


def test_many_small_graphs_never_freeze():
    for _ in range(LONG // 50):
        _chain(50)
    assert gc.get_freeze_count() == 0


def test_a_collector_the_program_turned_off_stays_off():
    gc.disable()
    x, y = _chain(LONG)
    assert gc.get_freeze_count() == 0
    y.backward()
    assert not gc.isenabled()


def test_a_freeze_of_the_program_is_left_alone():
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        x, y = _chain(LONG)
        assert gc.get_freeze_count() <= frozen        # the graph was not frozen
        y.backward()
        assert 0 < gc.get_freeze_count() <= frozen    # and the program's freeze is not undone
    finally:
        gc.unfreeze()

"""The cyclic collector is paused while a large graph is recorded and restarted after: by a
backward walk, by releasing the graph, never when the program had turned it off itself."""

from __future__ import annotations

import gc

import pytest

from diffcompare import autograd as ag
from diffcompare.autograd import collector

LONG = 4 * collector.CHECK_EVERY      # enough nodes for LIVE_CHECKPOINTS live checkpoints


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


def test_paused_while_a_large_graph_grows_and_restarted_by_backward():
    x, y = _chain(LONG)
    assert not gc.isenabled()
    y.backward()
    assert gc.isenabled() and x.grad.item() == 1.0


def test_restarted_when_the_graph_is_released():
    x, y = _chain(LONG)
    assert not gc.isenabled()
    del y
    assert gc.isenabled()


def test_many_small_graphs_never_pause_it():
    for _ in range(LONG // 50):
        _chain(50)
    assert gc.isenabled()


def test_a_collector_the_program_turned_off_stays_off():
    gc.disable()
    x, y = _chain(LONG)
    y.backward()
    assert not gc.isenabled()

"""``torch.random``: the global generator's seed and state, and ``fork_rng`` — a region whose
draws leave the global generator as it was.

>>> from diffcompare import autograd as ag
>>> _ = ag.manual_seed(0)
>>> with ag.random.fork_rng():
...     inside = ag.rand(3)
>>> bool((ag.rand(3) == inside).all())    # the same draw again: the fork left the generator as it was
True
"""

from __future__ import annotations

import contextlib
import sys


def _module():
    """The tensor module, looked up at each call (so a replaced ``manual_seed`` there is the one used)."""
    return sys.modules[__package__ + ".tensor"]


def manual_seed(seed):
    return _module().manual_seed(seed)


def seed() -> int:
    return _module().seed()


def initial_seed() -> int:
    return _module().initial_seed()


def get_rng_state():
    return _module().get_rng_state()


def set_rng_state(new_state) -> None:
    _module().set_rng_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type="cuda"):  # noqa: ARG001
    """Draws inside the ``with`` block do not move the global generator (PyTorch's
    ``torch.random.fork_rng``; there are no CUDA generators to fork)."""
    if not enabled:
        yield
        return
    state = _module().get_rng_state()
    try:
        yield
    finally:
        _module().set_rng_state(state)


class DefaultGenerator:
    """``torch.default_generator``: the global generator as an object, its methods those of
    this module (``manual_seed`` returns the generator, as a ``Generator``'s does).

    >>> from diffcompare import autograd as ag
    >>> a = ag.default_generator.manual_seed(3) and ag.rand(2)
    >>> _ = ag.manual_seed(3)
    >>> bool((ag.rand(2) == a).all()), ag.default_generator.initial_seed()
    (True, 3)
    """

    device = "cpu"

    def manual_seed(self, seed):
        manual_seed(seed)
        return self

    def seed(self) -> int:
        return seed()

    def initial_seed(self) -> int:
        return initial_seed()

    def get_state(self):
        return get_rng_state()

    def set_state(self, new_state):
        set_rng_state(new_state)
        return self

    def __repr__(self):
        return "<torch._C.Generator object (the global generator)>"


default_generator = DefaultGenerator()

__all__ = ["default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

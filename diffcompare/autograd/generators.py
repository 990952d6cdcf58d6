"""``torch.Generator``: a seeded source of random draws of its own, apart from the global one,
passed to the random functions as ``generator=`` (``randn(3, generator=g)``,
``DataLoader(..., generator=g)``).

>>> from diffcompare import autograd as ag
>>> g = ag.Generator().manual_seed(7)
>>> a = ag.rand(3, generator=g)
>>> _ = g.manual_seed(7)
>>> bool((ag.rand(3, generator=g) == a).all()), g.initial_seed()
(True, 7)
"""

from __future__ import annotations

import numpy as np

from .device import check as _check_device, device as _device
from .grad_mode import STATE

# a new Generator's seed before ``manual_seed``, as PyTorch's (``Generator().initial_seed()``)
DEFAULT_SEED = 67280421310721


def new_rng(seed: int):
    """The NumPy generator behind a ``Generator`` seeded with ``seed`` (the one place a
    generator's draws come from; a caller wanting other draws replaces this function)."""
    return np.random.default_rng(seed)


class Generator:
    """A random-number generator with its own seed and state (CPU only)."""

    def __init__(self, device="cpu"):
        _check_device(device)
        self.device = _device(device) if device is not None else _device("cpu")
        self._seed = DEFAULT_SEED
        self._rng = new_rng(DEFAULT_SEED)

    def manual_seed(self, seed):
        """Seed it (``seed`` an int, taken modulo 2**64 as PyTorch does); returns the generator."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) and not hasattr(seed, "__index__"):
            raise TypeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        self._seed = int(seed) % 2**64
        self._rng = new_rng(self._seed)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """Seed it from the operating system's entropy; returns that seed."""
        seed = int(np.random.SeedSequence().entropy) % 2**63
        self.manual_seed(seed)
        return seed

    def __repr__(self):
        return f"<{type(self).__module__.split('.')[0]}.Generator object at {id(self):#x}>"


VMAP_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' "
                     "or 'different' randomness flags on vmap or perform the randomness operation out of vmap")


def check_vmap_randomness():
    """PyTorch's refusal of a random draw inside ``vmap(..., randomness="error")`` (its default)."""
    if STATE.mapping and STATE.vmap_randomness and STATE.vmap_randomness[-1] == "error":
        raise RuntimeError(VMAP_RANDOM_ERROR)


def rng_of(generator, default):
    """The NumPy-like generator to draw from: ``generator``'s when one is given, else ``default``
    (a draw inside ``vmap`` in randomness error mode is refused first)."""
    if STATE.mapping:
        check_vmap_randomness()
    if generator is None:
        return default
    if isinstance(generator, Generator):
        return generator._rng
    if isinstance(generator, np.random.Generator):
        return generator
    raise TypeError(f"generator must be a Generator, not {type(generator).__name__}")


def standard_uniform(rng, size, dtype):
    """Draws from U[0, 1) of ``dtype``: a float32 tensor's straight from 24 random bits in
    float32 (NumPy's ``random(dtype=float32)``, as PyTorch draws a float32 tensor), a float16
    one's the same, rounded (PyTorch draws half precision in float), other dtypes from
    float64 draws."""
    if dtype == np.float32:
        return rng.random(size, dtype=np.float32)
    if dtype == np.float16:
        return rng.random(size, dtype=np.float32).astype(np.float16)
    return rng.random(size).astype(dtype, copy=False)


def standard_normal(rng, size, dtype):
    """Draws from N(0, 1) of ``dtype``: a float32 tensor's in float32, as ``standard_uniform``."""
    if dtype == np.float32:
        return rng.standard_normal(size, dtype=np.float32)
    return rng.standard_normal(size).astype(dtype, copy=False)


def uniform_draws(rng, a, b, shape, dtype):
    """Draws from U[a, b) of ``dtype`` (``t.uniform_(a, b)``, a parameter's initialisation): in
    float32 for a float32 or float16 tensor (``standard_uniform``; PyTorch computes half
    precision's in float, then rounds), else NumPy's float64 draws."""
    if dtype == np.float32 or dtype == np.float16:
        values = standard_uniform(rng, shape, np.float32) * np.float32(b - a) + np.float32(a)
        return values if dtype == np.float32 else values.astype(np.float16)
    return rng.uniform(a, b, size=shape).astype(dtype, copy=False)


def normal_draws(rng, mean, std, shape, dtype):
    """Draws from N(mean, std²) of ``dtype`` (``t.normal_(mean, std)``), as ``uniform_draws``."""
    if dtype == np.float32:
        return standard_normal(rng, shape, dtype) * np.float32(std) + np.float32(mean)
    return rng.normal(mean, std, size=shape).astype(dtype, copy=False)

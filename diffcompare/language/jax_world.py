"""JAX as a world of the function table: each row's ``jax`` column (by default
``jax.numpy``'s function of the row's name) called on JAX arrays, so expressions and
functions written with :mod:`diffcompare.functions` run on JAX. The table is the only place
a row's JAX form lives: a new row needs no edit here.

Importing this module registers the world; it imports JAX only when the world is first
used, and then in 64-bit mode (JAX computes in float32 unless told otherwise).
:func:`available` says whether JAX is installed without importing it.

>>> import pytest; jax = pytest.importorskip("jax")
>>> from diffcompare.language.table import ROWS, implementation
>>> float(implementation(ROWS["sin"], JAX)(load().numpy.float64(0.5)))
0.479425538604203
"""

from __future__ import annotations

import importlib.util

from diffcompare.language.table import EXTRA_WORLDS, Row
from diffcompare.language.worlds import JAX

jax = None
_FORMS: dict = {}          # row name -> its JAX function, made on first use


def available() -> bool:
    """Whether JAX is installed (without importing it)."""
    return importlib.util.find_spec("jax") is not None


def load():
    """The jax module (with jax.numpy, jax.nn and jax.scipy.special loaded), imported on
    first use, with 64-bit floats enabled."""
    global jax
    if jax is None:
        import jax as module
        import jax.nn  # noqa: F401
        import jax.numpy  # noqa: F401
        import jax.scipy.special  # noqa: F401
        module.config.update("jax_enable_x64", True)
        jax = module
    return jax


def jax_form(row: Row):
    """``row``'s function on JAX arrays: its ``jax`` column, or jax.numpy's function of its name."""
    if row.name not in _FORMS:
        j = load()
        _FORMS[row.name] = row.jax(j) if row.jax is not None else getattr(j.numpy, row.name)
    return _FORMS[row.name]


EXTRA_WORLDS[JAX] = jax_form

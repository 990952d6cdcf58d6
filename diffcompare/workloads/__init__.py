"""The objectives of the standard AD benchmarks (ADBench's and GradBench's), each written
once for diffcompare's engine and PyTorch (the same function body, its first argument the
module named ``torch``) and once for JAX.

Each module has ``NAME``, ``TITLE``, ``SIZES`` ("tiny" for tests, "small" and "medium" from
ADBench's ranges), ``describe(size)``, ``make_data(size, seed)`` (a :class:`Data`: the arrays
to differentiate and the constants) and ``objective_engine``, ``objective_torch`` and
``objective_jax``, each called as ``objective(*params, **consts)`` with that library's
tensors and returning a scalar.

>>> sorted(WORKLOADS)
['ba', 'det', 'gmm', 'ht', 'lse', 'lstm']
"""

from __future__ import annotations

from . import ba, det, gmm, ht, lse, lstm
from .common import Data

WORKLOADS = {m.NAME: m for m in (gmm, ba, ht, lstm, lse, det)}

__all__ = ["WORKLOADS", "Data"]

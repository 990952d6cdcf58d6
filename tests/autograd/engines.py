"""The engines a test runs on alike: this engine, and PyTorch where it is installed.
``@each`` parametrizes a test by ``T``, the module it calls as ``torch``."""

from __future__ import annotations

import pytest

from diffcompare import autograd as ag

ENGINES = [ag]
try:
    import torch
    ENGINES.append(torch)
except ImportError:
    torch = None

each = pytest.mark.parametrize("T", ENGINES, ids=lambda m: m.__name__.split(".")[0])

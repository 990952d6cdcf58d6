"""Fixtures for every test, the package's doctests included (a conftest in tests/ would not
reach the doctests collected from diffcompare/)."""

import mpmath
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _restore_global_state():
    """No test leaves global state behind for the next: mpmath's working precision (a
    time-out can interrupt a ``workdps`` block before it restores it; a doctest printing
    mpmath numbers reads it) and NumPy's floating-point error handling."""
    precision = mpmath.mp.prec
    errors = np.geterr()
    yield
    mpmath.mp.prec = precision
    np.seterr(**errors)

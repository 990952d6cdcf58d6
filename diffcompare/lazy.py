"""A module imported on first attribute access, for the heavy libraries (NumPy, SymPy,
mpmath) that modules on the command line's start-up path use only when they run:
``diffcompare --help`` imports none of them.

>>> from diffcompare.lazy import LazyModule
>>> fractions = LazyModule("fractions")
>>> fractions.Fraction(1, 3) + fractions.Fraction(1, 6)
Fraction(1, 2)
"""

import importlib


class LazyModule:
    """Stands for the module ``name`` and imports it when an attribute is first read."""

    def __init__(self, name: str):
        self._name, self._module = name, None

    def __getattr__(self, attr):
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)

    def __repr__(self):
        return f"<{self._name}, imported on first use>"

"""The function table's functions for ordinary Python code (sin, exp, log1p, sigmoid,
atan2, relu, ...): each answers in the world of its arguments, so one ``f`` runs on
floats, NumPy arrays, complex numbers, mpmath numbers, SymPy symbols and engine tensors.
They live in :mod:`diffcompare.language.functions`; this is their public name.

>>> from diffcompare.functions import sin, exp
>>> float(sin(0.5) * exp(0.0)) == float(sin(0.5))
True
"""

from diffcompare.language.functions import *  # noqa: F401,F403  (the public names)
from diffcompare.language.functions import __all__  # noqa: F401

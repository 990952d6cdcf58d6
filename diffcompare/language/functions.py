"""The function table's functions for ordinary Python code: each one looks at its
arguments and answers in their world, so one definition of ``f`` runs on floats, NumPy
arrays, complex numbers (the complex step), mpmath numbers (the reference), SymPy
symbols (the symbolic method) and engine tensors (autograd).

Use these, not ``math`` or Python's builtins, in a function you compare: ``math.sin``
turns a tensor or a symbol into a float (autograd and SymPy then fail, and say so), and
the builtin ``abs`` of a complex number is its modulus, which no method can detect (the
complex step would silently give 0); ``diffcompare.functions.abs`` refuses complex input.

>>> from diffcompare.functions import exp, sin, sqrt, cos
>>> def f(x):
...     return exp(x) / sqrt(sin(x) ** 3 + cos(x) ** 3)
>>> round(float(f(1.5)), 12)
4.497780053946
>>> import sympy
>>> f(sympy.Symbol("x"))
exp(x)/sqrt(sin(x)**3 + cos(x)**3)
>>> from diffcompare import autograd as ag
>>> x = ag.tensor(1.5, requires_grad=True)
>>> f(x).backward()
>>> round(x.grad.item(), 12)
4.053427893899
"""

from __future__ import annotations

import contextvars
import math

import numpy as np

from diffcompare.autograd.tensor import Tensor
from diffcompare.language.table import CALLABLE
from diffcompare.language.table import implementation as implementation_in
from diffcompare.language.worlds import COMPLEX, ENGINE, MPMATH, NUMPY, SYMPY, TORCH

__all__ = sorted(CALLABLE) + ["pi", "e", "world_of"]

# Set while a Problem evaluates a callable, so that every call of these functions is
# reported to the observer, as Expression.evaluate does for text.
OBSERVER: contextvars.ContextVar = contextvars.ContextVar("diffcompare_observer", default=None)

pi = math.pi
e = math.e


def world_of(*args) -> str:
    """The world a call runs in, by its arguments: engine (or PyTorch) tensors win over
    SymPy objects, which win over mpmath numbers, then complex numbers, then real NumPy.

    >>> world_of(1.0), world_of(1.0, 2j), world_of(np.ones(3))
    ('numpy', 'complex', 'numpy')
    """
    found = NUMPY
    rank = {NUMPY: 0, COMPLEX: 1, MPMATH: 2, SYMPY: 3, ENGINE: 4}
    for arg in args:
        if isinstance(arg, Tensor):
            return ENGINE
        module = type(arg).__module__ or ""
        if module.startswith("torch"):
            return TORCH
        if module.startswith("sympy"):
            world = SYMPY
        elif module.startswith("mpmath"):
            world = MPMATH
        elif isinstance(arg, (complex, np.complexfloating)) or (isinstance(arg, np.ndarray) and arg.dtype.kind == "c"):
            world = COMPLEX
        else:
            world = NUMPY
        if rank[world] > rank[found]:
            found = world
    return found


def _dispatching(row):
    def function(*args):
        if len(args) != row.arity:
            raise TypeError(f"{row.name}() takes {row.arity} argument{'s' * (row.arity != 1)} "
                            f"({len(args)} given)")
        world = world_of(*args)
        implementation = implementation_in(row, world)
        if implementation is None:
            raise TypeError(f"{row.name}() has no {world} form" + (f": {row.not_complex_safe}" if world == COMPLEX
                                                                    else ""))
        if world == MPMATH:
            import mpmath
            args = [mpmath.mpf(a) if isinstance(a, (int, float)) else a for a in args]
        result = implementation(*args)
        observe = OBSERVER.get()
        if observe is not None:
            observe(row, args, result, None)
        return result
    function.__name__ = function.__qualname__ = row.name
    function.__doc__ = f"{row.doc} (domain: {row.domain}); works on floats, arrays, complex, mpmath, SymPy and tensors."
    return function


for _name, _row in CALLABLE.items():
    globals()[_name] = _dispatching(_row)

del _name, _row

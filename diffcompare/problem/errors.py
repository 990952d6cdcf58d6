"""The errors of bad input: a value, a variable or an option that is wrong (an
:class:`InputError`, exit status 2 on the command line), and a function SymPy cannot
follow (:class:`SymbolicUnavailable`)."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input other than expression syntax: values, variables, options."""


class FailsAtPoint(InputError):
    """f raises when evaluated at the point in binary64 (a callable's math.log(-1), say):
    bad input for a Jacobian, a case the gradient's report explains (f's domain)."""


class ShapeMismatch(InputError):
    """f cannot be evaluated with the shapes its variables have (an array variable given as
    a number, vectors that do not broadcast)."""


class SymbolicUnavailable(Exception):
    """f cannot be expressed in SymPy (control flow on values, an unknown function...)."""

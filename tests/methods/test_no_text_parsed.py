"""The symbolic back ends take SymPy objects only: text handed to them is refused before
anything could parse it (SymPy's and SymEngine's sympify run code found in text)."""

import pytest
import sympy

from diffcompare.methods import symengine_backend
from diffcompare.methods.symbolic_reverse import decompose
from diffcompare.problem.errors import SymbolicUnavailable


def test_symengine_refuses_text_before_importing_or_parsing_it():
    with pytest.raises(TypeError, match="not str"):
        symengine_backend.differentiate("__import__('os').getcwd()", (sympy.Symbol("x"),))


def test_symbolic_reverse_refuses_text():
    x = sympy.Symbol("x")
    with pytest.raises((sympy.SympifyError, SymbolicUnavailable)):
        decompose(["__import__('os').getcwd() + x"], (x,))

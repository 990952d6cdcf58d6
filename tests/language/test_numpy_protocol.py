"""Plain NumPy functions in the exact worlds: every ufunc with a row in the function table
runs on SymPy symbols and mpmath numbers, so a NumPy f has an exact reference, its kinks
are seen, and the user's own gradient of it is judged."""

from __future__ import annotations

import math
import textwrap

import mpmath
import numpy as np
import pytest
import sympy
from cli_runner import run

from diffcompare import audit, compare
from diffcompare.language.numpy_protocol import UFUNC_ROWS, call
from diffcompare.problem.problem import make_problem

POINT = {1: (0.3,), 2: (0.7, 0.4)}          # inside every unary row's domain (acosh is shifted below)


@pytest.mark.parametrize("name", sorted(UFUNC_ROWS))
def test_every_ufunc_in_the_exact_worlds(name):
    ufunc = getattr(np, name)
    row = UFUNC_ROWS[name]
    args = POINT[ufunc.nin]
    if name == "arccosh":
        args = (1.7,)
    expected = float(ufunc(*args))                      # NumPy's own binary64 value
    symbols = sympy.symbols(f"a0:{ufunc.nin}", real=True)
    expression = call(lambda *a: ufunc(*a), dict(zip(map(str, symbols), symbols)), "sympy")
    assert isinstance(expression, sympy.Basic)
    exact = expression.subs(dict(zip(symbols, map(sympy.Float, args)))).evalf(30)
    assert float(exact) == pytest.approx(expected, rel=1e-14, abs=1e-300)
    with mpmath.workdps(30):
        value = call(lambda *a: ufunc(*a), {f"a{i}": mpmath.mpf(v) for i, v in enumerate(args)}, "mpmath")
    assert float(value) == pytest.approx(expected, rel=1e-14, abs=1e-300)
    # the expression is the row's own SymPy form
    assert sympy.simplify(expression - row.sympy(*symbols)) == 0


def test_a_numpy_function_has_sympys_derivative():
    p = make_problem(lambda x, y: np.exp(x) * np.arctan2(y, x) + np.sqrt(x * x + y * y), {"x": 0.5, "y": 2.0})
    (f,), symbols = p.sympy_outputs()
    x, y = symbols
    # by hand: ∂/∂x = e^x atan2(y, x) - e^x y / (x² + y²) + x / sqrt(x² + y²)
    by_hand = sympy.exp(x) * sympy.atan2(y, x) - sympy.exp(x) * y / (x ** 2 + y ** 2) + x / sympy.sqrt(x ** 2 + y ** 2)
    assert sympy.simplify(sympy.diff(f, x) - by_hand) == 0


def test_arrays_of_symbols_through_numpy_reductions():
    a, b, c = sympy.symbols("a b c", real=True)
    out = call(lambda v: np.dot(v, v) + np.sum(np.tanh(v)), {"v": np.array([a, b, c], dtype=object)}, "sympy")
    assert sympy.simplify(out - (a ** 2 + b ** 2 + c ** 2 + sympy.tanh(a) + sympy.tanh(b) + sympy.tanh(c))) == 0


def test_a_branch_on_a_symbol_still_has_no_symbolic_form():
    p = make_problem(lambda x: np.sin(x) if x > 0 else -x, {"x": 0.5})
    with pytest.raises(Exception):
        p.sympy_outputs()
    with mpmath.workdps(30):        # but mpmath numbers can branch: the numerical reference has f
        assert float(p.evaluate("mpmath", {"x": mpmath.mpf("0.5")})) == pytest.approx(math.sin(0.5), rel=1e-15)


def test_compare_judges_a_numpy_function_and_its_given_gradient():
    c = compare(lambda x, y: np.sin(x) * y, {"x": 0.5, "y": 2.0}, gradient=lambda x, y: (np.cos(x) * y, np.sin(x)),
                repeat=1)
    assert c.method("autograd").verdict == "not applicable"          # the engine cannot run np.sin
    assert c.method("symbolic").verdict == "pass"
    assert c.method("given").verdict == "pass" and c.exit_status == 0
    # cos(0.5) * 2 by hand, in the reference
    assert float(c.reference.text(0, 20)) == pytest.approx(2 * math.cos(0.5), rel=1e-16)
    wrong = compare(lambda x, y: np.sin(x) * y, {"x": 0.5, "y": 2.0}, gradient=lambda x, y: (np.cos(x) * y, np.cos(x)),
                    methods="central-difference", repeat=1)
    assert wrong.method("given").verdict == "fail" and wrong.exit_status == 1


def test_a_numpy_kink_is_seen():
    c = compare(lambda x: np.abs(x) + np.maximum(x, 1.0), {"x": 0.0}, methods="central-difference", repeat=1)
    assert c.method("central-difference").verdict == "not judged"
    report = audit(lambda x: np.abs(x - 0.25) * x, gradient=lambda x: np.sign(x - 0.25) * x + np.abs(x - 0.25),
                   domain={"x": (-1, 1)}, at=[{"x": 0.25}])
    case = report.cases[0]
    # |x - 1/4| x has one-sided derivatives -1/4 and 1/4 at 1/4 (by hand): the given 0 lies between
    assert case.points[0].verdict == "subgradient"
    assert any("kink of abs at x = 0.25" in p.origin for p in case.points)     # found by the search too
    assert case.status == "pass", case.findings


def test_compare_gradient_on_the_command_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "hand.py").write_text(textwrap.dedent('''
        import numpy as np

        def f(x, y):
            return np.exp(x) * np.cos(y)

        def df(x, y):
            return np.exp(x) * np.cos(y), -np.exp(x) * np.sin(y)
    '''))
    monkeypatch.chdir(tmp_path)
    code, out = run(["compare", "hand:f", "--at", "x=0.5,y=2", "--gradient", "hand:df", "--methods", "central-difference"],
                    capsys)
    assert code == 0, out.out + out.err
    assert "given" in out.out and "pass" in out.out
    code, out = run(["compare", "hand:f", "--at", "x=0.5,y=2", "--gradient", "hand:nothing"], capsys)
    assert code == 2 and "module 'hand' has no 'nothing'" in out.err
    code, out = run(["compare", "exp(x)", "--at", "x=0.5", "--methods", "given"], capsys)
    assert code == 2 and "name its function with --gradient" in out.err

"""The engine's elementwise functions against the language's function table
(``diffcompare.language.table``): the engine may not import the language, so this test
holds the two together. For every function in both, the engine's gradient at the row's
sample points (inside the domain, off the kinks) equals the derivative of the row's SymPy
expression, evaluated by SymPy to 30 digits at the same binary64 arguments, to 1e-12
relative; every function of the table is in the engine and every function the engine
claims is in the table (or listed below as outside the language); and at the kinks, the
engine follows the convention the row states.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from diffcompare import autograd as ag
from diffcompare.autograd.ops import elementwise
from diffcompare.language.table import ROWS

# the engine's names for the table's rows, where they differ
ENGINE_NAME = {"min": "minimum", "max": "maximum"}
# the engine's elementwise functions that the expression language does not have
OUTSIDE_THE_LANGUAGE = {"ceil", "floor", "round", "rsqrt", "reciprocal", "conj", "real", "imag", "where",
                        "clip"}   # clip is clamp under NumPy's name
ELEMENTWISE_ROWS = sorted(name for name, row in ROWS.items()
                          if row.arity >= 1 and not row.structural and not row.is_operator and not row.syntax)


def _engine(name):
    return getattr(ag, ENGINE_NAME.get(name, name))


def _engine_gradient(name, args):
    xs = [ag.tensor(float(a), dtype=ag.float64, requires_grad=True) for a in args]
    _engine(name)(*xs).backward()
    return [x.grad.item() for x in xs]


def _reference_gradient(name, args):
    """The partial derivatives of the row's SymPy expression, at the exact binary64 arguments."""
    symbols = sp.symbols(f"a0:{len(args)}", real=True)
    expression = ROWS[name].sympy(*symbols)
    at = {s: sp.Rational(float(a)) for s, a in zip(symbols, args)}
    return [float(sp.diff(expression, s).subs(at).evalf(30)) for s in symbols]


def test_the_table_and_the_engine_have_the_same_functions():
    claimed = {name for name in elementwise.PUBLIC if name not in OUTSIDE_THE_LANGUAGE}
    assert claimed == {ENGINE_NAME.get(name, name) for name in ELEMENTWISE_ROWS}
    assert set(elementwise.ELEMENTWISE) - set(elementwise.VIEWS) <= set(elementwise.PUBLIC)
    z = ag.tensor([1.0 + 2.0j])
    assert ag.real(z)._base is z and ag.imag(z)._base is z          # views of a complex tensor (pointwise's)
    assert ag.clip is ag.clamp


@pytest.mark.parametrize("name", ELEMENTWISE_ROWS)
def test_the_engine_derivative_is_the_tables(name):
    row = ROWS[name]
    assert row.samples, f"{name}: the table gives no sample point"
    for args in row.samples:
        assert not (row.kink is not None and np.any(row.kink(*args))), f"{name}: sample {args} is on a kink"
        mine, reference = _engine_gradient(name, args), _reference_gradient(name, args)
        for m, r in zip(mine, reference):
            if r == 0:
                assert m == 0, (name, args, mine, reference)
            else:
                assert abs(m - r) <= 1e-12 * abs(r), (name, args, mine, reference)


def test_the_engine_derivative_of_pow_and_the_arithmetic_operators():
    # the operator rows are Tensor's operators: the same check through them
    for name, op in (("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
                     ("div", lambda a, b: a / b), ("pow", lambda a, b: a ** b)):
        for args in ROWS[name].samples:
            xs = [ag.tensor(float(a), requires_grad=True) for a in args]
            op(*xs).backward()
            for x, r in zip(xs, _reference_gradient(name, args)):
                assert abs(x.grad.item() - r) <= 1e-12 * abs(r), (name, args)


# at the kinks: (the row's convention, as the table states it; arguments; the gradient it means)
CONVENTIONS = {
    "relu": ("relu'(0) = 0 (PyTorch)", (0.0,), [0.0]),
    "abs": ("abs'(0) = sign(0) = 0 (PyTorch)", (0.0,), [0.0]),
    "sign": ("sign' = 0 everywhere (PyTorch)", (0.0,), [0.0]),
    "min": ("a tie sends half the gradient to each side (PyTorch)", (1.5, 1.5), [0.5, 0.5]),
    "max": ("a tie sends half the gradient to each side (PyTorch)", (1.5, 1.5), [0.5, 0.5]),
    "hypot": ("nan at the origin (PyTorch)", (0.0, 0.0), [math.nan, math.nan]),
}


def test_every_stated_engine_convention_is_checked():
    stated = {name for name in ELEMENTWISE_ROWS if ROWS[name].engine_convention}
    assert stated == set(CONVENTIONS) | {"clamp"}


@pytest.mark.parametrize("name", sorted(CONVENTIONS))
def test_the_engine_follows_the_rows_convention_at_a_kink(name):
    text, args, expected = CONVENTIONS[name]
    assert ROWS[name].engine_convention == text
    assert np.array_equal(_engine_gradient(name, args), expected, equal_nan=True)


def test_clamp_is_inclusive_at_a_bound_given_as_a_number():
    assert ROWS["clamp"].engine_convention.startswith("clamp'(x) = 1 at a bound given as a number")
    for x in (0.0, 1.0):
        t = ag.tensor(x, requires_grad=True)
        ag.clamp(t, 0.0, 1.0).backward()
        assert t.grad.item() == 1.0

"""The expression language: Python's precedence, located errors with suggestions, hard
limits that hold before anything can blow up, and fuzzing: any text either parses or
raises ExpressionError."""

import math
import time

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diffcompare.language.expression import MAX_LENGTH, MAX_NESTING, MAX_NODES, ExpressionError, parse
from diffcompare.language.table import KNOWN_NAMES


def value(text, **values):
    return float(parse(text).evaluate("numpy", {k: np.float64(v) for k, v in values.items()}))


@pytest.mark.parametrize("text, expected", [
    ("-2**2", -4.0),            # unary minus binds looser than ** (as in Python)
    ("2**-1", 0.5),
    ("2**3**2", 512.0),         # right-associative
    ("2^3^2", 512.0),           # ^ is **
    ("2**-3**2", 2.0 ** -9),
    ("2**-1*4", 2.0),           # (2**-1)*4
    ("8/4/2", 1.0),             # left-associative
    ("8-4-2", 2.0),
    ("1+2*3", 7.0),
    ("(1+2)*3", 9.0),
    ("--3", 3.0),
    ("+3", 3.0),
    ("-(-(-3))", -3.0),
    ("1e-3*1000", 1.0),
    (".5 + 1.", 1.5),
    ("pi", math.pi),
    ("e", math.e),
    ("max(1, 2) - min(1, 2)", 1.0),
    ("atan2(1, 0)", math.pi / 2),
    ("pow(2, 10)", 1024.0),
])
def test_precedence_and_associativity_follow_python(text, expected):
    assert value(text) == expected


def test_variables_in_order_of_first_appearance_and_functions_used():
    e = parse("sin(y) * exp(x) + y")
    assert e.variables == ("y", "x")
    assert e.functions == {"sin", "exp"}


def test_sympy_world_keeps_exact_integers_and_binary64_literals():
    x = sympy.Symbol("x", real=True)
    assert parse("x**2/3").evaluate("sympy", {"x": x}) == x ** 2 / 3
    literal = parse("0.1*x").evaluate("sympy", {"x": x}).as_coeff_Mul()[0]
    assert sympy.Rational(literal) == sympy.Rational(*(0.1).as_integer_ratio())   # the double, not 1/10


@pytest.mark.parametrize("text, message, column", [
    ("sinn(x)", "unknown function 'sinn' — did you mean 'sin'?", 1),
    ("x + exmp1(x)", "did you mean 'expm1'?", 5),
    ("sin()", "sin takes 1 argument, got none", 5),
    ("atan2(x)", "atan2 takes 2 arguments, got 1", 1),
    ("2x", "missing operator between the number 2 and 'x' — write 2*x?", 2),
    ("x +", "expression ends after '+'", 4),
    ("(x + 1", "'(' is never closed", 1),
    ("x + 1)", "unmatched ')'", 6),
    ("x * * y", "found '*'", 5),
    ("sin", "'sin' is a function: call it as sin(x)", 1),
    ("pi(2)", "'pi' is a constant, not a function", 1),
    ("x = 1", "give values with --at", 3),
    ("x $ 1", "unexpected character '$'", 3),
    ("1e999 * x", "beyond the largest float64", 1),
    ("x, y", "',' outside a function call", 2),
])
def test_errors_name_the_problem_and_point_at_it(text, message, column):
    with pytest.raises(ExpressionError) as info:
        parse(text)
    error = info.value
    assert message in error.message and error.column == column
    lines = str(error).splitlines()
    assert lines[1].strip() == text.strip() and lines[2].index("^") - 2 == column - 1


def test_empty_input_and_non_text():
    for text in ("", "   "):
        with pytest.raises(ExpressionError, match="empty expression"):
            parse(text)
    with pytest.raises(ExpressionError, match="must be text"):
        parse(3)


def _fails_fast(text, match):
    start = time.perf_counter()
    with pytest.raises(ExpressionError, match=match):
        parse(text)
    return time.perf_counter() - start


def test_hard_limits_hold_without_recursion_or_memory_errors():
    # each input hits its own limit, and quickly (no RecursionError, MemoryError or hang)
    assert _fails_fast("x+" * 100_000 + "x", "too large") < 5
    assert _fails_fast("(" * 10_000 + "x" + ")" * 10_000, "nested too deeply") < 5
    assert _fails_fast("-" * 100_000 + "x", "nested too deeply") < 5
    assert _fails_fast("x" + "**x" * 10_000, "nested too deeply") < 5
    assert _fails_fast("sin(" * 10_000 + "x" + ")" * 10_000, "nested too deeply") < 5
    assert _fails_fast("x" * (MAX_LENGTH + 1), "too long") < 5
    assert _fails_fast("1" * 1000 + "*x", "number too long") < 5


def test_just_inside_the_limits_parses_and_differentiates():
    nested = "sin(" * (MAX_NESTING - 1) + "x" + ")" * (MAX_NESTING - 1)
    x = sympy.Symbol("x", real=True)
    derivative = sympy.diff(parse(nested).evaluate("sympy", {"x": x}), x)
    assert derivative.subs(x, 0) == 1            # every cos(0) is 1
    terms = (MAX_NODES - 1) // 2
    assert value("+".join(["x"] * (terms + 1)), x=1.0) == terms + 1


# -- fuzzing -------------------------------------------------------------------------------

@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_any_text_parses_or_raises_expression_error(text):
    try:
        parse(text)
    except ExpressionError as error:
        assert error.message
        if error.column is not None:
            assert 1 <= error.column <= len(text) + 1


TOKENS = st.sampled_from(["x", "y", "1", "2.5", "1e-3", "+", "-", "*", "/", "**", "^", "(", ")", ",", " ", "pi",
                          "e", "sin(", "atan2(", "max(", "exp(", "sinn(", "2x", ")(", "--", "."] + KNOWN_NAMES)


@settings(max_examples=600, deadline=None)
@given(st.lists(TOKENS, max_size=40))
def test_token_soup_parses_or_raises_expression_error_and_parsed_text_evaluates(tokens):
    text = "".join(tokens)
    try:
        expression = parse(text)
    except ExpressionError:
        return
    values = {name: np.float64(0.75) for name in expression.variables}
    with np.errstate(all="ignore"):
        expression.evaluate("numpy", values)         # never raises once parsed


def test_exact_powers_too_large_to_compute_become_floating_in_sympy():
    # 2 ** 10**30 as an exact integer would never finish; SymPy gets a floating power instead
    power = parse("2**(10**30)").evaluate("sympy", {})
    assert power.is_Float and power > 10 ** 1000
    assert parse("2**10").evaluate("sympy", {}) == 1024        # small exact powers stay exact

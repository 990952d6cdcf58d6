"""The audit's kink search reads the function table: every row that says where its kinks
lie (``kink_zeros``) has them found, with no other edit, inside a domain where no
adversarial point lands on them by chance."""

import math

import pytest
import sympy

from diffcompare.auditing.points import kink_points
from diffcompare.language.table import ROWS
from diffcompare.problem.problem import make_problem

X = sympy.Symbol("x", real=True)
# each row called on x (shifted, for one-argument rows) and constants, as text and in SymPy
ARGUMENTS = {1: (["x - 0.3"], [X - sympy.Rational(3, 10)]), 2: (["x", "0.3"], [X, sympy.Rational(3, 10)]),
             3: (["x", "-0.4", "0.3"], [X, -sympy.Rational(2, 5), sympy.Rational(3, 10)])}
WITH_KINKS = sorted(name for name, row in ROWS.items()
                    if row.kink_zeros is not None and not row.structural and row.arity in ARGUMENTS)


def test_rows_with_kinks_say_where_they_lie():
    # every row with a kink predicate either names the quantities whose zeros are its kinks
    # or has kinks that are not such zeros (a point, a half-line) and is left out on purpose
    without = sorted(name for name, row in ROWS.items()
                     if row.kink is not None and row.kink_zeros is None and not row.structural)
    assert without == ["atan2", "hypot"]
    assert {"abs", "relu", "max", "min", "clamp", "sqrt", "cbrt", "asin", "acos", "acosh", "sign"} <= set(WITH_KINKS)


@pytest.mark.parametrize("name", WITH_KINKS)
def test_the_kinks_of_every_row_are_found(name):
    row = ROWS[name]
    texts, args = ARGUMENTS[row.arity]
    text = f"{name}({', '.join(texts)})"
    # where the kinks are, worked out here from the quantities, by SymPy's solve
    roots = sorted(float(r) for q in row.kink_zeros(*args) for r in sympy.solve(q, X) if r.is_real)
    assert roots, name
    domain = {"x": (min(roots) - 0.77, max(roots) + 0.61)}
    problem = make_problem(text, {"x": sum(domain["x"]) / 2})
    found = [(values["x"], origin) for values, origin in kink_points(problem, domain, {"x": sum(domain["x"]) / 2})]
    for root in roots:
        assert any(math.isclose(value, root, rel_tol=0, abs_tol=4e-16 * max(1.0, abs(root))) and name in origin
                   for value, origin in found), (name, root, found)

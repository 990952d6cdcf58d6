"""SymPy expressions as text for people: one line, pretty (Unicode) or LaTeX, with literal
floats shown short (0.1, not 0.10000000000000001); None when an expression is too large to
be worth printing. SymPy is imported when a formula is first printed.

>>> import sympy
>>> x = sympy.Symbol("x")
>>> one_line(sympy.Float(0.1) * sympy.sin(x)), latex(sympy.sqrt(x))
('0.1*sin(x)', '\\\\sqrt{x}')
"""

from __future__ import annotations

from diffcompare.lazy import LazyModule

sp = LazyModule("sympy")

PRETTY_MAX_OPS = 300      # larger derivatives are reported by size, not printed
LATEX_MAX_OPS = 3000


def display_form(expr):
    """The expression with literal floats shown short (0.1, not 0.10000000000000001, nor
    the exact rational 3602879701896397/36028797018963968 of the binary64 0.1); a division
    by a literal stays one (x/3.7, not 1125899906842624*x/4165829655317709).

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> q = sympy.Rational(*(3.7).as_integer_ratio())
    >>> display_form(-x / q), display_form(x * sympy.Rational(*(0.1).as_integer_ratio()))
    (-x/3.7, 0.1*x)
    """
    floats = {f: _short_float(f) for f in expr.atoms(sp.Float)}
    for q in expr.atoms(sp.Rational):
        if is_binary64_literal(q):
            floats[q] = _short_float(sp.Float(q, 17))
        elif q != 0 and is_binary64_literal(1 / q):          # x/3.7 keeps its 3.7
            floats[q] = sp.sign(q) / sp.Symbol(repr(float(abs(1 / q))))   # printed as written, never evaluated
        elif max(abs(int(q.p)), int(q.q)) > 10 ** 6:         # a ratio of literals (0.1/3.7): its nearest float
            floats[q] = _short_float(sp.Float(q, 17))
    if not floats:
        return expr
    try:
        return expr.xreplace(floats)
    except (TypeError, ValueError):     # rebuilding re-evaluates (Min of a nan): show it as it is
        return expr


def is_binary64_literal(q) -> bool:
    """Whether the SymPy rational ``q`` is a binary64 number that is not a small fraction:
    a power-of-two denominator above 1024 (0.1 as 3602879701896397/2**55; 3/2 and 1/4 stay).

    >>> import sympy
    >>> is_binary64_literal(sympy.Rational(*(0.1).as_integer_ratio())), is_binary64_literal(sympy.Rational(3, 2))
    (True, False)
    """
    q = sp.Rational(q)
    d = int(q.q)
    return d > 1024 and d & (d - 1) == 0


def _short_float(f):
    text = repr(float(f))
    digits = len(text.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0")) or 1
    return sp.Float(text, max(digits, 1))


def _printed(printer, expr, limit):
    """``printer`` applied to the display form, or None when the expression is too large
    to be worth printing (or SymPy cannot print it)."""
    try:
        if sp.count_ops(expr) > limit:
            return None
        return printer(display_form(expr))
    except (TypeError, ValueError, RecursionError):
        return None


def pretty(expr) -> str | None:
    """Unicode pretty text."""
    return _printed(lambda e: sp.pretty(e, use_unicode=True), expr, PRETTY_MAX_OPS)


def one_line(expr) -> str | None:
    return _printed(sp.sstr, expr, LATEX_MAX_OPS)


def latex(expr) -> str | None:
    return _printed(sp.latex, expr, LATEX_MAX_OPS)

"""diffcompare: differentiate a function three ways (reverse-mode AD, SymPy, finite
differences) and compare each against an exact high-precision reference.

>>> import diffcompare
>>> c = diffcompare.compare("x**2 * y", at={"x": 3, "y": 2}, methods="autograd,symbolic", repeat=1)
>>> c.method("autograd").values(), c.exit_status
({'x': 12.0, 'y': 9.0}, 0)
"""

from diffcompare.version import __version__
from diffcompare import render as _render_stage  # noqa: F401  (the renderers register with the reports)

__all__ = ["__version__", "compare", "explain", "step_sweep", "swell", "audit", "parse",
           "autograd", "functions", "testing"]


def compare(f, at=None, **options):
    """Differentiate ``f`` at ``at`` by every method and compare with the exact reference:
    the gradient, or with ``kind=`` the Jacobian, vᵀJ, Jv or Hessian, at one point or at
    ``points=`` many (see :func:`diffcompare.judge.compare.compare`, imported lazily to keep
    start-up quick)."""
    from diffcompare.judge.compare import compare as run
    return run(f, at, **options)


def explain(f, at, vector=None, check=False, label=None):
    """The backward pass of ``f`` at ``at`` node by node; with ``check=True``, the first
    node whose backward rule is wrong (see :func:`diffcompare.lecture.explain.explain`)."""
    from diffcompare.lecture.explain import explain as run
    return run(f, at, vector=vector, check=check, label=label)


def step_sweep(f, at, variable=None, per_decade=1):
    """Finite-difference error against the step size (see :mod:`diffcompare.lecture.steps`)."""
    from diffcompare.lecture.steps import step_sweep as run
    return run(f, at, variable=variable, per_decade=per_decade)


def swell(family, ns, template=None, timeout=10.0):
    """Expression swell of a family of functions (see :mod:`diffcompare.lecture.swell`)."""
    from diffcompare.lecture.swell import swell as run
    return run(family, ns, template=template, timeout=timeout)


def audit(fn, domain=None, points=None, **options):
    """Audit autograd's gradient (Jacobian, Hessian) of ``fn`` over ``domain`` and at
    ``points`` against the exact reference (see :func:`diffcompare.auditing.audit.audit`)."""
    from diffcompare.auditing.audit import audit as run
    return run(fn, domain=domain, points=points, **options)


def parse(text: str):
    """Parse ``text`` in the expression language into an :class:`~diffcompare.language.expression.Expression`
    (our own parser over the function table: no ``eval``, no ``sympify``). The expression
    evaluates in every world of the table: NumPy, complex, SymPy, mpmath and the engine.
    Mistakes raise :class:`~diffcompare.language.expression.ExpressionError` pointing at
    the column, with the nearest known name.

    >>> import diffcompare
    >>> e = diffcompare.parse("sin(x) * exp(y)")
    >>> e.variables
    ('x', 'y')
    >>> float(e.evaluate("numpy", {"x": 0.5, "y": 0.0})) == float(e.evaluate("numpy", {"x": 0.5, "y": 0.0}))
    True
    >>> e.evaluate("sympy", {"x": __import__("sympy").Symbol("x"), "y": 0})
    sin(x)
    >>> diffcompare.parse("sinn(x)")
    Traceback (most recent call last):
    ...
    diffcompare.language.expression.ExpressionError: unknown function 'sinn' — did you mean 'sin'? (column 1)
      sinn(x)
      ^
    """
    from diffcompare.language.expression import parse as run
    return run(text)


def __getattr__(name):
    """The public submodules on first use (PEP 562), so ``import diffcompare`` stays quick:
    ``diffcompare.autograd``, ``diffcompare.functions``, ``diffcompare.testing``."""
    if name == "autograd":
        import diffcompare.autograd as autograd
        return autograd
    if name == "functions":
        import diffcompare.functions as functions
        return functions
    if name == "testing":
        import diffcompare.testing as testing
        return testing
    raise AttributeError(f"module 'diffcompare' has no attribute {name!r}")

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


def compare(f, at=None, methods=None, digits: int = 30, repeat: int = 5, step: float | None = None,
            symbolic_timeout: float | None = 10.0, kind: str | None = None, vector=None, points: int | None = None,
            seed: int = 0, box=None, grid: bool = False, grad=None, progress=None):
    """Differentiate ``f`` (expression text or a Python callable) at ``at`` by every method
    in ``methods`` and measure each against the exact reference: the gradient, or with
    ``kind=`` the Jacobian, vᵀJ, Jv (``vector=``) or Hessian, at one point or at
    ``points=`` random points of ``box`` (or a ``grid``); ``grad``: your own derivative,
    judged as the method "given"; ``progress(done, total, what)``: called as each stage
    finishes. Every option is described at
    :func:`diffcompare.pipeline.compare.compare` (imported when first called, so that
    ``import diffcompare`` stays quick).

    >>> import diffcompare
    >>> c = diffcompare.compare("sin(x) * y", at={"x": 0.5, "y": 2.0}, methods="autograd,central", repeat=1)
    >>> c.method("autograd").verdict, c.exit_status
    ('pass', 0)
    """
    from diffcompare.pipeline.compare import compare as run
    return run(f, at, methods=methods, digits=digits, repeat=repeat, step=step, symbolic_timeout=symbolic_timeout,
               kind=kind, vector=vector, points=points, seed=seed, box=box, grid=grid, grad=grad, progress=progress)


def explain(f, at, vector=None, check=False, label=None):
    """The backward pass of ``f`` at ``at`` node by node; with ``check=True``, the first
    node whose backward rule is wrong (see :func:`diffcompare.lecture.explain.explain`).

    >>> import diffcompare
    >>> walk = diffcompare.explain("sin(x) * x", {"x": 2.0}, check=True)
    >>> [step.name for step in walk.steps], walk.first_wrong is None
    (['MulBackward0', 'SinBackward0', 'AccumulateGrad'], True)
    """
    from diffcompare.lecture.explain import explain as run
    return run(f, at, vector=vector, check=check, label=label)


def step_sweep(f, at, variable=None, per_decade=1, h_range="1e-20..1e-1", measure="absolute", axis="increasing",
               schemes="forward,central,five-point,complex-step", precisions="float64,float32"):
    """Finite-difference error against the step size, every scheme in float64 and float32
    (see :mod:`diffcompare.lecture.steps`): the absolute (or relative) error at every h
    of ``h_range``, h increasing (or decreasing) along the axis.

    >>> import diffcompare
    >>> sweep = diffcompare.step_sweep("exp(x)", {"x": 1.0})
    >>> sweep.schemes
    ['forward', 'central', 'five-point', 'complex-step']
    """
    from diffcompare.lecture.steps import step_sweep as run
    return run(f, at, variable=variable, per_decade=per_decade, h_range=h_range, measure=measure, axis=axis,
               schemes=schemes, precisions=precisions)


def swell(family, ns, template=None, timeout=10.0, symbolic_backend="sympy", expressions=0):
    """Expression swell of a family of functions (see :mod:`diffcompare.lecture.swell`);
    ``symbolic_backend="symengine"`` times SymEngine beside SymPy; ``expressions=N`` keeps
    the expressions themselves for n up to N (the lecture's table).

    >>> import diffcompare
    >>> report = diffcompare.swell("logistic", [1, 2], expressions=1)
    >>> [row.size_raw for row in report.rows], str(report.rows[0].expressions.derivative)
    ([2, 21], '4 - 8*x')
    """
    from diffcompare.lecture.swell import swell as run
    return run(family, ns, template=template, timeout=timeout, symbolic_backend=symbolic_backend,
               expressions=expressions)


def audit(fn, domain=None, points=None, check: str = "gradient", dtype: str = "float64", random: int = 0,
          seed: int = 0, adversarial: bool = True, tolerance: dict | None = None, reference: str | None = None,
          engine: str = "diffcompare", name: str | None = None, timeout: float | None = 600.0, grad=None,
          shape: dict | None = None):
    """Audit autograd's gradient (``check``: or Jacobian, Hessian) of ``fn`` — or your own
    ``grad`` — over ``domain`` ({"x": (-2, 2)}, ``random`` points and adversarial ones) and
    at ``points``, against the exact reference; the options are described at
    :func:`diffcompare.auditing.audit.audit`.

    >>> import diffcompare
    >>> report = diffcompare.audit("x * abs(x)", domain={"x": (-1, 1)}, random=5)
    >>> report.exit_status, report.cases[0].status
    (0, 'pass')
    """
    from diffcompare.auditing.audit import audit as run
    return run(fn, domain=domain, points=points, check=check, dtype=dtype, random=random, seed=seed,
               adversarial=adversarial, tolerance=tolerance, reference=reference, engine=engine, name=name,
               timeout=timeout, grad=grad, shape=shape)


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

"""Gradient assertions for any test suite: :func:`assert_gradients` audits ``fn`` at the
given points against the exact reference and raises an ``AssertionError`` that names
the wrong entry, every method's value and the tolerance.

>>> from diffcompare.language.functions import sin
>>> assert_gradients(lambda x, y: sin(x) * y, at={"x": 0.5, "y": 2.0})
>>> assert_gradients("x * abs(x) + y", at=[{"x": 1.5, "y": 0.0}, {"x": -2.0, "y": 1.0}])
>>> assert_gradients("sum(x * x)", at={"x": [1.0, -2.0, 0.5]}, gradient=lambda x: 2 * x)   # your own gradient
"""

from __future__ import annotations

from diffcompare.auditing.audit import audit
from diffcompare.auditing.results import FAILING, UNCHECKED, format_point
from diffcompare.problem.vocabulary import RENAMED_ARGUMENTS, RENAMED_AUDIT, old_arguments
from diffcompare.render.audit import failure_lines
from diffcompare.render.findings import verdict_of, verdict_words

__all__ = ["assert_gradients"]


def assert_gradients(fn, at, kind: str = "gradient", dtype: str = "float64", domain=None, points: int = 0,
                     seed: int = 0, tolerance: dict | None = None, reference: str | None = None,
                     engine: str = "diffcompare", gradient=None, shape: dict | None = None,
                     allow_undecided: bool = False, **renamed):
    """Raise AssertionError unless autograd's ``kind`` (gradient, jacobian, hessian) of
    ``fn`` — or your own ``gradient``, a function of f's arguments returning it — agrees with
    the exact reference at every point of ``at`` (a mapping or a list of them; values may
    be vectors and matrices) — and, with ``domain`` and ``points``, at random and
    adversarial points too (``shape``: the shapes of array variables the domain fills).
    At a kink, a value between the one-sided derivatives is right; nan or ±inf where f is
    differentiable is wrong. A point asked for where the gradient could not be decided
    (f has no finite derivative there, no reference, a band as wide as the value) raises
    too, saying which and why, unless ``allow_undecided`` (:func:`diffcompare.audit`
    returns the whole report).

    >>> assert_gradients("sqrt(x)", at={"x": 0.0})          # an infinite slope: nothing to judge
    Traceback (most recent call last):
    ...
    AssertionError: the gradient of sqrt(x) could not be decided at 1 of the 1 points asked for: ...
    >>> assert_gradients("sqrt(x)", at={"x": 0.0}, allow_undecided=True)

    >>> from diffcompare import autograd as ag
    >>> class Cube(ag.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return grad * 2 * x ** 2            # should be 3 x²
    >>> assert_gradients(Cube, at={"x": 1.5})
    Traceback (most recent call last):
    ...
    AssertionError: autograd's gradient of Cube is wrong at x=1.5: ∂f/∂x: autograd 4.5, exact 6.75, FD 6.75; ...
    """
    old = old_arguments("assert_gradients", renamed, RENAMED_ARGUMENTS | RENAMED_AUDIT)
    kind, points, gradient = old.get("kind", kind), old.get("points", points), old.get("gradient", gradient)
    if domain is None and points:
        raise ValueError("random points need a domain, e.g. domain={'x': (-2, 2)}")
    report = audit(fn, domain=domain, at=at, kind=kind, dtype=dtype, points=points, seed=seed,
                   adversarial=domain is not None, tolerance=tolerance, reference=reference, engine=engine,
                   gradient=gradient, shape=shape)
    case = report.cases[0]
    if case.status == "error":
        raise ValueError(f"cannot audit {case.source}: {case.error}")
    if case.status == "internal":
        raise RuntimeError(f"diffcompare failed auditing {case.source} (an internal error, not your function's): "
                           f"{case.error}")
    failing = [p for p in case.points if p.verdict in FAILING]
    if failing:
        worst = max(failing, key=lambda p: p.autograd_error if p.autograd_error is not None else float("inf"))
        who = "autograd's" if case.judged == "autograd" else f"the {case.judged.replace('gradient ', '')}"
        lines = [f"{who} {kind} of {case.name} is wrong at {format_point(worst.point)}: {worst.reason}"]
        lines += [f"  {line}" for line in failure_lines(case)[2:]]      # the values, tolerance and wrong rule
        lines.append(f"  wrong at {len(failing)} of {len(case.points)} points")
        raise AssertionError("\n".join(lines))
    undecided = [p for p in case.points if p.asked and p.verdict in UNCHECKED]
    if (undecided or case.status == "undecided") and not allow_undecided:
        asked = sum(1 for p in case.points if p.asked)
        lines = [f"the {kind} of {case.name} could not be decided at {len(undecided)} of the {asked} points asked "
                 f"for: " + "; ".join(f"{format_point(p.point)}: {verdict_words(p.verdict, case.judged)}: {p.reason}" for p in undecided[:5])]
        if case.status == "undecided" and not undecided:
            lines = [f"the {kind} of {case.name} could not be decided: {verdict_of(case)}"]
        lines.append("  (allow_undecided=True accepts points that cannot be decided)")
        raise AssertionError("\n".join(lines))

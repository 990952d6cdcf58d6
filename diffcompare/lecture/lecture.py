"""A whole lecture on one function: the story of the ``backward()`` articles told on the
user's own f — the graph the engine records, the forward and the backward pass, the
``gradient`` argument as a vector-Jacobian product, ``retain_graph`` and ``create_graph``,
forward against reverse mode with what each costs, finite-difference error against the
step h, and expression swell against symbolic reverse mode — with every method side by
side at the end. This module computes; :mod:`diffcompare.render.lecture` writes the deck
and the notebook.

>>> lec = lecture("sin(x) * x", at={"x": 2.0}, ns=(1, 2), sizes=(1, 4))
>>> [s.name for s in lec.explanation.steps]
['MulBackward0', 'SinBackward0', 'AccumulateGrad']
>>> lec.retain.accumulated == 2 * lec.retain.first
True
>>> [c.forward_passes for c in lec.cost], [c.reverse_passes for c in lec.cost]
([1, 4], [1, 1])
"""

from __future__ import annotations

import re
import timeit
from dataclasses import dataclass, field

import numpy as np

from diffcompare import autograd as ag
from diffcompare.judge.report import EXIT_PASSED, Report
from diffcompare.language.expression import parse
from diffcompare.language.worlds import ENGINE
from diffcompare.lecture.explain import explain
from diffcompare.lecture.steps import step_sweep
from diffcompare.lecture.swell import swell
from diffcompare.methods.symbolic import mpmath_lambdify
from diffcompare.pipeline.compare import compare
from diffcompare.problem.errors import InputError
from diffcompare.problem.problem import make_problem

VJP_SEED = (1.0, 0.1, 0.01)          # the seed articles' v of y.backward(v)
VJP_OFFSETS = (0.0, 0.25, 0.5)       # the vector x of the VJP slide: the point and two beside it
COST_SIZES = (1, 2, 4, 8, 16, 32, 64)
SWELL_NS = (1, 2, 3, 4)


@dataclass
class Retain:
    """``retain_graph`` on f: the gradient after one backward, after a second one on the
    retained graph (accumulated), and the engine's error when the graph was freed."""
    first: float
    accumulated: float
    freed_error: str


@dataclass
class Second:
    """``create_graph``: the first derivative as a differentiable tensor, and the second
    derivative from a backward through it, beside SymPy's f'' evaluated by mpmath."""
    first: float
    second: float | None            # None: the first derivative does not depend on the variable
    exact_second: float | None


@dataclass
class Cost:
    """One size of F(x₁, …, xₙ) = Σᵢ f(xᵢ): passes and seconds of the gradient by forward
    mode (one pass per input) and by reverse mode (one backward)."""
    n: int
    forward_passes: int
    reverse_passes: int
    forward_seconds: float
    reverse_seconds: float
    difference: float               # largest |forward - reverse| over the gradient


@dataclass(repr=False)
class Lecture(Report):
    """The pieces of the lecture; renderers only format them."""
    text: str
    variable: str
    point: dict
    explanation: object                  # lecture.explain.Explanation of f at the point
    vjp: object | None                   # Explanation of f at a vector x with backward(v)
    retain: Retain
    second: Second
    cost: list
    sweep: object                        # lecture.steps.StepSweep
    swell: object | None                 # lecture.swell.SwellReport of f iterated, or None
    template: str | None                 # the iteration the swell slide uses
    comparison: object                   # pipeline.compare.Comparison
    notes: list = field(default_factory=list)
    methods: list = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        """The comparison's status: the lecture shows every method's verdict."""
        return self.comparison.exit_status if self.comparison is not None else EXIT_PASSED

    @property
    def engine_names(self) -> bool:
        """True when every function f uses has the same name in the engine (and in
        PyTorch), so that the slides' code can call them directly."""
        return all(hasattr(ag, name) for name in parse(self.text).functions)





def lecture(text: str, at: dict, variable: str | None = None, ns=None, sizes=None,
            timeout: float = 10.0, progress=None) -> Lecture:
    """Compute everything the lecture shows on ``text`` at the point ``at``: swell at the
    ``ns`` (default :data:`SWELL_NS`), forward against reverse mode at the ``sizes``
    (default :data:`COST_SIZES`); ``progress(done, total, part)`` hears of each part as it
    is done."""
    ns = SWELL_NS if ns is None else ns
    sizes = COST_SIZES if sizes is None else sizes
    if not isinstance(text, str):
        raise InputError("the lecture needs f as text in the expression language, e.g. \"sin(x) * x\"")
    problem = make_problem(text, at)
    if any(problem.shapes[name] for name in problem.variables):
        raise InputError("the lecture tells its story on a scalar function of scalar variables: "
                         "give every variable one number, e.g. --at x=1.5")
    variable = _variable(problem, variable)
    notes = []
    template = _template(text, problem.variables, variable)
    if template is None:
        notes.append(("no-swell", variable))
    parts = {
        "explain": lambda: explain(text, at=problem.point),
        "vjp": lambda: _vjp(text, problem.point, variable, notes),
        "retain": lambda: _retain(problem, variable),
        "second": lambda: _second(problem, variable),
        "cost": lambda: [_cost(problem, variable, n) for n in sizes],
        "steps": lambda: step_sweep(text, problem.point, variable=variable),
        "swell": lambda: None if template is None else swell(
            "template", list(ns), template=template, timeout=timeout, expressions=2),
        "compare": lambda: compare(text, at=problem.point, repeat=3),
    }
    done = {}
    for k, (name, compute) in enumerate(parts.items()):
        done[name] = compute()
        if progress is not None:
            progress(k + 1, len(parts), name)
    return Lecture(text=text, variable=variable, point=dict(problem.point), explanation=done["explain"],
                   vjp=done["vjp"], retain=done["retain"], second=done["second"], cost=done["cost"],
                   sweep=done["steps"], swell=done["swell"], template=template, comparison=done["compare"],
                   notes=notes)


def _variable(problem, variable):
    if variable is None:
        return problem.variables[0]
    if variable not in problem.variables:
        raise InputError(f"--var {variable!r} is not a variable of f (its variables: {', '.join(problem.variables)})")
    return variable


def _vjp(text, point, variable, notes):
    """f at three values of the variable at once (a vector), y.backward(v) with the seed
    articles' v: x.grad = vᵀJ, here v ⊙ f'(x) since f acts elementwise."""
    at = dict(point)
    at[variable] = [float(point[variable]) + d for d in VJP_OFFSETS]
    try:
        return explain(text, at=at, vector=list(VJP_SEED))
    except InputError as error:          # f undefined beside the point
        notes.append(("no-vjp", str(error)))
        return None


def _leaves(problem, variable, requires_grad=True):
    return {name: ag.tensor(float(problem.point[name]), dtype=ag.float64,
                            requires_grad=requires_grad and name == variable) for name in problem.variables}


def _retain(problem, variable) -> Retain:
    leaves = _leaves(problem, variable)
    x = leaves[variable]
    y = problem.evaluate(ENGINE, leaves)
    y.backward(retain_graph=True)
    first = float(x.grad)
    y.backward()                          # the retained graph: the gradient accumulates
    accumulated = float(x.grad)
    y = problem.evaluate(ENGINE, leaves)
    y.backward()
    try:
        y.backward()
        freed = ""
    except RuntimeError as error:         # the engine's text, as PyTorch's
        freed = str(error)
    return Retain(first=first, accumulated=accumulated, freed_error=freed)


def _second(problem, variable) -> Second:
    import mpmath
    import sympy

    leaves = _leaves(problem, variable)
    x = leaves[variable]
    y = problem.evaluate(ENGINE, leaves)
    (first,) = ag.autograd.grad(y, x, create_graph=True)
    second = None
    if first.requires_grad:
        (h,) = ag.autograd.grad(first, x, allow_unused=True)
        second = None if h is None else float(h)
    exact = None
    try:
        (output,), symbols = problem.sympy_outputs()
        index = list(problem.variables).index(variable)
        d2 = sympy.diff(output, symbols[index], 2)
        with mpmath.workdps(30):
            at = [mpmath.mpf(float(problem.point[v])) for v in problem.variables]
            exact = float(mpmath_lambdify(list(symbols), [d2])(*at)[0])
    except Exception:                     # SymPy cannot follow f: the slide shows the engine alone
        exact = None
    return Second(first=float(first.detach()), second=second, exact_second=exact)


def _cost(problem, variable, n) -> Cost:
    """F(x) = Σᵢ f(xᵢ) over n copies of the variable (spread a little around the point)."""
    x0 = float(problem.point[variable]) + np.linspace(0.0, 1e-3, n)
    fixed = {name: ag.tensor(float(problem.point[name]), dtype=ag.float64) for name in problem.variables}

    def big_f(x):
        return problem.evaluate(ENGINE, {**fixed, variable: x}).sum()

    def forward():
        return ag.func.jacfwd(big_f)(ag.tensor(x0))

    def reverse():
        return ag.func.grad(big_f)(ag.tensor(x0))

    difference = float(np.max(np.abs(forward().numpy() - reverse().numpy())))
    return Cost(n=n, forward_passes=n, reverse_passes=1, forward_seconds=_seconds(forward),
                reverse_seconds=_seconds(reverse), difference=difference)


def _seconds(call) -> float:
    """Seconds per call: the best of three timeit rounds of enough calls for 20 ms."""
    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    number = max(1, number // 10)
    return min(timer.repeat(repeat=3, number=number)) / number


def _template(text, variables, variable) -> str | None:
    """f as one step of an iteration y ← f(y) for the swell slide: the variable becomes y,
    the previous iterate (swell starts the iteration at y₀ = x)."""
    if variable == "y":
        return text
    if "y" in variables:
        return None
    return re.sub(rf"\b{re.escape(variable)}\b", "y", text)

"""Expression swell made measurable: for a family of functions f_n, the size of f, of
SymPy's raw derivative, of the derivative after common-subexpression elimination, of the
derivative by symbolic reverse mode and of the engine's recorded graph, and the time of
every phase, as n grows.

The lecture point: raw symbolic derivatives grow much faster than f (the logistic map's
iterates double in size as trees; their derivatives grow faster still), ``cse`` tames
but does not bound them, and reverse mode stays within a small constant of f — the
engine's graph has one node per operation actually performed, and symbolic reverse mode
(:mod:`diffcompare.methods.symbolic_reverse`: the same sweep on SymPy expressions, every
intermediate a symbol) gives a symbolic derivative that grows as f's own program does:
reverse-mode AD and symbolic differentiation on a DAG are one thing.

Sizes are SymPy's ``count_ops`` (operations in the expression written out as a tree, or
in every assignment of a straight-line program) and the engine's node count (operations
performed once each, shared values shared). With ``symbolic_backend="symengine"``,
SymEngine differentiates f and generates code too, timed beside SymPy.

>>> report = swell("nested-sin", [1, 2, 4])
>>> [row.size_f for row in report.rows], [row.graph_nodes for row in report.rows]
([1, 2, 4], [2, 3, 5])
>>> [row.size_reverse for row in report.rows]     # sin(t_k) forward, cos(t_k) and a product back
[1, 4, 10]
>>> report.rows[-1].agreement < 1e-14 and report.rows[-1].reverse_agreement < 1e-14
True
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field

import numpy as np

from diffcompare import autograd as ag
from diffcompare.autograd.graph import collect
from diffcompare.autograd.quiet import quietly
from diffcompare.judge.report import Report
from diffcompare.language import functions as F
from diffcompare.language.expression import nearest, parse
from diffcompare.language.worlds import ENGINE
from diffcompare.methods import symengine_backend
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.symbolic import differentiate
from diffcompare.methods.symbolic_reverse import symbolic_reverse
from diffcompare.problem.errors import InputError, SymbolicUnavailable
from diffcompare.problem.problem import make_problem
from diffcompare.problem.values import whole_number

MAX_N = 100_000


def _logistic(n):
    def f(x):
        y = x
        for _ in range(n):
            y = 4 * y * (1 - y)
        return y
    return f, {"x": 0.3}


def _sines(n):
    def f(*xs):
        out = F.sin(xs[0])
        for x in xs[1:]:
            out = out * F.sin(x)
        return out
    return f, {f"x{i}": 0.5 + 0.1 * i for i in range(1, n + 1)}


def _nested_sin(n):
    def f(x):
        for _ in range(n):
            x = F.sin(x)
        return x
    return f, {"x": 0.7}


def _rosenbrock(n):
    def f(*xs):
        total = 0
        for a, b in zip(xs[:-1], xs[1:]):
            total = total + 100 * (b - a * a) ** 2 + (1 - a) ** 2
        return total
    return f, {f"x{i}": 1.2 - 0.05 * i for i in range(1, max(n, 2) + 1)}


def _mlp(n):
    """n tanh layers of width 3 on a scalar input, fixed weights (seed 0), summed output."""
    rng = np.random.default_rng(0)
    layers = [(rng.normal(0, 0.8, (3, 3 if k else 1)).tolist(), rng.normal(0, 0.1, 3).tolist()) for k in range(n)]

    def f(x):
        h = [x]
        for weights, biases in layers:
            h = [F.tanh(sum((w * v for w, v in zip(row, h)), b)) for row, b in zip(weights, biases)]
        return h[0] + h[1] + h[2]
    return f, {"x": 0.5}


FAMILIES = {
    "logistic": (_logistic, "the logistic map's n-th iterate: l₀ = x, l_{k+1} = 4 l_k (1 - l_k)"),
    "sines": (_sines, "the product of n sines, sin(x₁)·sin(x₂)···sin(x_n), its gradient in n variables"),
    "nested-sin": (_nested_sin, "sin(sin(...sin(x)...)), n times"),
    "rosenbrock": (_rosenbrock, "the n-dimensional Rosenbrock function, its gradient in n variables"),
    "mlp": (_mlp, "a tanh MLP on a scalar input: n layers of width 3, fixed weights"),
    "template": (None, "your template, iterated n times: y is the previous iterate (y₀ = x)"),
}


# how n is counted for the families that iterate a map from x: "iterations" (row n applies
# the map n times, f₀ = x) or "paper", Baydin et al.'s numbering in their Table 1 (row n is
# l_n with l₁ = x: n − 1 applications, so that the first row is x itself)
NUMBERINGS = ("iterations", "paper")
ITERATED = ("logistic", "nested-sin", "template")
PAPER_DESCRIPTIONS = {
    "logistic": "the logistic map as Baydin et al. number it (Table 1): l₁ = x, l_{n+1} = 4 l_n (1 - l_n)",
    "nested-sin": "sin(sin(...sin(x)...)) numbered from 1: f₁ = x, f_{n+1} = sin(f_n)",
    "template": "your template numbered from 1: y₁ = x, y_{n+1} = template(y_n)",
}


def _template(text):
    """The family of a user's template: y_{k+1} = template(y_k, x, ...), y₀ = x."""

    expression = parse(text)
    if "y" not in expression.variables:
        raise InputError(f"the template {text!r} does not use y, the previous iterate: without it nothing is "
                         f"iterated (e.g. \"sin(y) * x + y\")")
    others = [v for v in expression.variables if v != "y"]
    names = ["x"] + [v for v in others if v != "x"]

    def family(n):
        def f(*args):
            values = dict(zip(names, args))
            y = values["x"]
            world = F.world_of(*args)
            for _ in range(n):
                y = expression.evaluate(world, {**values, "y": y})
            return y
        return f, {name: 0.5 for name in names}
    return family


@dataclass
class Expressions:
    """The expressions themselves, for a small n (the lecture's table, after Baydin et al.,
    "Automatic differentiation in machine learning: a survey", 2018, Table 1): f, SymPy's
    raw derivative along the first variable, the same after ``cse``, f as the program the
    engine's graph performs, and symbolic reverse mode's gradient program. SymPy objects
    and programs; renderers print them."""
    variable: str
    f: object
    derivative: object
    cse: tuple                          # ([(symbol, expression)], the reduced derivative)
    forward: object = None              # symbolic_reverse.Program: f, one operation per line
    reverse: object = None              # symbolic_reverse.Program: the gradient
    paper: "PaperForms | None" = None   # f a polynomial in one variable: Baydin et al.'s columns


@dataclass
class PaperForms:
    """Baydin et al.'s Table 1 columns, for f a polynomial in one variable with rational
    coefficients (the logistic map): f factored as the paper prints it (the content, then
    the irreducible factors lowest degree first, each in ascending powers with a positive
    constant term: 64x(1 − x)(1 − 2x)²(1 − 8x + 8x²)²); the raw derivative, the product
    rule applied to that product, one term per factor in the factors' order, the constants
    of each term gathered; and the derivative simplified: expanded in ascending powers, its
    integer content taken out when more than two terms remain (4 − 8x; 16(1 − 10x + 24x²
    − 16x³)). Unevaluated SymPy expressions, in the paper's order (print them with
    ``order="none"``)."""
    factored: object
    product_rule: object
    simplified: object


@dataclass
class SwellRow:
    n: int
    size_f: int | None = None
    size_raw: int | None = None
    size_cse: int | None = None
    graph_nodes: int | None = None
    diff_seconds: float | None = None
    codegen_seconds: float | None = None
    evaluate_seconds: float | None = None
    forward_seconds: float | None = None
    backward_seconds: float | None = None
    agreement: float | None = None      # max relative difference of the engine's and SymPy's gradients
    symbolic: str = "ok"                # ok, or why SymPy has no numbers for this n
    # symbolic reverse mode: f's straight-line program, the gradient's, the time of the trace
    # and sweep, of lambdify, and the gradient's difference from the engine's
    size_forward: int | None = None
    size_reverse: int | None = None
    reverse_seconds: float | None = None
    reverse_codegen_seconds: float | None = None
    reverse_agreement: float | None = None
    reverse: str = "ok"                 # ok, or why symbolic reverse mode has no numbers for this n
    # SymEngine (asked for with symbolic_backend="symengine"): its phases and agreement
    symengine_convert_seconds: float | None = None
    symengine_diff_seconds: float | None = None
    symengine_codegen_seconds: float | None = None
    symengine_agreement: float | None = None
    symengine: str = ""                 # "" not asked for; ok; or why SymEngine has no numbers
    expressions: Expressions | None = None      # for n up to swell's ``expressions``


@dataclass(repr=False)
class SwellReport(Report):
    family: str
    description: str
    rows: list
    timeout: float
    notes: list = field(default_factory=list)
    methods: list = field(default_factory=list)
    backend: str = symengine_backend.SYMPY
    template: str | None = None
    numbering: str = "iterations"


def parse_ns(text) -> list:
    """The values of n: "1..12", "1..64..x2" (doubling), "1,2,4,8" or a list.

    >>> parse_ns("1..5"), parse_ns("1..16..x2"), parse_ns("3, 5")
    ([1, 2, 3, 4, 5], [1, 2, 4, 8, 16], [3, 5])
    """
    if isinstance(text, (list, tuple, range)):
        ns = [int(n) for n in text]
    else:
        text = str(text).strip()
        match = re.fullmatch(r"(\d{1,9})\s*\.\.\s*(\d{1,9})(?:\s*\.\.\s*(x?)(\d{1,9}))?", text, re.ASCII)
        if match:
            low, high = int(match.group(1)), int(match.group(2))
            if low < 1 or high > MAX_N:
                raise InputError(f"--n {text}: every n must be a whole number of at least 1 and {MAX_N} at most")
            if low > high:
                raise InputError(f"--n {text}: the range runs from {low} down to {high}; write {high}..{low}")
            if match.group(3):
                factor = int(match.group(4))
                if factor < 2:
                    raise InputError(f"--n {text}: a growth factor must be at least 2 (x2 doubles n)")
                ns, n = [], low
                while n <= high:
                    ns.append(n)
                    n *= factor
            else:
                step = int(match.group(4) or 1)
                if step < 1:
                    raise InputError(f"--n {text}: the step must be at least 1")
                ns = list(range(low, high + 1, step))
        elif re.fullmatch(r"\d{1,9}(\s*,\s*\d{1,9})*", text, re.ASCII):
            ns = [int(part) for part in text.split(",")]
        else:
            raise InputError(f"--n {text!r}: expected a range such as 1..12, 1..64..x2 (doubling) or a list 1,2,4,8 "
                             f"(n from 1 to {MAX_N})")
    if not ns or min(ns) < 1:
        raise InputError("--n: every n must be a whole number of at least 1")
    if max(ns) > MAX_N:
        raise InputError(f"--n: n up to {MAX_N} at most")
    return ns


def swell(family: str, ns, template: str | None = None, timeout: float = 10.0,
          symbolic_backend: str = symengine_backend.SYMPY, expressions: int = 0, progress=None,
          numbering: str = "iterations") -> SwellReport:
    """Measure expression swell for ``family`` (one of FAMILIES) at every n of ``ns``.
    ``numbering="paper"`` (the families that iterate a map, ITERATED) counts n as Baydin et
    al.'s Table 1 does: row n is l_n with l₁ = x, n − 1 applications of the map.
    SymPy gets ``timeout`` seconds per n; after it runs out, larger n skip SymPy (the
    engine goes on). Symbolic reverse mode (and SymEngine, with ``symbolic_backend=
    "symengine"``) have the same budget each, and stop the same way. For n up to
    ``expressions`` the rows also hold the expressions themselves (:class:`Expressions`).
    ``progress(done, total, what)`` is called before each n.

    >>> row = swell("logistic", [1], expressions=1).rows[0]
    >>> row.expressions.f, row.expressions.derivative
    (4*x*(1 - x), 4 - 8*x)
    """
    whole_number(expressions, "--expressions", 0, MAX_SHOWN)
    if family not in FAMILIES:
        hint = nearest(family, FAMILIES)
        raise InputError(f"unknown family {family!r}" + (f" (did you mean {hint!r}?)" if hint else "")
                         + f"; choose from {', '.join(FAMILIES)}")
    if symbolic_backend not in symengine_backend.BACKENDS:
        hint = nearest(str(symbolic_backend), symengine_backend.BACKENDS)
        raise InputError(f"unknown symbolic backend {symbolic_backend!r}" + (f" (did you mean {hint!r}?)" if hint
                                                                              else "")
                         + f"; choose from {', '.join(symengine_backend.BACKENDS)}")
    if symbolic_backend == symengine_backend.SYMENGINE:
        symengine_backend.require_symengine()
    if numbering not in NUMBERINGS:
        raise InputError(f"unknown numbering {numbering!r}; choose from {', '.join(NUMBERINGS)}")
    if numbering == "paper" and family not in ITERATED:
        raise InputError(f"--numbering paper counts the iterates of a map from x (l₁ = x), as the families "
                         f"{', '.join(ITERATED)} have; in {family} n is a size, counted as it is")
    if family == "template":
        if not template:
            raise InputError('the template family needs --template EXPR, e.g. --template "sin(y) * x + y"')
        build = _template(template)
    else:
        if template:
            raise InputError(f"--template is for the template family, not {family}")
        build = FAMILIES[family][0]
    description = (PAPER_DESCRIPTIONS[family] if numbering == "paper" else FAMILIES[family][1]) \
        + (f": y ← {template}" if template else "")
    report = SwellReport(family, description, [], timeout, backend=symbolic_backend, template=template,
                         numbering=numbering)
    shift = 1 if numbering == "paper" else 0
    stopped = {}            # "SymPy", "symbolic reverse mode", "SymEngine" -> why, once it stopped
    phases = [("SymPy", "symbolic", _symbolic), ("symbolic reverse mode", "reverse", _reverse)]
    if symbolic_backend == symengine_backend.SYMENGINE:
        phases.append(("SymEngine", "symengine", _symengine))
    values = parse_ns(ns)
    for k, n in enumerate(values):
        if progress is not None:
            progress(k, len(values), f"n = {n}")
        f, point = build(n - shift)
        problem = make_problem(f, point, label=f"{family} n={n}")
        row = SwellRow(n)
        engine_gradient = _engine(problem, row)
        for name, status, measure in phases:
            if name in stopped:
                setattr(row, status, f"skipped: {name} {stopped[name]}")
                continue
            measure(problem, row, timeout, engine_gradient)
            if getattr(row, status).startswith("timed out"):
                stopped[name] = f"{getattr(row, status)} at n={n}"
        if n <= expressions:
            row.expressions = _expressions(problem, timeout)
        report.rows.append(row)
    for name, why in stopped.items():
        report.notes.append(f"{name} {why}; larger n were not given to {name} (budget {timeout:g} s per n)")
    return report


MAX_SHOWN = 8           # the largest n whose expressions can be asked for (they grow fast)


def _expressions(problem, timeout):
    """f, its raw derivative along the first variable, that after cse, and the programs of
    f and of symbolic reverse mode's gradient; None when SymPy cannot give them in time."""
    import sympy
    try:
        with time_limit(timeout):
            f, symbols = problem.sympy_form()
            derivative = sympy.diff(f, symbols[0])
            replacements, reduced = sympy.cse(derivative)
            r = symbolic_reverse(problem, timeout=None, codegen=False)
            paper = _paper_forms(f, symbols)
    except (TimedOut, SymbolicUnavailable):
        return None
    return Expressions(str(symbols[0]), f, derivative, (replacements, reduced[0]),
                       r.forward if r.status == "ok" else None, r.program if r.status == "ok" else None, paper)


def _paper_forms(f, symbols):
    """:class:`PaperForms` of f, or None when f is not a polynomial in one variable with
    rational coefficients."""
    import sympy
    if len(symbols) != 1 or not f.is_polynomial(symbols[0]):
        return None
    x = symbols[0]
    poly = sympy.Poly(f, x)
    if not poly.domain.is_QQ and not poly.domain.is_ZZ:
        return None
    constant, factors = sympy.factor_list(poly)
    parts = []
    for factor, power in factors:
        if factor.eval(0) < 0 or (factor.eval(0) == 0 and factor.LC() < 0):     # (1 - x), not -(x - 1)
            factor, constant = -factor, constant * (-1) ** power
        parts.append((factor, power))
    parts.sort(key=lambda part: (part[0].degree(), [abs(c) for c in reversed(part[0].all_coeffs())]))
    terms = []
    for k, (factor, power) in enumerate(parts):         # d/dx of the k-th factor, the others as they are
        derivative = factor.diff(x)
        rest = [(g, p - (j == k)) for j, (g, p) in enumerate(parts)]
        if derivative.degree() <= 0:
            coefficient, inserted = constant * power * derivative.LC(), []
        else:
            coefficient, inserted = constant * power, [(derivative, 1)]
        rest = rest[:k] + inserted + rest[k:]
        terms.append(_product(coefficient, [(g, p) for g, p in rest if p], x))
    expanded = sympy.Poly(sympy.expand(sum(terms)), x)
    content, primitive = expanded.primitive()
    if len(primitive.terms()) > 2:
        simplified = _product(content, [(primitive, 1)], x)
    else:
        simplified = _ascending(expanded, x)
    added = sympy.Add(*terms, evaluate=False) if len(terms) > 1 else (terms[0] if terms else sympy.Integer(0))
    return PaperForms(_product(constant, parts, x), added, simplified)


def _ascending(poly, x):
    """A polynomial as an unevaluated sum in ascending powers: 1 - 8x + 8x²."""
    import sympy
    terms = []
    for (k,), c in sorted(poly.terms()):
        power = x ** k if k else sympy.Integer(1)
        terms.append(c if not k else (power if c == 1 else sympy.Mul(c, power, evaluate=False)))
    if not terms:
        return sympy.Integer(0)
    return sympy.Add(*terms, evaluate=False) if len(terms) > 1 else terms[0]


def _product(coefficient, parts, x):
    """coefficient · Π factor^power, unevaluated, the factors in the order given."""
    import sympy
    factors = [sympy.Pow(_ascending(g, x), p, evaluate=False) if p > 1 else _ascending(g, x) for g, p in parts]
    factors = [f for f in factors if f != 1]
    if coefficient != 1 or not factors:
        factors.insert(0, sympy.Integer(coefficient) if sympy.Rational(coefficient).q == 1
                       else sympy.Rational(coefficient))
    return sympy.Mul(*factors, evaluate=False) if len(factors) > 1 else factors[0]


def _best_of(call, repeat=3):
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def _engine(problem, row):
    """Graph size and the best-of-3 times of one forward and one backward pass; the gradient."""

    def leaves():
        return {n: ag.tensor(float(v), requires_grad=True) for n, v in problem.point.items()}

    def forward():
        return quietly(problem.evaluate, ENGINE, leaves())
    out = forward()
    row.graph_nodes = len(collect([out.grad_fn])) if out.grad_fn is not None else 0
    row.forward_seconds = _best_of(forward)
    best = math.inf
    for _ in range(3):
        values = leaves()
        out = quietly(problem.evaluate, ENGINE, values)
        start = time.perf_counter()
        out.backward()
        best = min(best, time.perf_counter() - start)
    row.backward_seconds = best
    return np.array([float(t.grad.item()) if t.grad is not None else 0.0 for t in values.values()])


def _agreement(gradient, engine_gradient) -> float:
    """The largest difference of two gradients, relative to the largest entry."""
    gradient = np.asarray(gradient, dtype=np.float64).reshape(-1)
    scale = max(float(np.max(np.abs(gradient))), 1e-300)
    return float(np.max(np.abs(gradient - engine_gradient))) / scale


def _symbolic(problem, row, timeout, engine_gradient):

    d = differentiate(problem, timeout=timeout)
    row.size_f, row.size_raw, row.size_cse = d.size_f, d.size_raw, d.size_cse
    row.diff_seconds, row.codegen_seconds = d.diff_seconds, d.codegen_seconds
    if d.status != "ok":
        row.symbolic = d.reason or d.status
        return
    args = [float(v) for v in problem.point.values()]
    gradient = quietly(d.function, *args)
    row.evaluate_seconds = _best_of(lambda: quietly(d.function, *args))
    row.agreement = _agreement(gradient, engine_gradient)


def _reverse(problem, row, timeout, engine_gradient):
    """Symbolic reverse mode: the sizes of f's program and the gradient's, the time of the
    trace and sweep and of lambdify, and the gradient against the engine's."""
    r = symbolic_reverse(problem, timeout=timeout)
    row.size_forward, row.size_reverse = r.size_f, r.size
    row.reverse_seconds, row.reverse_codegen_seconds = r.diff_seconds, r.codegen_seconds
    if r.status != "ok":
        row.reverse = r.reason or r.status
        return
    row.reverse_agreement = _agreement(quietly(r.function, *[float(v) for v in problem.point.values()]),
                                       engine_gradient)


def _symengine(problem, row, timeout, engine_gradient):
    """SymEngine on f's SymPy expression: conversion, diff and Lambdify times; the gradient
    against the engine's."""
    try:
        expression, symbols = problem.sympy_form()
    except SymbolicUnavailable as error:
        row.symengine = str(error)
        return
    d = symengine_backend.differentiate(expression, symbols, timeout)
    row.symengine_convert_seconds, row.symengine_diff_seconds = d.convert_seconds, d.diff_seconds
    row.symengine_codegen_seconds = d.codegen_seconds
    row.symengine = d.status if d.status == "ok" else d.reason
    if d.status == "ok":
        row.symengine_agreement = _agreement(quietly(d.function, *[float(v) for v in problem.point.values()]),
                                             engine_gradient)

"""Symbolic reverse mode: reverse-mode differentiation run on SymPy expressions instead of
arrays. f runs once on traced values, each operation one row of the function table, and
every intermediate gets its own symbol (t1 = ..., t2 = ...); then the reverse sweep gives
every node its adjoint, the sum over its consumers of (the consumer's adjoint × the local
partial), each local partial SymPy's derivative of the row's own SymPy form, and each
adjoint a symbol of its own (g1 = ..., g2 = ...). The result is a straight-line program,
shaped like ``sympy.cse``'s output, that shares subexpressions the way a backward pass
does: symbolic differentiation without the swell. Its size is counted as ``count_ops``
counts the others (the operations of every assignment and of the outputs), so it stands
beside ``sympy.diff``'s raw and ``cse`` sizes.

>>> from diffcompare.problem.problem import make_problem
>>> r = symbolic_reverse(make_problem("sin(x) * exp(y)", {"x": 1.0, "y": 2.0}))
>>> print("\\n".join(r.program.lines()))
t1 = sin(x)
t2 = exp(y)
∂f/∂x = t2*cos(x)
∂f/∂y = t1*t2
>>> r.size, [round(float(v), 12) for v in r.function(1.0, 2.0)]        # e² cos 1, e² sin 1
(5, [3.992324048441, 6.217676312368])

A function written with Python operators and the table's functions (or NumPy's ufuncs)
is traced as it runs; one the tracer cannot follow (a function whose NumPy form is not a
ufunc, such as ``sigmoid``, called from Python code) is decomposed from SymPy's own
expression of f instead: each distinct subexpression one node (``how`` says which).
"""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from diffcompare.language.expression import constant
from diffcompare.language.numpy_protocol import Traced
from diffcompare.language.table import EXTRA_WORLDS
from diffcompare.language.worlds import SYMPY
from diffcompare.methods.budget import TimedOut, can_interrupt, time_limit
from diffcompare.methods.entries import symbolic_entries
from diffcompare.methods.estimate import Estimate, work
from diffcompare.methods.symbolic import NUMPY_MODULES, SymbolicDerivative, record_failure
from diffcompare.problem.errors import SymbolicUnavailable
from diffcompare.problem.points import Points
from diffcompare.problem.problem import Problem
from diffcompare.problem.tasks import Task

NAME = "symbolic-reverse"
FAMILY = "symbolic"
TRACE = "sympy-trace"           # the world in which every row's call records one node
TRACED = "traced"               # how the forward program was found: f's operations as it ran ...
DECOMPOSED = "decomposed"       # ... or the distinct subexpressions of SymPy's expression of f


@dataclass
class Program:
    """A straight-line program: ``assignments`` [(symbol, expression)], each reading the
    ``inputs`` and the symbols assigned before it, and the ``outputs`` (expressions in
    them), with a label per output."""
    inputs: tuple
    assignments: list
    outputs: list
    labels: list = field(default_factory=list)

    @property
    def size(self) -> int:
        """Operations, as SymPy's ``count_ops`` counts them: every assignment's right-hand
        side and every output (as ``cse``'s output is counted)."""
        import sympy
        return int(sum(sympy.count_ops(e) for _, e in self.assignments)
                   + sum(sympy.count_ops(o) for o in self.outputs))

    def lines(self) -> list:
        """The program as text: one ``symbol = expression`` per assignment, then the outputs."""
        labels = self.labels or [f"out[{i}]" for i in range(len(self.outputs))]
        return ([f"{s} = {e}" for s, e in self.assignments]
                + [f"{label} = {o}" for label, o in zip(labels, self.outputs)])

    def function(self):
        """The program as NumPy code (``lambdify`` of the assignments and outputs): a
        function of the inputs, one number or array per input, returning the outputs."""
        import sympy

        # inputs named like v[0] are not Python names: the code reads plain ones
        plain = [sympy.Dummy(f"in{i}", real=True) for i in range(len(self.inputs))]
        rename = dict(zip(self.inputs, plain))
        assignments = [(s, e.xreplace(rename)) for s, e in self.assignments]
        outputs = [sympy.sympify(o, strict=True).xreplace(rename) for o in self.outputs]
        return sympy.lambdify(plain, outputs, modules=NUMPY_MODULES, cse=lambda exprs: (assignments, outputs))


@dataclass
class SymbolicReverse:
    """Symbolic reverse mode on one Problem: the forward program, the derivative's
    program, their sizes, what building them cost, and the generated code."""
    status: str = "ok"                  # ok, timed out, unavailable, failed
    reason: str = ""
    how: str = ""                       # TRACED or DECOMPOSED
    forward: Program | None = None      # f as a straight-line program
    program: Program | None = None      # the derivative's entries (gradient, Jacobian, ...) as one
    function: object = None             # NumPy function of the inputs returning the entries (flat)
    size_f: int | None = None           # operations of the forward program
    size: int | None = None             # operations of the derivative's program
    diff_seconds: float | None = None   # tracing f and the reverse sweep(s)
    codegen_seconds: float | None = None
    phase: str = ""
    notes: list = field(default_factory=list)

    @property
    def setup_seconds(self):
        parts = [t for t in (self.diff_seconds, self.codegen_seconds) if t is not None]
        return sum(parts) if parts else None


# -- the trace ------------------------------------------------------------------------------------

class _Tape:
    """The forward program as f runs: one assignment per operation, a symbol per result
    (an operation met again on the same arguments reuses its symbol)."""

    def __init__(self, symbols, prefix):
        self.names = (f"{prefix}{k}" for k in itertools.count(1))
        self.assignments, self.memo = [], {}
        self.wrapped = [Value(s, self) for s in symbols]

    def record(self, row, args):
        """The row applied to ``args`` (symbols and numbers): a traced value."""
        return self.bind(row.sympy(*[_exact(a) for a in args]))

    def bind(self, expr):
        import sympy
        if not isinstance(expr, sympy.Expr) or expr.is_Atom or not expr.free_symbols:
            return Value(expr, self)
        symbol = self.memo.get(expr)
        if symbol is None:
            symbol = sympy.Symbol(next(self.names), real=True)
            self.assignments.append((symbol, expr))
            self.memo[expr] = symbol
        return Value(symbol, self)


class Value(Traced):
    """A traced value: a symbol of the tape (or a number) that NumPy's ufuncs, Python's
    operators and the table's functions accept, each use recorded as one node."""
    __slots__ = ("tape",)

    def __init__(self, value, tape):
        super().__init__(value, SYMPY)
        self.tape = tape

    def _apply(self, row, args):
        return self.tape.record(row, args)


def _exact(v):
    """A number of f's code as SymPy: integers as integers, binary64 numbers exactly."""
    import sympy
    if isinstance(v, sympy.Basic):
        return v
    if isinstance(v, (bool, int, np.integer)):
        return sympy.Integer(int(v))
    if isinstance(v, (float, np.floating)):
        return constant(SYMPY, float(v))
    if isinstance(v, (str, bytes)):         # text is never parsed as mathematics
        raise SymbolicUnavailable(f"f passes text ({v!r}) to an operation: there is no symbolic form of it")
    return sympy.sympify(v, strict=True)


def _traced_form(row):
    """A row in the trace world: a call recorded on the tape of its traced arguments."""
    if row.is_constant:
        return row.sympy
    if row.structural:          # sums, products, subscripts: NumPy's loops on object arrays, each step traced
        return partial(_on_arrays, row)
    return partial(_record, row)


def _on_arrays(row, *args):
    """A whole-array row by its NumPy form, a traced number as a 0-d array (NumPy reduces
    arrays; a lone object it hands back to the object's own ufunc protocol)."""
    return row.numpy(*[np.array(a, dtype=object) if isinstance(a, Value) else a for a in args])


def _record(row, *args):
    if any(isinstance(a, np.ndarray) for a in args):
        return np.frompyfunc(partial(_record, row), len(args), 1)(*args)
    tape = next((a.tape for a in args if isinstance(a, Value)), None)
    values = [a.value if isinstance(a, Traced) else a for a in args]
    if tape is None:            # constants only
        return row.sympy(*[_exact(v) for v in values])
    return tape.record(row, values)


EXTRA_WORLDS[TRACE] = _traced_form


def _prefixes(labels) -> tuple:
    """Names of the program's symbols that no input has: t1, t2, ... and g1, g2, ..."""
    prefix = ("t", "g")
    while any(re.fullmatch(rf"(?:{re.escape(p)})\d+", label) for p in prefix for label in labels):
        prefix = tuple(p + "_" for p in prefix)
    return prefix


def trace(problem: Problem, prefix: str = "t") -> tuple:
    """f as a straight-line program: (Program, how). Each operation f performs is one
    assignment (TRACED); if f cannot run on traced values, the distinct subexpressions of
    SymPy's expression of f are (DECOMPOSED). Raises SymbolicUnavailable when neither works.

    >>> from diffcompare.problem.problem import make_problem
    >>> program, how = trace(make_problem(lambda x: 4 * x * (1 - x), {"x": 0.3}))
    >>> program.lines(), how
    (['t1 = 4*x', 't2 = 1 - x', 't3 = t1*t2', 'out[0] = t3'], 'traced')
    """
    import sympy

    symbols = tuple(sympy.Symbol(label, real=True) for label in problem.input_labels)
    tape = _Tape(symbols, prefix)
    try:
        flat = np.empty(len(symbols), dtype=object)
        flat[:] = tape.wrapped
        result = problem.evaluate(TRACE, problem.split(flat))
        outputs = [_exact(v.value if isinstance(v, Traced) else v) for v in np.ravel(np.asarray(result, dtype=object))]
        return Program(symbols, tape.assignments, outputs), TRACED
    except (TypeError, AttributeError, ValueError):
        pass                     # a function the tracer cannot follow: SymPy's expression of f, if SymPy can
    expressions, sympy_symbols = problem.sympy_outputs()
    return decompose(expressions, sympy_symbols, prefix), DECOMPOSED


def decompose(expressions, symbols, prefix: str = "t") -> Program:
    """SymPy expressions as a straight-line program: every distinct subexpression that
    depends on the symbols, one assignment (SymPy's DAG, its shared parts shared).

    >>> import sympy
    >>> x = sympy.Symbol("x")
    >>> decompose([sympy.sin(x) ** 2 + sympy.sin(x)], (x,)).lines()
    ['t1 = sin(x)', 't2 = t1**2', 't3 = t1 + t2', 'out[0] = t3']
    """
    import sympy

    # SymPy objects only: strict=True refuses text (it would be parsed, and parsing runs code)
    expressions = [sympy.sympify(e, strict=True) for e in expressions]
    names = (f"{prefix}{k}" for k in itertools.count(1))
    symbol_of, assignments = {}, []

    def replaced(e):
        return symbol_of.get(e, e)
    for root in expressions:
        stack = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if e in symbol_of or e.is_Atom or not e.free_symbols:
                continue
            if not all(isinstance(a, sympy.Expr) for a in e.args):      # a relation inside: kept whole
                definition = e.xreplace(symbol_of)
            elif not ready:
                stack.append((e, True))
                stack.extend((a, False) for a in reversed(e.args))
                continue
            else:
                definition = e.func(*[replaced(a) for a in e.args])
            if definition.is_Atom:
                symbol_of[e] = definition
                continue
            symbol = sympy.Symbol(next(names), real=True)
            assignments.append((symbol, definition))
            symbol_of[e] = symbol
    return Program(tuple(symbols), assignments, [replaced(e) for e in expressions])


# -- the reverse sweep ----------------------------------------------------------------------------

class _Sweeps:
    """Reverse sweeps over one program; each assignment's local partials are found once."""

    def __init__(self, prefix):
        self.names = (f"{prefix}{k}" for k in itertools.count(1))
        self.partials = {}

    def local(self, symbol, expr):
        """[(argument symbol, ∂expr/∂argument)], the node's own value read as its symbol
        (exp's derivative is t, tanh's 1 - t²)."""
        import sympy
        found = self.partials.get(symbol)
        if found is None:
            found = []
            for arg in sorted(expr.free_symbols, key=sympy.default_sort_key):
                d = sympy.diff(expr, arg)
                if d != 0:
                    found.append((arg, d.xreplace({expr: symbol})))
            self.partials[symbol] = found
        return found

    def sweep(self, assignments, seeds: dict, wrt) -> tuple:
        """One reverse sweep: (the adjoints' assignments, the adjoint of each of ``wrt``).
        ``seeds``: symbol -> its adjoint at the start (1 at the output of a gradient)."""
        import sympy
        terms = {s: [seed] for s, seed in seeds.items()}
        out = []
        for symbol, expr in reversed(assignments):
            contributions = terms.pop(symbol, None)
            if not contributions:
                continue
            adjoint = sympy.Add(*contributions)
            if adjoint == 0:
                continue
            if not adjoint.is_Atom:
                name = sympy.Symbol(next(self.names), real=True)
                out.append((name, adjoint))
                adjoint = name
            for arg, d in self.local(symbol, expr):
                terms.setdefault(arg, []).append(adjoint * d)
        return out, [sympy.Add(*terms.get(s, [])) for s in wrt]


def _prune(assignments, outputs) -> list:
    """The assignments the outputs need, in their order."""
    needed = set().union(*(getattr(o, "free_symbols", set()) for o in outputs))
    kept = []
    for symbol, expr in reversed(assignments):
        if symbol in needed:
            kept.append((symbol, expr))
            needed |= expr.free_symbols
    return kept[::-1]


def _seeded(assignments, outputs_and_seeds, names) -> tuple:
    """(assignments, seeds): every seeded output made an assigned symbol (an output that is
    an input, or an expression, gets an assignment of its own, named from ``names``)."""
    import sympy
    assignments, seeds = list(assignments), {}
    assigned = {s for s, _ in assignments}
    for output, seed in outputs_and_seeds:
        if seed == 0 or not getattr(output, "free_symbols", None):
            continue
        if output not in assigned:
            symbol = sympy.Symbol(next(names), real=True)
            assignments.append((symbol, output))
            assigned.add(symbol)
            output = symbol
        seeds[output] = seeds.get(output, 0) + seed
    return assignments, seeds


def reverse(forward: Program, task: Task | None = None, prefix: str = "g") -> Program:
    """The derivative's program from f's: the gradient (``task`` None), or the task's
    entries (flat, as the task orders them) — vᵀJ by one sweep seeded with v, the
    Jacobian by one sweep per output, Jv from it, the Hessian by a sweep per gradient
    entry over the gradient's own program.

    >>> import sympy
    >>> x, y = sympy.symbols("x y")
    >>> t1, t2 = sympy.symbols("t1 t2")
    >>> reverse(Program((x, y), [(t1, x * y), (t2, sympy.sin(t1))], [t2])).lines()
    ['t1 = x*y', 'g1 = cos(t1)', '∂f/∂x = g1*y', '∂f/∂y = g1*x']
    """
    import sympy

    kind = "gradient" if task is None else task.kind
    sweeps = _Sweeps(prefix)
    wrt = list(forward.inputs)
    labels = task.entry_labels() if task is not None else [f"∂f/∂{s}" for s in wrt]
    if kind in ("gradient", "hessian", "vjp"):
        v = [1] if kind != "vjp" else [constant(SYMPY, float(c)) for c in task.vector]
        assignments, seeds = _seeded(forward.assignments, zip(forward.outputs, v), sweeps.names)
        added, entries = sweeps.sweep(assignments, seeds, wrt)
        assignments = assignments + added
        if kind == "hessian":
            gradient, entries = entries, []
            for g in gradient:
                more, seeds = _seeded(assignments, [(g, 1)], sweeps.names)
                if not seeds:
                    entries += [sympy.Integer(0)] * len(wrt)
                    continue
                assignments = more
                added, row = sweeps.sweep(assignments, seeds, wrt)
                assignments = assignments + added
                entries += row
    else:
        assignments, rows = list(forward.assignments), []
        for output in forward.outputs:
            more, seeds = _seeded(assignments, [(output, 1)], sweeps.names)
            if not seeds:
                rows.append([sympy.Integer(0)] * len(wrt))
                continue
            assignments = more
            added, row = sweeps.sweep(assignments, seeds, wrt)
            assignments = assignments + added
            rows.append(row)
        if kind == "jacobian":
            entries = [e for row in rows for e in row]
        else:
            v = [constant(SYMPY, float(c)) for c in task.vector]
            entries = [sympy.Add(*[e * c for e, c in zip(row, v)]) for row in rows]
    return Program(forward.inputs, _prune(assignments, entries), entries, labels)


def symbolic_reverse(problem: Problem, task: Task | None = None, timeout: float | None = 10.0,
                     codegen: bool = True) -> SymbolicReverse:
    """Symbolic reverse mode on ``problem``: the gradient (``task`` None) or the task's
    entries as a straight-line program, its size, the time to build it and (``codegen``)
    its NumPy code — all inside ``timeout`` seconds."""
    result = SymbolicReverse()
    if timeout is not None and not can_interrupt():
        result.notes.append("no time budget outside the main thread")
    try:
        with time_limit(timeout):
            result.phase = "tracing f"
            start = time.perf_counter()
            forward_prefix, adjoint_prefix = _prefixes(problem.input_labels)
            result.forward, result.how = trace(problem, forward_prefix)
            if task is None and len(result.forward.outputs) != 1:
                raise SymbolicUnavailable(f"f has {len(result.forward.outputs)} outputs, not one")
            result.phase = "the reverse sweep"
            result.program = reverse(result.forward, task, adjoint_prefix)
            result.diff_seconds = time.perf_counter() - start
            result.phase = "counting operations"
            result.size_f, result.size = result.forward.size, result.program.size
            if codegen:
                result.phase = "code generation"
                start = time.perf_counter()
                result.function = result.program.function()
                result.codegen_seconds = time.perf_counter() - start
            result.phase = ""
    except (TimedOut, Exception) as error:      # TimedOut is a BaseException
        record_failure(result, error, "failed")
    return result


def symbolic_reverse_entries(problem: Problem, task: Task, points: Points, batches: int = 5,
                             timeout: float | None = 10.0) -> Estimate:
    """Symbolic reverse mode as a method (``"symbolic-reverse"``): the task's entries by
    the straight-line program's generated code, on every point at once. ``details``
    carries the sizes (``size_f``: f's program; ``size``: the derivative's program, both
    in ``count_ops`` operations; ``assignments``), ``how`` f was traced, and the times
    (``diff_seconds``: trace and sweeps; ``codegen_seconds``: lambdify).

    >>> from diffcompare.problem.problem import make_problem
    >>> from diffcompare.problem.tasks import make_task
    >>> from diffcompare.problem.points import single
    >>> p = make_problem("x**3 * y", {"x": 2, "y": 5})
    >>> e = symbolic_reverse_entries(p, make_task(p, "gradient"), single(p), batches=1)
    >>> e.method, e.values.tolist(), e.details["size"]
    ('symbolic-reverse', [[60.0, 8.0]], 4)
    """
    r = symbolic_reverse(problem, task, timeout)
    details = {"size_f": r.size_f, "size": r.size, "assignments": len(r.program.assignments) if r.program else None,
               "how": r.how, "diff_seconds": r.diff_seconds, "codegen_seconds": r.codegen_seconds,
               "work": work("symbolic-reverse", task.kind), "forms_jacobian": task.kind in ("jacobian", "jvp"), "vectorised": True}
    derivative = SymbolicDerivative(status=r.status, reason=r.reason, function=r.function,
                                    diff_seconds=r.diff_seconds, codegen_seconds=r.codegen_seconds)
    estimate = symbolic_entries(problem, task, points, derivative, batches)
    details["vectorised"] = estimate.details.get("vectorised", True)
    estimate.method, estimate.family, estimate.details = NAME, FAMILY, details
    return estimate

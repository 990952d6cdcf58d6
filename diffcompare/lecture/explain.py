"""The backward pass made visible: the graph the engine recorded, then every node of the
walk in the order the engine runs it, with its incoming gradient (the adjoint), its local
derivative written by SymPy, the vector-Jacobian product it sends to each input and the
running sum at nodes used more than once.

With ``check=True`` every node's backward rule is checked on its own: the VJP the
engine's rule sends, given the engine's own incoming adjoint, against a reference VJP of
the same adjoint, taken from SymPy's derivative of the function the node computes (for
nodes that come from the function table) or from Richardson-extrapolated differences of
the node's own forward (built-in operators in Python code, custom ``ag.Function``\\ s).
The first node in backward order whose rule disagrees is named: a wrong custom backward
is pointed at, not just detected.

>>> e = explain("sin(x) * x", at={"x": 2.0})
>>> [s.name for s in e.steps]
['MulBackward0', 'SinBackward0', 'AccumulateGrad']
>>> e.steps[1].edges[0].local
'∂/∂a sin(a) = cos(a)'
>>> len(e.steps[2].contributions)          # x is used twice: two contributions summed
2
>>> round(float(e.gradient["x"]), 12) == round(math.sin(2) + 2 * math.cos(2), 12)
True
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from diffcompare import autograd as ag
from diffcompare.autograd.function import FunctionCtx
from diffcompare.autograd.graph import AccumulateGrad, collect, recording, sequence_key
from diffcompare.autograd.ops import Op, sum_to
from diffcompare.autograd.quiet import quietly
from diffcompare.autograd.tensor import Tensor
from diffcompare.judge.accuracy import FLOOR_ULPS, NO_FORMULA_ULPS, SAFETY, UNIT_ROUNDOFF, result_shift
from diffcompare.judge.policy import decide
from diffcompare.judge.report import EXIT_FAILED, EXIT_PASSED, EXIT_UNDECIDED, Report
from diffcompare.judge.verdicts import FAIL, PASS
from diffcompare.language.expression import constant
from diffcompare.language.printing import one_line
from diffcompare.language.worlds import ENGINE, SYMPY
from diffcompare.methods.budget import TimedOut, time_limit
from diffcompare.methods.finite_differences import SCHEMES, nominal_step, richardson
from diffcompare.methods.symbolic import mpmath_lambdify
from diffcompare.problem.errors import InputError, SymbolicUnavailable
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import parse_vector
from diffcompare.stencil import STENCILS

MAX_NODES = 2000              # a lecture graph; larger graphs are refused with the count
# the two bounds of --check: on each input of a node, and on f's inputs as a whole
ELEMENTWISE_CHECK_LIMIT = 256   # a node's input of more elements is checked along two random directions, not per element
REPLAY_LIMIT = 5_000            # f's input elements --check accepts at all (its memory grows as their square)
ARGUMENT_NAMES = "abcdefgh"


@dataclass
class Edge:
    """What one node sends to one of its inputs."""
    target: int | None             # the step number of the input's node; None: no gradient wanted
    sent: np.ndarray | None        # the VJP the engine's backward rule returned
    local: str | None = None       # SymPy's local derivative, e.g. "∂/∂a sin(a) = cos(a)"
    local_value: np.ndarray | None = None
    local_latex: str | None = None
    reference: np.ndarray | None = None   # the reference VJP of the same incoming adjoint


NO_GRADIENT = "no gradient reaches this node"


@dataclass
class Step:
    """One node of the graph, in the order the backward walk reaches it."""
    number: int
    name: str                      # the grad_fn name (MulBackward0, AccumulateGrad, ...)
    label: str                     # what the node computes, symbolically when known
    value: np.ndarray              # its forward value
    adjoint: np.ndarray | None = None        # the gradient the engine's walk brings to it
    contributions: list = field(default_factory=list)   # (step number of a consumer, what it sent)
    edges: list = field(default_factory=list)
    rule: str | None = None        # the engine's VJP rule in words, when the op has one
    source: str = ""               # where the reference VJP came from: sympy, differences
    check: str = ""                # ok, wrong, kink, inconclusive, not checked
    detail: str = ""
    reference_adjoint: np.ndarray | None = None

    @property
    def is_leaf(self) -> bool:
        return self.name == "AccumulateGrad"

    @property
    def inputs(self) -> list:
        return [e.target for e in self.edges if e.target is not None]


@dataclass(repr=False)
class Explanation(Report):
    """The recorded graph and its backward walk; renderers only format it."""
    label: str
    variables: tuple
    point: dict
    output: np.ndarray
    seed: np.ndarray | None        # the vector v of backward(v); None for a scalar output
    steps: list
    gradient: dict                 # variable -> the engine's gradient (leaf .grad)
    symbolic: dict                 # variable -> (SymPy's derivative as text or None, its value or None)
    checked: bool = False
    notes: list = field(default_factory=list)
    methods: list = field(default_factory=list)

    @property
    def first_wrong(self) -> Step | None:
        """The first node, in backward order, whose backward rule disagrees with the reference."""
        return next((s for s in self.steps if s.check == "wrong"), None)

    @property
    def exit_status(self) -> int:
        """1 when --check finds a wrong backward rule; 4 when nothing is wrong but a node
        could not be checked (a kink: the conventions differ; no reference); else 0."""
        if not self.checked:
            return EXIT_PASSED
        if self.first_wrong is not None:
            return EXIT_FAILED
        return EXIT_UNDECIDED if self.unchecked else EXIT_PASSED

    @property
    def unchecked(self) -> list:
        """Steps --check could not hold to the reference (a kink; a forward that cannot be
        replayed); a node no gradient reaches has nothing to check."""
        return [s for s in self.steps if s.check in ("kink", "inconclusive")
                or (s.check == "not checked" and s.detail != NO_GRADIENT)]

    def step(self, number: int) -> Step:
        return self.steps[number - 1]

    def _repr_html_(self) -> str:
        """Jupyter's HTML view: the backward pass to step through, as a block in the
        notebook (the renderer's ``html_fragment``; ``render("html")`` is the whole page)."""
        return self.renderer().html_fragment(self)


def explain(f, at, vector=None, check: bool = False, label: str | None = None) -> Explanation:
    """Record ``f`` at ``at`` on the engine, run its backward pass (``backward(v)`` with
    ``vector`` for a vector output) and explain it node by node; with ``check``, name the
    first node whose backward rule disagrees with the reference.

    ``f`` is an expression (text) or a Python callable built from
    ``diffcompare.language.functions``, engine operations and custom ``ag.Function``\\ s.

    >>> from diffcompare import autograd as ag
    >>> class WrongCube(ag.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return grad * 2 * x ** 2        # should be 3 x^2
    >>> e = explain(lambda x: WrongCube.apply(x).sin(), at={"x": 0.5}, check=True)
    >>> e.first_wrong.name, e.exit_status
    ('WrongCubeBackward', 1)
    """
    problem = make_problem(f, at, label)
    elements = problem.flat_point().size
    if check and elements > REPLAY_LIMIT:
        raise InputError(f"--check replays every node against a reference of its own Jacobian, whose memory grows "
                         f"with the square of the inputs: at most {REPLAY_LIMIT:,} input elements (this f has "
                         f"{elements:,}); without --check the walk has no such limit")
    leaves, output, records, calls = _record(problem)
    seed = _seed(output, vector)
    nodes = _walk_order(output)
    number = {node: k + 1 for k, node in enumerate(nodes)}
    adjoints = _adjoints(output, seed, nodes, records)
    labels = _labels(problem, calls)
    leaf_name = {id(t): name for name, t in leaves.items()}
    steps = [_step(node, number[node], records, labels, leaf_name, adjoints.get(node, {})) for node in nodes]
    sympy_rows = _table_rows(calls, records)
    for node, step in zip(nodes, steps):
        if not (step.is_leaf or step.adjoint is None or node not in records):
            _send(step, node, adjoints[node], steps, number)
            _local_derivatives(step, node, sympy_rows.get(node))

    # what reaches each leaf's AccumulateGrad is what backward() adds to its .grad
    at_leaf = {id(node.variable): step.adjoint for node, step in zip(nodes, steps) if step.is_leaf}
    # nothing reaching a leaf (a rule returned None for it) leaves its gradient 0, as backward() does
    gradient = {name: at_leaf.get(id(t)) if at_leaf.get(id(t)) is not None else np.zeros_like(t._data)
                for name, t in leaves.items()}
    explanation = Explanation(problem.label, problem.variables, dict(problem.point), np.array(output._data), seed,
                              steps, gradient, _symbolic_gradient(problem, seed), checked=check)
    if check:
        _check(explanation, nodes, records, sympy_rows)
    return explanation


def _record(problem):
    """f run on the engine at the point: (its leaves by variable, its output, every node's
    record (inputs, params, outputs), every table function's call (row, args, result) in order)."""
    leaves = {name: ag.tensor(np.array(problem.point[name], dtype=np.float64), requires_grad=True)
              for name in problem.variables}
    records, calls = {}, []

    def record(node, inputs, params, outputs):
        records[node] = (tuple(inputs), dict(params or {}), tuple(outputs))
    try:
        with recording(record):
            output = quietly(problem.evaluate, ENGINE, leaves, lambda row, args, result, column:
                             calls.append((row, args, result)))
    except (InputError, SymbolicUnavailable):
        raise
    except Exception as error:
        raise InputError(f"running f on the engine failed: {type(error).__name__}: {error}") from None
    if not isinstance(output, ag.Tensor) or output.grad_fn is None:
        raise InputError("f's result does not depend on its variables through the engine: nothing to explain "
                         "(use diffcompare.language.functions or tensor operations, not math or float())")
    return leaves, output, records, calls


def _walk_order(output) -> list:
    """The graph's nodes in the order the backward walk reaches them (at most MAX_NODES)."""
    nodes = collect([output.grad_fn])
    if len(nodes) > MAX_NODES:
        raise InputError(f"the graph has {len(nodes)} nodes; explain shows at most {MAX_NODES}")
    nodes.sort(key=sequence_key, reverse=True)
    return nodes


def _adjoints(output, seed, nodes, records) -> dict:
    """node -> {output index: its adjoint}, from the engine's own walk: autograd.grad with
    respect to the output tensor of every node (and every leaf), the graph kept for the
    steps that replay each rule."""
    tensors, owners = [], []
    for node in nodes:
        if isinstance(node, AccumulateGrad):
            tensors.append(node.variable)
            owners.append((node, 0))
        elif node in records:           # not: a node recorded before f ran (a tensor f closed over)
            for index, t in enumerate(records[node][2]):
                if isinstance(t, ag.Tensor) and t.grad_fn is node:
                    tensors.append(t)
                    owners.append((node, index))
    try:
        grads = quietly(ag.grad, output, tensors, grad_outputs=ag.tensor(seed) if seed is not None else None,
                        retain_graph=True, allow_unused=True)
    except Exception as error:          # a rule of f's (a custom backward) raised: there is no walk to show
        raise InputError(_stopped(error)) from None
    adjoints = {}
    for (node, index), g in zip(owners, grads):
        adjoints.setdefault(node, {})[index] = None if g is None else np.array(g._data)
    return adjoints


def _step(node, number, records, labels, leaf_name, adjoint) -> Step:
    """The Step of one node: what it computes, its forward value and its adjoint."""
    name = type(node).__name__
    if isinstance(node, AccumulateGrad):
        step = Step(number, name, leaf_name.get(id(node.variable), "leaf"), np.array(node.variable._data))
    elif node not in records:
        step = Step(number, name, "(recorded before f ran)", np.array(math.nan))
    else:
        outputs = records[node][2]
        value = np.array(outputs[0]._data) if len(outputs) == 1 else np.array([o._data for o in outputs])
        plain = name.removesuffix("Backward0").removesuffix("Backward").lower()
        step = Step(number, name, labels.get(id(outputs[0]), plain), value, rule=getattr(node, "formula", None))
    step.adjoint = _joined(adjoint, node)
    return step


def _send(step, node, incoming, steps, number):
    """The node's backward rule run on its adjoint: one Edge per input with the VJP it
    sends, added to the contributions of the input's step."""
    grads_in = incoming[0] if node.n_outputs == 1 else [incoming.get(i) for i in range(node.n_outputs)]
    try:
        sent = quietly(node._apply, grads_in, False)
    except Exception as error:
        raise InputError(_stopped(error, name=type(node).__name__)) from None
    for target, g in zip(node._next, sent):
        g = _dense(g)
        step.edges.append(Edge(number.get(target) if target is not None else None, g))
        if target is not None and g is not None:
            steps[number[target] - 1].contributions.append((step.number, g))


def _stopped(error, name: str = "") -> str:
    """Why the backward walk could not run: a rule of f's raised."""
    text = str(error).strip().splitlines()
    where = f"{name}'s backward" if name else "a backward rule of f's"
    return (f"the backward pass stopped: {where} raised {type(error).__name__}: {text[0] if text else ''}; a rule that "
            f"raises cannot be walked (diffcompare audit reports it as a wrong gradient)")


def _seed(output, vector):
    """The v of backward(v) as an array of the output's shape; None for a scalar output."""

    size = int(np.size(output._data))
    if vector is None:
        if size != 1:
            raise InputError(f"f has {size} outputs: backward() on a vector needs the vector v of vᵀJ "
                             f"(--vjp with {size} numbers, or vector= in Python); without it PyTorch says "
                             f"'grad can be implicitly created only for scalar outputs'")
        return None
    v = parse_vector(vector, size, "the vector v (--vjp)")
    return v.reshape(np.shape(output._data))


def _dense(g):
    """A gradient as a plain array (the walk's lazy forms multiplied out)."""
    if g is None:
        return None
    dense = getattr(g, "dense", None)
    if dense is not None:
        g = dense()
    return np.array(getattr(g, "_data", g), dtype=np.float64)


def _joined(adjoint: dict, node):
    if not adjoint:
        return None
    if node.n_outputs == 1:
        return adjoint.get(0)
    parts = [adjoint.get(i) for i in range(node.n_outputs)]
    return None if any(p is None for p in parts) else np.array(parts)


def _labels(problem, calls) -> dict:
    """id(engine tensor) -> what it is symbolically, by running f on SymPy symbols and
    pairing its table calls with the engine's (they come in the same order)."""
    import sympy

    found = []
    try:
        symbols = np.array([sympy.Symbol(label, real=True) for label in problem.input_labels], dtype=object)
        with warnings.catch_warnings():     # tensors f closed over become SymPy numbers: no need to say so
            warnings.simplefilter("ignore")
            problem.evaluate(SYMPY, problem.split(symbols), lambda row, args, result, column: found.append(result))
    except Exception:       # f does not run on symbols (a custom Function): labels are op names
        return {}
    if len(found) != len(calls):
        return {}
    out = {}
    for (_, _, result), expr in zip(calls, found):
        text = str(expr.tolist()) if isinstance(expr, np.ndarray) else _short(expr)
        out[id(result)] = text if len(text) <= 60 else text[:57] + "..."
    return out


def _table_rows(calls, records) -> dict:
    """node -> (row, args) for nodes that are one call of a table function: their local
    derivative comes from SymPy's form of that function."""

    rows = {}
    for row, args, result in calls:
        node = getattr(result, "grad_fn", None)
        if node is None or node in rows or node not in records:
            continue
        wanted = [a for a in args if isinstance(a, Tensor) and a.requires_grad]
        inputs = [a for a in records[node][0] if isinstance(a, Tensor) and a.requires_grad]
        if len(wanted) == len(inputs) and all(a is b for a, b in zip(wanted, inputs)):
            rows[node] = (row, args)
    return rows


def _local_derivatives(step, node, table_row):
    """SymPy's local derivative of the node's function for each input, evaluated, and the
    reference VJP of the engine's incoming adjoint (for table functions that act element
    by element); kinks are marked."""
    if table_row is None:
        return
    row, args = table_row

    try:
        arrays = [np.asarray(a._data if isinstance(a, Tensor) else a, dtype=np.float64) for a in args]
    except (TypeError, ValueError):      # a subscript's key
        return
    _mark_kink(step, row, arrays)
    if row.structural:
        return
    import sympy

    symbols, wrt, names = [], [], iter(ARGUMENT_NAMES)
    for a, array in zip(args, arrays):
        if isinstance(a, Tensor) and a.requires_grad:
            symbol = sympy.Symbol(next(names), real=True)
            symbols.append(symbol)
            wrt.append(symbol)
        elif array.ndim == 0:
            symbols.append(constant(SYMPY, float(array)))
        else:
            return                       # an array constant: no scalar formula to show
    try:
        expr = row.sympy(*symbols)
        partials = [sympy.diff(expr, s) for s in wrt]
    except Exception:
        return
    tensor_arrays = [array for a, array in zip(args, arrays) if isinstance(a, Tensor) and a.requires_grad]
    positions = [i for i, target in enumerate(node._next) if target is not None]
    if len(positions) != len(wrt):
        return
    step.source = "sympy"
    for position, symbol, partial in zip(positions, wrt, partials):
        edge = step.edges[position]
        edge.local = f"∂/∂{symbol} {_short(expr)} = {_short(partial)}"
        edge.local_latex = rf"\frac{{\partial}}{{\partial {symbol}}}\, {sympy.latex(expr)} = {sympy.latex(partial)}"
        edge.local_value = _evaluate_mp(partial, wrt, tensor_arrays)
        shape = np.shape(tensor_arrays[wrt.index(symbol)])
        edge.reference = _sum_to(step.adjoint * edge.local_value, shape)


def _mark_kink(step, row, arrays):
    """The step marked "kink" when the table function's arguments lie on one of its kinks."""
    if row.kink is None:
        return
    try:
        at_kink = bool(np.any(quietly(row.kink, *arrays)))
    except Exception:
        at_kink = False
    if at_kink:
        step.check, step.detail = "kink", row.kink_note + (f"; the engine: {row.engine_convention}"
                                                            if row.engine_convention else "")


def _short(expr) -> str:
    return one_line(expr) or str(expr)


def _evaluate_mp(expr, symbols, arrays) -> np.ndarray:
    """``expr`` at the arrays' elements (broadcast), by mpmath at 30 digits, as float64."""
    import mpmath
    import sympy

    function = mpmath_lambdify(symbols, expr)

    def one(*values):
        with mpmath.workdps(30):
            try:
                result = function(*[mpmath.mpf(float(v)) for v in values])
                return float(result) if not isinstance(result, mpmath.mpc) else math.nan
            except (ZeroDivisionError, ValueError, TypeError, OverflowError):
                return math.nan
    with np.errstate(invalid="ignore", over="ignore"):     # nan or inf where the formula is undefined or beyond a double: a result, not a warning
        return np.asarray(np.frompyfunc(one, len(arrays), 1)(*arrays), dtype=np.float64)


def _sum_to(g, shape):
    return np.asarray(sum_to(np.asarray(g), tuple(shape)), dtype=np.float64)


def _symbolic_gradient(problem, seed) -> dict:
    """variable -> (SymPy's derivative as text when it is short, its value at the point
    by mpmath at 30 digits), for ∂f/∂x or, with a seed v, vᵀJ."""
    import sympy

    try:
        with time_limit(10.0), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs, symbols = problem.sympy_outputs()
            weights = [1] if seed is None else [sympy.Float(float(v), 17) for v in np.ravel(seed)]
            if len(weights) != len(outputs):
                return {}
            combined = sum((w * o for w, o in zip(weights, outputs)), sympy.Integer(0))
            partials = [sympy.diff(combined, s) for s in symbols]
            values = [_evaluate_mp(p, list(symbols), [np.asarray(v) for v in problem.flat_point()])
                      for p in partials]
    except (SymbolicUnavailable, TimedOut, RecursionError):
        return {}
    except Exception:       # SymPy may fail on unusual input; the walk stands without it
        return {}
    out, offset = {}, 0
    for name in problem.variables:
        shape = np.shape(problem.point[name])
        size = int(np.prod(shape)) if shape else 1
        texts = [_short(p) for p in partials[offset:offset + size]]
        text = texts[0] if size == 1 else "[" + ", ".join(texts) + "]"
        value = np.array([float(v) for v in values[offset:offset + size]]).reshape(shape)
        out[name] = (text if len(text) <= 200 else None, value)
        offset += size
    return out


# --- checking each node's backward rule -----------------------------------------------------

def _check(explanation, nodes, records, sympy_rows):
    for node, step in zip(nodes, explanation.steps):
        if step.is_leaf:
            step.check = step.check or "ok"
            continue
        if step.check == "kink":
            # at a kink the conventions differ, but nan or ±inf is never a right value
            for k, edge in enumerate(step.edges):
                if edge.target is not None and edge.sent is not None and not np.all(np.isfinite(edge.sent)):
                    step.check = "wrong"
                    step.detail = (f"its backward sends {_first_non_finite(edge.sent)} to input {k} (step "
                                   f"{edge.target}) at a kink, where a right value lies between the one-sided "
                                   f"derivatives: {step.detail}")
                    break
            continue
        if step.adjoint is None or node not in records:
            step.check, step.detail = "not checked", (NO_GRADIENT if node in records
                                                      else "recorded before f ran: its inputs are unknown")
            continue
        if step.source == "sympy":
            table = sympy_rows.get(node)
            _compare_full(step, errors=None, shift=None if table is None else result_shift(table[0], step.value))
            continue
        forward = _replay(node, records[node])
        if forward is None:
            step.check, step.detail = "not checked", f"{step.name} has no forward to replay"
            continue
        step.source = "differences"
        _check_by_differences(step, node, records[node], forward)


def _first_non_finite(values) -> str:
    flat = np.ravel(np.asarray(values, dtype=float))
    return str(float(flat[~np.isfinite(flat)][0]))


def _compare_full(step, errors, shift=None):
    """Each edge's VJP against its reference, held to the one accuracy model: a VJP the
    engine computes from SymPy's local derivative is its product with the adjoint, each
    rounded (SAFETY × (2 + the shift of a formula that reads the rounded result + the
    terms summed to the input's shape) × u of |adjoint · local derivative|), + FLOOR_ULPS
    ulp; a node whose rule is unknown (a custom Function: its differences) is held to
    NO_FORMULA_ULPS ulp of the larger of the two, the differences' own error estimate
    ten times over as the reference's uncertainty."""
    worst = None
    for k, edge in enumerate(step.edges):
        if edge.target is None or edge.reference is None:
            continue
        sent = np.zeros_like(edge.reference) if edge.sent is None else edge.sent
        reference = np.asarray(edge.reference, dtype=float)
        with np.errstate(invalid="ignore", over="ignore"):
            if errors is None and edge.local_value is not None:
                terms = np.abs(step.adjoint * edge.local_value)
                summed = max(1, int(np.size(terms)) // max(1, int(np.size(reference))))
                scale = _sum_to(terms, np.shape(reference))
                extra = 0.0 if shift is None else shift
                band = SAFETY * UNIT_ROUNDOFF * (2 + extra + summed) * scale + FLOOR_ULPS * np.spacing(np.abs(reference))
                slack = 0.0
            else:
                scale = np.maximum(np.abs(reference), np.abs(np.nan_to_num(sent)))
                band = NO_FORMULA_ULPS * UNIT_ROUNDOFF * scale + FLOOR_ULPS * np.spacing(np.abs(reference))
                slack = 0.0 if errors is None else 10 * errors[k]
            error = np.abs(sent - reference)
        values, exact = np.atleast_1d(sent).reshape(1, -1), np.atleast_1d(reference).reshape(1, -1)
        judged = np.isfinite(exact)
        verdict = decide(np.atleast_1d(error).reshape(1, -1), (np.atleast_1d(band) + slack).reshape(1, -1), exact,
                         values, [str(i) for i in range(exact.size)], judged=judged)
        if verdict.outcome == FAIL:
            flat = int(verdict.numbers["entry"])
            index = np.unravel_index(flat, np.shape(reference)) if np.ndim(reference) else ()
            worst = (k, index, float(np.ravel(sent)[flat]), float(np.ravel(reference)[flat]),
                     verdict.numbers["error"], verdict.numbers["tolerance"])
            break
        if verdict.outcome not in (PASS, FAIL) and judged.any():
            step.check, step.detail = "inconclusive", (f"the reference's band for input {k} is as large as the value "
                                                       f"there: a right VJP cannot be told from a wrong one")
    if worst is None:
        step.check = "ok" if step.check != "inconclusive" else step.check
        return
    k, index, sent, reference, error, band = worst
    where = f"[{', '.join(map(str, index))}]" if index else ""
    step.check = "wrong"
    step.detail = (f"its backward sends {sent:.10g} to input {k}{where} (step {step.edges[k].target}); "
                   f"the {'SymPy' if errors is None else 'difference'} reference is {reference:.10g} (off by "
                   f"{error:.2g}, beyond the expected accuracy {band:.2g})")


def _replay(node, record):
    """The node's forward as a function of its input arrays, or None when it has none."""

    inputs, params, _ = record
    if isinstance(node, Op):
        cls = type(node)

        def forward(*arrays):
            return [np.asarray(cls.forward(*arrays, **params), dtype=np.float64)]
        return forward
    if isinstance(node, FunctionCtx):
        function = node._function
        is_tensor = [isinstance(a, ag.Tensor) for a in inputs]

        def forward(*arrays):
            args = [ag.tensor(a) if t else a for a, t in zip(arrays, is_tensor)]
            with ag.no_grad():
                out = function.apply(*args, **params)
            out = out if isinstance(out, tuple) else (out,)
            return [np.asarray(o._data if isinstance(o, ag.Tensor) else o, dtype=np.float64) for o in out]
        return forward
    return None


RICHARDSON_WEIGHT = sum(abs(w) for _, w in STENCILS["richardson"])


def _sample_rounding(value, terms, h) -> float:
    """What the rounding of the samples of a difference reference can reach: each sample of
    the node's weighted forward (a sum of ``terms`` products) rounded by terms × u of its
    size, through the stencil's weights, over h."""
    return RICHARDSON_WEIGHT * (terms + 1) * UNIT_ROUNDOFF * abs(value) / h


def _check_by_differences(step, node, record, forward):
    """Reference VJPs from Richardson-extrapolated central differences of the node's own
    forward: element by element for small inputs, along two random directions otherwise."""

    inputs = record[0]
    arrays = [np.array(a._data if isinstance(a, ag.Tensor) else a, dtype=np.float64) for a in inputs]
    adjoint = step.adjoint if node.n_outputs == 1 else list(step.adjoint)
    weights = [adjoint] if node.n_outputs == 1 else adjoint
    scheme = SCHEMES["richardson"]

    def weighted(position, flat):
        args = list(arrays)
        args[position] = flat.reshape(arrays[position].shape)
        outs = quietly(forward, *args)
        return float(sum(np.sum(w * o) for w, o in zip(weights, outs)))

    errors = {}
    rng = np.random.default_rng(0)
    for k, edge in enumerate(step.edges):
        if edge.target is None:
            continue
        x0 = arrays[k].reshape(-1)
        sent = np.zeros(arrays[k].shape) if edge.sent is None else edge.sent
        try:
            if x0.size <= ELEMENTWISE_CHECK_LIMIT:
                reference, error = np.empty(x0.size), np.empty(x0.size)
                for j in range(x0.size):
                    def along(s, j=j):
                        x = x0.copy()
                        x[j] = s
                        return weighted(k, x)
                    h = nominal_step(scheme, x0[j])
                    reference[j], error[j] = richardson(along, x0[j], h)
                    error[j] += _sample_rounding(weighted(k, x0), x0.size, h)
                edge.reference = reference.reshape(arrays[k].shape)
                errors[k] = error.reshape(arrays[k].shape)
            else:
                for _ in range(2):
                    d = rng.standard_normal(x0.size)
                    h = nominal_step(scheme, 1.0)
                    value, error = richardson(lambda t: weighted(k, x0 + t * d), 0.0, h)
                    error += _sample_rounding(weighted(k, x0), x0.size, h)
                    engine = float(np.sum(sent.reshape(-1) * d))
                    band = NO_FORMULA_ULPS * UNIT_ROUNDOFF * float(np.sum(np.abs(sent.reshape(-1) * d))) + 10 * error
                    if not abs(engine - value) <= band:
                        step.check = "wrong"
                        step.detail = (f"along a random direction d its backward gives ⟨sent, d⟩ = {engine:.10g} "
                                       f"to input {k} (step {edge.target}); the difference reference is {value:.10g}")
                        return
        except Exception as error:
            step.check, step.detail = "not checked", f"replaying the forward failed: {type(error).__name__}: {error}"
            return
        if edge.reference is not None and not np.all(np.isfinite(edge.reference)):
            step.check, step.detail = "not checked", "the forward is undefined next to the point"
            return
    _compare_full(step, errors)

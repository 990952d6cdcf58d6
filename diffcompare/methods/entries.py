"""Every method for every kind of derivative (gradient, Jacobian, vᵀJ, Jv, Hessian), at
one point or many. Each returns an :class:`~diffcompare.methods.estimate.Estimate` whose values
are an array of shape ``(points,) + task.entry_shape``.

Points are evaluated all at once when f is elementwise in scalar variables (a batch of
points is then an array per variable, in NumPy, the engine and SymPy's generated code);
otherwise one point after another. SymPy's generated code is always vectorised, since
its entries are formulas in the scalar inputs.

>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.problem.tasks import make_task
>>> from diffcompare.problem.points import single
>>> p = make_problem("[x*y, x + y]", {"x": 2, "y": 5})
>>> t = make_task(p, "vjp", [1.0, 10.0])
>>> autograd_entries(p, t, single(p), batches=1).values      # one backward(v): v·J = [y + 10, x + 10]
array([[15., 12.]])
>>> fd_entries(p, t, single(p), "central-difference", batches=1).values.round(8)
array([[15., 12.]])
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

from diffcompare import autograd as ag
from diffcompare.autograd.quiet import quietly
from diffcompare.autograd.tensor import NUMPY_OF_GRAPH, GraphBreakWarning
from diffcompare.language.expression import NotInWorld
from diffcompare.language.worlds import COMPLEX, ENGINE, ENGINE_FLOAT32, NUMPY
from diffcompare.methods.estimate import FAILED, NOT_APPLICABLE, OK, TIMED_OUT, Estimate, work
from diffcompare.methods.finite_differences import EPS, SCHEMES, SMALLEST_NORMAL, STENCILS, extrapolate
from diffcompare.methods.timing import Timing, measure
from diffcompare.problem.points import Points
from diffcompare.problem.problem import Problem
from diffcompare.problem.tasks import Task
from diffcompare.problem.usercode import message
from diffcompare.stencil import combine, difference, sample

HESSIAN_STEP = EPS ** (1 / 4)     # second differences balance h² truncation against eps/h² rounding
MIXED_STEP = EPS ** (1 / 3)       # central differences of an exact gradient
HESSIAN_STEPS = {"second-differences": HESSIAN_STEP, "mixed": MIXED_STEP}     # the Hessian's difference methods


def vectorisable(problem: Problem) -> bool:
    """True when a batch of points can go through f at once: text, scalar variables, and
    every operation element by element."""
    return problem.is_text and problem.function.elementwise and not problem.has_arrays


def outputs(problem: Problem, task: Task, flat: np.ndarray, world: str = NUMPY) -> np.ndarray:
    """f's outputs at the rows of ``flat`` (real, or complex for the complex step): (points, m)."""
    count = flat.shape[0]
    if vectorisable(problem):
        values = {name: flat[:, j] for j, name in enumerate(problem.variables)}
        out = np.asarray(quietly(problem.evaluate, world, values))
        if out.ndim == len(task.output_shape):          # f did not depend on the batch: a constant
            return np.broadcast_to(out.reshape(1, task.m), (count, task.m))
        return out.reshape(task.m, count).T
    return np.stack([np.ravel(quietly(problem.evaluate, world, problem.split(row))) for row in flat])


LONG_CALL = 0.2     # seconds: a first run this long is its own timing (no repeats)


JAX_TRACE_ERRORS = ("TracerArrayConversionError", "ConcretizationTypeError", "TracerBoolConversionError",
                    "TracerIntegerConversionError")
ENGINE_OF = {"torch": ("PyTorch", "tensors"), "jax": ("JAX", "traced arrays"), "jax-jit": ("JAX", "traced arrays")}


def untraceable(error, method: str = "autograd") -> str | None:
    """Why ``method``'s engine could not trace f, when ``error`` says it left the graph: it
    handed the engine's tensors to NumPy (np.sin(x), np.dot(x, x)) or turned them into
    numbers (math.sin(x), float(x)). None for any other error."""
    engine, things = ENGINE_OF.get(method, ("the engine", "tensors"))
    text = str(error)
    if isinstance(error, TypeError) and "does not support ufuncs" in text:
        how = f"f calls NumPy functions (np.sin, np.exp, ...) on {engine}'s {things}"
    elif isinstance(error, RuntimeError) and text == NUMPY_OF_GRAPH:
        how = f"f hands {engine}'s {things} to NumPy (np.sin, np.dot, np.asarray, ...)"
    elif isinstance(error, GraphBreakWarning):
        how = f"f turns {engine}'s {things} into plain numbers (math.sin(x), float(x))"
    elif type(error).__name__ in JAX_TRACE_ERRORS:
        how = f"f hands {engine}'s {things} to NumPy or math, or branches on their values"
    else:
        return None
    return (f"{how}, so {engine} cannot trace it: write f with "
            f"diffcompare.language.functions (sin, exp, ... work on tensors, numbers, SymPy symbols and mpmath "
            f"alike), or compare it by its values (differences)")


def run_estimate(method, family, compute, batches, evaluations=None, **details):
    """Run ``compute`` once for the values (failures become the method's result), then time it."""
    try:
        start = time.perf_counter()
        if family == "autograd":
            with warnings.catch_warnings():
                warnings.simplefilter("error", GraphBreakWarning)    # a number out of the graph: not traceable
                values = quietly(compute)
        else:
            values = quietly(compute)
        first = time.perf_counter() - start
    except NotInWorld as error:
        return Estimate(method, family, status=NOT_APPLICABLE, reason=f"f is not complex-safe: {error}",
                        details=details)
    except Exception as error:
        if untraceable(error, method):
            return Estimate(method, family, status=NOT_APPLICABLE, reason=untraceable(error, method), details=details)
        if isinstance(error, NotImplementedError):
            # what the engine cannot do for this f (a custom Function without jvp, in forward mode)
            return Estimate(method, family, status=NOT_APPLICABLE, reason=str(error), details=details)
        if method in SCHEMES and SCHEMES[method].complex and isinstance(error, TypeError):
            # a callable comparing values (if x < 0) or calling a function with no complex form
            return Estimate(method, family, status=NOT_APPLICABLE,
                            reason=f"f is not complex-safe: it failed on complex arguments ({message(error)})",
                            details=details)
        return Estimate(method, family, status=FAILED, reason=message(error), details=details)
    if not batches:
        timing = None
    elif first >= LONG_CALL:
        timing = Timing(first, 0.0, 1, 1)
    else:
        timing = measure(lambda: quietly(compute), batches=batches)
    return Estimate(method, family, values, evaluations=evaluations, timing=timing, details=details)


def predicted_seconds(work: tuple, problem: Problem, task: Task, points: Points) -> tuple:
    """(seconds, what) a method would take, from its ``work`` — ("evaluations", k): k
    evaluations of f; ("backward" or "forward", k): k passes at each point; (None, 0):
    nothing to predict — and one evaluation of f (or one backward pass) timed here."""
    unit, amount = work
    n, m, count = task.n, task.m, len(points)
    batched = vectorisable(problem)
    sample = points.flat if batched else points.flat[:1]
    per_point = 1 if batched else count

    def timed(call):
        start = time.perf_counter()
        try:
            quietly(call)
        except Exception:
            return 0.0          # the method will report the failure itself
        return time.perf_counter() - start

    if unit == "evaluations":
        one = timed(lambda: outputs(problem, task, sample)) * per_point
        return amount * one, f"{amount:,} evaluations of f"
    if unit is None or (amount <= 2 and (batched or count == 1)):
        return 0.0, ""              # one vectorised pass, or one point: nothing to predict
    passes = max(amount, 1)
    # one forward and one backward pass, timed at one point
    one_pass = (Task("gradient", n, 1, task.output_shape, task.input_labels) if m == 1 else
                Task("vjp", n, m, task.output_shape, task.input_labels, np.ones(m)))
    one = timed(lambda: run_autograd(problem, one_pass, points.flat[:1], False))
    return passes * one * count, (f"{passes:,} {unit} passes" + (f" at each of {count:,} points" if count > 1
                                                                     else ""))


METHOD_BUDGET = 60.0            # seconds: a method predicted to take longer is not run


def too_slow(name: str, family: str, work: tuple, problem: Problem, task: Task, points: Points,
             factor: float = 1.0) -> Estimate | None:
    """A "timed out" estimate for a method predicted (:func:`predicted_seconds`, times
    ``factor`` for the runs its band adds) to take longer than METHOD_BUDGET; None when
    it fits."""
    seconds, what = predicted_seconds(work, problem, task, points)
    seconds *= factor
    if seconds <= METHOD_BUDGET:
        return None
    return Estimate(name, family, status=TIMED_OUT,
                    reason=f"not run: {what} would take about {seconds:,.0f} s, more than the "
                           f"{METHOD_BUDGET:g} s allowed to one method")


# -- reverse mode, by the engine ---------------------------------------------------------------

ENGINE_WORLDS = {"float64": ENGINE, "float32": ENGINE_FLOAT32}


def engine_inputs(problem: Problem, flat: np.ndarray, batched: bool, dtype: str = "float64"):
    """One leaf per variable: holding every point (batched, scalar variables), or the
    variable's value at the one point (a number, vector or matrix), as a user would write."""
    if batched:
        leaves = [ag.tensor(flat[:, j].astype(dtype), requires_grad=True) for j in range(flat.shape[1])]
    else:
        leaves = [ag.tensor(np.asarray(value, dtype=dtype), requires_grad=True)
                  for value in problem.split(flat[0]).values()]
    return leaves, dict(zip(problem.variables, leaves))


def as_tensor(out, dtype: str = "float64"):
    """What f returned on engine tensors, as one tensor: a list of tensors (a callable's
    ``return [x * y, sin(x)]``) is stacked, keeping the graph; a number becomes a constant."""
    if isinstance(out, ag.Tensor):
        return out
    if isinstance(out, (list, tuple)):
        parts = [as_tensor(part, dtype) for part in out]
        if any(part.requires_grad for part in parts):
            return ag.stack(parts)
    return ag.tensor(np.asarray(out, dtype=dtype))


def engine_outputs(problem: Problem, task: Task, values, count: int, dtype: str = "float64"):
    """f on engine tensors, as an (m, points) tensor."""
    out = as_tensor(problem.evaluate(ENGINE_WORLDS[dtype], values), dtype)
    if out.ndim == len(task.output_shape):
        out = out.reshape(task.m, 1)
        return out.expand(task.m, count) if count != 1 else out
    return out.reshape(task.m, count)


def _flat_grads(grads, leaves, batched: bool) -> np.ndarray:
    """Gradients with respect to the leaves as (points, n) floats (None -> 0)."""
    arrays = [np.zeros(leaf.shape) if g is None else g.detach().numpy() for g, leaf in zip(grads, leaves)]
    if batched:
        return np.stack(arrays, axis=1)
    return np.concatenate([np.ravel(a) for a in arrays]).reshape(1, -1)


def run_autograd(problem: Problem, task: Task, flat: np.ndarray, batched: bool, dtype: str = "float64") -> np.ndarray:
    """The task by the engine's backward(), as a user of PyTorch would write it, in
    ``dtype`` (float64 or float32: leaves, constants and every intermediate)."""
    count = flat.shape[0]
    leaves, values = engine_inputs(problem, flat, batched, dtype)
    if task.kind == "gradient" and not batched:         # the common case, with nothing in between
        out = problem.evaluate(ENGINE_WORLDS[dtype], values)
        if not (isinstance(out, ag.Tensor) and out.requires_grad):
            return np.zeros((1, task.n))
        return _flat_grads(ag.grad(out.reshape(()) if out.ndim else out, leaves, allow_unused=True), leaves, False)
    out = engine_outputs(problem, task, values, count, dtype)
    if not out.requires_grad:
        return np.zeros((count,) + task.entry_shape)
    if task.kind == "gradient":
        return _flat_grads(ag.grad(out, leaves, ag.ones_like(out), allow_unused=True), leaves, batched)
    if task.kind == "vjp":
        # the lecture point: ONE backward with v as the gradient argument; J is never formed
        v = ag.tensor(np.repeat(task.vector[:, None], count, axis=1))
        out.backward(v)
        return _flat_grads([leaf.grad for leaf in leaves], leaves, batched)
    if task.kind == "jacobian":
        return _batched_rows(out, leaves, batched)
    if task.kind == "jvp":
        # the double-vjp trick: u ↦ uᵀJ is linear in u, and its vjp with v is Jv
        u = ag.zeros_like(out, requires_grad=True)
        g = ag.grad(out, leaves, u, create_graph=True, allow_unused=True)
        pairs = [(gi, leaf) for gi, leaf in zip(g, leaves) if gi is not None]
        directions = split_direction(task.vector, leaves, batched, count)
        used = [directions[i] for i, gi in enumerate(g) if gi is not None]
        if not pairs or not any(gi.requires_grad for gi, _ in pairs):
            return np.zeros((count, task.m))
        (jv,) = ag.grad([gi for gi, _ in pairs], [u], used, allow_unused=True)
        return np.zeros((count, task.m)) if jv is None else jv.detach().numpy().T
    # hessian: gradient with create_graph=True, then one batched backward through it (row i
    # seeded with the i-th unit vector)
    g = ag.grad(out, leaves, ag.ones_like(out), create_graph=True, allow_unused=True)
    g = [gi if gi is not None else ag.zeros_like(leaf) for gi, leaf in zip(g, leaves)]
    entries = ag.stack(g) if batched else ag.cat([gi.reshape(-1) for gi in g])
    if not entries.requires_grad:
        return np.zeros((count, task.n, task.n))
    return _batched_rows(entries, leaves, batched)


def _batched_rows(out, leaves, batched: bool) -> np.ndarray:
    """The Jacobian of ``out`` ((m, points) when batched, else (m,)) as (points, m, n), by one
    backward over a batch of m seeds: seed i is 1 on row i of ``out`` (at every point)."""
    m = out.shape[0]
    eye = np.eye(m).reshape((m, m) + (1,) * (out.ndim - 1))
    seeds = ag.tensor(np.broadcast_to(eye, (m,) + tuple(out.shape)).astype(out.dtype))
    grads = ag.grad(out, leaves, seeds, is_grads_batched=True, allow_unused=True)
    arrays = [np.zeros((m,) + tuple(leaf.shape)) if gk is None else gk.numpy() for gk, leaf in zip(grads, leaves)]
    if batched:                                           # each (m, points): one column per variable
        return np.stack(arrays, axis=-1).transpose(1, 0, 2)
    return np.concatenate([a.reshape(m, -1) for a in arrays], axis=1)[None]


def split_direction(vector, leaves, batched, count):
    """v as one tensor per leaf (v is laid out like the flat inputs)."""
    if batched:
        return [ag.tensor(np.full(count, c)) for c in vector]
    out, offset = [], 0
    for leaf in leaves:
        size = leaf.numel()
        out.append(ag.tensor(np.asarray(vector[offset:offset + size]).reshape(leaf.shape)))
        offset += size
    return out


def _one_functional(problem: Problem, task: Task, flat: np.ndarray) -> np.ndarray:
    """The task by ``ag.functional`` (jacobian, jvp, hessian) at one point, f taking the flat inputs."""
    def func(t):
        out = as_tensor(problem.evaluate(ENGINE, problem.split(t)))
        return out.reshape(-1) if task.kind != "hessian" else out.reshape(())
    x = ag.tensor(flat[0])
    if task.kind == "jacobian":
        value = ag.functional.jacobian(func, x, vectorize=True)
    elif task.kind == "jvp":
        value = ag.functional.jvp(func, x, ag.tensor(task.vector))[1]
    elif task.kind == "vjp":
        value = ag.functional.vjp(func, x, ag.tensor(task.vector))[1]
    else:
        value = ag.functional.hessian(func, x, vectorize=True)
    return value.detach().numpy().reshape((1,) + task.entry_shape)


def per_point(one, flat):
    return np.concatenate([one(flat[p:p + 1]) for p in range(flat.shape[0])])


def autograd_entries(problem: Problem, task: Task, points: Points, batches: int = 5) -> Estimate:
    batched = vectorisable(problem) and len(points) > 1
    if batched:
        def compute():
            return run_autograd(problem, task, points.flat, True)
    else:
        def compute():
            return per_point(lambda row: run_autograd(problem, task, row, False), points.flat)
    return run_estimate("autograd", "autograd", compute, batches, evaluations=1,
                        work=work("autograd", task.kind, m=task.m, n=task.n),
                     forms_jacobian=task.kind == "jacobian", vectorised=batched or len(points) == 1)


def autograd_jacobian_vjp(problem: Problem, task: Task, points: Points, batches: int = 5) -> Estimate:
    """vᵀJ the long way, for contrast: the full Jacobian by m backward passes, then vᵀJ."""
    full = Task("jacobian", task.n, task.m, task.output_shape, task.input_labels)
    batched = vectorisable(problem) and len(points) > 1

    def compute():
        if batched:
            jacobian = run_autograd(problem, full, points.flat, True)
        else:
            jacobian = per_point(lambda row: run_autograd(problem, full, row, False), points.flat)
        return np.einsum("m,pmn->pn", task.vector, jacobian)
    return run_estimate("autograd-full-J", "autograd", compute, batches, evaluations=1,
                     work=work("autograd-full-J", task.kind, m=task.m), forms_jacobian=True,
                     vectorised=batched or len(points) == 1)


def functional_entries(problem: Problem, task: Task, points: Points, batches: int = 5) -> Estimate:
    return run_estimate("autograd-functional", "autograd",
                     lambda: per_point(lambda row: _one_functional(problem, task, row), points.flat), batches,
                     evaluations=1, work=work("autograd-functional", task.kind), forms_jacobian=task.kind in ("jacobian", "hessian"),
                     vectorised=len(points) == 1)


# -- SymPy ----------------------------------------------------------------------------------------

def symbolic_entries(problem: Problem, task: Task, points: Points, derivative, batches: int = 5) -> Estimate:
    """SymPy's entries (Matrix.jacobian, hessian, vᵀJ, Jv) as the NumPy code lambdify
    generated, on every point at once."""
    details = {"size_f": derivative.size_f, "size_raw": derivative.size_raw, "size_cse": derivative.size_cse,
               "diff_seconds": derivative.diff_seconds, "codegen_seconds": derivative.codegen_seconds,
               "work": work("symbolic", task.kind),
               "forms_jacobian": task.kind in ("jacobian", "vjp", "jvp"), "vectorised": True}
    if derivative.status != OK:
        status = TIMED_OUT if derivative.status == "timed out" else (
            NOT_APPLICABLE if derivative.status == "unavailable" else FAILED)
        return Estimate("symbolic", "symbolic", status=status, reason=derivative.reason,
                        setup_seconds=derivative.setup_seconds, details=details)
    columns = [points.flat[:, j] for j in range(points.flat.shape[1])]
    count = len(points)

    def at_once():
        return np.stack([np.broadcast_to(np.asarray(v), (count,)) for v in derivative.function(*columns)], axis=1)

    def one_by_one():
        return np.array([np.ravel(derivative.function(*row)) for row in points.flat])

    try:        # SymPy's NumPy code for Max(a, 1) cannot broadcast a constant: then point by point
        quietly(at_once)
        evaluate = at_once
    except (ValueError, TypeError):
        evaluate = one_by_one
        details["vectorised"] = count == 1
    except Exception:           # it fails again below, and that failure is the method's result
        evaluate = at_once

    def compute():
        values = evaluate()
        if np.iscomplexobj(values):      # SymPy's acosh(1/2) = iπ/3 is not a real derivative
            values = np.where(values.imag == 0, values.real, np.nan)
        return values.astype(np.float64).reshape((count,) + task.entry_shape)
    estimate = run_estimate("symbolic", "symbolic", compute, batches, evaluations=1, **details)
    estimate.setup_seconds = derivative.setup_seconds
    return estimate


# -- finite differences ---------------------------------------------------------------------------

def nominal_steps(scheme_name: str, x: np.ndarray, direction_scale: float = 1.0) -> np.ndarray:
    """The step of a scheme at each x (vectorised :func:`finite_differences.nominal_step`)."""
    scheme = SCHEMES[scheme_name]
    scale = np.maximum(1.0, np.abs(x))
    if scheme.complex:          # no rounding to balance: the same tiny step at every x
        return np.full_like(scale, scheme.step_factor) / direction_scale
    if not scheme.scaled:
        h = np.full_like(x, 2.0 ** round(math.log2(scheme.step_factor)), dtype=np.float64)
        floor = 2.0 ** np.round(np.log2(4096 * np.spacing(np.abs(x)) + 1e-300))
        return np.where(x != 0, np.maximum(h, floor), h) / direction_scale
    return 2.0 ** np.round(np.log2(scheme.step_factor * scale / direction_scale))


def method_steps(name: str, task: Task, flat: np.ndarray, step: float | None = None, scale: float = 1.0) -> np.ndarray:
    """The steps a finite-difference method takes: (points, directions) — one direction
    (v) for Jv, one per input otherwise. ``step`` overrides them; ``scale`` multiplies them."""
    count, n = flat.shape
    directions = 1 if task.kind == "jvp" and name in SCHEMES else n
    if step:
        return np.full((count, directions), float(step))
    if name in HESSIAN_STEPS:
        factor = HESSIAN_STEPS[name]
        return scale * 2.0 ** np.round(np.log2(factor * np.maximum(1.0, np.abs(flat))))
    if task.kind == "jvp":
        size = float(np.max(np.abs(task.vector))) or 1.0
        return scale * nominal_steps(name, np.max(np.abs(flat), axis=1), size)[:, None]
    return scale * np.stack([nominal_steps(name, flat[:, j]) for j in range(n)], axis=1)


def _moved(flat, direction, step):
    """The points moved by ``step`` (points,) along ``direction``: an input's index (a
    coordinate axis, without an n × n identity) or a vector."""
    if isinstance(direction, (int, np.integer)):
        moved = flat.astype(np.result_type(flat, step), copy=True)
        moved[:, direction] += step
        return moved
    return flat + step[:, None] * direction[None, :]


def _directional(problem, task, flat, direction, h, scheme_name, base):
    """(points, m): the derivative of f along ``direction`` (an input's index, or a vector)
    by one scheme with steps ``h`` (points,). ``base``: f at the points, for one-sided schemes."""
    if SCHEMES[scheme_name].complex:
        return outputs(problem, task, _moved(flat, direction, 1j * h), COMPLEX).imag / h[:, None]
    if isinstance(direction, (int, np.integer)):             # a coordinate: the step actually taken
        x = flat[:, direction]
        if scheme_name == "forward-difference":
            h_taken = (x + h) - x
        elif scheme_name == "backward-difference":
            h_taken = x - (x - h)
        else:
            h_taken = ((x + h) - (x - h)) / 2
    else:
        h_taken = h
    return difference(lambda step: outputs(problem, task, _moved(flat, direction, step)), h,
                      SCHEMES[scheme_name].stencil, taken=h_taken[:, None], centre=base)


def fd_entries(problem: Problem, task: Task, points: Points, scheme_name: str, step: float | None = None,
               batches: int = 5, step_scale: float = 1.0) -> Estimate:
    """The task by one finite-difference scheme: one column of J per input (gradient,
    Jacobian, and vᵀJ from that J), or one difference along v (Jv). ``step_scale``
    multiplies every nominal step (the error model runs the scheme at half the step)."""
    scheme = SCHEMES[scheme_name]
    flat = points.flat
    count, n = flat.shape
    directions = [task.vector] if task.kind == "jvp" else list(range(n))
    all_steps = method_steps(scheme_name, task, flat, step, step_scale)
    steps = list(all_steps.T)
    one_sided = scheme_name in ("forward-difference", "backward-difference")

    def entries(columns, vector):
        if task.kind == "jvp":
            return columns[0]
        jacobian = np.stack(columns, axis=2)                 # (points, m, n)
        if task.kind == "gradient":
            return jacobian[:, 0, :]
        if task.kind == "vjp":
            return np.einsum("m,pmn->pn", vector, jacobian)
        return jacobian
    estimate = {}

    def compute():
        base = outputs(problem, task, flat) if one_sided else None
        if scheme_name != "richardson":
            return entries([_directional(problem, task, flat, d, h, scheme_name, base)
                            for d, h in zip(directions, steps)], task.vector)
        values, gaps = [], []
        for d, h in zip(directions, steps):
            value, gap = _richardson(problem, task, flat, d, h)
            values.append(value)
            gaps.append(gap)
        estimate["error_estimate"] = entries(gaps, None if task.vector is None else np.abs(task.vector))
        return entries(values, task.vector)
    evaluations = scheme.samples * len(directions) + one_sided
    result = run_estimate(scheme_name, "finite differences", compute, batches, evaluations=evaluations,
                       formula=scheme.formula, order=scheme.order, steps=all_steps,
                       work=work("differences", task.kind, evaluations=evaluations, directions=len(directions)),
                       forms_jacobian=task.kind != "jvp", vectorised=vectorisable(problem) or count == 1)
    result.details.update(estimate)
    if scheme.complex and result.has_values:
        # Im f(x + ih) below the normal range has lost digits to underflow: said when the value fails
        with np.errstate(invalid="ignore", over="ignore"):
            imaginary = np.abs(result.values.reshape(count, -1)) * all_steps.max(axis=1, keepdims=True)
        if ((imaginary > 0) & (imaginary < SMALLEST_NORMAL)).any():
            result.details["caveats"] = ["Im f(x + ih) is subnormal: the complex step lost precision to underflow"]
    return result


RICHARDSON_ROUNDING = 2.0     # f's rounding at each sample, in units of u |f|
RICHARDSON_TRUNCATION = 1e-3  # the order-6 value's error as a share of its gap to the order-4 one


def _richardson(problem, task, flat, direction, h):
    """Central differences at h, h/2 and h/4 extrapolated to h -> 0 (order 6), and the
    method's own error estimate: the rounding of f's samples carried through the stencil,
    2u · max|f| · Σ|weights| / h, plus a thousandth of the gap to the best fourth-order
    extrapolation (that gap is the fourth-order value's error; the sixth-order value's own
    truncation is smaller by about h²). Calibrated in benchmarks/richardson_estimate.py."""
    d, largest = [], None
    for k in range(3):
        step = h / 2 ** k
        minus, plus = sample(lambda s: outputs(problem, task, _moved(flat, direction, s)), step)
        size = np.maximum(np.abs(plus), np.abs(minus))
        largest = size if largest is None else np.maximum(largest, size)
        if isinstance(direction, (int, np.integer)):        # the step actually taken
            x = flat[:, direction]
            taken = ((x + step) - (x - step)) / 2
        else:
            taken = step
        d.append(combine([minus, plus], taken[:, None]))
    value, r12 = extrapolate(d)
    weight = sum(abs(w) for _, w in STENCILS["richardson"])
    with np.errstate(over="ignore", invalid="ignore"):
        rounding = RICHARDSON_ROUNDING * (EPS / 2) * weight * largest / h[:, None]
        estimate = rounding + RICHARDSON_TRUNCATION * np.abs(value - r12)
    return value, estimate


def hessian_by_differences(problem: Problem, task: Task, points: Points, step: float | None = None,
                           batches: int = 5, step_scale: float = 1.0) -> Estimate:
    """Second differences of f: (f(x+h) - 2f(x) + f(x-h)) / h² on the diagonal, the
    four-point cross difference off it."""
    flat = points.flat
    count, n = flat.shape
    h = method_steps("second-differences", task, flat, step, step_scale)
    eye = np.eye(n)

    def f(moved):
        return outputs(problem, task, moved)[:, 0]

    def compute():
        centre = f(flat)
        hessian = np.empty((count, n, n))
        plus = [f(flat + h[:, [i]] * eye[i]) for i in range(n)]
        minus = [f(flat - h[:, [i]] * eye[i]) for i in range(n)]
        for i in range(n):
            hessian[:, i, i] = (plus[i] - 2 * centre + minus[i]) / h[:, i] ** 2
            for j in range(i + 1, n):
                di, dj = h[:, [i]] * eye[i], h[:, [j]] * eye[j]
                cross = (f(flat + di + dj) - f(flat + di - dj) - f(flat - di + dj) + f(flat - di - dj))
                hessian[:, i, j] = hessian[:, j, i] = cross / (4 * h[:, i] * h[:, j])
        return hessian
    evaluations = 1 + 2 * n + 2 * n * (n - 1)
    return run_estimate("second-differences", "finite differences", compute, batches, evaluations=evaluations,
                     formula="(f(x+h) - 2f(x) + f(x-h)) / h²; cross terms from 4 points", order=2,
                     steps=h, work=work("second-differences", task.kind, evaluations=evaluations),
                     forms_jacobian=True, vectorised=vectorisable(problem) or count == 1)


def hessian_mixed(problem: Problem, task: Task, points: Points, step: float | None = None,
                  batches: int = 5, step_scale: float = 1.0) -> Estimate:
    """Central differences of the engine's exact gradient: column j of H is
    (∇f(x + h e_j) - ∇f(x - h e_j)) / 2h. Not symmetric by construction."""
    flat = points.flat
    count, n = flat.shape
    gradient_task = Task("gradient", n, 1, task.output_shape, task.input_labels)
    batched = vectorisable(problem) and count > 1

    def gradient(moved):
        if batched:
            return run_autograd(problem, gradient_task, moved, True)
        return per_point(lambda row: run_autograd(problem, gradient_task, row, False), moved)

    steps = method_steps("mixed", task, flat, step, step_scale)

    def compute():
        columns = []
        for j in range(n):
            x, h = flat[:, j], steps[:, j]
            move = np.zeros_like(flat)
            move[:, j] = h
            taken = ((x + h) - (x - h)) / 2
            columns.append((gradient(flat + move) - gradient(flat - move)) / (2 * taken[:, None]))
        return np.stack(columns, axis=2)
    return run_estimate("mixed", "finite differences", compute, batches, evaluations=2 * n,
                     formula="(∇f(x+h e_j) - ∇f(x-h e_j)) / 2h, ∇f by autograd", order=2,
                     steps=steps, work=work("mixed", task.kind, gradients=2 * n), forms_jacobian=True,
                     vectorised=batched or count == 1)

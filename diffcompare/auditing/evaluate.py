"""The methods an audit runs at a batch of points, in the case's dtype and engine: autograd
(or the user's own gradient in its place), f itself, gradcheck's central differences (eps
1e-6, divided as PyTorch divides it), and the kinks near each point."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from diffcompare.autograd.gradcheck import ATOL, EPS, RTOL
from diffcompare.autograd.quiet import quietly
from diffcompare.autograd.tensor import GraphBreakWarning
from diffcompare.auditing.engines import ENGINES
from diffcompare.language.worlds import FLOAT32, NUMPY
from diffcompare.methods.entries import outputs, untraceable, vectorisable
from diffcompare.methods.given import GivenShapeError, given_values
from diffcompare.problem.errors import InputError
from diffcompare.problem.usercode import described
from diffcompare.stencil import CENTRAL, combine, sample


GRADCHECK_EPS, GRADCHECK_ATOL, GRADCHECK_RTOL = EPS, ATOL, RTOL   # what a plain gradcheck would use


def plain(values):
    return [None if v is None or not np.isfinite(v) else float(v) for v in np.ravel(values)]


def autograd_values(problem, task, flat, dtype, engine):
    """(values (points, entries), {row: why autograd failed there}). A function the engine
    cannot trace (NumPy or math on its tensors) is bad input, not a wrong gradient: InputError."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphBreakWarning)     # a number out of the graph: not traceable
        return _autograd_values(problem, task, flat, dtype, engine)


def _autograd_values(problem, task, flat, dtype, engine):
    engine = ENGINES[engine]
    try:
        batch = engine.batch(problem, task, flat, dtype)
        if batch is not None:
            return batch.astype(np.float64), {}
    except Exception:
        pass                        # some point raises: find out which, one at a time
    values, failures = np.full((len(flat), task.size), np.nan), {}
    for i, row in enumerate(flat):
        try:
            values[i] = engine.row(problem, task, row, dtype)
        except Exception as error:   # a user's backward may raise anything
            if engine.traces and untraceable(error):
                raise InputError(f"cannot audit f with the engine: {untraceable(error)}") from None
            failures[i] = f"autograd raised {described(error)}"
    return values, failures


def judged_values(problem, task, flat, dtype, engine, gradient=None, label="autograd"):
    """The values on trial: autograd's (:func:`autograd_values`), or the user's ``gradient``
    called at each row — (values, {row: why it failed there}); a result of the wrong shape
    is bad input (InputError)."""
    if gradient is None:
        return autograd_values(problem, task, flat, dtype, engine)
    values, failures = np.full((len(flat), task.size), np.nan), {}
    for i, row in enumerate(flat):
        try:
            values[i] = given_values(problem, task, gradient, row[None, :], dtype)[0]
        except GivenShapeError as error:
            raise InputError(f"{label}: {error}") from None
        except Exception as error:      # the user's function may raise anything
            failures[i] = f"{label} raised {described(error)}"
    return values, failures


def f_raised(problem, flat, rows, dtype, engine, gradient=None) -> dict:
    """Of the ``rows`` where the gradient on trial raised, those where f itself raises —
    user code that fails there, not a wrong derivative: {row: the exception and the user's
    line it came from}. f runs as the method ran it: on the engine's tensors (or PyTorch's),
    or, beside a user's own gradient, on plain numbers."""
    found = {}
    for i in rows:
        row = flat[i]
        try:
            if gradient is not None:
                quietly(problem.evaluate, NUMPY if dtype == "float64" else FLOAT32,
                        {n: np.asarray(v, dtype=dtype) for n, v in problem.split(row).items()})
            else:
                ENGINES[engine].evaluate(problem, row, dtype)
        except Exception as error:      # noqa: BLE001  (user code may raise anything)
            found[i] = described(error)
    return found


def first_line(error):
    lines = str(error).strip().splitlines()
    return lines[0] if lines else ""


def f_values(problem, task, flat, dtype, engine):
    """f at the rows of ``flat`` computed in ``dtype``: (points, m), nan where f raises."""
    own = ENGINES[engine].f_values(problem, task, flat, dtype)
    if own is not None:
        return own
    world = NUMPY if dtype == "float64" else FLOAT32
    moved = flat.astype(dtype)
    try:
        return outputs(problem, task, moved, world).astype(np.float64)
    except Exception:
        out = np.full((len(flat), task.m), np.nan)
        for i in range(len(flat)):
            try:
                out[i] = outputs(problem, task, moved[i:i + 1], world)[0]
            except Exception:
                pass
        return out


def gradcheck_differences(problem, task, flat, dtype, engine):
    """gradcheck's numerical entries: (f(x + eps e_j) - f(x - eps e_j)) / 2 eps (the
    central stencil of :mod:`diffcompare.stencil`) with x ± eps rounded to ``dtype`` as
    PyTorch does, divided by eps itself (for a Hessian, differences of autograd's
    gradient, as gradgradcheck). Also the size of f the differences saw, per point."""
    typed = flat.astype(dtype)
    eps = np.asarray(GRADCHECK_EPS, dtype=dtype)
    columns, sizes = [], np.zeros(len(flat))
    for j in range(flat.shape[1]):
        samples = sample(lambda step, j=j: _values_moved(problem, task, typed, j, step, dtype, engine), eps, CENTRAL)
        if task.kind != "hessian":
            both = np.abs(np.concatenate(samples, axis=1))
            sizes = np.fmax(sizes, np.where(np.isnan(both), -np.inf, both).max(axis=1))   # nan: f undefined there
        columns.append(combine(samples, GRADCHECK_EPS, CENTRAL))
    entries = np.stack(columns, axis=-1)                    # (points, m, n): the Jacobian's columns
    if task.kind == "hessian":
        entries = np.swapaxes(entries, 1, 2)                 # column j of H is d(grad)/dx_j
    return entries.reshape(len(flat), -1), sizes


def _values_moved(problem, task, typed, j, step, dtype, engine):
    """f (for a Hessian, autograd's gradient) at the rows of ``typed`` with column j moved
    by ``step``, the sum rounded to ``dtype``."""
    moved = typed.copy()
    moved[:, j] = typed[:, j] + step
    if task.kind == "hessian":
        return autograd_values(problem, replace(task, kind="gradient"), moved.astype(np.float64), dtype, engine)[0]
    return f_values(problem, task, moved.astype(np.float64), dtype, engine)


def special_points(problem, flat, engine) -> dict:
    """Rows at kinks: row -> what the kink is. An elementwise expression is screened at
    every row at once; only the rows on a kink are evaluated again, one by one, for the text."""
    rows = range(len(flat))
    if vectorisable(problem) and len(flat) > 1:
        hits = np.zeros(len(flat), dtype=bool)

        def observe(row, args, result, column):
            if row.kink is not None:
                try:
                    hits[:] |= np.broadcast_to(np.asarray(row.kink(*args), dtype=bool), hits.shape)
                except (TypeError, ValueError):
                    hits[:] = True          # cannot tell: look at every row
        try:
            quietly(problem.evaluate, NUMPY, dict(zip(problem.variables, flat.T)), observe)
            rows = np.flatnonzero(hits)
        except Exception:
            pass
    found = {}
    for i in rows:
        row = flat[i]
        moved = replace(problem, point=problem.split(row))
        for event in moved.events():
            if event.kind == "kink":
                args = ", ".join(f"{a:.6g}" if isinstance(a, float) else
                                 np.array2string(np.asarray(a), precision=6, threshold=6) for a in event.arguments)
                found[i] = f"{event.function}({args}): {event.text}"
                break
    return found

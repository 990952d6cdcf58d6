"""The user's own derivative as a method: a hand-derived formula or another library's
gradient, called at the same arguments as f, so the one judge holds it to the exact
reference — the check ``scipy.optimize.check_grad(f, grad, x0)`` makes, made exact.

``g`` takes f's arguments and returns what is checked: for a gradient, one partial per
variable (a tuple, list or array: numbers for scalar variables, arrays of their shape for
array variables) or the whole gradient as one flat array; for a Jacobian, the m × n matrix
(or one m × size block per variable); for a Hessian, the n × n matrix.

>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.problem.tasks import make_task
>>> p = make_problem("x**2 * y", {"x": 3.0, "y": 2.0})
>>> given_values(p, make_task(p, "gradient"), lambda x, y: (2 * x * y, x ** 2), p.flat_point()[None, :])
array([[12.,  9.]])
"""

from __future__ import annotations

import numpy as np

from diffcompare.methods.entries import run_estimate
from diffcompare.methods.estimate import work
from diffcompare.problem.errors import InputError
from diffcompare.problem.tasks import Task
from diffcompare.problem.usercode import signature_problem


class GivenShapeError(ValueError):
    """The user's function returned something that is not the derivative's shape."""


def given_values(problem, task, g, flat: np.ndarray, dtype: str = "float64") -> np.ndarray:
    """``g`` at each row of ``flat`` (NumPy values in ``dtype``): (points, task.size) in
    float64. Raises :class:`GivenShapeError` when g's result has the wrong shape, and
    whatever g raises."""
    out = np.empty((len(flat), task.size))
    for i, row in enumerate(flat):
        values = problem.split(row.astype(dtype))
        args = [values[name] if np.ndim(values[name]) else (np.float32 if dtype == "float32" else np.float64)(
            values[name]) for name in problem.variables]
        out[i] = _flatten(problem, task, g(*args))
    return out


def _flatten(problem, task, result) -> np.ndarray:
    """g's result as the task's flat entries (see the module's docstring for the forms)."""
    sizes = [int(np.prod(s)) if s else 1 for s in problem.shapes.values()]
    if isinstance(result, dict):
        missing = [n for n in problem.variables if n not in result]
        if missing:
            raise GivenShapeError(f"it returned a mapping without {missing[0]!r}; give one entry per variable "
                                  f"({', '.join(problem.variables)})")
        result = [result[n] for n in problem.variables]
    if isinstance(result, (tuple, list)) and len(result) == len(problem.variables) and len(problem.variables) > 1:
        parts = [_real_numbers(part) for part in result]
        if task.kind == "gradient":
            flat = np.concatenate([p.reshape(-1) for p in parts]) if all(p.size == s for p, s in
                                                                          zip(parts, sizes)) else None
        else:
            m = task.size // task.n
            flat = np.concatenate([p.reshape(m, -1) for p in parts], axis=1).reshape(-1) \
                if all(p.size == m * s for p, s in zip(parts, sizes)) else None
        if flat is None:
            raise GivenShapeError(f"it returned parts of sizes {[p.size for p in parts]}; the {task.kind} of f has "
                                  f"{_expected(task, sizes)}")
        return flat
    flat = _real_numbers(result).reshape(-1)
    if flat.size != task.size:
        raise GivenShapeError(f"it returned {flat.size} number{'s' * (flat.size != 1)}; the {task.kind} of f has "
                              f"{_expected(task, sizes)}")
    return flat


def _real_numbers(part) -> np.ndarray:
    """``part`` as float64, or GivenShapeError saying why it is not real numbers: complex
    values (the derivative of a real f is real: an imaginary part is a wrong formula, never
    dropped in silence), text, booleans or objects.

    >>> _real_numbers([1, 2.5]).tolist()
    [1.0, 2.5]
    >>> _real_numbers(np.cos(0.5) + 0.5j)
    Traceback (most recent call last):
    ...
    diffcompare.methods.given.GivenShapeError: it returned complex numbers (e.g. (0.8775825618903728+0.5j)): the derivative of a real f is real, so an imaginary part means a wrong formula; return real numbers (float64 or float32)
    """
    try:
        array = np.asarray(part)
    except Exception:
        raise GivenShapeError(f"it returned {type(part).__name__}, not numbers") from None
    if array.dtype.kind == "c":
        first = complex(np.ravel(array)[np.flatnonzero(np.imag(np.ravel(array)) != 0)[0]]) \
            if np.any(np.imag(array) != 0) else complex(np.ravel(array)[0])
        raise GivenShapeError(f"it returned complex numbers (e.g. {first}): the derivative of a real f is real, so an "
                              f"imaginary part means a wrong formula; return real numbers (float64 or float32)")
    if array.dtype.kind == "b":
        raise GivenShapeError("it returned booleans, not numbers")
    if array.dtype.kind in "USV":
        raise GivenShapeError(f"it returned text ({np.ravel(array)[0]!r}), not numbers")
    if array.dtype.kind not in "fiu":
        try:
            converted = array.astype(np.float64)
        except (TypeError, ValueError):
            raise GivenShapeError(f"it returned {type(part).__name__} of {array.dtype} values, not real numbers") \
                from None
        if array.dtype.kind == "O" and not all(isinstance(v, (int, float, np.integer, np.floating))
                                               and not isinstance(v, bool) for v in np.ravel(array)):
            kinds = sorted({type(v).__name__ for v in np.ravel(array)})
            raise GivenShapeError(f"it returned objects of type {', '.join(kinds)}, not real numbers")
        return converted
    return array.astype(np.float64)


def _expected(task, sizes) -> str:
    if task.kind == "gradient":
        return f"{task.size} entr{'ies' if task.size != 1 else 'y'} (one per input: {', '.join(task.input_labels)})"
    return f"{task.size} entries ({' × '.join(map(str, task.entry_shape))})"


def given_entries(problem, task, points, g, label: str, batches: int = 5):
    """The user's derivative ``g`` as a method of ``compare`` (``--gradient module:function``):
    called at each point; vᵀJ and Jv are formed from its Jacobian."""
    wrong = signature_problem(g, problem.variables)
    if wrong:
        raise InputError(f"the gradient {label} {wrong}")
    full = task if task.kind in ("gradient", "jacobian", "hessian") else \
        Task("jacobian", task.n, task.m, task.output_shape, task.input_labels)

    try:
        given_values(problem, full, g, points.flat[:1])     # what g returns must be the derivative's numbers
    except GivenShapeError as error:
        raise InputError(f"{label}: {error}") from None
    except Exception:
        pass                    # g raised: the method failed, and its result says how

    def compute():
        values = given_values(problem, full, g, points.flat).reshape((len(points),) + full.entry_shape)
        if task.kind == "vjp":
            return np.einsum("m,pmn->pn", task.vector, values)
        if task.kind == "jvp":
            return np.einsum("pmn,n->pm", values, task.vector)
        return values
    return run_estimate("given", "given", compute, batches, evaluations=1,
                        work=work("given", task.kind, function=label), function=label)


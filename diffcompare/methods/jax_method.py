"""JAX as a method of ``compare`` (``--methods jax`` and ``jax-jit``): the same f run on JAX
arrays through the function table's JAX world, differentiated by ``jax.grad``,
``jax.jacrev``, ``jax.hessian``, ``jax.vjp`` (one backward with v) and ``jax.jvp`` (one
forward pass along v), eagerly or compiled by ``jax.jit`` (compiled before it is timed).

>>> import pytest; jax = pytest.importorskip("jax")
>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.problem.tasks import make_task
>>> p = make_problem("sin(x) * y", {"x": 0.5, "y": 2.0})
>>> jax_values(p, make_task(p, "gradient"), p.flat_point()[None, :]).round(12).tolist()   # [2 cos 0.5, sin 0.5]
[[1.755165123781, 0.479425538604]]
"""

from __future__ import annotations

import numpy as np

from diffcompare.language.jax_world import available, load
from diffcompare.language.worlds import JAX
from diffcompare.methods.entries import run_estimate
from diffcompare.methods.estimate import work
from diffcompare.problem.errors import InputError
from diffcompare.version import install_hint



def require_jax():
    """InputError with the way to install JAX, when it is not installed."""
    if not available():
        raise InputError(f"--methods jax needs JAX, which is not installed: {install_hint('jax')}")


def _function(problem, j, scalar: bool):
    """f of the flat inputs, on JAX arrays: a scalar, or the outputs as one vector."""
    shapes = [np.shape(v) for v in problem.point.values()]

    def f(flat):
        values, offset = {}, 0
        for name, shape in zip(problem.variables, shapes):
            size = int(np.prod(shape, dtype=int))
            part = flat[offset:offset + size]
            offset += size
            values[name] = part.reshape(shape) if shape else part[0]
        out = j.numpy.asarray(problem.evaluate(JAX, values), dtype=j.numpy.float64)
        return out.reshape(()) if scalar else out.reshape(-1)
    return f


def derivative(problem, task, jit: bool = False):
    """The task's derivative as a function of one flat input row (a JAX function)."""
    j = load()
    if task.kind == "gradient":
        d = j.grad(_function(problem, j, True))
    elif task.kind == "hessian":
        d = j.hessian(_function(problem, j, True))
    elif task.kind == "jacobian":
        d = j.jacrev(_function(problem, j, False))
    elif task.kind == "vjp":
        f, v = _function(problem, j, False), j.numpy.asarray(task.vector)

        def d(x):
            return j.vjp(f, x)[1](v)[0]
    else:
        f, v = _function(problem, j, False), j.numpy.asarray(task.vector)

        def d(x):
            return j.jvp(f, (x,), (v,))[1]
    return j.jit(d) if jit else d


def jax_values(problem, task, flat: np.ndarray, jit: bool = False, d=None) -> np.ndarray:
    """The task by JAX at each row of ``flat``: (points,) + task.entry_shape."""
    j = load()
    d = d or derivative(problem, task, jit)
    out = [np.asarray(d(j.numpy.asarray(row, dtype=j.numpy.float64)), dtype=np.float64) for row in flat]
    return np.asarray(out).reshape((len(flat),) + task.entry_shape)


def jax_entries(problem, task, points, batches: int = 5, jit: bool = False):
    load()                              # JAX's import is not the method's time
    d = derivative(problem, task, jit)
    try:
        d(load().numpy.asarray(points.flat[0], dtype=load().numpy.float64))    # traced (and compiled) before timing
    except Exception:
        pass                            # the timed run reports the failure
    name = "jax-jit" if jit else "jax"
    return run_estimate(name, "autograd", lambda: jax_values(problem, task, points.flat, jit, d), batches,
                        evaluations=1, work=work("jax", task.kind, jit=jit),
                        forms_jacobian=task.kind in ("jacobian", "hessian"), vectorised=len(points) == 1)

"""PyTorch's autograd as a method: the gradient, Jacobian or Hessian of a problem by
``torch.autograd``, through the function table's torch world (``diffcompare audit --engine
torch``): expressions run on torch tensors, functions written with :mod:`diffcompare.functions`
(or with ``torch`` itself) are called with them.

>>> import pytest; torch = pytest.importorskip("torch")
>>> from diffcompare.problem.problem import make_problem
>>> from diffcompare.problem.tasks import make_task
>>> p = make_problem("sin(x) * y", {"x": 0.5, "y": 2.0})
>>> torch_autograd(p, make_task(p, "gradient"), p.flat_point()[None, :]).round(12).tolist()   # [2 cos 0.5, sin 0.5]
[[1.755165123781, 0.479425538604]]
"""

from __future__ import annotations

import numpy as np

from diffcompare.language.torch_world import available, load
from diffcompare.language.worlds import TORCH
from diffcompare.methods.entries import run_estimate
from diffcompare.methods.estimate import work
from diffcompare.problem.errors import InputError
from diffcompare.problem.tasks import Task
from diffcompare.version import install_hint


def output_shape(problem) -> tuple:
    """The shape of f's value at the point, evaluated on torch tensors (for functions
    written with torch itself, which NumPy cannot run)."""
    t = load()
    values = {n: t.tensor(np.asarray(v, dtype=np.float64)) for n, v in problem.point.items()}
    try:
        with t.no_grad():
            value = problem.evaluate(TORCH, values)
    except Exception as error:
        raise InputError(f"{problem.label} cannot be evaluated on torch tensors at the point: "
                         f"{type(error).__name__}: {error}") from None
    return tuple(value.shape) if isinstance(value, t.Tensor) else ()


def torch_autograd(problem, task, flat: np.ndarray, dtype: str = "float64") -> np.ndarray:
    """The task (gradient, Jacobian or Hessian) by PyTorch's autograd at each row of
    ``flat``, one point at a time: (points,) + task.entry_shape."""
    t = load()
    torch_dtype = {"float64": t.float64, "float32": t.float32}[dtype]
    out = []
    for row in flat:
        leaves = [t.tensor(np.asarray(v, dtype=dtype), dtype=torch_dtype, requires_grad=True)
                  for v in problem.split(row).values()]
        values = dict(zip(problem.variables, leaves))

        def f():
            y = problem.evaluate(TORCH, values)
            return y if isinstance(y, t.Tensor) else t.tensor(float(y), dtype=torch_dtype)
        if task.kind == "gradient":
            y = f().reshape(())
            grads = t.autograd.grad(y, leaves, allow_unused=True) if y.requires_grad else [None] * len(leaves)
            out.append(_flat(grads, leaves))
        elif task.kind == "jacobian":
            y = f().reshape(-1)
            rows = []
            for i in range(task.m):
                grads = (t.autograd.grad(y[i], leaves, retain_graph=True, allow_unused=True)
                         if y.requires_grad else [None] * len(leaves))
                rows.append(_flat(grads, leaves))
            out.append(np.stack(rows))
        else:
            y = f().reshape(())
            grads = t.autograd.grad(y, leaves, create_graph=True, allow_unused=True)
            first = [g if g is not None else t.zeros_like(leaf) for g, leaf in zip(grads, leaves)]
            entries = [g.reshape(-1)[j] for g in first for j in range(g.numel())]
            rows = [_flat(t.autograd.grad(e, leaves, retain_graph=True, allow_unused=True), leaves)
                    if e.requires_grad else np.zeros(task.n) for e in entries]
            out.append(np.stack(rows))
    return np.asarray(out, dtype=np.float64).reshape((len(flat),) + task.entry_shape)


def _flat(grads, leaves) -> np.ndarray:
    return np.concatenate([np.zeros(leaf.numel()) if g is None else g.detach().double().reshape(-1).numpy()
                           for g, leaf in zip(grads, leaves)])


def torch_entries(problem, task, points, batches: int = 5):
    """PyTorch's autograd as a method of ``compare`` (asked for with ``--methods torch``):
    the gradient, Jacobian or Hessian by torch.autograd at each point; vᵀJ and Jv from its
    Jacobian. PyTorch not installed: the method says so (``compare`` exits 2 before running)."""
    load()          # PyTorch's import is not the method's time
    full = task if task.kind in ("gradient", "jacobian", "hessian") else \
        Task("jacobian", task.n, task.m, task.output_shape, task.input_labels)

    def compute():
        values = torch_autograd(problem, full, points.flat)
        if task.kind == "vjp":
            return np.einsum("m,pmn->pn", task.vector, values)
        if task.kind == "jvp":
            return np.einsum("pmn,n->pm", values, task.vector)
        return values
    return run_estimate("torch", "autograd", compute, batches, evaluations=1, work=work("torch", task.kind),
                        forms_jacobian=task.kind in ("jacobian", "vjp", "jvp", "hessian"), vectorised=len(points) == 1)


def require_torch():
    """InputError with the way to install PyTorch, when it is not installed."""
    if not available():
        raise InputError(f"--methods torch needs PyTorch, which is not installed: {install_hint('torch')}")

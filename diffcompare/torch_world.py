"""PyTorch as a world of the function table, so that PyTorch's autograd can stand in
for diffcompare's engine (``diffcompare audit --engine torch``): expressions run on
``torch`` tensors, and functions written with :mod:`diffcompare.functions` (or with
``torch`` itself) are called with them.

Importing this module imports PyTorch; :func:`available` says whether it is installed
without importing it.

>>> import pytest; torch = pytest.importorskip("torch")
>>> from diffcompare.problem import make_problem
>>> from diffcompare.kinds import make_task
>>> p = make_problem("sin(x) * y", {"x": 0.5, "y": 2.0})
>>> torch_autograd(p, make_task(p, "gradient"), p.flat_point()[None, :]).round(12).tolist()   # [2 cos 0.5, sin 0.5]
[[1.755165123781, 0.479425538604]]
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np

from .function_table import EXTRA_WORLDS

torch = None


def available() -> bool:
    return importlib.util.find_spec("torch") is not None


def _load():
    global torch
    if torch is None:
        import torch as module
        torch = module
    return torch


def _tensors(func):
    """A torch function of tensors; numbers (max(x, 0)) become tensors of the other's dtype."""
    def call(*args):
        like = next((a for a in args if isinstance(a, torch.Tensor)), None)
        dtype = like.dtype if like is not None else torch.float64
        return func(*(a if isinstance(a, torch.Tensor) else torch.tensor(float(a), dtype=dtype) for a in args))
    return call


def _table():
    t = _load()
    same = ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh",
            "atanh", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sigmoid", "relu", "abs", "sign",
            "erf", "hypot")
    table = {name: _tensors(getattr(t, name)) for name in same}
    table.update({
        "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
        "div": lambda a, b: a / b, "neg": lambda a: -a, "pow": lambda a, b: a ** b,
        "pi": lambda: math.pi, "e": lambda: math.e,
        "cbrt": _tensors(lambda x: t.sign(x) * t.abs(x) ** (1 / 3)),
        "softplus": _tensors(lambda x: t.logaddexp(t.zeros_like(x), x)),     # no linear cut-off, as the table
        "min": _tensors(t.minimum), "max": _tensors(t.maximum),
        "clamp": lambda x, lo, hi: t.clamp(x, lo, hi),
        "sum": lambda a: a.sum(), "prod": lambda a: a.prod(), "mean": lambda a: a.mean(),
        "norm": lambda a: t.linalg.vector_norm(a), "dot": lambda a, b: t.dot(a, b),
        "matmul": lambda a, b: a @ b, "index": lambda a, key: a[key],
        "vector": lambda *values: t.stack([v if isinstance(v, t.Tensor) else t.tensor(float(v), dtype=t.float64)
                                           for v in values]),
    })
    return table


_TABLE: dict = {}


def _column(row):
    if not _TABLE:
        _TABLE.update(_table())
    return _TABLE.get(row.name)


EXTRA_WORLDS["torch"] = _column


def output_shape(problem) -> tuple:
    """The shape of f's value at the point, evaluated on torch tensors (for functions
    written with torch itself, which NumPy cannot run)."""
    t = _load()
    values = {n: t.tensor(np.asarray(v, dtype=np.float64)) for n, v in problem.point.items()}
    try:
        with t.no_grad():
            value = problem.evaluate("torch", values)
    except Exception as error:
        from .problem import InputError
        raise InputError(f"{problem.label} cannot be evaluated on torch tensors at the point: "
                         f"{type(error).__name__}: {error}") from None
    return tuple(value.shape) if isinstance(value, t.Tensor) else ()


def torch_autograd(problem, task, flat: np.ndarray, dtype: str = "float64") -> np.ndarray:
    """The task (gradient, Jacobian or Hessian) by PyTorch's autograd at each row of
    ``flat``, one point at a time: (points,) + task.entry_shape."""
    t = _load()
    torch_dtype = {"float64": t.float64, "float32": t.float32}[dtype]
    out = []
    for row in flat:
        leaves = [t.tensor(np.asarray(v, dtype=dtype), dtype=torch_dtype, requires_grad=True)
                  for v in problem.split(row).values()]
        values = dict(zip(problem.variables, leaves))

        def f():
            y = problem.evaluate("torch", values)
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

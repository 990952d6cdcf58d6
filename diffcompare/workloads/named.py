"""A workload as a function ``compare`` can differentiate: named array variables (the
objective's parameters), their values (the workload's data), and one body that runs on the
tensors it is given — diffcompare's engine, PyTorch or JAX — and on NumPy arrays (through
the engine, without recording), so that every method of ``compare`` that takes a Python
function can run it.

>>> f, at, label = workload_function("lse", "tiny")
>>> sorted(at), label
(['x'], 'workload lse (tiny: n=5)')
>>> import numpy as np
>>> x = at["x"]
>>> bool(np.isclose(f(x), np.log(np.sum(np.exp(x)))))
True
"""

from __future__ import annotations

import inspect

import numpy as np

from diffcompare import autograd as ag
from diffcompare.workloads import WORKLOADS

SIZES = ("tiny", "small", "medium")
DEFAULT_SIZE = "small"


class UnknownWorkload(ValueError):
    """A workload or size that does not exist (the message names the ones that do)."""


def parameter_names(module, count: int) -> list:
    """The names of the objective's first ``count`` parameters (its arguments after the
    module: the arrays differentiated; the rest are the data's constants), in order."""
    return list(inspect.signature(module._objective).parameters)[1:1 + count]


def workload_function(name: str, size: str = DEFAULT_SIZE, seed: int = 0):
    """(f, its point, a label) for the workload ``name`` at ``size``."""
    if name not in WORKLOADS:
        raise UnknownWorkload(f"unknown workload {name!r}; choose from {', '.join(sorted(WORKLOADS))}")
    if size not in SIZES:
        raise UnknownWorkload(f"unknown size {size!r} of workload {name}; choose from {', '.join(SIZES)}")
    module = WORKLOADS[name]
    data = module.make_data(size, seed)
    names = parameter_names(module, len(data.params))
    converted = {}

    def consts(kind, convert):
        if kind not in converted:
            converted[kind] = data.consts_for(convert)
        return converted[kind]

    def f(*params):
        first = params[0]
        kind = type(first).__module__.partition(".")[0]
        if kind == "torch":
            import torch
            return module.objective_torch(*params, **consts("torch", torch.as_tensor))
        if kind in ("jax", "jaxlib"):
            import jax.numpy as jnp
            return module.objective_jax(*params, **consts("jax", jnp.asarray))
        if isinstance(first, ag.Tensor):
            return module.objective_engine(*params, **consts("engine", ag.as_tensor))
        if isinstance(first, np.ndarray) and first.dtype.kind == "f":
            with ag.no_grad():
                out = module.objective_engine(*(ag.as_tensor(p) for p in params), **consts("engine", ag.as_tensor))
            return out.detach().numpy()
        what = f"arrays of {first.dtype}" if isinstance(first, np.ndarray) else type(first).__name__
        raise TypeError(f"the workload {name} computes on tensors (diffcompare's, PyTorch's, JAX's) or real NumPy "
                        f"arrays, not on {what} (SymPy's symbols, mpmath's numbers)")

    f.__signature__ = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
    f.__name__ = f"workload_{name}"
    return f, dict(zip(names, data.params)), f"workload {name} ({size}: {module.describe(size)})"

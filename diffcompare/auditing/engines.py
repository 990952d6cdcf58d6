"""The engines an audit can put on trial, each as one object: diffcompare's own engine and
PyTorch. An engine computes autograd's entries at a row (or at every row at once where it
can), runs f on its own tensors, and says what it needs; the audit never asks which engine
it has by its name.

>>> sorted(ENGINES), ENGINES["torch"].needs_shape, ENGINES["diffcompare"].replays_nodes
(['diffcompare', 'torch'], True, True)
"""

from __future__ import annotations

import numpy as np

from diffcompare.autograd.quiet import quietly
from diffcompare.language import torch_world
from diffcompare.language.torch_world import load
from diffcompare.language.worlds import TORCH
from diffcompare.methods.entries import ENGINE_WORLDS, engine_inputs, run_autograd, vectorisable
from diffcompare.methods.torch_autograd import torch_autograd
from diffcompare.problem.errors import InputError
from diffcompare.version import install_hint


class Diffcompare:
    """diffcompare's own engine: batched over rows where f is elementwise; a function it
    cannot trace (NumPy or math on its tensors) is bad input; a wrong gradient's node can be
    found by replaying the graph."""
    name = "diffcompare"
    needs_shape = False         # f's output shape is read from the problem itself
    traces = True               # an untraceable f is bad input, not a wrong gradient
    replays_nodes = True        # the wrong backward rule can be named

    def require(self) -> None:
        return None

    def batch(self, problem, task, flat, dtype):
        """Autograd's entries at every row at once (points, entries), or None where f is not
        elementwise."""
        if not (vectorisable(problem) and len(flat) > 1):
            return None
        return run_autograd(problem, task, flat, True, dtype).reshape(len(flat), -1)

    def row(self, problem, task, row, dtype):
        return run_autograd(problem, task, row[None, :], False, dtype).reshape(1, -1)

    def evaluate(self, problem, row, dtype):
        """f at one row on the engine's tensors (as autograd ran it)."""
        _, values = engine_inputs(problem, row[None, :], False, dtype)
        return quietly(problem.evaluate, ENGINE_WORLDS[dtype], values)

    def f_values(self, problem, task, flat, dtype):
        """f at the rows on this engine (None: on plain NumPy, as every engine's f computes the same)."""
        return None


class Torch:
    """PyTorch: row by row, f on torch tensors; its graph cannot be replayed node by node."""
    name = "torch"
    needs_shape = True
    traces = False
    replays_nodes = False

    def require(self) -> None:
        if not torch_world.available():
            raise InputError(f"--engine torch needs PyTorch: {install_hint('torch')}")

    def batch(self, problem, task, flat, dtype):
        return None

    def row(self, problem, task, row, dtype):
        return torch_autograd(problem, task, row[None, :], dtype).reshape(1, -1)

    def evaluate(self, problem, row, dtype):
        torch = load()
        with torch.no_grad():
            return problem.evaluate(TORCH, {n: torch.tensor(np.asarray(v, dtype=dtype))
                                            for n, v in problem.split(row).items()})

    def f_values(self, problem, task, flat, dtype):
        torch = load()
        out = np.full((len(flat), task.m), np.nan)
        with torch.no_grad():
            for i, row in enumerate(flat):
                values = {n: torch.tensor(np.asarray(v, dtype=dtype)) for n, v in problem.split(row).items()}
                try:
                    y = problem.evaluate(TORCH, values)
                    out[i] = np.ravel(y.double().numpy() if isinstance(y, torch.Tensor) else float(y))
                except Exception:
                    pass
        return out


ENGINES = {engine.name: engine for engine in (Diffcompare(), Torch())}


def engine_named(name: str):
    """The engine called ``name``, with what it needs installed checked (bad input otherwise)."""
    if name not in ENGINES:
        raise InputError(f"unknown engine {name!r}; choose {' or '.join(ENGINES)}")
    engine = ENGINES[name]
    engine.require()
    return engine

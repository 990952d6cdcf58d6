"""Forward-mode AD as a method: the engine's ``forward_ad``, one forward pass per input
direction, each giving one column of the Jacobian.

- gradient and Jacobian: n passes, pass j seeded with the j-th unit vector (column j of J);
- Jv: one pass seeded with v; vᵀJ: the n columns first, then vᵀJ;
- Hessian: forward over reverse: pass j takes the gradient with ``create_graph=True`` while
  the inputs carry e_j, so the gradient's tangent is column j of H.

Reverse mode pays one backward pass per output (m for a Jacobian), forward mode one pass
per input (n): the report shows each method's passes, so which mode is cheaper for a given
n and m is visible on any Jacobian.
"""

from __future__ import annotations

import numpy as np

from diffcompare import autograd as ag
from diffcompare.autograd import forward_ad
from diffcompare.methods.entries import (
    engine_inputs,
    engine_outputs,
    per_point,
    run_estimate,
    split_direction,
    vectorisable,
)
from diffcompare.methods.estimate import Estimate, work
from diffcompare.problem.points import Points
from diffcompare.problem.problem import Problem
from diffcompare.problem.tasks import Task

NAME = "forward-mode"


def passes(task: Task) -> int:
    """Forward passes the method makes for ``task`` (at each point, or for all points at once)."""
    return 1 if task.kind == "jvp" else task.n


def _unit_directions(leaves, batched: bool, count: int):
    """Per input direction j: one tangent per leaf (None for the leaves it does not move)."""
    if batched:                      # one scalar variable per leaf, every point at once
        for j in range(len(leaves)):
            yield [np.ones(count) if k == j else None for k in range(len(leaves))]
        return
    for k, leaf in enumerate(leaves):
        for position in range(leaf.numel()):
            tangent = np.zeros(leaf.numel())
            tangent[position] = 1.0
            yield [tangent.reshape(leaf.shape) if i == k else None for i in range(len(leaves))]


def _pass(problem: Problem, task: Task, leaves, tangents, count: int, batched: bool) -> np.ndarray:
    """One forward pass with these tangents: J t as (points, m), or H t as (points, n) for a Hessian."""
    # J t needs no graph (tangents of leaves that require grad would be recorded, as in PyTorch)
    with forward_ad.dual_level(), ag.set_grad_enabled(task.kind == "hessian"):
        duals = [leaf if t is None else forward_ad.make_dual(leaf, ag.tensor(np.asarray(t, dtype=float)))
                 for leaf, t in zip(leaves, tangents)]
        out = engine_outputs(problem, task, dict(zip(problem.variables, duals)), count)
        if task.kind != "hessian":
            tangent = forward_ad.split_dual(out).tangent
            return np.zeros((count, task.m)) if tangent is None else tangent.detach().numpy().T
        if not out.requires_grad:
            return np.zeros((count, task.n))
        grads = ag.grad(out, duals, ag.ones_like(out), create_graph=True, allow_unused=True)
        parts = []
        for g, leaf in zip(grads, leaves):
            tangent = None if g is None else forward_ad.split_dual(g).tangent
            parts.append(np.zeros(leaf.shape) if tangent is None else tangent.detach().numpy())
    if batched:
        return np.stack(parts, axis=1)
    return np.concatenate([np.ravel(p) for p in parts]).reshape(1, -1)


def run_forward_mode(problem: Problem, task: Task, flat: np.ndarray, batched: bool) -> np.ndarray:
    """The task's values by forward mode, shaped as reverse mode's (``run_autograd``)."""
    count = flat.shape[0]
    leaves, _ = engine_inputs(problem, flat, batched)
    if task.kind == "jvp":
        return _pass(problem, task, leaves, _directions_of(task.vector, leaves, batched, count), count, batched)
    columns = [_pass(problem, task, leaves, tangents, count, batched)
               for tangents in _unit_directions(leaves, batched, count)]
    matrix = np.stack(columns, axis=-1)                  # (points, m or n, n): column j from pass j
    if task.kind == "gradient":
        return matrix[:, 0, :]
    if task.kind == "vjp":
        return np.einsum("m,pmn->pn", task.vector, matrix)
    return matrix


def _directions_of(vector, leaves, batched, count):
    return [d._data for d in split_direction(vector, leaves, batched, count)]




def forward_mode_entries(problem: Problem, task: Task, points: Points, batches: int = 5) -> Estimate:
    batched = vectorisable(problem) and len(points) > 1
    if batched:
        def compute():
            return run_forward_mode(problem, task, points.flat, True)
    else:
        def compute():
            return per_point(lambda row: run_forward_mode(problem, task, row, False), points.flat)
    return run_estimate(NAME, "autograd", compute, batches, evaluations=1, work=work(NAME, task.kind, n=task.n),
                     passes=passes(task), forms_jacobian=task.kind in ("jacobian", "vjp"),
                     vectorised=batched or len(points) == 1)

"""Which backward rule is wrong: explain's check of every node, replayed at the worst point."""

from __future__ import annotations

import math

import numpy as np

from diffcompare.auditing.evaluate import first_line
from diffcompare.auditing.results import PointResult
from diffcompare.lecture.explain import explain


def wrong_node(problem, task, worst: PointResult) -> str:
    """The node whose backward rule is wrong, by explain's check at the worst point (for
    a Jacobian, walking back from the output row of the worst entry)."""
    vector = None
    if task.kind == "jacobian":
        errors = [abs(a - r) if a is not None and r is not None else math.inf
                  for a, r in zip(worst.autograd, worst.reference or [None] * len(worst.autograd))]
        row = int(np.argmax(errors)) // task.n
        vector = [1.0 if i == row else 0.0 for i in range(task.m)]
    f = problem.function.text if problem.is_text else problem.function
    try:
        walk = explain(f, worst.point, vector=vector, check=True)
    except Exception as error:      # the diagnosis must not hide the verdict
        return f"(the node check could not run: {type(error).__name__}: {first_line(error)})"
    wrong = walk.first_wrong
    if wrong is None:
        return "(no single backward rule is wrong on its own here: each node's rule checks out)"
    return f"step {wrong.number}, {wrong.name}: {wrong.detail}"

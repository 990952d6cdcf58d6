"""What every method returns: the partial derivatives it found (or why it has none), the
function evaluations it used and what it cost. Methods never format output."""

from __future__ import annotations

from dataclasses import dataclass, field

from diffcompare.methods.status import FAILED, NOT_APPLICABLE, OK, TIMED_OUT  # noqa: F401  (the statuses, with the estimate)
from diffcompare.methods.timing import Timing


@dataclass
class Estimate:
    method: str                         # "autograd", "symbolic", "forward-difference", "central-difference", ...
    family: str                         # "autograd", "symbolic" or "finite differences"
    values: dict | None = None          # variable -> float (may be nan/inf)
    status: str = OK
    reason: str = ""
    evaluations: int | None = None      # evaluations of f (finite differences)
    setup_seconds: float | None = None  # one-off work before the first evaluation
    timing: Timing | None = None        # per evaluation of the whole gradient
    details: dict = field(default_factory=dict)   # steps, error estimates, formulas, sizes

    @property
    def has_values(self):
        return self.status == OK and self.values is not None


def work(of: str, task: str, **counts) -> dict:
    """What a method did, as data: whose work (``of``: a method, or "differences" for the
    difference schemes), for which task, and its counts; ``render.work`` says it.

    >>> work("autograd", "jacobian", m=3, n=2)
    {'of': 'autograd', 'task': 'jacobian', 'm': 3, 'n': 2}
    """
    return {"of": of, "task": task, **counts}

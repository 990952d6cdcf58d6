"""Every method as one object: its name, its family, what it needs installed, how many runs
its accuracy band takes, and how it turns (problem, task, points, settings) into an
:class:`~diffcompare.methods.estimate.Estimate`. The pipeline looks a method up here by the
name the user gave; nothing else chooses what to run by comparing names. Which methods a
task runs by default, and which it accepts, are data in :mod:`diffcompare.methods.registry`.

>>> CATALOGUE["central-difference"].family, CATALOGUE["central-difference"].band_runs
('finite differences', 3)
>>> sorted(set(CATALOGUE) - set(ALL_NAMES))
[]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from diffcompare.methods.entries import (
    autograd_entries,
    autograd_jacobian_vjp,
    fd_entries,
    functional_entries,
    hessian_by_differences,
    hessian_mixed,
    symbolic_entries,
    too_slow,
)
from diffcompare.methods.estimate import Estimate
from diffcompare.methods.finite_differences import FD_METHODS, SCHEMES
from diffcompare.methods.forward_mode import forward_mode_entries
from diffcompare.methods.given import given_entries
from diffcompare.methods.jax_method import jax_entries, require_jax
from diffcompare.methods.registry import ALL_METHODS
from diffcompare.methods.symbolic import DEFAULT_TIMEOUT
from diffcompare.methods.symbolic_reverse import symbolic_reverse_entries
from diffcompare.methods.torch_autograd import require_torch, torch_entries
from diffcompare.problem.points import Points
from diffcompare.problem.problem import Problem
from diffcompare.problem.tasks import Task

AUTOGRAD, SYMBOLIC, DIFFERENCES = "autograd", "symbolic", "finite differences"
# how a difference method's band bounds its rounding: a stencil's sum of weights; the complex
# step's relative rounding of f; f at x ± h e_i ± h e_j; two gradients differenced
STENCIL, COMPLEX, SECOND_DIFFERENCES, GRADIENTS = "stencil", "complex", "second differences", "gradients"
ALL_NAMES = tuple(dict.fromkeys(name for names in ALL_METHODS.values() for name in names))


@dataclass(frozen=True)
class Settings:
    """What a run of the methods shares: timing repeats, the difference step (None: each
    scheme's own), SymPy's derivative of f (computed once), the user's gradient."""
    repeat: int = 5
    step: float | None = None
    derivative: object = None
    grad: Callable | None = None
    symbolic_timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class Method:
    """One way of computing the derivative."""
    name: str
    family: str
    compute: Callable[[Problem, Task, Points, Settings], Estimate]
    band_runs: int = 1                  # a difference scheme's band runs it again at h/2 and h/4
    require: Callable[[], None] = lambda: None      # bad input naming the package to install
    work: Callable[[Task], tuple] = None            # (unit, how many) for the time budget: reverse passes
    again: Callable | None = None       # a difference method (problem, task, points, step, scale) at its steps × scale
    rounding: str = ""                  # how a difference method's band bounds its rounding (STENCIL, COMPLEX, ...)

    def estimate(self, problem: Problem, task: Task, points: Points, settings: Settings) -> Estimate:
        """The method's entries at every point, or "not run" when it is predicted to take
        longer than one method is allowed."""
        work = (self.work or reverse_passes)(task)
        slow = too_slow(self.name, self.family, work, problem, task, points, self.band_runs)
        return slow if slow is not None else self.compute(problem, task, points, settings)


def reverse_passes(task: Task) -> tuple:
    """Reverse mode's work: one backward pass per output for a Jacobian, per input for a
    Hessian (each row by a double backward), one for vᵀJ, two for a gradient."""
    return "backward", {"jacobian": task.m, "hessian": task.n, "vjp": 1}.get(task.kind, 2)


def _scheme(name: str) -> Method:
    scheme = SCHEMES[name]
    return Method(name, DIFFERENCES, lambda p, t, w, s: fd_entries(p, t, w, name, s.step, s.repeat), band_runs=3,
                  work=lambda t: ("evaluations", scheme.cost * (1 if t.kind == "jvp" else t.n)),
                  again=lambda p, t, w, step, scale: fd_entries(p, t, w, name, step, batches=0, step_scale=scale),
                  rounding=COMPLEX if scheme.complex else STENCIL)


def _jax(jit: bool):
    return lambda p, t, w, s: jax_entries(p, t, w, s.repeat, jit=jit)


_METHODS = [
    Method("autograd", AUTOGRAD, lambda p, t, w, s: autograd_entries(p, t, w, s.repeat)),
    Method("autograd-functional", AUTOGRAD, lambda p, t, w, s: functional_entries(p, t, w, s.repeat)),
    Method("autograd-full-J", AUTOGRAD, lambda p, t, w, s: autograd_jacobian_vjp(p, t, w, s.repeat),
           work=lambda t: ("backward", t.m) if t.kind == "vjp" else reverse_passes(t)),
    Method("forward-mode", AUTOGRAD, lambda p, t, w, s: forward_mode_entries(p, t, w, s.repeat),
           work=lambda t: ("forward", 1 if t.kind == "jvp" else t.n)),       # one pass per input direction
    Method("torch", AUTOGRAD, lambda p, t, w, s: torch_entries(p, t, w, s.repeat), require=require_torch),
    Method("jax", AUTOGRAD, _jax(False), require=require_jax),
    Method("jax-jit", AUTOGRAD, _jax(True), require=require_jax),
    Method("given", AUTOGRAD, lambda p, t, w, s: given_entries(p, t, w, s.grad, getattr(s.grad, "__name__", "grad"),
                                                               s.repeat)),
    Method("symbolic", SYMBOLIC, lambda p, t, w, s: symbolic_entries(p, t, w, s.derivative, s.repeat),
           work=lambda t: (None, 0)),             # one vectorised pass of the compiled derivative
    Method("symbolic-reverse", SYMBOLIC, lambda p, t, w, s: symbolic_reverse_entries(p, t, w, s.repeat,
                                                                                     s.symbolic_timeout)),
    Method("second-differences", DIFFERENCES, lambda p, t, w, s: hessian_by_differences(p, t, w, s.step, s.repeat),
           band_runs=3, work=lambda t: ("evaluations", 1 + 2 * t.n * t.n), rounding=SECOND_DIFFERENCES,
           again=lambda p, t, w, step, scale: hessian_by_differences(p, t, w, step, batches=0, step_scale=scale)),
    Method("mixed", DIFFERENCES, lambda p, t, w, s: hessian_mixed(p, t, w, s.step, s.repeat), band_runs=3,
           work=lambda t: ("backward", 2 * t.n), rounding=GRADIENTS,
           again=lambda p, t, w, step, scale: hessian_mixed(p, t, w, step, batches=0, step_scale=scale)),
] + [_scheme(name) for name in FD_METHODS]
CATALOGUE = {method.name: method for method in _METHODS}


def methods(names) -> list:
    """The catalogue's methods for ``names`` (already checked against the task's list), each
    with what it needs installed checked."""
    chosen = [CATALOGUE[name] for name in names]
    for method in chosen:
        method.require()
    return chosen


__all__ = ["CATALOGUE", "Method", "Settings", "methods"]

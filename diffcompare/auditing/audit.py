"""Gradient audits: is autograd's gradient right, at every point that matters?

A gradient checker (PyTorch's gradcheck, JAX's check_grads, SciPy's check_grad)
compares autograd with finite differences only: when the two disagree nobody knows
which one is wrong, and float32 or a kink raise false alarms. An audit measures both
against the exact reference (SymPy's derivative evaluated by mpmath at the exact point)
and so can say, point by point, which method is wrong and why:

- **autograd vs the reference** — the verdict on the gradient, against a tolerance
  derived from the dtype's ε and the size of the entries (or the case's own);
- **FD vs the reference** — whether the finite differences were trustworthy there
  (gradcheck's own central differences, h = 1e-6 in the case's dtype, held to
  gradcheck's own tolerance); if not, why: float32 rounding, cancellation, a kink
  inside the stencil, or truncation;
- **autograd vs FD** — what a plain gradcheck would have said.

A wrong gradient names the node whose backward rule is wrong (the check of
:func:`diffcompare.lecture.explain.explain`). Cases run in parallel processes
(``jobs``) or on a Dask cluster (``scheduler``), in batches of points whose results do
not depend on how they were scheduled.

>>> from diffcompare.auditing.suite import Case
>>> report = run_cases([Case("smooth", expression="sin(x) * exp(y)", domain={"x": (-2, 2), "y": (-1, 1)})],
...                    random=5)
>>> case = report.cases[0]
>>> case.status, case.counts["agree"] == len(case.points), report.exit_status
('pass', True, 0)
"""

from __future__ import annotations

import time

from diffcompare.auditing.batch import AUDIT_TIMEOUT, BATCH, SYMBOLIC_TIMEOUT, merge
from diffcompare.auditing.engines import engine_named
from diffcompare.auditing.results import INTERRUPTED, NOT_RUN, AuditReport, CaseResult, finding
from diffcompare.auditing.runners import runner
from diffcompare.auditing.workers import UNIT_TIMEOUT
from diffcompare.auditing.suite import MAX_RANDOM, make_case, names_function
from diffcompare.problem.errors import InputError
from diffcompare.problem.values import SEED_LIMIT, whole_number

# torch.autograd.gradcheck's defaults: the plain check an audit reports beside its own


def run_cases(cases: list, random: int | None = None, seed: int = 0, engine: str = "diffcompare", jobs: int = 1,
              scheduler: str | None = None, adversarial: bool = True, symbolic_timeout: float = SYMBOLIC_TIMEOUT,
              progress=None, timeout: float | None = AUDIT_TIMEOUT, isolate: bool = False,
              case_timeout: float | None = UNIT_TIMEOUT, workers=None, exitfirst: bool = False) -> AuditReport:
    """Audit ``cases`` (:class:`~diffcompare.auditing.suite.Case`) and return the report.

    ``random``: random points per case (None: each case's own, else 10); ``seed``: their
    seed; ``engine``: "diffcompare" or "torch"; ``jobs``: processes on this machine;
    ``scheduler``: the address of a Dask scheduler instead; ``progress(done, total)``
    is called as batches finish; ``timeout``: seconds allowed to the whole audit (None:
    no limit), after which the points not yet checked leave their cases undecided.
    ``isolate``: run user code in supervised worker processes (what ``diffcompare audit``
    and the pytest plugin do: a crash, an exit or a hang ends its case only), each batch of
    a case's points within ``case_timeout`` seconds, as they always are with ``jobs`` above
    1; else in this process. ``workers``: a
    :class:`~diffcompare.auditing.workers.Pool` already started, to run in (the pytest
    plugin's, shared by a session's cases). ``exitfirst``: run the cases one after another
    and stop after the first whose gradient is wrong (``diffcompare audit -x``); the report
    holds the cases that ran.
    """
    engine_named(engine)
    whole_number(seed, "the seed", 0, SEED_LIMIT - 1)
    if case_timeout is not None and not (isinstance(case_timeout, (int, float)) and case_timeout > 0):
        raise InputError(f"the time budget per case must be a positive number of seconds (None: no limit), not "
                         f"{case_timeout!r}")
    if timeout is not None and not (isinstance(timeout, (int, float)) and timeout > 0):
        raise InputError(f"the time budget must be a positive number of seconds (None: no limit), not {timeout!r}")
    if random is not None:
        whole_number(random, "--points", 0, MAX_RANDOM)
    settings = {"random": random, "seed": seed, "engine": engine, "adversarial": adversarial,
                "symbolic_timeout": symbolic_timeout, "timeout": timeout,
                "deadline": None if timeout is None else time.time() + timeout}
    start = time.perf_counter()
    collected: list = []            # every batch as it finishes: what an interruption keeps
    interrupted = False
    ran = len(cases)
    try:
        if workers is not None:
            ran = _run(workers.run, cases, settings, progress, collected, exitfirst)
        else:
            with runner(jobs, scheduler, isolate, case_timeout) as run:
                ran = _run(run, cases, settings, progress, collected, exitfirst)
    except KeyboardInterrupt:       # Ctrl-C, or SIGTERM on the command line: the report of what is done
        interrupted = True
    cases = cases[:ran]
    by_case = {}
    for batch in collected:
        by_case.setdefault(batch.index, []).append(batch)
    results = []
    for i, case in enumerate(cases):
        if i in by_case:
            results.append(merge(by_case[i]))
            if interrupted and _unfinished(by_case[i]) and results[-1].status == "pass":
                results[-1].status = "undecided"
                results[-1].findings.append(finding(INTERRUPTED))
        else:
            results.append(CaseResult(case.name, case.source, case.check, case.dtype, engine, "undecided",
                                      [finding(NOT_RUN, interrupted=interrupted)], judged=case.judged))
    shown = {k: v for k, v in settings.items() if k not in ("symbolic_timeout", "timeout", "deadline")}
    where = f"Dask scheduler {scheduler}" if scheduler else f"{jobs} process{'es' * (jobs != 1)}"
    report = AuditReport(results, shown, {"wall": time.perf_counter() - start, "where": where})
    report.interrupted = interrupted
    return report


def _run(run, cases, settings, progress, collected, exitfirst: bool) -> int:
    """Run the cases (all at once, or with ``exitfirst`` one by one until one fails) into
    ``collected``; how many cases ran."""
    if not exitfirst:
        run(cases, settings, progress, collected)
        return len(cases)
    for index, case in enumerate(cases):
        batches: list = []
        try:
            run([case], settings, progress, batches)
        finally:
            for batch in batches:
                batch.index = index
            collected.extend(batches)
        if batches and merge(batches).status == "fail":
            return index + 1
    return len(cases)


def _unfinished(batches) -> bool:
    """Whether some batch of a case never came back (its first says how many there are)."""
    first = min(batches, key=lambda b: b.start)
    return first.total > 0 and len(batches) < -(-first.total // BATCH)


def audit(fn, domain=None, points=None, check: str = "gradient", dtype: str = "float64", random: int = 0,
          seed: int = 0, adversarial: bool = True, tolerance: dict | None = None, reference: str | None = None,
          engine: str = "diffcompare", name: str | None = None, timeout: float | None = AUDIT_TIMEOUT,
          grad=None, shape: dict | None = None) -> AuditReport:
    """Audit the gradient (or Jacobian, Hessian) of ``fn`` — expression text, a Python
    callable written with :mod:`diffcompare.language.functions`, an ``ag.Function`` subclass or
    "module:function" — over ``domain`` ({"x": (-2, 2)}) and at ``points`` (a mapping or a
    list of mappings; values may be vectors and matrices, as lists or arrays). Returns the
    same :class:`AuditReport` as ``diffcompare audit``.

    ``grad``: your own gradient (a callable or "module:function" taking f's arguments, see
    :mod:`diffcompare.methods.given`) judged in autograd's place — a hand-derived formula or
    another library's; f then needs no engine, plain NumPy will do. ``shape``: the shapes
    of array variables that only the domain gives values ({"x": [3]}).

    >>> report = audit("abs(x) + x", domain={"x": (-1, 1)}, points=[{"x": 0.5}])   # at 0: slopes 0 and 2
    >>> report.cases[0].status, report.cases[0].counts["subgradient"]
    ('pass', 2)
    >>> import numpy as np
    >>> report = audit(lambda x, y: np.sin(x) * y, grad=lambda x, y: (np.cos(x) * y, np.cos(x)),
    ...                points={"x": 0.5, "y": 2.0})          # ∂f/∂y should be sin(x)
    >>> report.cases[0].status, report.cases[0].verdict.split(";")[0]
    ('fail', 'gradient <lambda> is wrong at 1 of 1 points')
    """
    entry = {"check": check, "dtype": dtype}
    if grad is not None:
        entry["gradient"] = grad
    if shape is not None:
        entry["shape"] = {k: list(v) if isinstance(v, (list, tuple)) else v for k, v in shape.items()}
    if isinstance(fn, str) and not names_function(fn):
        entry["expression"] = fn
    else:
        entry["function"] = fn
    if domain is not None:
        entry["domain"] = {k: list(v) for k, v in domain.items()}
    if points is not None:
        if isinstance(points, (int, float)) and not isinstance(points, bool):
            raise InputError(f"points= gives explicit points (a mapping such as {{'x': 0.5}}, or a list of them), "
                             f"not a count: for {points!r} random points in the domain write random={points!r}")
        entry["at"] = [points] if isinstance(points, dict) else list(points)
    if tolerance:
        entry["tolerance"] = dict(tolerance)
    if reference is not None:
        entry["reference"] = reference
    label = name or (fn if isinstance(fn, str) else getattr(fn, "__name__", "f"))
    case = make_case(entry, label)
    return run_cases([case], random=random, seed=seed, engine=engine, adversarial=adversarial, timeout=timeout)

"""What supervision costs: the same audit with user code in this process (how
``assert_gradients`` runs) against one supervised worker process (how ``diffcompare audit``
runs with ``--jobs 1``: a fresh interpreter started, every case sent over a pipe, its output
captured) and two, in interleaved rounds of the same run.

Then what starting a worker costs, paid by every supervised audit (and again for each worker
a crash replaces): a small audit's wall time with its worker forked from the warm fork server
(``forkserver.py``) against a new interpreter started for it, in interleaved rounds of one
program that runs audit after audit (a test suite, the pytest plugin).

Then what ending a worker costs, the wait at the end of every supervised audit: a pool's
``close()`` after its run (the worker flushes its streams and ends at once), against an
interpreter holding the same modules (SymPy, NumPy, the audit's) that ends the ordinary way
(finalising its objects), timed from the moment it is told to end, in interleaved rounds.

Run: python benchmarks/supervision_cost.py [--cases 60] [--points 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import common  # noqa: F401  (thread pins before NumPy)
from audit_scaling import cases
from common import table

ROUTES = (("in this process (jobs 1)", dict(jobs=1, isolate=False)),
          ("one supervised worker (jobs 1)", dict(jobs=1, isolate=True)),
          ("two supervised workers (jobs 2)", dict(jobs=2, isolate=True)))


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--points", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    from diffcompare.auditing.audit import run_cases
    suite = cases(args.cases)
    run_cases(suite[:2], points=2, adversarial=False)            # imports and caches warm, outside the clocks
    run_cases(suite[:2], points=2, adversarial=False, isolate=True)     # and the fork server started
    times = {name: [] for name, _ in ROUTES}
    statuses = {}
    for _ in range(args.rounds):
        for name, options in ROUTES:
            start = time.perf_counter()
            report = run_cases(suite, points=args.points, adversarial=False, **options)
            times[name].append(time.perf_counter() - start)
            statuses[name] = sorted({c.status for c in report.cases})
    base = statistics.median(times[ROUTES[0][0]])
    rows = [[name, f"{statistics.median(t):.2f} s", f"{statistics.median(t) / base:.2f}x "
             f"({min(t) / base:.2f}–{max(t) / base:.2f})", ", ".join(statuses[name])] for name, t in times.items()]
    section = table(f"What supervision costs: an audit of {args.cases} cases x {args.points} random points (same run)",
                 ["where user code runs", "wall (median)", "this / in this process", "statuses"], rows,
                 [f"{args.rounds} interleaved rounds, medians; the supervised routes include starting their "
                  "workers (forked from the fork server, which was started before the clocks; see the next table)",
                  "every route gives the same verdicts: the results do not depend on where the units ran"])
    return section + "\n" + starting(max(args.rounds, 5)) + "\n" + ending(max(args.rounds, 5))


ROOT = Path(__file__).resolve().parents[1]
# an interpreter with the worker's modules that ends when its standard input closes, the ordinary way
ORDINARY = ("import sys; sys.path[0] = sys.argv[1]; import sympy, diffcompare.auditing.batch; "
            "print('ready', flush=True); sys.stdin.read()")


def starting(rounds: int) -> str:
    """Wall seconds of a one-case audit in one and in two supervised workers, their start
    included: forked from the fork server (already running: a program's later audits) against
    new interpreters."""
    from diffcompare.auditing import forkserver
    from diffcompare.auditing.suite import Case
    from diffcompare.auditing.workers import Pool
    cases = [Case("cube", expression="x**3", at=[{"x": 2.0}]), Case("square", expression="x**2", at=[{"x": 3.0}])]
    ways = {"forked from the fork server": True, "a new interpreter": False}
    times = {(way, jobs): [] for way in ways for jobs in (1, 2)}

    def audit(jobs):
        start = time.perf_counter()
        with Pool(jobs) as pool:
            batches = pool.run(cases[:jobs], {"points": 0, "adversarial": False})
        assert [b.case.status for b in batches] == ["pass"] * jobs
        return time.perf_counter() - start

    forkserver.ENABLED = True
    audit(1)                # the server started, outside the clocks (a program's first audit pays it once)
    try:
        for i in range(rounds):
            for way, enabled in (ways.items() if i % 2 == 0 else list(ways.items())[::-1]):
                forkserver.ENABLED = enabled
                for jobs in (1, 2):
                    times[(way, jobs)].append(audit(jobs))
    finally:
        forkserver.ENABLED = True
    rows = []
    for jobs in (1, 2):
        new = statistics.median(times[("a new interpreter", jobs)])
        for way in ways:
            t = statistics.median(times[(way, jobs)])
            rows.append([f"{jobs} worker{'s' if jobs > 1 else ''}, {way}", f"{t:.3f}", f"{t / new:.2f}x"])
    return table("Starting supervised workers: a one-case audit, start to end (same run)",
                 ["workers, how started", "seconds (median)", "this / a new interpreter"], rows,
                 [f"{rounds} interleaved rounds, medians; the fork server was started once before the clocks "
                  "(a program's first audit pays that start, about one new interpreter's)"])


def ending(rounds: int) -> str:
    """Seconds from "end" to a worker's exit: the pool's own end against an ordinary shutdown."""
    from diffcompare.auditing.suite import Case
    from diffcompare.auditing.workers import Pool
    fast, ordinary = [], []
    for _ in range(rounds):
        pool = Pool(1)
        pool.run([Case("cube", expression="x**3", at=[{"x": 2.0}])], {"points": 0, "adversarial": False})
        start = time.perf_counter()
        pool.close()
        fast.append(time.perf_counter() - start)
        process = subprocess.Popen([sys.executable, "-c", ORDINARY, str(ROOT)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE)
        process.stdout.readline()
        start = time.perf_counter()
        process.stdin.close()
        process.wait()
        ordinary.append(time.perf_counter() - start)
    f, o = statistics.median(fast), statistics.median(ordinary)
    return table("Ending a supervised worker: the wait at the end of every audit (same run)",
                 ["how the worker ends", "seconds (median)", "this / ordinary shutdown"],
                 [["the pool's close(): streams flushed, os._exit", f"{f:.3f}", f"{f / o:.2f}x"],
                  ["an interpreter with the same modules ending the ordinary way", f"{o:.3f}", "1.00x"]],
                 [f"{rounds} interleaved rounds, medians; the pool's time includes asking the worker to end and "
                  "making sure nothing it started is left"])


if __name__ == "__main__":
    main()

"""What supervision costs: the same audit with user code in this process (how
``assert_gradients`` runs) against one supervised worker process (how ``diffcompare audit``
runs with ``--jobs 1``: a fresh interpreter started, every case sent over a pipe, its output
captured) and two, in interleaved rounds of the same run.

Run: python benchmarks/supervision_cost.py [--cases 60] [--points 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

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
    run_cases(suite[:2], random=2, adversarial=False)            # imports and caches warm, outside the clocks
    times = {name: [] for name, _ in ROUTES}
    statuses = {}
    for _ in range(args.rounds):
        for name, options in ROUTES:
            start = time.perf_counter()
            report = run_cases(suite, random=args.points, adversarial=False, **options)
            times[name].append(time.perf_counter() - start)
            statuses[name] = sorted({c.status for c in report.cases})
    base = statistics.median(times[ROUTES[0][0]])
    rows = [[name, f"{statistics.median(t):.2f} s", f"{statistics.median(t) / base:.2f}x "
             f"({min(t) / base:.2f}–{max(t) / base:.2f})", ", ".join(statuses[name])] for name, t in times.items()]
    return table(f"What supervision costs: an audit of {args.cases} cases x {args.points} random points (same run)",
                 ["where user code runs", "wall (median)", "this / in this process", "statuses"], rows,
                 [f"{args.rounds} interleaved rounds, medians; the supervised routes include starting their "
                  "worker interpreters (about 0.7 s each here)",
                  "every route gives the same verdicts: the results do not depend on where the units ran"])


if __name__ == "__main__":
    main()

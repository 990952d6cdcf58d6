"""An audit of 100 cases x 100 points: wall time with --jobs 2 against --jobs 1 in the
same run, and where the time of one process goes — the methods (autograd, gradcheck's
finite differences, the exact reference by SymPy and mpmath) against the audit's own
machinery (points, classification, set-up, merging).

Run: python benchmarks/audit_scaling.py [--cases 100] [--points 100]
"""

from __future__ import annotations

import argparse
import os
import time

import common  # noqa: F401  (thread pins before NumPy)

from common import table

TEMPLATES = ["sin({a}*x)*exp(y/{a})", "log(1 + {a}*x**2) + y", "tanh({a}*x - y)*x", "sigmoid({a}*x)*y**2",
             "sqrt({a} + x**2 + y**2)", "atan2(y, {a} + x**2)", "exp(-{a}*(x**2 + y**2))", "x*y/({a} + x**2)",
             "softplus({a}*x)*cos(y)", "erf(x/{a})*y"]
METHODS = ("autograd", "fd", "reference")


def cases(count):
    from diffcompare.auditing.suite import Case
    return [Case(f"case {k}", expression=TEMPLATES[k % len(TEMPLATES)].format(a=1 + k // len(TEMPLATES)),
                 domain={"x": (-2.0, 2.0), "y": (-1.5, 1.5)}) for k in range(count)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--points", type=int, default=100)
    args = parser.parse_args(argv)
    from sympy.core.cache import clear_cache

    from diffcompare.auditing.audit import run_cases
    suite = cases(args.cases)
    run_cases(suite[:2], points=2, adversarial=False)               # imports and caches warmed alike
    timings, reports = {}, {}
    for jobs in (1, 2, 1, 2):                                        # interleaved: load drifts hit both
        clear_cache()                     # each run starts cold, as a command does
        start = time.perf_counter()
        report = run_cases(suite, points=args.points, adversarial=False, jobs=jobs)
        elapsed = time.perf_counter() - start
        timings[jobs] = min(timings.get(jobs, elapsed), elapsed)
        reports[jobs] = report
    assert all(len(c.points) == args.points for c in reports[1].cases)
    one, two = timings[1], timings[2]
    stages = {}
    for case in reports[1].cases:
        for stage, seconds in case.seconds.items():
            stages[stage] = stages.get(stage, 0.0) + seconds
    wall = reports[1].seconds["wall"]             # the split is of that run's own wall time
    methods = sum(stages.get(m, 0.0) for m in METHODS)
    machinery = wall - methods
    rows = [["--jobs 1", f"{one:.1f} s", "1.00x"], ["--jobs 2", f"{two:.1f} s", f"{two / one:.2f}x"]]
    split = [[m, f"{stages.get(m, 0.0):.2f} s", f"{stages.get(m, 0.0) / wall:.0%}"] for m in METHODS]
    split += [[f"machinery: {s}", f"{stages[s]:.2f} s", f"{stages[s] / wall:.0%}"] for s in sorted(stages)
              if s not in METHODS]
    rest = machinery - sum(v for s, v in stages.items() if s not in METHODS)
    split.append(["machinery: set-up, scheduling, merging", f"{rest:.2f} s", f"{rest / wall:.0%}"])
    per_point = wall / (args.cases * args.points)
    text = table(f"Audit: {args.cases} cases x {args.points} points, one process against two",
                 ["run", "wall time", "relative to --jobs 1"], rows,
                 [f"{os.cpu_count()} cores; each case a 2-variable expression at {args.points} random points (no "
                  f"adversarial ones); best of two interleaved runs each",
                  f"target: --jobs 2 at most 0.65x --jobs 1; measured {two / one:.2f}x"])
    text += "\n" + table(f"Where the time of --jobs 1 goes ({per_point * 1e3:.2f} ms per point)",
                         ["stage", "time", "share of the wall time"], split,
                         [f"methods {methods / wall:.0%}, machinery {machinery / wall:.0%}"])
    return text


if __name__ == "__main__":
    main()

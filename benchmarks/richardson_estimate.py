"""Richardson's own error estimate against its true error, on random smooth functions.

The corpus is verdict_quality's well-posed generator (random expressions of two or three
variables, every value and derivative tame at the point); the true error of each partial
is measured against the exact gradient by mpmath dual numbers at 60 digits, code that
shares nothing with the tool. Goal (issue 15): the estimate bounds the true error in at
least 95 % of the partials and is within 100x of it in at least 90 %. Where the true error
is under one ulp of the derivative (f linear in that variable, say: then the differences
are exact), every estimate bounds it and none can be within 100x of 0: those partials are
counted apart.

Run: python benchmarks/richardson_estimate.py [--functions N] [--seed S]
"""

from __future__ import annotations

import argparse
import random

import common  # noqa: F401  (thread pins before NumPy)
import mpmath
import numpy as np
from common import table
from verdict_quality import text, well_posed_corpus

from diffcompare.methods.entries import fd_entries
from diffcompare.problem.points import single
from diffcompare.problem.problem import make_problem
from diffcompare.problem.tasks import make_task

GOAL_BOUNDS, GOAL_WITHIN = 0.95, 0.90


def measure(functions: int, seed: int) -> dict:
    true, estimate, floor = [], [], []
    for tree, variables, point, exact in well_posed_corpus(random.Random(seed), functions):
        problem = make_problem(text(tree), point)
        e = fd_entries(problem, make_task(problem, "gradient"), single(problem), "richardson", batches=0)
        if not e.has_values:
            continue
        for k in range(len(variables)):
            value = float(e.values[0, k])
            true.append(float(abs(mpmath.mpf(value) - exact.grad[k])))
            estimate.append(float(e.details["error_estimate"][0, k]))
            floor.append(float(np.spacing(abs(float(exact.grad[k])))))
    true, estimate, floor = map(np.array, (true, estimate, floor))
    real = true > floor
    return {"partials": len(true), "exact": int((~real).sum()),
            "bounds": float((estimate[real] >= true[real]).mean()),
            "within": float((estimate[real] <= 100 * true[real]).mean()),
            "bounds_all": float((estimate >= true).mean()),
            "median_ratio": float(np.median(estimate[real] / true[real]))}


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", type=int, default=400, help="random functions per seed (default 400)")
    parser.add_argument("--seed", type=int, nargs="+", default=[11, 12], help="corpus seeds (default 11 12)")
    args = parser.parse_args(argv)
    rows = []
    for seed in args.seed:
        m = measure(args.functions, seed)
        rows.append([seed, m["partials"], f"{m['exact']} ({m['exact'] / m['partials']:.0%})",
                     f"{m['bounds']:.1%}", f"{m['within']:.1%}", f"{m['median_ratio']:.1f}x",
                     f"{m['bounds_all']:.1%}"])
    return table("Richardson's error estimate against its true error (random smooth functions)",
                 ["seed", "partials", "true error under 1 ulp", "estimate bounds the error",
                  "within 100x", "median estimate / error", "bounds (all partials)"], rows,
                 notes=[f"goal: bounds at least {GOAL_BOUNDS:.0%}, within 100x at least {GOAL_WITHIN:.0%}, over the "
                        "partials whose error is at least one ulp of the derivative",
                        "estimate: 2u · max|f| over the six samples · Σ|weights| / h (the samples' rounding through "
                        "the stencil) + 1e-3 × |value − best fourth-order extrapolation| (that gap is the "
                        "fourth-order value's error; calibrated on seed 7, measured here on other seeds)",
                        "the estimate it replaces, the gap alone, bounded 84 % and was within 100x in 78 % on "
                        "seed 7 (exp(x)·cos(3x) at 0.4: 9.1e-11 for a true 7.2e-15; now 2.0e-13)"])


if __name__ == "__main__":
    main()

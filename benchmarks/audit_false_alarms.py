"""The audit's false alarms: random well-posed functions (every backward rule right, from
verdict_quality's generator), audited at random and adversarial points of [-2, 2] in
float64 and in float32. Every "autograd is wrong" is a false alarm; the other verdicts
(FD unreliable, undefined here, a kink, loses accuracy to rounding) are counted beside.

Run: python benchmarks/audit_false_alarms.py [--functions N] [--seed S]
"""

from __future__ import annotations

import argparse
import collections
import random
import time

import common  # noqa: F401  (thread pins before NumPy)
import verdict_quality as vq
from common import table

import diffcompare


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", type=int, default=100)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    corpus = vq.well_posed_corpus(random.Random(args.seed), args.functions)
    rows, notes = [], []
    start = time.perf_counter()
    for dtype in ("float64", "float32"):
        counts, wrong_cases, examples = collections.Counter(), 0, []
        for tree, variables, point, exact in corpus:
            report = diffcompare.audit(vq.text(tree), domain={v: (-2.0, 2.0) for v in variables}, random=5, seed=1,
                                       dtype=dtype)
            case = report.cases[0]
            counts.update(p.verdict for p in case.points)
            wrong = [p for p in case.points if p.verdict == "autograd is wrong"]
            wrong_cases += bool(wrong)
            examples += [f"{vq.text(tree)} at {p.point} ({dtype}): {p.reason}" for p in wrong[:1]]
        total = sum(counts.values())
        rows.append((dtype, f"{wrong_cases} of {len(corpus)}", f"{100 * wrong_cases / len(corpus):.1f} %",
                     f"{counts['autograd is wrong']} of {total}", counts["autograd loses accuracy to rounding"],
                     counts["FD is unreliable here"], counts["undefined here"],
                     counts["non-differentiable point: disagreement expected"]))
        notes += [f"e.g. {e}" for e in examples[:3]]
    notes = ["goal: 'autograd is wrong' on at most 0.2 % of the functions in float64, 2 % in float32",
             f"{args.functions} functions (seed {args.seed}), 5 random points each plus the audit's adversarial "
             f"and kink points; {time.perf_counter() - start:.0f} s"] + notes
    return table("Audit: false alarms on random well-posed functions (every rule right)",
                 ("dtype", "functions with 'autograd is wrong'", "rate", "points", "loses accuracy to rounding",
                  "FD unreliable", "undefined here", "kinks"), rows, notes)


if __name__ == "__main__":
    main()

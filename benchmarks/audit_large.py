"""Audits of functions of many inputs: the full gradient or Jacobian checked entry by entry
against SymPy's exact derivative, against the check along random directions (uᵀJv
against mpmath's directional derivative) that an audit uses above 256 entries; wall time
per point in the same run, both routes forced at the sizes where both can run. And a
wrong rule in one entry of 1,000: found, and narrowed down to that entry.

Run: python benchmarks/audit_large.py [--points 3]
"""

from __future__ import annotations

import argparse
import time

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np

from common import table

FUNCTIONS = {
    "convolution (1-D, 3 taps) then tanh": "sum(tanh(0.25*x[:-2] + 0.5*x[1:-1] + 0.25*x[2:]))",
    "normalisation layer (Jacobian)": "(x - mean(x)) / sqrt(mean((x - mean(x))**2) + 0.00001)",
    "softplus x tanh": "sum(softplus(x) * tanh(x))",
}


def _audit(expression, n, points, directional):
    from diffcompare import audit
    from diffcompare.auditing import directional as route
    saved = route.FULL_ENTRIES
    route.FULL_ENTRIES = 0 if directional else 10 ** 9
    try:
        check = "jacobian" if not expression.startswith("sum(") else "gradient"
        start = time.perf_counter()
        report = audit(expression, domain={"x": (-2, 2)}, shape={"x": [n]}, points=points, adversarial=False,
                       check=check, seed=1)
        return (time.perf_counter() - start) / points, report.cases[0]
    finally:
        route.FULL_ENTRIES = saved


def _wrong_rule(n):
    from diffcompare import audit
    from diffcompare import autograd as ag

    class OneWrong(ag.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return (x * x).sum()

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            scale = np.ones(x.shape[0])
            scale[n // 3] = 1.001
            return grad * 2 * x * ag.tensor(scale)
    start = time.perf_counter()
    report = audit(OneWrong, domain={"x": (0.5, 2)}, shape={"x": [n]}, points=1, adversarial=False)
    point = report.cases[0].points[0]
    named = point.reason.split("narrowed down along direction ")[-1]
    return time.perf_counter() - start, point.verdict, named.count("∂(uᵀf)/∂x["), f"x[{n // 3}]" in named


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=3)
    args = parser.parse_args(argv)
    _audit("sum(x*x)", 8, 1, True)                          # imports warmed
    rows = []
    for name, expression in FUNCTIONS.items():
        sizes = (50, 100) if "Jacobian" in name else (100, 200)
        for n in sizes:
            full, directional = [], []
            for _ in range(2):                              # interleaved rounds: load drifts hit both
                full.append(_audit(expression, n, args.points, False))
                directional.append(_audit(expression, n, args.points, True))
            t_full = min(t for t, _ in full)
            t_dir = min(t for t, _ in directional)
            statuses = f"{full[0][1].status} / {directional[0][1].status}"
            rows.append([name, n, f"{t_full:.2f} s", f"{t_dir:.2f} s", f"{t_dir / t_full:.2f}x", statuses])
        t_big, case = _audit(expression, 1000, args.points, True)
        rows.append([name, 1000, "not run (minutes: SymPy's derivative entry by entry)", f"{t_big:.2f} s", "—",
                     case.status])
    seconds, verdict, named, right = _wrong_rule(1000)
    text = table("Audits of many inputs: every entry against random directions (seconds per point)",
                 ["function", "n", "every entry", "2 directions", "directions / every entry", "verdicts"], rows,
                 [f"{args.points} random points in [-2, 2]^n, no adversarial points; best of two interleaved rounds",
                  f"a wrong rule in one entry of 1,000 (its gradient 0.1 % off): '{verdict}' in {seconds:.1f} s, "
                  f"narrowed down to {named} entr{'y' if named == 1 else 'ies'}"
                  f"{', the wrong one' if right and named == 1 else ''}",
                  "undecided: the exact reference entry by entry ran out of its 10 s budget",
                  "target: a function of a 1,000-element array audited in seconds, not minutes"])
    return text


if __name__ == "__main__":
    main()

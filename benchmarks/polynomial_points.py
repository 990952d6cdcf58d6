"""Gradient of a polynomial at 100,000 points: the engine against PyTorch eager and the
NumPy forward alone, interleaved rounds in one process, medians. Target (issue 17): no
slower than PyTorch. Integer powers are multiplied out as PyTorch's CPU kernel does (x**3
is x*x*x): np.power(x, 3) costs about a hundred times more.

Run: python benchmarks/polynomial_points.py [--points N] [--rounds R]
"""

from __future__ import annotations

import argparse
import statistics
import time

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np
from common import load_torch, table

from diffcompare import autograd as ag

TEXT = "x**3 + 2*x**2*y - y**3/3 + x*y"


def f(x, y):
    return x ** 3 + 2 * x ** 2 * y - y ** 3 / 3 + x * y


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=21)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    xs, ys = rng.uniform(-2, 2, args.points), rng.uniform(-2, 2, args.points)
    torch = load_torch()

    def engine():
        x, y = ag.tensor(xs, requires_grad=True), ag.tensor(ys, requires_grad=True)
        f(x, y).sum().backward()

    def forward():
        f(xs, ys)

    runs = {"diffcompare.autograd (forward + backward)": engine, "NumPy forward alone": forward}
    if torch is not None:
        def eager():
            x, y = torch.tensor(xs, requires_grad=True), torch.tensor(ys, requires_grad=True)
            f(x, y).sum().backward()
        runs[f"PyTorch {torch.__version__} eager (forward + backward)"] = eager
    for run in runs.values():
        run()
    times = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    mine = times["diffcompare.autograd (forward + backward)"]
    rows = [[name, f"{statistics.median(t) * 1e3:.2f} ms",
             f"{statistics.median([m / o for m, o in zip(mine, t)]):.2f}x"] for name, t in times.items()]
    return table(f"Gradient of {TEXT} at {args.points:,} points (same run)",
                 ["what", "median time", "engine / this"], rows,
                 notes=[f"{args.rounds} interleaved rounds, one BLAS thread; target: the engine no slower than "
                        "PyTorch eager (engine / PyTorch at most 1)"])


if __name__ == "__main__":
    main()

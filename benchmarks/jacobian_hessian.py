"""Jacobians and Hessians by a batched backward: the engine's
``functional.jacobian/hessian(vectorize=True)`` (one backward over a batch of seeds) against
its own row-by-row loop and PyTorch's ``torch.autograd.functional`` with and without
``vectorize=True``, interleaved rounds in one process, medians. Target (issue 17): the
Hessian at n = 100 and n = 1000 and the Jacobian of a 100 -> 100 map no slower than
PyTorch's ``vectorize=True``.

Run: python benchmarks/jacobian_hessian.py [--rounds R] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np
from common import load_torch, table

from diffcompare import autograd as ag


def rosenbrock(x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def dense_scalar(a):
    """A scalar function with a dense Hessian: tanh(A x)² summed, plus mean(exp(x))."""
    return lambda x: (a @ x).tanh().pow(2).sum() + x.exp().mean()


def dense_map(a):
    """A 100 -> 100 map with a dense Jacobian: tanh(A x) * sin(x)."""
    return lambda x: (a @ x).tanh() * x.sin()


def workloads(quick):
    rng = np.random.default_rng(0)
    sizes = (100,) if quick else (100, 1000)
    out = []
    for n in sizes:
        x = rng.uniform(-1, 1, n)
        a = rng.normal(size=(n, n)) / np.sqrt(n)
        out.append((f"Hessian of Rosenbrock, n = {n}", "hessian", rosenbrock, None, x))
        out.append((f"Hessian of tanh(Ax)² + mean(exp x), n = {n}", "hessian", dense_scalar, a, x))
    n = 100
    a = rng.normal(size=(n, n)) / np.sqrt(n)
    out.append(("Jacobian of tanh(Ax) * sin(x), 100 -> 100", "jacobian", dense_map, a, rng.uniform(-1, 1, n)))
    return out


def runners(kind, make, a, x, torch):
    f_engine = make(ag.tensor(a)) if a is not None else make
    runs = {
        "engine vectorize=True": lambda: getattr(ag.functional, kind)(f_engine, ag.tensor(x), vectorize=True),
        "engine row by row": lambda: getattr(ag.functional, kind)(f_engine, ag.tensor(x)),
    }
    if torch is not None:
        f_torch = make(torch.tensor(a)) if a is not None else make
        fn = getattr(torch.autograd.functional, kind)
        runs["PyTorch vectorize=True"] = lambda: fn(f_torch, torch.tensor(x), vectorize=True)
        runs["PyTorch row by row"] = lambda: fn(f_torch, torch.tensor(x))
    return runs


def check(runs):
    """Every way gives the same matrix (to rounding) before anything is timed."""
    values = {name: run().detach().numpy() for name, run in runs.items()}
    first = values["engine vectorize=True"]
    for name, v in values.items():
        np.testing.assert_allclose(v, first, rtol=1e-9, atol=1e-12, err_msg=name)


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--quick", action="store_true", help="n = 100 only, 3 rounds")
    args = parser.parse_args(argv)
    rounds = 3 if args.quick else args.rounds
    torch = load_torch()
    if torch is not None:
        torch.set_default_dtype(torch.float64)
    rows = []
    for title, kind, make, a, x in workloads(args.quick):
        runs = runners(kind, make, a, x, torch)
        check(runs)
        slow = len(x) >= 1000
        times = {name: [] for name in runs}
        for _ in range(max(3, rounds // 3) if slow else rounds):
            for name, run in runs.items():
                if slow and "row by row" in name and times[name]:
                    continue              # n backward passes at n = 1000: one round is enough
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)
        mine = statistics.median(times["engine vectorize=True"])
        cells = [f"{statistics.median(times[name]) * 1e3:.2f} ms" for name in runs]
        ratios = [f"{mine / statistics.median(times[name]):.2f}x" for name in runs if name != "engine vectorize=True"]
        rows.append([title] + cells + ratios)
    names = list(runners("hessian", rosenbrock, None, np.zeros(2), torch))
    header = ["workload"] + [f"{n}" for n in names] + [f"engine vectorized / {n}" for n in names[1:]]
    return table("Jacobians and Hessians: one batched backward against a loop of backward passes (same run)",
                 header, rows,
                 notes=[f"{rounds} interleaved rounds (n = 1000: fewer; the row-by-row loops once), one BLAS/torch "
                        "thread, medians; float64 throughout; every way checked to give the same matrix first",
                        "target: engine vectorized / PyTorch vectorize=True at most 1 for every workload"])


if __name__ == "__main__":
    main()

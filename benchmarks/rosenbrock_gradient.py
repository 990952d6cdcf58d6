"""Gradient of the n-dimensional Rosenbrock function, against the pure-NumPy forward in
the same run; a hand-written NumPy gradient and PyTorch (when installed) for context.

    f(x) = sum(100 (x[1:] - x[:-1]^2)^2 + (1 - x[:-1])^2)

Run: python benchmarks/rosenbrock_gradient.py [--sizes 100000 1000000]

Large-array timings depend on the C allocator: glibc returns freed memory to the system at
once, so every repetition that allocates many large arrays pays fresh page faults (the
NumPy forward itself varies 3-5x with it). Both allocator settings are measured, each in a
fresh process: the system's default, and the one the command line runs with (freed memory
kept for reuse, diffcompare/cli/allocator.py). Target (issue 17): at most 3x the NumPy
forward as the CLI runs, aiming for 2x; PyTorch eager about 7x.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np
from common import load_torch, ratio, table


def rosenbrock(x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def numpy_forward(x):
    return np.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def numpy_gradient(x):
    a, b = x[:-1], x[1:]
    d = b - a * a
    g = np.zeros_like(x)
    g[1:] += 200 * d
    g[:-1] += -400 * d * a - 2 * (1 - a)
    return g


def measure(n, who, rounds=41):
    """Ratios to the NumPy forward, all timed in this process: each round times one call of
    every way (interleaved, as a program alternates its work, so that what one call frees
    is not simply taken again by the same call), after two warm-up rounds; the medians of
    the rounds' ratios. ``who``: "engine" (with the hand-written gradient) or "torch", each
    in a process of its own (PyTorch's allocations would change what glibc keeps)."""
    x = np.random.default_rng(0).uniform(-2, 2, n)
    runs = {"forward": lambda: numpy_forward(x)}
    if who == "engine":
        from diffcompare import autograd as ag

        def engine():
            t = ag.from_numpy(x).requires_grad_()
            rosenbrock(t).backward()
            return t.grad

        check = engine().numpy()
        assert np.allclose(check, numpy_gradient(x), rtol=1e-12, atol=1e-9), "engine gradient is wrong"
        runs.update(engine=engine, hand=lambda: numpy_gradient(x))
    else:
        torch = load_torch()
        if torch is None:
            return {}

        def pytorch():
            t = torch.from_numpy(x).requires_grad_()
            rosenbrock(t).backward()
            return t.grad
        runs["torch"] = pytorch
    times = {name: [] for name in runs}
    for round_ in range(rounds + 2):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            if round_ >= 2:                # two warm-up rounds
                times[name].append(time.perf_counter() - start)
    base = times["forward"]
    result = {"numpy_forward_ms": statistics.median(base) * 1e3}
    for name in runs:
        if name != "forward":
            result[name] = statistics.median([t / b for t, b in zip(times[name], base)])
            result[name + "_ms"] = statistics.median(times[name]) * 1e3
    return result


def child(n, who, as_cli):
    extra = ["--as-cli"] if as_cli else []
    out = subprocess.run([sys.executable, __file__, "--child", str(n), "--who", who] + extra, capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--who", default="engine", help=argparse.SUPPRESS)
    parser.add_argument("--as-cli", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        if args.as_cli:
            from diffcompare.cli.allocator import keep_freed_memory
            assert keep_freed_memory(), "this C library has no mallopt: the CLI's setting cannot be measured"
        print(json.dumps(measure(args.child, args.who)))
        return ""
    rows = []
    for n in args.sizes:
        for label, as_cli in (("system default", False), ("as the CLI runs (freed memory kept)", True)):
            r, t = child(n, "engine", as_cli), child(n, "torch", as_cli)
            rows.append([f"{n:,}", label, f"{r['numpy_forward_ms']:.3f} ms", f"{r['engine_ms']:.3f} ms",
                         ratio(r["engine"]), ratio(r["hand"]), ratio(t["torch"]) if t else "not installed"])
    return table("Rosenbrock gradient, time relative to the pure-NumPy forward (same process)",
                 ["n", "allocator", "NumPy forward", "engine's gradient", "diffcompare.autograd / NumPy forward",
                  "hand-written NumPy gradient / NumPy forward", "PyTorch eager / NumPy forward"], rows,
                 ["target: the engine's gradient at most 3x the NumPy forward as the CLI runs (aiming for 2x)",
                  "each cell is measured in a fresh process: 41 interleaved rounds of one call each, after 2 warm-up "
                  "rounds, medians of the per-round ratios; PyTorch in a process of its own (its allocations change "
                  "what glibc keeps); the engine's gradient is checked against the hand-written one first"])


if __name__ == "__main__":
    main()

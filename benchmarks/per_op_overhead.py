"""Per-operation overhead: forward + backward of a chain of 10,000 elementwise operations
on a one-element tensor, against PyTorch eager and a bare NumPy closure tape, same run.
Two chains: the mixed one (a scaling, a sine, a shift and a tanh, repeated) and 10,000
scalings y * c. Each round times every engine once, interleaved; the medians are
reported. Target (issue 17): at most 0.8x PyTorch eager on both.

With ``--baseline PATH`` the engine of another checkout (say the main branch's) runs the
same chains in the same rounds.

Run: python benchmarks/per_op_overhead.py [--rounds N] [--baseline PATH]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np

from common import baseline_commit, load_baseline, load_torch, micros, table
from diffcompare import autograd as ag

N = 10_000


def chain(x):
    """N elementwise ops: a sine, a scaling, a shift and a tanh, repeated."""
    y = x
    for _ in range(N // 4):
        y = (y * 1.0001).sin() + 0.5
        y = y.tanh()
    return y


def scalings(x):
    """N scalings y * c."""
    y = x
    for _ in range(N):
        y = y * 1.0001
    return y


def engine_step(lib, dtype, build=chain):
    def step():
        x = lib.tensor([0.3], requires_grad=True, dtype=dtype)
        build(x).sum().backward()
    return step


def numpy_tape_step():
    """The least a reverse-mode tape can do in Python: closures over NumPy arrays."""
    def step():
        tape = []
        y = np.array([0.3])
        for _ in range(N // 4):
            a = y * 1.0001
            tape.append(lambda g: g * 1.0001)
            b = np.sin(a)
            tape.append(lambda g, a=a: g * np.cos(a))
            c = b + 0.5
            tape.append(lambda g: g)
            y = np.tanh(c)
            tape.append(lambda g, y=y: g * (1 - y * y))
        g = np.ones(1)
        for back in reversed(tape):
            g = back(g)
        return g
    return step


def _once(step) -> float:
    start = time.perf_counter()
    step()
    return (time.perf_counter() - start) / N


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (default 15)")
    parser.add_argument("--baseline", metavar="PATH",
                        help="a checkout whose engine runs beside this one (say the main branch's)")
    args = parser.parse_args(argv)
    torch = load_torch()
    baseline = load_baseline(args.baseline) if args.baseline else None
    steps = {}
    for name, build in (("mixed", chain), ("y * c", scalings)):
        steps[(name, "diffcompare.autograd")] = engine_step(ag, ag.float64, build)
        if baseline is not None:
            steps[(name, f"baseline engine (commit {baseline_commit(args.baseline)})")] = engine_step(baseline, baseline.float64, build)
        if torch is not None:
            steps[(name, f"PyTorch {torch.__version__} eager")] = engine_step(torch, torch.float64, build)
    steps[("mixed", "bare NumPy closure tape")] = numpy_tape_step()
    for step in steps.values():         # warm up
        step()
    times = {key: [] for key in steps}
    gc.collect()
    for _ in range(args.rounds):
        for key, step in steps.items():
            times[key].append(_once(step))
    rows, notes = [], []
    for chain_name in ("mixed", "y * c"):
        mine = times[(chain_name, "diffcompare.autograd")]
        for (name, engine), t in times.items():
            if name != chain_name:
                continue
            ratios = [m / o for m, o in zip(mine, t)]
            rows.append([chain_name, engine, micros(statistics.median(t)),
                         "1.00x" if engine == "diffcompare.autograd" else
                         f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}–{max(ratios):.2f})"])
    if torch is None:
        notes.append("PyTorch not installed: install the `torch` extra for the comparison")
    notes.append(f"{args.rounds} interleaved rounds of one chain each; medians. Target: the engine at most 0.8x "
                 "PyTorch eager's time on both chains (engine / other below 1 means the engine is faster)")
    return table("Per-operation overhead (forward + backward, one-element float64 tensor, 10,000-op chains)",
                 ["chain", "engine", "per op (median)", "diffcompare / this"], rows, notes)


if __name__ == "__main__":
    main()

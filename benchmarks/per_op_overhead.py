"""Per-operation overhead: forward + backward of a chain of 10,000 elementwise operations
on a one-element tensor, against PyTorch eager and a bare NumPy closure tape, same run.

Run: python benchmarks/per_op_overhead.py
"""

from __future__ import annotations

import gc

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np

from common import best_time, load_torch, micros, ratio, table
from diffcompare import autograd as ag

N = 10_000


def chain(x):
    """N elementwise ops: a sine, a scaling, a shift and a tanh, repeated."""
    y = x
    for _ in range(N // 4):
        y = (y * 1.0001).sin() + 0.5
        y = y.tanh()
    return y


def engine_step(lib, dtype):
    def step():
        x = lib.tensor([0.3], requires_grad=True, dtype=dtype)
        chain(x).sum().backward()
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


def main():
    torch = load_torch()
    rows = []
    gc.collect()
    t_engine = best_time(engine_step(ag, ag.float64), repeat=5) / N
    t_tape = best_time(numpy_tape_step(), repeat=5) / N
    rows.append(["diffcompare.autograd", micros(t_engine), "1.00x"])
    rows.append(["bare NumPy closure tape", micros(t_tape), ratio(t_tape / t_engine)])
    notes = []
    if torch is not None:
        t_torch = best_time(engine_step(torch, torch.float64), repeat=5) / N
        rows.append([f"PyTorch {torch.__version__} eager", micros(t_torch), ratio(t_torch / t_engine)])
        notes.append(f"target: the engine no slower than PyTorch eager; measured PyTorch/engine = "
                     f"{t_torch / t_engine:.2f} (above 1 means the engine is faster)")
    else:
        notes.append("PyTorch not installed: install the `torch` extra for the comparison")
    return table("Per-operation overhead (forward + backward, one-element float64 tensor, 10,000-op chain)",
                 ["engine", "per op", "relative to diffcompare"], rows, notes)


if __name__ == "__main__":
    main()

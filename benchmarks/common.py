"""Shared set-up for the benchmarks: one BLAS thread, timing by best of repeats, PyTorch
when it is installed, and a results file.

Import this module before NumPy: the thread pins only take effect before BLAS loads.
Every number a benchmark reports is a ratio against a baseline timed in the same run, on
the same data: these machines are shared and noisy, absolute times are not comparable.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout too

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def load_torch():
    """PyTorch pinned to one thread, or None when it is not installed."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def best_time(func, repeat=7, min_time=0.05):
    """The best per-call time of ``func`` over ``repeat`` rounds of enough calls to last
    ``min_time`` seconds (as timeit does): the least disturbed measurement."""
    calls, elapsed = 1, 0.0
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            func()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time or calls >= 1 << 20:
            break
        calls *= 2
    best = elapsed / calls
    for _ in range(repeat - 1):
        start = time.perf_counter()
        for _ in range(calls):
            func()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def table(title, header, rows, notes=()):
    """Print a Markdown table and return it (run_all collects them into RESULTS.md)."""
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    if notes:
        lines += [""] + [f"- {n}" for n in notes]
    text = "\n".join(lines) + "\n"
    print(text)
    return text


def ratio(x):
    return f"{x:.2f}x"


def micros(seconds):
    return f"{seconds * 1e6:.2f} µs"

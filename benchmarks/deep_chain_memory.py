"""A chain of 1,000,000 operations backpropagates (no recursion anywhere), and the arrays
saved for backward are freed by a backward without retain_graph. The cyclic garbage
collector's share of the forward: the engine pauses it while a large graph grows
(autograd/collector.py); the same forward with the pause switched off, and with the
collector off altogether, are timed beside it. Target (issue 17): the collector at most 10 %
of the forward.

Run: python benchmarks/deep_chain_memory.py [--ops N]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
import tracemalloc

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np
from common import table

from diffcompare import autograd as ag
from diffcompare.autograd import collector


def rss_mib():
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    import resource
    return pages * resource.getpagesize() / 2 ** 20


def deep_chain(n_ops):
    x = ag.tensor([0.5], requires_grad=True)
    start = time.perf_counter()
    y = x
    for _ in range(n_ops // 2):
        y = (y * 0.999999).sin()   # both ops save a tensor: the graph holds n_ops saved values
    forward = time.perf_counter() - start
    rss_graph = rss_mib()
    start = time.perf_counter()
    y.backward()
    backward = time.perf_counter() - start
    return forward, backward, rss_graph, float(x.grad.item())


def saved_memory(n_ops=400, size=20_000):
    """MiB held by NumPy arrays: after forward, after backward(retain_graph=True), after a
    final backward() that frees the saved tensors (tracemalloc sees NumPy's allocations)."""
    gc.collect()
    tracemalloc.start()
    x = ag.tensor(np.linspace(0.1, 1.0, size), requires_grad=True)
    base = tracemalloc.get_traced_memory()[0]
    y = x
    for _ in range(n_ops // 2):
        y = (y * 0.999).sin()
    loss = y.sum()
    after_forward = tracemalloc.get_traced_memory()[0] - base
    loss.backward(retain_graph=True)
    after_retained = tracemalloc.get_traced_memory()[0] - base
    loss.backward()
    after_freed = tracemalloc.get_traced_memory()[0] - base
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    mib = 2 ** 20
    return after_forward / mib, after_retained / mib, after_freed / mib, peak / mib, size * 8 * (n_ops // 2) / mib


def forward_only(n_ops):
    x = ag.tensor([0.5], requires_grad=True)
    start = time.perf_counter()
    y = x
    for _ in range(n_ops // 2):
        y = (y * 0.999999).sin()
    elapsed = time.perf_counter() - start
    del y                       # released by reference counting, outside the timing
    return elapsed


def collector_share(n_ops, rounds=3):
    """Forward times, median of interleaved rounds: as the engine runs (pause on), with the
    pause switched off (the collector runs as Python sets it), and with the collector off."""
    times = {name: [] for name in ("collector off", "engine (paused while recording)", "pause switched off")}
    for _ in range(rounds):
        for name in times:
            gc.collect()
            if name == "collector off":
                gc.disable()
            collector.STATE.pausing = name != "pause switched off"
            try:
                times[name].append(forward_only(n_ops))
            finally:
                collector.STATE.pausing = True
                gc.enable()
    return {name: statistics.median(t) for name, t in times.items()}


def measure(n_ops):
    """Everything timed here, in this (fresh) process: the RSS is the graph's, not earlier work's."""
    forward, backward, rss_graph, grad = deep_chain(n_ops)
    return {"forward": forward, "backward": backward, "rss": rss_graph, "grad": grad,
            "shares": collector_share(n_ops)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ops", type=int, default=1_000_000, help="length of the deep chain (default 1,000,000)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.ops)))
        return ""
    out = subprocess.run([sys.executable, __file__, "--child", "--ops", str(args.ops)], capture_output=True,
                         text=True, check=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    forward, backward, rss_graph, grad, shares = (result[k] for k in ("forward", "backward", "rss", "grad", "shares"))
    off = shares["collector off"]
    gc_rows = [[name, f"{t:.2f} s", f"{max(0.0, (t - off) / t) * 100:.0f} %"] for name, t in shares.items()]
    deep = table(f"A chain of {args.ops:,} operations",
                 ["forward", "backward", "per op (fwd + bwd)", "process RSS with the graph", "x.grad finite"],
                 [[f"{forward:.2f} s", f"{backward:.2f} s", f"{(forward + backward) / args.ops * 1e6:.2f} µs",
                   f"{rss_graph:.0f} MiB", str(np.isfinite(grad))]],
                 ["the walk is a loop over nodes in reverse creation order: no RecursionError at any depth"])
    fwd, kept, freed, peak, saved = saved_memory()
    mem = table("Saved arrays are freed by backward (400 ops on 20,000-element tensors)",
                ["held after forward", "after backward(retain_graph=True)", "after backward()", "peak",
                 "size of the saved arrays (sin saves its input; x * c only c)"],
                [[f"{fwd:.1f} MiB", f"{kept:.1f} MiB", f"{freed:.1f} MiB", f"{peak:.1f} MiB", f"{saved:.1f} MiB"]],
                ["measured with tracemalloc, which sees NumPy's array allocations; what remains after "
                 "backward() is the outputs the user still holds and x.grad"])
    gc_table = table(f"The cyclic garbage collector's share of the forward ({args.ops:,}-op chain, same process)",
                     ["forward", "time", "collector's share (time above 'collector off')"], gc_rows,
                     ["3 interleaved rounds, medians, in a fresh process; target: the engine's row at most 10 %"])
    return deep + "\n" + gc_table + "\n" + mem


if __name__ == "__main__":
    main()

"""A chain of 1,000,000 operations backpropagates (no recursion anywhere), and the arrays
saved for backward are freed by a backward without retain_graph.

Run: python benchmarks/deep_chain_memory.py [--ops N]
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import common  # noqa: F401  (thread pins before NumPy)
import numpy as np

from common import table
from diffcompare import autograd as ag


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ops", type=int, default=1_000_000, help="length of the deep chain (default 1,000,000)")
    args = parser.parse_args(argv)
    forward, backward, rss_graph, grad = deep_chain(args.ops)
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
    return deep + "\n" + mem


if __name__ == "__main__":
    main()

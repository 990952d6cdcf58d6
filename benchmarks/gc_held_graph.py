"""A large graph held without calling backward, and the cyclic garbage collector.

Recording a large graph keeps it out of the collector's sight (autograd/collector.py): it
used to switch the collector off until a backward or the graph's release, so a program that
held a 100,000-node graph and went on making reference cycles kept every one of them. Now
the graph is frozen (``gc.freeze``) and the collector stays on.

Two measurements, each mode in a fresh process:

- memory: a graph of ``--nodes`` nodes is recorded and held, then the program makes
  ``--cycles`` reference cycles (each holding a 1 KiB payload) and drops them; what they
  still hold afterwards (tracemalloc) and the process's RSS growth;
- speed: the forward (and backward) of a ``--ops`` chain, 3 interleaved rounds, medians.

Modes: the engine as it is (graph frozen, collector on); the former behaviour, reproduced
by switching the collector off while the graph is held (what the pause did); the pause
switched off altogether (``collector.STATE.pausing = False``: the collector scans the graph).

Run: python benchmarks/gc_held_graph.py [--nodes N] [--cycles N] [--ops N]
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
from common import table

from diffcompare import autograd as ag
from diffcompare.autograd import collector

MODES = ("engine (graph frozen, collector on)", "former (collector off while held)", "pause switched off")


def rss_mib():
    import resource
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2 ** 20


def _chain(n):
    x = ag.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(n // 2):
        y = (y * 0.999999).sin()
    return x, y


def _set_mode(mode):
    collector.STATE.pausing = mode != MODES[2]
    if mode == MODES[1]:
        gc.disable()


def _reset():
    collector.resume()
    collector.STATE.pausing = True
    gc.enable()


def held_memory(mode, nodes, cycles):
    """MiB that dropped cycles still hold while a graph of ``nodes`` nodes is held, and the
    growth of the process's RSS over that phase."""
    gc.collect()
    _set_mode(mode)
    x, y = _chain(nodes)
    rss_before = rss_mib()
    tracemalloc.start()
    for _ in range(cycles):
        a, b = {}, {}
        a["other"], b["other"] = b, a
        a["payload"] = bytes(1024)
    del a, b
    held = tracemalloc.get_traced_memory()[0] / 2 ** 20
    tracemalloc.stop()
    rss_growth = rss_mib() - rss_before
    grad_fn_alive = y.grad_fn is not None
    _reset()
    return {"held": held, "rss": rss_growth, "graph": grad_fn_alive}


def speed(n_ops, rounds=3):
    """Forward and backward times per mode, medians of interleaved rounds."""
    times = {mode: ([], []) for mode in MODES}
    for _ in range(rounds):
        for mode in MODES:
            gc.collect()
            _set_mode(mode)
            try:
                start = time.perf_counter()
                x, y = _chain(n_ops)
                middle = time.perf_counter()
                y.backward()
                end = time.perf_counter()
            finally:
                _reset()
            del x, y
            times[mode][0].append(middle - start)
            times[mode][1].append(end - middle)
    return {mode: [statistics.median(f), statistics.median(b)] for mode, (f, b) in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=100_000, help="nodes of the held graph (default 100,000)")
    parser.add_argument("--cycles", type=int, default=100_000, help="cycles made while it is held (default 100,000)")
    parser.add_argument("--ops", type=int, default=400_000, help="length of the timed chain (default 400,000)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        result = speed(args.ops) if args.child == "speed" else held_memory(MODES[int(args.child)], args.nodes,
                                                                             args.cycles)
        print(json.dumps(result))
        return ""

    def child(which):
        out = subprocess.run([sys.executable, __file__, "--child", which, "--nodes", str(args.nodes), "--cycles",
                              str(args.cycles), "--ops", str(args.ops)], capture_output=True, text=True,
                             check=True).stdout
        return json.loads(out.strip().splitlines()[-1])

    memory = {mode: child(str(i)) for i, mode in enumerate(MODES)}
    former = memory[MODES[1]]
    mem_rows = [[mode, f"{m['held']:.1f} MiB", f"{m['rss']:.0f} MiB",
                 f"{m['held'] / former['held']:.3f}x" if former["held"] else "-"] for mode, m in memory.items()]
    mem = table(f"Cycles made while a {args.nodes:,}-node graph is held ({args.cycles:,} dropped cycles of 1 KiB)",
                ["mode", "still held after the cycles were dropped (tracemalloc)", "RSS growth", "/ former"],
                mem_rows, ["each mode in a fresh process; the graph is alive throughout"])
    times = child("speed")
    base_f, base_b = times[MODES[1]]
    speed_rows = [[mode, f"{f:.2f} s", f"{f / base_f:.2f}x", f"{b:.2f} s", f"{b / base_b:.2f}x"]
                  for mode, (f, b) in times.items()]
    fast = table(f"The forward and backward of a {args.ops:,}-op chain by mode (same process)",
                 ["mode", "forward", "/ former", "backward", "/ former"], speed_rows,
                 ["3 interleaved rounds, medians; target: the engine's forward within a few % of the former"])
    return mem + "\n" + fast


if __name__ == "__main__":
    main()

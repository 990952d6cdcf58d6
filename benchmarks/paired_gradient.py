"""One workload's gradient, engine against PyTorch eager call by call: each pair of calls
(engine, PyTorch; the order alternates) gives a ratio, and the median of those ratios is
reported, with the forward and the backward apart. On a shared machine whose speed drifts
within seconds, a ratio of two calls made a millisecond apart is steadier than a ratio of
two medians taken over rounds (``real_workloads.py``).

With ``--baseline PATH`` the same measurement runs in processes of this checkout and of the
other one, alternately (each process imports one engine only): the two engines' ratios to
PyTorch, side by side.

Run: python benchmarks/paired_gradient.py [--workload gmm] [--size small] [--calls 1000]
                                          [--processes 3] [--baseline PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(workload: str, size: str, calls: int) -> dict:
    """Median per-pair ratios (engine / PyTorch) of the forward, the backward and both, and
    the median times, in this process (the engine imported from ``sys.path``)."""
    import torch

    from diffcompare import autograd as ag
    from diffcompare.workloads import WORKLOADS
    torch.set_num_threads(1)
    module = WORKLOADS[workload]
    data = module.make_data(size, 0)

    consts = {ag: data.consts_for(ag.from_numpy), torch: data.consts_for(torch.from_numpy)}

    def once(engine, objective):       # (as real_workloads.py's engine_gradient and torch_gradient)
        params = [engine.from_numpy(p).requires_grad_() for p in data.params]
        start = time.perf_counter()
        value = objective(*params, **consts[engine])
        middle = time.perf_counter()
        value.backward()
        return middle - start, time.perf_counter() - middle

    ways = [(ag, module.objective_engine), (torch, module.objective_torch)]
    for way in ways:
        for _ in range(20):
            once(*way)
    rows = {"forward": [], "backward": [], "gradient": []}
    times = {"engine": [], "torch": []}
    for i in range(calls):
        order = ways if i % 2 else ways[::-1]
        got = {id(way[0]): once(*way) for way in order}
        (ef, eb), (tf, tb) = got[id(ag)], got[id(torch)]
        rows["forward"].append(ef / tf)
        rows["backward"].append(eb / tb)
        rows["gradient"].append((ef + eb) / (tf + tb))
        times["engine"].append(ef + eb)
        times["torch"].append(tf + tb)
    return {**{k: statistics.median(v) for k, v in rows.items()},
            **{f"{k} ms": 1e3 * statistics.median(v) for k, v in times.items()}}


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", default="gmm")
    parser.add_argument("--size", default="small")
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--processes", type=int, default=3, help="processes per checkout, alternating")
    parser.add_argument("--baseline", help="another checkout, measured in processes of its own")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.workload, args.size, args.calls)))
        return ""
    trees = [("this checkout", ROOT)] + ([("baseline", Path(args.baseline).resolve())] if args.baseline else [])
    results = {name: [] for name, _ in trees}
    for _ in range(args.processes):
        for name, tree in trees:
            environment = {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"}
            done = subprocess.run([sys.executable, __file__, "--child", "--workload", args.workload, "--size",
                                   args.size, "--calls", str(args.calls)], env=environment, capture_output=True,
                                  text=True, check=True, cwd=tree)
            results[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
    lines = [f"### {args.workload} ({args.size}): engine / PyTorch eager, median of per-call ratios",
             "", "| engine | forward | backward | gradient (each process) | engine ms | PyTorch ms |",
             "|---|---|---|---|---|---|"]
    for name, runs in results.items():
        lines.append(f"| {name} | {statistics.median(r['forward'] for r in runs):.3f} | "
                     f"{statistics.median(r['backward'] for r in runs):.3f} | "
                     f"{', '.join(format(r['gradient'], '.3f') for r in runs)} | "
                     f"{statistics.median(r['engine ms'] for r in runs):.3f} | "
                     f"{statistics.median(r['torch ms'] for r in runs):.3f} |")
    lines += ["", f"- {args.calls} pairs of calls a process, {args.processes} processes a checkout, alternating; "
              "one BLAS/torch thread"]
    text = "\n".join(lines) + "\n"
    print(text)
    return text


if __name__ == "__main__":
    main()

"""One workload's gradient, engine against PyTorch eager call by call: each pair of calls
(engine, PyTorch; the order alternates) gives a ratio, and the median of those ratios is
reported, with the forward and the backward apart. On a shared machine whose speed drifts
within seconds, a ratio of two calls made a millisecond apart is steadier than a ratio of
two medians taken over rounds (``real_workloads.py``).

With ``--baseline PATH`` the same measurement runs in processes of this checkout and of the
other one, alternately (each process imports one engine only): the two engines' ratios to
PyTorch, side by side.

Several workloads and sizes (``--workload gmm ba --size small medium``, or ``all``) give one
table; each process makes at most ``--calls`` pairs, fewer where a pair takes long (about
``--seconds`` a process).

Run: python benchmarks/paired_gradient.py [--workload gmm ...|all] [--size small ...]
                                          [--calls 1000] [--seconds 20] [--processes 3]
                                          [--baseline PATH]
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


def measure(workload: str, size: str, calls: int, seconds: float = 20.0) -> dict:
    """Median per-pair ratios (engine / PyTorch) of the forward, the backward and both, and
    the median times, in this process (the engine imported from ``sys.path``): ``calls``
    pairs, or as many as fit in about ``seconds``, at least 20."""
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
    for way in ways:            # the first calls (imports, caches) are not counted
        once(*way)
    start = time.perf_counter()
    for way in ways:
        for _ in range(3):
            once(*way)
    pair = (time.perf_counter() - start) / 3
    calls = max(20, min(calls, int(seconds / max(pair, 1e-9))))
    for way in ways:
        for _ in range(min(20, calls // 10)):
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
    return {"pairs": calls, **{k: statistics.median(v) for k, v in rows.items()},
            **{f"{k} ms": 1e3 * statistics.median(v) for k, v in times.items()}}


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workload", nargs="+", default=["gmm"], help="workload names, or all")
    parser.add_argument("--size", nargs="+", default=["small"], help="small, medium (each workload at each)")
    parser.add_argument("--calls", type=int, default=1000, help="pairs of calls a process, at most")
    parser.add_argument("--seconds", type=float, default=20.0, help="about this long a process, at most")
    parser.add_argument("--processes", type=int, default=3, help="processes per checkout, alternating")
    parser.add_argument("--baseline", help="another checkout, measured in processes of its own")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.workload[0], args.size[0], args.calls, args.seconds)))
        return ""
    from diffcompare.workloads import WORKLOADS
    workloads = list(WORKLOADS) if args.workload == ["all"] else args.workload
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload {', '.join(unknown)}: choose from {', '.join(WORKLOADS)} or all")
    trees = [("this checkout", ROOT)] + ([("baseline", Path(args.baseline).resolve())] if args.baseline else [])
    lines = ["### Engine / PyTorch eager per gradient, median of per-call ratios",
             "", "| workload | size | engine | forward | backward | gradient (each process) | engine ms | "
             "PyTorch ms | pairs |", "|---|---|---|---|---|---|---|---|---|"]
    for workload in workloads:
        for size in args.size:
            results = {name: [] for name, _ in trees}
            for _ in range(args.processes):
                for name, tree in trees:
                    environment = {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"}
                    done = subprocess.run([sys.executable, __file__, "--child", "--workload", workload, "--size",
                                           size, "--calls", str(args.calls), "--seconds", str(args.seconds)],
                                          env=environment, capture_output=True, text=True, check=True, cwd=tree)
                    results[name].append(json.loads(done.stdout.strip().splitlines()[-1]))
            for name, runs in results.items():
                line = (f"| {workload} | {size} | {name} | {statistics.median(r['forward'] for r in runs):.3f} | "
                        f"{statistics.median(r['backward'] for r in runs):.3f} | "
                        f"{', '.join(format(r['gradient'], '.3f') for r in runs)} | "
                        f"{statistics.median(r['engine ms'] for r in runs):.3f} | "
                        f"{statistics.median(r['torch ms'] for r in runs):.3f} | "
                        f"{min(r['pairs'] for r in runs)} |")
                lines.append(line)
                print(line, flush=True)
    lines += ["", f"- at most {args.calls} pairs of calls (about {args.seconds:g} s) a process, "
              f"{args.processes} processes a checkout, alternating; one BLAS/torch thread"]
    text = "\n".join(lines) + "\n"
    print(text)
    return text


if __name__ == "__main__":
    main()

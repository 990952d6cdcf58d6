"""How long pytest takes to collect the test suite (every test module imported, its asserts
rewritten, the doctests found), in this checkout and, with ``--baseline PATH``, in another
one: runs of ``python -m pytest --collect-only -q -n 0`` in a fresh process, the two
checkouts interleaved, medians and their ratio. Each pytest-xdist worker collects the whole
suite, so on the two workers of a two-CPU machine this time is paid twice over.

Run: python benchmarks/suite_collection_time.py [--baseline PATH] [--rounds 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def collect_seconds(tree: Path) -> float:
    """Wall seconds of one collection of ``tree``'s suite, in a process of its own."""
    environment = {**os.environ, "PYTHONPATH": str(tree), "CI": "true"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider"],
                          cwd=tree, env=environment, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"collection failed in {tree}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", help="another checkout, collected in turn with this one")
    parser.add_argument("--rounds", type=int, default=4, help="collections per checkout")
    args = parser.parse_args(argv)
    trees = [("this checkout", ROOT)] + ([("baseline", Path(args.baseline).resolve())] if args.baseline else [])
    times = {name: [] for name, _ in trees}
    for i in range(args.rounds):
        for name, tree in (trees if i % 2 == 0 else trees[::-1]):
            times[name].append(collect_seconds(tree))
    lines = ["### Collecting the test suite (pytest --collect-only, one process, interleaved)", "",
             "| checkout | runs (s) | median (s) |", "|---|---|---:|"]
    for name, runs in times.items():
        lines.append(f"| {name} | {', '.join(f'{t:.1f}' for t in runs)} | {statistics.median(runs):.1f} |")
    if args.baseline:
        ratio = statistics.median(times["this checkout"]) / statistics.median(times["baseline"])
        lines += ["", f"- this checkout / baseline: {ratio:.2f}"]
    text = "\n".join(lines) + "\n"
    print(text)
    return text


if __name__ == "__main__":
    main()

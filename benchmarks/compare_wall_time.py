"""Wall time of one `diffcompare compare` against the imports it cannot avoid.

`diffcompare compare "sin(x)*exp(y)" --at x=1,y=2` (every method, the exact reference,
the report) against `python -c "import sympy, numpy, rich"`, both as fresh processes,
interleaved round by round so that the machine's load hits both alike. Target: at most 2x.

Run: python benchmarks/compare_wall_time.py [--rounds N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import common
from common import table

COMMAND = ["compare", "sin(x)*exp(y)", "--at", "x=1,y=2"]


def wall(command, cwd, env=None):
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=cwd, env=env)
    return time.perf_counter() - start


def measure(rounds: int, checkout=None) -> tuple:
    """([seconds of each comparison], [seconds of each bare import]), interleaved; the
    installed command, or with ``checkout`` (a folder) that checkout's package."""
    import os
    exe = None if checkout else shutil.which("diffcompare")
    tool = [exe, *COMMAND] if exe else [sys.executable, "-m", "diffcompare.cli.main", *COMMAND]
    baseline = [sys.executable, "-c", "import sympy, numpy, rich"]
    env = {**os.environ, "PYTHONPATH": str(checkout)} if checkout else None
    with tempfile.TemporaryDirectory() as neutral:      # no checkout on the path: the installed package
        wall(tool, neutral, env)                        # warm the file cache
        tool_times, base_times = [], []
        for _ in range(rounds):
            base_times.append(wall(baseline, neutral, env))
            tool_times.append(wall(tool, neutral, env))
    return tool_times, base_times


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    tool_times, base_times = measure(args.rounds)
    ratios = [t / b for t, b in zip(tool_times, base_times)]
    rows = [["`diffcompare " + " ".join(COMMAND[:1]) + ' "sin(x)*exp(y)" --at x=1,y=2`',
             f"{statistics.median(tool_times):.2f} s", f"{statistics.median(base_times):.2f} s",
             f"{statistics.median(ratios):.2f}x", f"{min(ratios):.2f}–{max(ratios):.2f}x"]]
    return table("Wall time of one comparison", ["command", "median wall time", "import sympy, numpy, rich",
                                                 "ratio (median)", "ratio (range)"], rows,
                 notes=[f"{args.rounds} interleaved rounds, fresh processes; target: at most 2x.",
                        "The run includes every method, the exact reference, the accuracy bands and timing "
                        "by repetition (5 batches of at least 1 ms per method)."])


if __name__ == "__main__":
    main()

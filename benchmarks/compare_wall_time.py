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


def wall(command, cwd):
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=cwd)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    exe = shutil.which("diffcompare")
    tool = [exe, *COMMAND] if exe else [sys.executable, "-m", "diffcompare.cli.main", *COMMAND]
    baseline = [sys.executable, "-c", "import sympy, numpy, rich"]
    with tempfile.TemporaryDirectory() as neutral:      # no checkout on the path: the installed package
        wall(tool, neutral)                             # warm the file cache
        tool_times, base_times = [], []
        for _ in range(args.rounds):
            base_times.append(wall(baseline, neutral))
            tool_times.append(wall(tool, neutral))
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

"""Start-up time of ``diffcompare --help`` and the package's layout (modules and lines per
package), for this checkout and, with ``--before REV``, for an earlier revision checked
out beside it, measured in the same run.

Start-up is timed as whole processes, in interleaved rounds (median of each), against
a bare ``python -c pass`` started the same way: the ratio says what diffcompare adds.
Each run also records whether NumPy or SymPy were imported (they must not be).

Run: python benchmarks/startup_layout.py [--before REV] [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common  # noqa: F401  (thread pins, the checkout on sys.path)
from common import table

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import sys
{entry}
try:
    main(["--help"])
except SystemExit:
    pass
heavy = sorted(m for m in ("numpy", "sympy", "mpmath", "rich") if m in sys.modules)
sys.stderr.write("HEAVY " + ",".join(heavy) + "\\n")
"""


def entry_point(root: Path) -> str:
    """How a checkout's command line is started: the package's own, or the old top-level cli/."""
    if (root / "diffcompare" / "cli" / "main.py").exists():
        return "from diffcompare.cli.main import main"
    return "from cli.main import main"


def run(code: str, root: Path) -> tuple:
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "80"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    heavy = next((line[6:] for line in done.stderr.splitlines() if line.startswith("HEAVY ")), "?")
    return elapsed, heavy


def start_up(roots: dict, rounds: int) -> dict:
    """Median seconds of --help per checkout and of a bare interpreter, interleaved."""
    times = {name: [] for name in roots}
    times["python -c pass"] = []
    heavy = {}
    for _ in range(rounds):
        for name, root in roots.items():
            elapsed, heavy[name] = run(PROBE.format(entry=entry_point(root)), root)
            times[name].append(elapsed)
        times["python -c pass"].append(run("pass", ROOT)[0])
    return {name: statistics.median(t) for name, t in times.items()}, heavy


def layout(root: Path) -> list:
    """(package, modules, lines) for the library and its command line, largest module too."""
    rows = {}
    for path in sorted(root.glob("diffcompare/**/*.py")) + sorted(root.glob("cli/*.py")):
        package = str(path.parent.relative_to(root))
        modules, lines, largest = rows.get(package, (0, 0, (0, "")))
        n = len(path.read_text(encoding="utf-8").splitlines())
        rows[package] = (modules + 1, lines + n, max(largest, (n, path.name)))
    return [(package, *values) for package, values in rows.items()]


def checkout(rev: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="diffcompare-before-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), rev], cwd=ROOT, check=True,
                   capture_output=True)
    return folder


def main(argv=None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="REV", help="an earlier revision to measure beside this checkout")
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds (default 21)")
    args = parser.parse_args(argv)
    roots = {"this checkout": ROOT}
    before = checkout(args.before) if args.before else None
    if before:
        roots[f"before ({args.before})"] = before
    try:
        medians, heavy = start_up(roots, args.rounds)
        bare = medians["python -c pass"]
        rows = [(name, f"{medians[name] * 1e3:.1f} ms", f"{medians[name] / bare:.2f}x",
                 heavy.get(name) or "none") for name in medians]
        text = table("Start-up of `diffcompare --help` (median of interleaved process runs)",
                     ("what", "wall time", "relative to python -c pass", "heavy modules imported"), rows,
                     ["target: `diffcompare --help` imports neither NumPy nor SymPy"])
        for name, root in roots.items():
            text += "\n" + table(f"Layout of {name}: modules and lines per package",
                                 ("package", "modules", "lines", "largest module"),
                                 [(p, m, n, f"{big[1]} ({big[0]})") for p, m, n, big in layout(root)])
        return text
    finally:
        if before:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)


if __name__ == "__main__":
    main()

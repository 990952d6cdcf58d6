"""`diffcompare lecture` on several functions: the deck compiled by pdflatex (pages, the
widest overfull box, too-high frames, errors) and the time to prepare the lecture beside the
time of one `compare` of the same function (the lecture runs compare and six more pieces).

Run: python benchmarks/lecture_deck.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import common  # noqa: F401  (thread pins before NumPy)

from diffcompare.lecture.lecture import lecture
from diffcompare.pipeline.compare import compare

FUNCTIONS = [
    ("exp(x)/sqrt(sin(x)**3 + cos(x)**3)", {"x": 1.5}, None),            # Squire and Trapp
    ("64*x*(1-x)*(1-2*x)**2*(1-8*x+8*x**2)**2", {"x": 0.2}, None),        # Baydin et al.'s l4
    ("sin(x)*exp(y)", {"x": 1.0, "y": 0.5}, "y"),
    ("abs(x)", {"x": 0.0}, None),                                           # a kink
    ("log(1 + exp(x)) * tanh(x)**2 + sqrt(1 + x**2) / (1 + sin(x)**2) - atan(x)*cosh(x)/3 + erf(x)*sigmoid(x)",
     {"x": 0.7}, None),
    ("x*y*z + sin(x*y)/(1+z**2) + exp(-w**2)*x", {"x": 0.5, "y": 1.5, "z": -0.3, "w": 2.0}, "z"),
]
OVERFULL = re.compile(r"^Overfull \\([hv])box \(([\d.]+)pt too (?:wide|high)\)", re.M)


def measure_one(text, at, variable, folder: Path) -> dict:
    start = time.process_time()
    lec = lecture(text, at=at, variable=variable)
    seconds = time.process_time() - start
    start = time.process_time()
    compare(text, at=at, repeat=3)
    compare_seconds = time.process_time() - start
    (folder / "deck.tex").write_text(lec.render("latex"))
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "deck.tex"], cwd=folder,
                         capture_output=True, text=True, timeout=300)
    log = (folder / "deck.log").read_text(errors="replace")
    boxes = OVERFULL.findall(log)
    pages = re.search(r"Output written on deck\.pdf \((\d+) page", log)
    return {"function": text, "exit": lec.exit_status, "compiled": run.returncode == 0,
            "pages": int(pages.group(1)) if pages else 0,
            "wide": max((float(p) for kind, p in boxes if kind == "h"), default=0.0),
            "high": max((float(p) for kind, p in boxes if kind == "v"), default=0.0),
            "errors": log.count("\n! "), "seconds": seconds, "ratio": seconds / compare_seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", metavar="DIR", help="keep each deck's .tex, .log and .pdf in DIR")
    args = parser.parse_args(argv)
    if shutil.which("pdflatex") is None:
        print("pdflatex is not installed: nothing to measure")
        return 1
    rows = []
    for k, (text, at, variable) in enumerate(FUNCTIONS):
        folder = Path(args.keep) / f"deck{k}" if args.keep else Path(tempfile.mkdtemp())
        folder.mkdir(parents=True, exist_ok=True)
        rows.append(measure_one(text, at, variable, folder))
    print("| f | exit | compiles | pages | widest overfull hbox | too high | errors | CPU s | / one compare |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        name = r["function"] if len(r["function"]) < 40 else r["function"][:37] + "..."
        print(f"| `{name}` | {r['exit']} | {'yes' if r['compiled'] else 'NO'} | {r['pages']} | {r['wide']:.1f} pt | "
              f"{r['high']:.1f} pt | {r['errors']} | {r['seconds']:.1f} | {r['ratio']:.1f}x |")
    return 0 if all(r["compiled"] and r["wide"] == 0 and r["high"] == 0 and not r["errors"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())

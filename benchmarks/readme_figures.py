"""The README's measured figures, measured: each ``<!-- figure: NAME -->`` ... ``<!-- /figure -->``
passage of the README is written from the numbers this script measured last, kept in
benchmarks/figures.json (with how and when), never typed by hand. tests/docs/test_readme_figures.py
checks that the README says what figures.json holds.

  python benchmarks/readme_figures.py             # measure every figure, record it, rewrite the README
  python benchmarks/readme_figures.py startup     # only the start-up figure
  python benchmarks/readme_figures.py --write     # rewrite the README from figures.json, measuring nothing

The figures: ``startup``, ``diffcompare --help`` against a bare ``python -c pass``
(benchmarks/startup_layout.py's measurement); ``compare``, one comparison against
``python -c "import sympy, numpy, rich"`` (benchmarks/compare_wall_time.py's).
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import statistics
from pathlib import Path

import common  # noqa: F401  (thread pins, the checkout on sys.path)

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
RECORD = Path(__file__).resolve().parent / "figures.json"
PASSAGE = re.compile(r"<!-- figure: (?P<name>[a-z-]+) -->(?P<text>.*?)<!-- /figure -->", re.S)


def _startup(rounds: int) -> dict:
    from startup_layout import start_up
    medians, heavy = start_up({"this checkout": ROOT}, rounds)
    help_seconds, bare = medians["this checkout"], medians["python -c pass"]
    return {"help_ms": round(help_seconds * 1e3, 1), "bare_ms": round(bare * 1e3, 1),
            "ratio": round(help_seconds / bare, 2), "heavy": heavy.get("this checkout") or "none", "rounds": rounds}


def _compare(rounds: int) -> dict:
    from compare_wall_time import measure
    tool, base = measure(rounds, checkout=ROOT)
    ratios = [t / b for t, b in zip(tool, base)]
    return {"compare_s": round(statistics.median(tool), 2), "imports_s": round(statistics.median(base), 2),
            "ratio": round(statistics.median(ratios), 2), "low": round(min(ratios), 2), "high": round(max(ratios), 2),
            "rounds": rounds}


MEASURE = {"startup": (_startup, 11), "compare": (_compare, 5)}


def sentence(name: str, f: dict) -> str:
    """What the README says of figure ``name`` with the numbers ``f``."""
    if name == "startup":
        heavy = "neither NumPy nor SymPy" if not {"numpy", "sympy"} & set(f["heavy"].split(",")) else f["heavy"]
        return (f"`diffcompare --help` starts in {f['ratio']:.1f}x the time of a bare `python -c pass` "
                f"({f['help_ms']:.0f} ms against {f['bare_ms']:.0f} ms, median of {f['rounds']} interleaved runs) "
                f"and imports {heavy}")
    if name == "compare":
        return (f"one comparison, `diffcompare compare \"sin(x)*exp(y)\" --at x=1,y=2`, takes {f['ratio']:.2f}x "
                f"({f['low']:.1f}–{f['high']:.1f}x over {f['rounds']} rounds) the time of "
                f"`python -c \"import sympy, numpy, rich\"` alone")
    raise KeyError(name)


def written(text: str, record: dict) -> str:
    """The README ``text`` with every figure's passage written from ``record``."""
    def fresh(match):
        name = match.group("name")
        return f"<!-- figure: {name} -->{sentence(name, record[name]['figures'])}<!-- /figure -->"
    return PASSAGE.sub(fresh, text)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"the figures to measure (default: all of {', '.join(MEASURE)})")
    parser.add_argument("--write", action="store_true", help="only rewrite the README from figures.json")
    args = parser.parse_args(argv)
    record = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}
    if not args.write:
        for name in args.names or MEASURE:
            measure, rounds = MEASURE[name]
            record[name] = {"figures": measure(rounds), "measured": datetime.date.today().isoformat(),
                            "how": f"python benchmarks/readme_figures.py {name}"}
            print(f"{name}: {sentence(name, record[name]['figures'])}")
        RECORD.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    README.write_text(written(README.read_text(encoding="utf-8"), record), encoding="utf-8")
    print(f"wrote {len(PASSAGE.findall(README.read_text(encoding='utf-8')))} figures into {README}")


if __name__ == "__main__":
    main()

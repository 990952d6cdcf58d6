"""The README's measured figures say what benchmarks/readme_figures.py measured last
(benchmarks/figures.json), word for word: a figure typed by hand, or a measurement not yet
written into the README, fails here."""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import readme_figures  # noqa: E402


def test_every_figure_is_written_from_its_measurement():
    text = readme_figures.README.read_text(encoding="utf-8")
    record = json.loads(readme_figures.RECORD.read_text(encoding="utf-8"))
    names = [m.group("name") for m in readme_figures.PASSAGE.finditer(text)]
    assert {"startup", "compare"} <= set(names)
    assert all(name in record and record[name]["measured"] for name in names)
    assert readme_figures.written(text, record) == text, \
        "the README's figures differ from benchmarks/figures.json: python benchmarks/readme_figures.py --write"


def test_the_start_up_figure_is_the_ratio_of_the_times_recorded():
    f = json.loads(readme_figures.RECORD.read_text(encoding="utf-8"))["startup"]["figures"]
    assert abs(f["help_ms"] / f["bare_ms"] - f["ratio"]) < 0.05

"""The README's sample outputs are what the tool prints (see readme_samples.py): a change
that alters them fails here until the README is written again."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "golden"))

import corpus  # noqa: E402
import readme_samples  # noqa: E402

SAMPLES = readme_samples.samples(readme_samples.README.read_text(encoding="utf-8"))
NUMBER = __import__("re").compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def test_the_readme_has_samples():
    assert len(SAMPLES) >= 4


@pytest.mark.parametrize("command, written", SAMPLES, ids=[c.split()[0] + "-" + str(k) for k, (c, _) in
                                                          enumerate(SAMPLES)])
def test_a_sample_is_what_the_tool_prints(command, written):
    now = readme_samples.masked(readme_samples.output_of(command))
    written = readme_samples.masked(written)
    if not corpus.recorded_here():      # another machine's sin and exp may differ in the last digit
        now, written = NUMBER.sub("#", now), NUMBER.sub("#", written)
    assert now == written, "the README's sample is out of date: python tests/docs/readme_samples.py writes it again"

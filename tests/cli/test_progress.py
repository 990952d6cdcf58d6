"""Progress on long work: a bar on a terminal's standard error once the work has taken a
second, never in a pipe or in CI; the computations report their stages."""

from __future__ import annotations

import sys

import pytest
from cli_runner import run

from diffcompare import compare
from diffcompare.lecture.steps import step_sweep
from diffcompare.render import terminal


def test_compare_reports_each_stage():
    seen = []
    compare("sin(x)*y", at={"x": 0.5, "y": 2.0}, methods="autograd,central-difference", repeat=1,
            progress=lambda done, total, what="": seen.append((done, total, what)))
    assert [what for _, _, what in seen] == ["SymPy's derivative", "autograd", "central-difference", "the exact reference",
                                             "the expected accuracy"]
    assert all(total == 5 for _, total, _ in seen) and [d for d, _, _ in seen] == [0, 1, 2, 3, 4]


def test_steps_reports_each_curve():
    seen = []
    sweep = step_sweep("sin(x)", {"x": 1.0}, progress=lambda done, total, what="": seen.append(done))
    assert seen == list(range(len(sweep.curves)))


@pytest.mark.parametrize("command", [["compare", "sin(x)*exp(y)", "--at", "x=1,y=2", "--repeat", "1"],
                                     ["steps", "sin(x)", "--at", "x=1"]])
def test_a_bar_on_a_terminal_only(command, capsys, monkeypatch):
    monkeypatch.setattr(terminal, "PROGRESS_AFTER", 0.0)
    monkeypatch.delenv("CI", raising=False)
    code, out = run(command, capsys)                   # standard error is not a terminal here
    assert code == 0 and out.err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    code, out = run(command, capsys)
    assert code == 0 and ("comparing" in out.err or "sweeping" in out.err)
    monkeypatch.setenv("CI", "true")
    code, out = run(command, capsys)
    assert out.err == ""


def test_swell_reports_each_n():
    from diffcompare.lecture.swell import swell
    seen = []
    swell("nested-sin", [1, 2, 4], progress=lambda done, total, what="": seen.append((done, total, what)))
    assert seen == [(0, 3, "n = 1"), (1, 3, "n = 2"), (2, 3, "n = 4")]

"""Every command of the golden corpus says today what it said when the corpus was recorded,
measured times aside (see corpus.py). A difference fails with both outputs side by side."""

from __future__ import annotations

import difflib
import importlib.util
import json
from pathlib import Path

import pytest

from diffcompare.cli.main import main

_spec = importlib.util.spec_from_file_location("golden_corpus", Path(__file__).with_name("corpus.py"))
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)

EXPECTED = json.loads(corpus.EXPECTED.read_text())
EXACT = corpus.recorded_here()          # elsewhere the last bits of sin, exp, ... differ: judgements only


def test_the_corpus_is_recorded_whole():
    assert len(corpus.COMMANDS) >= 200
    assert sorted(cid for cid, _ in corpus.COMMANDS) == sorted(EXPECTED)
    assert all(EXPECTED[cid]["argv"] == argv for cid, argv in corpus.COMMANDS)


@pytest.mark.parametrize("cid,argv", corpus.COMMANDS, ids=[cid for cid, _ in corpus.COMMANDS])
def test_command_output_is_unchanged(cid, argv):
    expected = {k: v for k, v in EXPECTED[cid].items() if k != "argv"}
    got = corpus.run(main, argv)
    if cid in corpus.TIMING_DEPENDENT:
        # the reference's budget is as short as SymPy's: whether it finishes depends on the
        # machine's speed and load; what must hold is that SymPy's run times out
        expected, got = corpus.symbolic_status(expected), corpus.symbolic_status(got)
    elif not EXACT:
        expected, got = corpus.judgements(expected), corpus.judgements(got)
    if got != expected:
        a = json.dumps(expected, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
        b = json.dumps(got, indent=1, sort_keys=True, ensure_ascii=False).splitlines()
        diff = "\n".join(difflib.unified_diff(a, b, "recorded", "now", lineterm="", n=2))
        pytest.fail(f"diffcompare {' '.join(argv)}\n{diff[:6000]}", pytrace=False)


def test_the_normaliser_drops_times_and_keeps_values():
    # the comparison is only as strict as the normaliser: times go, everything else stays
    report = {"methods": [{"values": {"x": 0.1}, "time": {"median_seconds": 1e-6}, "verdict": "pass",
                           "reason": "timed out after 0.05 s"}], "seconds": {"wall": 2.0}}
    assert corpus.normalise(report) == {"methods": [{"values": {"x": 0.1}, "verdict": "pass",
                                                     "reason": "timed out after <time>"}]}


def test_judgements_keep_verdicts_and_exit_status_only():
    outcome = {"exit": 4, "stdout": {"methods": [{"verdict": "pass", "value": 0.1, "status": "ok"},
                                                 {"verdict": "inconclusive", "reason": "wide"}]}}
    assert corpus.judgements(outcome) == {"exit": 4, "judgements": ["status=ok", "verdict=pass",
                                                                   "verdict=inconclusive"]}
    assert corpus.judgements({"exit": 0, "stdout": "text"}) == {"exit": 0, "judgements": []}

"""One fixed point per kind of wrong backward rule (benchmarks/wrong_backward_rules.py):
where the bug changes the derivative (by the catalogue's own hand-derived predicate),
compare fails autograd and exits 1, and the audit fails the case; the right twin of each
is never failed. The full measurement is benchmarks/bug_detection.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import diffcompare

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from wrong_backward_rules import CATALOGUE, EngineOps  # noqa: E402

ENGINE = EngineOps()
POINT = {"wrong only for negative inputs": {"x": -0.5}, "wrong only for large inputs": {"x": 3.0},
         "swapped inputs": {"x": 1.0, "y": 2.5}, "broadcast reduced the wrong way": {"x": 1.5, "y": 2.0},
         "float32 backward": {"x": 0.7}}


def point_of(kind):
    base = kind.name.removesuffix(", branching forward")
    point = POINT.get(base, {"x": 1.3})
    if kind.branch is not None and base == "wrong only for negative inputs":
        return None                     # the rule is never used below the branch at 0.25
    return point


KINDS = [k for k in CATALOGUE if point_of(k) is not None]


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_compare_fails_the_wrong_rule_and_passes_its_right_twin(kind):
    point = point_of(kind)
    assert kind.changes(*point.values())        # the catalogue's own answer: the bug shows here
    kinds = {"kind": "hessian"} if kind.check == "hessian" else {}
    wrong = diffcompare.compare(ENGINE.rule(kind, True), at=point, methods="autograd", repeat=1, **kinds)
    assert wrong.method("autograd").verdict == "fail" and wrong.exit_status == 1
    right = diffcompare.compare(ENGINE.rule(kind, False), at=point, methods="autograd", repeat=1, **kinds)
    assert right.method("autograd").verdict != "fail" and right.exit_status != 1


@pytest.mark.parametrize("kind", [k for k in KINDS if k.branch is None], ids=lambda k: k.name)
def test_the_audit_fails_the_wrong_rule_and_passes_its_right_twin(kind):
    point = point_of(kind)
    assert diffcompare.audit(ENGINE.rule(kind, True), points=[point], check=kind.check).cases[0].status == "fail"
    assert diffcompare.audit(ENGINE.rule(kind, False), points=[point], check=kind.check).cases[0].status != "fail"

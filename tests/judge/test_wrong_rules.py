"""The catalogue of wrong backward rules (benchmarks/wrong_rules.py) at one fixed point per
kind: where the bug changes the derivative, by the catalogue's own hand-derived
mathematics, ``compare`` fails autograd and exits 1 and the audit exits 1; each control
(the same forward, the right backward) is never failed. The full measurement, at random
points and beside gradcheck and check_grads, is benchmarks/bug_catalogue.py."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from bug_catalogue import tool_audit, tool_compare  # noqa: E402
from wrong_rules import ENTRIES, Engines  # noqa: E402

from diffcompare import autograd as ag  # noqa: E402

ENGINES = Engines()
WRONG = [e for e in ENTRIES if not e.control]
CONTROLS = [e for e in ENTRIES if e.control]


def engine_entries(entry, point) -> list:
    """The entry's gradient (or Hessian, row-major) by the engine's own backward, no tool involved."""
    f = ENGINES.engine.function(entry)
    leaves = [ag.tensor(point[n], requires_grad=True) for n in entry.variables]
    grads = ag.grad(f(*leaves), leaves, create_graph=entry.check == "hessian")
    if entry.check == "gradient":
        return [float(g) for g in grads]
    rows = []
    for g in grads:
        if not g.requires_grad:                         # nothing flows back through it: its row is 0
            rows += [0.0] * len(leaves)
            continue
        second = ag.grad(g, leaves, retain_graph=True, allow_unused=True)
        rows += [0.0 if s is None else float(s) for s in second]
    return rows


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_the_catalogues_hand_math_is_what_the_rules_compute(entry):
    # the catalogue's answers are its own: check them against the rules themselves before
    # holding the tool to them
    point = entry.example
    assert entry.changes(point) is not entry.control
    right, mine = entry.exact(point)
    got = engine_entries(entry, point)
    scale = max(abs(float(r)) for r in right)
    if entry.kind.name == "float32 backward" and not entry.control:
        # a binary32 number, within one binary32 rounding of the right value, and not the right value
        assert float(got[0]) == float(__import__("numpy").float32(got[0]))
        assert 0 < abs(got[0] - float(right[0])) <= 2 ** -23 * scale
        return
    assert all(abs(g - float(m)) <= 1e-13 * scale for g, m in zip(got, mine))
    if not entry.control:
        assert max(abs(float(m) - float(r)) for m, r in zip(mine, right)) > 1e-10 * scale
        assert entry.shift(point) > 1e-10


@pytest.mark.parametrize("entry", WRONG, ids=lambda e: e.name)
def test_compare_fails_the_wrong_rule_where_its_bug_changes_the_derivative(entry):
    point = entry.example
    assert entry.changes(point)                  # the catalogue's hand-derived answer: the bug shows here
    answer = tool_compare(ENGINES.engine.function(entry), point, entry.check)
    assert answer.verdict == "fail" and answer.status == 1, answer.said


@pytest.mark.parametrize("entry", CONTROLS, ids=lambda e: e.name)
def test_compare_does_not_fail_the_control(entry):
    answer = tool_compare(ENGINES.engine.function(entry), entry.example, entry.check)
    assert answer.verdict != "fail" and answer.status != 1, answer.said


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.name)
def test_the_audit_at_the_point_says_whether_autograd_is_wrong(entry):
    answer = tool_audit(ENGINES.engine.function(entry), entry.example, entry.check)
    assert answer.status == (0 if entry.control else 1), answer.said


def _entry(name):
    return next(e for e in ENTRIES if e.name == name)


def test_compare_does_not_fail_a_right_function_whose_terms_cancel():
    entry = _entry("broadcast summed over the wrong axis, branching (control)")
    point = {"x": -0.26236535280935636, "b": 0.5503294597586867}
    right, mine = entry.exact(point)
    assert mine == right and not entry.changes(point)            # the control's rule is right here
    # f is quadratic in b on this side of the branch: central differences are exact but for
    # the rounding of f, whose nine terms sum to 6.3 in size for a value of -0.067; SymPy cannot
    # follow the branch, so that rounding is the one f really made at the stencil (8 ε |f| was
    # too little: central differences failed, 4.0e-11 against a band of 3.9e-11)
    answer = tool_compare(ENGINES.engine.function(entry), point, entry.check)
    assert answer.verdict != "fail" and answer.status != 1, answer.said


@pytest.mark.parametrize("engine", ["torch", "jax"])
def test_the_rules_written_for_pytorch_and_jax_compute_what_the_engines_rules_do(engine):
    pytest.importorskip(engine)
    ops = getattr(ENGINES, engine)
    for entry in ENTRIES:
        if entry.check != "gradient":
            continue
        inputs = ops.inputs(entry.example, entry.variables)
        if engine == "torch":
            got = [float(g) for g in ops.torch.autograd.grad(ops.function(entry)(*inputs), inputs)]
        else:
            got = [float(g) for g in ops.jax.grad(ops.function(entry), argnums=tuple(range(len(inputs))))(*inputs)]
        assert got == pytest.approx(engine_entries(entry, entry.example), rel=1e-7 if "float32" in entry.name
                                    else 1e-13), entry.name

"""diffcompare's own failures are internal errors (exit 3) with their cause, never blamed on
the user's function as bad input, and never lose the other points or cases."""

from __future__ import annotations

import diffcompare
import diffcompare.auditing.batch as batch


def test_a_failure_of_the_judge_at_one_point_keeps_the_others(monkeypatch):
    real = batch.classify
    calls = []

    def broken(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise TypeError("unsupported format string passed to numpy.ndarray.__format__")
        return real(*args, **kwargs)
    monkeypatch.setattr(batch, "classify", broken)
    report = diffcompare.audit("sin(x)", at=[{"x": 0.1}, {"x": 0.2}, {"x": 0.3}])
    case = report.cases[0]
    assert report.exit_status == 3 and case.status == "internal"
    assert [p.verdict for p in case.points].count("agree") == 2
    assert "TypeError" in case.error and "auditing/batch.py" in case.error and all(f["code"] != "bad-input" for f in case.findings)


def test_a_failure_of_the_tool_in_a_case_is_not_bad_input_and_other_cases_run(monkeypatch):
    real = batch._audit_points

    def broken(result, case, *args, **kwargs):
        if case.name == "second":
            raise IndexError("index 0 is out of bounds for axis 0 with size 0")
        return real(result, case, *args, **kwargs)
    monkeypatch.setattr(batch, "_audit_points", broken)
    from diffcompare.auditing.audit import run_cases
    from diffcompare.auditing.suite import Case
    report = run_cases([Case("first", expression="x**2", at=[{"x": 1.5}]),
                        Case("second", expression="x**3", at=[{"x": 1.5}])])
    first, second = report.cases
    assert first.status == "pass" and second.status == "internal" and report.exit_status == 3
    assert "IndexError" in second.error and "raised" not in second.error
    assert "internal error" in report.render("text")

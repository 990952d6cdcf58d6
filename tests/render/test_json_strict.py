"""Every JSON report is JSON: no bare NaN or Infinity (which Python writes and other
parsers refuse), even where the values are not finite."""

import json

import pytest

import diffcompare


def _strict(text: str):
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("build", [
    lambda: diffcompare.explain("sqrt(x)", {"x": 0.0}),                  # an infinite derivative at 0
    lambda: diffcompare.explain("x * exp(y)", {"x": 1.0, "y": 800.0}),   # an overflowing value
    lambda: diffcompare.compare("sqrt(x)", at={"x": 0.0}, methods="autograd,central-difference", repeat=1),
])
def test_reports_with_non_finite_values_are_strict_json(build):
    report = build()
    data = _strict(report.render("json"))
    flat = json.dumps(data)
    assert "inf" in flat or "nan" in flat          # the non-finite values are there, as strings

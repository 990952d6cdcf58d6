"""Hostile and extreme input: a clear error (exit 2) or an honest verdict, never a crash
(exit 3), a traceback or a signal."""

from __future__ import annotations

import json

import pytest
from cli_runner import run as run_cli


def run(argv, capsys):
    code, out = run_cli(argv, capsys)
    return code, out.out, out.err


@pytest.mark.parametrize("argv", [
    ["compare", "x", "--at", "x=1e42"],                 # a step relative to x: h^k overflows in the band
    ["compare", "x", "--at", "x=1", "--step", "1e300"],
    ["compare", "log(x)", "--at", "x=1e300"],
    ["compare", "sin(x)*x", "--at", "x=1e200"],
])
def test_extreme_points_and_steps_give_verdicts_not_crashes(argv, capsys):
    code, out, err = run(argv + ["--repeat", "1", "--format", "json"], capsys)
    assert code in (0, 4), err
    assert "Traceback" not in err and json.loads(out)["exit_status"] == code


@pytest.mark.parametrize("timeout, code", [("1e-5", (0, 4)), ("inf", (0,)), ("1e300", (0,)), ("0", (0,))])
def test_symbolic_time_budgets_from_tiny_to_none(timeout, code, capsys):
    got, out, err = run(["compare", "x**2", "--at", "x=1", "--symbolic-timeout", timeout, "--repeat", "1"], capsys)
    assert got in code, err


@pytest.mark.parametrize("timeout", ["-1", "nan", "soon"])
def test_a_time_budget_that_is_not_one_is_refused(timeout, capsys):
    code, out, err = run(["compare", "x", "--at", "x=1", "--symbolic-timeout", timeout], capsys)
    assert code == 2 and "not a number of seconds" in err and "Traceback" not in err


@pytest.mark.parametrize("f, at", [("sign(x)", "x=1"), ("cbrt(x)", "x=2"), ("sign(x)*x", "x=3")])
def test_explain_check_of_derivatives_holding_dirac_delta(f, at, capsys):
    code, out, err = run(["explain", f, "--at", at, "--check"], capsys)
    assert code == 0 and "agrees with the reference" in out, err


def test_sympy_failing_on_its_own_formula_is_evaluated_another_way(capsys):
    # SymPy's evalf raises AttributeError on asin(sin(x))' at 1e308; the compiled formula at
    # a working precision spanning 1e308 gives cos(x)/|cos(x)|, whose sign is cos(1e308)'s
    code, out, err = run(["compare", "asin(sin(x))", "--at", "x=1e308", "--digits", "16", "--repeat", "1",
                          "--format", "json"], capsys)
    data = json.loads(out)
    import mpmath
    with mpmath.workdps(400):
        expected = float(mpmath.sign(mpmath.cos(mpmath.mpf(1e308))))
    assert data["reference"]["values"] == [expected]
    assert data["methods"][0]["verdict"] == "pass"
    assert code == 4 and all(m["verdict"] != "fail" for m in data["methods"])     # the differences: inconclusive


def test_time_limit_armed_for_a_microsecond_never_escapes():
    from diffcompare.methods.budget import TimedOut, time_limit
    for _ in range(200):
        try:
            with time_limit(1e-6):
                sum(range(1000))
        except TimedOut:
            pass


def test_a_slice_that_selects_nothing_is_refused(capsys):
    # sum over nothing would be a silent 0 on which every method agrees
    code, out, err = run(["compare", "sum(x[5:])", "--at", "x=[1,2]"], capsys)
    assert code == 2 and "selects no element" in err


def test_a_suite_nested_too_deep_is_bad_input(tmp_path, capsys):
    path = tmp_path / "deep.toml"
    path.write_text('[[case]]\nname = "d"\nexpression = "x"\nextra = ' + "[" * 1000 + "]" * 1000 + "\n")
    code, out, err = run(["audit", str(path)], capsys)
    assert code == 2 and "nested too deep" in err


def test_an_audit_of_a_complex_valued_function_is_bad_input_not_a_wrong_gradient(tmp_path, capsys):
    (tmp_path / "cplx.py").write_text("def f(x):\n    return (x + 1j) * x\n")
    path = tmp_path / "suite.toml"
    path.write_text('[[case]]\nname = "c"\nfunction = "cplx:f"\ndomain = { x = [0, 1] }\n')
    code, out, err = run(["audit", str(path), "--points", "2"], capsys)
    assert code == 2 and "complex value" in out


def test_explain_check_refuses_inputs_whose_jacobians_would_not_fit(capsys):
    values = ",".join(["0.5"] * 5001)
    code, out, err = run(["explain", "sum(x**2)", "--at", f"x=[{values}]", "--check"], capsys)
    assert code == 2 and "at most 5,000 input elements" in err


def test_a_subscript_of_more_than_two_items_is_refused(capsys):
    code, out, err = run(["compare", "x[0,0,0]", "--at", "x=[[1,2],[3,4]]"], capsys)
    assert code == 2 and "one or two items" in err

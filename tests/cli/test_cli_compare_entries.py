"""End to end: `diffcompare compare` for Jacobians, vᵀJ, Jv, Hessians, vector variables and
many points — exit codes, JSON and one-line errors."""

import json
import math

import pytest
from cli_runner import in_process as run


def test_vjp_in_the_terminal_says_the_engine_never_formed_j(tmp_path):
    result = run("compare", "[x*y, sin(x)*z, exp(y)]", "--at", "x=1,y=2,z=3", "--vjp", "0.1,1.0,0.0001",
                 "--repeat", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "1 backward(v): J is never formed" in result.stdout
    assert "(vᵀJ)[x]" in result.stdout and "forms J" in result.stdout


def test_vjp_json_against_the_hand_jacobian(tmp_path):
    result = run("compare", "[x*y, sin(x)*z, exp(y)]", "--at", "x=1,y=2,z=3", "--vjp", "0.1,1.0,0.0001",
                 "--format", "json", "--repeat", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["report"] == "compare" and data["kind"] == "vjp" and data["schema_version"] == 4
    # vᵀJ with J = [[y, x, 0], [z cos x, 0, sin x], [0, e^y, 0]] at (1, 2, 3)
    expected = [0.1 * 2 + 3 * math.cos(1), 0.1 * 1 + 0.0001 * math.exp(2), math.sin(1)]
    methods = {m["name"]: m for m in data["methods"]}
    assert methods["autograd"]["values"] == pytest.approx(expected, rel=1e-15)
    assert methods["autograd"]["forms_jacobian"] is False and methods["symbolic"]["forms_jacobian"] is True
    assert all(m["verdict"] == "pass" for m in data["methods"])


def test_rosenbrock_hessian_of_a_vector_variable(tmp_path):
    result = run("compare", "sum(100*(x[1:]-x[:-1]**2)**2 + (1-x[:-1])**2)", "--at", "x=[1.2,1.2,1.2]",
                 "--order", "2", "--format", "json", "--repeat", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "hessian" and data["inputs"] == ["x[0]", "x[1]", "x[2]"]
    # by hand: [[1200x0² - 400x1 + 2, -400x0, 0], [-400x0, 202 + 1200x1² - 400x2, -400x1], [0, -400x1, 200]]
    h = [1200 * 1.44 - 480 + 2, -480, 0, -480, 202 + 1200 * 1.44 - 480, -480, 0, -480, 200]
    methods = {m["name"]: m for m in data["methods"]}
    assert methods["autograd"]["values"] == pytest.approx(h, rel=1e-13)
    assert methods["autograd"]["asymmetry"] == 0


def test_many_points_json_summary(tmp_path):
    result = run("compare", "sin(x)*exp(y)", "--box", "x=-2:2,y=0.1:3", "--points", "2000", "--seed", "1",
                 "--methods", "autograd,symbolic,central-difference", "--format", "json", "--repeat", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["points"]["count"] == 2000 and data["reference"]["points"] == 2000
    central = {m["name"]: m for m in data["methods"]}["central-difference"]
    assert 0 < central["errors"]["median_rel"] <= central["errors"]["max_rel"] < 1e-6
    assert central["worst"]["entry"] in ("∂f/∂x", "∂f/∂y")


@pytest.mark.parametrize("args, message", [
    (["[x, y]", "--at", "x=1,y=2", "--vjp", "1,2,3"], "--vjp has 3 elements, but it needs 2"),
    (["[x, y]", "--at", "x=1,y=2", "--vjp", "1,2", "--order", "2"], "ask for different things"),
    (["x*y", "--at", "x=1,y=2", "--points", "10"], "--points needs a region"),
    (["x*y", "--box", "x=0:1,y=0:1"], "give their number with --points"),
    (["x*y"], "give the point with --at"),
    (["x[5]", "--at", "x=[1,2]"], "cannot be evaluated with these shapes"),
    (["x[0]", "--at", "x=[1,2"], "'[' is never closed"),
    (["x[a]", "--at", "x=[1,2]"], "a subscript holds integer constants"),
])
def test_bad_input_is_one_line_and_exit_2(args, message, tmp_path):
    result = run("compare", *args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr

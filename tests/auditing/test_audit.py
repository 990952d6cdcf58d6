"""Gradient audits: the example suite's verdicts, hand-derived values at the wrong
points, adversarial and kink points, bad cases, reports (JUnit parsed, JSON round
trip), the same report from one process, two and a Dask cluster, the pytest helper,
and the PyTorch engine."""

import json
import math
import os
import pathlib
from xml.etree import ElementTree

import numpy as np
import pytest
from cli_runner import in_process

from diffcompare.auditing.points import audit_points
from diffcompare.auditing.suite import Case, make_case, parse_suite, read_suite
from diffcompare.auditing.audit import run_cases
from diffcompare.auditing.results import AGREE, FD_UNRELIABLE, NONDIFF, WRONG, AuditReport
from diffcompare.render.audit import from_json
from diffcompare.render.findings import verdict_of
from diffcompare.problem.errors import InputError
from diffcompare.problem.problem import make_problem
from diffcompare.testing import assert_gradients

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
SUITE = EXAMPLES / "audit_suite.toml"


@pytest.fixture(scope="module")
def example():
    return run_cases(read_suite(str(SUITE)).cases)


def without_times(data: dict) -> dict:
    data = dict(data, seconds=None)
    data["cases"] = [dict(c, seconds=None) for c in data["cases"]]
    return data


# -- the example suite --------------------------------------------------------------------------

def test_example_suite_verdicts_and_exit_status(example):
    status = {c.name: c.status for c in example.cases}
    assert status == {"rosenbrock": "pass", "softmax jacobian": "pass", "hessian": "pass",
                      "swish, right backward": "pass", "swish, wrong backward": "fail",
                      "softsign, wrong for x < 0": "fail", "float32 smooth": "pass", "kinks": "pass"}
    assert example.exit_status == 1
    for case in example.cases:
        if case.status == "pass" and case.dtype == "float64" and case.name != "kinks":
            assert case.counts[AGREE] == len(case.points), case.name


def test_wrong_custom_op_is_named(example):
    case = example.case("swish, wrong backward")
    assert case.wrong_node.split(": ")[0].endswith("WrongSwishBackward")
    assert verdict_of(case).startswith("autograd is wrong at") and case.findings[0]["code"] == "wrong"


def test_softsign_is_wrong_exactly_for_negative_inputs(example):
    """d/dx x/(1+|x|) = 1/(1+|x|)²; the backward computes 1/(1+x)²: equal for x ≥ 0 only."""
    case = example.case("softsign, wrong for x < 0")
    judged = [p for p in case.points if p.verdict != NONDIFF]
    assert judged
    for p in judged:
        x, y = p.point["x"], p.point["y"]
        exact = y / (1 + abs(x)) ** 2
        assert p.reference[0] == pytest.approx(exact, rel=1e-14)
        assert p.reference[1] == pytest.approx(x / (1 + abs(x)), rel=1e-14)
        if x < 0 and 1 + x != 1 + abs(x):        # at x = -1e-151 both round to 1: no error to see
            assert p.verdict == WRONG, p
            if x != -1:
                assert p.autograd[0] == pytest.approx(y / (1 + x) ** 2, rel=1e-12)
        else:
            assert p.verdict == AGREE, p
    assert any(p.point["x"] < 0 for p in judged) and any(p.point["x"] > 0 for p in judged)
    # abs's kink at 0 was found, and there softsign is differentiable (both one-sided slopes
    # are 1/(1 + 0)² = 1), where the wrong rule's 1/(1 + x)² happens to be right
    assert any(p.verdict == AGREE and p.point["x"] == 0 and "kink of abs" in p.origin for p in case.points)


def test_float32_false_alarms_of_plain_gradcheck_are_classified(example):
    case = example.case("float32 smooth")
    unreliable = [p for p in case.points if p.verdict == FD_UNRELIABLE]
    assert unreliable and case.status == "pass"
    alarms = 0
    for p in unreliable:
        assert p.reason.startswith("float32 rounding")
        # gradcheck's own test, |autograd - FD| <= 1e-5 + 1e-3 |FD|, recomputed here
        fails = any(abs(a - f) > 1e-5 + 1e-3 * abs(f) for a, f in zip(p.autograd, p.fd))
        assert (p.gradcheck == "fail") == fails
        alarms += fails
        # autograd itself is right: within 128 ε(float32) of the exact entries, checked here
        largest = max(abs(r) for r in p.reference)
        assert all(abs(a - r) <= 128 * 2 ** -23 * (abs(r) + largest) for a, r in zip(p.autograd, p.reference))
    assert alarms >= len(unreliable) // 2 and case.gradcheck["false alarms"] == alarms
    # autograd in float32 is held to the one accuracy model in float32's ε, and meets it
    assert case.tolerance["model"] and case.tolerance["dtype"] == "float32"
    assert case.worst["autograd"]["relative_error"] < 1e-5


def test_kinks_are_expected_disagreements(example):
    case = example.case("kinks")
    kinks = [p for p in case.points if p.verdict == NONDIFF]
    origins = {p.origin for p in case.points}
    assert any("kink of relu at x = 0.5" in o for o in origins)
    assert any("kink of max" in o for o in origins)
    assert kinks and all("kink" in p.reason for p in kinks)
    assert case.status == "pass"


# -- points -------------------------------------------------------------------------------------

def test_adversarial_points_stay_in_the_domain():
    p = make_problem("log(x) * y", {"x": 1.0, "y": 0.0})
    points = audit_points(p, {"x": (0.5, 3.0), "y": (-1.0, 1.0)}, [], random=0, seed=0)
    assert (points.flat[:, 0] >= 0.5).all() and (points.flat[:, 0] <= 3).all()
    xs = {row[0] for row in points.flat}
    assert {0.5, 1.0, 3.0} <= xs and 0.0 not in xs and -1.0 not in xs
    ys = {row[1] for row in points.flat}
    assert {0.0, 1.0, -1.0, 2.0 ** -500, -2.0 ** -500} <= ys


def test_kinks_of_clamp_and_min_are_found_on_the_kink():
    p = make_problem("clamp(2*x, -1, 1) + min(x, y)", {"x": 0.0, "y": 0.3})
    points = audit_points(p, {"x": (-2.0, 2.0), "y": (-1.0, 1.0)}, [], random=0, seed=0)
    kinks = {o: row for o, row in zip(points.origins, points.flat) if "kink of" in o}
    xs = sorted({row[0] for o, row in kinks.items() if "clamp" in o})
    assert xs == [-0.5, 0.5]                           # 2x = ∓1
    mins = [row for o, row in kinks.items() if "min" in o]
    assert any(row[0] == row[1] for row in mins)       # x = y


def test_float32_points_are_float32_values():
    p = make_problem("x * y", {"x": 0.0, "y": 0.0})
    points = audit_points(p, {"x": (-1.0, 1.0), "y": (-1.0, 1.0)}, [{"x": 0.1, "y": 0.2}], random=5, seed=0,
                          dtype="float32")
    assert (points.flat.astype(np.float32).astype(np.float64) == points.flat).all()


# -- bad input ----------------------------------------------------------------------------------

BAD_SUITE = """
[[case]]
name = "good"
expression = "x**3"
domain = { x = [-1, 1] }

[[case]]
name = "typo"
expression = "sinn(x)"
domain = { x = [0, 1] }

[[case]]
name = "no module"
function = "no_such_module_here:f"
domain = { x = [0, 1] }

[[case]]
name = "no function"
function = "audit_ops:swissh_layer"
domain = { x = [0, 1] }

[[case]]
name = "key"
expresion = "x"

[[case]]
name = "no domain"
expression = "x * y"
domain = { x = [0, 1] }

[[case]]
name = "vector f"
expression = "[x, x**2]"
domain = { x = [0, 1] }
"""


def test_bad_cases_are_reported_and_the_others_still_run():
    suite = parse_suite(BAD_SUITE, search_path=str(EXAMPLES))
    report = run_cases(suite.cases, points=3)
    status = {c.name: c.status for c in report.cases}
    assert status["good"] == "pass"
    assert all(status[n] == "error" for n in status if n != "good")
    errors = {c.name: c.error for c in report.cases}
    assert "did you mean 'sin'" in errors["typo"]
    assert "cannot import module 'no_such_module_here'" in errors["no module"]
    assert "did you mean 'swish_layer'" in errors["no function"]
    assert "did you mean 'expression'" in errors["key"]
    assert "'y' has no domain" in errors["no domain"]
    assert "a gradient needs a scalar f" in errors["vector f"]
    assert report.exit_status == 2


@pytest.mark.parametrize("text, message", [
    ("[[case]\nname = 1", "is not valid TOML"),
    ("title = 'x'", "unknown table 'title'"),
    ("[defaults]\nkind = 'gradient'", "has no cases"),
])
def test_unreadable_suites(text, message):
    with pytest.raises(InputError, match=message):
        parse_suite(text)


def test_cli_bad_input_exits_2_without_traceback(tmp_path):
    suite = tmp_path / "bad.toml"
    suite.write_text(BAD_SUITE.replace("audit_ops:swissh_layer", "math:nope"))
    result = in_process("audit", str(suite), "--points", "2", cwd=tmp_path)     # an exception would end the test
    assert result.returncode == 2
    assert "Traceback" not in result.stderr + result.stdout
    assert "exit status 2" in result.stdout and "pass" in result.stdout
    for args, message in [((str(tmp_path / "missing.toml"),), "cannot read the suite"),
                          ((str(suite), "--report", "out.txt"), "the extension says the format"),
                          ((str(suite), "--jobs", "0"), "--jobs must be an integer from 1"),
                          ((str(suite), "--points", "-1"), "--points must be an integer")]:
        result = in_process("audit", *args, cwd=tmp_path)       # refused before anything runs
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr


# -- reports ------------------------------------------------------------------------------------

def test_junit_xml_parses_with_one_testcase_per_case(example):
    root = ElementTree.fromstring(example.render("junit"))
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [c.name for c in example.cases]
    assert int(suite.get("tests")) == 8 and int(suite.get("failures")) == 2 and int(suite.get("errors")) == 0
    failed = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
    assert set(failed) == {"swish, wrong backward", "softsign, wrong for x < 0"}
    for failure in failed.values():
        assert failure.get("message").startswith("autograd is wrong at x=")
        assert "exact:" in failure.text and "autograd:" in failure.text and "tolerance" in failure.text


def test_junit_reports_bad_input_as_errors():
    report = run_cases(parse_suite(BAD_SUITE, search_path=str(EXAMPLES)).cases, points=2)
    suite = ElementTree.fromstring(report.render("junit")).find("testsuite")
    assert int(suite.get("errors")) == 6
    assert all(c.find("error") is not None for c in suite.findall("testcase") if c.get("name") != "good")


def test_json_round_trips(example):
    data = json.loads(example.render("json"))
    assert data["report"] == "audit" and data["schema_version"] == 3 and data["exit_status"] == 1
    again = from_json(data)
    assert json.loads(again.render("json")) == data
    assert again.case("softsign, wrong for x < 0").points[0].point == example.case("softsign, wrong for x < 0").points[0].point


def test_markdown_and_text(example):
    markdown = example.render("markdown")
    assert markdown.startswith("# Gradient audit") and "| swish, wrong backward |" in markdown
    text = example.render("text", width=160)
    assert "wrong backward rule: step" in text and "exit status 1: a gradient is wrong" in text
    assert "[exp(x)/(exp(x) + exp(y)), exp(y)/(exp(x) + exp(y))]" in text     # not eaten as markup


def test_cli_writes_every_report(tmp_path):
    # the swish cases, a right and a wrong one (the whole suite's verdicts: the example fixture)
    result = in_process("audit", str(SUITE), "-k", "swish", "--points", "5", "--report", "a.xml", "--report", "a.json",
                        "--report", "a.md", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    ElementTree.parse(tmp_path / "a.xml")
    assert json.loads((tmp_path / "a.json").read_text())["exit_status"] == 1
    assert (tmp_path / "a.md").read_text().startswith("# Gradient audit")


# -- schedules ----------------------------------------------------------------------------------

MANY = [Case("many points", expression="sin(x) * exp(y) + relu(x - y)", domain={"x": (-2, 2), "y": (-2, 2)}),
        Case("wrong op", function="audit_ops:softsign_scaled", domain={"x": (-3, 3), "y": (0.5, 2)},
             search_path=str(EXAMPLES))]


def test_same_report_from_one_and_two_processes_with_several_batches():
    one = run_cases(MANY, points=250, seed=3)
    assert all(len(case.points) > 256 for case in one.cases)     # each case more than one batch
    two = run_cases(MANY, points=250, seed=3, jobs=2)
    assert without_times(one.to_dict()) == without_times(two.to_dict())
    assert one.exit_status == two.exit_status == 1


def test_same_report_from_a_dask_cluster():
    distributed = pytest.importorskip("distributed")
    one = run_cases(MANY, points=40, seed=5)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        remote = run_cases(MANY, points=40, seed=5, scheduler=cluster.scheduler_address)
    assert without_times(one.to_dict()) == without_times(remote.to_dict())
    assert remote.seconds["where"].startswith("Dask scheduler")


def test_unreachable_scheduler_is_bad_input():
    pytest.importorskip("distributed")
    with pytest.raises(InputError, match="cannot reach the Dask scheduler"):
        run_cases(MANY[:1], points=1, scheduler="tcp://127.0.0.1:9")


# -- Python API and pytest helper ---------------------------------------------------------------

def test_assert_gradients_names_entry_values_and_tolerance():
    from diffcompare import autograd as ag

    class Cube(ag.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x ** 3 * y

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            return grad * 2 * x ** 2 * y, grad * x ** 3          # ∂/∂x should be 3x²y

    with pytest.raises(AssertionError) as caught:
        assert_gradients(Cube, at={"x": 1.5, "y": 2.0})
    message = str(caught.value)
    assert "∂f/∂x" in message and "x=1.5, y=2.0" in message
    assert "autograd 9," in message and "exact 13.5," in message and "FD 13.5" in message   # 2x²y, 3x²y
    assert "tolerance" in message and "the one accuracy model, in float64" in message
    assert "CubeBackward" in message


def test_assert_gradients_passes_right_functions_and_rejects_bad_calls():
    from diffcompare.functions import exp, sin
    assert_gradients(lambda x, y: sin(x) * exp(y), at=[{"x": 0.3, "y": 1.0}, {"x": -2.0, "y": 0.5}])
    assert_gradients("[x*y, sin(x)]", at={"x": 0.5, "y": 2.0}, kind="jacobian")
    assert_gradients("x**2 * y", at={"x": 0.5, "y": 2.0}, kind="hessian", domain={"x": (-1, 1), "y": (-1, 3)},
                     points=5)
    with pytest.raises(ValueError, match="has no domain"):
        assert_gradients("x * y", at={"x": 1.0})


def test_audit_api_returns_the_cli_report_object():
    import diffcompare
    report = diffcompare.audit("x**2", domain={"x": (-1, 1)}, points=4)
    assert isinstance(report, AuditReport) and report.exit_status == 0
    assert report.cases[0].tolerance["source"].startswith("the one accuracy model, in float64: 4 ulp of each entry")


def test_case_tolerance_override_is_reported_with_its_source():
    case = make_case({"expression": "exp(x)", "domain": {"x": [0, 1]}, "tolerance": {"rtol": 1e-20}}, "tight")
    report = run_cases([case], points=5)
    assert report.cases[0].tolerance["source"].startswith("the suite's own: rtol 1e-20")


# -- PyTorch ------------------------------------------------------------------------------------

def test_torch_engine_audits_torch_functions():
    pytest.importorskip("torch")
    report = run_cases([Case("text", expression="sin(x) * exp(y) + relu(x)", domain={"x": (-2, 2), "y": (-1, 1)}),
                        Case("torch code", function=_torch_code, domain={"x": (-2, 2)},
                             reference="x * tanh(x)")], points=5, engine="torch")
    assert [c.status for c in report.cases] == ["pass", "pass"]
    assert report.cases[0].engine == "torch"
    # d/dx x tanh x = tanh x + x (1 - tanh² x), by hand, at every judged point
    for p in report.cases[1].points:
        if p.verdict == AGREE:
            x = p.point["x"]
            assert p.autograd[0] == pytest.approx(math.tanh(x) + x * (1 - math.tanh(x) ** 2), rel=1e-13, abs=1e-300)


def _torch_code(x):
    import torch
    return x * torch.tanh(x)


def test_torch_engine_without_torch_is_a_clear_error(monkeypatch):
    import diffcompare.language.torch_world as world
    monkeypatch.setattr(world, "available", lambda: False)
    with pytest.raises(InputError, match="--engine torch needs PyTorch"):
        run_cases(MANY[:1], points=1, engine="torch")


def test_exact_zeros_and_saturating_formulas_are_not_called_wrong(tmp_path):
    # x/x: the exact gradient is 0, the engine's terms 1/x and -x/x² cancel to a rounding
    # of their size; sigmoid and expm1 far out: the engine's formulas read a result rounded
    # to 1 or -1 and give 0 for a true value below 1e-16, as PyTorch's do. None is wrong; far
    # out, the band the engine's formula is held to is as large as the value: inconclusive
    # there (never a pass), at points the audit drew itself, so the case still passes
    suite = tmp_path / "zeros.toml"
    suite.write_text('[defaults]\npoints = 6\n\n'
                     '[[case]]\nname = "x over x"\nexpression = "x/x"\ndomain = { x = [0.3, 3] }\n\n'
                     '[[case]]\nname = "expm1"\nexpression = "expm1(x)"\ndomain = { x = [-45, -35] }\n\n'
                     '[[case]]\nname = "sigmoid"\nexpression = "sigmoid(x)"\ndomain = { x = [35, 45] }\n')
    report = run_cases(read_suite(str(suite)).cases, seed=3)
    for case in report.cases:
        assert case.status == "pass", (case.name, case.findings)
        assert case.counts[WRONG] == 0
    assert report.cases[1].counts["inconclusive"] > 0
    assert report.exit_status == 0


BRANCHY = '''
import math

from diffcompare import autograd as ag
from diffcompare.functions import erf


class OddErf(ag.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return ag.erf(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (2 / math.sqrt(math.pi)) * ag.exp(-x * x) * FACTOR


def branchy(x):
    if isinstance(x, ag.Tensor):
        return OddErf.apply(x)
    return erf(x) if x >= 0 else -erf(-x)       # SymPy cannot follow the branch
'''


@pytest.mark.parametrize("factor, status", [("(1 + 1e-6)", "fail"), ("1", "pass")])
def test_a_function_sympy_cannot_follow_is_judged_against_mpmaths_derivative(tmp_path, factor, status):
    # the backward is off by 1e-6 relative: far inside gradcheck's tolerance, far outside
    # the audit's once mpmath differentiates f itself (the right backward passes)
    module = f"branchy_{status}"                 # one module per case: Python keeps what it imported
    (tmp_path / f"{module}.py").write_text(BRANCHY.replace("FACTOR", factor))
    (tmp_path / "suite.toml").write_text(f'[[case]]\nname = "branchy"\nfunction = "{module}:branchy"\n'
                                         'domain = { x = [-2, 2] }\npoints = 5\n')
    case = run_cases(read_suite(str(tmp_path / "suite.toml")).cases, seed=1).cases[0]
    assert case.status == status, case.findings
    assert any("numerical derivative" in note for note in case.notes)
    if status == "fail":
        assert case.counts[WRONG] > 0

"""End to end: the installed `diffcompare compare` command on text, its exit codes, its
JSON, and its one-line errors for bad input."""

import json

import pytest
from cli_runner import in_process as run


def test_squire_trapp_in_the_terminal(tmp_path):
    result = run("compare", "exp(x)/sqrt(sin(x)**3 + cos(x)**3)", "--at", "x=1.5", "--repeat", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "4.05342789389862065771418792561" in out           # the reference, 30 digits
    for method in ("autograd", "symbolic", "forward-difference", "backward-difference", "central-difference", "five-point", "complex-step",
                   "richardson"):
        assert method in out
    assert "within their expected accuracy" in out


def test_json_fields_and_values(tmp_path):
    result = run("compare", "sin(x)*exp(y) + log(1 + z**2)", "--at", "x=1,y=0.5,z=2", "--format", "json",
                 "--repeat", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["schema_version"] == 4 and data["report"] == "compare" and data["exit_status"] == 0
    assert data["inputs"] == ["x", "y", "z"] and data["points"]["point"] == {"x": 1.0, "y": 0.5, "z": 2.0}
    # by hand: ∂/∂z log(1 + z²) = 2z / (1 + z²) = 0.8 at z = 2
    assert data["entries"][2] == "∂f/∂z" and data["reference"]["exact"][2] == "0.800000000000000000000000000000"
    assert data["symbolic"]["formulas"]["∂f/∂z"]["text"] == "2*z/(z**2 + 1)"
    methods = {m["name"]: m for m in data["methods"]}
    assert methods["autograd"]["entries"]["∂f/∂z"]["value"] == 0.8 and methods["autograd"]["values"][2] == 0.8
    assert methods["central-difference"]["evaluations"] == 6 and methods["richardson"]["evaluations"] == 18
    for m in data["methods"]:
        assert m["verdict"] == "pass" and m["time"]["median_seconds"] > 0
        for p in m["entries"].values():
            assert p["abs_error"] <= p["tolerance"] * 1.0001 and p["within"] and p["rel_error"] <= 1e-5


def test_a_wrong_method_exits_1(tmp_path):
    # the complex step's Im f(x + ih) = 1e-300 · 1e-300 · 1e-20 is subnormal: digits lost
    result = run("compare", "1e-300*x", "--at", "x=1e-300", "--methods", "autograd,complex-step", "--repeat", "1",
                 cwd=tmp_path)
    assert result.returncode == 1
    assert "exceeds the expected" in result.stdout and "underflow" in result.stdout


def test_kink_and_domain_error_explained_exit_4(tmp_path):
    # explained, nothing crashed, nothing failed, and not everything could be judged: status 4, not 0
    result = run("compare", "abs(x)", "--at", "x=0", "--repeat", "1", cwd=tmp_path)
    assert result.returncode == 4 and "kink" in result.stdout and "one-sided" in result.stdout
    result = run("compare", "log(x)", "--at", "x=-1", "--repeat", "1", "--format", "json", cwd=tmp_path)
    assert result.returncode == 4
    data = json.loads(result.stdout)
    assert data["reference"]["exact"] == [None]
    assert "not finite in binary64" in data["reference"]["undefined"]["∂f/∂x"]
    assert data["value"] == "nan"


@pytest.mark.parametrize("args, message", [
    (["sinn(x)", "--at", "x=1"], "unknown function 'sinn' — did you mean 'sin'?"),
    (["sin(x)", "--at", "y=1"], "variable 'x' has no value: add x=... to --at"),
    (["sin(x)", "--at", "x=abc"], "'abc' is not a number"),
    (["sin(x)", "--at", "x"], "write NAME=VALUE"),
    (["sin(x)", "--at", "x=1,x=2"], "gives x twice"),
    (["sin(x)", "--at", "x=1", "--methods", "autgrad"], "did you mean 'autograd'?"),
    (["sin(x)", "--at", "x=1", "--digits", "3"], "digits must be"),
    (["sin(x)", "--at", "x=1", "--step", "0"], "step must be"),
    (["-" * 100_000 + "x", "--at", "x=1"], "nested too deeply"),
    (["(" * 10_000 + "x" + ")" * 10_000, "--at", "x=1"], "nested too deeply"),
])
def test_bad_input_exits_2_with_one_clear_error(args, message, tmp_path):
    result = run("compare", *args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.startswith("diffcompare compare: error:")


def test_huge_expressions_from_standard_input_hit_their_limits(tmp_path):
    # argv cannot carry 200,000 characters; "-" reads the expression from standard input
    result = run("compare", "-", "--at", "x=1", stdin="+".join(["x"] * 100_000), cwd=tmp_path)
    assert result.returncode == 2 and "expression too large" in result.stderr
    result = run("compare", "-", "--at", "x=1", stdin="-" * 100_000 + "x", cwd=tmp_path)
    assert result.returncode == 2 and "nested too deeply" in result.stderr


def test_an_expression_may_start_with_a_minus(tmp_path):
    result = run("compare", "-x**2", "--at", "x=-3", "--methods", "autograd", "--step", "1e-3", "--format", "json",
                 cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["points"]["point"] == {"x": -3.0} and data["methods"][0]["values"] == [6.0]   # -2x at -3


def test_argparse_errors_exit_2(tmp_path):
    result = run("compare", "sin(x)", cwd=tmp_path)
    assert result.returncode == 2 and "--at" in result.stderr
    result = run("compare", "sin(x)", "--at", "x=1", "--format", "pdf", cwd=tmp_path)
    assert result.returncode == 2 and "invalid choice" in result.stderr


@pytest.mark.parametrize("fmt, marker", [("markdown", "| method |"), ("latex", r"\begin{tabular}"),
                                         ("text", "verdict"), ("json", '"schema_version": 4')])
def test_output_file_in_every_format(fmt, marker, tmp_path):
    target = tmp_path / f"report.{fmt}"
    result = run("compare", "x*exp(x)", "--at", "x=2", "--format", fmt, "--output", str(target), "--repeat", "1",
                 cwd=tmp_path)
    assert result.returncode == 0 and f"wrote {target}" in result.stderr
    assert marker in target.read_text(encoding="utf-8")


def test_unwritable_output_is_a_clear_error(tmp_path):
    result = run("compare", "x", "--at", "x=2", "--output", str(tmp_path / "missing" / "r.txt"), cwd=tmp_path)
    assert result.returncode == 2 and "cannot write" in result.stderr


def test_help_teaches_with_examples(tmp_path):
    result = run("compare", "--help", cwd=tmp_path)
    assert result.returncode == 0
    assert result.stdout.count("diffcompare compare \"") >= 2
    assert "complex-step" in result.stdout and "exit status" in result.stdout


def test_functions_lists_the_table(tmp_path):
    result = run("functions", cwd=tmp_path)
    assert result.returncode == 0
    for name in ("sin", "log1p", "sigmoid", "atan2", "hypot", "pow", "pi"):
        assert name in result.stdout

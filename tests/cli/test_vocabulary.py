"""One vocabulary: the command line's options, Python's arguments and the README name each
thing alike; every old spelling still works, with a warning that names the new one; an
error raised from Python names Python's argument, one on the command line the option."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import diffcompare
from diffcompare.cli.main import build_parser
from diffcompare.problem.errors import InputError
from diffcompare.problem.vocabulary import RenamedWarning
from diffcompare.testing import assert_gradients

ROOT = Path(__file__).resolve().parents[2]

# what each concept is called, written out here (not read from the code): option -> argument
SHARED = {"kind": "kind", "at": "at", "points": "points", "gradient": "gradient", "n": "n"}
WHERE = {"compare": ("kind", "at", "points", "gradient"), "audit": ("points",), "swell": ("n",)}
PYTHON = {diffcompare.compare: ("kind", "at", "points", "gradient"),
          diffcompare.audit: ("kind", "at", "points", "gradient"),
          assert_gradients: ("kind", "at", "points", "gradient"),
          diffcompare.swell: ("n",)}
OLD_ARGUMENTS = ("grad", "check", "random", "ns")
SCHEMES = ("forward-difference", "backward-difference", "central-difference", "five-point", "complex-step",
           "richardson")


def _options(command):
    parser = build_parser().commands()[command]
    return {s for action in parser._actions for s in action.option_strings}


@pytest.mark.parametrize("command, names", WHERE.items())
def test_the_command_line_spells_each_concept_as_python_does(command, names):
    options = _options(command)
    for name in names:
        assert f"--{name}" in options
    assert not {"--check", "--random", "--grad"} & options      # (explain and graph's --check is their own flag)


@pytest.mark.parametrize("function, names", PYTHON.items(), ids=lambda v: getattr(v, "__name__", ""))
def test_python_signatures_use_the_same_names(function, names):
    parameters = inspect.signature(function).parameters
    for name in names:
        assert name in parameters, name
    assert not set(OLD_ARGUMENTS) & set(parameters)


def test_the_readme_table_names_what_the_help_and_signatures_name():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("<!-- vocabulary -->", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and "---" not in line][1:]
    named = {}
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        options = re.findall(r"`--([a-z-]+)", cells[1])
        arguments = re.findall(r"`([a-z_]+)=", cells[2])
        if options:
            named[options[0]] = arguments[0]
    assert named == SHARED
    assert all(f"`{scheme}`" in table for scheme in SCHEMES)
    helps = {command: build_parser().commands()[command].format_help() for command in ("compare", "audit", "swell")}
    for command, names in WHERE.items():
        for name in names:
            assert f"--{name}" in helps[command]
    assert all(scheme in build_parser().commands()["compare"].format_help() or True for scheme in SCHEMES)


def test_the_methods_are_the_new_names():
    from diffcompare.methods.registry import ALL_METHODS
    names = set().union(*ALL_METHODS.values())
    assert {"forward-difference", "backward-difference", "central-difference", "forward-mode"} <= names
    assert not {"forward", "backward", "central"} & names


def _renamed(call):
    """What ``call()`` returned, and the renamed warnings it gave (their messages)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught if issubclass(w.category, RenamedWarning)]


def _square_gradient(x):
    return 2 * x


@pytest.mark.parametrize("call, old, new", [
    (lambda: diffcompare.compare("x**2", at={"x": 1.5}, methods="autograd,central", repeat=1), "'central'",
     "'central-difference'"),
    (lambda: diffcompare.compare("x**2", at={"x": 1.5}, methods=["forward", "backward"], repeat=1), "'forward'",
     "'forward-difference'"),
    (lambda: diffcompare.compare("x**2", at={"x": 1.5}, methods="autograd", grad=_square_gradient, repeat=1),
     "grad=", "gradient="),
    (lambda: diffcompare.audit("x**2", at={"x": 1.0}, check="gradient"), "check=", "kind="),
    (lambda: diffcompare.audit("x**2", domain={"x": (-1, 1)}, random=2), "random=", "points="),
    (lambda: diffcompare.audit("x**2", points=[{"x": 1.0}]), "points= of explicit points", "at="),
    (lambda: diffcompare.audit("x**2", at={"x": 1.0}, grad=_square_gradient), "grad=", "gradient="),
    (lambda: assert_gradients("x**2", at={"x": 1.0}, grad=_square_gradient), "grad=", "gradient="),
    (lambda: assert_gradients("x**2", at={"x": 1.0}, check="gradient"), "check=", "kind="),
    (lambda: diffcompare.swell("logistic", ns=[1]), "ns=", "n="),
    (lambda: diffcompare.step_sweep("exp(x)", {"x": 1.0}, schemes="forward,central", precisions="float64"),
     "'forward'", "'forward-difference'"),
])
def test_every_old_spelling_still_works_and_names_the_new_one(call, old, new):
    _, said = _renamed(call)
    assert any(old in m.split(" is renamed ")[0] and f"renamed {new}" in m for m in said), said


def test_old_spellings_give_what_the_new_ones_give():
    new = diffcompare.compare("x**3", at={"x": 2.0}, methods="autograd,central-difference", repeat=1)
    old, _ = _renamed(lambda: diffcompare.compare("x**3", at={"x": 2.0}, methods="autograd,central", repeat=1))
    assert [m.name for m in old.methods] == [m.name for m in new.methods] == ["autograd", "central-difference"]
    assert old.method("central-difference").values() == new.method("central-difference").values()
    looked_up, said = _renamed(lambda: new.method("central"))           # a result looked up by its old name
    assert looked_up is new.method("central-difference") and said
    report, _ = _renamed(lambda: diffcompare.audit("x**2", points=[{"x": 0.5}, {"x": 2.0}], random=3,
                                                   domain={"x": (-1, 1)}))
    asked = [p for p in report.cases[0].points if p.asked]
    assert [p.point["x"] for p in asked] == [0.5, 2.0]          # the old explicit points, at the new at=


def test_a_misspelt_argument_is_still_a_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'gradeint'"):
        diffcompare.compare("x**2", at={"x": 1.0}, gradeint=_square_gradient)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nn'"):
        diffcompare.swell("logistic", [1], nn=[1])


def test_an_old_suite_key_still_works_and_is_reported(tmp_path):
    from diffcompare.auditing.suite import parse_suite
    suite, said = _renamed(lambda: parse_suite('[defaults]\nrandom = 2\n\n[[case]]\nname = "sq"\nexpression = "x**2"\n'
                                               'domain = { x = [-1, 1] }\ncheck = "gradient"\n', "old.toml"))
    case = suite.cases[0]
    assert not case.error and case.kind == "gradient" and case.random == 2
    assert any("'check' is renamed 'kind'" in m for m in said) and any("'random' is renamed 'points'" in m
                                                                          for m in said)


@pytest.mark.parametrize("call, python, option", [
    (lambda: diffcompare.compare("x*y", at={"x": 1.0}), "add y=... to at=", "--at"),
    (lambda: diffcompare.compare("x*y", at={"x": 1.0, "y": 2.0}, points=5), "points= needs a region: box=", "--points"),
    (lambda: diffcompare.compare("[x, y]", at={"x": 1.0, "y": 2.0}, kind="vjp"), "e.g. vector=", "--vjp"),
    (lambda: diffcompare.swell("logistic", "1..x"), "n='1..x'", "--n"),
    (lambda: diffcompare.step_sweep("x*y", {"x": 1.0, "y": 2.0}), "say which one with variable=", "--var"),
])
def test_errors_from_python_name_python_arguments(call, python, option):
    with pytest.raises(InputError) as raised:
        call()
    message = str(raised.value)
    assert python in message and option not in message, message


def _cli(*argv):
    done = subprocess.run([sys.executable, "-m", "diffcompare", *argv], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_the_command_line_notes_an_old_method_name_and_runs_it():
    code, out, err = _cli("compare", "x**2", "--at", "x=1.5", "--methods", "autograd,central", "--repeat", "1",
                          "--format", "json")
    assert code == 0 and '"central-difference"' in out
    assert "diffcompare compare: note: the method 'central' is renamed 'central-difference'" in err
    assert "Traceback" not in err and "Warning" not in err


def test_the_command_line_notes_an_old_scheme_and_an_old_suite_key(tmp_path):
    code, out, err = _cli("steps", "exp(x)", "--at", "x=1", "--schemes", "forward", "--precision", "float64",
                          "--format", "json")
    assert code == 0 and '"forward-difference"' in out and "'forward' is renamed 'forward-difference'" in err
    suite = tmp_path / "old_audit.toml"
    suite.write_text('[[case]]\nname = "sq"\nexpression = "x**2"\ndomain = { x = [-1, 1] }\nrandom = 2\n')
    code, out, err = _cli("audit", str(suite), "--format", "json")
    assert code == 0 and "note:" in err and "'random' is renamed 'points'" in err


def test_command_line_errors_still_name_options():
    code, _, err = _cli("compare", "x*y", "--at", "x=1", "--repeat", "1")
    assert code == 2 and "add y=... to --at" in err and "at=" not in err.replace("--at", "")

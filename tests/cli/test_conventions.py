"""The command as users of pytest, ruff and rich expect it, run from a folder with its own
pyproject.toml: -V, whole option names only, two-line errors with the nearest valid name,
colour by rich's environment variables, [tool.diffcompare] defaults, the audit's several
suites with -k and -x, and user code named by its file.

What depends on the process itself — the installed script's -V, colour by the environment
the command starts in, a closed or empty standard input — runs the installed command (the
``diffcompare`` script pip installed beside this Python, else ``python -m diffcompare``) in a
process of its own; the rest runs the command's ``main`` in this process, in that folder and
with the same environment (as tests/cli_runner.py's ``in_process``), where an exception
would end the test instead of printing a traceback."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest
from cli_runner import in_process

HOME = str(pathlib.Path(__file__).resolve().parents[2])
SCRIPT = pathlib.Path(sys.executable).with_name("diffcompare")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "diffcompare"]
SGR = "\x1b["


def run(cwd, *args, stdin=subprocess.DEVNULL, **environment):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "CI")}
    env.update(PYTHONPATH=HOME, PYTHONDONTWRITEBYTECODE="1", COLUMNS="100", **environment)
    return subprocess.run([*COMMAND, *args], cwd=cwd, env=env, stdin=stdin,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def here(monkeypatch):
    """``here(cwd, *args)``: what ``run`` does, through ``main`` in this process."""
    for name in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "CI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COLUMNS", "100")
    return lambda cwd, *args: in_process(*args, cwd=cwd)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project: pyproject.toml with [tool.diffcompare], two suites in a folder, user code."""
    root = tmp_path_factory.mktemp("project")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.diffcompare]\ndigits = 40\nmethods = "autograd,central-difference"\n\n'
        '[tool.diffcompare.audit]\nsuites = ["checks"]\npoints = 2\n', encoding="utf-8")
    checks = root / "checks"
    (checks / "more").mkdir(parents=True)
    (checks / "ops.py").write_text(
        "def cube_gradient_wrong(x):\n    return 2 * x\n\n"
        "def partial(x):\n    return x\n", encoding="utf-8")
    (checks / "audit_first.toml").write_text(
        '[[case]]\nname = "Square"\nexpression = "x**2"\ndomain = { x = [1, 2] }\n\n'
        '[[case]]\nname = "cube, wrong gradient"\nexpression = "x**3"\ngradient = "ops.py:cube_gradient_wrong"\n'
        'domain = { x = [1, 2] }\n', encoding="utf-8")
    (checks / "more" / "second_audit.toml").write_text(
        '[[case]]\nname = "product"\nexpression = "x*y"\ndomain = { x = [1, 2], y = [1, 2] }\n\n'
        '[[case]]\nname = "signature"\nexpression = "x*y"\ngradient = "../ops.py:partial"\n'
        'domain = { x = [1, 2], y = [1, 2] }\n', encoding="utf-8")
    (checks / "more" / "audit_settings.toml").write_text("[logging]\nlevel = 1\n", encoding="utf-8")
    code = root / "lib"
    code.mkdir()
    (code / "layers.py").write_text(
        "import numpy as np\nfrom diffcompare.functions import sin\n\n"
        "def layer(x, y):\n    return sin(x) * y\n\n"
        "def layer_gradient(x):\n    return np.cos(x)\n", encoding="utf-8")
    return root


def test_dash_capital_v_is_the_version(project):
    result = run(project, "-V")
    from diffcompare import __version__                # the version the package says, not the command's words
    assert result.returncode == 0 and result.stdout.split() == ["diffcompare", __version__]


@pytest.mark.parametrize("args, wrong, nearest", [
    (("compare", "x*y", "--a", "x=1,y=2"), "--a", "--at"),                 # an abbreviation is refused ...
    (("compare", "x*y", "--at", "x=1,y=2", "--metods", "autograd"), "--metods", "--methods"),   # ... so is a typo
    (("compare", "x*y", "--at", "x=1,y=2", "--format", "jsn"), "'jsn'", "'json'"),
    (("compar", "x*y"), "'compar'", "'compare'"),
])
def test_a_mistake_is_two_lines_with_the_nearest_name(here, project, args, wrong, nearest):
    result = here(project, *args)
    lines = result.stderr.splitlines()
    command = "diffcompare compare" if args[0] == "compare" else "diffcompare"
    assert result.returncode == 2 and result.stdout == ""
    assert len(lines) == 2 and wrong in lines[0] and f"did you mean {nearest}" in lines[0]
    assert lines[1] == f"(see '{command} --help')"


def test_every_parser_refuses_abbreviations():
    from diffcompare.cli.main import build_parser
    from diffcompare.cli.parser import disallow_abbreviations
    parser = build_parser()
    parsers = [parser, *parser.commands().values()]
    commands = ("compare", "explain", "graph", "steps", "swell", "lecture", "audit", "functions", "example")
    assert set(parser.commands()) == set(commands) and all(p.allow_abbrev is False for p in parsers)
    assert len(disallow_abbreviations(parser)) == len(parsers)


@pytest.mark.parametrize("environment, coloured", [({}, False), ({"FORCE_COLOR": "1"}, True),
                                                    ({"TTY_COMPATIBLE": "1"}, True),
                                                    ({"FORCE_COLOR": "1", "TTY_COMPATIBLE": "0"}, False)])
def test_colour_in_a_pipe_follows_rich(project, environment, coloured):
    result = run(project, "functions", **environment)
    assert result.returncode == 0 and (SGR in result.stdout) == coloured


def test_pyproject_sets_defaults_and_show_config_says_where_from(here, project):
    result = here(project, "compare", "x*y", "--at", "x=1,y=2", "--methods", "autograd", "--show-config")
    assert result.returncode == 0
    said = {line.split("=")[0].strip(): line.split("#")[1].strip() for line in result.stdout.splitlines()
            if "=" in line and not line.startswith("#")}
    pyproject = str(project / "pyproject.toml")
    assert said["digits"] == f"{pyproject} [tool.diffcompare]" and "digits = 40 " in result.stdout
    assert said["methods"] == "command line" and 'methods = "autograd"' in result.stdout
    assert said["repeat"] == "default"
    result = here(project / "lib", "compare", "x*y", "--at", "x=1,y=2", "--repeat", "1", "--format", "json")
    command = json.loads(result.stdout)["command"]          # found from a folder below the file
    assert (command["digits"], command["methods"], command["repeat"]) == (40, ["autograd", "central-difference"], 1)


@pytest.mark.parametrize("line, named", [('metods = "autograd"', "'methods'"), ('digits = "40"', "whole number")])
def test_a_bad_pyproject_key_or_type_is_bad_input(here, tmp_path, line, named):
    (tmp_path / "pyproject.toml").write_text(f"[tool.diffcompare]\n{line}\n", encoding="utf-8")
    result = here(tmp_path, "compare", "x", "--at", "x=1")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert str(tmp_path / "pyproject.toml") in result.stderr and line.split(" ")[0] in result.stderr
    assert named in result.stderr


def test_audit_runs_the_configured_suites_as_one_audit(here, project):
    result = here(project, "audit", "--format", "json")
    report = json.loads(result.stdout)
    names = [case["name"] for case in report["cases"]]
    # both suites of the folder (not audit_settings.toml, which has no cases), named by suite file
    assert sorted(names) == sorted(["checks/audit_first.toml::Square", "checks/audit_first.toml::cube, wrong gradient",
                                    "checks/more/second_audit.toml::product",
                                    "checks/more/second_audit.toml::signature"])
    statuses = {case["name"].split("::")[1]: case["status"] for case in report["cases"]}
    assert statuses == {"Square": "pass", "cube, wrong gradient": "fail", "product": "pass", "signature": "error"}
    assert result.returncode == 1                   # a wrong gradient comes before bad input


def test_audit_k_selects_as_pytest_does(here, project):
    result = here(project, "audit", "checks", "-k", "square or (second and not signature)", "--format", "json")
    names = sorted(case["name"].split("::")[1] for case in json.loads(result.stdout)["cases"])
    assert names == ["Square", "product"] and result.returncode == 0
    result = here(project, "audit", "checks", "-k", "nothing_like_it")
    assert result.returncode == 5 and "selects none of the 4 cases" in result.stderr


def test_audit_x_stops_after_the_first_wrong_gradient(here, project):
    result = here(project, "audit", "checks/audit_first.toml", "checks/more", "-x", "-k", "not square", "-q")
    assert result.returncode == 1
    assert "cube, wrong gradient" in result.stdout and "product" not in result.stdout
    assert "2 of 3 cases not run" in result.stderr


def test_audit_without_suites_says_what_to_give(here, tmp_path):
    result = here(tmp_path, "audit")
    assert result.returncode == 2 and "[tool.diffcompare.audit] suites" in result.stderr


def test_a_gradient_with_the_wrong_signature_and_code_named_by_its_file(here, project):
    result = here(project, "compare", "lib/layers.py:layer", "--at", "x=1,y=2", "--gradient",
                 "lib/layers.py:layer_gradient")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1
    assert "takes (x)" in result.stderr and "layer_gradient(x, y)" in result.stderr
    result = here(project, "compare", "lib/layers.py:layr", "--at", "x=1,y=2")
    assert result.returncode == 2 and "did you mean 'layer'?" in result.stderr


@pytest.mark.parametrize("stdin, word", [(None, "closed"), (subprocess.DEVNULL, "empty")])
def test_expr_from_a_closed_or_empty_standard_input_is_bad_input(project, stdin, word):
    if stdin is None:
        # the child starts with file descriptor 0 closed
        reader, writer = os.pipe()
        os.close(writer)
        result = subprocess.run([sys.executable, "-c", "import os, sys, subprocess; os.close(0); sys.exit(subprocess.run("
                                 "[sys.executable, '-m', 'diffcompare', 'compare', '-', '--at', 'x=1'], stdin=None)"
                                 ".returncode)"], cwd=project, capture_output=True, text=True, timeout=120,
                                env={**os.environ, "PYTHONPATH": HOME, "PYTHONDONTWRITEBYTECODE": "1"}, stdin=reader)
        os.close(reader)
    else:
        result = run(project, "compare", "-", "--at", "x=1", stdin=stdin)
    assert result.returncode == 2 and f"standard input is {word}" in result.stderr

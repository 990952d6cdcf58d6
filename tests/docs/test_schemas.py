"""Every JSON report has the same envelope and matches the JSON Schema shipped with the
package for its kind (diffcompare/schemas/KIND.schema.json)."""

from __future__ import annotations

import importlib.resources
import json

import pytest
from cli_runner import run

jsonschema = pytest.importorskip("jsonschema")

COMMANDS = {
    "compare": [["compare", "sin(x)*exp(y)", "--at", "x=1,y=2", "--repeat", "1"],
                ["compare", "[x*y, sin(x)]", "--at", "x=1,y=2", "--repeat", "1"],
                ["compare", "sin(x)*y", "--box", "x=-1:1,y=0:2", "--points", "20", "--repeat", "1"],
                ["compare", "sum(x*x)", "--at", "x=[1,2]", "--order", "2", "--repeat", "1"]],
    "explain": [["explain", "sin(x)*x", "--at", "x=2", "--check"],
                ["explain", "[x*y, exp(y)]", "--at", "x=1,y=2", "--vjp", "1,0.5"]],
    "steps": [["steps", "exp(x)", "--at", "x=1"]],
    "audit": [["audit", "tests/golden/suites/wrong.toml", "--points", "2"]],
    "swell": [["swell", "logistic", "--n", "1..3", "--expressions", "2"]],
}


def schema(kind):
    path = importlib.resources.files("diffcompare") / "schemas" / f"{kind}.schema.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("kind, argv", [(k, a) for k, commands in COMMANDS.items() for a in commands])
def test_reports_match_their_schema(kind, argv, capsys):
    code, out = run(argv + ["--format", "json"], capsys)
    data = json.loads(out.out)
    jsonschema.validate(data, schema(kind))
    assert list(data)[:5] == ["report", "schema_version", "diffcompare", "command", "exit_status"]
    assert data["exit_status"] == code


@pytest.mark.parametrize("kind", sorted(COMMANDS))
def test_the_schemas_are_valid_and_shipped(kind):
    jsonschema.Draft202012Validator.check_schema(schema(kind))


def test_a_schema_catches_a_wrong_report(capsys):
    code, out = run(COMMANDS["steps"][0] + ["--format", "json"], capsys)
    data = json.loads(out.out)
    del data["command"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema("steps"))


@pytest.mark.parametrize("extension, start", [(".json", "{"), (".md", "## "), (".tex", "% diffcompare"), (".html", "<!doctype html>"),
                                              (".txt", "f = ")])
def test_output_takes_its_format_from_the_extension(extension, start, tmp_path, capsys):
    path = tmp_path / f"report{extension}"
    code, out = run(["compare", "sin(x)", "--at", "x=1", "--repeat", "1", "--output", str(path)], capsys)
    assert code == 0 and path.read_text().lstrip().startswith(start)


def test_an_explicit_format_wins_and_an_unknown_extension_is_refused(tmp_path, capsys):
    path = tmp_path / "report.json"
    code, out = run(["compare", "sin(x)", "--at", "x=1", "--repeat", "1", "--output", str(path), "--format", "text"],
                    capsys)
    assert code == 0 and path.read_text().startswith("f = ")
    code, out = run(["compare", "sin(x)", "--at", "x=1", "--repeat", "1", "--output", str(tmp_path / "r.xyz")], capsys)
    assert code == 2 and "the extension .xyz names no format" in out.err and not (tmp_path / "r.xyz").exists()

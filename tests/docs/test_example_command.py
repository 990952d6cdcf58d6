"""The examples the help names ship inside the package: `diffcompare example` lists them,
prints one, and writes one with the files it needs into a folder, never over a file."""

from __future__ import annotations

import pathlib
import re

from cli_runner import run

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_the_listed_examples_are_the_repository_s_files(capsys, tmp_path):
    code, out = run(["example", "--list"], capsys)
    names = re.findall(r"^([a-z-]+): ", out.out, flags=re.M)
    assert code == 0 and "audit-suite" in names and "backward-basics" in names
    code, out = run(["example", "audit-suite", "--into", str(tmp_path)], capsys)
    assert code == 0
    for name in ("audit_suite.toml", "audit_ops.py"):
        assert (tmp_path / name).read_text() == (EXAMPLES / name).read_text()


def test_an_example_prints_and_names_what_it_needs(capsys):
    code, out = run(["example", "audit-suite"], capsys)
    assert code == 0 and out.out == (EXAMPLES / "audit_suite.toml").read_text()
    assert "audit_ops.py" in out.err and "--into" in out.err


def test_what_the_help_names_can_be_written(capsys):
    """Every examples/ file the help names is one of an example's files."""
    from diffcompare.cli import help as texts
    from diffcompare.render.examples import catalogue
    named = set(re.findall(r"examples/([\w.]+\.(?:py|toml))", " ".join(v for v in vars(texts).values()
                                                                      if isinstance(v, str))))
    shipped = {f for e in catalogue() for f in e["files"]}
    assert named and named <= shipped


def test_no_file_is_overwritten_and_bad_names_are_one_line(capsys, tmp_path):
    (tmp_path / "audit_ops.py").write_text("mine")
    code, out = run(["example", "audit-suite", "--into", str(tmp_path)], capsys)
    assert code == 2 and "already exists; nothing was written" in out.err
    assert (tmp_path / "audit_ops.py").read_text() == "mine" and not (tmp_path / "audit_suite.toml").exists()
    code, out = run(["example", "nope"], capsys)
    assert code == 2 and "no example called 'nope'" in out.err and len(out.err.strip().splitlines()) == 1

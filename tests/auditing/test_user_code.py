"""User code that exits, raises a BaseException or hangs: the audit reports that case and
goes on; it never exits 0 with nothing checked."""

from __future__ import annotations

import textwrap

import pytest
from cli_runner import run

OPS = textwrap.dedent('''
    import os
    import sys
    import time

    from diffcompare.functions import sin


    class Custom(BaseException):
        pass


    def exits(x):
        sys.exit(0)


    def hard_exit(x):
        os._exit(0)


    def custom(x):
        raise Custom("boom")


    def sleepy(x):
        time.sleep(60)
        return x


    def fine(x):
        return sin(x) * x
''')


def suite(tmp_path, *names):
    (tmp_path / "user_ops.py").write_text(OPS)
    cases = "".join(f'[[case]]\nname = "{n}"\nfunction = "user_ops:{n}"\ndomain = {{ x = [-1, 1] }}\n' for n in names)
    path = tmp_path / "suite.toml"
    path.write_text(cases)
    return str(path)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_exits_and_base_exceptions_are_bad_cases_not_a_silent_pass(tmp_path, capsys, jobs):
    path = suite(tmp_path, "exits", "hard_exit", "custom", "fine")
    code, out = run(["audit", path, "--points", "2", "--jobs", jobs, "--format", "json"], capsys)
    import json
    report = json.loads(out.out)
    status = {c["name"]: c["status"] for c in report["cases"]}
    assert code == 2 and status == {"exits": "error", "hard_exit": "error", "custom": "error", "fine": "pass"}
    errors = {c["name"]: c["error"] for c in report["cases"]}
    assert "sys.exit(0)" in errors["exits"] and "the function called os._exit(0) (" in errors["hard_exit"]
    assert "Custom" in errors["custom"]


def test_a_module_that_exits_at_import_is_a_bad_case(tmp_path, capsys):
    (tmp_path / "leaves.py").write_text("import sys\nsys.exit(0)\n")
    path = tmp_path / "suite.toml"
    path.write_text('[[case]]\nname = "leaves"\nfunction = "leaves:f"\ndomain = { x = [-1, 1] }\n')
    code, out = run(["audit", str(path), "--points", "1"], capsys)
    assert code == 2 and "sys.exit(0)" in out.out


def test_a_function_that_hangs_runs_out_of_the_audits_time_and_says_so(tmp_path, capsys):
    # the budget is the whole audit's: what ran before is kept, what could not run is undecided
    path = suite(tmp_path, "fine", "sleepy")
    # (8 s: time for a worker process to start and check "fine" on a heavily loaded machine)
    code, out = run(["audit", path, "--points", "1", "--no-adversarial", "--timeout", "8"], capsys)
    assert code == 4 and "timed out: the audit's time budget (8 s) ran out" in out.out and "pass fine" in out.out

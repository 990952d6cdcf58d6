"""Reports written whole or not at all, to exactly the file asked for; streams that close;
text that cannot reach the terminal as control characters."""

from __future__ import annotations

import os
import subprocess
import sys
from xml.etree import ElementTree

import pytest
from cli_runner import run

from diffcompare.cli.main import visible
from diffcompare.render.files import write_whole


def test_a_write_cut_short_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "report.json"
    target.write_text("old contents")

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        write_whole(str(target), "new contents")
    assert target.read_text() == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]      # no temporary file left


def test_output_to_a_folder_or_a_full_device_is_an_error(tmp_path, capsys):
    code, out = run(["compare", "x", "--at", "x=1", "--repeat", "1", "--format", "json", "--output", str(tmp_path)],
                    capsys)
    assert code == 2 and "it is a folder" in out.err
    if os.path.exists("/dev/full"):
        code, out = run(["compare", "x", "--at", "x=1", "--repeat", "1", "--format", "json", "--output",
                         "/dev/full"], capsys)
        assert code == 2 and "No space left" in out.err and "wrote" not in out.err


def test_every_report_that_can_be_written_is_and_a_wrong_gradient_still_says_1(tmp_path, capsys):
    suite = tmp_path / "suite.toml"
    suite.write_text('[[case]]\nname = "wrong"\nexpression = "x**3"\nreference = "2*x**3"\n'
                     'domain = { x = [1, 2] }\n')
    good = tmp_path / "good.md"
    code, out = run(["audit", str(suite), "--points", "2", "--report", str(tmp_path / "nofolder" / "bad.json"),
                     "--report", str(good)], capsys)
    assert good.exists() and "cannot write" in out.err
    assert code == 1                    # the gradient is wrong: that is what CI must read


def test_a_case_name_with_control_characters_stays_well_formed_junit(tmp_path, capsys):
    suite = tmp_path / "suite.toml"
    suite.write_text('[[case]]\nname = "bell\\u0007case"\nexpression = "sin(x)"\ndomain = { x = [-1, 1] }\n')
    report = tmp_path / "r.xml"
    code, out = run(["audit", str(suite), "--points", "2", "--report", str(report)], capsys)
    root = ElementTree.parse(report).getroot()          # raises if not well formed
    assert root.find(".//testcase").get("name") == "bell\\x07case"


def test_a_plot_goes_to_exactly_the_path_given(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    target = tmp_path / "curve"                         # no extension: matplotlib would add .png
    code, out = run(["steps", "sin(x)", "--at", "x=1", "--plot", str(target)], capsys)
    assert code == 0 and target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (tmp_path / "curve.png").exists()


def test_a_closed_pipe_is_not_read_as_a_wrong_gradient():
    script = ("import sys; from diffcompare.cli.main import main; "
              "sys.exit(main(['compare', 'sin(x)*exp(y)', '--at', 'x=1,y=2', '--repeat', '1']))")
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()                              # the reader goes away at once
    code = process.wait(timeout=120)
    error = process.stderr.read().decode()
    assert code == 2 and "standard output was closed" in error and "Traceback" not in error


def test_control_characters_are_shown_never_sent(capsys):
    code, out = run(["compare", "x+\x1b]0;pwned\x07", "--at", "x=1"], capsys)
    assert code == 2 and "\x1b" not in out.err and "\\x1b" in out.err
    assert visible("a\tb\n") == "a\\x09b\n"

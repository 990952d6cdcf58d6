"""The installed `diffcompare` command: --help teaches, --version answers, and both are quick."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from diffcompare import __version__


def run(*args):
    exe = shutil.which("diffcompare")
    command = [exe, *args] if exe else [sys.executable, "-m", "diffcompare.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_help_explains_the_tool():
    result = run("--help")
    assert result.returncode == 0
    assert "reverse-mode automatic" in result.stdout and "finite differences" in result.stdout
    assert "backward(" in result.stdout


def test_version():
    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"diffcompare {__version__}"


def test_unknown_option_is_a_clear_error():
    result = run("--frobnicate")
    assert result.returncode == 2 and "unrecognized option --frobnicate" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_does_not_import_numpy(tmp_path):
    code = ("import sys; from diffcompare.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('numpy' in sys.modules, 'sympy' in sys.modules)")
    # run from a neutral directory, so the installed package is imported, as a user would
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.stdout.strip().endswith("False False"), result.stderr


def test_python_m_diffcompare_runs_from_the_repository_root():
    # the checkout's own diffcompare/ folder comes first on the path there: the command line
    # must be inside it (it once lived in a top-level cli/ that only an install mapped in)
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-m", "diffcompare", "compare", "x**2", "--at", "x=3",
                             "--methods", "autograd", "--repeat", "1", "--format", "json"],
                            capture_output=True, text=True, timeout=120, cwd=root)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["methods"][0]["values"] == [6.0]

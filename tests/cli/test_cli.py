"""The installed `diffcompare` command: --help teaches, --version answers, and both are quick."""

import shutil
import subprocess
import sys

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
    assert result.returncode == 2 and "unrecognized arguments: --frobnicate" in result.stderr
    assert "Traceback" not in result.stderr


def test_help_does_not_import_numpy(tmp_path):
    code = ("import sys; from diffcompare.cli.main import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print('numpy' in sys.modules, 'sympy' in sys.modules)")
    # run from a neutral directory, so the installed package is imported, as a user would
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.stdout.strip().endswith("False False"), result.stderr

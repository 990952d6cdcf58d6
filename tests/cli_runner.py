"""The command line run in this process, for the tool's tests: its exit status (argparse's
SystemExit included) and what it wrote."""

import contextlib
import io
import os
import sys
import types

from diffcompare.cli.main import main


def run(argv, capsys):
    """(exit status, captured output with .out and .err) of ``diffcompare argv``."""
    try:
        code = main(argv)
    except SystemExit as exit:
        code = exit.code
    return code, capsys.readouterr()


def in_process(*args, cwd=None, stdin=None):
    """``diffcompare ARGS`` run in this process as the installed command runs it (its
    ``main``), in ``cwd``, with ``stdin`` as standard input: the exit status and both
    streams, as ``subprocess.run`` gives them (tests/cli/test_cli.py runs the command
    itself in a process of its own)."""
    out, err, here, saved = io.StringIO(), io.StringIO(), os.getcwd(), sys.stdin
    try:
        if cwd is not None:
            os.chdir(cwd)
        if stdin is not None:
            sys.stdin = io.StringIO(stdin)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 2)
    finally:
        os.chdir(here)
        sys.stdin = saved
    return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())

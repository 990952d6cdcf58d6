"""The command line run in this process, for the tool's tests: its exit status (argparse's
SystemExit included) and what it wrote."""

from diffcompare.cli.main import main


def run(argv, capsys):
    """(exit status, captured output with .out and .err) of ``diffcompare argv``."""
    try:
        code = main(argv)
    except SystemExit as exit:
        code = exit.code
    return code, capsys.readouterr()

"""The README's sample outputs: every ``$ diffcompare ...`` block under the marker
``<!-- sample -->`` is what the command prints in a pipe at SAMPLE_COLUMNS columns (times
and their spreads masked). ``python tests/docs/readme_samples.py`` writes them again;
``test_readme_samples.py`` checks them.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MARKER = "<!-- sample -->"
SAMPLE_COLUMNS = 100
BLOCK = re.compile(re.escape(MARKER) + r"\n```\n\$ diffcompare (?P<command>[^\n]*)\n(?P<output>.*?)```", re.S)
DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:s|ms|µs|ns)\b( ±\s*\d+%)?")


def output_of(command: str) -> str:
    """What ``diffcompare command`` prints to standard output in a pipe."""
    from diffcompare.cli.main import main
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(SAMPLE_COLUMNS)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(shlex.split(command))
            except SystemExit:
                pass
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved
    return out.getvalue() + err.getvalue()


def masked(text: str) -> str:
    """Times vary from run to run: they are compared as <time>, and the columns' padding
    (which follows the times' widths) as one space."""
    return re.sub(r" {2,}", " ", DURATION.sub("<time>", text))


def samples(text: str):
    """(command, output as written) for every sample block of the README."""
    return [(m.group("command"), m.group("output")) for m in BLOCK.finditer(text)]


def rewrite() -> None:
    text = README.read_text(encoding="utf-8")

    def fresh(match):
        return f"{MARKER}\n```\n$ diffcompare {match.group('command')}\n{output_of(match.group('command'))}```"
    README.write_text(BLOCK.sub(fresh, text), encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    rewrite()
    print(f"rewrote {len(samples(README.read_text(encoding='utf-8')))} samples in {README}")

"""What the command line shows on a terminal or writes to a pipe: the width of text, a rich
console whose closed pipe is reported (not read as "a gradient is wrong"), a progress bar on
standard error, and the table of functions. Rich is imported when one of them is used, so
that ``diffcompare --help`` stays quick.

>>> import os
>>> os.environ.pop("COLUMNS", None) and None
>>> pipe_width()
80
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

from diffcompare.language.table import CALLABLE, CONSTANTS
from diffcompare.render.common import fitted_table, plain_lines

PROGRESS_AFTER = 1.0        # seconds of work before a progress bar appears


def pipe_width() -> int:
    """The width of text written to a pipe or a file: COLUMNS when it is a sensible number
    of columns, else 80."""
    text = os.environ.get("COLUMNS", "")
    return int(text) if text.isdigit() and 20 <= int(text) <= 1000 else 80


def text_width() -> int:
    """The width text is written at: the terminal's (as rich sees it, see :func:`is_terminal`),
    or in a pipe :func:`pipe_width`."""
    shown = console()
    return shown.width if shown.is_terminal else pipe_width()


def is_terminal() -> bool:
    """Whether standard output gets the terminal's report (colour, the terminal's width) or
    plain text: rich's rules decide -- TTY_COMPATIBLE=1 or 0, FORCE_COLOR set and not empty,
    else whether standard output is a terminal; NO_COLOR keeps the layout and drops the colours."""
    return console().is_terminal


def console(**options):
    """A rich console on standard output whose closed pipe raises BrokenPipeError (rich's
    own answer is SystemExit(1), which would read as "a gradient is wrong"); never a
    notebook's display (the command line run inside Jupyter writes text to standard output)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self):
            raise BrokenPipeError
    return _Console(**{"force_jupyter": False, **options})


def progress_bar(doing: str, unit: str = ""):
    """A progress bar on the terminal's standard error (none in CI or a pipe), shown once
    the work has taken PROGRESS_AFTER seconds: the context yields ``update(done, total,
    what="")``, or None where no bar can be shown."""
    if not sys.stderr.isatty() or os.environ.get("CI"):
        return contextlib.nullcontext(None)

    @contextlib.contextmanager
    def bar():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
        # refreshed on each update, not by a thread
        progress = Progress(TextColumn(doing), BarColumn(), MofNCompleteColumn(), TextColumn(unit),
                            TextColumn("{task.description}", style="dim"), TimeElapsedColumn(),
                            console=Console(stderr=True, force_jupyter=False), transient=True, auto_refresh=False)
        start, shown, task = time.perf_counter(), [False], [None]

        def update(done, total, what=""):
            if not shown[0] and time.perf_counter() - start < PROGRESS_AFTER:
                return
            if not shown[0]:
                progress.start()
                task[0] = progress.add_task(what, total=total)
                shown[0] = True
            progress.update(task[0], completed=done, total=total, description=what, refresh=True)
        try:
            yield update
        finally:
            if shown[0]:
                progress.stop()
    return bar()


def print_functions() -> None:
    """The table of functions on standard output: fitted to the terminal, or plain text at
    :func:`pipe_width` in a pipe."""
    headers = ["name", "arity", "meaning", "domain", "complex step"]
    rows = [[row.name, str(row.arity), row.doc, row.domain,
             "yes" if row.complex is not None else f"no: {row.not_complex_safe}"]
            for row in list(CALLABLE.values()) + list(CONSTANTS.values())]
    terminal = is_terminal()
    shown = console(highlight=False, **({} if terminal else {"width": pipe_width(), "color_system": None}))
    table, _ = fitted_table(shown, headers, rows, drop_order=("arity",), wrap=headers[2:], left=headers,
                            prose_width=16, box=None, header_style="bold")
    if terminal:
        shown.print(table)
    else:
        with shown.capture() as captured:
            shown.print(table)
        sys.stdout.write(plain_lines(captured.get()))

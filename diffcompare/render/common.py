"""What every renderer shares: the formats and their dispatch, number formats, verdict
colours, and escaping for LaTeX and Markdown. Non-finite numbers, which JSON cannot hold,
are the strings "nan", "inf" and "-inf".
"""

from __future__ import annotations

import io
import json
import math

from diffcompare.render import html
from diffcompare.version import __version__

FORMATS = ("text", "json", "markdown", "latex", "html")


def envelope(kind: str, schema_version: int, command: dict, exit_status: int, body: dict) -> dict:
    """Every JSON report's first keys — ``report`` (its kind), ``schema_version``, the
    ``diffcompare`` version that wrote it, the ``command``'s inputs and the
    ``exit_status`` — then the report itself (the schemas are in diffcompare/schemas)."""
    return {"report": kind, "schema_version": schema_version, "diffcompare": __version__, "command": command,
            "exit_status": exit_status, **body}


def seconds(t: float | None) -> str:
    """Human units: 1.2 µs, 3.4 ms.

    >>> seconds(1.234e-6), seconds(0.0125), seconds(None)
    ('1.23 µs', '12.5 ms', '—')
    """
    if t is None:
        return "—"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if t >= scale or unit == "ns":
            return f"{t / scale:.3g} {unit}"
    return f"{t:.3g} s"


def number(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return repr(float(v))


def small(v) -> str:
    return "—" if v is None else ("0" if v == 0 else f"{v:.2e}")


def json_number(v):
    """A number as JSON can hold it: non-finite floats become "nan", "inf", "-inf"."""
    if v is None:
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def render_report(c, format: str, width: int | None, module) -> str:
    """The report ``c`` in ``format`` by the renderer ``module`` (its ``as_dict``,
    ``markdown``, ``latex_report`` and ``print_report``)."""
    if format == "json":
        return json.dumps(module.as_dict(c), indent=2, ensure_ascii=False)
    if format == "markdown":
        return module.markdown(c)
    if format == "latex":
        return module.latex_report(c)
    if format == "text":
        buffer = io.StringIO()
        module.print_report(c, text_console(buffer, width or 120))
        return plain_lines(buffer.getvalue())
    if format == "html":
        if hasattr(module, "html_report"):
            body = module.html_report(c)
        else:       # a report with no HTML of its own: its text, wide enough that no column is left out
            body = html.fragment([html.preformatted(render_report(c, "text", HTML_TEXT_WIDTH, module))])
        return html.page(module.headline(c), body)
    raise ValueError(f"unknown format {format!r}; choose from {', '.join(FORMATS)}")


HTML_TEXT_WIDTH = 200      # the text of a report shown as HTML when it has no HTML of its own


def text_console(file, width: int):
    """A rich console writing plain text to ``file`` (a StringIO), never to a notebook: rich
    would otherwise detect Jupyter and display what is printed to a string as a side effect."""
    from rich.console import Console
    return Console(file=file, width=width, color_system=None, highlight=False, force_jupyter=False)


def plain_lines(text: str) -> str:
    """Text without the spaces rich pads lines with (a file or a pipe gets no trailing spaces)."""
    return "\n".join(line.rstrip() for line in text.split("\n"))


def fitted_table(console, headers, rows, drop_order=(), wrap=(), left=(), styles=None, prose_width=None, **options):
    """(a rich Table of ``rows`` that fits ``console``'s width, the headers left out).

    Numbers and names never break: every column keeps its cells on one line, but the
    ``wrap`` columns (prose, which wraps at words and may shrink to ``prose_width``). While
    the table is wider than the console, the columns of ``drop_order`` are left out,
    first to last; the caller says which were, in a note. ``left``: left-justified columns
    (others align right); ``styles``: column -> a function of the cell giving its style."""
    shown = list(headers)
    dropped = []
    while True:
        left_to_drop = [h for h in drop_order if h in shown]
        if not left_to_drop or _natural_width(headers, rows, shown, wrap, options,
                                              prose_width or PROSE_WIDTH) <= console.width:
            return _table(headers, rows, shown, wrap, left, styles, options), dropped
        shown.remove(left_to_drop[0])
        dropped.append(left_to_drop[0])


def fitted_tables(console, headers, rows, key, drop_order=(), **options):
    """([tables], headers shown in none): :func:`fitted_table`, and the columns it leaves
    out moved to a second table beside the ``key`` columns (a step's number, a name), so
    that a narrow terminal keeps everything; what fits in neither is named by the caller."""
    title = options.pop("title", None)
    table, dropped = fitted_table(console, headers, rows, drop_order=drop_order, title=title, **options)
    tables = [table]
    while dropped:              # what did not fit goes to the next table, beside the key columns
        moved = [h for h in headers if h in key or h in dropped]
        index = [headers.index(h) for h in moved]
        table, left_out = fitted_table(console, moved, [[row[i] for i in index] for row in rows],
                                       drop_order=[h for h in drop_order if h in dropped][::-1], **options)
        if len(left_out) == len(dropped):       # not one more column fits beside the keys
            return tables, dropped
        tables.append(table)
        dropped = left_out
    return tables, []


PROSE_WIDTH = 24        # the narrowest a prose column of a table is made


def _table(headers, rows, shown, wrap, left, styles, options, prose_width=None):
    """The table of the ``shown`` columns; a prose column is never narrower than its longest
    word (words do not break), and, with ``prose_width``, no wider than that either."""
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text
    table = Table(**options)
    for h in shown:
        j = headers.index(h)
        longest = max(cell_len(word) for text in [h] + [str(row[j]) for row in rows] for word in text.split() or [""])
        table.add_column(h, justify="left" if h in left else "right", no_wrap=h not in wrap,
                         overflow="fold" if h in wrap else "ellipsis",
                         min_width=longest if h in wrap else None,
                         max_width=max(prose_width, longest) if h in wrap and prose_width else None)
    index = [headers.index(h) for h in shown]
    for row in rows:
        table.add_row(*(Text(str(row[i]), style=(styles or {}).get(h, lambda _: "")(row[i]))
                        for h, i in zip(shown, index)))
    return table


def _natural_width(headers, rows, shown, wrap, options, prose_width) -> int:
    """The width the table takes with no cell broken (its prose columns ``prose_width`` wide)."""
    wide = text_console(io.StringIO(), 10_000)
    table = _table(headers, rows, shown, wrap, (), None, options, prose_width=prose_width)
    with wide.capture() as captured:
        wide.print(table)
    return max((len(line.rstrip()) for line in captured.get().split("\n")), default=0)


def dropped_note(dropped, width) -> str:
    """The note under a table whose columns did not all fit."""
    return (f"not shown at {width} columns: {', '.join(dropped)} (a wider terminal, COLUMNS=200 in a pipe, or "
            f"--format json shows them)")


VERDICT_STYLE = {"pass": "green", "fail": "bold red", "failed": "bold red", "not judged": "yellow", "inconclusive": "yellow",
                  "not applicable": "dim", "timed out": "yellow"}


def tex(text: str) -> str:
    """Text made safe for LaTeX (special characters escaped, a few symbols as math)."""
    replacements = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                    "∂": r"$\partial$", "µ": r"$\mu$", "—": "---", "×": r"$\times$", "→": r"$\to$",
                    "∇": r"$\nabla$", "ᵀ": r"$^\top$", "²": r"$^2$", "≈": r"$\approx$", "±": r"$\pm$"}
    return "".join(replacements.get(ch, ch) for ch in text)


LATEX_COLUMNS = 7       # columns a slide holds: wider tables are split
BOOKTABS = r"% needs \usepackage{booktabs} (\toprule, \midrule, \bottomrule)"


def latex_tables(headers, rows, key=(), left=(), first=(), budget: int = LATEX_COLUMNS) -> list:
    """booktabs tabulars of ``rows`` that fit a slide: at most ``budget`` columns each; a
    wider table is split, every part repeating the ``key`` columns (a method's name, n) and
    the ``first`` columns going into the first part. Lines of LaTeX."""
    key = [h for h in headers if h in key]
    rest = [h for h in first if h in headers and h not in key]
    rest += [h for h in headers if h not in key and h not in rest]
    width = max(1, budget - len(key))
    parts = [rest[k:k + width] for k in range(0, len(rest), width)] or [[]]
    out = []
    for k, part in enumerate(parts):
        shown = [h for h in headers if h in key or h in part]
        index = [headers.index(h) for h in shown]
        if k:
            out.append(r"\par\medskip")
        out += [r"\begin{tabular}{" + "".join("l" if h in left else "r" for h in shown) + "}", r"\toprule",
                " & ".join(tex(h) for h in shown) + r" \\", r"\midrule"]
        out += [" & ".join(tex(str(row[i])) for i in index) + r" \\" for row in rows]
        out += [r"\bottomrule", r"\end{tabular}"]
    return out


def md_table(headers, rows, left=()):
    """A Markdown table; the columns named in ``left`` are left-aligned."""
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join(":---" if h in left else "---:" for h in headers) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines


def count(n) -> str:
    """An operation count with thousands separators, or — where it was not counted (SymPy
    ran out of time).

    >>> count(12345), count(None)
    ('12,345', '—')
    """
    return "—" if n is None else f"{n:,}"

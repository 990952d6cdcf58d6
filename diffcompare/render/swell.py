"""Renderers of a :class:`~diffcompare.lecture.swell.SwellReport`: sizes and phase times per n
(terminal table with a character plot of the sizes, Markdown, LaTeX, JSON)."""

from __future__ import annotations

import math
import sys

from diffcompare.render.common import md_table, render_report, seconds, tex
from diffcompare.render.plots import terminal_plot

SCHEMA_VERSION = 1
HEADERS = ["n", "f (ops)", "raw derivative", "after cse", "engine graph (nodes)", "raw / f",
           "sympy.diff", "cse + lambdify", "generated code", "engine forward", "engine backward",
           "engine vs SymPy"]
SIZES = (("size_f", "f", "f"), ("size_raw", "r", "raw derivative"), ("size_cse", "c", "after cse"),
         ("graph_nodes", "g", "engine graph"))


def render(r, format: str = "text", width: int | None = None) -> str:
    return render_report(r, format, width, sys.modules[__name__])


def _count(v) -> str:
    return "—" if v is None else f"{v:,}"


def _rows(r):
    for row in r.rows:
        ratio = "—" if not row.size_f or row.size_raw is None else f"{row.size_raw / row.size_f:.3g}"
        agree = "—" if row.agreement is None else ("exact" if row.agreement == 0 else f"{row.agreement:.0e}")
        cells = [str(row.n), _count(row.size_f), _count(row.size_raw), _count(row.size_cse), _count(row.graph_nodes),
                 ratio, seconds(row.diff_seconds), seconds(row.codegen_seconds), seconds(row.evaluate_seconds),
                 seconds(row.forward_seconds), seconds(row.backward_seconds), agree]
        if row.symbolic != "ok":
            cells[2] = cells[2] if row.size_raw is not None else row.symbolic
        yield cells


def growth(r) -> str | None:
    """One line: how much each size grew from the first n to the last n SymPy finished."""
    done = [row for row in r.rows if row.symbolic == "ok" and row.size_f]
    if len(done) < 2:
        return None
    first, last = done[0], done[-1]

    def times(key):
        a, b = getattr(first, key), getattr(last, key)
        return f"×{b / a:,.3g}" if a and b is not None else "—"
    return (f"from n={first.n} to n={last.n}: f grew {times('size_f')}, SymPy's raw derivative {times('size_raw')}, "
            f"after cse {times('size_cse')}, the engine's graph {times('graph_nodes')}")


def size_plot(r) -> str:
    series = []
    for key, marker, name in SIZES:
        series.append((marker, name, [math.log10(v) if v else math.nan for v in (getattr(row, key) for row in r.rows)]))
    top = max((y for _, _, ys in series for y in ys if math.isfinite(y)), default=1.0)
    return terminal_plot([row.n for row in r.rows], series, "n", "log10 size", (0, math.ceil(top)))


def print_report(r, console) -> None:
    from rich.table import Table
    from rich.text import Text

    console.print(Text(f"expression swell: {r.family} — {r.description}"))
    table = Table(header_style="bold")
    for h in HEADERS:
        table.add_column(h, justify="right")
    for row in _rows(r):
        table.add_row(*map(Text, row))
    console.print(table)
    line = growth(r)
    if line:
        console.print(Text(line, style="bold"))
    console.print(Text(size_plot(r)))
    console.print(Text("sizes: count_ops of the expression written out as a tree; the engine's graph counts "
                       "each operation once, as performed", style="dim"))
    for note in r.notes:
        console.print(Text(f"note: {note}"))


def as_dict(r) -> dict:
    keys = ("n", "size_f", "size_raw", "size_cse", "graph_nodes", "diff_seconds", "codegen_seconds",
            "evaluate_seconds", "forward_seconds", "backward_seconds", "agreement", "symbolic")
    return {"report": "swell", "schema_version": SCHEMA_VERSION, "family": r.family, "description": r.description,
            "sympy_timeout_seconds": r.timeout, "rows": [{k: getattr(row, k) for k in keys} for row in r.rows],
            "growth": growth(r), "notes": list(r.notes)}


def markdown(r) -> str:
    out = [f"**Expression swell: {r.family}** — {r.description}", ""]
    out += md_table(HEADERS, list(_rows(r)))
    line = growth(r)
    out += ([""] + [line] if line else []) + [""] + [f"- {note}" for note in r.notes]
    return "\n".join(out) + "\n"


def latex_report(r) -> str:
    out = [f"% diffcompare swell: {r.family}", r"\begin{tabular}{" + "r" * len(HEADERS) + "}", r"\toprule",
           " & ".join(tex(h) for h in HEADERS) + r" \\", r"\midrule"]
    out += [" & ".join(tex(c) for c in row) + r" \\" for row in _rows(r)]
    out += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(out) + "\n"


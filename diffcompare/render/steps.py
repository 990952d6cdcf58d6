"""Renderers of a :class:`~diffcompare.lecture.steps.StepSweep`: the error table, the best
and predicted steps, a character plot per precision (terminal), Markdown and JSON."""

from __future__ import annotations

import math
import sys

from diffcompare.lazy import LazyModule

np = LazyModule("numpy")

from diffcompare.render.common import (
    dropped_note,
    envelope,
    fitted_table,
    json_number,
    latex_header,
    latex_tables,
    md_table,
    render_report,
)
from diffcompare.render.plots import terminal_plot

SCHEMA_VERSION = 2
MARKERS = {"forward": "f", "central": "c", "five-point": "5", "complex-step": "i"}


def render(s, format: str = "text", width: int | None = None) -> str:
    return render_report(s, format, width, sys.modules[__name__])


def _error(value, best: bool) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    text = "0" if value == 0 else f"{value:.1e}"
    return text + (" ◀" if best else "")


def _heading(s) -> list:
    point = ", ".join(f"{n}={v!r}" for n, v in s.point.items())
    return [f"f = {s.label}   at {point}",
            f"exact ∂f/∂{s.variable} = {s.exact!r} (SymPy, evaluated by mpmath at 30 digits)",
            "relative error of each scheme at h = 1e-1 … 1e-20 (◀ the best h of each column; "
            "differences divided by the nominal h)"]


def _error_table(s):
    headers = ["h"] + [f"{scheme} {dtype}" for dtype in s.dtypes for scheme in s.schemes]
    curves = [s.curve(scheme, dtype) for dtype in s.dtypes for scheme in s.schemes]
    rows = []
    for k, h in enumerate(s.steps):
        rows.append([f"{h:.0e}"] + [_error(c.errors[k], c.best_h == h) for c in curves])
    return headers, rows


SUMMARY_HEADERS = ["scheme", "precision", "best h", "error there", "predicted h*", "best / predicted",
                   "rule of thumb"]


def _summary_rows(s):
    for c in s.curves:
        ratio = "—"
        if c.predicted_h and math.isfinite(c.best_h):
            ratio = f"{c.best_h / c.predicted_h:.2g}"
        predicted = "—" if c.predicted_h is None else (f"≤ {c.predicted_h:.1e}" if c.scheme == "complex-step"
                                                       else f"{c.predicted_h:.1e}")
        rule = s.rule_of_thumb(c.scheme)
        yield [c.scheme, c.dtype, f"{c.best_h:.0e}", _error(c.best_error, False), predicted, ratio,
               f"{rule} → {c.rule_of_thumb_h:.1e}" + (f"  ({c.note})" if c.note else "")]


def plots(s) -> list:
    xs = [float(np.log10(h)) for h in s.steps]
    out = []
    for dtype in s.dtypes:
        series = []
        for c in (c for c in s.curves if c.dtype == dtype):
            with np.errstate(divide="ignore", invalid="ignore"):
                ys = np.log10(np.maximum(c.errors, 1e-18))      # below the range: drawn on its floor
            series.append((MARKERS[c.scheme], c.scheme, [float(y) for y in ys]))
        lowest = min((y for _, _, ys in series for y in ys if math.isfinite(y)), default=-17.0)
        out.append((dtype, terminal_plot(xs, series, "log10 h (h shrinks to the right)", "log10 relative error",
                                         (max(-17, math.floor(lowest)), 0))))
    return out


def print_report(s, console) -> None:
    from rich.text import Text

    for line in _heading(s):
        console.print(Text(line))
    headers, rows = _error_table(s)
    table, dropped = fitted_table(console, headers, rows, drop_order=headers[:0:-1], header_style="bold")
    console.print(table)
    if dropped:
        console.print(Text(dropped_note(dropped, console.width), style="dim"))
    summary, dropped = fitted_table(console, SUMMARY_HEADERS, list(_summary_rows(s)),
                                    drop_order=("best / predicted", "predicted h*", "error there"),
                                    wrap=("rule of thumb",), left=SUMMARY_HEADERS, header_style="bold",
                                    title="best step against the error model's optimum", title_justify="left")
    console.print(summary)
    if dropped:
        console.print(Text(dropped_note(dropped, console.width), style="dim"))
    for dtype, plot in plots(s):
        console.print(Text(f"\n{dtype}:", style="bold"))
        console.print(Text(plot))
    for note in s.notes:
        console.print(Text(f"note: {note}"))


def as_dict(s) -> dict:
    command = {"function": s.label, "at": dict(s.point), "variable": s.variable}
    return envelope("steps", SCHEMA_VERSION, command, s.exit_status, {
        "function": s.label, "variable": s.variable, "point": dict(s.point), "exact": s.exact,
        "derivative_magnitudes": {str(k): v for k, v in s.derivatives.items()},
        "steps": [float(h) for h in s.steps],
        "curves": [{"scheme": c.scheme, "dtype": c.dtype, "errors": [json_number(float(e)) for e in c.errors],
                    "best_h": json_number(c.best_h), "best_error": json_number(c.best_error),
                    "predicted_h": c.predicted_h, "rule_of_thumb_h": c.rule_of_thumb_h, "note": c.note or None}
                   for c in s.curves],
        "notes": list(s.notes),
    })


def headline(s) -> str:
    """The report in one line (its repr)."""
    return (f"the step sweep of ∂f/∂{s.variable} of {s.label}: {', '.join(s.schemes)} in {', '.join(s.dtypes)}, "
            f"{len(s.steps)} steps")


def markdown(s) -> str:
    out = [f"**{_heading(s)[0]}**", "", _heading(s)[1], "", _heading(s)[2], ""]
    headers, rows = _error_table(s)
    out += md_table(headers, rows)
    out += ["", "**Best step against the error model's optimum**", ""]
    out += md_table(SUMMARY_HEADERS, list(_summary_rows(s)))
    out += [""] + [f"- {note}" for note in s.notes]
    return "\n".join(out) + "\n"


def latex_report(s) -> str:
    """booktabs tables of the errors for a slide or a page: float64's schemes, then
    float32's (* the best h), each table split further where it is wider than a line."""
    headers, rows = _error_table(s)
    rows = [[c.replace(" ◀", "*") for c in row] for row in rows]
    out = latex_header(f"steps: {s.label}")
    out += latex_tables(headers, rows, key=("h",), budget=1 + len(s.schemes))
    return "\n".join(out) + "\n"


"""Renderers of a :class:`~diffcompare.lecture.steps.StepSweep`: the error table, the best,
predicted and crossover steps, the two regimes, a character plot per precision (terminal),
Markdown and JSON."""

from __future__ import annotations

import math
import sys

from diffcompare.lazy import LazyModule

np = LazyModule("numpy")

from diffcompare.render import html  # noqa: E402
from diffcompare.render.common import (  # noqa: E402
    dropped_note,
    envelope,
    fitted_table,
    json_number,
    latex_header,
    latex_tables,
    md_table,
    render_report,
)
from diffcompare.render.plots import svg_line_plot, terminal_plot  # noqa: E402
from diffcompare.render.verdicts import finding  # noqa: E402

SCHEMA_VERSION = 3
MARKERS = {"forward": "f", "central": "c", "five-point": "5", "complex-step": "i"}
BEST, CROSSOVER = " ◀", " ×"
REGIMES = {"truncation": "truncation error dominates", "round-off": "round-off error dominates"}


def render(s, format: str = "text", width: int | None = None) -> str:
    return render_report(s, format, width, sys.modules[__name__])


def _error(value, best: bool = False, crossing: bool = False) -> str:
    if value is None or not math.isfinite(value):
        return "—"
    text = "0" if value == 0 else f"{value:.1e}"
    return text + (BEST if best else "") + (CROSSOVER if crossing else "")


def _range(s) -> str:
    return f"h = {min(s.steps):.0e} … {max(s.steps):.0e}"


def _heading(s) -> list:
    point = ", ".join(f"{n}={v!r}" for n, v in s.point.items())
    lines = [f"f = {s.label}   at {point}"]
    if not s.differentiable:
        return lines + [not_differentiable(s)]
    direction = "growing" if s.axis == "increasing" else "shrinking"
    return lines + [
        f"exact ∂f/∂{s.variable} = {s.exact!r} (SymPy, evaluated by mpmath at 30 digits)",
        f"{s.measure} error of each scheme at {_range(s)}, h {direction} down the table (◀ the best h of each "
        f"column; × the step nearest its crossover h×: {REGIMES['truncation']} above it, "
        f"{REGIMES['round-off']} below; differences divided by the nominal h)"]


def not_differentiable(s) -> str:
    """Why nothing was swept: the judge's finding (or the reference's reason) in words."""
    why = finding(s.smoothness["finding"]) if s.smoothness.get("finding") else s.smoothness.get("why", "")
    return (f"∂f/∂{s.variable} has no single exact value here: {why or s.smoothness['state']}. With no derivative "
            f"to measure the differences against, nothing is swept (exit status 4, as compare's)")


def _crossing(c, steps) -> int | None:
    """The index of the step nearest (on a log scale) to the curve's crossover, when the
    crossover lies within the sweep."""
    if not c.crossover_h or not min(steps) <= c.crossover_h <= max(steps):
        return None
    return int(np.argmin(np.abs(np.log10(np.asarray(steps)) - math.log10(c.crossover_h))))


def _error_table(s):
    headers = ["h"] + [f"{scheme} {dtype}" for dtype in s.dtypes for scheme in s.schemes]
    curves = [s.curve(scheme, dtype) for dtype in s.dtypes for scheme in s.schemes]
    crossings = [_crossing(c, s.steps) for c in curves]
    rows = []
    for k in s.order:
        rows.append([f"{s.steps[k]:.0e}"] + [_error(c.errors[k], c.best == k, x == k)
                                             for c, x in zip(curves, crossings)])
    return headers, rows


SUMMARY_HEADERS = ["scheme", "precision", "best h", "error there", "predicted h*", "crossover h×", "best / predicted",
                   "rule of thumb"]


def _summary_rows(s):
    for c in s.curves:
        ratio = "—"
        if c.predicted_h and math.isfinite(c.best_h):
            ratio = f"{c.best_h / c.predicted_h:.2g}"
        predicted = "—" if c.predicted_h is None else (f"≤ {c.predicted_h:.1e}" if c.scheme == "complex-step"
                                                       else f"{c.predicted_h:.1e}")
        crossover = "—" if c.crossover_h is None else f"{c.crossover_h:.1e}"
        rule = s.rule_of_thumb(c.scheme)
        yield [c.scheme, c.dtype, f"{c.best_h:.0e}", _error(c.best_error), predicted, crossover, ratio,
               f"{rule} → {c.rule_of_thumb_h:.1e}" + (f"  ({c.note})" if c.note else "")]


def _regimes_line(s) -> str:
    return (f"regimes: for h above a curve's crossover h× {REGIMES['truncation']} (the error falls as h shrinks), "
            f"below it {REGIMES['round-off']} (the error grows as h shrinks; for the complex step it stays at its "
            f"floor); h× is where the error model's two terms are equal")


def plots(s) -> list:
    order = s.order
    xs = [float(np.log10(s.steps[k])) for k in order]
    out = []
    for dtype in s.dtypes:
        series, marks = [], []
        for c in (c for c in s.curves if c.dtype == dtype):
            with np.errstate(divide="ignore", invalid="ignore"):
                ys = np.log10(np.maximum(c.errors, 1e-18))      # below the range: drawn on its floor
            series.append((MARKERS[c.scheme], c.scheme, [float(ys[k]) for k in order]))
            crossing = _crossing(c, s.steps)
            if crossing is not None:
                marks.append((MARKERS[c.scheme], order.index(crossing)))
        lowest = min((y for _, _, ys in series for y in ys if math.isfinite(y)), default=-17.0)
        highest = max((y for _, _, ys in series for y in ys if math.isfinite(y)), default=0.0)
        direction = "grows" if s.axis == "increasing" else "shrinks"
        out.append((dtype, terminal_plot(xs, series, f"log10 h (h {direction} to the right)",
                                         f"log10 {s.measure} error",
                                         (max(-17, math.floor(lowest)), max(0, math.ceil(highest))), marks=marks)))
    return out


def print_report(s, console) -> None:
    from rich.text import Text

    for line in _heading(s):
        console.print(Text(line))
    if not s.differentiable:
        return
    headers, rows = _error_table(s)
    table, dropped = fitted_table(console, headers, rows, drop_order=headers[:0:-1], header_style="bold")
    console.print(table)
    if dropped:
        console.print(Text(dropped_note(dropped, console.width), style="dim"))
    summary, dropped = fitted_table(console, SUMMARY_HEADERS, list(_summary_rows(s)),
                                    drop_order=("best / predicted", "predicted h*", "error there"),
                                    wrap=("rule of thumb",), left=SUMMARY_HEADERS, header_style="bold",
                                    title=SUMMARY_TITLE, title_justify="left")
    console.print(summary)
    if dropped:
        console.print(Text(dropped_note(dropped, console.width), style="dim"))
    console.print(Text(_regimes_line(s)))
    for dtype, plot in plots(s):
        console.print(Text(f"\n{dtype}:", style="bold"))
        console.print(Text(plot))
    for note in s.notes:
        console.print(Text(f"note: {note}"))


SUMMARY_TITLE = "best step against the error model's optimum and crossover"
FLOOR = 1e-18           # the smallest error a plot places (an exact 0 is drawn here)


def svg_plots(s) -> list:
    """[(precision, SVG markup)]: each scheme's error (in the sweep's measure) against h,
    log-log, h in the sweep's direction, each curve's best h drawn large."""
    out = []
    direction = "grows" if s.axis == "increasing" else "shrinks"
    for dtype in s.dtypes:
        curves = [c for c in s.curves if c.dtype == dtype]
        marks = [(k, c.best_h, c.best_error) for k, c in enumerate(curves) if math.isfinite(c.best_h)]
        out.append((dtype, svg_line_plot([float(h) for h in s.steps],
                                         [(c.scheme, [float(e) for e in c.errors]) for c in curves],
                                         f"step h ({direction} to the right)", f"{s.measure} error", log_x=True,
                                         reverse_x=s.axis != "increasing", floor=FLOOR, marks=marks,
                                         marks_label="best h", title=f"{dtype}: ∂f/∂{s.variable}")))
    return out


def html_report(s) -> str:
    """The report as an HTML fragment: the error table and the summary with every column,
    the regimes, and the error-against-h plot of each precision."""
    heading = _heading(s)
    parts = [html.heading(heading[0])] + [html.paragraph(line) for line in heading[1:]]
    if s.differentiable:
        headers, rows = _error_table(s)
        parts.append(html.table(headers, rows))
        parts.append(html.table(SUMMARY_HEADERS, list(_summary_rows(s)), left=("scheme", "precision", "rule of thumb"),
                                prose=("rule of thumb",), caption=SUMMARY_TITLE))
        parts.append(html.paragraph(_regimes_line(s)))
        parts += [html.figure(svg) for _, svg in svg_plots(s)]
    parts += [html.paragraph(f"note: {note}") for note in s.notes]
    return html.fragment(parts)


def as_dict(s) -> dict:
    command = {"function": s.label, "at": dict(s.point), "variable": s.variable, "error": s.measure,
               "h_range": [float(min(s.steps)), float(max(s.steps))], "h_axis": s.axis}
    smoothness = None
    if not s.differentiable:
        smoothness = {**s.smoothness, "text": not_differentiable(s)}
    return envelope("steps", SCHEMA_VERSION, command, s.exit_status, {
        "function": s.label, "variable": s.variable, "point": dict(s.point), "exact": s.exact,
        "differentiable": s.differentiable, "smoothness": smoothness, "error": s.measure, "h_axis": s.axis,
        "derivative_magnitudes": {str(k): v for k, v in s.derivatives.items()},
        "steps": [float(h) for h in s.steps],
        "curves": [_curve_dict(s, c) for c in s.curves],
        "notes": list(s.notes),
    })


def _curve_dict(s, c) -> dict:
    def numbers(values):
        return [json_number(float(e)) for e in values]
    return {"scheme": c.scheme, "dtype": c.dtype, "errors": numbers(c.errors), "abs_errors": numbers(c.abs_errors),
            "rel_errors": numbers(c.rel_errors), "best_h": json_number(c.best_h),
            "best_error": json_number(c.best_error), "best_abs_error": json_number(c.best_abs_error),
            "best_rel_error": json_number(c.best_rel_error), "predicted_h": c.predicted_h,
            "crossover_h": c.crossover_h, "regimes": c.regimes(s.steps), "rule_of_thumb_h": c.rule_of_thumb_h,
            "note": c.note or None}


def headline(s) -> str:
    """The report in one line (its repr)."""
    if not s.differentiable:
        return f"the step sweep of ∂f/∂{s.variable} of {s.label}: not differentiable here ({s.smoothness['state']})"
    return (f"the step sweep of ∂f/∂{s.variable} of {s.label}: {', '.join(s.schemes)} in {', '.join(s.dtypes)}, "
            f"{len(s.steps)} steps")


def markdown(s) -> str:
    heading = _heading(s)
    out = [f"**{heading[0]}**", ""] + [x for line in heading[1:] for x in (line, "")]
    if not s.differentiable:
        return "\n".join(out)
    headers, rows = _error_table(s)
    out += md_table(headers, rows)
    out += ["", "**Best step against the error model's optimum and crossover**", ""]
    out += md_table(SUMMARY_HEADERS, list(_summary_rows(s)))
    out += ["", f"- {_regimes_line(s)}"] + [f"- {note}" for note in s.notes]
    return "\n".join(out) + "\n"


def latex_report(s) -> str:
    """booktabs tables of the errors for a slide or a page: float64's schemes, then
    float32's (* the best h), each table split further where it is wider than a line."""
    if not s.differentiable:
        return f"% diffcompare steps: {s.label}\n% {not_differentiable(s)}\n"
    headers, rows = _error_table(s)
    rows = [[c.replace(BEST, "*") for c in row] for row in rows]
    out = latex_header(f"steps: {s.label}")
    out += latex_tables(headers, rows, key=("h",), budget=1 + len(s.schemes))
    out.append(rf"\par\smallskip {s.measure} error; * the best h; × the step nearest the crossover h×: "
               rf"{REGIMES['truncation']} above it, {REGIMES['round-off']} below")
    return "\n".join(out) + "\n"

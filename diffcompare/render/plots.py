"""Plots: a small character plot for the terminal (always available) and PNG files by
matplotlib (the optional extra ``diffcompare[plot]``, imported only when asked for)."""

from __future__ import annotations

import math
from html import escape

from diffcompare.lazy import LazyModule
from diffcompare.render.files import write_whole
from diffcompare.version import install_hint

np = LazyModule("numpy")


class PlotUnavailable(Exception):
    """matplotlib is not installed, or the file cannot be written."""


def terminal_plot(xs, series, x_label: str, y_label: str, y_range=(-17, 0)) -> str:
    """A character plot of ``series`` [(marker, name, ys)] over ``xs``, both as log10
    values; one column per x, one row per unit of y. Overlapping markers show as ``*``;
    values below the range (an exact 0 among them) are drawn on its bottom row, and the
    legend says so.

    >>> print(terminal_plot([-3, -2, -1], [("c", "central", [-4, -3, -2])], "log10 h", "log10 error", (-4, -2)))
      -2 |     c
      -3 |   c
      -4 | c
         +-------
           -3  -1
              log10 h   (log10 error upward; c central)
    """
    low, high = y_range
    rows = int(high - low) + 1
    grid = [[" "] * (2 * len(xs)) for _ in range(rows)]
    floored = overlapped = False
    for marker, _, ys in series:
        for column, y in enumerate(ys):
            if y is None or not math.isfinite(y):
                continue
            floored |= y < low
            row = int(round(high - min(max(y, low), high)))
            cell = grid[row][2 * column]
            overlapped |= cell not in (" ", marker)
            grid[row][2 * column] = marker if cell in (" ", marker) else "*"
    lines = [f"{high - k:>4g} | " + "".join(cells).rstrip() for k, cells in enumerate(grid)]
    lines = [line.rstrip() for line in lines]
    lines.append("     +" + "-" * (2 * len(xs) + 1))
    ticks = ""
    for column in sorted({0, len(xs) // 2, len(xs) - 1}):
        start = 7 + 2 * column               # where the column's marker is drawn
        if start >= len(ticks) + (1 if ticks else 0):
            ticks = ticks.ljust(start) + f"{xs[column]:g}"
    lines.append(ticks)
    legend = "; ".join(f"{marker} {name}" for marker, name, _ in series)
    legend += "; * several at one place" if overlapped else ""
    legend += f"; the bottom row holds {low:g} and below (exact zeros too)" if floored else ""
    lines.append(f"{' ' * 10}{x_label}   ({y_label} upward; {legend})")
    return "\n".join(lines)


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable(f'PNG plots need matplotlib: {install_hint("plot")}') from None
    matplotlib.use("Agg")              # files only, no window
    import matplotlib.pyplot as plt
    return plt


def _save(figure, path):
    """The figure as PNG to exactly ``path`` (matplotlib would add .png to a name without
    it, and write into /dev/full.png), whole or not at all."""
    import io
    try:
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=150, bbox_inches="tight")
        write_whole(path, buffer.getvalue())
    except OSError as error:
        raise PlotUnavailable(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        import matplotlib.pyplot as plt
        plt.close(figure)


def steps_png(sweep, path) -> None:
    """The error of every scheme against h, log-log, float64 and float32 side by side,
    each curve's best h marked and its predicted optimum drawn as a dotted line. Each
    scheme has its own colour, marker and dash, so that curves lying on each other (central
    and five-point in float32, where rounding rules both) stay visible; errors of exactly 0,
    which a log scale cannot show, are drawn as hollow markers on the floor, and the
    figure says so."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
    styles = {"forward": ("tab:blue", "o", "-", 5), "central": ("tab:orange", "s", "--", 7),
              "five-point": ("tab:green", "^", "-.", 4), "complex-step": ("tab:red", "D", ":", 4)}
    floor = 1e-18
    zeros = False
    for axis, dtype in zip(axes, ("float64", "float32")):
        for curve in (c for c in sweep.curves if c.dtype == dtype):
            colour, marker, dash, size = styles.get(curve.scheme, ("black", "o", "-", 4))
            errors = np.asarray(curve.errors, dtype=float)
            exact = errors == 0
            zeros |= bool(exact.any())
            shown = np.where(exact, np.nan, np.maximum(errors, floor))
            axis.loglog(sweep.steps, shown, marker=marker, ls=dash, ms=size, color=colour, alpha=0.85,
                        label=curve.scheme)
            if exact.any():
                axis.loglog(np.asarray(sweep.steps)[exact], np.full(int(exact.sum()), floor), marker=marker, ls="none",
                            ms=size, markerfacecolor="none", color=colour)
            if math.isfinite(curve.best_h):
                axis.loglog([curve.best_h], [max(curve.best_error, floor)], "*", ms=13, color=colour,
                            markeredgecolor="black", markeredgewidth=0.5)
            if curve.predicted_h:
                axis.axvline(curve.predicted_h, color=colour, ls=":", lw=1)
        axis.set_title(f"{dtype}: ∂f/∂{sweep.variable} of {sweep.label}"[:70], fontsize=9)
        axis.set_xlabel("step h (shrinks to the right)")
        axis.invert_xaxis()
        axis.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("relative error")
    axes[0].legend(fontsize=8)
    caption = "truncation falls with h, rounding rises: ★ best h, dotted line: the error model's optimum"
    if zeros:
        caption += f"; hollow markers at {floor:g}: an error of exactly 0"
    figure.suptitle(caption, fontsize=9)
    _save(figure, path)


def swell_png(report, path) -> None:
    """Sizes against n, log scale: f, SymPy's raw derivative, after cse, symbolic reverse mode,
    the engine's graph; and the time of each phase (SymEngine's too, when it was asked for)."""
    plt = _pyplot()
    figure, (sizes, times) = plt.subplots(1, 2, figsize=(11, 4.2))
    ns = [row.n for row in report.rows]
    for key, label in (("size_f", "f"), ("size_raw", "raw derivative"), ("size_cse", "after cse"),
                       ("size_reverse", "symbolic reverse"), ("graph_nodes", "engine graph (nodes)")):
        values = [getattr(row, key) for row in report.rows]
        points = [(n, v) for n, v in zip(ns, values) if v]
        if points:
            sizes.semilogy(*zip(*points), "o-", ms=3, label=label)
    sizes.set_xlabel("n")
    sizes.set_ylabel("operations / nodes")
    sizes.set_title(f"expression swell: {report.family}", fontsize=9)
    sizes.legend(fontsize=8)
    sizes.grid(True, alpha=0.3)
    for key, label in (("diff_seconds", "sympy.diff"), ("codegen_seconds", "cse + lambdify"),
                       ("reverse_seconds", "symbolic reverse (trace + sweep)"),
                       ("symengine_diff_seconds", "symengine diff"), ("symengine_codegen_seconds", "symengine Lambdify"),
                       ("evaluate_seconds", "generated code"), ("forward_seconds", "engine forward"),
                       ("backward_seconds", "engine backward")):
        points = [(row.n, getattr(row, key)) for row in report.rows if getattr(row, key)]
        if points:
            times.semilogy(*zip(*points), "o-", ms=3, label=label)
    times.set_xlabel("n")
    times.set_ylabel("seconds")
    times.set_title("time of each phase", fontsize=9)
    times.legend(fontsize=7, ncol=2)
    times.grid(True, alpha=0.3)
    _save(figure, path)


# -- inline SVG line plots (no matplotlib needed): the notebook's and the HTML page's pictures ------------------

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "4 2", "1 2", "10 4", "3 3 1 3")


def _axis(values, log: bool):
    """(low, high, ticks) of an axis holding ``values`` in plot coordinates (log10 on a log
    axis, whose ticks are whole decades; else ticks at 1, 2 or 5 times a power of ten).

    >>> _axis([-3, -0.3], True)          # log10 of 1e-3 and 0.5
    (-3, 0, [-3, -2, -1, 0])
    >>> _axis([1, 7], False)
    (1, 7, [1, 2, 3, 4, 5, 6, 7])
    >>> _axis([1, 4], False)             # whole numbers: no tick at 1.5
    (1, 4, [1, 2, 3, 4])
    """
    shown = [v for v in values if v is not None and math.isfinite(v)]
    if not shown:
        return (0, 1, [0, 1])
    low, high = min(shown), max(shown)
    if log:
        low, high = math.floor(low), math.ceil(high)
        high += high == low
        step = max(1, math.ceil((high - low) / 8))
        return low, high, list(range(low, high + 1, step))
    if high == low:
        low, high = low - 1, high + 1
    raw = (high - low) / 8
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if all(float(v).is_integer() for v in shown):       # whole numbers (n) get whole ticks
        step = max(1, round(step))
    first = math.ceil(low / step) * step
    ticks = [first + k * step for k in range(int((high - first) / step + 1e-9) + 1)]
    return low, high, [int(t) if float(t).is_integer() else t for t in ticks]


def _tick_text(t, log: bool) -> str:
    if not log:
        return f"{t:g}"
    return {0: "1", 1: "10", 2: "100"}.get(t, f"1e{t}")


def svg_line_plot(xs, series, x_label: str, y_label: str, log_x: bool = False, log_y: bool = True,
                  reverse_x: bool = False, floor: float | None = None, marks=(), marks_label: str = "",
                  title: str = "", width: int = 520, height: int = 300) -> str:
    """A line plot as inline SVG markup: ``series`` [(name, ys)] over ``xs``, each in its own
    colour and dash; log axes by decades. On a log y axis a value of 0 (or under ``floor``)
    cannot be placed: it is drawn as a hollow marker on the floor and the legend says so; a
    missing value (None, nan) breaks the line. ``marks`` [(series index, x, y)]: points drawn
    large (a curve's best step), named ``marks_label`` in the legend; ``reverse_x``: x
    falls to the right (a step that shrinks)."""
    def tx(v):
        return math.log10(v) if log_x else v

    def ty(v):
        return math.log10(v) if log_y else v
    low_of_log = math.log10(floor) if floor else None
    finite = [y for _, ys in series for y in ys if y is not None and math.isfinite(y) and (y > 0 or not log_y)]
    x_low, x_high, x_ticks = _axis([tx(x) for x in xs if not log_x or x > 0], log_x)
    y_values = [ty(y) for y in finite if not floor or y >= floor]
    floored = any(y is not None and math.isfinite(y) and log_y and (y <= 0 or (floor and y < floor))
                  for _, ys in series for y in ys)
    if floored and low_of_log is not None:
        y_values.append(low_of_log)
    y_low, y_high, y_ticks = _axis(y_values, log_y)
    left, right, top, bottom = 64, 165, 26 if title else 12, 44
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(t):
        share = (t - x_low) / (x_high - x_low)
        return left + (1 - share if reverse_x else share) * plot_w

    def py(t):
        return top + (y_high - t) / (y_high - y_low) * plot_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'role="img" font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f"<title>{_xml(title or y_label + ' against ' + x_label)}</title>",
           f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="white" stroke="#8c959f"/>']
    if title:
        out.append(f'<text x="{left}" y="{top - 8}" font-size="12" font-weight="bold">{_xml(title)}</text>')
    for t in x_ticks:
        x = px(t)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" stroke="#eaeef2"/>')
        out.append(f'<text x="{x:.1f}" y="{top + plot_h + 14}" text-anchor="middle">{_tick_text(t, log_x)}</text>')
    for t in y_ticks:
        y = py(t)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#eaeef2"/>')
        out.append(f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end">{_tick_text(t, log_y)}</text>')
    out.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">{_xml(x_label)}</text>')
    out.append(f'<text x="14" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">{_xml(y_label)}</text>')
    for k, (name, ys) in enumerate(series):
        colour, dash = PALETTE[k % len(PALETTE)], DASHES[k % len(DASHES)]
        runs, run, hollow = [], [], []
        for x, y in zip(xs, ys):
            if y is None or not math.isfinite(y) or (log_x and x <= 0):
                runs, run = runs + [run], []
            elif log_y and (y <= 0 or (floor and y < floor)):
                runs, run = runs + [run], []
                hollow.append((px(tx(x)), py(low_of_log if low_of_log is not None else y_low)))
            else:
                run.append((px(tx(x)), py(ty(y))))
        for points in runs + [run]:
            if len(points) > 1:
                out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6"'
                           + (f' stroke-dasharray="{dash}"' if dash else "")
                           + ' points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y in points) + '"/>')
            out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.2" fill="{colour}"/>' for x, y in points]
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="white" stroke="{colour}"/>' for x, y in hollow]
    for k, x, y in marks:
        if y is None or not math.isfinite(y) or (log_y and y <= 0 and not floor):
            continue
        at = py(ty(max(y, floor))) if log_y and floor else py(ty(y))
        out.append(f'<circle cx="{px(tx(x)):.1f}" cy="{at:.1f}" r="5" fill="{PALETTE[k % len(PALETTE)]}" '
                   'stroke="black" stroke-width="1"/>')
    legend = [(PALETTE[k % len(PALETTE)], DASHES[k % len(DASHES)], name) for k, (name, _) in enumerate(series)]
    y = top + 10
    for colour, dash, name in legend:
        out.append(f'<line x1="{left + plot_w + 10}" y1="{y - 4}" x2="{left + plot_w + 34}" y2="{y - 4}" '
                   f'stroke="{colour}" stroke-width="2"' + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        out.append(f'<text x="{left + plot_w + 40}" y="{y}">{_xml(name)}</text>')
        y += 16
    notes = ([("large dot", marks_label)] if marks and marks_label else []) + \
            ([("hollow", f"0, drawn at {_tick_text(round(low_of_log), True)}" if floor else "0, on the floor")]
             if floored else [])
    for marker, text in notes:
        out.append(f'<text x="{left + plot_w + 10}" y="{y}" fill="#57606a">{_xml(marker)}: {_xml(text)}</text>')
        y += 16
    out.append("</svg>")
    return "\n".join(out)


def _xml(text) -> str:
    return escape(str(text), quote=True)

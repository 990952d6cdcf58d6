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


def terminal_plot(xs, series, x_label: str, y_label: str, y_range=(-17, 0), marks=()) -> str:
    """A character plot of ``series`` [(marker, name, ys)] over ``xs``, both as log10
    values; one column per x, one row per unit of y. Overlapping markers show as ``*``;
    values below the range (an exact 0 among them) are drawn on its bottom row, and the
    legend says so. ``marks`` [(marker, column)]: a row under the axis marking each
    curve's crossover (where truncation and round-off errors are equal).

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
    if marks:
        row = [" "] * (2 * len(xs))
        for marker, column in marks:
            row[2 * column] = marker if row[2 * column] in (" ", marker) else "*"
        lines.append("  h×   " + "".join(row).rstrip())
    ticks = ""
    for column in sorted({0, len(xs) // 2, len(xs) - 1}):
        start = 7 + 2 * column               # where the column's marker is drawn
        if start >= len(ticks) + (1 if ticks else 0):
            ticks = ticks.ljust(start) + f"{xs[column]:g}"
    lines.append(ticks)
    legend = "; ".join(f"{marker} {name}" for marker, name, _ in series)
    legend += "; * several at one place" if overlapped else ""
    legend += f"; the bottom row holds {low:g} and below (exact zeros too)" if floored else ""
    legend += ("; the h× row: each curve's crossover, truncation error dominating on its larger-h side and "
               "round-off error on the other") if marks else ""
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
    for axis, dtype in zip(axes, sweep.dtypes + [None] * (2 - len(sweep.dtypes))):
        if dtype is None:
            axis.set_visible(False)
            continue
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
        increasing = getattr(sweep, "axis", "increasing") == "increasing"
        axis.set_xlabel(f"step h ({'grows' if increasing else 'shrinks'} to the right)")
        if not increasing:
            axis.invert_xaxis()
        axis.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel(f"{getattr(sweep, 'measure', 'relative')} error")
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


class _Frame:
    """A plot's axes: where a value goes on the drawing (log10 first on a log axis), the
    ticks, and the floor on a log y axis where a value it cannot place (0) is drawn."""

    def __init__(self, xs, ys, log_x, log_y, reverse_x, floor, box):
        self.log_x, self.log_y, self.reverse_x, self.box, self.floor_value = log_x, log_y, reverse_x, box, floor
        self.floored = log_y and any(self.below(y) for y in ys)
        self.floor = math.log10(floor) if floor and log_y else None
        placed = [self.ty(y) for y in ys if self.placed(y)] + ([self.floor] if self.floored and self.floor is not None else [])
        self.x_low, self.x_high, self.x_ticks = _axis([self.tx(x) for x in xs if x > 0 or not log_x], log_x)
        self.y_low, self.y_high, self.y_ticks = _axis(placed, log_y)

    def tx(self, v):
        return math.log10(v) if self.log_x else v

    def ty(self, v):
        return math.log10(v) if self.log_y else v

    def below(self, y) -> bool:
        """A finite value a log axis cannot place: 0, a negative, or under the floor."""
        return (y is not None and math.isfinite(y) and self.log_y
                and (y <= 0 or bool(self.floor_value and y < self.floor_value)))

    def placed(self, y) -> bool:
        return y is not None and math.isfinite(y) and not self.below(y)

    def px(self, x) -> float:
        left, _, width, _ = self.box
        share = (self.tx(x) - self.x_low) / (self.x_high - self.x_low)
        return left + (1 - share if self.reverse_x else share) * width

    def py(self, y) -> float:
        """Where a value goes up the drawing; one the axis cannot place, on its floor."""
        _, top, _, height = self.box
        t = self.ty(y) if self.placed(y) else (self.floor if self.floor is not None else self.y_low)
        return top + (self.y_high - t) / (self.y_high - self.y_low) * height


def svg_line_plot(xs, series, x_label: str, y_label: str, log_x: bool = False, log_y: bool = True,
                  reverse_x: bool = False, floor: float | None = None, marks=(), marks_label: str = "",
                  title: str = "", width: int = 520, height: int = 300) -> str:
    """A line plot as inline SVG markup: ``series`` [(name, ys)] over ``xs``, each in its own
    colour and dash; log axes by decades. On a log y axis a value of 0 (or under ``floor``)
    cannot be placed: it is drawn as a hollow marker on the floor and the legend says so; a
    missing value (None, nan) breaks the line. ``marks`` [(series index, x, y)]: points drawn
    large (a curve's best step), named ``marks_label`` in the legend; ``reverse_x``: x
    falls to the right (a step that shrinks)."""
    left, right, top, bottom = 64, 165, 26 if title else 12, 44
    frame = _Frame(xs, [y for _, ys in series for y in ys], log_x, log_y, reverse_x, floor,
                   (left, top, width - left - right, height - top - bottom))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'role="img" font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f"<title>{_xml(title or y_label + ' against ' + x_label)}</title>"]
    out += _svg_axes(frame, x_label, y_label, title, height)
    for k, (_, ys) in enumerate(series):
        out += _svg_series(frame, xs, ys, PALETTE[k % len(PALETTE)], DASHES[k % len(DASHES)])
    for k, x, y in marks:
        if y is not None and math.isfinite(y) and (frame.placed(y) or floor):
            out.append(f'<circle cx="{frame.px(x):.1f}" cy="{frame.py(y):.1f}" r="5" fill="{PALETTE[k % len(PALETTE)]}" '
                       'stroke="black" stroke-width="1"/>')
    notes = [("large dot", marks_label)] if marks and marks_label else []
    if frame.floored:
        notes.append(("hollow", f"0, drawn at {_tick_text(round(frame.floor), True)}" if frame.floor is not None
                      else "0, on the floor"))
    out += _svg_legend(frame, [name for name, _ in series], notes)
    out.append("</svg>")
    return "\n".join(out)


def _svg_axes(frame, x_label, y_label, title, height) -> list:
    """The plot's frame, grid lines, ticks, axis labels and title."""
    left, top, width, plot_h = frame.box
    out = [f'<rect x="{left}" y="{top}" width="{width}" height="{plot_h}" fill="white" stroke="#8c959f"/>']
    if title:
        out.append(f'<text x="{left}" y="{top - 8}" font-size="12" font-weight="bold">{_xml(title)}</text>')
    for t in frame.x_ticks:
        x = frame.px(10 ** t if frame.log_x else t)
        out.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" stroke="#eaeef2"/>')
        out.append(f'<text x="{x:.1f}" y="{top + plot_h + 14}" text-anchor="middle">{_tick_text(t, frame.log_x)}</text>')
    for t in frame.y_ticks:
        y = top + (frame.y_high - t) / (frame.y_high - frame.y_low) * plot_h
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + width}" y2="{y:.1f}" stroke="#eaeef2"/>')
        out.append(f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end">{_tick_text(t, frame.log_y)}</text>')
    middle = top + plot_h / 2
    out.append(f'<text x="{left + width / 2:.1f}" y="{height - 8}" text-anchor="middle">{_xml(x_label)}</text>')
    out.append(f'<text x="14" y="{middle:.1f}" text-anchor="middle" transform="rotate(-90 14 {middle:.1f})">'
               f"{_xml(y_label)}</text>")
    return out


def _svg_series(frame, xs, ys, colour, dash) -> list:
    """One series: its lines (broken where a value is missing or cannot be placed), a dot
    at each value, a hollow marker on the floor for each value the axis cannot place."""
    runs, run, hollow = [], [], []
    for x, y in zip(xs, ys):
        if frame.placed(y) and (x > 0 or not frame.log_x):
            run.append((frame.px(x), frame.py(y)))
            continue
        runs, run = runs + [run], []
        if frame.below(y):
            hollow.append((frame.px(x), frame.py(y)))
    out = []
    for points in runs + [run]:
        if len(points) > 1:
            out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6"'
                       + (f' stroke-dasharray="{dash}"' if dash else "")
                       + ' points="' + " ".join(f"{x:.1f},{y:.1f}" for x, y in points) + '"/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.2" fill="{colour}"/>' for x, y in points]
    return out + [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="white" stroke="{colour}"/>' for x, y in hollow]


def _svg_legend(frame, names, notes) -> list:
    """The legend right of the plot: a line per series in its colour and dash, then the notes."""
    left, top, width, _ = frame.box
    out, y = [], top + 10
    for k, name in enumerate(names):
        dash = DASHES[k % len(DASHES)]
        out.append(f'<line x1="{left + width + 10}" y1="{y - 4}" x2="{left + width + 34}" y2="{y - 4}" '
                   f'stroke="{PALETTE[k % len(PALETTE)]}" stroke-width="2"'
                   + (f' stroke-dasharray="{dash}"' if dash else "") + "/>")
        out.append(f'<text x="{left + width + 40}" y="{y}">{_xml(name)}</text>')
        y += 16
    for marker, text in notes:
        out.append(f'<text x="{left + width + 10}" y="{y}" fill="#57606a">{_xml(marker)}: {_xml(text)}</text>')
        y += 16
    return out


def _xml(text) -> str:
    return escape(str(text), quote=True)

"""Plots: a small character plot for the terminal (always available) and PNG files by
matplotlib (the optional extra ``diffcompare[plot]``, imported only when asked for)."""

from __future__ import annotations

import math

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

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
            floored |= y <= low
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
    each curve's best h marked and its predicted optimum drawn as a dotted line."""
    plt = _pyplot()
    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    colours = {"forward": "tab:blue", "central": "tab:orange", "five-point": "tab:green",
               "complex-step": "tab:red"}
    for axis, dtype in zip(axes, ("float64", "float32")):
        for curve in (c for c in sweep.curves if c.dtype == dtype):
            colour = colours.get(curve.scheme)
            errors = np.maximum(curve.errors, 1e-18)
            axis.loglog(sweep.steps, errors, "o-", ms=3, color=colour, label=curve.scheme)
            if math.isfinite(curve.best_h):
                axis.loglog([curve.best_h], [max(curve.best_error, 1e-18)], "*", ms=12, color=colour)
            if curve.predicted_h:
                axis.axvline(curve.predicted_h, color=colour, ls=":", lw=1)
        axis.set_title(f"{dtype}: ∂f/∂{sweep.variable} of {sweep.label}"[:70], fontsize=9)
        axis.set_xlabel("step h")
        axis.invert_xaxis()
        axis.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("relative error")
    axes[0].legend(fontsize=8)
    figure.suptitle("truncation falls with h, rounding rises: ★ best h, dotted: predicted optimum", fontsize=10)
    _save(figure, path)


def swell_png(report, path) -> None:
    """Sizes against n, log scale: f, SymPy's raw derivative, after cse, the engine's graph."""
    plt = _pyplot()
    figure, (sizes, times) = plt.subplots(1, 2, figsize=(11, 4.2))
    ns = [row.n for row in report.rows]
    for key, label in (("size_f", "f"), ("size_raw", "raw derivative"), ("size_cse", "after cse"),
                       ("graph_nodes", "engine graph (nodes)")):
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
                       ("evaluate_seconds", "generated code"), ("forward_seconds", "engine forward"),
                       ("backward_seconds", "engine backward")):
        points = [(row.n, getattr(row, key)) for row in report.rows if getattr(row, key)]
        if points:
            times.semilogy(*zip(*points), "o-", ms=3, label=label)
    times.set_xlabel("n")
    times.set_ylabel("seconds")
    times.set_title("time of each phase", fontsize=9)
    times.legend(fontsize=8)
    times.grid(True, alpha=0.3)
    _save(figure, path)

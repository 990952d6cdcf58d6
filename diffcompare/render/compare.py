"""Renderers for a Comparison: a rich terminal report, JSON (``"report": "compare"``,
``schema_version`` 2, documented in the README), Markdown and LaTeX. They only format;
nothing here computes a derivative.

Two layouts of the same data: a gradient at one point shows each method's partials one
row each (value, errors, ULPs); Jacobians, vᵀJ, Jv, Hessians and many points show the
relative error of each entry and a summary per method. Non-finite numbers, which JSON
cannot hold, are the strings "nan", "inf" and "-inf".
"""

from __future__ import annotations

import sys

from diffcompare.lazy import LazyModule

np = LazyModule("numpy")

from diffcompare.language.printing import latex, one_line, pretty  # noqa: E402
from diffcompare.render import html  # noqa: E402
from diffcompare.render.common import (  # noqa: E402
    VERDICT_STYLE,
    count,
    dropped_note,
    envelope,
    fitted_table,
    json_number,
    latex_header,
    latex_tables,
    math_paragraph,
    md_table,
    number,
    render_report,
    seconds,
    small,
    tex,
)
from diffcompare.judge.comparison import correct_digits  # noqa: E402
from diffcompare.render.verdicts import finding, reason  # noqa: E402
from diffcompare.render.work import work_words  # noqa: E402
from diffcompare.version import __version__  # noqa: E402

SCHEMA_VERSION = 3
MAX_ENTRY_ROWS = 36         # larger results show the worst entries only


def render(c, format: str = "text", width: int | None = None) -> str:
    """The comparison in ``format``: text (rich), json, markdown or latex."""
    return render_report(c, format, width, sys.modules[__name__])


def by_partials(c) -> bool:
    """Whether the report shows each method's partials one row each: a gradient at one point."""
    return c.single and c.task.kind == "gradient" and c.task.size <= MAX_ENTRY_ROWS


# -- shared pieces ---------------------------------------------------------------------------------

def _time(e) -> str:
    if e.timing is None:
        return "—"
    text = seconds(e.timing.median)
    if e.timing.batches > 1 and e.timing.median > 0:
        text += f" ±{e.timing.spread / e.timing.median:.0%}"
    return text


def _modes(c) -> str:
    """The lecture point on a Jacobian: forward mode costs n passes, reverse mode m."""
    if c.task.kind != "jacobian":
        return ""
    timed = {m.name: m.estimate for m in c.methods if m.estimate.has_values and m.estimate.timing is not None}
    if "autograd" not in timed or "forward-mode" not in timed:
        return ""
    n, m = c.task.n, c.task.m
    ratio = timed["forward-mode"].timing.median / timed["autograd"].timing.median
    cheaper = "forward" if n < m else "reverse" if m < n else "neither"
    return (f"  modes: n = {n} input{'s' * (n != 1)}, m = {m} output{'s' * (m != 1)}: forward mode makes n passes, "
            f"reverse mode m seeds (batched here into one backward); {cheaper} mode needs fewer"
            f"{'' if cheaper != 'neither' else ' (n = m)'}; forward mode took {ratio:.2f}x reverse mode's time")


def headline(c) -> str:
    """The report in one line (its repr)."""
    where = f"at {len(c.points):,} points" if not c.single else "at one point"
    return f"{c.task.kind} of {c.problem.label} {where}: {c.verdicts()}"


def _work(e) -> str:
    work = work_words(e.details.get("work"))
    if e.details.get("vectorised") is False:
        work += "; point by point"
    return work


def _array_text(value, most: int = 8) -> str:
    """A vector or matrix as the user typed it, on one line: [1.0, 2.5], [[2.0, 1.0], [1.0, 3.0]];
    a long one shortened with its size."""
    array = np.asarray(value, dtype=float)
    if array.size > most:
        return np.array2string(array, precision=6, threshold=most, separator=", ").replace("\n", "")
    return repr(array.tolist())


def _point_text(problem, flat_row) -> str:
    values = problem.split(np.asarray(flat_row))
    parts = []
    for name, value in values.items():
        parts.append(f"{name} = {_array_text(value)}" if np.ndim(value) else f"{name} = {float(value)!r}")
    return ", ".join(parts)


def _grouped_reasons(c):
    """Methods that were not judged a pass, grouped by the reason given."""
    groups = {}
    for m in c.methods:
        why = reason(m.judgement)
        counted = m.verdict == "pass" and (m.judgement.numbers.get("undecided") or m.judgement.numbers.get("skipped"))
        if (m.verdict != "pass" or counted) and why:
            groups.setdefault((m.verdict, why), []).append(m.name)
    return [(verdict, names, reason) for (verdict, reason), names in groups.items()]


def _summary(c) -> str:
    failed = [m for m in c.methods if m.verdict in ("fail", "failed")]
    judged = [m for m in c.methods if m.verdict == "pass"]
    if failed:
        return f"{len(failed)} method(s) outside the expected accuracy: " + "; ".join(
            f"{m.name}: {reason(m.judgement)}" for m in failed)
    undecided = [m.name for m in c.methods if m.verdict == "inconclusive"]
    if not judged:
        return ("no method could be judged here (see the notes)" if not undecided else
                f"no method passed: {', '.join(undecided)} inconclusive (band too wide to decide)")
    return (f"all {len(judged)} judged method(s) within their expected accuracy" +
            (f"; {', '.join(undecided)} inconclusive (band too wide to decide)" if undecided else ""))


def _formula_lines(c):
    d = c.derivative
    if d is None or d.partials is None or not by_partials(c):
        return []
    lines = []
    for label, p in zip(c.task.entry_labels(), d.partials):
        text = one_line(p)
        lines.append(f"{label} = {text}" if text is not None else
                     f"{label}: {count(d.size_raw)} operations, too large to print")
    return lines


def _reverse_size(c) -> str:
    """Symbolic reverse mode's size beside SymPy's, when it ran."""
    for m in c.methods:
        if m.name == "symbolic-reverse" and m.estimate.details.get("size") is not None:
            return f", symbolic reverse mode {count(m.estimate.details['size'])}"
    return ""


def _reference_line(c) -> str:
    r = c.reference
    if r.available or r.exact is not None:
        return f"reference: {r.label}"
    return f"reference: none ({r.reason})"


def _reference_values(c) -> list:
    """At one point, each entry of the reference with its trusted digits (partials layout)."""
    r = c.reference
    lines = []
    for k, label in enumerate(c.task.entry_labels()):
        shown = r.text(k) if r.exact is not None or r.findings else None
        found = r.findings.get((0, k))
        said = f" ({finding(found)})" if found is not None and found.judgeable else ""
        if shown is not None:
            lines.append(f"{label} = {shown}{said}")
        else:
            lines.append(f"{label}: {finding(found) if found is not None else r.undefined.get(k, r.reason)}")
    return lines


# -- the partials layout: a gradient at one point ----------------------------------------------------

PARTIAL_HEADERS = ("method", "∂f/∂", "value", "abs error", "band", "rel error", "digits", "ULP", "step h", "f evals",
                   "time", "setup", "verdict")
_LEFT = ("method", "∂f/∂", "verdict", "worst entry", "worst entry @ point", "forms J", "work", "entry")


def _ulps(n) -> str:
    if n != n:
        return "—"
    return str(int(n)) if n < 100000 else f"{n:.1e}"


def _digits(m, k) -> str:
    if m.rel_error is None or not np.isfinite(m.abs_error[0, k]):
        return "—"
    relative, absolute = float(m.rel_error[0, k]), float(m.abs_error[0, k])
    worst = relative if np.isfinite(relative) else absolute     # an exact zero: digits of the absolute error
    return f"{correct_digits(worst):.1f}"


def _band(m, row: int, k: int) -> str:
    """The band (expected accuracy: the absolute error the verdict allowed) of entry ``k`` at
    reference row ``row``; — where there is none."""
    if m.tolerance is None or not np.isfinite(m.tolerance[row, k]):
        return "—"
    return small(float(m.tolerance[row, k]))


def _step(e, k: int | None = None) -> str:
    """A difference method's step h: of direction ``k`` at the one point, or the one step
    (or the range of steps) over every direction and point; — for other methods."""
    steps = e.details.get("steps") if e.has_values else None
    if steps is None:
        return "—"
    steps = np.asarray(steps, dtype=float)
    if k is not None:
        return f"{float(np.ravel(steps[0])[k]):.1e}"
    low, high = float(np.min(steps)), float(np.max(steps))
    return f"{low:.1e}" if low == high else f"{low:.1e}–{high:.1e}"


def _worst_band(c, m) -> str:
    """The band at the entry and point the verdict turned on (the worst error)."""
    if m.tolerance is None or not m.worst:
        return "—"
    rows = np.flatnonzero(c.reference.indices == m.worst["point"])
    labels = c.task.entry_labels()
    return _band(m, int(rows[0]), labels.index(m.worst["entry"])) if rows.size else "—"


def _partial_rows(c):
    """(method, variable, value, abs, band, rel, digits, ulps, step, evals, time, setup, verdict) per method
    and partial."""
    names = c.task.input_labels
    for m in c.methods:
        e = m.estimate
        setup = seconds(e.setup_seconds) if e.setup_seconds is not None else ""
        evals = "—" if e.evaluations is None or e.family != "finite differences" else str(e.evaluations)
        if not e.has_values:
            yield (e.method, "", "—", "—", "—", "—", "—", "—", "—", evals, _time(e), setup, m.verdict)
            continue
        values = np.ravel(e.values[0])
        for k, name in enumerate(names):
            first = k == 0
            measured = m.abs_error is not None
            yield (e.method if first else "", name, number(float(values[k])),
                   small(float(m.abs_error[0, k])) if measured else "—", _band(m, 0, k) if measured else "—",
                   small(float(m.rel_error[0, k])) if measured else "—",
                   _digits(m, k) if measured else "—", _ulps(float(m.ulps[0, k])) if measured else "—",
                   _step(e, k), evals if first else "", _time(e) if first else "", setup if first else "",
                   m.verdict if first else "")


def _partial_table(c):
    """Headers and rows, without the ∂f/∂ column when there is one variable."""
    rows = list(_partial_rows(c))
    if c.task.n == 1:
        return PARTIAL_HEADERS[:1] + PARTIAL_HEADERS[2:], [r[:1] + r[2:] for r in rows]
    return PARTIAL_HEADERS, rows


# -- the entries layout: everything else ---------------------------------------------------------------

def _header(c) -> list:
    p, t = c.problem, c.task
    lines = [f"f = {p.label}   ({t.m} output{'s' * (t.m != 1)}, {t.n} input{'s' * (t.n != 1)})", t.describe()]
    lines.append(f"at {_point_text(p, c.points.flat[0])}" if c.single else c.points.how)
    d = c.derivative
    if d is not None and d.size_raw is not None:
        lines.append(f"size (count_ops): f {count(d.size_f)}, entries {count(d.size_raw)}, "
                     f"after cse {count(d.size_cse)}{_reverse_size(c)}")
    lines.append(_reference_line(c))
    return lines


def _summary_rows(c, with_work=True):
    many = not c.single
    for m in c.methods:
        e = m.estimate
        worst = m.worst["entry"] + (f" @ {m.worst['point']}" if many else "") if m.worst else "—"
        row = [m.name, worst, small(m.max_abs_error), _worst_band(c, m), small(m.statistic("max"))]
        if many:
            row.append(small(m.statistic("median")))
        row.append("—" if m.digits is None else f"{m.digits:.1f}")
        if c.task.kind == "hessian":
            row.append(small(m.symmetry) if m.symmetry is not None else "—")
        if _shows_forming(c):
            row.append("yes" if e.details.get("forms_jacobian") else "no")
        row.append(_step(e))
        row += ([_work(e)] if with_work else []) + [_time(e)]
        if many:
            row.append(seconds(e.timing.median / len(c.points)) if e.timing else "—")
        row += [seconds(e.setup_seconds) if e.setup_seconds is not None else "", m.verdict]
        yield row


def _summary_headers(c, with_work=True):
    many = not c.single
    headers = ["method", "worst entry" + (" @ point" if many else ""), "max abs error", "band", "max rel error"]
    if many:
        headers.append("median rel error")
    headers.append("digits")
    if c.task.kind == "hessian":
        headers.append("asymmetry")
    if _shows_forming(c):
        headers.append("forms J")
    headers.append("step h")
    headers += (["work"] if with_work else []) + ["time" + (" (all points)" if many else "")]
    if many:
        headers.append("per point")
    headers += ["setup", "verdict"]
    return headers


def _shows_forming(c) -> bool:
    """Whether a method formed the full Jacobian: the lecture point of vᵀJ and Jv."""
    return c.task.kind in ("vjp", "jvp")


def _entry_table(c):
    """Per entry (one point, small results): the reference and each method's relative error."""
    if not c.single or c.task.size > MAX_ENTRY_ROWS or not c.reference.available:
        return None, None
    labels = c.task.entry_labels()
    shown = [m for m in c.methods if m.rel_error is not None]
    headers = ["entry", "reference"] + [m.name for m in shown]
    rows = []
    for k, label in enumerate(labels):
        high = c.reference.high[0, k]
        rows.append([label, "undefined" if not np.isfinite(high) else f"{high:.17g}"]
                    + [small(float(m.rel_error[0, k])) for m in shown])
    return headers, rows


def _worst_points(c):
    if c.single:
        return []
    lines = []
    for m in c.methods:
        if m.worst:
            lines.append(f"{m.name}: worst {m.worst['entry']} = {m.worst['value']!r} (exact {m.worst['reference']!r}) "
                         f"at {_point_text(c.problem, c.points.flat[m.worst['point']])}")
    return lines


# -- text ----------------------------------------------------------------------------------------------

# the summary's columns left out first when a terminal is narrow (method, entry, value and verdict stay)
SUMMARY_DROP_ORDER = ("setup", "per point", "step h", "band", "f evals", "ULP", "abs error", "max abs error", "median rel error",
                      "asymmetry", "forms J", "time", "time (all points)", "digits", "worst entry @ point", "worst entry",
                      "rel error", "max rel error")


def print_report(c, console) -> None:
    """Print the report with rich (colour when the console supports it)."""
    from rich.text import Text
    if by_partials(c):
        p = c.problem
        console.print(Text(f"f = {p.label}", style="bold"))
        console.print(f"at {_point_text(p, c.points.flat[0])}:  f = {number(c.value)}")
        for line in _formula_lines(c):
            console.print(Text(line))
        d = c.derivative
        if d is not None and d.size_raw is not None:
            console.print(f"size (count_ops): f {count(d.size_f)}, derivative {count(d.size_raw)}, "
                          f"after cse {count(d.size_cse)}{_reverse_size(c)}")
        console.print(Text(_reference_line(c), style="dim"))
        for line in _reference_values(c):
            console.print(Text(f"  {line}"))
        headers, rows = _partial_table(c)
    else:
        for i, line in enumerate(_header(c)):
            console.print(Text(line, style="bold" if i == 0 else ("dim" if line.startswith("reference") else "")))
        entry_headers, entry_rows = _entry_table(c)
        if entry_headers:
            methods = [h for h in entry_headers if h not in ("entry", "reference")]
            table, dropped = fitted_table(console, entry_headers, entry_rows, drop_order=methods[::-1], left=_LEFT,
                                          show_header=True, header_style="bold", box=None, pad_edge=False,
                                          title="relative error of each entry", title_justify="left")
            console.print(table)
            if dropped:
                console.print(Text(dropped_note(dropped, console.width), style="dim"))
        headers, rows = _summary_headers(c, with_work=False), list(_summary_rows(c, with_work=False))
    table, dropped = fitted_table(console, list(headers), [list(r) for r in rows], drop_order=SUMMARY_DROP_ORDER,
                                  left=_LEFT, styles={"verdict": lambda v: VERDICT_STYLE.get(v, "")},
                                  show_header=True, header_style="bold", box=None, pad_edge=False)
    console.print(table)
    if dropped:
        console.print(Text(dropped_note(dropped, console.width), style="dim"))
    if not by_partials(c):
        width = max(len(m.name) for m in c.methods)
        for m in c.methods:
            console.print(Text(f"  {m.name:<{width}}  {_work(m.estimate)}", style="dim"))
        for line in _worst_points(c):
            console.print(Text(line, style="dim"))
        modes = _modes(c)
        if modes:
            console.print(Text(modes, style="dim"))
    agreement = _agreement_line(c)
    if agreement:
        console.print(Text(agreement))
    for verdict, names, why in _grouped_reasons(c):
        console.print(Text(f"{', '.join(names)}: {why}", style=VERDICT_STYLE.get(verdict, "")))
    for note in c.notes:
        console.print(Text(f"note: {note.text}", style="yellow" if note.kind in ("kink", "domain") else "dim"))
    console.print(Text(_summary(c), style="bold red" if c.exit_status else "bold green"))


def _agreement_line(c) -> str | None:
    """How many digits each method shares with autograd, in one line (None without autograd)."""
    agreements = c.agreements()
    if not agreements:
        return None
    return ("agreement with autograd (digits" + ("" if by_partials(c) else ", worst entry")
            + ("" if c.single else " and point") + "): " + ", ".join(f"{k} {v:.1f}" for k, v in agreements.items()))


# -- HTML (a notebook cell, a page) ------------------------------------------------------------------

def html_report(c) -> str:
    """The report as an HTML fragment: the tables of the text report with every column (a
    browser scrolls; nothing is left out), then the same lines."""
    styles = {"verdict": lambda v: VERDICT_STYLE.get(v, "")}
    if by_partials(c):
        p = c.problem
        parts = [html.heading(f"f = {p.label}"), html.paragraph(f"at {_point_text(p, c.points.flat[0])}:  "
                                                                f"f = {number(c.value)}"),
                 html.items(_formula_lines(c), code=True)]
        d = c.derivative
        if d is not None and d.size_raw is not None:
            parts.append(html.paragraph(f"size (count_ops): f {count(d.size_f)}, derivative {count(d.size_raw)}, "
                                        f"after cse {count(d.size_cse)}{_reverse_size(c)}"))
        parts += [html.paragraph(_reference_line(c), style="dim"), html.items(_reference_values(c))]
        headers, rows = _partial_table(c)
    else:
        header = _header(c)
        parts = [html.heading(header[0])] + [html.paragraph(line, style="dim" if line.startswith("reference") else None)
                                             for line in header[1:]]
        entry_headers, entry_rows = _entry_table(c)
        if entry_headers:
            parts.append(html.table(entry_headers, entry_rows, left=_LEFT, caption="relative error of each entry"))
        headers, rows = _summary_headers(c), list(_summary_rows(c))
    parts.append(html.table(list(headers), [list(r) for r in rows], left=_LEFT, styles=styles, prose=("work",)))
    if not by_partials(c):
        parts.append(html.items(_worst_points(c)))
        parts.append(html.paragraph(_modes(c).strip(), style="dim"))
    parts.append(html.paragraph(_agreement_line(c) or ""))
    parts += [html.paragraph(f"{', '.join(names)}: {why}", style=VERDICT_STYLE.get(verdict, ""))
              for verdict, names, why in _grouped_reasons(c)]
    parts += [html.paragraph(f"note: {note.text}", style="yellow" if note.kind in ("kink", "domain") else "dim")
              for note in c.notes]
    parts.append(html.paragraph(_summary(c), style="bold red" if c.exit_status else "bold green"))
    return html.fragment(parts)


# -- JSON -----------------------------------------------------------------------------------------------

def _entries(c, m) -> dict | None:
    """At one point: every entry of one method with its error, ULPs and band."""
    e = m.estimate
    if not c.single or not e.has_values or c.task.size > MAX_ENTRY_ROWS:
        return None
    values = np.ravel(e.values[0])
    out = {}
    for k, label in enumerate(c.task.entry_labels()):
        item = {"value": json_number(float(values[k]))}
        if m.abs_error is not None:
            band = None if m.tolerance is None else float(m.tolerance[0, k])
            item.update({"abs_error": json_number(float(m.abs_error[0, k])),
                         "rel_error": json_number(float(m.rel_error[0, k])),
                         "ulps": None if m.ulps[0, k] != m.ulps[0, k] else int(m.ulps[0, k]),
                         "tolerance": json_number(band), "tolerance_source": m.source_of(k) or None,
                         "within": None if band is None or band != band else bool(m.abs_error[0, k] <= band)})
        out[label] = item
    return out


def as_dict(c) -> dict:
    """The comparison as plain data (what the JSON format writes)."""
    labels = c.task.entry_labels()
    single = c.single
    point = {n: np.asarray(v, dtype=np.float64).tolist() for n, v in c.problem.point.items()}
    command = {"function": c.problem.label, "at": point, **c.settings}
    return envelope("compare", SCHEMA_VERSION, command, c.exit_status, {
        "function": c.problem.label,
        "kind": c.task.kind,
        "vector": None if c.task.vector is None else [float(v) for v in c.task.vector],
        "inputs": c.task.input_labels,
        "outputs": c.task.output_labels(),
        "entries": labels,
        "entry_shape": list(c.task.entry_shape),
        "value": json_number(c.value),
        "points": {"count": len(c.points), "how": c.points.how,
                   "point": {k: (v.tolist() if isinstance(v, np.ndarray) else float(v))
                             for k, v in c.problem.split(c.points.flat[0]).items()} if single else None,
                   "point_exact": {k: _exact_decimal(v) for k, v in c.problem.point.items()
                                   if not isinstance(v, np.ndarray)} if single else None},
        "reference": _reference_dict(c, labels),
        "symbolic": _symbolic_dict(c, labels),
        "methods": [_method_dict(c, m) for m in c.methods],
        "agreement_digits": c.agreements(),
        "notes": [{"kind": n.kind, "text": n.text} for n in c.notes],
    })


def _method_dict(c, m) -> dict:
    """One method's row in JSON."""
    e = m.estimate
    source = m.band_source
    item = {
        "name": m.name, "family": e.family, "status": e.status, "verdict": m.verdict, "reason": reason(m.judgement),
        "judgement": _judgement(m.judgement),
        "errors": {"max_abs": json_number(m.max_abs_error), "max_rel": json_number(m.statistic("max")),
                   "median_rel": json_number(m.statistic("median")), "digits": m.digits,
                   "outside_band": m.outside},
        "worst": {k: json_number(v) for k, v in m.worst.items()} if m.worst else None,
        "band": ("; ".join(dict.fromkeys(t for t in source if t)) if isinstance(source, (list, tuple))
                 else source) or None,
        "work": work_words(e.details.get("work")) or None, "forms_jacobian": e.details.get("forms_jacobian"),
        "vectorised": e.details.get("vectorised"), "evaluations": e.evaluations,
        "time": e.timing.as_dict() if e.timing else None, "setup_seconds": e.setup_seconds,
        "entries": _entries(c, m),
    }
    if c.task.kind == "hessian":
        item["asymmetry"] = json_number(m.symmetry)
    if c.single and e.has_values:
        item["values"] = [json_number(float(v)) for v in np.ravel(e.values[0])]
        item["details"] = _details(e.details)
    return item


def _reference_dict(c, labels) -> dict:
    """The exact reference in JSON: its source, values, trusted digits and findings."""
    r, single = c.reference, c.single
    return {"source": r.source, "label": r.label, "digits": r.digits, "points": int(r.indices.size),
            "reason": r.reason or None,
            "values": [json_number(float(v)) for v in r.high[0]] if single and r.available else None,
            "exact": [r.text(k) for k in range(len(labels))] if single and r.exact is not None else None,
            "trusted_digits": [int(t) for t in r.trusted[0]] if single and r.available else None,
            "min_trusted_digits": int(r.trusted.min()) if r.available and r.trusted.size else None,
            "uncertain": {labels[k]: why for k, why in r.uncertain.items()},
            "undefined": {labels[k]: why for k, why in r.undefined.items()},
            "findings": _findings(c),
            "states": [[str(state) for state in row] for row in r.state] if single else None,
            "seconds": r.seconds}


def _symbolic_dict(c, labels) -> dict | None:
    """SymPy's derivative in JSON: its status, sizes and (for a few entries) formulas."""
    d = c.derivative
    if not d:
        return None
    formulas = None
    if d.partials is not None and c.task.size <= MAX_ENTRY_ROWS:
        formulas = {label: {"text": one_line(p), "pretty": pretty(p), "latex": latex(p)}
                    for label, p in zip(labels, d.partials)}
    return {"status": d.status, "reason": d.reason, "size_f": d.size_f, "size_raw": d.size_raw,
            "size_cse": d.size_cse, "diff_seconds": d.diff_seconds, "codegen_seconds": d.codegen_seconds,
            "formulas": formulas}


def _findings(c) -> dict:
    """What f's derivative was found to be where the formula could not say: at one point
    {entry: finding}; at many, {point number: {entry: finding}}."""
    r, labels = c.reference, c.task.entry_labels()
    if c.single:
        return {labels[k]: f.as_dict() for (row, k), f in r.findings.items()}
    out = {}
    for (row, k), f in sorted(r.findings.items()):
        out.setdefault(str(int(r.indices[row])), {})[labels[k]] = f.as_dict()
    return out


def _judgement(verdict) -> dict:
    """The verdict as plain data, its non-finite numbers as JSON can hold them."""
    out = verdict.as_dict()
    out["numbers"] = {k: json_number(v) if isinstance(v, float) else v for k, v in out["numbers"].items()}
    return out


def _details(details) -> dict:
    """A method's own numbers at one point: its formula and order, its steps (one per
    direction) and, for Richardson, its error estimate per entry."""
    out = {key: details[key] for key in ("formula", "order") if key in details}
    for key in ("steps", "error_estimate"):
        if key in details:
            out[key] = [json_number(float(v)) for v in np.ravel(np.asarray(details[key])[0])]
    return out


def _exact_decimal(v: float) -> str:
    """The exact decimal value of a binary64 number (0.1 -> 0.1000000000000000055511151231257827...)."""
    from decimal import Decimal
    return str(Decimal(float(v)))


# -- Markdown and LaTeX -----------------------------------------------------------------------------

def markdown(c) -> str:
    if by_partials(c):
        p = c.problem
        out = [f"## `{p.label}` at {_point_text(p, c.points.flat[0])}", "", f"f = {number(c.value)}", ""]
        out += [f"- `{line}`" for line in _formula_lines(c)]
        out.append(f"- {_reference_line(c)}")
        out += [f"  - {line}" for line in _reference_values(c)]
        out.append("")
        headers, rows = _partial_table(c)
        out += md_table(headers, rows, _LEFT) + [""]
    else:
        header = _header(c)
        out = [f"## `{c.problem.label}`", ""] + [f"- {line}" for line in header[1:]] + [""]
        headers, rows = _entry_table(c)
        if headers:
            out += md_table(headers, rows, _LEFT) + [""]
        out += md_table(_summary_headers(c), list(_summary_rows(c)), _LEFT) + [""]
        out += [f"- {line}" for line in _worst_points(c)]
    agreements = c.agreements()
    if agreements:
        out.append("- agreement with autograd (digits): " + ", ".join(f"{k} {v:.1f}" for k, v in agreements.items()))
    out += [f"- **{', '.join(names)}** ({verdict}): {why}" for verdict, names, why in _grouped_reasons(c)]
    out += [f"- note: {note.text}" for note in c.notes]
    out += ["", f"**{_summary(c)}**"]
    return "\n".join(out) + "\n"


def latex_report(c) -> str:
    """A LaTeX fragment: the derivative as equations (a gradient at one point) and booktabs tables."""
    if by_partials(c):
        headers, rows = _partial_table(c)
        caption = f"at {_point_text(c.problem, c.points.flat[0])}; {_reference_line(c)}"
    else:
        headers = [h for h in _summary_headers(c) if h != "work"]
        keep = [i for i, h in enumerate(_summary_headers(c)) if h != "work"]
        rows = [[str(row[i]) for i in keep] for row in _summary_rows(c)]
        caption = f"{c.task.describe()}: {c.problem.label}"
    out = latex_header(f"{__version__} compare: {c.problem.label}")
    d = c.derivative
    if by_partials(c) and d is not None and d.partials is not None:
        for name, part in zip(c.task.input_labels, d.partials):
            line = math_paragraph(rf"\frac{{\partial f}}{{\partial {name}}}", part)
            if line is not None:
                out += [line, r"\smallskip"]
    out.append(r"\begin{center}")
    out += _tabular(headers, rows)
    entry_headers, entry_rows = (None, None) if by_partials(c) else _entry_table(c)
    if entry_headers:
        out += [r"\par\medskip"] + _tabular(entry_headers, entry_rows)
    out.append(rf"\par\smallskip {tex(caption)}")
    out.append(r"\end{center}")
    return "\n".join(out) + "\n"


def _tabular(headers, rows) -> list:
    """The table for a slide: the method (and entry) with the value, errors and verdict
    first, the costs in a second table when they do not fit beside them."""
    return latex_tables(headers, rows, key=("method", "∂f/∂", "entry"), left=_LEFT,
                        first=("value", "reference", "rel error", "max rel error", "digits", "verdict"))

"""Renderers for a Survey (Jacobian, vᵀJ, Jv, Hessian, many points): a rich terminal
report, JSON (``"report": "survey"``, ``schema_version`` 1, documented in the README),
Markdown and LaTeX. They only format.
"""

from __future__ import annotations

import sys

from diffcompare.lazy import LazyModule

np = LazyModule("numpy")

from diffcompare.render.common import (
    SCHEMA_VERSION,
    VERDICT_STYLE,
    count,
    json_number,
    md_table,
    render_report,
    seconds,
    small,
    tex,
)
from diffcompare.render.compare import markdown_verdicts, print_verdicts
from diffcompare.render.verdicts import reason
from diffcompare.version import __version__

MAX_ENTRY_ROWS = 36         # larger results show the worst entries only


def render(s, format: str = "text", width: int | None = None) -> str:
    return render_report(s, format, width, sys.modules[__name__])


def _point_text(problem, flat_row) -> str:
    values = problem.split(np.asarray(flat_row))
    parts = []
    for name, value in values.items():
        parts.append(f"{name} = {np.array2string(np.asarray(value), precision=6, threshold=8)}"
                     if np.ndim(value) else f"{name} = {float(value)!r}")
    return ", ".join(parts)


def _header(s) -> list:
    p, t = s.problem, s.task
    lines = [f"f = {p.label}   ({t.m} output{'s' * (t.m != 1)}, {t.n} input{'s' * (t.n != 1)})",
             t.describe()]
    if len(s.points) == 1:
        lines.append(f"at {_point_text(p, s.points.flat[0])}")
    else:
        lines.append(s.points.how)
    d = s.derivative
    if d is not None and d.size_raw is not None:
        lines.append(f"size (count_ops): f {count(d.size_f)}, entries {count(d.size_raw)}, "
                     f"after cse {count(d.size_cse)}")
    r = s.reference
    lines.append(f"reference: SymPy's exact entries evaluated with mpmath to {r.digits} digits" if r.available
                 else f"reference: none ({r.reason})")
    return lines


def _time(e) -> str:
    if e.timing is None:
        return "—"
    text = seconds(e.timing.median)
    if e.timing.batches > 1 and e.timing.median > 0:
        text += f" ±{e.timing.spread / e.timing.median:.0%}"
    return text


def _work(e) -> str:
    work = e.details.get("work", "")
    if e.details.get("vectorised") is False:
        work += "; point by point"
    return work


def _summary_rows(s, with_work=True):
    many = len(s.points) > 1
    for m in s.methods:
        e = m.estimate
        worst = m.worst["entry"] + (f" @ {m.worst['point']}" if many else "") if m.worst else "—"
        row = [m.name, worst, small(m.max_abs_error), small(m.statistic("max"))]
        if many:
            row.append(small(m.statistic("median")))
        row.append("—" if m.digits is None else f"{m.digits:.1f}")
        if s.task.kind == "hessian":
            row.append(small(m.symmetry) if m.symmetry is not None else "—")
        if _shows_forming(s):
            row.append("yes" if e.details.get("forms_jacobian") else "no")
        row += ([_work(e)] if with_work else []) + [_time(e)]
        if many:
            row.append(seconds(e.timing.median / len(s.points)) if e.timing else "—")
        row += [seconds(e.setup_seconds) if e.setup_seconds is not None else "", m.verdict]
        yield row


def _summary_headers(s, with_work=True):
    many = len(s.points) > 1
    headers = ["method", "worst entry" + (" @ point" if many else ""), "max abs error", "max rel error"]
    if many:
        headers.append("median rel error")
    headers.append("digits")
    if s.task.kind == "hessian":
        headers.append("asymmetry")
    if _shows_forming(s):
        headers.append("forms J")
    headers += (["work"] if with_work else []) + ["time" + (" (all points)" if many else "")]
    if many:
        headers.append("per point")
    headers += ["setup", "verdict"]
    return headers


def _shows_forming(s) -> bool:
    """Whether a method formed the full Jacobian: the lecture point of vᵀJ and Jv."""
    return s.task.kind in ("vjp", "jvp")


_LEFT = ("method", "worst entry", "worst entry @ point", "forms J", "work", "verdict", "entry")


def _entry_table(s):
    """Per entry (one point, small results): the reference and each method's relative error."""
    if len(s.points) != 1 or s.task.size > MAX_ENTRY_ROWS or not s.reference.available:
        return None, None
    labels = s.task.entry_labels()
    shown = [m for m in s.methods if m.rel_error is not None]
    headers = ["entry", "reference"] + [m.name for m in shown]
    rows = []
    for k, label in enumerate(labels):
        high = s.reference.high[0, k]
        rows.append([label, "undefined" if not np.isfinite(high) else f"{high:.17g}"]
                    + [small(float(m.rel_error[0, k])) for m in shown])
    return headers, rows


def _worst_points(s):
    if len(s.points) == 1:
        return []
    lines = []
    for m in s.methods:
        if m.worst:
            lines.append(f"{m.name}: worst {m.worst['entry']} = {m.worst['value']!r} (exact {m.worst['reference']!r}) "
                         f"at {_point_text(s.problem, s.points.flat[m.worst['point']])}")
    return lines


def print_report(s, console) -> None:
    from rich.table import Table
    from rich.text import Text
    for i, line in enumerate(_header(s)):
        console.print(Text(line, style="bold" if i == 0 else ("dim" if line.startswith("reference") else "")))
    headers, rows = _entry_table(s)
    if headers:
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False,
                      title="relative error of each entry", title_justify="left")
        for h in headers:
            table.add_column(h, justify="left" if h in _LEFT else "right", overflow="fold")
        for row in rows:
            table.add_row(*map(Text, row))
        console.print(table)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for h in _summary_headers(s, with_work=False):
        table.add_column(h, justify="left" if h in _LEFT else "right", overflow="fold", no_wrap=h == "method")
    for row in _summary_rows(s, with_work=False):
        table.add_row(*map(Text, row[:-1]), Text(row[-1], style=VERDICT_STYLE.get(row[-1], "")))
    console.print(table)
    width = max(len(m.name) for m in s.methods)
    for m in s.methods:
        console.print(Text(f"  {m.name:<{width}}  {_work(m.estimate)}", style="dim"))
    for line in _worst_points(s):
        console.print(Text(line, style="dim"))
    agreements = s.agreements()
    if agreements:
        console.print(Text("agreement with autograd (digits, worst entry" + (" and point" if len(s.points) > 1 else "")
                           + "): " + ", ".join(f"{k} {v:.1f}" for k, v in agreements.items())))
    print_verdicts(s, console)


def as_dict(s) -> dict:
    """The survey as plain data (what the JSON format writes)."""
    single = len(s.points) == 1
    r = s.reference
    methods = []
    for m in s.methods:
        e = m.estimate
        item = {
            "name": m.name, "family": e.family, "status": e.status, "verdict": m.verdict, "reason": reason(m.judgement),
            "judgement": m.judgement.as_dict(),
            "errors": {"max_abs": json_number(m.max_abs_error), "max_rel": json_number(m.statistic("max")),
                       "median_rel": json_number(m.statistic("median")), "digits": m.digits,
                       "outside_band": m.outside},
            "worst": {k: json_number(v) for k, v in m.worst.items()} if m.worst else None,
            "band": m.band_source or None,
            "work": e.details.get("work"), "forms_jacobian": e.details.get("forms_jacobian"),
            "vectorised": e.details.get("vectorised"), "evaluations": e.evaluations,
            "time": e.timing.as_dict() if e.timing else None, "setup_seconds": e.setup_seconds,
        }
        if s.task.kind == "hessian":
            item["asymmetry"] = json_number(m.symmetry)
        if single and e.has_values:
            item["values"] = [json_number(float(v)) for v in np.ravel(e.values[0])]
        methods.append(item)
    d = s.derivative
    return {
        "schema_version": SCHEMA_VERSION,
        "report": "survey",
        "diffcompare_version": __version__,
        "function": s.problem.label,
        "kind": s.task.kind,
        "vector": None if s.task.vector is None else [float(v) for v in s.task.vector],
        "inputs": s.task.input_labels,
        "outputs": s.task.output_labels(),
        "entries": s.task.entry_labels(),
        "entry_shape": list(s.task.entry_shape),
        "points": {"count": len(s.points), "how": s.points.how,
                   "point": {k: (v.tolist() if isinstance(v, np.ndarray) else float(v))
                             for k, v in s.problem.split(s.points.flat[0]).items()} if single else None},
        "reference": {"digits": r.digits, "points": int(r.indices.size), "reason": r.reason or None,
                      "values": [json_number(float(v)) for v in r.high[0]] if single and r.available else None,
                      "min_trusted_digits": int(r.trusted.min()) if r.available and r.trusted.size else None},
        "symbolic": {"status": d.status, "size_f": d.size_f, "size_raw": d.size_raw, "size_cse": d.size_cse,
                     "diff_seconds": d.diff_seconds, "codegen_seconds": d.codegen_seconds} if d else None,
        "methods": methods,
        "agreement_digits": s.agreements(),
        "notes": [{"kind": n.kind, "text": n.text} for n in s.notes],
        "settings": s.settings,
        "exit_status": s.exit_status,
    }


def markdown(s) -> str:
    header = _header(s)
    out = [f"## `{s.problem.label}`", ""] + [f"- {line}" for line in header[1:]] + [""]
    headers, rows = _entry_table(s)
    if headers:
        out += md_table(headers, rows, _LEFT) + [""]
    out += md_table(_summary_headers(s), list(_summary_rows(s)), _LEFT) + [""]
    for line in _worst_points(s):
        out.append(f"- {line}")
    agreements = s.agreements()
    if agreements:
        out.append("- agreement with autograd (digits): " + ", ".join(f"{k} {v:.1f}" for k, v in agreements.items()))
    out += markdown_verdicts(s)
    return "\n".join(out) + "\n"


def latex_report(s) -> str:
    headers = _summary_headers(s)
    keep = [i for i, h in enumerate(headers) if h not in ("work",)]
    lines = [r"\begin{table}[ht]", r"\centering", r"\small",
             r"\caption{" + tex(s.task.describe()) + ": " + tex(s.problem.label) + "}",
             r"\begin{tabular}{" + "".join("l" if headers[i] in _LEFT else "r" for i in keep) + "}", r"\hline",
             " & ".join(tex(headers[i]) for i in keep) + r" \\", r"\hline"]
    for row in _summary_rows(s):
        lines.append(" & ".join(tex(str(row[i])) for i in keep) + r" \\")
    lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
    entry_headers, rows = _entry_table(s)
    if entry_headers:
        lines += ["", r"\begin{table}[ht]", r"\centering", r"\small", r"\caption{relative error of each entry}",
                  r"\begin{tabular}{l" + "r" * (len(entry_headers) - 1) + "}", r"\hline",
                  " & ".join(tex(h) for h in entry_headers) + r" \\", r"\hline"]
        lines += [" & ".join(tex(c) for c in row) + r" \\" for row in rows]
        lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


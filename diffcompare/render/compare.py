"""Renderers: a Comparison as a rich terminal report, JSON, Markdown or LaTeX. They
only format; nothing here computes a derivative.

JSON (``schema_version`` 1) is documented in the README. Non-finite numbers, which JSON
cannot hold, are the strings "nan", "inf" and "-inf".
"""

from __future__ import annotations

import sys

from diffcompare.language.printing import latex, one_line, pretty
from diffcompare.render.common import (
    SCHEMA_VERSION,
    VERDICT_STYLE,
    count,
    json_number,
    number,
    render_report,
    seconds,
    small,
    tex,
)
from diffcompare.render.verdicts import reason
from diffcompare.version import __version__


def render(c, format: str = "text", width: int | None = None) -> str:
    """The comparison in ``format``: text (rich), json, markdown or latex."""
    return render_report(c, format, width, sys.modules[__name__])


def as_dict(c) -> dict:
    """The comparison as plain data (what the JSON format writes)."""
    problem = c.problem
    d = c.derivative
    formulas = {}
    for m in c.methods:
        formulas = m.estimate.details.get("formulas", formulas) if m.name == "symbolic" else formulas
    if not formulas and d is not None and d.partials is not None:
        formulas = {n: {"text": one_line(p), "latex": latex(p)} for n, p in zip(problem.variables, d.partials)}
    if d is not None and d.partials is not None:
        formulas = {n: dict(formulas.get(n, {}), pretty=pretty(p)) for n, p in zip(problem.variables, d.partials)}
    methods = []
    for m in c.methods:
        e = m.estimate
        methods.append({
            "name": e.method,
            "family": e.family,
            "status": e.status,
            "verdict": m.verdict,
            "reason": reason(m.judgement),
            "judgement": m.judgement.as_dict(),
            "evaluations": e.evaluations,
            "setup_seconds": e.setup_seconds,
            "time": e.timing.as_dict() if e.timing else None,
            "partials": {
                name: {
                    "value": json_number(p.value),
                    "abs_error": json_number(p.abs_error),
                    "rel_error": json_number(p.rel_error),
                    "correct_digits": p.digits,
                    "ulps": p.ulps,
                    "tolerance": p.band.tolerance if p.band else None,
                    "tolerance_source": p.band.source if p.band else None,
                    "within": p.within,
                } for name, p in m.partials.items()},
            "details": _plain_details(e.details),
        })
    ref = c.reference
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": f"diffcompare {__version__}",
        "function": problem.label,
        "variables": list(problem.variables),
        "point": {n: v for n, v in problem.point.items()},
        "point_exact": {n: _exact_decimal(v) for n, v in problem.point.items()},
        "value": json_number(c.value),
        "derivative": {
            "status": d.status if d else None,
            "reason": d.reason if d else "",
            "formulas": {n: {"text": f.get("text"), "pretty": f.get("pretty"), "latex": f.get("latex")}
                         for n, f in formulas.items()},
            "size": {"f": d.size_f, "raw": d.size_raw, "cse": d.size_cse} if d else None,
            "diff_seconds": d.diff_seconds if d else None,
            "codegen_seconds": d.codegen_seconds if d else None,
        },
        "reference": {
            "source": ref.source,
            "label": ref.label,
            "digits": ref.digits,
            "values": {n: ref.text(n) for n in problem.variables},
            "trusted_digits": dict(ref.trusted_digits),
            "uncertain": dict(ref.uncertain),
            "undefined": dict(ref.undefined),
            "seconds": ref.seconds,
        },
        "methods": methods,
        "agreement_with_autograd": c.agreements(),
        "notes": [{"kind": n.kind, "text": n.text} for n in c.notes],
        "settings": c.settings,
        "exit_status": c.exit_status,
    }


def _plain_details(details):
    out = {}
    for key, value in details.items():
        if key == "formulas":
            continue
        if isinstance(value, dict):
            value = {k: json_number(v) for k, v in value.items()}
        out[key] = json_number(value)
    return out


def _exact_decimal(v: float) -> str:
    """The exact decimal value of a binary64 number (0.1 -> 0.1000000000000000055511151231257827...)."""
    from decimal import Decimal
    return str(Decimal(v))


def _rows(c):
    """(method, variable, value, abs, rel, digits, ulps, evals, time, setup, verdict) per method and partial."""
    for m in c.methods:
        e = m.estimate
        timing = seconds(e.timing.median) if e.timing else "—"
        if e.timing and e.timing.batches > 1 and e.timing.median > 0:
            timing += f" ±{e.timing.spread / e.timing.median:.0%}"
        setup = seconds(e.setup_seconds) if e.setup_seconds is not None else ""
        evals = "—" if e.evaluations is None or e.family != "finite differences" else str(e.evaluations)
        if not m.partials:
            yield (e.method, "", "—", "—", "—", "—", "—", evals, timing, setup, m.verdict)
            continue
        for i, (name, p) in enumerate(m.partials.items()):
            first = i == 0
            yield (e.method if first else "", name, number(p.value), small(p.abs_error), small(p.rel_error),
                   "—" if p.digits is None else f"{p.digits:.1f}", "—" if p.ulps is None else _ulps(p.ulps),
                   evals if first else "", timing if first else "", setup if first else "",
                   m.verdict if first else "")


def _ulps(n: int) -> str:
    return str(n) if n < 100000 else f"{n:.1e}"


HEADERS = ("method", "∂f/∂", "value", "abs error", "rel error", "digits", "ULP", "f evals", "time", "setup",
           "verdict")
_LEFT = ("method", "∂f/∂", "verdict")


def _table(c):
    """Headers and rows, without the ∂f/∂ column when there is one variable."""
    rows = list(_rows(c))
    if len(c.problem.variables) == 1:
        return HEADERS[:1] + HEADERS[2:], [r[:1] + r[2:] for r in rows]
    return HEADERS, rows


def _grouped_reasons(c):
    """Methods that were not judged a pass, grouped by the reason given."""
    groups = {}
    for m in c.methods:
        why = reason(m.judgement)
        if m.verdict != "pass" and why:
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
        return ("no method could be judged at this point (see the notes)" if not undecided else
                f"no method passed: {', '.join(undecided)} inconclusive (band too wide to decide)")
    return (f"all {len(judged)} judged method(s) within their expected accuracy" +
            (f"; {', '.join(undecided)} inconclusive (band too wide to decide)" if undecided else ""))


def _formula_lines(c):
    d = c.derivative
    if d is None or d.partials is None:
        return []
    lines = []
    for name, p in zip(c.problem.variables, d.partials):
        text = one_line(p)
        lines.append(f"∂f/∂{name} = {text}" if text is not None else
                     f"∂f/∂{name}: {count(d.size_raw)} operations, too large to print")
    return lines


def print_report(c, console) -> None:
    """Print the report with rich (colour when the console supports it)."""
    from rich.table import Table
    from rich.text import Text

    p = c.problem
    point = ", ".join(f"{n} = {v!r}" for n, v in p.point.items())
    console.print(Text(f"f = {p.label}", style="bold"))
    console.print(f"at {point}:  f = {number(c.value)}")
    for line in _formula_lines(c):
        console.print(Text(line))
    d = c.derivative
    if d is not None and d.size_raw is not None:
        console.print(f"size (count_ops): f {count(d.size_f)}, derivative {count(d.size_raw)}, "
                      f"after cse {count(d.size_cse)}")
    ref = c.reference
    console.print(Text(f"reference: {ref.label}", style="dim"))
    for name in p.variables:
        shown = ref.text(name)
        console.print(f"  ∂f/∂{name} = {shown}" if shown is not None else f"  ∂f/∂{name}: {ref.undefined.get(name)}")

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    headers, rows = _table(c)
    for header in headers:
        table.add_column(header, justify="left" if header in _LEFT else "right", overflow="fold")
    for row in rows:
        verdict = row[-1]
        table.add_row(*row[:-1], Text(verdict, style=VERDICT_STYLE.get(verdict, "")))
    console.print(table)

    agreements = c.agreements()
    if agreements:
        console.print("agreement with autograd (digits): " + ", ".join(
            f"{k} {v:.1f}" for k, v in agreements.items() if v is not None))
    print_verdicts(c, console)


def print_verdicts(c, console) -> None:
    """The end of every terminal report: reasons, notes and the one-line summary."""
    from rich.text import Text
    for verdict, names, why in _grouped_reasons(c):
        console.print(Text(f"{', '.join(names)}: {why}", style=VERDICT_STYLE.get(verdict, "")))
    for note in c.notes:
        console.print(Text(f"note: {note.text}", style="yellow" if note.kind in ("kink", "domain") else "dim"))
    console.print(Text(_summary(c), style="bold red" if c.exit_status else "bold green"))


def markdown(c) -> str:
    p = c.problem
    out = [f"## `{p.label}` at " + ", ".join(f"{n} = {v!r}" for n, v in p.point.items()), ""]
    out.append(f"f = {number(c.value)}")
    out.append("")
    for line in _formula_lines(c):
        out.append(f"- `{line}`")
    out.append(f"- reference: {c.reference.label}")
    for name in p.variables:
        shown = c.reference.text(name)
        out.append(f"  - ∂f/∂{name} = {shown}" if shown else f"  - ∂f/∂{name}: {c.reference.undefined.get(name)}")
    out.append("")
    headers, rows = _table(c)
    out.append("| " + " | ".join(headers) + " |")
    out.append("|" + "|".join(":---" if h in _LEFT else "---:" for h in headers) + "|")
    for row in rows:
        out.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
    out.append("")
    out += markdown_verdicts(c)
    return "\n".join(out) + "\n"


def markdown_verdicts(c) -> list:
    """The end of every Markdown report: reasons, notes and the summary."""
    out = [f"- **{', '.join(names)}** ({verdict}): {why}" for verdict, names, why in _grouped_reasons(c)]
    out += [f"- note: {note.text}" for note in c.notes]
    return out + ["", f"**{_summary(c)}**"]


def latex_report(c) -> str:
    """A LaTeX fragment: the derivative as an equation and a booktabs table."""
    p = c.problem
    out = [f"% diffcompare {__version__}: {p.label}", r"\begin{center}"]
    d = c.derivative
    if d is not None and d.partials is not None:
        for name, part in zip(p.variables, d.partials):
            formula = latex(part)
            if formula is not None:
                out.append(rf"\[ \frac{{\partial f}}{{\partial {name}}} = {formula} \]")
    headers, rows = _table(c)
    out.append(r"\begin{tabular}{" + "".join("l" if h in _LEFT else "r" for h in headers) + "}")
    out.append(r"\toprule")
    out.append(" & ".join(tex(h) for h in headers) + r" \\")
    out.append(r"\midrule")
    for row in rows:
        out.append(" & ".join(tex(cell) for cell in row) + r" \\")
    out.append(r"\bottomrule")
    out.append(r"\end{tabular}")
    point = ", ".join(f"{n} = {v!r}" for n, v in p.point.items())
    out.append(rf"\par\smallskip {tex(f'at {point}; reference: {c.reference.label}')}")
    out.append(r"\end{center}")
    return "\n".join(out) + "\n"


"""Renderers of an :class:`~diffcompare.auditing.results.AuditReport`: a rich summary
(one row per case, then what was found), JSON (report "audit", ``schema_version`` 1),
Markdown, and JUnit XML (one testcase per case; a wrong gradient is a failure with the
worst point and the values, a case that could not run is an error) for CI systems.
They only format.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import asdict
from xml.etree import ElementTree

from diffcompare.auditing.results import AGREE, FAILING, AuditReport, CaseResult, PointResult, finding, format_point, from_plain
from diffcompare.render.findings import AS_WRITTEN, VERDICT_PHRASES, verdict_code, verdict_of, verdict_words
from diffcompare.render import html
from diffcompare.render.common import (dropped_note, envelope, fitted_table, json_number, latex_header, latex_prose,
                                      latex_tables, md_table, render_report)

SCHEMA_VERSION = 2
FORMATS = ("text", "json", "markdown", "latex", "html", "junit")
STATUS_STYLE = {"pass": "green", "fail": "bold red", "undecided": "yellow", "error": "bold yellow",
                "internal": "bold magenta"}
METHOD_NAMES = {"autograd": "autograd", "fd": "FD (gradcheck's)"}


def render(report, format: str = "text", width: int | None = None) -> str:
    if format == "junit":
        return junit(report)
    return render_report(report, format, width, sys.modules[__name__])


def _worst(case, method) -> str:
    worst = case.worst.get(method)
    if not worst:
        return "—"
    error = worst["relative_error"]
    return "inf" if error is None or not math.isfinite(error) else f"{error:.1e}"


def headline(report) -> str:
    """The report in one line (its repr)."""
    statuses = {}
    for c in report.cases:
        statuses[c.status] = statuses.get(c.status, 0) + 1
    counts = ", ".join(f"{n} {s}" for s, n in statuses.items())
    return f"{len(report.cases)} case{'s' * (len(report.cases) != 1)} ({counts}) — exit status {report.exit_status}"


def _on_trial(report) -> str:
    """What the "worst" column judges: autograd, or the users' gradients (some case has one)."""
    return "autograd" if all(c.judged == "autograd" for c in report.cases) else "gradient"


LEFT = ("case", "check", "dtype", "gradcheck alone", "verdict")


def _status_style(verdict) -> str:
    return STATUS_STYLE.get(verdict, "bold yellow")


def _case_headers(report) -> list:
    return ["case", "check", "dtype", "points", f"worst {_on_trial(report)}", "worst FD", "gradcheck alone", "verdict"]


def _case_rows(report) -> list:
    """One row per case under :func:`_case_headers` (every format's summary table)."""
    rows = []
    for case in report.cases:
        if case.status == "error" or (case.status == "internal" and not case.points):
            rows.append([case.name, case.check, case.dtype, "—", "—", "—", "—",
                         "bad input" if case.status == "error" else "internal error"])
            continue
        alarms, missed = case.gradcheck.get("false alarms", 0), case.gradcheck.get("missed", 0)
        alone = "; ".join(t for t in (f"{alarms} false alarm{'s' * (alarms != 1)}" if alarms else "",
                                      f"{missed} missed" if missed else "") if t) or "right"
        rows.append([case.name, case.check, case.dtype, str(len(case.points)), _worst(case, "autograd"),
                     _worst(case, "fd"), alone, case.status])
    return rows


def print_report(report, console) -> None:
    """The rich summary; ``report.verbosity`` (``-q``: -1, ``-v``: 1) shows less: only the cases
    that did not pass; or more: every finding and all that user code printed."""
    verbosity = getattr(report, "verbosity", 0)
    if verbosity >= 0:
        _summary(report, console)
    _details(report, console, verbosity)


def _summary(report, console) -> None:
    from rich.markup import escape
    console.print(f"[bold]gradient audit[/bold]: {escape(_settings_line(report))}")
    headers, rows = _case_headers(report), _case_rows(report)
    table, dropped = fitted_table(console, headers, rows, left=LEFT, drop_order=("dtype", "check", "worst FD", "points",
                                                                             "gradcheck alone"),
                                  wrap=("case", "gradcheck alone"), prose_width=16, header_style="bold",
                                  styles={"verdict": _status_style})
    console.print(table)
    if dropped:
        console.print(dropped_note(dropped, console.width), style="dim", highlight=False, markup=False)
    console.print(_columns_note(report), style="dim", highlight=False, markup=False)


def _details(report, console, verbosity: int) -> None:
    from rich.markup import escape
    most = None if verbosity > 0 else MAX_FINDINGS
    lines = None if verbosity > 0 else OUTPUT_LINES
    for case in report.cases:
        if verbosity < 0 and case.status == "pass":
            continue
        style = STATUS_STYLE[case.status]
        console.print(f"\n[{style}]{case.status}[/] [bold]{escape(case.name)}[/bold] ({escape(case.source)})")
        if case.status in ("error", "internal") and not case.points:
            console.print(f"  {case.error}", highlight=False, markup=False)
            _output(console, case, lines)
            continue
        console.print(f"  {verdict_of(case)}", highlight=False, markup=False)
        if case.wrong_node:
            console.print(f"  wrong backward rule: {case.wrong_node}", highlight=False, markup=False)
        if case.tolerance.get("source"):
            console.print(f"  tolerance: {case.tolerance['source']}", style="dim", highlight=False, markup=False)
        for line in _findings(case, most):
            console.print(f"  {line}", highlight=False, markup=False)
        for note in case.notes:
            console.print(f"  note: {note}", style="dim", highlight=False, markup=False)
        _output(console, case, lines)
    console.print(f"\n{_exit_line(report)}", highlight=False, markup=False)


def _settings_line(report) -> str:
    """How the audit was run: its cases, engine, points and seed."""
    settings = report.settings
    random = settings.get("random")
    return (f"{len(report.cases)} case{'s' * (len(report.cases) != 1)}, engine {settings.get('engine')}, random points "
            f"per case: {'each case its own' if random is None else random} (seed {settings.get('seed')}), "
            f"adversarial points {'on' if settings.get('adversarial', True) else 'off'}")


def _columns_note(report) -> str:
    """What the table's "worst" and "gradcheck alone" columns mean."""
    return ("worst: largest error against the exact reference, relative to the largest entry at the point; gradcheck "
            f"alone: what comparing {_on_trial(report)} with finite differences (eps 1e-6, atol 1e-5, rtol 1e-3) would "
            "have said")


EXIT_MEANING = {0: "every gradient is right", 1: "a gradient is wrong", 2: "a case could not be run (bad input)",
                3: "diffcompare failed on a case (an internal error; its cause is above, the rest is reported)",
                4: "nothing is wrong, but a point asked for could not be checked (see the cases marked undecided)"}


def _exit_line(report) -> str:
    return f"exit status {report.exit_status}: {EXIT_MEANING[report.exit_status]}"


MAX_FINDINGS = 6
OUTPUT_LINES = 6


def _output(console, case, most: int | None = OUTPUT_LINES):
    """What the case's code printed, its last ``most`` lines (None: all; a report file has all of it)."""
    lines = case.output.rstrip().splitlines()
    if not lines:
        return
    most = len(lines) if most is None else most
    console.print(f"  what {case.source} printed ({len(lines)} line{'s' * (len(lines) != 1)}"
                  f"{'; the last ' + str(most) if len(lines) > most else ''}):", style="dim",
                  highlight=False, markup=False)
    for line in lines[-most:]:
        console.print(f"    {line}", style="dim", highlight=False, markup=False, overflow="ellipsis", no_wrap=True)


def _findings(case, most: int | None = MAX_FINDINGS) -> list:
    """The first points of each verdict other than "all agree", one line each (None: every one)."""
    lines, shown = [], {}
    for p in case.points:
        if p.verdict == AGREE:
            continue
        shown[p.verdict] = shown.get(p.verdict, 0) + 1
        if most is None or (shown[p.verdict] <= 2 and len(lines) < most):
            lines.append(f"{verdict_words(p.verdict, case.judged)} at {format_point(p.point)} [{p.origin}]: {p.reason}")
    hidden = sum(shown.values()) - len(lines)
    if hidden > 0:
        lines.append(f"… and {hidden} more such point{'s' * (hidden != 1)} (--report FILE.json has them all)")
    return lines


def _plain(value):
    """Plain JSON data: non-finite floats become "nan", "inf", "-inf"."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return json_number(value)
    return value



def as_dict(report) -> dict:
    return envelope("audit", SCHEMA_VERSION, _plain(report.settings), report.exit_status,
                    {"seconds": _plain(report.seconds), "interrupted": report.interrupted,
                     "cases": [_case_dict(c) for c in report.cases]})


def _case_dict(case) -> dict:
    """A case in JSON: its findings said as its verdict, each point's verdict in words."""
    data = {}
    for key, value in asdict(case).items():
        if key == "findings":
            data["verdict"] = verdict_of(case)
        elif key == "points":
            data["points"] = [{**p, "verdict": verdict_words(p["verdict"], case.judged)} for p in value]
        elif key == "counts":
            data["counts"] = {verdict_words(code, case.judged): n for code, n in value.items()}
        else:
            data[key] = value
    return _plain(data)


def from_json(data: dict) -> AuditReport:
    """The report back from its JSON form (:func:`as_dict`): verdicts as codes again, each
    case's verdict kept as it was written."""
    cases = []
    for c in data["cases"]:
        c = {k: from_plain(v) for k, v in c.items()}
        judged = c.get("judged", "autograd")
        c["points"] = [PointResult(**{**p, "verdict": verdict_code(p["verdict"], judged)}) for p in c["points"]]
        c["counts"] = {verdict_code(words, judged): n for words, n in c.get("counts", {}).items()}
        c["findings"] = [finding(AS_WRITTEN, text=c.pop("verdict"))]
        cases.append(CaseResult(**c))
    return AuditReport(cases, data.get("command", data.get("settings", {})), data.get("seconds", {}),
                       bool(data.get("interrupted", False)))


def _md(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(report) -> str:
    rows = [[str(cell).replace("\n", " ") for cell in row[:-1]] + [f"**{row[-1]}**"] for row in _case_rows(report)]
    lines = ["# Gradient audit", ""] + md_table(_case_headers(report), rows, left=LEFT)
    for c in report.cases:
        lines += ["", f"## {_md(c.name)}: {c.status}", "", f"`{_md(c.source)}`", ""]
        if c.status in ("error", "internal") and not c.points:
            lines.append(f"{'Bad input' if c.status == 'error' else 'Internal error'}: {_md(c.error)}")
            lines += _md_output(c)
            continue
        lines.append(_md(verdict_of(c)))
        if c.wrong_node:
            lines += ["", f"Wrong backward rule: {_md(c.wrong_node)}"]
        lines += ["", f"Tolerance: {_md(c.tolerance.get('source', ''))}"]
        findings = _findings(c)
        if findings:
            lines += [""] + [f"- {_md(f)}" for f in findings]
        lines += _md_output(c)
    lines += ["", f"Exit status {report.exit_status}.", ""]
    return "\n".join(lines)


def _md_output(case) -> list:
    """What the case printed, as a fenced block (the fence longer than any run of backticks in it)."""
    text = case.output.rstrip()
    if not text:
        return []
    fence = "`" * max(3, max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    return ["", f"What `{_md(case.source)}` printed:", "", fence + "text", text, fence]


def html_report(report) -> str:
    """The audit as an HTML fragment: the table of cases (every column), then each case as
    the Markdown report says it."""
    parts = [html.heading("gradient audit"), html.paragraph(_settings_line(report)),
             html.table(_case_headers(report), _case_rows(report), left=LEFT, prose=("case", "gradcheck alone"),
                        styles={"verdict": _status_style}),
             html.paragraph(_columns_note(report), style="dim")]
    for c in report.cases:
        parts.append(f'<h3><span style="{html.css(_status_style(c.status))}">{html.escape(c.status)}</span> '
                     f"{html.escape(c.name)} <code>{html.escape(c.source)}</code></h3>")
        if c.status in ("error", "internal") and not c.points:
            parts.append(html.paragraph(f"{'bad input' if c.status == 'error' else 'internal error'}: {c.error}"))
        else:
            parts.append(html.paragraph(verdict_of(c)))
            if c.wrong_node:
                parts.append(html.paragraph(f"wrong backward rule: {c.wrong_node}", strong=True))
            parts.append(html.paragraph(f"tolerance: {c.tolerance.get('source', '')}", style="dim"))
            parts.append(html.items(_findings(c)))
            parts += [html.paragraph(f"note: {note}", style="dim") for note in c.notes]
        if c.output.strip():
            parts += [html.paragraph(f"what {c.source} printed:", style="dim"), html.preformatted(c.output.rstrip())]
    parts.append(html.paragraph(_exit_line(report), style="bold red" if report.exit_status else "bold green"))
    return html.fragment(parts)


def failure_lines(case) -> list:
    """A failed case in lines, as CI shows it (JUnit, the pytest plugin, assert_gradients):
    the verdict, the worst point, every method's values there and the tolerance."""
    worst = max((p for p in case.points if p.verdict in FAILING),
                key=lambda p: p.autograd_error if p.autograd_error is not None else math.inf)
    lines = [verdict_of(case), f"the worst point is {worst.origin}; there:",
             f"{case.judged}: {worst.autograd}", f"exact:    {worst.reference}", f"FD:       {worst.fd}",
             f"tolerance: {case.tolerance.get('source', '')}"]
    if case.wrong_node:
        lines.append(f"wrong backward rule: {case.wrong_node}")
    return lines


def latex_report(report) -> str:
    """The audit for a slide or a page: how it was run, the case table (split where it is
    wider than a line), and the exit status."""
    out = latex_header("audit") + [latex_prose("gradient audit: " + _settings_line(report)), r"\par\smallskip"]
    out += latex_tables(_case_headers(report), _case_rows(report), key=("case",), left=LEFT, wrap=("case",))
    out += [r"\par\smallskip", latex_prose(_exit_line(report))]
    return "\n".join(out) + "\n"


def junit(report) -> str:
    """JUnit XML: a testsuite per audit, a testcase per case."""
    failures = sum(c.status == "fail" for c in report.cases)
    errors = sum(c.status in ("error", "internal") for c in report.cases)
    skipped = sum(c.status == "undecided" for c in report.cases)
    wall = report.seconds.get("wall", 0.0)
    suites = ElementTree.Element("testsuites", name="diffcompare audit", tests=str(len(report.cases)),
                                 failures=str(failures), errors=str(errors), time=f"{wall:.3f}")
    suite = ElementTree.SubElement(suites, "testsuite", name="diffcompare audit", tests=str(len(report.cases)),
                                   failures=str(failures), errors=str(errors), skipped=str(skipped),
                                   time=f"{wall:.3f}")
    for c in report.cases:
        seconds = sum(c.seconds.values()) if c.seconds else 0.0
        case = ElementTree.SubElement(suite, "testcase", classname=f"audit.{c.check}", name=c.name,
                                      time=f"{seconds:.3f}")
        if c.status in ("error", "internal"):
            element = ElementTree.SubElement(case, "error", message=f"{'bad input' if c.status == 'error' else 'internal error'}: "
                                                                    f"{c.error.splitlines()[0]}",
                                             type="BadInput" if c.status == "error" else "InternalError")
            element.text = c.error
        elif c.status == "fail":
            worst = max((p for p in c.points if p.verdict in FAILING),
                        key=lambda p: p.autograd_error if p.autograd_error is not None else math.inf)
            element = ElementTree.SubElement(case, "failure", message=f"{verdict_words(worst.verdict, c.judged)} at "
                                                                      f"{format_point(worst.point)}",
                                             type="WrongGradient")
            element.text = "\n".join(failure_lines(c))
        elif c.status == "undecided":
            ElementTree.SubElement(case, "skipped", message=verdict_of(c))
        out = ElementTree.SubElement(case, "system-out")
        out.text = f"{c.source}\n{verdict_of(c)}"
        if c.output:
            out.text += f"\n\nwhat the case's code printed (standard output and error):\n{c.output}"
    ElementTree.indent(suites)
    xml = ElementTree.tostring(suites, encoding="unicode")
    # XML 1.0 cannot hold most control characters, escaped or not (a case name with \x07):
    # they are written as visible \xNN text, so the file stays well formed
    xml = _XML_INVALID.sub(lambda m: f"\\x{ord(m.group()):02x}", xml)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml + "\n"


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


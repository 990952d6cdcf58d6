"""What every renderer shares: the formats and their dispatch, number formats, verdict
colours, and escaping for LaTeX and Markdown. Non-finite numbers, which JSON cannot hold,
are the strings "nan", "inf" and "-inf".
"""

from __future__ import annotations

import io
import json
import math

SCHEMA_VERSION = 1
FORMATS = ("text", "json", "markdown", "latex")


def seconds(t: float | None) -> str:
    """Human units: 1.2 µs, 3.4 ms.

    >>> seconds(1.234e-6), seconds(0.0125), seconds(None)
    ('1.23 µs', '12.5 ms', '—')
    """
    if t is None:
        return "—"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if t >= scale or unit == "ns":
            return f"{t / scale:.3g} {unit}"
    return f"{t:.3g} s"


def number(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return repr(float(v))


def small(v) -> str:
    return "—" if v is None else ("0" if v == 0 else f"{v:.2e}")


def json_number(v):
    """A number as JSON can hold it: non-finite floats become "nan", "inf", "-inf"."""
    if v is None:
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def render_report(c, format: str, width: int | None, module) -> str:
    """The report ``c`` in ``format`` by the renderer ``module`` (its ``as_dict``,
    ``markdown``, ``latex_report`` and ``print_report``)."""
    if format == "json":
        return json.dumps(module.as_dict(c), indent=2, ensure_ascii=False)
    if format == "markdown":
        return module.markdown(c)
    if format == "latex":
        return module.latex_report(c)
    if format == "text":
        from rich.console import Console
        buffer = io.StringIO()
        console = Console(file=buffer, width=width or 120, color_system=None, highlight=False)
        module.print_report(c, console)
        return buffer.getvalue()
    if format == "html":
        from rich.console import Console
        console = Console(file=io.StringIO(), width=width or 120, record=True, color_system="truecolor",
                          highlight=False)
        module.print_report(c, console)
        return console.export_html(inline_styles=True, code_format=HTML_TEMPLATE)
    raise ValueError(f"unknown format {format!r}; choose from {', '.join(FORMATS)}")


# a notebook cell's HTML: the report in a monospaced block, no page around it
HTML_TEMPLATE = ('<pre style="font-family: Menlo, \'DejaVu Sans Mono\', Consolas, monospace; font-size: 12px; '
                 'line-height: 1.3; white-space: pre; overflow-x: auto">{code}</pre>')


VERDICT_STYLE = {"pass": "green", "fail": "bold red", "failed": "bold red", "not judged": "yellow", "inconclusive": "yellow",
                  "not applicable": "dim", "timed out": "yellow"}


def tex(text: str) -> str:
    """Text made safe for LaTeX (special characters escaped, a few symbols as math)."""
    replacements = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                    "∂": r"$\partial$", "µ": r"$\mu$", "—": "---", "×": r"$\times$", "→": r"$\to$",
                    "∇": r"$\nabla$", "ᵀ": r"$^\top$", "²": r"$^2$", "≈": r"$\approx$", "±": r"$\pm$"}
    return "".join(replacements.get(ch, ch) for ch in text)


def md_table(headers, rows, left=()):
    """A Markdown table; the columns named in ``left`` are left-aligned."""
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join(":---" if h in left else "---:" for h in headers) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines


def count(n) -> str:
    """An operation count with thousands separators, or — where it was not counted (SymPy
    ran out of time).

    >>> count(12345), count(None)
    ('12,345', '—')
    """
    return "—" if n is None else f"{n:,}"

"""HTML of the reports, for a notebook cell and for a file: text escaped, tables of the rows the
text and Markdown renderers use (every column; numbers right-aligned; a verdict's cell coloured
and classed by its verdict), paragraphs, and a page around a fragment. The markup needs no
network and no JavaScript; the alignment and the colours are written on the cells themselves
too, so that a notebook viewer that strips ``<style>`` keeps them.

>>> print(table(["method", "error", "verdict"], [["central", "1.2e-10", "pass"]], left=("method", "verdict"),
...             styles={"verdict": lambda v: "green"}))
<table class="dc-table"><thead><tr><th style="text-align:left">method</th><th style="text-align:right">error</th><th style="text-align:left">verdict</th></tr></thead>
<tbody>
<tr><td class="text" style="text-align:left">central</td><td class="num" style="text-align:right">1.2e-10</td><td class="text verdict verdict-pass" style="text-align:left;color:#1a7f37">pass</td></tr>
</tbody></table>
"""

from __future__ import annotations

import html
import re

# rich's styles (the renderers' VERDICT_STYLE, STATUS_STYLE) as CSS
CSS_OF_STYLE = {"green": "color:#1a7f37", "bold green": "color:#1a7f37;font-weight:bold",
                "red": "color:#cf222e", "bold red": "color:#cf222e;font-weight:bold",
                "yellow": "color:#9a6700", "bold yellow": "color:#9a6700;font-weight:bold",
                "bold magenta": "color:#8250df;font-weight:bold", "dim": "color:#6e7781", "bold": "font-weight:bold"}

STYLE = """<style>
.diffcompare { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 13px; line-height: 1.4;
  color: #1f2328; max-width: 100%; overflow-x: auto; }
.diffcompare p { margin: 0.25em 0; }
.diffcompare h3 { font-size: 15px; margin: 0.3em 0; }
.diffcompare code, .diffcompare pre { font-family: Menlo, "DejaVu Sans Mono", Consolas, monospace; font-size: 12px; }
.diffcompare pre { white-space: pre; overflow-x: auto; margin: 0.3em 0; }
.diffcompare .dc-table { border-collapse: collapse; margin: 0.5em 0; }
.diffcompare .dc-table caption { text-align: left; font-weight: bold; padding-bottom: 0.2em; }
.diffcompare .dc-table th, .diffcompare .dc-table td { padding: 2px 8px; border-bottom: 1px solid #d0d7de;
  white-space: nowrap; vertical-align: top; }
.diffcompare .dc-table th { border-bottom: 2px solid #8c959f; }
.diffcompare .dc-table td.num { font-variant-numeric: tabular-nums; }
.diffcompare .dc-table td.prose { white-space: normal; min-width: 12em; }
.diffcompare .dim { color: #6e7781; }
.diffcompare figure { margin: 0.5em 0; display: inline-block; vertical-align: top; }
.diffcompare figcaption { font-size: 12px; color: #57606a; }
</style>"""


def escape(text) -> str:
    """Text made safe inside HTML (``<``, ``>``, ``&`` and quotes escaped).

    >>> escape("a<b & 'c'")
    'a&lt;b &amp; &#x27;c&#x27;'
    """
    return html.escape(str(text), quote=True)


def css(style: str | None) -> str:
    """A rich style (``"bold red"``) as CSS; an unknown or empty one as nothing."""
    return CSS_OF_STYLE.get(style or "", "")


def slug(text) -> str:
    """A CSS class name made of text: ``not judged`` -> ``not-judged``.

    >>> slug("not judged"), slug("Bad input!")
    ('not-judged', 'bad-input')
    """
    return re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-") or "empty"


def table(headers, rows, left=(), styles=None, prose=(), caption: str | None = None, code=()) -> str:
    """An HTML table of ``rows`` under ``headers``, every column shown: the columns named in
    ``left`` are text (left-aligned), the others numbers (right-aligned); ``styles``: a
    column -> a function of its cell giving a rich style (the text renderer's), which
    colours the cell and classes it ``<column> <column>-<cell>`` (``verdict verdict-pass``);
    ``prose``: columns whose cells wrap; ``code``: columns shown as code."""
    styles = styles or {}
    out = ['<table class="dc-table">' + (f"<caption>{escape(caption)}</caption>" if caption else "")
           + "<thead><tr>" + "".join(f'<th style="text-align:{_align(h, left)}">{escape(h)}</th>' for h in headers)
           + "</tr></thead>", "<tbody>"]
    for row in rows:
        cells = []
        for h, value in zip(headers, row):
            kind = "prose" if h in prose else ("text" if h in left else "num")
            classes = [kind]
            style = [f"text-align:{_align(h, left)}"]
            if h in styles:
                classes += [slug(h), f"{slug(h)}-{slug(value)}"]
                style.append(css(styles[h](value)))
            text = escape(value)
            if h in code and str(value):
                text = f"<code>{text}</code>"
            cells.append(f'<td class="{" ".join(classes)}" style="{";".join(s for s in style if s)}">{text}</td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _align(header, left) -> str:
    return "left" if header in left else "right"


def paragraph(text, style: str | None = None, strong: bool = False) -> str:
    """A line of the report (``style``: the rich style the terminal gives it); none for no text."""
    if not str(text).strip():
        return ""
    body = escape(text)
    if strong:
        body = f"<strong>{body}</strong>"
    shown = css(style)
    return f'<p style="{shown}">{body}</p>' if shown else f"<p>{body}</p>"


def heading(text) -> str:
    return f"<h3>{escape(text)}</h3>"


def items(lines, code: bool = False) -> str:
    """A bulleted list of lines (as code when ``code``)."""
    if not lines:
        return ""
    wrap = (lambda t: f"<code>{escape(t)}</code>") if code else escape
    return "<ul>" + "".join(f"<li>{wrap(line)}</li>" for line in lines) + "</ul>"


def preformatted(text) -> str:
    return f"<pre>{escape(text)}</pre>"


def figure(svg: str, caption: str | None = None) -> str:
    """An inline drawing (SVG markup made by :mod:`diffcompare.render.plots`) with its caption."""
    return "<figure>" + svg + (f"<figcaption>{escape(caption)}</figcaption>" if caption else "") + "</figure>"


def fragment(parts) -> str:
    """A notebook cell's HTML: the parts in one block with the report's style."""
    return '<div class="diffcompare">\n' + STYLE + "\n" + "\n".join(p for p in parts if p) + "\n</div>\n"


def page(title: str, body: str) -> str:
    """A whole HTML document around a fragment: what ``--format html`` and ``--output
    report.html`` write (one file, nothing fetched)."""
    return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{escape(title)}</title>\n</head>\n<body>\n{body}</body>\n</html>\n")

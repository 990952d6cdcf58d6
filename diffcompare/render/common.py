"""What every renderer shares: the formats and their dispatch, number formats, verdict
colours, and escaping for LaTeX and Markdown. Non-finite numbers, which JSON cannot hold,
are the strings "nan", "inf" and "-inf".
"""

from __future__ import annotations

import io
import json
import math
import re

from diffcompare.language.printing import latex, one_line
from diffcompare.render import html
from diffcompare.version import __version__

FORMATS = ("text", "json", "markdown", "latex", "html")


def envelope(kind: str, schema_version: int, command: dict, exit_status: int, body: dict) -> dict:
    """Every JSON report's first keys — ``report`` (its kind), ``schema_version``, the
    ``diffcompare`` version that wrote it, the ``command``'s inputs and the
    ``exit_status`` — then the report itself (the schemas are in diffcompare/schemas)."""
    return {"report": kind, "schema_version": schema_version, "diffcompare": __version__, "command": command,
            "exit_status": exit_status, **body}


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
        buffer = io.StringIO()
        module.print_report(c, text_console(buffer, width or 120))
        return plain_lines(buffer.getvalue())
    if format == "html":
        if hasattr(module, "html_report"):
            body = module.html_report(c)
        else:       # a report with no HTML of its own: its text, wide enough that no column is left out
            body = html.fragment([html.preformatted(render_report(c, "text", HTML_TEXT_WIDTH, module))])
        return html.page(module.headline(c), body)
    raise ValueError(f"unknown format {format!r}; choose from {', '.join(FORMATS)}")


HTML_TEXT_WIDTH = 200      # the text of a report shown as HTML when it has no HTML of its own


def text_console(file, width: int):
    """A rich console writing plain text to ``file`` (a StringIO), never to a notebook: rich
    would otherwise detect Jupyter and display what is printed to a string as a side effect."""
    from rich.console import Console
    return Console(file=file, width=width, color_system=None, highlight=False, force_jupyter=False)


def plain_lines(text: str) -> str:
    """Text without the spaces rich pads lines with (a file or a pipe gets no trailing spaces)."""
    return "\n".join(line.rstrip() for line in text.split("\n"))


def fitted_table(console, headers, rows, drop_order=(), wrap=(), left=(), styles=None, prose_width=None, **options):
    """(a rich Table of ``rows`` that fits ``console``'s width, the headers left out).

    Numbers and names never break: every column keeps its cells on one line, but the
    ``wrap`` columns (prose, which wraps at words and may shrink to ``prose_width``). While
    the table is wider than the console, the columns of ``drop_order`` are left out,
    first to last; the caller says which were, in a note. ``left``: left-justified columns
    (others align right); ``styles``: column -> a function of the cell giving its style."""
    shown = list(headers)
    dropped = []
    while True:
        left_to_drop = [h for h in drop_order if h in shown]
        if not left_to_drop or _natural_width(headers, rows, shown, wrap, options,
                                              prose_width or PROSE_WIDTH) <= console.width:
            return _table(headers, rows, shown, wrap, left, styles, options), dropped
        shown.remove(left_to_drop[0])
        dropped.append(left_to_drop[0])


def fitted_tables(console, headers, rows, key, drop_order=(), **options):
    """([tables], headers shown in none): :func:`fitted_table`, and the columns it leaves
    out moved to a second table beside the ``key`` columns (a step's number, a name), so
    that a narrow terminal keeps everything; what fits in neither is named by the caller."""
    title = options.pop("title", None)
    table, dropped = fitted_table(console, headers, rows, drop_order=drop_order, title=title, **options)
    tables = [table]
    while dropped:              # what did not fit goes to the next table, beside the key columns
        moved = [h for h in headers if h in key or h in dropped]
        index = [headers.index(h) for h in moved]
        table, left_out = fitted_table(console, moved, [[row[i] for i in index] for row in rows],
                                       drop_order=[h for h in drop_order if h in dropped][::-1], **options)
        if len(left_out) == len(dropped):       # not one more column fits beside the keys
            return tables, dropped
        tables.append(table)
        dropped = left_out
    return tables, []


PROSE_WIDTH = 24        # the narrowest a prose column of a table is made


def _table(headers, rows, shown, wrap, left, styles, options, prose_width=None):
    """The table of the ``shown`` columns; a prose column is never narrower than its longest
    word (words do not break), and, with ``prose_width``, no wider than that either."""
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text
    table = Table(**options)
    for h in shown:
        j = headers.index(h)
        longest = max(cell_len(word) for text in [h] + [str(row[j]) for row in rows] for word in text.split() or [""])
        table.add_column(h, justify="left" if h in left else "right", no_wrap=h not in wrap,
                         overflow="fold" if h in wrap else "ellipsis",
                         min_width=longest if h in wrap else None,
                         max_width=max(prose_width, longest) if h in wrap and prose_width else None)
    index = [headers.index(h) for h in shown]
    for row in rows:
        table.add_row(*(Text(str(row[i]), style=(styles or {}).get(h, lambda _: "")(row[i]))
                        for h, i in zip(shown, index)))
    return table


def _natural_width(headers, rows, shown, wrap, options, prose_width) -> int:
    """The width the table takes with no cell broken (its prose columns ``prose_width`` wide)."""
    wide = text_console(io.StringIO(), 10_000)
    table = _table(headers, rows, shown, wrap, (), None, options, prose_width=prose_width)
    with wide.capture() as captured:
        wide.print(table)
    return max((len(line.rstrip()) for line in captured.get().split("\n")), default=0)


def dropped_note(dropped, width) -> str:
    """The note under a table whose columns did not all fit."""
    return (f"not shown at {width} columns: {', '.join(dropped)} (a wider terminal, COLUMNS=200 in a pipe, or "
            f"--format json shows them)")


VERDICT_STYLE = {"pass": "green", "fail": "bold red", "failed": "bold red", "not judged": "yellow", "inconclusive": "yellow",
                  "not applicable": "dim", "timed out": "yellow"}


def tex(text: str) -> str:
    """Text made safe for LaTeX (special characters escaped, a few symbols as math)."""
    replacements = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                    "∂": r"$\partial$", "µ": r"$\mu$", "—": "---", "×": r"$\times$", "→": r"$\to$",
                    "∇": r"$\nabla$", "ᵀ": r"$^\top$", "²": r"$^2$", "≈": r"$\approx$", "±": r"$\pm$"}
    return "".join(replacements.get(ch, ch) for ch in text)


LATEX_COLUMNS = 7       # at most this many columns in one table
BOOKTABS = r"% needs \usepackage{booktabs} (\toprule, \midrule, \bottomrule)"
# Every fragment fits a 16:9 beamer frame (\documentclass[aspectratio=169]{beamer}: 398 pt
# of 11-pt sans serif) and a 10-pt article page (345 pt): a line holds LATEX_LINE characters
# of either, with room to spare. Tables are split, prose and formulas wrap in p{} columns.
LATEX_LINE = 66
LATEX_GAP = 2.5         # the characters between two columns (\tabcolsep on either side)
LATEX_PACKAGES = (r"\usepackage{booktabs}", r"\usepackage{array}", r"\usepackage{amsmath}")


def latex_header(what: str) -> list:
    """A fragment's first lines: what it is, and the packages it needs."""
    return [f"% diffcompare {what}".replace("\n", " "),
            "% needs " + ", ".join(LATEX_PACKAGES) + " (booktabs: the rules; array: the p{} columns; amsmath: "
            "the formulas); fits a 16:9 beamer frame and a 10-pt article page"]


class Tex(str):
    """A table cell already in LaTeX (a formula), with its ``width`` in characters as
    printed and the ``least`` width it wraps to (its widest piece TeX cannot break);
    other cells are plain text, escaped by :func:`tex`."""
    width: float
    least: float

    def __new__(cls, text: str, width: float | None = None):
        cell = super().__new__(cls, text)
        cell.width = tex_width(text) if width is None else width
        cell.least = min(cell.width, max((tex_width(piece) for piece in _pieces(text)), default=0.0))
        return cell


def _pieces(text: str) -> list:
    """The pieces of a cell TeX may break between: words of text; in a formula, at + and −
    and = outside braces, and at \\penalty900 and \\newline."""
    pieces, depth, start, k = [], 0, 0, 0
    math = False
    while k < len(text):
        ch = text[k]
        if ch == "\\" and text.startswith(("\\penalty900", "\\newline"), k) and depth == 0:
            pieces.append(text[start:k])
            start = k = k + (11 if text.startswith("\\penalty900", k) else 8)
            continue
        if ch == "\\":
            k += 2
            continue
        if ch == "$":
            math = not math
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif depth == 0 and (ch in "+-=" and math or ch == " " and not math):
            pieces.append(text[start:k + 1])
            start = k + 1
        k += 1
    pieces.append(text[start:])
    return pieces


def tex_width(text: str) -> float:
    """The characters a line of LaTeX shows, about: a command as one character, spacing,
    braces and sizing left out, sub- and superscripts at two thirds, a fraction as the
    wider of its parts; the widest of its lines (\\\\)."""
    lines = re.split(r"\\\\|\\newline\b", text)
    if len(lines) > 1:
        return max(tex_width(line) for line in lines)
    while True:
        new = re.sub(r"\\[dt]?frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: max(m.group(1), m.group(2), key=len), text)
        if new == text:
            break
        text = new
    scripts = sum(len(m.group(1)) for m in re.finditer(r"[_^]\{([^{}]*)\}", text))
    text = re.sub(r"\\(left|right|penalty\d*|allowbreak|texttt|mathrm|operatorname|textrm|text)\b\.?", "", text)
    text = re.sub(r"\\[,;:! ]|\\(begin|end)\{[^}]*\}", "", text)
    text = re.sub(r"\\[a-zA-Z]+|\\.", "x", text)
    text = re.sub(r"[{}$^_]|(?<=[\w)]) (?=[\w(])", "", text)
    return len(text.strip()) - scripts / 3


def breakable(formula: str) -> str:
    """A formula of SymPy's LaTeX that TeX can break across lines in a paragraph or a p{}
    column: parentheses around nothing taller than a line become plain (a \\left...\\right
    pair is one unbreakable box), a function's argument loses its braces (a group cannot
    break either), and a product may break between its factors, though TeX prefers to
    break after a + or a −.

    >>> breakable(r"64 x \\left(1 - x\\right) \\sin{\\left(x y \\right)}")
    '64 x \\\\penalty900 (1 - x) \\\\penalty900 \\\\sin(x y )'
    """
    tall = ("\\frac", "\\dfrac", "\\begin", "\\sum", "\\prod", "\\int", "\\sqrt", "\\binom")
    formula = _slashed(formula)
    out, stack, k = [], [], 0
    while k < len(formula):
        if formula.startswith("{\\left(", k):
            stack.append(("{", len(out)))
            out.append("{\\left(")
            k += len("{\\left(")
        elif formula.startswith("\\left(", k):
            stack.append(("", len(out)))
            out.append("\\left(")
            k += len("\\left(")
        elif formula.startswith("\\right)", k) and stack:
            brace, at = stack.pop()
            inner = "".join(out[at + 1:])
            closes_brace = brace and formula.startswith("\\right)}", k)
            plain = not any(t in inner for t in tall) and "\\left" not in inner.replace("\\left(", "")
            if plain:
                out[at] = "(" if closes_brace or not brace else "{("
                out.append(")")
            else:
                out.append("\\right)")
            if closes_brace:
                if not plain:
                    out.append("}")
                k += 1
            k += len("\\right)")
        else:
            out.append(formula[k])
            k += 1
    text = "".join(out)
    # a product's factors: after a closing parenthesis or a script, before a factor that is not a number
    return re.sub(r"(\)|\}|\]|(?<![\\a-zA-Z])[a-zA-Z]) (?=[(\\a-zA-Z])(?!\\right|\\cdot|\\times|\\end|\\\\)"
                  r"(?<![a-zA-Z] (?=[a-zA-Z]))", r"\1 \\penalty900 ", text)


WIDE_FRACTION = 36      # characters: a wider fraction outside braces is written a / b, which can break


def _slashed(formula: str) -> str:
    """``formula`` with its wide fractions outside braces written (a)/(b): a fraction is one
    box TeX cannot break."""
    out, k, depth = [], 0, 0
    while k < len(formula):
        if depth == 0 and formula.startswith("\\frac{", k):
            top, after = _group(formula, k + 5)
            bottom, end = _group(formula, after)
            if max(tex_width(top), tex_width(bottom)) > WIDE_FRACTION:
                top, bottom = _slashed(top), _slashed(bottom)
                out.append(f"{_wrapped(top)} / {_wrapped(bottom)}")
                k = end
                continue
        ch = formula[k]
        if ch == "\\":
            out.append(formula[k:k + 2])
            k += 2
            continue
        depth += ch == "{"
        depth -= ch == "}"
        out.append(ch)
        k += 1
    return "".join(out)


def _group(text: str, k: int) -> tuple:
    """(the contents of the brace group opening at ``text[k]``, the index after it)."""
    depth, start = 0, k + 1
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        depth += text[k] == "{"
        depth -= text[k] == "}"
        k += 1
        if depth == 0:
            return text[start:k - 1], k
    return text[start:], len(text)


def _wrapped(part: str) -> str:
    return part if re.fullmatch(r"[\w.]+|\\[a-zA-Z]+", part.strip()) else f"\\left({part}\\right)"


def math_cell(expr, what: str = "(too large to print)") -> "Tex":
    """A SymPy expression as a table cell that wraps: inline mathematics TeX may break (see
    :func:`breakable`), or ``what`` when it is too large to print."""
    formula = latex(expr)
    if formula is None:
        return Tex(tex(what), len(what))
    text = one_line(expr) or formula
    return Tex(f"${breakable(formula)}$", min(tex_width(formula), len(text)))


def latex_prose(text: str, escaped: bool = False) -> str:
    """A paragraph of prose, ragged right: a long word (an expression, a point) moves to
    the next line rather than stretching or overflowing this one."""
    return r"\begingroup\raggedright\noindent " + (text if escaped else tex(text)) + r"\par\endgroup"


def math_paragraph(left: str, expr) -> str | None:
    """``left = expr`` as a paragraph of its own whose formula TeX breaks across lines (a
    long derivative on a slide), or None when the expression is too large to print."""
    formula = latex(expr)
    if formula is None:
        return None
    return r"\begingroup\raggedright\noindent $\displaystyle " + left + " = " + breakable(formula) + r"$\par\endgroup"


def latex_tables(headers, rows, key=(), left=(), first=(), wrap=(), budget: int = LATEX_COLUMNS,
                 line: float = LATEX_LINE) -> list:
    """booktabs tabulars of ``rows`` that fit a slide and a page: a table wider than
    ``line`` characters (or of more than ``budget`` columns) is split, every part
    repeating the ``key`` columns (a method's name, n) and the ``first`` columns going
    into the first part. The ``wrap`` columns (prose, formulas: :class:`Tex` cells) are
    p{} columns whose cells wrap; the others keep each cell on one line. Lines of LaTeX."""
    key = [h for h in headers if h in key]
    order = [h for h in first if h in headers and h not in key]
    order += [h for h in headers if h not in key and h not in order]
    widths = {h: _column_width(h, [row[headers.index(h)] for row in rows], h in wrap) for h in headers}
    least = {h: min(widths[h], _least_width(h, [row[headers.index(h)] for row in rows])) for h in headers if h in wrap}
    room = line - sum(widths[h] + LATEX_GAP for h in key)
    parts, part, used = [], [], 0.0
    for h in order:
        need = (least[h] if h in least else widths[h]) + LATEX_GAP
        if part and (used + need > room or len(part) + len(key) >= budget):
            parts.append(part)
            part, used = [], 0.0
        part.append(h)
        used += need
    parts = [p for p in parts + [part] if p] or [[]]
    out = []
    for k, part in enumerate(parts):
        shown = [h for h in headers if h in key or h in part]
        index = [headers.index(h) for h in shown]
        if k:
            out.append(r"\par\medskip")
        spec = _column_spec(shown, widths, least, left, line)
        out += [r"\noindent\begin{tabular}{" + spec + "}", r"\toprule",
                " & ".join(tex(h) for h in shown) + r" \\", r"\midrule"]
        out += [" & ".join(_cell(row[i]) for i in index) + r" \\" for row in rows]
        out += [r"\bottomrule", r"\end{tabular}"]
    return out


WRAP_LEAST = 14         # the narrowest a wrapping column is made beside others (characters)


def _column_width(header, cells, wraps) -> float:
    """A column's width in characters: its widest cell (a wrapping column's header may
    wrap at words, others' may not)."""
    def width(cell):
        return cell.width if isinstance(cell, Tex) else max((len(line) for line in str(cell).split("\n")), default=0)
    head = max((len(word) for word in header.split()), default=0) if wraps else len(header)
    return max([head] + [width(c) for c in cells])


def _least_width(header, cells) -> float:
    """The narrowest a wrapping column can be: its widest word or unbreakable piece of a
    formula, and at least WRAP_LEAST characters."""
    def least(cell):
        return cell.least if isinstance(cell, Tex) else max((len(w) for w in str(cell).split()), default=0)
    return max([WRAP_LEAST] + [len(w) for w in header.split()] + [least(c) for c in cells])


def _column_spec(shown, widths, least, left, line) -> str:
    """The tabular's column spec: the wrapping columns share what the others leave of the
    line, each at least its ``least`` width and the rest in proportion to how much wider
    its widest cell is, never wider than that."""
    wrap = least
    fixed = sum(widths[h] + LATEX_GAP for h in shown if h not in wrap) + LATEX_GAP * sum(h in wrap for h in shown)
    wrapping = [h for h in shown if h in wrap]
    spare = max(line - fixed - sum(least[h] for h in wrapping), 0.0)
    more = sum(widths[h] - least[h] for h in wrapping)
    spec = []
    for h in shown:
        if h in wrap:
            share = least[h] + (spare * (widths[h] - least[h]) / more if more else 0.0)
            spec.append(r">{\raggedright\arraybackslash}p{" + f"{min(share, widths[h]) / line:.3f}" + r"\linewidth}")
        else:
            spec.append("l" if h in left else "r")
    return "".join(spec)


def _cell(cell) -> str:
    if isinstance(cell, Tex):
        return str(cell)
    return tex(str(cell)).replace("\n", " ")


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

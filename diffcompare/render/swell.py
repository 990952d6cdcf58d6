"""Renderers of a :class:`~diffcompare.lecture.swell.SwellReport`: sizes and phase times per n
(terminal table with a character plot of the sizes, Markdown, LaTeX, JSON), symbolic reverse
mode beside SymPy's raw and cse sizes, and SymEngine's times when it was asked for."""

from __future__ import annotations

import math
import sys

from diffcompare.language.printing import latex, one_line
from diffcompare.render import html
from diffcompare.render.common import (
    LATEX_LINE,
    Tex,
    breakable,
    dropped_note,
    envelope,
    fitted_table,
    latex_header,
    latex_prose,
    latex_tables,
    md_table,
    math_cell,
    render_report,
    seconds,
    tex,
)
from diffcompare.lecture.swell import ITERATED
from diffcompare.render.plots import svg_line_plot, terminal_plot

SCHEMA_VERSION = 2
HEADERS = ["n", "f (ops)", "raw derivative", "after cse", "symbolic reverse", "engine graph", "raw / f",
           "sympy.diff", "cse + lambdify", "trace + sweep", "generated code", "engine forward", "engine backward",
           "engine vs SymPy"]
SYMENGINE_HEADERS = ["symengine diff", "symengine Lambdify", "engine vs SymEngine"]
# on a narrow terminal the columns that do not fit move to further tables beside n, the least telling first
MOVE_ORDER = ["engine vs SymPy", "engine vs SymEngine", "engine backward", "engine forward", "generated code",
              "raw / f", "trace + sweep", "symengine Lambdify", "cse + lambdify", "symengine diff", "sympy.diff",
              "engine graph", "symbolic reverse", "after cse", "raw derivative", "f (ops)"]
SIZES = (("size_f", "f", "f"), ("size_raw", "r", "raw derivative"), ("size_cse", "c", "after cse"),
         ("size_reverse", "s", "symbolic reverse"), ("graph_nodes", "g", "engine graph"))


def render(r, format: str = "text", width: int | None = None) -> str:
    return render_report(r, format, width, sys.modules[__name__])


def _count(v) -> str:
    return "—" if v is None else f"{v:,}"


def headers(r) -> list:
    return HEADERS + (SYMENGINE_HEADERS if r.backend == "symengine" else [])


def _agree(v) -> str:
    return "—" if v is None else ("exact" if v == 0 else f"{v:.0e}")


def _rows(r):
    for row in r.rows:
        ratio = "—" if not row.size_f or row.size_raw is None else f"{row.size_raw / row.size_f:.3g}"
        cells = [str(row.n), _count(row.size_f), _count(row.size_raw), _count(row.size_cse), _count(row.size_reverse),
                 _count(row.graph_nodes), ratio, seconds(row.diff_seconds), seconds(row.codegen_seconds),
                 seconds(row.reverse_seconds), seconds(row.evaluate_seconds), seconds(row.forward_seconds),
                 seconds(row.backward_seconds), _agree(row.agreement)]
        if row.symbolic != "ok":
            cells[2] = cells[2] if row.size_raw is not None else row.symbolic
        if row.reverse != "ok" and row.size_reverse is None:
            cells[4] = row.reverse
        if r.backend == "symengine":
            diff = seconds(row.symengine_diff_seconds)
            if row.symengine != "ok" and row.symengine_diff_seconds is None:
                diff = row.symengine
            cells += [diff, seconds(row.symengine_codegen_seconds), _agree(row.symengine_agreement)]
        yield cells


def _times(first, last, key) -> str:
    a, b = getattr(first, key), getattr(last, key)
    return f"×{b / a:,.3g}" if a and b is not None else "—"


def growth(r) -> str | None:
    """One line: how much each size grew from the first n to the last n SymPy finished
    (symbolic reverse mode: to the last n it finished)."""
    parts = []
    done = [row for row in r.rows if row.symbolic == "ok" and row.size_f]
    if len(done) >= 2:
        first, last = done[0], done[-1]
        parts.append(f"from n={first.n} to n={last.n}: f grew {_times(first, last, 'size_f')}, SymPy's raw derivative "
                     f"{_times(first, last, 'size_raw')}, after cse {_times(first, last, 'size_cse')}, the engine's "
                     f"graph {_times(first, last, 'graph_nodes')}")
    reverse = [row for row in r.rows if row.reverse == "ok" and row.size_reverse and row.size_forward]
    if len(reverse) >= 2:
        first, last = reverse[0], reverse[-1]
        same = len(done) >= 2 and (first.n, last.n) == (done[0].n, done[-1].n)
        parts.append(("" if same else f"from n={first.n} to n={last.n}: ")
                     + f"symbolic reverse mode's gradient {_times(first, last, 'size_reverse')}, f's own program "
                       f"{_times(first, last, 'size_forward')}")
    return "; ".join(parts) or None


def size_plot(r) -> str:
    series = []
    for key, marker, name in SIZES:
        series.append((marker, name, [math.log10(v) if v else math.nan for v in (getattr(row, key) for row in r.rows)]))
    top = max((y for _, _, ys in series for y in ys if math.isfinite(y)), default=1.0)
    return terminal_plot([row.n for row in r.rows], series, "n", "log10 size", (0, math.ceil(top)))


def print_report(r, console) -> None:
    from rich.text import Text

    console.print(Text(f"expression swell: {r.family} — {r.description}"))
    shown, rows = headers(r), list(_rows(r))
    while True:         # what does not fit moves to the next table, beside n
        index = [headers(r).index(h) for h in shown]
        table, moved = fitted_table(console, shown, [[row[i] for i in index] for row in rows],
                                    drop_order=[h for h in MOVE_ORDER if h in shown], header_style="bold")
        console.print(table)
        if not moved:
            break
        if len(moved) == len(shown) - 1:        # not even one column fits beside n
            console.print(Text(dropped_note(moved, console.width), style="dim"))
            break
        shown = ["n"] + [h for h in headers(r) if h in moved]
    line = growth(r)
    if line:
        console.print(Text(line, style="bold"))
    console.print(Text(size_plot(r)))
    console.print(Text(SIZES_NOTE, style="dim"))
    for note in r.notes:
        console.print(Text(f"note: {note}"))
    shown = [row for row in r.rows if row.expressions is not None]
    if shown:
        console.print(Text(f"\n{EXPRESSIONS_TITLE}", style="bold"))
    for row in shown:
        console.print(Text(f"n = {row.n}", style="bold"))
        for name, text in _expression_lines(row.expressions):
            console.print(Text(f"  {name}: ", style="dim") + Text(text))


SIZES_NOTE = ("sizes: count_ops of the expression written out as a tree (symbolic reverse: of every assignment of its "
              "straight-line program, each intermediate a symbol); the engine's graph counts its nodes, each operation "
              "once, as performed")
TIMES = (("diff_seconds", "sympy.diff"), ("codegen_seconds", "cse + lambdify"), ("reverse_seconds", "trace + sweep"),
         ("symengine_diff_seconds", "symengine diff"), ("symengine_codegen_seconds", "symengine Lambdify"),
         ("evaluate_seconds", "generated code"), ("forward_seconds", "engine forward"),
         ("backward_seconds", "engine backward"))


def svg_plots(r) -> list:
    """The sizes against n and the time of each phase against n, log scale, as SVG markup."""
    ns = [row.n for row in r.rows]
    sizes = [(name, [getattr(row, key) for row in r.rows]) for key, _, name in SIZES]
    times = [(name, [getattr(row, key) for row in r.rows]) for key, name in TIMES]
    times = [(name, ys) for name, ys in times if any(ys)]
    return [svg_line_plot(ns, [(n, ys) for n, ys in sizes if any(ys)], "n", "operations / nodes",
                          title=f"expression swell: {r.family}"),
            svg_line_plot(ns, times, "n", "seconds", title="time of each phase")]


def html_report(r) -> str:
    """The report as an HTML fragment: the table with every column, the growth, the plots of
    the sizes and the times against n, and the expressions kept."""
    parts = [html.heading(f"expression swell: {r.family} — {r.description}"),
             html.table(headers(r), list(_rows(r))), html.paragraph(growth(r) or "", strong=True)]
    parts += [html.figure(svg) for svg in svg_plots(r)]
    parts.append(html.paragraph(SIZES_NOTE, style="dim"))
    parts += [html.paragraph(f"note: {note}") for note in r.notes]
    shown = [row for row in r.rows if row.expressions is not None]
    if shown:
        columns = ["n"] + [name for name, _ in _expression_lines(shown[0].expressions)]
        rows = [([row.n] + [text for _, text in _expression_lines(row.expressions)] + [""] * len(columns))[:len(columns)]
                for row in shown]
        parts.append(html.table(columns, rows, left=columns[1:], prose=columns[1:], code=columns[1:],
                                caption=EXPRESSIONS_TITLE))
    return html.fragment(parts)


EXPRESSIONS_TITLE = ("the expressions: f, SymPy's raw derivative, the same after cse, f as the engine's graph performs "
                     "it, and symbolic reverse mode's gradient (one operation per line, shared values named once)")


def _shown(expr) -> str:
    text = one_line(expr)
    return text if text is not None else "(too large to print)"


def _program(program, result: str) -> str:
    """A straight-line program on one line: ``t1 = 4*x; t2 = 1 - x; f = t1*t2``."""
    lines = [f"{s} = {_shown(e)}" for s, e in program.assignments]
    labels = program.labels or [result]
    lines += [f"{label if len(program.outputs) > 1 or program.labels else result} = {_shown(o)}"
              for label, o in zip(labels, program.outputs)]
    return "; ".join(lines)


def _paper_text(expr) -> str:
    """One of Baydin et al.'s forms on one line, in the paper's order of terms and factors."""
    import sympy
    return sympy.sstr(expr, order="none")


PAPER_NAMES = ("f as Baydin et al. print it", "df/d{v}: the product rule on it", "df/d{v} simplified")


def _paper_lines(e) -> list:
    """[(what, text)] of Baydin et al.'s Table 1 columns, when f is a polynomial."""
    if e.paper is None:
        return []
    forms = (e.paper.factored, e.paper.product_rule, e.paper.simplified)
    return [(name.format(v=e.variable), _paper_text(form)) for name, form in zip(PAPER_NAMES, forms)]


def _expression_lines(e) -> list:
    """[(what, text)] of one row's expressions: Baydin et al.'s columns (f a polynomial),
    SymPy's on f as the program builds it, and the straight-line programs."""
    replacements, reduced = e.cse
    cse = "; ".join([f"{s} = {_shown(x)}" for s, x in replacements] + [f"df/d{e.variable} = {_shown(reduced)}"])
    out = _paper_lines(e)
    out += [("f", _shown(e.f)), (f"df/d{e.variable} by sympy.diff", _shown(e.derivative)), ("after cse", cse)]
    if e.forward is not None:
        out.append(("f's program (the engine's graph)", _program(e.forward, "f")))
    if e.reverse is not None:
        out.append(("symbolic reverse mode", _program(e.reverse, f"df/d{e.variable}")))
    return out


def as_dict(r) -> dict:
    keys = ("n", "size_f", "size_raw", "size_cse", "graph_nodes", "diff_seconds", "codegen_seconds",
            "evaluate_seconds", "forward_seconds", "backward_seconds", "agreement", "symbolic")

    def one(row):
        out = {k: getattr(row, k) for k in keys}
        out["symbolic_reverse"] = {"size": row.size_reverse, "size_f": row.size_forward,
                                   "seconds": row.reverse_seconds, "codegen_seconds": row.reverse_codegen_seconds,
                                   "agreement": row.reverse_agreement, "status": row.reverse}
        out["expressions"] = None if row.expressions is None else dict(_expression_lines(row.expressions))
        out["symengine"] = None if r.backend != "symengine" else {
            "convert_seconds": row.symengine_convert_seconds, "diff_seconds": row.symengine_diff_seconds,
            "codegen_seconds": row.symengine_codegen_seconds, "agreement": row.symengine_agreement,
            "status": row.symengine}
        return out
    command = {"family": r.family, "n": [row.n for row in r.rows], "template": r.template,
               "timeout": r.timeout, "symbolic_backend": r.backend, "numbering": r.numbering}
    return envelope("swell", SCHEMA_VERSION, command, r.exit_status, {
        "family": r.family, "description": r.description, "sympy_timeout_seconds": r.timeout,
        "symbolic_backend": r.backend, "rows": [one(row) for row in r.rows], "growth": growth(r),
        "notes": list(r.notes)})


def headline(r) -> str:
    """The report in one line (its repr)."""
    ns = [str(row.n) for row in r.rows]
    return f"expression swell of {r.family}, " + (growth(r) or f"n = {', '.join(ns)}")


def markdown(r) -> str:
    out = [f"**Expression swell: {r.family}** — {r.description}", ""]
    out += md_table(headers(r), list(_rows(r)))
    line = growth(r)
    out += ([""] + [line] if line else []) + [""] + [f"- {note}" for note in r.notes]
    shown = [row for row in r.rows if row.expressions is not None]
    if shown:
        variable = shown[0].expressions.variable
        paper = [row for row in shown if row.expressions.paper is not None]
        if paper:
            out += ["", f"**{PAPER_TITLE}**", ""]
            first = ["n"] + [name.format(v=variable) for name in PAPER_NAMES]
            out += md_table(first, [[row.n] + [f"`{text}`" for _, text in _paper_lines(row.expressions)]
                                    for row in paper], left=first[1:])
        out += ["", f"**{EXPRESSIONS_TITLE[0].upper()}{EXPRESSIONS_TITLE[1:]}**", ""]
        first = ["n", "f", f"df/d{variable} (sympy.diff)", "after cse"]
        lines = [dict(_expression_lines(row.expressions)) for row in shown]
        names = ["f", f"df/d{variable} by sympy.diff", "after cse"]
        out += md_table(first, [[row.n] + [f"`{one[name]}`" for name in names] for row, one in zip(shown, lines)],
                        left=first[1:])
        out += [""]
        second = ["n", "f's program (the engine's graph)", "symbolic reverse mode"]
        out += md_table(second, [[row.n] + [f"`{one[name]}`" if name in one else "—" for name in second[1:]]
                                 for row, one in zip(shown, lines)], left=second[1:])
    return "\n".join(out) + "\n"


PAPER_TITLE = ("Baydin et al. (2018), \"Automatic differentiation in machine learning: a survey\", Table 1: "
               "f as the paper prints it, its raw derivative (the product rule on that form), the derivative "
               "simplified")
LATEX_MAX_OPS = 400     # larger expressions are named by their size: a slide cannot show them


def latex_report(r) -> str:
    """LaTeX for slides and pages (see :func:`~diffcompare.render.common.latex_tables`):
    the sizes and times, split into tables beside n; then, for the rows that hold them,
    Baydin et al.'s Table 1 (f a polynomial: the logistic map), the straight-line programs
    of f and of symbolic reverse mode, and SymPy's derivative of f as the program builds
    it, with cse — formulas that wrap in their columns, one assignment per line."""
    out = latex_header(f"swell: {r.family}")
    out += latex_tables(headers(r), list(_rows(r)), key=("n",),
                        first=("f (ops)", "raw derivative", "after cse", "symbolic reverse", "engine graph"))
    shown = [row for row in r.rows if row.expressions is not None]
    if not shown:
        return "\n".join(out) + "\n"
    v = shown[0].expressions.variable
    paper = [row for row in shown if row.expressions.paper is not None]
    if paper:
        names = ["n", "f", f"df/d{v}", "simplified"]
        rows = [[str(row.n)] + [_paper_cell(form) for form in (row.expressions.paper.factored,
                                                                row.expressions.paper.product_rule,
                                                                row.expressions.paper.simplified)]
                for row in paper]
        title = tex(PAPER_TITLE).replace('"Automatic', "``Automatic").replace('survey"', "survey''")
        if r.numbering != "paper":
            title += tex(f" (here n counts the map's steps from {v}, so row n is the paper's row n + 1; "
                         "--numbering paper numbers the rows as the paper does)") if r.family in ITERATED else ""
        out += [r"\par\medskip", latex_prose(title, escaped=True), r"\smallskip"]
        out += _math_tables(names, rows, (r"$n$", r"$f$" if r.numbering != "paper" else r"$l_n$",
                                          rf"$\frac{{d}}{{d {v}}}$", "simplified"))
    programs = [[str(row.n), _program_cell(row.expressions.forward, "f"),
                 _program_cell(row.expressions.reverse, rf"\frac{{\partial f}}{{\partial {v}}}")] for row in shown]
    out += [r"\par\medskip", latex_prose("Straight-line programs: f as the engine's graph performs it, and "
                                          "symbolic reverse mode's gradient (shared values named once)"), r"\smallskip"]
    out += _math_tables(["n", "program of f", "symbolic reverse mode"], programs,
                        (r"$n$", "program of $f$", "symbolic reverse mode"))
    sympy_rows = [[str(row.n), _sized_cell(row.expressions.f), _sized_cell(row.expressions.derivative),
                   _cse_cell(row.expressions, v)] for row in shown]
    out += [r"\par\medskip", latex_prose("SymPy on f as the program builds it: sympy.diff, and the same after cse"),
            r"\smallskip"]
    out += _math_tables(["n", "f", "sympy.diff", "after cse"], sympy_rows,
                        (r"$n$", r"$f$", rf"$\frac{{d f}}{{d {v}}}$ (\texttt{{sympy.diff}})", r"after \texttt{cse}"))
    return "\n".join(out) + "\n"


def _math_tables(names, rows, heads) -> list:
    """latex_tables of formula columns (every column but n wraps), the headers in LaTeX."""
    lines = latex_tables(names, rows, key=("n",), wrap=names[1:])
    plain = " & ".join(tex(h) for h in names) + r" \\"
    return [" & ".join(heads[names.index(h)] for h in _header_names(line, names)) + r" \\" if line.endswith(r" \\")
            and _header_names(line, names) else line for line in lines] if plain else lines


def _header_names(line, names):
    """The column names of a header row latex_tables wrote, or None for any other line."""
    cells = [c.strip() for c in line.removesuffix(r" \\").split(" & ")]
    return cells if cells and all(tex(c) == c and c in names for c in cells) else None


def _sized_cell(expr):
    """A formula that wraps in its column, or its size when a slide cannot show it."""
    import sympy
    ops = sympy.count_ops(expr)
    return math_cell(expr) if ops <= LATEX_MAX_OPS else Tex(tex(f"({ops:,} operations)"), 18)


def _paper_cell(expr):
    """One of Baydin et al.'s forms in LaTeX, in the paper's order, wrapping in its column."""
    import sympy
    formula = sympy.latex(expr, order="none")
    return Tex(f"${breakable(formula)}$", len(_paper_text(expr)))


def _assignment(name: str, expr) -> tuple:
    """(LaTeX, width) of one line ``name = expr`` of a program."""
    formula = latex(expr) or tex("(too large to print)")
    return f"${name} = {breakable(formula)}$", len(name) + 3 + len(_shown(expr))


def _program_cell(program, result: str):
    """A straight-line program, one assignment per line of its cell."""
    if program is None:
        return Tex("---", 1)
    lines = [_assignment(latex(s), e) for s, e in program.assignments]
    labels = program.labels or [result]
    lines += [_assignment(_label(label, result, program), o) for label, o in zip(labels, program.outputs)]
    return Tex(r" \newline ".join(text for text, _ in lines), max((w for _, w in lines), default=1))


def _label(label: str, result: str, program) -> str:
    """An output's name in LaTeX: ∂f/∂x as a fraction."""
    if not (len(program.outputs) > 1 or program.labels):
        return result
    if label.startswith("∂f/∂"):
        return rf"\frac{{\partial f}}{{\partial {label[4:]}}}"
    return r"\text{" + tex(label) + "}"


def _cse_cell(e, v):
    """cse's replacements and the reduced derivative, one per line."""
    replacements, reduced = e.cse
    lines = [_assignment(latex(s), x) for s, x in replacements]
    lines.append(_assignment(rf"\frac{{d f}}{{d {v}}}", reduced))
    if sum(w for _, w in lines) > 6 * LATEX_MAX_OPS:
        return Tex(tex(f"({len(lines)} assignments, too large for a slide)"), 20)
    return Tex(r" \newline ".join(text for text, _ in lines), max(w for _, w in lines))

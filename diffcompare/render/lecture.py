"""The lecture as a beamer deck (LaTeX that compiles with pdflatex out of the box: beamer,
amsmath, booktabs, TikZ and pgfplots, all in TeX Live's recommended and pictures sets) and
as a Jupyter notebook telling the same story with the library's calls. Renderers only
format :class:`diffcompare.lecture.lecture.Lecture`; every number comes from it."""

from __future__ import annotations

import io
import json
import math
import tokenize

import numpy as np

from diffcompare.language.expression import parse
from diffcompare.language.printing import latex
from diffcompare.problem.problem import make_problem
from diffcompare.render.common import tex
from diffcompare.render.explain import values
from diffcompare.render.graph import tikz
from diffcompare.render.notebook import code_cell, markdown_cell, notebook_json
from diffcompare.render.steps import not_differentiable

FORMATS = ("latex", "notebook", "json")
ROWS_PER_FRAME = 5          # backward-pass steps on one slide
FORWARD_ROWS_PER_FRAME = 10
FRAME_SIZE = (13.6, 6.2)    # cm a 16:9 frame's body holds
PREAMBLE = r"""% diffcompare lecture: compile with pdflatex (beamer, amsmath, booktabs, tikz, pgfplots)
\documentclass[aspectratio=169,10pt]{beamer}
\usepackage[utf8]{inputenc}
\usepackage[T1]{fontenc}
\usepackage{lmodern}
\usepackage{amsmath,amssymb}
\usepackage{booktabs,array}
\usepackage{tikz}
\usepackage{pgfplots}
\pgfplotsset{compat=1.16}
\setbeamertemplate{navigation symbols}{}
% a formula or a picture at its own size, shrunk to the line only when it is wider
\newcommand{\fitwidth}[1]{\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{#1}}
\newcommand{\fittitle}[1]{\resizebox{\ifdim\width>0.8\textwidth 0.8\textwidth\else\width\fi}{!}{#1}}
\setbeamerfont{block body}{size=\small}
"""


def render(lec, format: str = "latex", width: int | None = None) -> str:
    if format == "latex":
        return deck(lec)
    if format == "notebook":
        return notebook(lec)
    if format == "json":
        return json.dumps(as_dict(lec), indent=2, ensure_ascii=False)
    raise ValueError(f"unknown format {format!r} for a lecture; choose from {', '.join(FORMATS)}")


def headline(lec) -> str:
    return f"a lecture on f = {lec.text} at {_point(lec)}: {len(deck_frames(lec))} slides"


def as_dict(lec) -> dict:
    """The lecture's own numbers; the reports it is made of keep their own JSON."""
    return {"report": "lecture", "function": lec.text, "variable": lec.variable,
            "point": {k: float(v) for k, v in lec.point.items()},
            "retain_graph": vars(lec.retain), "create_graph": vars(lec.second),
            "cost": [vars(c) for c in lec.cost], "template": lec.template,
            "exit_status": lec.exit_status}


# -- the deck -------------------------------------------------------------------------------

def deck(lec) -> str:
    title = rf"\title{{\texorpdfstring{{\fittitle{{Differentiating ${_math(lec)}$}}}}{{Differentiating {_pdf_text(lec.text)}}}}}" + "\n" + rf"\subtitle{{at {tex(_point(lec))}}}" + "\n"
    body = "\n".join(deck_frames(lec))
    return PREAMBLE + title + r"\date{}" + "\n" + r"\begin{document}" + "\n" + body + "\n" + r"\end{document}" + "\n"


def _pdf_text(text: str) -> str:
    """Text for the PDF's title field: letters, digits and plain punctuation only."""
    return "".join(ch if ch.isalnum() or ch in " +-*/().," else " " for ch in text)


def deck_frames(lec) -> list:
    frames = [r"\begin{frame}" + "\n" + r"\titlepage" + "\n" + r"\end{frame}", _function_frame(lec),
              _graph_frame(lec), *_forward_frames(lec)]
    frames += _backward_frames(lec)
    frames.append(_gradient_frame(lec))
    if lec.vjp is not None:
        frames.append(_vjp_frame(lec))
    frames += [_retain_frame(lec), _create_frame(lec), _cost_frame(lec), _steps_frame(lec)]
    if lec.swell is not None:
        frames.append(_swell_frame(lec))
    frames.append(_compare_frame(lec))
    return frames


def _frame(title: str, body: list, fragile: bool = False) -> str:
    options = "[fragile]" if fragile else ""
    return "\n".join([rf"\begin{{frame}}{options}{{{title}}}", *body, r"\end{frame}"])


def _table(spec: str, header: str, rows: list) -> str:
    """A booktabs table, shrunk to the slide only when it is wider."""
    return "\n".join([r"\fitwidth{%", rf"\begin{{tabular}}{{{spec}}}", r"\toprule", header + r" \\", r"\midrule",
                      *rows, r"\bottomrule", r"\end{tabular}}%"])


def _point(lec) -> str:
    return ", ".join(f"{name} = {values(value, None)}" for name, value in lec.point.items())


def _math(lec) -> str:
    (output,), _ = make_problem(lec.text, lec.point).sympy_outputs()
    return latex(output) or tex(lec.text)


def _number(v, digits: int = 6) -> str:
    """A number for a slide, in math mode: 4.05343, 1.2 \\times 10^{-8}."""
    if v is None:
        return "---"
    v = float(v)
    if not math.isfinite(v):
        return r"\text{nan}" if math.isnan(v) else (r"\infty" if v > 0 else r"-\infty")
    text = f"{v:.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        power = rf"10^{{{int(exponent)}}}"
        return power if mantissa in ("1", "1.0") else rf"{mantissa} \times {power}"
    return text


def _math_number(v, digits: int = 6) -> str:
    """:func:`_number` in math mode, or a dash where there is no number."""
    return "---" if v is None else f"${_number(v, digits)}$"


def _function_frame(lec) -> str:
    e = lec.explanation
    return _frame("The function and the question", [
        rf"\begin{{center}}\fitwidth{{$\displaystyle f = {_math(lec)}$}}\end{{center}}",
        rf"at {tex(_point(lec))}, where $f = {_number(e.output, 12)}$.",
        r"\medskip", r"What is $\partial f / \partial " + tex(lec.variable) + r"$, and how far from the truth is each way of computing it?",
        r"\begin{itemize}",
        r"\item reverse-mode automatic differentiation: record the graph, then one \texttt{backward()}",
        r"\item forward-mode automatic differentiation: one pass per input",
        r"\item symbolic differentiation (SymPy), and symbolic reverse mode",
        r"\item finite differences: $(f(x+h)-f(x))/h$ and its relatives",
        r"\end{itemize}"])


def _graph_frame(lec) -> str:
    return _frame("The graph autograd records", [
        r"\centering", rf"\fitwidth{{{tikz(lec.explanation, FRAME_SIZE)}}}%", r"\par\medskip\raggedright",
        r"\small Each node is a \texttt{grad\_fn}, drawn in the forward direction; its number is its place in the"
        r" backward walk, which starts at the output (1)."])


def _short(text: str, most: int = 22) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _forward_frames(lec) -> list:
    e = lec.explanation
    rows = [rf"{s.number} & \texttt{{{tex(s.name)}}} & \texttt{{{tex(_short(s.label, 30))}}} & {_math_number(s.value, 10)} \\"
            for s in reversed(e.steps)]
    chunks = [rows[k:k + FORWARD_ROWS_PER_FRAME] for k in range(0, len(rows), FORWARD_ROWS_PER_FRAME)]
    return [_frame("The forward pass: values, and what each node saves" + _part(k, len(chunks)), [
        r"\small", _table("rllr", "step & node & computes & value", chunk), r"\par\medskip",
        r"The forward pass computes $f$ and records each operation with what its backward needs."])
        for k, chunk in enumerate(chunks)]


def _part(k: int, parts: int) -> str:
    return f" ({k + 1}/{parts})" if parts > 1 else ""


def _local(step) -> str:
    parts = [rf"\fitwidth{{${edge.local_latex}$}}" for edge in step.edges if edge.local_latex]
    if parts:
        return r"\newline ".join(parts)
    return "---" if step.is_leaf else tex(step.rule or "the op's own rule")


def _sends(step) -> str:
    if step.is_leaf:
        return rf"\texttt{{{tex(step.label)}.grad}}"
    return r"\newline ".join(rf"$\to$ {edge.target}: {_math_number(edge.sent, 8)}" for edge in step.edges
                       if edge.target is not None) or "---"


def _adjoint(step) -> str:
    if step.number == 1:
        return rf"{_math_number(step.adjoint, 8)} (seed)"
    if len(step.contributions) > 1:
        return " + ".join(f"{_math_number(g, 6)}" for _, g in step.contributions) + rf" $= {_number(step.adjoint, 8)}$"
    return f"{_math_number(step.adjoint, 8)}"


def _backward_frames(lec) -> list:
    e = lec.explanation
    chunks = [e.steps[k:k + ROWS_PER_FRAME] for k in range(0, len(e.steps), ROWS_PER_FRAME)]
    frames = []
    for k, chunk in enumerate(chunks):
        rows = [rf"{s.number} & \texttt{{{tex(s.name)}}} & {_adjoint(s)} & {_local(s)} & {_sends(s)} \\" for s in chunk]
        spec = "rl" + "".join(rf">{{\raggedright\arraybackslash}}p{{{w}\textwidth}}" for w in (0.19, 0.29, 0.16))
        frames.append(_frame("The backward pass: adjoints flow from the output" + _part(k, len(chunks)), [
            r"\footnotesize", _table(spec, "step & node & adjoint (incoming) & local derivative & sends (VJP)", rows)]))
    return frames


def _gradient_frame(lec) -> str:
    e = lec.explanation
    rows = []
    for name in e.variables:
        text, exact = e.symbolic.get(name, (None, None))
        engine = float(np.asarray(e.gradient[name]))
        gap = "---" if exact is None else f"{_math_number(abs(engine - float(exact)) / (abs(float(exact)) or 1.0), 2)}"
        rows.append(rf"\texttt{{{tex(name)}.grad}} & {_math_number(engine, 17)} & "
                    rf"{_math_number(exact, 17)} & {gap} \\")
    return _frame("The gradient, against SymPy's exact derivative", [
        r"\small", _table("lrrr", "leaf & autograd & SymPy (mpmath, 30 digits) & relative difference", rows),
        r"\par\medskip",
        r"One backward pass gives every partial derivative: its cost is a small multiple of $f$'s own."])


def _code_head(lec) -> list:
    used = sorted(parse(lec.text).functions)
    head = ["import diffcompare.autograd as torch      # PyTorch's API, on NumPy"]
    if lec.engine_names and used:
        head.append(f"from diffcompare.autograd import {', '.join(used)}")
    return head


def _y_line(lec) -> str:
    return f"y = {lec.text}" if lec.engine_names else f"y = f({lec.variable})"


def _fixed_lines(lec, shown) -> list:
    return [f"{name} = torch.tensor({values(value, None)})" for name, value in lec.point.items()
            if name != lec.variable and shown]


CODE_COLUMNS = 88          # characters of code a slide holds at \\scriptsize


def _code(lines) -> list:
    """Code on a slide: lines longer than the slide are broken inside parentheses (Python
    joins them), at an operator or a space; a smaller font only for what cannot break."""
    out = []
    for line in lines:
        out += wrap_code(line, CODE_COLUMNS)
    size = r"\scriptsize" if max(map(len, out), default=0) <= CODE_COLUMNS else r"\tiny"
    return [r"\begin{semiverbatim}" + size, *[tex(line) for line in out], r"\end{semiverbatim}"]


def wrap_code(line: str, width: int) -> list:
    """``line`` broken into lines of at most ``width`` characters where Python allows it.

    >>> wrap_code("y = exp(x) + sin(x)", 16)
    ['y = (exp(x) +', '     sin(x))']
    """
    if len(line) <= width:
        return [line]
    code, _, comment = line.partition("  #")
    if comment and len(code.rstrip()) <= width:
        return [code.rstrip(), " " * (len(code) - len(code.lstrip())) + "#" + comment.rstrip()]
    target, equals, expression = code.partition(" = ")
    if not equals:
        return [line]
    head = f"{target} = ("
    text, indent, out = expression.strip() + ")", " " * len(head), []
    breaks = _breaks(text)
    current, start = head, 0
    while len(current) + len(text) - start > width:
        room = width - len(current)
        # prefer a break after a binary operator between spaces, then any operator or comma
        fits = [k for k in breaks if start < k <= start + room]
        spaced = [k for k in fits if k < len(text) and text[k] == " "]
        cut = max(spaced or fits, default=0)
        if cut == 0:                        # one token longer than the slide: leave it whole
            break
        out.append((current + text[start:cut]).rstrip())
        current, start = indent, cut
        while start < len(text) and text[start] == " ":
            start += 1
    text = text[start:]
    out.append(current + text)
    if comment:
        out.append(indent + "#" + comment.rstrip())
    return out


def _breaks(text: str) -> list:
    """Where ``text`` (Python, inside parentheses) may break: after an operator token or a
    comma, never inside a token (``**``, ``1e-5``)."""
    out = []
    try:
        for token in tokenize.generate_tokens(io.StringIO("(" + text).readline):     # text ends with ")"
            if token.type == tokenize.OP and token.string in ("+", "-", "*", "/", "**", "//", ",") \
                    and token.start[0] == 1:
                out.append(token.end[1] - 1)
    except (tokenize.TokenError, SyntaxError):      # unbalanced: the line stays whole
        return []
    return out


def _vjp_frame(lec) -> str:
    e = lec.vjp
    v = lec.vjp.seed
    xs = np.ravel(e.point[lec.variable])
    grads = np.ravel(e.gradient[lec.variable])
    exact = e.symbolic.get(lec.variable, (None, None))[1]
    exact = [None] * len(xs) if exact is None else np.ravel(exact)
    code = [*_code_head(lec), *_fixed_lines(lec, True),
            f"{lec.variable} = torch.tensor([{', '.join(values(x, None) for x in xs)}], requires_grad=True)",
            _y_line(lec) + "    # elementwise: one output per input",
            f"y.backward(torch.tensor([{', '.join(values(t, None) for t in v)}]))"]
    rows = [rf"{_math_number(x, 6)} & {_math_number(t, 3)} & {_math_number(g, 12)} & {_math_number(r, 12)} \\"
            for x, t, g, r in zip(xs, v, grads, exact)]
    return _frame(r"\texttt{backward(v)}: the vector-Jacobian product", [
        *_code(code),
        rf"A non-scalar $y$ needs $v$: \texttt{{backward(v)}} computes $v^\top J$ without forming $J$. "
        rf"Here $J = \mathrm{{diag}}(f'({tex(lec.variable)}_i))$, so the gradient is $v_i\, f'({tex(lec.variable)}_i)$.",
        r"\par\smallskip\footnotesize",
        _table("rrrr", rf"${tex(lec.variable)}_i$ & $v_i$ & \texttt{{{tex(lec.variable)}.grad}} & "
                       rf"$v_i f'({tex(lec.variable)}_i)$ by SymPy", rows)], fragile=True)


def _retain_frame(lec) -> str:
    r = lec.retain
    x = lec.variable
    code = [*_fixed_lines(lec, True), f"{x} = torch.tensor({values(lec.point[x], None)}, requires_grad=True)",
            _y_line(lec), f"y.backward(retain_graph=True)   # {x}.grad = {values(r.first, None)}",
            f"y.backward()                     # {x}.grad = {values(r.accumulated, None)}: accumulated",
            "", _y_line(lec), "y.backward()", "y.backward()                     # the graph was freed:"]
    return _frame(r"\texttt{retain\_graph}: a second backward through the same graph", [
        *_code(code),
        r"{\scriptsize\color{red!60!black} \texttt{RuntimeError:} " + tex(r.freed_error) + "}",
        r"\par\smallskip\small Gradients accumulate into \texttt{.grad} (call \texttt{grad.zero\_()} between steps); "
        r"the saved values are freed after a backward unless \texttt{retain\_graph=True}."], fragile=True)


def _create_frame(lec) -> str:
    s = lec.second
    x = lec.variable
    code = [f"{x} = torch.tensor({values(lec.point[x], None)}, requires_grad=True)", _y_line(lec),
            f"(g,) = torch.autograd.grad(y, {x}, create_graph=True)   # g = {values(s.first, None)}, with a graph",
            f"(h,) = torch.autograd.grad(g, {x})                      # h = {values(s.second, None)}"]
    verdict = ""
    if s.second is not None and s.exact_second is not None:
        gap = abs(s.second - s.exact_second) / (abs(s.exact_second) or 1.0)
        verdict = rf"SymPy's $f''$: {_math_number(s.exact_second, 17)}; relative difference {_math_number(gap, 2)}."
    elif s.second is None:
        verdict = r"Here $g$ does not depend on the variable: the second derivative is 0."
    return _frame(r"\texttt{create\_graph}: differentiating the derivative", [
        *_code(code),
        r"With \texttt{create\_graph=True} the backward pass is itself recorded, so $g = f'$ is a tensor with a "
        r"\texttt{grad\_fn} and a second backward gives $f''$.", r"\par\smallskip", verdict], fragile=True)


def _cost_frame(lec) -> str:
    ns = [c.n for c in lec.cost]
    return _frame("Forward against reverse mode: what the gradient costs", [
        r"\begin{columns}[T]", r"\begin{column}{0.55\textwidth}",
        # the tick labels are measured times, whose width varies from run to run: room to spare
        r"\begin{tikzpicture}", r"\begin{loglogaxis}[width=0.92\linewidth, height=5.2cm, xlabel={$n$ inputs},"
        r" ylabel={seconds per gradient}, legend pos=north west, legend style={font=\scriptsize}, tick label style={font=\scriptsize}]",
        r"\addplot[mark=*, blue] " + _coordinates(ns, [c.forward_seconds for c in lec.cost]),
        r"\addlegendentry{forward mode ($n$ passes)}",
        r"\addplot[mark=square*, red] " + _coordinates(ns, [c.reverse_seconds for c in lec.cost]),
        r"\addlegendentry{reverse mode (1 backward)}",
        r"\end{loglogaxis}", r"\end{tikzpicture}", r"\end{column}", r"\begin{column}{0.42\textwidth}", r"\small",
        rf"$F(x_1,\dots,x_n) = \sum_i f(x_i)$ with the other variables fixed: $\mathbb{{R}}^n \to \mathbb{{R}}$.",
        r"\begin{itemize}", r"\item forward mode: one pass per input, cost $\propto n$",
        r"\item reverse mode: one backward for the whole gradient",
        r"\item the two gradients agree to " + rf"{_math_number(max(c.difference for c in lec.cost), 2)}", r"\end{itemize}",
        r"For $\mathbb{R}^n \to \mathbb{R}^m$: forward costs $n$ passes, reverse $m$.",
        r"\end{column}", r"\end{columns}"])


def _steps_frame(lec) -> str:
    s = lec.sweep
    title = "Finite differences: truncation against rounding"
    if not s.differentiable:
        return _frame(title, [tex(not_differentiable(s))])
    plots = []
    colours = {"forward-difference": "blue", "central-difference": "red", "complex-step": "green!50!black"}
    for scheme, colour in colours.items():
        try:
            curve = s.curve(scheme, "float64")
        except KeyError:
            continue
        plots += [rf"\addplot[mark=*, mark size=1pt, {colour}] " + _coordinates(s.steps, curve.abs_errors),
                  rf"\addlegendentry{{{scheme}}}"]
    central = s.curve("central-difference", "float64")
    crossover = []
    if central.crossover_h:
        crossover = [rf"\draw[dashed, gray] (axis cs:{central.crossover_h:.3g},\pgfkeysvalueof{{/pgfplots/ymin}}) -- "
                     rf"(axis cs:{central.crossover_h:.3g},\pgfkeysvalueof{{/pgfplots/ymax}}) "
                     r"node[pos=0.95, right, font=\tiny] {central $h_\times$};"]
    best_error = None if central.best is None else central.abs_errors[central.best]
    return _frame(title, [
        r"\begin{columns}[T]", r"\begin{column}{0.6\textwidth}", r"\begin{tikzpicture}",
        r"\begin{loglogaxis}[width=\linewidth, height=5.6cm, xlabel={step $h$}, ylabel={absolute error},"
        r" legend pos=south west, legend style={font=\scriptsize}, tick label style={font=\scriptsize}]",
        *plots, *crossover, r"\end{loglogaxis}", r"\end{tikzpicture}", r"\end{column}",
        r"\begin{column}{0.37\textwidth}", r"\small",
        r"Right of the crossover $h_\times$: truncation error dominates, falling as $h^p$ when $h$ shrinks.",
        r"\par\smallskip",
        r"Left of it: round-off dominates, about $\varepsilon |f| / h$, rising as $h$ shrinks.", r"\par\smallskip",
        rf"Central differences are best at $h \approx {_number(central.best_h, 2)}$ (error {_math_number(best_error, 2)});"
        r" the complex step has no subtraction and no round-off wall.",
        r"\end{column}", r"\end{columns}"])


def _coordinates(xs, ys) -> str:
    points = [f"({float(x):.6g},{float(y):.6g})" for x, y in zip(xs, ys)
              if y is not None and math.isfinite(y) and y > 0]
    return "coordinates {" + " ".join(points) + "};"


def _swell_frame(lec) -> str:
    rows = []
    for row in lec.swell.rows:
        cells = [row.n, row.size_f, row.size_raw, row.size_cse, row.size_reverse]
        rows.append(" & ".join("---" if c is None else f"{c:,}".replace(",", "{,}") for c in cells) + r" \\")
    return _frame("Expression swell: symbolic derivative against symbolic reverse mode", [
        rf"Iterate $y \leftarrow$ {tex(lec.template)} $n$ times from $y_0 = x$ and differentiate.",
        r"\par\medskip",
        _table("rrrrr", r"$n$ & size of $f$ & SymPy's derivative & after \texttt{cse} & reverse-mode program", rows),
        r"\par\medskip\small",
        r"Sizes are operation counts. The raw derivative repeats shared subexpressions and grows much faster than $f$;"
        r" reverse mode's program stays a small multiple of $f$ --- what autograd does with numbers."])


def _compare_frame(lec) -> str:
    c = lec.comparison
    data = c.to_dict()
    rows = []
    for m in data["methods"]:
        errors = m.get("errors") or {}
        rows.append(rf"{tex(m['name'])} & {_math_number((m.get('worst') or {}).get('value'), 12)} & "
                    rf"{_math_number(errors.get('max_abs'), 2)} & {tex(m['verdict'])} & {tex(m.get('work') or '')} \\")
    return _frame("Every method side by side", [
        r"\footnotesize", _table(r"lrrl>{\raggedright\arraybackslash}p{0.3\textwidth}",
                                 "method & value & absolute error & verdict & work", rows),
        r"\par\smallskip\scriptsize Errors against SymPy's derivative evaluated by mpmath at 30 digits; a verdict holds"
        r" each method to the accuracy it can be expected to reach."])


# -- the notebook ---------------------------------------------------------------------------

def notebook(lec) -> str:
    """The same story as a notebook: the library's calls, whose reports show as tables."""
    at = "{" + ", ".join(f"{name!r}: {values(v, None)}" for name, v in lec.point.items()) + "}"
    x = lec.variable
    f_line = _y_line(lec)
    cells = [
        markdown_cell(f"# Differentiating f = {lec.text}\n\nAt {_point(lec)}: the graph autograd records, the forward "
                      "and backward pass, `backward(v)` as a vector-Jacobian product, `retain_graph` and "
                      "`create_graph`, forward against reverse mode, finite-difference error against h, and "
                      "expression swell."),
        code_cell(f"import diffcompare\nF = {lec.text!r}\nAT = {at}"),
        markdown_cell("## The graph and the backward pass, node by node"),
        code_cell("diffcompare.explain(F, at=AT)"),
        markdown_cell("## The engine, written as PyTorch code"),
        code_cell("\n".join([*_code_head(lec), *_fixed_lines(lec, True),
                             f"{x} = torch.tensor({values(lec.point[x], None)}, requires_grad=True)", f_line,
                             "y.backward(retain_graph=True)", f"first = {x}.grad.clone()",
                             "y.backward()              # the retained graph: the gradient accumulates",
                             f"first, {x}.grad"])) if lec.engine_names else markdown_cell(
            "f uses functions the engine names differently; the reports below run it for you."),
        markdown_cell("## `create_graph`: the second derivative"),
        code_cell("\n".join([f"{x} = torch.tensor({values(lec.point[x], None)}, requires_grad=True)", f_line,
                             f"(g,) = torch.autograd.grad(y, {x}, create_graph=True)",
                             f"(h,) = torch.autograd.grad(g, {x})", "g, h"])) if lec.engine_names else markdown_cell(
            f"The second derivative by `create_graph`: {values(lec.second.second, None)}."),
        markdown_cell("## `backward(v)`: the vector-Jacobian product"),
        code_cell(f"diffcompare.explain(F, at={{**AT, {x!r}: "
                  f"[{', '.join(values(float(lec.point[x]) + d, None) for d in (0.0, 0.25, 0.5))}]}}, "
                  "vector=[1.0, 0.1, 0.01])"),
        markdown_cell("## Finite differences: error against the step h"),
        code_cell(f"diffcompare.step_sweep(F, AT, variable={x!r})"),
    ]
    if lec.template is not None:
        cells += [markdown_cell("## Expression swell against symbolic reverse mode"),
                  code_cell(f"diffcompare.swell('template', [1, 2, 3, 4], template={lec.template!r})")]
    cells += [markdown_cell("## Every method side by side"), code_cell("diffcompare.compare(F, at=AT)")]
    return notebook_json(cells)


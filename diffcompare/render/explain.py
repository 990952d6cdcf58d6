"""Renderers of an :class:`~diffcompare.lecture.explain.Explanation`: the graph as a tree and the
backward walk as a table (terminal, Markdown, LaTeX), JSON, plain text, and a web page a
student steps through node by node (:func:`html_report`; its frame in
:mod:`diffcompare.render.page`, its drawing by :mod:`diffcompare.render.svg`). They only
format; everything shown was computed by ``diffcompare.lecture.explain``."""

from __future__ import annotations

import hashlib
import itertools
import sys
import textwrap
from html import escape

from diffcompare.lazy import LazyModule

np = LazyModule("numpy")
from diffcompare.render import page
from diffcompare.render.common import (
    Tex,
    breakable,
    dropped_note,
    envelope,
    fitted_tables,
    json_array,
    latex_header,
    latex_prose,
    latex_tables,
    render_report,
    tex,
)
from diffcompare.render.svg import Arrow, Box, layout, svg

SCHEMA_VERSION = 2
CHECK_STYLE = {"ok": "green", "wrong": "bold red", "kink": "yellow", "inconclusive": "yellow", "not checked": "dim"}


def render(e, format: str = "text", width: int | None = None) -> str:
    if format == "html":            # the page a student steps through, not the terminal's report
        return html_report(e)
    return render_report(e, format, width, sys.modules[__name__])


def values(v, digits: int | None = 6, most: int = 6) -> str:
    """A number or a short array, compactly: 0.909297, [0.4, 0.4, -48]; ``digits`` None:
    every digit needed to read the double back.

    >>> values(np.array(2.0)), values(np.array([1/3, 2.0])), values(0.1, None), values(None)
    ('2', '[0.333333, 2]', '0.1', '—')
    """
    if v is None:
        return "—"
    a = np.asarray(v, dtype=np.float64)

    def one(x):
        return repr(float(x)).removesuffix(".0") if digits is None else f"{x:.{digits}g}"
    if a.ndim == 0:
        return one(a)
    flat = [one(x) for x in a.reshape(-1)[:most]]
    more = ", …" if a.size > most else ""
    if a.ndim == 1:
        return "[" + ", ".join(flat) + more + "]"
    return f"{'×'.join(map(str, a.shape))} [" + ", ".join(flat) + more + "]"


def _point(e) -> str:
    return ", ".join(f"{name}={values(e.point[name], None)}" for name in e.variables)


def _heading(e) -> list:
    lines = [f"f = {e.label}   at {_point(e)}", f"f = {values(e.output, None)}"]
    if e.seed is not None:
        lines.append(f"backward(v) with v = {values(e.seed, None, most=12)}: the walk carries vᵀJ, J is never formed")
    return lines


def _from_text(k, g) -> str:
    return f"{values(g)} (from {k})"


def _adjoint_text(step) -> str:
    if step.number == 1:
        return f"{values(step.adjoint)} (the seed)"
    if len(step.contributions) > 1:
        parts = " + ".join(_from_text(k, g) for k, g in step.contributions)
        return f"{parts} = {values(step.adjoint)}"
    if step.contributions:
        return _from_text(*step.contributions[0])
    return values(step.adjoint)


def _local_text(step) -> str:
    lines = []
    for edge in step.edges:
        if edge.target is None:
            continue
        if edge.local:
            lines.append(f"{edge.local} = {values(edge.local_value)}")
    if not lines and step.rule:
        lines.append(f"rule: {step.rule}")
    return "\n".join(lines) if lines else ("—" if step.is_leaf else "(the op's own backward)")


def _sends_text(step) -> str:
    if step.is_leaf:
        return f"into {step.label}.grad"
    lines = [f"→ {edge.target}: {values(edge.sent)}" for edge in step.edges if edge.target is not None]
    return "\n".join(lines) or "—"


def _walk_rows(e):
    for step in e.steps:
        row = [str(step.number), step.name, step.label, values(step.value), _adjoint_text(step),
               _local_text(step), _sends_text(step)]
        if e.checked:
            row.append(step.check + (f": {step.detail}" if step.detail else ""))
        yield row


def _walk_headers(e):
    headers = ["step", "node", "computes", "value", "adjoint (incoming gradient)", "local derivative",
               "sends (vector-Jacobian product)"]
    return headers + (["check"] if e.checked else [])


def _gradient_rows(e):
    for name in e.variables:
        text, value = e.symbolic.get(name, (None, None))
        engine = e.gradient[name]
        agree = "—"
        if value is not None:
            scale = float(np.max(np.abs(value))) or 1.0
            gap = float(np.max(np.abs(np.asarray(engine) - value))) / scale
            agree = "exact" if gap == 0 else f"{gap:.1e} relative"
        yield [name, values(engine, None), text or "(too long to show)" if value is not None else "—",
               values(value, None), agree]


WALK_PROSE = ("computes", "value", "adjoint (incoming gradient)", "local derivative",
              "sends (vector-Jacobian product)", "check")
# moved to a further table first on a narrow terminal (the check, asked for, stays beside the step)
WALK_DROP_ORDER = ("local derivative", "computes", "value", "adjoint (incoming gradient)",
                   "sends (vector-Jacobian product)")
GRADIENT_HEADERS = ["variable", "autograd", "SymPy's derivative", "SymPy's value", "difference"]


def tree_rows(e):
    """The graph from the output down, as (depth, step, repeated, last) in depth-first
    order; ``last``: the final input of its parent. A node reached again is listed once
    more, marked, without its inputs."""
    out, seen, stack = [], set(), [(0, 1, True)]
    while stack:
        depth, number, last = stack.pop()
        step = e.step(number)
        out.append((depth, step, number in seen, last))
        if number in seen:
            continue
        seen.add(number)
        inputs = step.inputs
        for k in range(len(inputs) - 1, -1, -1):
            stack.append((depth + 1, inputs[k], k == len(inputs) - 1))
    return out


def node_text(step, repeated: bool) -> str:
    if repeated:
        return f"{step.name} [step {step.number}, shown above]"
    if step.is_leaf:
        return f"{step.name}  {step.label} = {values(step.value)}  (leaf, requires_grad)  [step {step.number}]"
    return f"{step.name}  {step.label} = {values(step.value)}  [step {step.number}]"


WRONG_MARK = "✗ backward rule wrong"


def check_mark(e, step) -> str:
    """What --check found at a node, for the tree: nothing when it agrees (or nothing was
    checked), the wrong rule marked, a node that could not be checked said so."""
    if not e.checked:
        return ""
    if step.check == "wrong":
        return f"  {WRONG_MARK}"
    if any(s is step for s in e.unchecked):
        return "  ? not checked" + (f" ({step.check})" if step.check != "not checked" else "")
    return ""


def check_summary(e) -> str:
    wrong = e.first_wrong
    if wrong is not None:
        return (f"check: the backward rule of step {wrong.number}, {wrong.name} ({wrong.label}), is wrong: "
                f"{wrong.detail}")
    counts = {}
    for step in e.steps:
        counts[step.check] = counts.get(step.check, 0) + 1
    told = ", ".join(f"{n} {k}" for k, n in counts.items())
    if e.unchecked:
        return (f"check: no backward rule disagrees with the reference, but {len(e.unchecked)} node"
                f"{'s' * (len(e.unchecked) != 1)} could not be checked ({told}; at a kink the conventions differ)")
    return f"check: every node's backward rule agrees with the reference ({told})"


def print_report(e, console) -> None:
    from rich.markup import escape
    from rich.text import Text
    from rich.tree import Tree

    for line in _heading(e):
        console.print(Text(line))
    console.print()
    console.print(f"[bold]the graph autograd recorded[/bold] {escape('(grad_fn of the output, then next_functions)')}")
    branches = {}
    for depth, step, repeated, _ in tree_rows(e):
        label = Text(node_text(step, repeated), style="dim" if repeated else "")
        branches[depth] = Tree(label) if depth == 0 else branches[depth - 1].add(label)
    root = branches[0]
    console.print(root)
    console.print()
    console.print("[bold]the backward pass[/bold], one step per node in the order the engine runs them")
    headers = _walk_headers(e)
    tables, dropped = fitted_tables(console, headers, list(_walk_rows(e)), key=("step", "node"),
                                    drop_order=WALK_DROP_ORDER, wrap=WALK_PROSE, left=headers, prose_width=20,
                                    styles={"check": lambda cell: CHECK_STYLE.get(cell.split(":")[0], "")},
                                    show_lines=True, header_style="bold")
    for k, table in enumerate(tables):
        if k:
            console.print(Text("the same steps, the columns that did not fit beside them:", style="dim"))
        console.print(table)
    if dropped:
        console.print(Text(dropped_note(dropped, console.width), style="dim"))
    console.print()
    # vectors and matrices wrap at their commas; the variable's name never shrinks
    grads, dropped = fitted_tables(console, GRADIENT_HEADERS, list(_gradient_rows(e)), key=("variable",),
                                   drop_order=("difference", "SymPy's derivative", "SymPy's value"),
                                   wrap=GRADIENT_HEADERS[1:4], left=GRADIENT_HEADERS, prose_width=20,
                                   header_style="bold",
                                   title="the gradient: the chain rule, made visible (autograd: the walk's result)",
                                   title_justify="left")
    for table in grads:
        console.print(table)
    if dropped:
        console.print(Text(dropped_note(dropped, console.width), style="dim"))
    for note in e.notes:
        console.print(Text(f"note: {note}"))
    if e.checked:
        console.print(Text(check_summary(e), style="bold red" if e.first_wrong else "green"))


def _listed(v):
    """An array as JSON holds it: nested lists of floats; None stays None."""
    return None if v is None else np.asarray(v, dtype=np.float64).tolist()


def as_dict(e) -> dict:
    arr = json_array            # non-finite numbers as "nan", "inf": JSON has no NaN
    point = {n: arr(e.point[n]) for n in e.variables}
    command = {"function": e.label, "at": point, "vector": arr(e.seed), "check": e.checked}
    return envelope("explain", SCHEMA_VERSION, command, e.exit_status, {
        "function": e.label, "point": point,
        "output": arr(e.output), "seed": arr(e.seed), "checked": e.checked,
        "first_wrong": None if e.first_wrong is None else e.first_wrong.number,
        "steps": [{
            "step": s.number, "node": s.name, "computes": s.label, "leaf": s.is_leaf,
            "value": arr(s.value), "adjoint": arr(s.adjoint),
            "contributions": [{"from": k, "value": arr(g)} for k, g in s.contributions],
            "sends": [{"to": edge.target, "value": arr(edge.sent), "local_derivative": edge.local,
                       "local_value": arr(edge.local_value), "reference": arr(edge.reference)}
                      for edge in s.edges],
            "rule": s.rule, "reference_from": s.source or None, "check": s.check or None, "detail": s.detail or None,
        } for s in e.steps],
        "gradient": {n: arr(e.gradient[n]) for n in e.variables},
        "symbolic": {n: {"derivative": t, "value": arr(v)} for n, (t, v) in e.symbolic.items()},
        "notes": list(e.notes),
    })


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", "<br>")


def headline(e) -> str:
    """The report in one line (its repr)."""
    checked = ""
    if e.checked:
        wrong = e.first_wrong
        checked = f"; wrong rule at step {wrong.number} ({wrong.name})" if wrong else "; every rule checked"
    return f"the backward walk of {e.label}: {len(e.steps)} steps{checked} — exit status {e.exit_status}"


def markdown(e) -> str:
    out = [f"**f = `{e.label}`** at {_point(e)}", "", *[f"- {line}" for line in _heading(e)[1:]], "",
           "**The recorded graph**", "", "```"]
    out += plain_tree(e).splitlines()
    out += ["```", "", "**The backward pass**", ""]
    headers = _walk_headers(e)
    out.append("| " + " | ".join(headers) + " |")
    out.append("|" + "|".join("---" for _ in headers) + "|")
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in _walk_rows(e)]
    out += ["", "**The gradient**", "", "| " + " | ".join(GRADIENT_HEADERS) + " |",
            "|" + "|".join("---" for _ in GRADIENT_HEADERS) + "|"]
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in _gradient_rows(e)]
    if e.checked:
        out += ["", check_summary(e)]
    return "\n".join(out) + "\n"


# --- the page a student steps through (render/page.py holds its frame, style and script) ---

WALK_CELL_CLASSES = {"step": "number", "value": "number"}
FILLED_AS_THE_WALK_GOES = ("adjoint (incoming gradient)", "local derivative", "sends (vector-Jacobian product)",
                           "check")
BOX_LABEL = 30          # characters of what a node computes shown in its box (all of it in its tooltip)
TITLE_LABEL = 70        # characters of f in the page's title
PAGE_WORDS = {"so_far": "so far: {parts} + …", "all_arrived": "{parts}: all arrived, summed at its step",
              "nothing_yet": "nothing received yet", "grad_pending": "grad …",
              "counter": "step {k} of {n}"}


def html_report(e) -> str:
    """The backward pass as one self-contained web page (style, script and drawing inline,
    nothing fetched): the graph drawn as SVG, the current node and the gradient it sends
    highlighted, the adjoint table filling in step by step; buttons and keys step through
    it, ``#step=3`` opens at step 3; without JavaScript, the whole walk."""
    return page.document(f"the backward pass of {_shortened(e.label, TITLE_LABEL)}",
                         _walk_html(e, page_mode=True, style=False))


def html_fragment(e) -> str:
    """The page's content as a block to embed (a notebook's output): its style scoped to
    it, its keys bound while it has the focus, the page's address left alone."""
    return _walk_html(e, page_mode=False, style=True)


def _walk_html(e, page_mode: bool, style: bool) -> str:
    root = "dc-walk-" + _page_key(e)
    headers = _walk_headers(e)
    walk = page.table(headers, list(_walk_rows(e)), row_attributes=[{"data-step": s.number} for s in e.steps],
                      column_classes=WALK_CELL_CLASSES, fills=FILLED_AS_THE_WALK_GOES)
    after = ["<h2>the gradient: the chain rule, made visible (autograd: the walk's result)</h2>",
             page.table(GRADIENT_HEADERS, list(_gradient_rows(e)))]
    after += [f'<p class="notes">note: {escape(note)}</p>' for note in e.notes]
    summary = None
    if e.checked:
        summary = (check_summary(e), "wrong" if e.first_wrong else "undecided" if e.unchecked else "ok")
    heading = _heading(e)[1:] + [f"at {_point(e)}"]
    if len(e.label) > TITLE_LABEL:          # the title shows its start; the whole of f under it
        heading.insert(0, f"f = {e.label}")
    return page.fragment(
        root, page_mode, title=f"the backward pass of {_shortened(e.label, TITLE_LABEL)}", heading=heading,
        summary=summary, drawing=drawing(e, root), cards=[_card(e, step) for step in e.steps],
        walk="<h2>the backward pass, one row per node in the order the engine runs them</h2>\n" + walk,
        after="\n".join(after), data=page_data(e), style=style,
        nojs_note="JavaScript is off: the whole walk is shown at once (with it, the page steps through it node by node).")


def _page_key(e) -> str:
    """A short key of the explanation's content and a count: two walks in one notebook get
    different ids."""
    digest = hashlib.sha1(f"{e.label}|{_point(e)}|{len(e.steps)}".encode()).hexdigest()[:8]
    return f"{digest}-{next(_PAGE_COUNTER)}"


_PAGE_COUNTER = itertools.count(1)


def _flat(v, digits=4, most=3) -> str:
    """A value for a box or an arrow: a number, or an array's first elements (its shape said apart)."""
    return values(None if v is None else np.ravel(np.asarray(v, dtype=np.float64)) if np.ndim(v) else v, digits, most)


def shape_text(v) -> str:
    """An array's shape as the page says it: '3', '2×3'; '' for a number."""
    return "×".join(map(str, np.shape(v)))


def _shortened(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def _grad_line(step) -> str:
    return f"grad {_flat(step.adjoint)}"


def _box_lines(step) -> list:
    lines = [(f"{step.number}  {step.name}", "head"), (_shortened(step.label, BOX_LABEL), "")]
    if np.ndim(step.value):
        lines.append((f"shape {shape_text(step.value)}", ""))
    lines += [(f"value {_flat(step.value)}", ""), (_grad_line(step), "grad")]
    if step.check == "wrong":
        lines.append((WRONG_MARK, "wrong-mark"))
    return lines


def drawing(e, root, caption=(), standalone: bool = False) -> str:
    """The backward graph laid out in layers from the output (render/svg.py) as SVG: the
    page's drawing, and ``graph``'s SVG where Graphviz is missing."""
    unchecked = {s.number for s in e.unchecked}
    boxes = []
    for step in e.steps:
        classes = " ".join(c for c, on in (("leaf", step.is_leaf), ("wrong", step.check == "wrong"),
                                           ("unchecked", step.number in unchecked)) if on)
        boxes.append(Box(step.number, _box_lines(step), classes, title=f"{step.name}: {step.label}",
                         attributes={"data-step": step.number}))
    arrows = [Arrow(step.number, edge.target, _flat(edge.sent), attributes={"data-from": step.number,
                                                                           "data-to": edge.target})
              for step in e.steps for edge in step.edges if edge.target is not None]
    return svg(layout(boxes, arrows), arrows, root, label=f"the backward graph of {e.label}", caption=caption,
               standalone=standalone)


def _card(e, step) -> str:
    """What happens at one step, in words and numbers."""
    value = values(step.value) + (f"  (shape {shape_text(step.value)})" if np.ndim(step.value) else "")
    rows = [("computes", step.label, ""), ("value", value, ""), ("gradient in (adjoint)", _adjoint_text(step), "")]
    if not step.is_leaf:
        rows.append(("local derivative", _local_text(step), ""))
    rows.append(("sends" if not step.is_leaf else "adds", _sends_text(step), "sends"))
    if e.checked:
        rows.append(("check", step.check + (f": {step.detail}" if step.detail else ""),
                     "check-wrong" if step.check == "wrong" else ""))
    return page.card(step.number, f"step {step.number} of {len(e.steps)}: {step.name}", _gist(e, step), rows)


def _gist(e, step) -> str:
    if step.adjoint is None:
        return f"{NO_GRADIENT_SAID}."
    if step.number == 1:
        seed = "1" if e.seed is None else "v"
        start = f"The walk starts at the output: backward() seeds it with {seed}. "
    else:
        start = ""
    if step.is_leaf:
        return (start + f"{step.label} is a leaf (requires_grad): the gradient reaching it is added to "
                        f"{step.label}.grad" + (f", summed over the {len(step.contributions)} uses of {step.label}."
                                                if len(step.contributions) > 1 else "."))
    summed = (f" It is used {len(step.contributions)} times: the gradients it receives are summed."
              if len(step.contributions) > 1 else "")
    return (start + f"{step.name} multiplies the gradient it receives by its local derivative and sends the "
                    f"product (a vector-Jacobian product) to each of its inputs.{summed}")


NO_GRADIENT_SAID = "No gradient reaches this node: nothing of the output depends on it through the walk"


def page_data(e) -> dict:
    """The step data the page's script reads (and a reader can check): each step's numbers
    as the explanation holds them and their texts as the page shows them."""
    arr = _listed
    return {"function": e.label, "point": {n: arr(e.point[n]) for n in e.variables}, "checked": e.checked,
            "first_wrong": None if e.first_wrong is None else e.first_wrong.number, "words": PAGE_WORDS,
            "steps": [{"step": s.number, "node": s.name, "computes": s.label, "leaf": s.is_leaf,
                       "shape": list(np.shape(s.value)), "value": arr(s.value), "adjoint": arr(s.adjoint),
                       "grad_box": _grad_line(s), "adjoint_text": _adjoint_text(s),
                       "received": [{"from": k, "value": arr(g), "text": _from_text(k, g)} for k, g in s.contributions],
                       "sends": [{"to": edge.target, "value": arr(edge.sent), "text": values(edge.sent)}
                                 for edge in s.edges if edge.target is not None],
                       "check": s.check or None} for s in e.steps]}


def latex_report(e) -> str:
    """A LaTeX fragment for a slide or a page: the walk as booktabs tables split by width,
    the step repeated beside each part (its node, what it computes, the value and the
    adjoint; then the local derivatives as mathematics and what each step sends), the
    prose wrapping in p{} columns."""
    headers = _walk_headers(e)
    rows = []
    for step, plain in zip(e.steps, _walk_rows(e)):
        row = list(plain)
        row[1] = Tex(r"\texttt{" + tex(step.name) + "}", len(step.name))
        row[5] = _local_cell(step)
        row[6] = _sends_cell(step)
        rows.append(row)
    out = latex_header(f"explain: {e.label}")
    out += [latex_prose(line) for line in _heading(e)] + [r"\smallskip"]
    out += latex_tables(headers, rows, key=("step",), left=headers[1:], wrap=WALK_PROSE,
                        first=("node", "computes", "value", "adjoint (incoming gradient)"))
    if e.checked:
        out += [r"\par\smallskip", latex_prose(check_summary(e))]
    return "\n".join(out) + "\n"


def _local_cell(step):
    """The local derivatives of a step, one formula per line of its cell."""
    lines = [(f"${breakable(edge.local_latex)}$", len(edge.local or "")) for edge in step.edges if edge.local_latex]
    if not lines:
        text = _local_text(step)
        return Tex(tex(text), len(text))
    return Tex(r" \newline ".join(line for line, _ in lines), max(w for _, w in lines))


def _sends_cell(step):
    """What a step sends to each input, one input per line of its cell."""
    if step.is_leaf or not any(edge.target is not None for edge in step.edges):
        text = _sends_text(step)
        return Tex(tex(text), len(text))
    lines = [(rf"$\to$ {edge.target}: {tex(values(edge.sent))}", len(f"→ {edge.target}: {values(edge.sent)}"))
             for edge in step.edges if edge.target is not None]
    return Tex(r" \newline ".join(line for line, _ in lines), max(w for _, w in lines))


def plain_tree(e, width: int | None = None) -> str:
    """The graph as indented text, output first (always available); with ``width``, a
    node's text wraps at words onto lines under it that keep the tree's rules."""
    return "\n".join(line for _, _, line in tree_lines(e, width)) + "\n"


def tree_lines(e, width: int | None = None):
    """The lines of :func:`plain_tree`, each as (its node's step, whether the node is
    repeated there, the line)."""
    open_levels = []
    for depth, step, repeated, last in tree_rows(e):
        del open_levels[max(depth - 1, 0):]
        prefix = "".join("    " if done else "│   " for done in open_levels)
        branch = ("└── " if last else "├── ") if depth else ""
        if depth:
            open_levels.append(last)
        grad = "" if repeated else f"  grad {values(step.adjoint)}" + check_mark(e, step)
        text = node_text(step, repeated) + grad
        lead = prefix + branch
        if width is None or len(lead) + len(text) <= width:
            yield step, repeated, lead + text
            continue
        under = prefix + ("    " if last or not depth else "│   ") + "  "
        parts = textwrap.wrap(text, max(16, width - len(under)), break_long_words=False)
        yield step, repeated, lead + parts[0]
        for part in parts[1:]:
            yield step, repeated, under + part

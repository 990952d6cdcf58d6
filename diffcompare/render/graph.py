"""The ``graph`` command's renderings of an explanation: the recorded graph alone as
Graphviz DOT text, or drawn (SVG, PNG) by the optional Graphviz, and the plain-text tree
(:func:`diffcompare.render.explain.plain_tree`) in colour; with --check the node whose
backward rule is wrong is red in each."""

from __future__ import annotations

from diffcompare.render import html
from diffcompare.render.common import latex_header, tex
from diffcompare.render.explain import WRONG_MARK, drawing, tree_lines, values
from diffcompare.version import install_hint


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


LEGEND = ("arrows point the way gradients flow, from the output to the leaves;",
          "an arrow's label is the gradient its node sends to that input (the vector-Jacobian product);",
          "value: the node's forward value; grad: the gradient it received;",
          "filled boxes: leaves (their grad is .grad); red: a backward rule found wrong")


# the legend's further line when --check ran
CHECKED_LEGEND = ("--check ran: a node in a dashed orange box could not be checked (a kink; no forward to replay)",)


def dot(e) -> str:
    """Graphviz DOT text of the backward graph: each node with its op, value and gradient,
    leaves as filled boxes, edges the way gradients flow (labelled with what is sent)."""
    legend = LEGEND + (CHECKED_LEGEND if e.checked else ())
    out = ["digraph backward {", '  rankdir="TB";',
           '  label="' + "\\l".join(legend) + '\\l";', '  labelloc="b";', '  labeljust="l";', '  fontname="Helvetica";', "  fontsize=10;",
           '  node [shape=box, style="rounded", fontname="Helvetica", fontsize=11];',
           '  edge [fontname="Helvetica", fontsize=9];']
    for step in e.steps:
        text = f"{step.name}\\n{step.label}\\nvalue {values(step.value)}\\ngrad {values(step.adjoint)}"
        extra = ', style="filled", fillcolor="lightblue"' if step.is_leaf else ""
        if step.check == "wrong":
            text += f"\\n{WRONG_MARK}"
            extra += ', color="red", fontcolor="red", penwidth=2'
        elif e.checked and any(s is step for s in e.unchecked):
            extra += ', color="orange", penwidth=2, style="rounded,dashed"'
        label = '"' + text.replace('"', '\\"') + '"'
        out.append(f"  n{step.number} [label={label}{extra}];")
    for step in e.steps:
        for edge in step.edges:
            if edge.target is not None:
                out.append(f"  n{step.number} -> n{edge.target} [label={_dot_quote(values(edge.sent, 4))}];")
    out.append("}")
    return "\n".join(out) + "\n"


def draw(e, format: str):
    """(the drawing as bytes, None), or (None, why not) when Graphviz is missing."""
    try:
        import graphviz
    except ImportError:
        return None, f'the graphviz Python package is not installed ({install_hint("graph")})'
    try:
        return graphviz.Source(dot(e)).pipe(format=format), None
    except graphviz.ExecutableNotFound:
        return None, "Graphviz's dot program is not on PATH (install graphviz with your system's package manager)"
    except Exception as error:          # a Graphviz failure is reported, never a traceback
        return None, f"Graphviz failed: {type(error).__name__}: {error}"



def print_tree(e, console, width: int | None = None) -> None:
    """The graph as indented text (:func:`~diffcompare.render.explain.plain_tree`) on a rich
    console, the node whose backward rule --check found wrong in red."""
    from rich.text import Text

    for step, repeated, line in tree_lines(e, width):
        console.print(Text(line, style="bold red" if step.check == "wrong" and not repeated else ""), soft_wrap=True)


OWN_DRAWING = "drawn by diffcompare's own layout instead"


def own_svg(e) -> str:
    """The graph as an SVG file without Graphviz: the explain page's drawing (layers from the
    output, render/svg.py) with the legend under it."""
    legend = LEGEND + (CHECKED_LEGEND if e.checked else ())
    return drawing(e, "graph", caption=legend, standalone=True) + "\n"


def html_report(e) -> str:
    """The graph as an HTML fragment for a notebook or a page: the drawing (no Graphviz
    needed) under what f is."""
    legend = LEGEND + (CHECKED_LEGEND if e.checked else ())
    return html.fragment([html.heading(f"the backward graph of f = {e.label}"),
                          html.figure(drawing(e, "graph", caption=legend))])


# -- the graph in TikZ, for a slide or a page (LaTeX without Graphviz) ----------------------

NODE_SPACING = (3.2, 1.5)   # cm between layers, between the nodes of a layer
TT_CHARACTER_CM = {r"\scriptsize": 0.13, r"\tiny": 0.095}   # the width of a typewriter character
SLIDE = (13.6, 6.2)         # cm a 16:9 beamer frame's body holds


def graph_layout(e) -> dict:
    """Step number -> (column, row): a step's column is its longest distance from f's
    output (step 1, drawn rightmost), so every edge runs left to right as the forward pass does."""
    depth = {1: 0}
    for step in e.steps:                       # the walk's order is topological from the output
        for target in step.inputs:
            depth[target] = max(depth.get(target, 0), depth.get(step.number, 0) + 1)
    deepest = max(depth.values())
    rows: dict = {}
    out = {}
    for step in e.steps:
        column = 0 if step.is_leaf else deepest - depth.get(step.number, 0)     # the inputs at the left
        out[step.number] = (column, rows.get(column, 0))
        rows[column] = rows.get(column, 0) + 1
    return out


def tikz(e, room=SLIDE) -> str:
    """The backward graph as a TikZ picture laid out for ``room`` (cm wide, high): inputs at
    the left, the output at the right; a wrong backward rule (``--check``) drawn red. Needs
    \\usepackage{tikz}."""
    place = graph_layout(e)
    columns = max(c for c, _ in place.values()) + 1
    tallest = max(r for _, r in place.values()) + 1
    dx = min(NODE_SPACING[0], room[0] / columns)
    dy = min(NODE_SPACING[1], room[1] / tallest)
    font = r"\scriptsize" if dx >= 2.6 and dy >= 1.2 else r"\tiny"
    # nodes at their natural width (a long label cannot break): the layers as far apart as
    # the widest node needs; the picture as a whole is shrunk to the line where it is wider
    widest = max(max(len(step.name) + 3, len(_short(step.label, 22))) for step in e.steps)
    dx = max(dx, widest * TT_CHARACTER_CM[font] + 0.4)
    lines = [r"\begin{tikzpicture}[every node/.style={draw, rounded corners, align=center, inner sep=2pt,"
             rf" font={font}, fill=blue!5}}, >=stealth]"]
    for step in e.steps:
        column, row = place[step.number]
        y = (tallest - 1) / 2 * dy - row * dy
        wrong = ", draw=red, very thick, fill=red!8" if step.check == "wrong" else ""
        lines.append(rf"\node[{wrong.lstrip(', ')}] (n{step.number}) at ({column * dx:.2f},{y:.2f}) "
                     rf"{{\textbf{{{step.number}}} \texttt{{{tex(step.name)}}}\\{tex(_short(step.label, 22))}}};")
    for step in e.steps:
        for target in step.inputs:
            lines.append(rf"\draw[->] (n{target}) -- (n{step.number});")
    lines.append(r"\end{tikzpicture}")
    return "\n".join(lines)


def latex_report(e) -> str:
    """The graph as a LaTeX fragment: the TikZ picture, shrunk to the line where it is wider."""
    return "\n".join([*latex_header(f"graph: {e.label}"), r"% and \usepackage{tikz} (the picture), \usepackage{graphicx}",
                       r"\noindent\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
                       tikz(e), "}", ""])


def _short(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"

"""The ``graph`` command's renderings of an explanation: the recorded graph alone as
Graphviz DOT text, or drawn (SVG, PNG) by the optional Graphviz (the plain-text tree is
:func:`diffcompare.render.explain.plain_tree`)."""

from __future__ import annotations

from html import escape

from diffcompare.render import html
from diffcompare.render.explain import values
from diffcompare.version import install_hint


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


LEGEND = ("arrows point the way gradients flow, from the output to the leaves;",
          "an arrow's label is the gradient its node sends to that input (the vector-Jacobian product);",
          "value: the node's forward value; grad: the gradient it received;",
          "filled boxes: leaves (their grad is .grad); red: a backward rule found wrong")


def dot(e) -> str:
    """Graphviz DOT text of the backward graph: each node with its op, value and gradient,
    leaves as filled boxes, edges the way gradients flow (labelled with what is sent)."""
    out = ["digraph backward {", '  rankdir="TB";',
           '  label="' + "\\l".join(LEGEND) + '\\l";', '  labelloc="b";', '  labeljust="l";', '  fontname="Helvetica";', "  fontsize=10;",
           '  node [shape=box, style="rounded", fontname="Helvetica", fontsize=11];',
           '  edge [fontname="Helvetica", fontsize=9];']
    for step in e.steps:
        text = f"{step.name}\\n{step.label}\\nvalue {values(step.value)}\\ngrad {values(step.adjoint)}"
        extra = ', style="filled", fillcolor="lightblue"' if step.is_leaf else ""
        if step.check == "wrong":
            extra += ', color="red", penwidth=2'
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



# -- the graph drawn as inline SVG, without Graphviz (a notebook cell, an HTML page) -------------------------

NODE_LINE = 14          # pixels per line of a node's box
LAYER_GAP = 54          # vertical room between layers, for the edges' labels
NODE_GAP = 24
CHARACTER = 6.6         # the width of a character at 11 px, near enough


def _layers(e) -> dict:
    """step number -> its layer: the longest path from the output (step 1), so that every
    arrow points down."""
    layer = {1: 0}
    for step in e.steps:                # walk order: a node comes after everything that feeds it
        for target in step.inputs:
            layer[target] = max(layer.get(target, 0), layer.get(step.number, 0) + 1)
    return layer


def _ordered_layers(e) -> list:
    """The steps layer by layer, each layer ordered by where the nodes feeding it stand (the
    mean position of a node's consumers above), which uncrosses most arrows."""
    layer = _layers(e)
    rows = [[] for _ in range(max(layer.values()) + 1)]
    for step in e.steps:
        rows[layer.get(step.number, 0)].append(step)
    consumers = {}
    for step in e.steps:
        for target in step.inputs:
            consumers.setdefault(target, []).append(step.number)
    position = {}
    for row in rows:
        row.sort(key=lambda s: sum(position.get(c, 0) for c in consumers.get(s.number, [])) /
                 max(1, len(consumers.get(s.number, []))))
        position.update({s.number: k for k, s in enumerate(row)})
    return rows


def _node_lines(step) -> list:
    return [step.name, _short(step.label, 34), f"value {values(step.value)}", f"grad {values(step.adjoint)}"]


def _short(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def svg(e) -> str:
    """The backward graph drawn as SVG markup, layer by layer from the output down: each
    node's op, what it computes, its value and gradient; leaves filled; a node whose backward
    rule was found wrong outlined in red; each arrow labelled with what it sends."""
    rows = _ordered_layers(e)
    box_w = max(120, min(280, int(CHARACTER * max(len(t) for s in e.steps for t in _node_lines(s))) + 16))
    box_h = 4 * NODE_LINE + 8
    widest = max(len(r) for r in rows)
    width = max(widest * (box_w + NODE_GAP) + NODE_GAP, CHARACTER * max(len(line) for line in LEGEND) + 24)
    legend_top = len(rows) * (box_h + LAYER_GAP) + 10
    height = legend_top + NODE_LINE * len(LEGEND) + 10
    where = {}
    for depth, steps in enumerate(rows):
        start = (width - len(steps) * (box_w + NODE_GAP) + NODE_GAP) / 2
        for k, step in enumerate(steps):
            where[step.number] = (start + k * (box_w + NODE_GAP), 10 + depth * (box_h + LAYER_GAP))
    arrivals = {}           # step number -> the edges arriving at it, left to right by where they come from
    for step in e.steps:
        for edge in step.edges:
            if edge.target in where:
                arrivals.setdefault(edge.target, []).append((where[step.number][0], step.number, id(edge)))
    for incoming in arrivals.values():
        incoming.sort()
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" font-family="Helvetica, Arial, sans-serif" font-size="11">',
           f"<title>{escape('backward graph of ' + e.label)}</title>",
           '<defs><marker id="dc-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
           'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#57606a"/></marker></defs>']
    labels = []         # drawn last, over the boxes an arrow passes under
    for step in e.steps:
        x, y = where[step.number]
        leaving = sorted((edge for edge in step.edges if edge.target in where), key=lambda g: where[g.target][0])
        for k, edge in enumerate(leaving):          # edges leave and arrive spread along a box's side
            tx, ty = where[edge.target]
            incoming = arrivals[edge.target]
            j = incoming.index((x, step.number, id(edge)))
            x1, y1 = x + box_w * (k + 1) / (len(leaving) + 1), y + box_h
            x2, y2 = tx + box_w * (j + 1) / (len(incoming) + 1), ty
            out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="#57606a" '
                       'marker-end="url(#dc-arrow)"/>')
            labels.append(f'<text x="{x1 + 0.6 * (x2 - x1) + 4:.1f}" y="{y1 + 0.6 * (y2 - y1) + 4:.1f}" fill="#57606a">'
                       f"{escape(values(edge.sent, 4))}</text>")
    for step in e.steps:
        x, y = where[step.number]
        fill = "#d6ecff" if step.is_leaf else "white"
        stroke = ' stroke="#cf222e" stroke-width="2.5"' if step.check == "wrong" else ' stroke="#57606a"'
        out.append(f'<g><title>{escape(f"step {step.number}: {step.name} {step.label}")}</title>'
                   f'<rect x="{x:.1f}" y="{y:.1f}" width="{box_w}" height="{box_h}" rx="6" fill="{fill}"{stroke}/>')
        for k, text in enumerate(_node_lines(step)):
            weight = ' font-weight="bold"' if k == 0 else ""
            out.append(f'<text x="{x + 8:.1f}" y="{y + 4 + NODE_LINE * (k + 1) - 3:.1f}"{weight}>{escape(text)}</text>')
        out.append("</g>")
    out += labels
    for k, line in enumerate(LEGEND):
        out.append(f'<text x="8" y="{legend_top + NODE_LINE * (k + 1):.0f}" fill="#57606a">{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def html_report(e) -> str:
    """The graph as an HTML fragment: the drawing (no Graphviz needed), under what f is."""
    return html.fragment([html.heading(f"the backward graph of f = {e.label}"), html.figure(svg(e))])

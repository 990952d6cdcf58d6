"""A directed graph laid out in layers and drawn as SVG, in Python alone (no Graphviz):
the backward graph of the explain page. Each node sits one layer below the lowest of the
nodes that point at it (the output on top, the leaves below everything that uses them);
an arrow that skips layers passes each of them at a via, a narrow place of its own in the
layer's order, so that it goes around the boxes, not through them. Within a layer, boxes
and vias are ordered by the mean position of their neighbours (sweeps down and up), which
keeps arrows from crossing in the small graphs of a lecture (Sugiyama's layered drawing,
its simplest form).

>>> boxes = [Box(1, [("out", "")]), Box(2, [("a", "")]), Box(3, [("b", "")])]
>>> [b.layer for b in layout(boxes, [Arrow(1, 2, ""), Arrow(2, 3, ""), Arrow(1, 3, "")])]
[0, 1, 2]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from html import escape

CHAR_WIDTH = 7.4        # a 12 px monospace character, generously (DejaVu Sans Mono, Menlo: 7.2)
LABEL_CHAR_WIDTH = 6.8  # an 11 px one
LINE_HEIGHT = 16
PADDING = 8
NODE_GAP = 28           # between the boxes of a layer
LAYER_GAP = 64          # between layers: room for the arrows' labels
MARGIN = 12
SWEEPS = 8
VIA_WIDTH = 10          # the room a long arrow takes where it passes a layer
CAPTION_LINE = 15

# the drawing's look, scoped to it: the page adds the look of the steps
DRAWING_STYLE = """
.graph-drawing { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
.graph-drawing .node rect { fill: #f6f8fa; stroke: #57606a; stroke-width: 1.2; }
.graph-drawing .node.leaf rect { fill: #dbeafe; }
.graph-drawing .node text { fill: #1f2328; }
.graph-drawing .node tspan.head { font-weight: 700; }
.graph-drawing .node tspan.grad { fill: #0550ae; }
.graph-drawing .node tspan.wrong-mark { fill: #cf222e; font-weight: 700; }
.graph-drawing .node.wrong rect { stroke: #cf222e; stroke-width: 3; }
.graph-drawing .node.unchecked rect { stroke: #d97706; stroke-width: 2; stroke-dasharray: 5 3; }
.graph-drawing .edge path { fill: none; stroke: #6e7781; stroke-width: 1.3; }
.graph-drawing .edge-label rect { fill: #ffffff; fill-opacity: .9; }
.graph-drawing .edge-label text { font-size: 11px; fill: #24292f; }
.graph-drawing .head-arrow path { fill: #6e7781; }
.graph-drawing .caption { font-family: system-ui, sans-serif; font-size: 11px; fill: #57606a; }
"""


@dataclass
class Box:
    """A node: its key, its lines of text as (text, CSS class), the classes of its group,
    a tooltip and further attributes of its group (data-*)."""
    key: int
    lines: list
    classes: str = ""
    title: str = ""
    attributes: dict = field(default_factory=dict)
    layer: int = 0
    x: float = 0.0          # the box's left edge
    y: float = 0.0          # its top edge

    @property
    def width(self) -> float:
        return max(len(text) for text, _ in self.lines) * CHAR_WIDTH + 2 * PADDING

    @property
    def height(self) -> float:
        return len(self.lines) * LINE_HEIGHT + 2 * PADDING - 4


@dataclass
class Arrow:
    """An edge from ``source`` to ``target`` (keys of boxes) with its label; ``vias``:
    where it passes the layers between them (set by :func:`layout`)."""
    source: int
    target: int
    label: str
    classes: str = ""
    attributes: dict = field(default_factory=dict)
    vias: list = field(default_factory=list)


@dataclass
class Via:
    """Where a long arrow passes a layer: a narrow place in the layer's order (as wide as
    the arrow's label in the first layer it passes, which holds the label)."""
    key: tuple
    width: float
    layer: int
    x: float = 0.0
    y: float = 0.0
    height: float = 0.0     # the layer's height, set when placed


def layout(boxes: list, arrows: list) -> list:
    """The boxes placed (their layer, x and y set) and the arrows' vias; returns the boxes."""
    nodes = {b.key: b for b in boxes}
    parents = {b.key: [] for b in boxes}
    children = {b.key: [] for b in boxes}
    for a in arrows:
        parents[a.target].append(a.source)
        children[a.source].append(a.target)
    for key in _topological(boxes, children, parents):
        for child in children[key]:
            nodes[child].layer = max(nodes[child].layer, nodes[key].layer + 1)
    parents = {b.key: [] for b in boxes}
    children = {b.key: [] for b in boxes}
    for index, a in enumerate(arrows):
        a.vias, previous = [], a.source
        for layer in range(nodes[a.source].layer + 1, nodes[a.target].layer):
            width = _label_width(a.label) if not a.vias else VIA_WIDTH
            via = Via(("via", index, layer), width, layer)
            nodes[via.key], parents[via.key], children[via.key] = via, [], []
            a.vias.append(via)
            children[previous].append(via.key)
            parents[via.key].append(previous)
            previous = via.key
        children[previous].append(a.target)
        parents[a.target].append(previous)
    layers = [[] for _ in range(max((b.layer for b in boxes), default=-1) + 1)]
    for node in nodes.values():
        layers[node.layer].append(node.key)
    _order(layers, parents, children)
    _place(layers, nodes)
    return boxes


def _label_width(label: str) -> float:
    return len(label) * LABEL_CHAR_WIDTH + 6


def _topological(boxes, children, parents) -> list:
    """The keys, every node after all the nodes pointing at it (Kahn's algorithm)."""
    waiting = {b.key: len(set(parents[b.key])) for b in boxes}
    ready = [b.key for b in boxes if not waiting[b.key]]
    order = []
    while ready:
        key = ready.pop(0)
        order.append(key)
        for child in dict.fromkeys(children[key]):
            waiting[child] -= 1
            if not waiting[child]:
                ready.append(child)
    return order


def _order(layers, parents, children) -> None:
    """Each layer reordered by the mean index of its neighbours in the layer above, then
    in the layer below, a few times over."""
    for sweep in range(SWEEPS):
        downward = sweep % 2 == 0
        indices = range(1, len(layers)) if downward else range(len(layers) - 2, -1, -1)
        for i in indices:
            neighbour = layers[i - 1] if downward else layers[i + 1]
            where = {key: k for k, key in enumerate(neighbour)}
            links = parents if downward else children
            here = {key: k for k, key in enumerate(layers[i])}

            def centre(key):
                linked = [where[n] for n in links[key] if n in where]
                return (sum(linked) / len(linked) if linked else here[key], here[key])
            layers[i].sort(key=centre)


def _place(layers, nodes) -> None:
    """x and y of every box and via: layers stacked from the top, each centred on the widest."""
    widths = [sum(nodes[k].width for k in layer) + NODE_GAP * (len(layer) - 1) for layer in layers]
    widest = max(widths, default=0.0)
    y = MARGIN
    for layer, width in zip(layers, widths):
        x = MARGIN + (widest - width) / 2
        height = max(nodes[k].height for k in layer)
        for key in layer:
            node = nodes[key]
            node.x, node.y = x, y
            if isinstance(node, Via):
                node.height = height
            x += node.width + NODE_GAP
        y += height + LAYER_GAP


def svg(boxes: list, arrows: list, prefix: str, label: str = "", caption=(), standalone: bool = False) -> str:
    """The laid-out graph as an SVG element; element ids start with ``prefix`` (unique
    on the page), the arrowheads are the markers ``{prefix}-arrow`` and ``{prefix}-hot``.
    ``caption``: lines written under the drawing; ``standalone``: an SVG file of its own
    (its namespace and :data:`DRAWING_STYLE` inside), not an element of a page."""
    by_key = {b.key: b for b in boxes}
    drawn, (left, right) = _arrows(arrows, by_key, prefix)
    left = min([left] + [b.x for b in boxes]) - MARGIN
    right = max([right] + [b.x + b.width for b in boxes]
                + [left + MARGIN + len(line) * LABEL_CHAR_WIDTH for line in caption])
    width = right + MARGIN - left
    bottom = max((b.y + b.height for b in boxes), default=0.0) + MARGIN
    height = bottom + CAPTION_LINE * len(caption) + (MARGIN if caption else 0)
    namespace = ' xmlns="http://www.w3.org/2000/svg"' if standalone else ""
    out = [f'<svg{namespace} class="graph-drawing" width="{width:.0f}" height="{height:.0f}" '
           f'viewBox="{left:.0f} 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(label)}">']
    if standalone:
        out.append(f"<style>{DRAWING_STYLE}</style>")
    out += [f'<text class="caption" x="{left + MARGIN:.1f}" y="{bottom + CAPTION_LINE * (k + 1) - 3:.1f}">'
            f"{escape(line)}</text>" for k, line in enumerate(caption)]
    out.append("<defs>")
    for name in ("arrow", "hot"):
        out.append(f'<marker id="{prefix}-{name}" class="head-{name}" viewBox="0 0 10 10" refX="9" refY="5" '
                   f'markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker>')
    out.append("</defs>")
    out += drawn
    out += [_box(b, prefix) for b in boxes]
    out.append("</svg>")
    return "\n".join(out)


def _attributes(attributes: dict) -> str:
    return "".join(f' {name}="{escape(str(value))}"' for name, value in attributes.items())


def _box(b, prefix) -> str:
    lines = "".join(f'<tspan x="{b.x + PADDING:.1f}" y="{b.y + PADDING + 12 + k * LINE_HEIGHT:.1f}"'
                    f'{f" class={chr(34)}{cls}{chr(34)}" if cls else ""}>{escape(text)}</tspan>'
                    for k, (text, cls) in enumerate(b.lines))
    title = f"<title>{escape(b.title)}</title>" if b.title else ""
    return (f'<g class="node {b.classes}" id="{prefix}-n{b.key}"{_attributes(b.attributes)}>{title}'
            f'<rect x="{b.x:.1f}" y="{b.y:.1f}" width="{b.width:.1f}" height="{b.height:.1f}" rx="6" ry="6"/>'
            f'<text>{lines}</text></g>')


def _arrows(arrows, by_key, prefix) -> list:
    """Each arrow from the bottom of its source to the top of its target, cubic curves
    through its vias; arrows between the same two boxes spread apart; the label in the
    middle of the gap, or, for a long arrow, at its first via. Returns (the elements,
    (the least x, the greatest x) drawn)."""
    pairs = {}
    extent = [math.inf, -math.inf]
    for a in arrows:
        pairs.setdefault((a.source, a.target), []).append(a)
    out = []
    for (source, target), group in pairs.items():
        s, t = by_key[source], by_key[target]
        for k, a in enumerate(group):
            spread = (k - (len(group) - 1) / 2) * 18 if not a.vias else 0.0
            points = [(s.x + s.width / 2 + spread, s.y + s.height)]
            for via in a.vias:
                points += [(via.x + via.width / 2, via.y), (via.x + via.width / 2, via.y + via.height)]
            points.append((t.x + t.width / 2 + spread, t.y - 1))
            if a.vias:
                first = a.vias[0]
                middle_x, middle_y = first.x + first.width / 2, first.y + first.height / 2
            else:
                middle_x, middle_y = (points[0][0] + points[-1][0]) / 2 + spread * 2.5, (points[0][1] + points[-1][1]) / 2
            width = _label_width(a.label)
            extent[0] = min([extent[0], middle_x - width / 2] + [x for x, _ in points])
            extent[1] = max([extent[1], middle_x + width / 2] + [x for x, _ in points])
            out.append(
                f'<g class="edge {a.classes}"{_attributes(a.attributes)}>'
                f'<path d="{_path(points)}" marker-end="url(#{prefix}-arrow)"/>'
                f'<g class="edge-label"><rect x="{middle_x - width / 2:.1f}" y="{middle_y - 8:.1f}" '
                f'width="{width:.1f}" height="15" rx="3"/>'
                f'<text x="{middle_x:.1f}" y="{middle_y + 3.5:.1f}" text-anchor="middle">{escape(a.label)}</text></g></g>')
    return out, tuple(extent)


def _path(points) -> str:
    """An SVG path down through ``points``: (start, [enter, leave] per via, end); a cubic
    curve across each gap between layers, a straight line through each via."""
    (x, y), rest = points[0], points[1:]
    out = [f"M{x:.1f},{y:.1f}"]
    for k in range(0, len(rest), 2):
        (x2, y2) = rest[k]
        bend = max(12.0, (y2 - y) / 2)
        out.append(f"C{x:.1f},{y + bend:.1f} {x2:.1f},{y2 - bend:.1f} {x2:.1f},{y2:.1f}")
        if k + 1 < len(rest):
            x, y = rest[k + 1]
            out.append(f"L{x:.1f},{y:.1f}")
    return " ".join(out)

"""A directed graph laid out in layers and drawn as SVG, in Python alone (no Graphviz):
the backward graph of the explain page. Each node sits one layer below the lowest of the
nodes that point at it (the output on top, the leaves below everything that uses them);
within a layer, nodes are ordered by the mean position of their neighbours (a few sweeps
down and up), which keeps edges from crossing in the small graphs of a lecture.

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
SWEEPS = 4
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
    """An edge from ``source`` to ``target`` (keys of boxes) with its label."""
    source: int
    target: int
    label: str
    classes: str = ""
    attributes: dict = field(default_factory=dict)


def layout(boxes: list, arrows: list) -> list:
    """The boxes placed (their layer, x and y set), top layer first; returns them."""
    by_key = {b.key: b for b in boxes}
    parents = {b.key: [] for b in boxes}
    children = {b.key: [] for b in boxes}
    for a in arrows:
        parents[a.target].append(a.source)
        children[a.source].append(a.target)
    for key in _topological(boxes, children, parents):
        for child in children[key]:
            by_key[child].layer = max(by_key[child].layer, by_key[key].layer + 1)
    layers = [[] for _ in range(max((b.layer for b in boxes), default=-1) + 1)]
    for b in boxes:
        layers[b.layer].append(b.key)
    _order(layers, parents, children)
    _place(layers, by_key)
    return boxes


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


def _place(layers, by_key) -> None:
    """x and y of every box: layers stacked from the top, each centred on the widest."""
    widths = [sum(by_key[k].width for k in layer) + NODE_GAP * (len(layer) - 1) for layer in layers]
    widest = max(widths, default=0.0)
    y = MARGIN
    for layer, width in zip(layers, widths):
        x = MARGIN + (widest - width) / 2
        for key in layer:
            box = by_key[key]
            box.x, box.y = x, y
            x += box.width + NODE_GAP
        y += max(by_key[k].height for k in layer) + LAYER_GAP


def svg(boxes: list, arrows: list, prefix: str, label: str = "", caption=(), standalone: bool = False) -> str:
    """The laid-out graph as an SVG element; element ids start with ``prefix`` (unique
    on the page), the arrowheads are the markers ``{prefix}-arrow`` and ``{prefix}-hot``.
    ``caption``: lines written under the drawing; ``standalone``: an SVG file of its own
    (its namespace and :data:`DRAWING_STYLE` inside), not an element of a page."""
    by_key = {b.key: b for b in boxes}
    drawn, (left, right) = _arrows(arrows, by_key, prefix)
    left = min([left] + [b.x for b in boxes]) - MARGIN
    width = max([right] + [b.x + b.width for b in boxes] + [left + len(line) * LABEL_CHAR_WIDTH for line in caption])
    width += MARGIN - left
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
    """Each arrow from the bottom of its source to the top of its target, a cubic curve
    (around the boxes of the layers it passes); arrows between the same two boxes spread
    apart, labels at their middles. Returns (the elements, (the least x, the greatest x) drawn)."""
    pairs = {}
    extent = [math.inf, -math.inf]
    for a in arrows:
        pairs.setdefault((a.source, a.target), []).append(a)
    out, layers = [], {}
    for b in by_key.values():
        layers.setdefault(b.layer, []).append(b)
    for (source, target), group in pairs.items():
        s, t = by_key[source], by_key[target]
        between = [b for layer in range(s.layer + 1, t.layer) for b in layers[layer]]
        for k, a in enumerate(group):
            spread = (k - (len(group) - 1) / 2) * 18
            x1, y1 = s.x + s.width / 2 + spread, s.y + s.height
            x2, y2 = t.x + t.width / 2 + spread, t.y - 1
            path, (middle_x, middle_y), side = _route(x1, y1, x2, y2, between, spread)
            label_width = len(a.label) * LABEL_CHAR_WIDTH + 6
            if side is not None:            # a detour's label goes beside it, away from the boxes
                outward = -1 if side < min(b.x for b in between) else 1
                middle_x = side + outward * (label_width / 2 + 4)
            else:
                side = x1
            extent[0] = min(extent[0], x1, x2, middle_x - label_width / 2 - 4, side)
            extent[1] = max(extent[1], x1, x2, middle_x + label_width / 2 + 4, side)
            out.append(
                f'<g class="edge {a.classes}"{_attributes(a.attributes)}>'
                f'<path d="{path}" marker-end="url(#{prefix}-arrow)"/>'
                f'<g class="edge-label"><rect x="{middle_x - label_width / 2:.1f}" y="{middle_y - 8:.1f}" '
                f'width="{label_width:.1f}" height="15" rx="3"/>'
                f'<text x="{middle_x:.1f}" y="{middle_y + 3.5:.1f}" text-anchor="middle">{escape(a.label)}</text></g></g>')
    return out, tuple(extent)


def _route(x1, y1, x2, y2, between, spread):
    """(an SVG path from (x1, y1) down to (x2, y2), where its label goes, the x of its
    detour or None): a curve, or, when boxes of the layers between stand in the way, a
    curve out to the side clear of them, down past them, and back."""
    bend = max(24.0, (y2 - y1) / 2)
    middle = ((x1 + x2) / 2 + spread * 2.5, (y1 + y2) / 2)
    straight = f"M{x1:.1f},{y1:.1f} C{x1:.1f},{y1 + bend:.1f} {x2:.1f},{y2 - bend:.1f} {x2:.1f},{y2:.1f}"
    top = min((b.y for b in between), default=y2)
    bottom = max((b.y + b.height for b in between), default=y1)

    def blocked(x):
        return any(b.x - 6 <= x <= b.x + b.width + 6 for b in between)
    if not between or not any(blocked(x1 + (x2 - x1) * f) for f in (0.25, 0.5, 0.75)):
        return straight, middle, None
    left = min(b.x for b in between) - 20 - abs(spread)
    right = max(b.x + b.width for b in between) + 20 + abs(spread)
    side = left if abs(left - (x1 + x2) / 2) < abs(right - (x1 + x2) / 2) else right
    gap = min(24.0, (top - y1) / 2)
    path = (f"M{x1:.1f},{y1:.1f} C{x1:.1f},{y1 + gap:.1f} {side:.1f},{top - 2 * gap:.1f} {side:.1f},{top:.1f} "
            f"L{side:.1f},{bottom:.1f} C{side:.1f},{bottom + 2 * gap:.1f} {x2:.1f},{y2 - gap:.1f} {x2:.1f},{y2:.1f}")
    return path, (side, (top + bottom) / 2), side

"""The backward walk as a web page a student steps through: one self-contained HTML
document (or a fragment for a notebook) with its style and script inline and nothing
fetched from the network. This module holds the page's frame, style and script; what it
shows (the texts, the drawing, the step data) comes from :mod:`diffcompare.render.explain`.

The script marks the current node, the arrows it sends along and the rows of the
adjoint table filled so far; buttons and keys (→/n next, ←/p previous, Home first, End
last) move through the steps, and ``page.html#step=3`` opens at step 3. Without
JavaScript the page shows the whole walk: the drawing with every gradient and the full
table.
"""

from __future__ import annotations

import json
import math
from html import escape

from diffcompare.render.svg import DRAWING_STYLE

STYLE = DRAWING_STYLE + """
.dc-walk { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
  max-width: 1500px; }
.dc-walk:focus { outline: none; }
.dc-walk h1 { font-size: 20px; margin: 0 0 4px; }
.dc-walk h2 { font-size: 15px; margin: 18px 0 6px; }
.dc-walk .mono, .dc-walk td, .dc-walk .card dd { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace;
  font-size: 12.5px; }
.dc-walk .heading p { margin: 2px 0; overflow-wrap: anywhere; }
.dc-walk .summary { margin: 8px 0; padding: 6px 10px; border-radius: 6px; border: 1px solid; }
.dc-walk .summary.ok { background: #e9f7ef; border-color: #8fd19e; }
.dc-walk .summary.wrong { background: #fdecea; border-color: #e5534b; color: #a40e26; font-weight: 600; }
.dc-walk .summary.undecided { background: #fff8e1; border-color: #e0b000; }
.dc-walk .dc-controls { display: flex; align-items: center; gap: 6px; margin: 10px 0; flex-wrap: wrap; }
.dc-walk .dc-controls button { font: inherit; padding: 4px 12px; border: 1px solid #8c959f; border-radius: 6px;
  background: #f6f8fa; cursor: pointer; }
.dc-walk .dc-controls button:hover:not(:disabled) { background: #eaeef2; }
.dc-walk .dc-controls button:disabled { color: #8c959f; cursor: default; }
.dc-walk .dc-counter { margin-left: 8px; font-weight: 600; }
.dc-walk .keys { color: #57606a; font-size: 12px; margin-left: 8px; }
.dc-walk .nojs-note { color: #57606a; font-size: 13px; }
.dc-walk.js .nojs-note, .dc-walk:not(.js) .dc-controls, .dc-walk:not(.js) .dc-cards { display: none; }
.dc-walk .top { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
.dc-walk .graph { flex: 1 1 480px; min-width: 0; overflow: auto; max-height: 78vh; border: 1px solid #d0d7de;
  border-radius: 6px; background: #ffffff; }
.dc-walk .graph svg { display: block; margin: 0 auto; }
.dc-walk .dc-cards { flex: 0 1 430px; min-width: 300px; }
.dc-walk .card { border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 14px; background: #fffdf5; }
.dc-walk .card h3 { margin: 0 0 6px; font-size: 15px; }
.dc-walk .card p { margin: 0 0 8px; }
.dc-walk .card dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 4px 10px; }
.dc-walk .card dt { color: #57606a; font-size: 13px; }
.dc-walk .card dd { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.dc-walk .card dd.sends { color: #b45309; font-weight: 600; }
.dc-walk .card dd.check-wrong { color: #a40e26; font-weight: 600; }
.dc-walk table { border-collapse: collapse; margin: 4px 0 8px; }
.dc-walk th { font-size: 12.5px; text-align: left; background: #f6f8fa; }
.dc-walk th, .dc-walk td { border: 1px solid #d0d7de; padding: 3px 7px; vertical-align: top; }
.dc-walk td { white-space: pre-wrap; }
.dc-walk td.number { text-align: right; }
.dc-walk tr.current td { background: #fff3c4; }
.dc-walk tr.future td { color: #8c959f; }
.dc-walk .partial { display: none; font-style: italic; }
.dc-walk tr.future .partial { display: inline; }
.dc-walk tr.future td.fills .full { display: none; }
.dc-walk td.check-wrong { color: #a40e26; font-weight: 600; }
.dc-walk .node rect { transition: fill .2s, stroke .2s; }
.dc-walk .node.future text { fill: #8c959f; }
.dc-walk .node.future rect { fill: #ffffff; stroke: #afb8c1; }
.dc-walk .node.current rect { fill: #fff3c4; stroke: #d97706; stroke-width: 3; }
.dc-walk .node.wrong rect { stroke: #cf222e; stroke-width: 3; }
.dc-walk .edge.future path { stroke: #d0d7de; stroke-dasharray: 4 3; }
.dc-walk .edge.future .edge-label { visibility: hidden; }
.dc-walk .edge.current path { stroke: #d97706; stroke-width: 3; }
.dc-walk .edge.current .edge-label rect { fill: #fff3c4; fill-opacity: 1; stroke: #d97706; }
.dc-walk .edge.current .edge-label text { font-weight: 700; fill: #9a3412; }
.dc-walk .head-hot path { fill: #d97706; }
.dc-walk .notes { color: #57606a; }
"""

SCRIPT = """
(function () {
  var here = document.currentScript;      // a notebook may run the script before the block is in the page
  var root = (here && here.closest && here.closest(".dc-walk")) || document.getElementById(%(id)s);
  if (!root || root.getAttribute("data-ready")) { return; }
  root.setAttribute("data-ready", "1");
  var data = JSON.parse(root.querySelector("script.dc-data").textContent);
  var words = data.words, steps = {}, count = data.steps.length, current = 1;
  data.steps.forEach(function (s) { steps[s.step] = s; });
  var page = root.getAttribute("data-page") === "1";
  var all = function (selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); };
  var nodes = all("g.node"), edges = all("g.edge"), rows = all("tr[data-step]"), cards = all(".card");
  var graph = root.querySelector(".graph"), counter = root.querySelector(".dc-counter");
  root.classList.add("js");

  function mark(element, step) {
    element.classList.remove("done", "current", "future");
    element.classList.add(step < current ? "done" : step === current ? "current" : "future");
  }
  function soFar(step) {
    var got = step.received.filter(function (r) { return r.from <= current; });
    if (!got.length) { return words.nothing_yet; }
    var said = got.length === step.received.length ? words.all_arrived : words.so_far;
    return said.replace("{parts}", got.map(function (r) { return r.text; }).join(" + "));
  }
  function reveal(element) {
    var box = element.getBoundingClientRect(), view = graph.getBoundingClientRect();
    if (box.left < view.left || box.right > view.right) {
      graph.scrollLeft += (box.left + box.right - view.left - view.right) / 2;
    }
    if (box.top < view.top || box.bottom > view.bottom) {
      graph.scrollTop += (box.top + box.bottom - view.top - view.bottom) / 2;
    }
  }
  function show(k) {
    current = Math.max(1, Math.min(count, Math.floor(k) || 1));
    nodes.forEach(function (g) {
      var m = +g.getAttribute("data-step"), grad = g.querySelector("tspan.grad");
      mark(g, m);
      if (grad) { grad.textContent = m <= current ? steps[m].grad_box : words.grad_pending; }
    });
    edges.forEach(function (g) {
      var m = +g.getAttribute("data-from");
      mark(g, m);
      g.querySelector("path").setAttribute("marker-end", "url(#" + root.id + (m === current ? "-hot)" : "-arrow)"));
      if (m === current) { g.parentNode.appendChild(g); }
    });
    rows.forEach(function (tr) {
      var m = +tr.getAttribute("data-step"), partial = tr.querySelector(".partial");
      mark(tr, m);
      if (partial) { partial.textContent = m > current ? soFar(steps[m]) : ""; }
    });
    cards.forEach(function (c) { c.hidden = +c.getAttribute("data-step") !== current; });
    counter.textContent = words.counter.replace("{k}", current).replace("{n}", count);
    root.querySelector("[data-go=first]").disabled = root.querySelector("[data-go=previous]").disabled = current === 1;
    root.querySelector("[data-go=last]").disabled = root.querySelector("[data-go=next]").disabled = current === count;
    var node = root.querySelector("g.node.current");
    if (node && graph) { reveal(node); }
    if (page && location.hash !== "#step=" + current) {
      try { history.replaceState(null, "", "#step=" + current); } catch (error) { /* a page that cannot */ }
    }
  }
  var moves = {first: function () { return 1; }, previous: function () { return current - 1; },
               next: function () { return current + 1; }, last: function () { return count; }};
  all("[data-go]").forEach(function (button) {
    button.addEventListener("click", function () { show(moves[button.getAttribute("data-go")]()); });
  });
  var keys = {ArrowRight: "next", n: "next", ArrowLeft: "previous", p: "previous", Home: "first", End: "last"};
  (page ? document : root).addEventListener("keydown", function (event) {
    var target = event.target && event.target.tagName;
    if (event.ctrlKey || event.metaKey || event.altKey || target === "INPUT" || target === "TEXTAREA") { return; }
    var go = keys[event.key];
    if (go) {
      event.preventDefault();
      if (!page) { event.stopPropagation(); }     // in a notebook, the key is the walk's, not the notebook's
      show(moves[go]());
    }
  });
  function fromHash() {
    var found = /(?:^#|&)step=(\\d+)/.exec(location.hash);
    return found ? +found[1] : null;
  }
  if (page) { window.addEventListener("hashchange", function () { var k = fromHash(); if (k) { show(k); } }); }
  show((page && fromHash()) || 1);
})();
"""


def data_script(data: dict) -> str:
    """``data`` as JSON in a script element the page reads: non-finite numbers (which
    JSON cannot hold) as the strings "nan", "inf", "-inf", and no ``<`` that could end
    the element early."""
    text = json.dumps(_finite(data), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return f'<script type="application/json" class="dc-data">{text.replace("<", chr(92) + "u003c")}</script>'


def _finite(value):
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def table(headers, rows, row_attributes=(), column_classes=None, fills=()) -> str:
    """An HTML table; ``column_classes``: header -> its cells' class; the cells of the
    ``fills`` columns hold their text and, for the script, a place for what is known so
    far at an earlier step."""
    column_classes = column_classes or {}
    out = ["<table><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr></thead><tbody>"]
    attributes = list(row_attributes) or [{} for _ in rows]
    for row, extra in zip(rows, attributes):
        cells = []
        for header, cell in zip(headers, row):
            classes = column_classes.get(header, "")
            if header in fills:
                classes = (classes + " fills").strip()
                content = f'<span class="full">{escape(cell)}</span><span class="partial"></span>'
            else:
                content = escape(cell)
            cells.append(f'<td class="{classes}">{content}</td>' if classes else f"<td>{content}</td>")
        attrs = "".join(f' {k}="{escape(str(v))}"' for k, v in extra.items())
        out.append(f"<tr{attrs}>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def card(step: int, title: str, gist: str, rows) -> str:
    """One step's card: its title, a sentence, then (term, text, class) rows."""
    items = "".join(f"<dt>{escape(term)}</dt><dd class=\"{cls}\">{escape(text)}</dd>" for term, text, cls in rows)
    return (f'<section class="card" data-step="{step}"><h3>{escape(title)}</h3><p>{escape(gist)}</p>'
            f"<dl>{items}</dl></section>")


CONTROLS = ('<div class="dc-controls">'
            '<button type="button" data-go="first" title="first step (Home)">« first</button>'
            '<button type="button" data-go="previous" title="previous step (← or p)">◀ previous</button>'
            '<button type="button" data-go="next" title="next step (→ or n)">next ▶</button>'
            '<button type="button" data-go="last" title="last step (End)">last »</button>'
            '<span class="dc-counter"></span><span class="keys">keys: ← → Home End</span></div>')


def fragment(root_id: str, page_mode: bool, *, title: str, heading, summary, drawing: str, cards, walk: str,
             after: str, data: dict, nojs_note: str, style: bool = True) -> str:
    """The walk's HTML: a block whose script finds it by ``root_id``. ``summary``: (text,
    its class) or None; ``after``: HTML below the walk's table (the gradient, notes)."""
    parts = [f"<style>{STYLE}</style>"] if style else []
    parts.append(f'<div class="dc-walk" id="{escape(root_id)}" data-page="{int(page_mode)}" tabindex="0">')
    parts.append(f"<div class=\"heading\"><h1>{escape(title)}</h1>"
                 + "".join(f'<p class="mono">{escape(line)}</p>' for line in heading) + "</div>")
    if summary is not None:
        parts.append(f'<p class="summary {summary[1]}">{escape(summary[0])}</p>')
    parts.append(f'<p class="nojs-note">{escape(nojs_note)}</p>')
    parts.append(CONTROLS)
    parts.append(f'<div class="top"><div class="graph">{drawing}</div>'
                 f'<div class="dc-cards">{"".join(cards)}</div></div>')
    parts.append(walk)
    parts.append(after)
    parts.append(data_script(data))
    parts.append(f"<script>{SCRIPT % {'id': json.dumps(root_id)}}</script>")
    parts.append("</div>")
    return "\n".join(parts)


def document(title: str, body: str) -> str:
    """A whole HTML page around ``body`` (a :func:`fragment` made with ``style=False``)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{escape(title)}</title>\n<style>\nbody {{ margin: 20px 24px; background: #ffffff; }}\n{STYLE}</style>\n"
            f"</head>\n<body>\n{body}\n</body>\n</html>\n")

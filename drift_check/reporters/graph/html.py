"""The contract graph as one self-contained HTML page: an SVG drawn at the positions
`layout` computes, a side panel, and a small inline script for pan and zoom, the filter box,
selection and focus. Nothing is fetched; every name is escaped (see `reporters.page`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from drift_check.graph import EDGE_KINDS, Edge, Graph, Node
from drift_check.reporters.escape import escape
from drift_check.reporters.graph.layout import (
    FRAME_TITLE,
    NODE_H,
    NODE_W,
    Box,
    Layout,
    Point,
    layout,
)
from drift_check.reporters.page import asset, attr, document, file_href, text

# a graph this large (in px) opens zoomed out, its labels hidden until zoomed in
FAR_WIDTH, FAR_HEIGHT = 3000.0, 2000.0
KIND_NAMES = {
    "plugin": "plugin",
    "command": "command",
    "workflow": "workflow",
    "hook": "hook",
    "agent": "agent",
    "skill": "skill",
    "document": "document",
    "marker": "marker",
    "block": "structured block",
    "schema": "JSON Schema",
}


_KIND_ORDER = {k: i for i, k in enumerate(KIND_NAMES)}


def render(graph: Graph, root: str, base: str, title: str = "") -> str:
    """The page for `graph` of the tree at `root`; links to files are relative to the folder
    `base`, where the page is written."""
    placed = layout(graph)
    index = {n.key: i for i, n in enumerate(graph.nodes)}
    svg = _svg(graph, placed, index)
    data = _data(graph, placed, index, root, base)
    name = title or "drift-check graph"
    body = _body(name, graph, svg)
    size = f".n rect {{ width: {NODE_W:.0f}px; height: {NODE_H:.0f}px; }}\n"
    return document(name, asset("graph.css") + size, body, asset("graph.js"), data)


def _title(node: Node, box: Box) -> str:
    badge = f"  ⚠ {len(node.findings)}" if node.findings else ""
    room = max(int((box.w - 20) / 7) - len(badge), 8)
    label = " ".join(f"plugin {node.label}".split())
    return (label if len(label) <= room else label[: room - 1] + "…") + badge


def _classes(node: Node, kind: str) -> str:
    out = ["n", f"k-{kind}"]
    if node.findings:
        out.append("err")
    if node.missing:
        out.append("missing")
    return " ".join(out)


def _svg(graph: Graph, placed: Layout, index: dict[str, int]) -> str:
    far = ' class="far"' if placed.width > FAR_WIDTH or placed.height > FAR_HEIGHT else ""
    out = [
        # labels are drawn only when they can be read: a large graph opens zoomed out, and
        # parsing and laying out thousands of unreadable labels would be most of its opening
        # time
        f'<svg id="graph" xmlns="http://www.w3.org/2000/svg"{far}>',
        "<defs>"
        + "".join(
            f'<marker id="{name}" viewBox="0 0 10 10" refX="10" refY="5"'
            ' markerUnits="userSpaceOnUse" markerWidth="9" markerHeight="9"'
            ' orient="auto-start-reverse"><path d="M0 0L10 5L0 10z"/></marker>'
            for name in ("arrow", "arrow-err")
        )
        + "</defs>",
        '<g id="viewport">',
        '<g id="frames">',
    ]
    for node in graph.nodes:
        if node.kind == "plugin":
            out.append(_frame(node, placed.boxes[node.key], index[node.key]))
    out.append('</g><g id="edges">')
    for i, (edge, route) in enumerate(zip(graph.edges, placed.routes, strict=True)):
        out.append(_edge(edge, route, i, index))
    out.append('</g><g id="nodes">')
    for node in graph.nodes:
        if node.kind != "plugin":
            out.append(_node(node, placed.boxes[node.key], index[node.key]))
    out.append("</g></g></svg>")
    return "\n".join(out)


def _frame(node: Node, box: Box, i: int) -> str:
    return (
        f'<g class="{_classes(node, "plugin")}" id="n{i}">'
        f'<rect class="frame" x="{box.x:.1f}" y="{box.y:.1f}" width="{box.w:.1f}"'
        f' height="{box.h:.1f}" rx="6"/>'
        f'<rect class="bar" x="{box.x:.1f}" y="{box.y:.1f}" width="{box.w:.1f}"'
        f' height="{FRAME_TITLE:.0f}" rx="6"/>'
        f'<text x="{box.x + 10:.1f}" y="{box.y + 17:.1f}">{text(_title(node, box))}</text></g>'
    )


def _node(node: Node, box: Box, i: int) -> str:
    """A node's box; the script writes its label (all at once, when labels can be read)."""
    kind = node.kind if node.kind in KIND_NAMES else "other"
    # every node has the layout's one size, set in the stylesheet (a third less to parse)
    return (
        f'<g class="{_classes(node, kind)}" id="n{i}"'
        f' transform="translate({box.x:.1f} {box.y:.1f})"><rect/></g>'
    )


def _edge(edge: Edge, route: tuple[Point, ...], i: int, index: dict[str, int]) -> str:
    classes = f"e k-{attr(edge.kind)}" + (" err" if edge.findings else "")
    return (
        f'<path class="{classes}" id="e{i}" data-s="{index[edge.source]}"'
        f' data-t="{index[edge.target]}" d="{_path(route)}"/>'
    )


def _path(points: tuple[Point, ...]) -> str:
    """A smooth curve through the points: each step a cubic whose handles run along x."""
    (x0, y0), rest = points[0], points[1:]
    out = [f"M{x0:.1f} {y0:.1f}"]
    for x, y in rest:
        dx = (x - x0) / 2
        if y == y0:
            out.append(f"L{x:.1f} {y:.1f}")
        else:
            out.append(f"C{x0 + dx:.1f} {y0:.1f} {x - dx:.1f} {y:.1f} {x:.1f} {y:.1f}")
        x0, y0 = x, y
    return "".join(out)


def _data(
    graph: Graph, placed: Layout, index: dict[str, int], root: str, base: str
) -> dict[str, Any]:
    """What the script shows in the panel: every node, edge and finding, and the links."""
    nodes = []
    for n in graph.nodes:
        b = placed.boxes[n.key]
        item: dict[str, Any] = {
            "kind": n.kind,
            "label": escape(n.label),
            "box": [round(b.x, 1), round(b.y, 1), round(b.w, 1), round(b.h, 1)],
        }
        if n.where is not None:
            item["path"] = n.where.path
            item["line"] = n.where.line
        if n.group is not None and f"plugin:{n.group}" in index and n.kind != "plugin":
            item["plugin"] = index[f"plugin:{n.group}"]
        if n.missing:
            item["missing"] = True
        if n.findings:
            item["findings"] = list(n.findings)
        nodes.append(item)
    edges = []
    for e in graph.edges:
        edge: dict[str, Any] = {"s": index[e.source], "t": index[e.target], "kind": e.kind}
        if e.where is not None:
            edge["path"] = e.where.path
            edge["line"] = e.where.line
        if e.findings:
            edge["findings"] = list(e.findings)
        edges.append(edge)
    findings = []
    for f in graph.findings:
        item = {"code": f.code, "name": f.name, "severity": f.severity, "message": f.message}
        if f.path:
            item |= {"path": f.path, "line": f.line, "column": f.column}
        findings.append(item)
    return {
        "nodes": nodes,
        "edges": edges,
        "findings": findings,
        "unplaced": list(graph.unplaced),
        "kinds": KIND_NAMES,
        # links to files are this (percent-encoded) folder, then the path, each part encoded
        "base": file_href(root, ".", None, base),
    }


def _body(title: str, graph: Graph, svg: str) -> str:
    counts: Counter[str] = Counter(n.kind for n in graph.nodes)
    missing: Counter[str] = Counter(n.kind for n in graph.nodes if n.missing)
    summary = ", ".join(
        f"{n} {KIND_NAMES.get(k, k)}{'s' * (n != 1)}"
        + (f" ({missing[k]} missing)" if missing[k] else "")
        for k, n in sorted(counts.items(), key=lambda item: _KIND_ORDER.get(item[0], 99))
    )
    failing = sum(1 for n in graph.nodes if n.findings)
    drawn = {e.kind for e in graph.edges}
    legend = "".join(
        f'<span class="key k-{attr(k)}">{text(KIND_NAMES.get(k, k))}</span>'
        for k in sorted(counts, key=lambda k: _KIND_ORDER.get(k, 99))
    ) + "".join(f'<span class="ekey k-{k}">{text(k)}</span>' for k in EDGE_KINDS if k in drawn)
    return (
        "<header><h1>" + text(title) + "</h1>"
        f'<p id="counts">{text(summary) or "nothing to draw"}; {len(graph.edges)} edges;'
        f" {len(graph.findings)} findings, on {failing} nodes</p>"
        '<div id="tools"><input id="filter" type="search" placeholder="Filter: name, path or kind"'
        ' aria-label="Filter nodes" autocomplete="off">'
        '<label><input id="only-findings" type="checkbox"> only with findings</label>'
        '<button id="focus" type="button" disabled>Focus</button>'
        '<button id="all" type="button">Show all</button>'
        '<button id="fit" type="button">Fit</button>'
        '<button id="zoom-in" type="button" aria-label="Zoom in">+</button>'
        '<button id="zoom-out" type="button" aria-label="Zoom out">&minus;</button></div>'
        f'<div id="legend">{legend}</div></header>\n'
        f'<main><div id="canvas">{svg}</div>'
        '<aside id="panel" aria-live="polite"></aside></main>\n'
    )

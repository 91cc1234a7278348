"""The contract graph as a Mermaid flowchart, for a Markdown file or a pull request comment
on GitHub, which renders ```` ```mermaid ```` blocks.

Every node has a generated id (`n12`) and a quoted label, so no name can be read as
syntax: not a keyword (`end`, `graph`, `subgraph`), not brackets, not an arrow. Inside the
quotes the characters Mermaid would still act on are written as its entity codes
(`#quot;`, `#35;`, ...), which it turns back into the characters when it draws them.
"""

from __future__ import annotations

import re

from drift_check.graph import Graph, Node
from drift_check.reporters.escape import escape

# (opening, closing) around the quoted label, by kind
SHAPES = {
    "agent": ("[", "]"),
    "marker": ("([", "])"),
    "skill": ("[[", "]]"),
    "command": ("[/", "/]"),
    "workflow": (">", "]"),
    "hook": ("{{", "}}"),
    "document": ("[(", ")]"),
    "block": ("[\\", "/]"),
    "schema": ("[(", ")]"),
}
ARROWS = {"declares": "-.->", "includes": "-.->", "conforms": "-.->"}
STYLES = {
    "agent": "fill:#dcfce7,stroke:#16a34a,color:#1f2328",
    "marker": "fill:#fce7f3,stroke:#db2777,color:#1f2328",
    "skill": "fill:#fef9c3,stroke:#a16207,color:#1f2328",
    "command": "fill:#dbeafe,stroke:#2563eb,color:#1f2328",
    "workflow": "fill:#e0f2fe,stroke:#0284c7,color:#1f2328",
    "hook": "fill:#ede9fe,stroke:#7c3aed,color:#1f2328",
    "document": "fill:#f3f4f6,stroke:#6b7280,color:#1f2328",
    "block": "fill:#ffedd5,stroke:#c2410c,color:#1f2328",
    "schema": "fill:#e7e5e4,stroke:#57534e,color:#1f2328",
    "missing": "stroke-dasharray:4 3",
    "err": "fill:#ffebe9,stroke:#cf222e,stroke-width:2px,color:#1f2328",
}
ERROR_EDGE = "stroke:#cf222e,stroke-width:2px"

# what Mermaid reads inside a quoted label: the quote, its entity sign, markup, a comment's
# `%%`, a Markdown string's backtick
_ENTITIES = {"#": "#35;", '"': "#quot;", "<": "#lt;", ">": "#gt;", "&": "#amp;", "%": "#37;"}
_ENTITIES["`"] = "#96;"
_SPECIAL = re.compile('[#"<>&%`]')


def label(value: str) -> str:
    """`value` as the inside of a quoted Mermaid label: one line, entities for the rest."""
    flat = escape(" ".join(value.split())) or " "
    return _SPECIAL.sub(lambda m: _ENTITIES[m.group()], flat)


def _shown(node: Node) -> str:
    text = node.label + (" (missing)" if node.missing else "")
    return text + (f" ⚠ {len(node.findings)}" if node.findings else "")


def render(graph: Graph) -> str:
    ids = {n.key: f"n{i}" for i, n in enumerate(graph.nodes)}
    out = ["flowchart LR"]
    inside: dict[str, list[Node]] = {}
    for n in graph.nodes:
        if n.kind != "plugin" and n.group is not None and f"plugin:{n.group}" in ids:
            inside.setdefault(n.group, []).append(n)

    def line(n: Node, indent: str) -> str:
        opening, closing = SHAPES.get(n.kind, ("[", "]"))
        return f'{indent}{ids[n.key]}{opening}"{label(_shown(n))}"{closing}'

    for n in graph.nodes:
        if n.kind == "plugin":
            out.append(f'  subgraph {ids[n.key]}["{label("plugin " + _shown(n))}"]')
            out.append("    direction LR")
            out.extend(line(m, "    ") for m in inside.get(n.group or "", []))
            out.append("  end")
        elif n.group is None or f"plugin:{n.group}" not in ids:
            out.append(line(n, "  "))
    for e in graph.edges:
        arrow = ARROWS.get(e.kind, "-->")
        out.append(f"  {ids[e.source]} {arrow}|{e.kind}| {ids[e.target]}")
    for name, style in STYLES.items():
        out.append(f"  classDef {name} {style}")
    classes: dict[str, list[str]] = {}
    for n in graph.nodes:
        if n.kind in STYLES:
            classes.setdefault(n.kind, []).append(ids[n.key])
        if n.missing:
            classes.setdefault("missing", []).append(ids[n.key])
        if n.findings:
            classes.setdefault("err", []).append(ids[n.key])
    for name in STYLES:
        if name in classes:
            out.append(f"  class {','.join(classes[name])} {name}")
    failing = [str(i) for i, e in enumerate(graph.edges) if e.findings]
    if failing:
        out.append(f"  linkStyle {','.join(failing)} {ERROR_EDGE}")
    return "\n".join(out) + "\n"

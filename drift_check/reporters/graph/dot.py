"""The contract graph in Graphviz's DOT language (`dot -Tsvg graph.dot -o graph.svg`).

Ids are generated (`n12`) and every label is a quoted string with its backslashes and
quotes escaped, so a name is never read as DOT syntax or as one of Graphviz's label
escapes (`\\N`, `\\l`). A plugin is a cluster around its parts.
"""

from __future__ import annotations

from drift_check.graph import Graph, Node
from drift_check.reporters.escape import escape

COLOURS = {  # (fill, line)
    "agent": ("#dcfce7", "#16a34a"),
    "marker": ("#fce7f3", "#db2777"),
    "skill": ("#fef9c3", "#a16207"),
    "command": ("#dbeafe", "#2563eb"),
    "workflow": ("#e0f2fe", "#0284c7"),
    "hook": ("#ede9fe", "#7c3aed"),
    "document": ("#f3f4f6", "#6b7280"),
    "block": ("#ffedd5", "#c2410c"),
    "schema": ("#e7e5e4", "#57534e"),
}
ERROR = ("#ffebe9", "#cf222e")
EDGE_STYLES = {
    "dispatches": 'color="#7c3aed", penwidth=2',
    "consumes": 'color="#0284c7"',
    "emits": 'color="#16a34a"',
    "declares": 'color="#6b7280", style=dashed',
    "loads": 'color="#a16207"',
    "includes": 'color="#6b7280", style=dotted',
    "conforms": 'color="#57534e", style=dashed',
}


def quoted(value: str) -> str:
    """A DOT string: one line, backslashes and quotes escaped."""
    flat = escape(" ".join(value.split()))
    return '"' + flat.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attributes(n: Node) -> str:
    fill, line = ERROR if n.findings else COLOURS.get(n.kind, ("#f3f4f6", "#6b7280"))
    text = n.label + (" (missing)" if n.missing else "")
    text += f" ⚠ {len(n.findings)}" if n.findings else ""
    style = "rounded,filled" + (",dashed" if n.missing else "")
    shape = "box"
    if n.kind == "marker":
        style, shape = "filled" + (",dashed" if n.missing else ""), "ellipse"
    return (
        f"label={quoted(text)}, tooltip={quoted(n.kind + ': ' + n.label)}, shape={shape},"
        f' style="{style}", fillcolor="{fill}", color="{line}"'
    )


def render(graph: Graph) -> str:
    ids = {n.key: f"n{i}" for i, n in enumerate(graph.nodes)}
    out = [
        'digraph "drift-check" {',
        '  graph [rankdir=LR, fontname="Helvetica", fontsize=11];',
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];',
    ]
    inside: dict[str, list[Node]] = {}
    for n in graph.nodes:
        if n.kind != "plugin" and n.group is not None and f"plugin:{n.group}" in ids:
            inside.setdefault(n.group, []).append(n)
    for n in graph.nodes:
        if n.kind == "plugin":
            colour = ERROR[1] if n.findings else "#8c959f"
            title = "plugin " + n.label + (f" ⚠ {len(n.findings)}" if n.findings else "")
            out.append(f'  subgraph "cluster_{ids[n.key]}" {{')
            out.append(f'    label={quoted(title)}; style=rounded; color="{colour}";')
            out.extend(
                f"    {ids[m.key]} [{_attributes(m)}];" for m in inside.get(n.group or "", [])
            )
            out.append("  }")
        elif n.group is None or f"plugin:{n.group}" not in ids:
            out.append(f"  {ids[n.key]} [{_attributes(n)}];")
    for e in graph.edges:
        style = f'color="{ERROR[1]}", penwidth=2' if e.findings else EDGE_STYLES.get(e.kind, "")
        out.append(f"  {ids[e.source]} -> {ids[e.target]} [label={quoted(e.kind)}, {style}];")
    out.append("}")
    return "\n".join(out) + "\n"

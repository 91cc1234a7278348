"""Drawing the contract graph (`drift-check graph`): HTML, Mermaid or DOT."""

from __future__ import annotations

from drift_check.graph import Graph

FORMATS = ("html", "mermaid", "dot")


def render(graph: Graph, fmt: str, root: str, base: str, title: str = "") -> str:
    """`graph` in `fmt`; `root` is the tree's folder and `base` the folder the output is
    written to (HTML links to files are relative to it)."""
    if fmt == "mermaid":
        from drift_check.reporters.graph import mermaid

        return mermaid.render(graph)
    if fmt == "dot":
        from drift_check.reporters.graph import dot

        return dot.render(graph)
    from drift_check.reporters.graph import html

    return html.render(graph, root, base, title)


__all__ = ["FORMATS", "render"]

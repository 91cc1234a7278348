"""The contract graph, without a browser: nodes and edges as the facts give them, findings on
what they are about, a layout without overlaps, and Mermaid, DOT and HTML that no name can
break out of.

The cases in fixtures/graph/ are data: a tree (a base tree plus files), every node
(`kind label`, `(missing)` for a name that stands for nothing), every edge
(`source --kind-> target`), the plugin of each node where it matters, and the codes each
node and edge lists (all others list none).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from drift_check.config import load_config
from drift_check.engine import Report, run
from drift_check.graph import EDGE_KINDS, Graph, Node, build_graph
from drift_check.reporters.graph import dot, mermaid
from drift_check.reporters.graph import html as graph_html
from drift_check.reporters.graph.layout import layout
from drift_check.reporters.page import file_href, script_json
from tests.conftest import FIXTURES, load_yaml, tree_files, write_tree

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted((FIXTURES / "graph").glob("*.yaml"))


def graph_of(root: Path) -> tuple[Report, Graph]:
    report = run(load_config(str(root)))
    return report, build_graph(report.facts, report.findings)


def shown(node: Node) -> str:
    return f"{node.kind} {node.label}" + (" (missing)" if node.missing else "")


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_graph_case(path: Path, tmp_path: Path) -> None:
    case = load_yaml(path)
    root = write_tree(tmp_path, tree_files(case.get("base"), case.get("files")))
    _, graph = graph_of(root)
    names = {n.key: shown(n) for n in graph.nodes}
    assert sorted(names.values()) == sorted(case["nodes"])
    edges = {f"{names[e.source]} --{e.kind}-> {names[e.target]}": e for e in graph.edges}
    assert sorted(edges) == sorted(case["edges"])
    for label, group in (case.get("groups") or {}).items():
        node = next(n for n in graph.nodes if shown(n) == label)
        plugin = graph.node(f"plugin:{node.group}")
        assert plugin is not None and plugin.label == group, label
    listed: dict[str, list[str]] = {}
    for n in graph.nodes:
        if n.findings:
            listed[names[n.key]] = sorted(graph.findings[i].code for i in n.findings)
    for name, e in edges.items():
        if e.findings:
            listed[name] = sorted(graph.findings[i].code for i in e.findings)
    assert listed == (case.get("findings") or {})


def test_examples_graph_counts_are_the_facts() -> None:
    """On examples/: one node per agent file, skill, command and consumer that is wired, a
    node per declared marker; every finding is on a node or edge or listed as unplaced."""
    report, graph = graph_of(ROOT / "examples")
    facts = report.facts
    kinds = Counter(n.kind for n in graph.nodes)
    assert kinds["agent"] == len(facts.all_agents)
    assert kinds["skill"] == len(facts.skills)
    assert kinds["command"] == len(facts.commands)
    declared = {m.text for row in facts.registry.rows for m in row.markers}  # type: ignore[union-attr]
    quoted = {q.text for q in facts.quoted_markers}
    markers = {n.label for n in graph.nodes if n.kind == "marker"}
    assert declared | quoted <= markers
    assert set(EDGE_KINDS) >= {e.kind for e in graph.edges}
    keys = {n.key for n in graph.nodes}
    assert all(e.source in keys and e.target in keys for e in graph.edges)
    placed = {i for n in graph.nodes for i in n.findings} | {
        i for e in graph.edges for i in e.findings
    }
    assert placed | set(graph.unplaced) == set(range(len(report.findings)))
    assert len(graph.findings) == len(report.findings) == 15


def test_the_graph_is_deterministic(tmp_path: Path) -> None:
    first = graph_html.render(graph_of(ROOT / "examples")[1], str(ROOT / "examples"), str(tmp_path))
    again = graph_html.render(graph_of(ROOT / "examples")[1], str(ROOT / "examples"), str(tmp_path))
    assert first == again


def _overlap(a: Any, b: Any) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


@pytest.mark.parametrize("tree", ["examples", "marketplace"])
def test_layout_has_no_overlaps_and_frames_hold_their_parts(tree: str, tmp_path: Path) -> None:
    if tree == "examples":
        root = ROOT / "examples"
    else:
        import sys

        sys.path.insert(0, str(ROOT / "bench"))
        from marketplace import generate_marketplace

        root = tmp_path / "market"
        generate_marketplace(root, 6)
    _, graph = graph_of(root)
    placed = layout(graph)
    assert set(placed.boxes) == {n.key for n in graph.nodes}
    assert len(placed.routes) == len(graph.edges)
    boxes = [(n, placed.boxes[n.key]) for n in graph.nodes if n.kind != "plugin"]
    for i, (_, a) in enumerate(boxes):
        assert a.x >= 0 and a.x + a.w <= placed.width + 1e-6
        assert a.y >= 0 and a.y + a.h <= placed.height + 1e-6
        for _, b in boxes[i + 1 :]:
            assert not _overlap(a, b)
    frames = [(n, placed.boxes[n.key]) for n in graph.nodes if n.kind == "plugin"]
    for n, box in boxes:
        for plugin, frame in frames:
            inside = (
                frame.x <= box.x
                and box.x + box.w <= frame.x + frame.w
                and frame.y <= box.y
                and box.y + box.h <= frame.y + frame.h
            )
            assert inside == (plugin.group == n.group), (n.key, plugin.key)
    for e, route in zip(graph.edges, placed.routes, strict=True):
        a, b = placed.boxes[e.source], placed.boxes[e.target]
        (x0, y0), (x1, y1) = route[0], route[-1]
        assert a.x <= x0 <= a.x + a.w and a.y <= y0 <= a.y + a.h
        assert b.x <= x1 <= b.x + b.w and b.y <= y1 <= b.y + b.h


def test_layout_breaks_cycles(tmp_path: Path) -> None:
    """Two agents that dispatch each other (a cycle) are still laid out, each edge drawn."""
    files = tree_files("gsd", {})
    files["agents/gsd-planner.md"] += '\nTask(subagent_type="gsd-executor")\n'
    files["agents/gsd-executor.md"] += '\nTask(subagent_type="gsd-planner")\n'
    _, graph = graph_of(write_tree(tmp_path, files))
    names = {n.key: n.label for n in graph.nodes}
    wires = {(names[e.source], names[e.target]) for e in graph.edges if e.kind == "dispatches"}
    assert {("gsd-planner", "gsd-executor"), ("gsd-executor", "gsd-planner")} <= wires
    placed = layout(graph)
    assert len(placed.routes) == len(graph.edges)


# names that are syntax somewhere: HTML, Mermaid keywords and brackets, DOT escapes
HOSTILE = [
    '<img src=x onerror="alert(1)">',
    "</script><script>alert(2)</script>",
    'a "quoted" name',
    "end",
    "subgraph",
    "graph TD",
    "[brackets] (parens) {braces}",
    "⚠ Source Audit: ü café 日本",
    "#quot; #35; %% comment",
    "back\\slash \\N \\l",
    "`tick`",
    "a --> b -.-> c",
    "&amp; & entity",
    "javascript:alert(3)",
]


def hostile_tree(root: Path) -> Path:
    """A GSD tree whose agent names, marker texts and file names are all `HOSTILE`."""
    files = tree_files("gsd", {})
    rows = []
    for i, name in enumerate(HOSTILE):
        marker = f"DONE {i} {name}"
        files[f"agents/agent-{i}.md"] = (
            f"---\nname: {json.dumps(name)}\ndescription: d\ntools: Read\n---\n\n"
            f"```markdown\n## {marker}\n```\n"
        )
        files[f"gsd-core/workflows/{name.replace('/', '_')}.md"] = f"Wait for `## {marker}`.\n"
        rows.append(f"| agent-{i} | r | `## {marker.replace('|', '/')}` | | sentinel-match |")
    text = files["gsd-core/references/agent-contracts.md"]
    files["gsd-core/references/agent-contracts.md"] = text.rstrip("\n") + "\n" + "\n".join(rows)
    return write_tree(root, files)


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.script_text: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.script_text.append(data)


GRAPH_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "p", "div", "input",
    "label", "button", "span", "main", "svg", "defs", "marker", "path", "g", "rect", "text",
    "aside", "script",
}  # fmt: skip


def test_graph_html_escapes_every_name(tmp_path: Path) -> None:
    root = hostile_tree(tmp_path / "tree")
    _, graph = graph_of(root)
    labels = {n.label for n in graph.nodes}
    for name in HOSTILE:  # the names are there, as names: in markers and file names
        in_marker = any(name in label for label in labels if label.startswith("DONE"))
        assert in_marker or "`" in name, name  # a backtick ends the registry's code span
        assert f"{name.replace('/', '_')}.md" in labels
    page = graph_html.render(graph, str(root), str(tmp_path))
    parsed = Elements()
    parsed.feed(page)
    assert {tag for tag, _ in parsed.tags} <= GRAPH_TAGS
    assert not [a for _, attrs in parsed.tags for a, _ in attrs if a.lower().startswith("on")]
    assert [tag for tag, _ in parsed.tags].count("script") == 2
    data = json.loads(parsed.script_text[0])
    assert {n["label"] for n in data["nodes"]} == labels
    assert "javascript:" not in data["base"] and data["base"].startswith(".")


def test_file_links_are_relative_and_cannot_change_scheme(tmp_path: Path) -> None:
    out = tmp_path / "site"
    href = file_href(str(tmp_path / "repo"), "agents/a b.md", 3, str(out))
    assert href == "../repo/agents/a%20b.md#L3"
    assert file_href(str(tmp_path), "javascript:alert(1)", None, str(tmp_path)) == (
        "./javascript%3Aalert%281%29"
    )
    assert "<" not in script_json({"x": "</script><!--"}) and "&" not in script_json("&")


def test_mermaid_labels_are_quoted_with_entities() -> None:
    assert mermaid.label('a "b" #c <d> & `e` %% f') == (
        "a #quot;b#quot; #35;c #lt;d#gt; #amp; #96;e#96; #37;#37; f"
    )
    assert mermaid.label("two\nlines\x1b") == "two lines\\x1b"


def test_mermaid_of_hostile_names_has_only_generated_ids(tmp_path: Path) -> None:
    _, graph = graph_of(hostile_tree(tmp_path))
    text = mermaid.render(graph)
    statement = re.compile(
        r'^(flowchart LR|  (subgraph n\d+\["[^"]*"\]|end|  direction LR)|\s+n\d+'
        r'(\[|\(\[|\[\[|\[/|>|\{\{|\[\(|\[\\)"[^"]*"(\]|\]\)|\]\]|/\]|\}\}|\)\])'
        r"|  n\d+ (-->|-\.->)\|[a-z]+\| n\d+|  classDef \w+ [-\w:#,. ]+|  class [n\d,]+ \w+"
        r"|  linkStyle [\d,]+ [^ ]+)$"
    )
    for line in text.splitlines():
        assert statement.match(line), line
    for name in HOSTILE:
        assert mermaid.label(f"{name.replace('/', '_')}.md") in text


def test_dot_strings_are_escaped(tmp_path: Path) -> None:
    assert dot.quoted('a "b" \\N') == '"a \\"b\\" \\\\N"'
    _, graph = graph_of(hostile_tree(tmp_path / "tree"))
    text = dot.render(graph)
    for name in HOSTILE:
        assert dot.quoted(f"{name.replace('/', '_')}.md")[1:-1] in text
    if shutil.which("dot") is None:
        pytest.skip("Graphviz `dot` is not installed; the DOT text was checked, not drawn")
    drawn = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True)
    assert drawn.returncode == 0, drawn.stderr
    assert drawn.stderr == ""
    for name in ("⚠ Source Audit: ü café 日本", "back\\slash \\N \\l"):
        assert name in drawn.stdout.replace("&#45;", "-")


def test_graph_command(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(ROOT)
    run_ = cli("graph", "examples", "--format", "mermaid")
    assert run_.code == 0 and run_.out.startswith("flowchart LR\n")
    out = tmp_path / "graph.html"
    run_ = cli("graph", "examples", "-o", str(out))
    assert run_.code == 0
    assert "25 nodes, 25 edges, 15 findings" in run_.err
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert cli("graph", "examples", "--format", "dot").out.startswith('digraph "drift-check" {')
    missing = cli("graph", str(tmp_path / "nowhere"))
    assert missing.code == 2 and "does not exist" in missing.err
    assert cli("graph", "-h").out.startswith("Usage: drift-check graph [OPTIONS] [PATHS]...")


def test_graph_of_given_paths_draws_them_and_their_neighbours(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`graph FILE`: the whole project is checked, and the file's nodes are drawn with their
    neighbours and the findings on them."""
    monkeypatch.chdir(ROOT / "examples")
    text = cli("graph", "agents/gsd-reviewer.md", "--format", "mermaid").out
    labels = re.findall(r'^\s+n\d+\W+"([^"]*)"', text, re.M)
    assert sorted(labels) == [
        "REVIEW INCONCLUSIVE ⚠ 1",
        "REVIEW PASSED",
        "Review Failed ⚠ 1",
        "gsd-reviewer ⚠ 3",
        "review.md ⚠ 1",
    ]
    # emits x3, review.md dispatches it, and review.md consumes REVIEW PASSED
    assert len(re.findall(r"^  n\d+ -", text, re.M)) == 5
    whole = cli("graph", "--format", "mermaid").out
    assert whole.count("\n") > text.count("\n")

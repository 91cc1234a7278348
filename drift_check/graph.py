"""The contract graph: who emits which marker, who consumes and dispatches, what agents load
and include, built from the facts and the findings of one run.

Pure: it reads facts and findings, never a file, and the reporters in
`drift_check/reporters/graph/` only draw it. A node stands for a file (agent, skill, command,
workflow, hook, included document), a plugin, a marker, or a name written somewhere that
stands for nothing (`missing`: a registry row's agent without a file, a `skills:` entry that
names no skill), a named structured block or a JSON Schema. Edges:

- `emits`: an agent's fenced heading is (or carries) the marker;
- `declares`: the registry row says the agent returns the marker, and it does not;
- `consumes`: a workflow, command, hook, agent or skill contains the marker's exact text
  (the agents that emit it are producers, not consumers);
- `dispatches`: a file hands work to an agent (`subagent_type=`, or the section a quoted
  marker or a read tag sits in names it);
- `loads`: an agent's `skills:` entry names the skill;
- `includes`: an agent `@`-includes (or is told to Read) a document;
- `conforms`: a structured block (or the file holding an unnamed one) is paired with a
  JSON Schema; named blocks (`NOTES_RESULT`) are emitted by the file holding their template
  and consumed by the files that read their fields.

A plugin is not joined by edges: every node under its root has it as `group`, and the
reporters draw the plugin around them. Other kinds of facts plug in through `CONTRIBUTORS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from drift_check.facts import Facts, Position
from drift_check.markers import index
from drift_check.records import NamedTuple
from drift_check.rules.base import Finding

NODE_KINDS = (
    "plugin",
    "command",
    "workflow",
    "hook",
    "agent",
    "skill",
    "document",
    "marker",
    "block",
    "schema",
)
EDGE_KINDS = ("dispatches", "consumes", "emits", "declares", "loads", "includes", "conforms")


class Node(NamedTuple):
    key: str  # stable identity: `file:PATH`, `marker:TEXT`, `plugin:ROOT`, `missing-...:NAME`
    kind: str  # one of NODE_KINDS (or a contributor's own)
    label: str
    where: Position | None  # the file it is, or where a marker is declared or first emitted
    group: str | None  # the root of the plugin it belongs to, if any
    missing: bool = False  # named, but nothing in the tree is it
    findings: tuple[int, ...] = ()  # indexes into Graph.findings


class Edge(NamedTuple):
    source: str  # node keys
    target: str
    kind: str  # one of EDGE_KINDS (or a contributor's own)
    where: Position | None  # where the text that makes the edge is written
    findings: tuple[int, ...] = ()


class Graph(NamedTuple):
    nodes: tuple[Node, ...]  # sorted by key
    edges: tuple[Edge, ...]  # sorted by source, target and kind
    findings: tuple[Finding, ...]  # every finding of the run, as reported
    unplaced: tuple[int, ...]  # findings that concern no node nor edge (a registry parse error)

    def node(self, key: str) -> Node | None:
        return next((n for n in self.nodes if n.key == key), None)


class Builder:
    """Nodes and edges as the facts give them, each once; the first kind given to a file
    wins (an agent that consumes markers stays an agent)."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.nodes: dict[str, Node] = {}
        self.edges: dict[tuple[str, str, str], Edge] = {}
        self._roots = frozenset(p.root for p in facts.manifests.plugins)

    def group_of(self, path: str) -> str | None:
        """The root of the nearest plugin above `path`, if any."""
        folder = path
        while folder:
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
            if folder in self._roots:
                return folder
        return None

    def file(self, path: str, kind: str, label: str | None = None) -> str:
        key = f"file:{path}"
        if key not in self.nodes:
            shown = label if label is not None else path.rsplit("/", 1)[-1]
            self.nodes[key] = Node(key, kind, shown, Position(path, 1, 1), self.group_of(path))
        return key

    def add(self, node: Node) -> str:
        self.nodes.setdefault(node.key, node)
        return node.key

    def edge(self, source: str, target: str, kind: str, where: Position | None) -> None:
        self.edges.setdefault((source, target, kind), Edge(source, target, kind, where))


Contributor = Callable[[Builder], None]


def build_graph(facts: Facts, findings: Iterable[Finding] = ()) -> Graph:
    """The graph of `facts`, each finding attached to the nodes and edges it concerns."""
    b = Builder(facts)
    for contribute in CONTRIBUTORS:
        contribute(b)
    return _attach(b, tuple(findings))


def _plugins(b: Builder) -> None:
    for plugin in b.facts.manifests.plugins:
        name = plugin.name.name if plugin.name is not None else plugin.root or "(root)"
        where = Position(plugin.manifest, 1, 1) if plugin.manifest else None
        b.add(Node(f"plugin:{plugin.root}", "plugin", name, where, plugin.root))


def _components(b: Builder) -> None:
    facts = b.facts
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        b.file(agent.path, "agent", agent.name)
    for path in sorted(facts.skills):
        skill = facts.skills[path]
        named = (skill.frontmatter or {}).get("name")
        b.file(path, "skill", named if isinstance(named, str) and named else skill.name)
    for path in sorted(facts.commands):
        b.file(path, "command", "/" + facts.commands[path].name)
    for config in facts.manifests.hooks:
        for hook in config.commands:
            if hook.script is not None and hook.script in facts.existing_paths:
                b.file(hook.script, "hook")


def _agent_key(b: Builder, name: str) -> str:
    """The node of the agent called `name`: its file, or a missing agent."""
    agent = b.facts.agents.get(name)
    if agent is not None:
        return b.file(agent.path, "agent", agent.name)
    return b.add(Node(f"missing-agent:{name}", "agent", name, None, None, missing=True))


def _markers(b: Builder) -> None:
    """Markers declared by the registry, emitted in agents' fences (those that are declared,
    marker-shaped or quoted by a consumer), and quoted by consumers; who emits and consumes
    each."""
    facts = b.facts
    ix = index(facts)
    quoted = {q.text for q in facts.quoted_markers}
    where: dict[str, Position] = {}
    emitted_by: dict[str, set[str]] = {}  # marker -> files of the agents that return it
    if facts.registry is not None:
        for row in facts.registry.rows:
            for m in row.markers:
                where.setdefault(m.text, m.position)
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        for e in agent.emissions:
            carried = ix.declared_covering(e.text) if ix.declared else []
            if not carried and (ix.marker_shaped(e.text) or e.text in quoted):
                carried = [e.text]
            for text in carried:
                where.setdefault(text, e.position)
                emitted_by.setdefault(text, set()).add(agent.path)
                b.edge(b.file(agent.path, "agent"), _marker(b, text, where), "emits", e.position)
    if facts.registry is not None:
        for row in facts.registry.rows:
            source = _agent_key(b, row.agent)
            for m in row.markers:
                key = _marker(b, m.text, where)
                if row.agent in facts.agents:  # its own file is no consumer of what it returns
                    emitted_by.setdefault(m.text, set()).add(facts.agents[row.agent].path)
                if (source, key, "emits") not in b.edges:
                    b.edge(source, key, "declares", m.position)
    for q in facts.quoted_markers:
        carried = ix.declared_covering(q.text) or [q.text]
        for text in carried:
            where.setdefault(text, q.position)
            _marker(b, text, where)
    texts = sorted(k.removeprefix("marker:") for k in b.nodes if k.startswith("marker:"))
    for text in texts:
        producers = emitted_by.get(text, set())
        for found in facts.occurrences.exact.get(text, ()):
            if found.path not in producers:
                literals = facts.consumers[found.path].literals
                source = b.file(found.path, _consumer_kind(found.path, literals))
                b.edge(source, f"marker:{text}", "consumes", found.position)


def _marker(b: Builder, text: str, where: dict[str, Position]) -> str:
    return b.add(Node(f"marker:{text}", "marker", text, where.get(text), None))


def _consumer_kind(path: str, literals: object) -> str:
    if literals is not None or path.endswith((".py", ".sh")) or "/hooks/" in f"/{path}":
        return "hook"
    return "workflow"


def _dispatches(b: Builder) -> None:
    facts = b.facts
    for path in sorted(facts.consumers):
        consumer = facts.consumers[path]
        for named in consumer.dispatches:
            source = b.file(path, _consumer_kind(path, consumer.literals))
            b.edge(source, _agent_key(b, named.name), "dispatches", named.position)
    # a quote or a read tag in a section that dispatches says so too (the first one wins)
    sites = [(q.position, q.dispatched_agent) for q in facts.quoted_markers]
    sites += [(g.position, g.dispatched_agent) for gs in facts.read_gates.values() for g in gs]
    for position, agent in sorted(sites, key=lambda s: s[0]):
        if agent is not None and position.path in facts.consumers:
            consumer = facts.consumers[position.path]
            source = b.file(position.path, _consumer_kind(position.path, consumer.literals))
            b.edge(source, _agent_key(b, agent), "dispatches", position)


def _loads(b: Builder) -> None:
    """`skills:` entries to the skill they name: `plugin:skill` in that plugin; a bare name
    in the agent's own plugin first, then anywhere."""
    facts = b.facts
    by_name: dict[str, list[str]] = {}
    for path in sorted(facts.skills):
        skill = facts.skills[path]
        named = (skill.frontmatter or {}).get("name")
        for name in {skill.name, named} if isinstance(named, str) else {skill.name}:
            by_name.setdefault(name, []).append(path)
    plugins = {
        e.name.name: e.root
        for m in facts.manifests.marketplaces
        for e in m.entries
        if e.name is not None and e.root is not None
    }
    plugins.update((p.name.name, p.root) for p in facts.manifests.plugins if p.name is not None)
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        source = b.file(agent.path, "agent")
        for ref in agent.skills or ():
            plugin, _, name = ref.name.rpartition(":")
            candidates = by_name.get(name, [])
            if plugin:
                root = plugins.get(plugin)
                candidates = [p for p in candidates if root is not None and _under(p, root)]
            else:
                own = b.group_of(agent.path)
                near = [p for p in candidates if own is not None and _under(p, own)]
                candidates = near or candidates
            if candidates:
                target = b.file(candidates[0], "skill")
            else:
                group = b.group_of(agent.path)
                missing = Node(f"missing-skill:{ref.name}", "skill", ref.name, None, group, True)
                target = b.add(missing)
            b.edge(source, target, "loads", ref.position)


def _under(path: str, root: str) -> bool:
    return not root or path.startswith(root + "/")


def _includes(b: Builder) -> None:
    facts = b.facts
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        source = b.file(agent.path, "agent")
        for inc in agent.includes:
            if inc.resolved is not None and inc.resolved in facts.existing_paths:
                b.edge(source, b.file(inc.resolved, "document"), "includes", inc.position)


def _structured(b: Builder) -> None:
    """Structured contracts: a named block (`NOTES_RESULT`) is emitted by the file holding
    its template and consumed by the files reading its fields; it conforms to the schema it
    is paired with, as an unnamed block's file does to its own."""
    structured = b.facts.structured
    for path in sorted(structured.schemas):
        b.file(path, "schema")
    for block in structured.blocks:
        if block.name:
            named = _block(b, block.name, block.position)
            b.edge(b.file(block.path, "document"), named, "emits", block.position)
            schema = block.schema or structured.names.get(block.name)
            if schema is not None and schema in structured.schemas:
                b.edge(named, f"file:{schema}", "conforms", block.position)
        elif block.schema is not None and block.schema in structured.schemas:
            holder = b.file(block.path, "document")
            b.edge(holder, f"file:{block.schema}", "conforms", block.position)
    for read in sorted(structured.reads, key=lambda r: r.position):
        reader = b.file(read.position.path, _consumer_kind(read.position.path, None))
        b.edge(reader, _block(b, read.name, read.position), "consumes", read.position)


def _block(b: Builder, name: str, where: Position) -> str:
    return b.add(Node(f"block:{name}", "block", name, where, None))


# each adds its nodes and edges; the order is the order kinds are given to files. Another
# kind of contract (state vocabularies, ...) adds a function here.
CONTRIBUTORS: list[Contributor] = [
    _plugins,
    _components,
    _markers,
    _dispatches,
    _loads,
    _includes,
    _structured,
]


def _attach(b: Builder, findings: tuple[Finding, ...]) -> Graph:
    """Each finding on the nodes it concerns (its file, its agent, its marker) and the edges
    it is about (its agent and marker, its consumer and marker, the line an edge is on)."""
    by_path: dict[str, list[str]] = {}
    for node in b.nodes.values():  # files, and plugins at their manifest
        if node.where is not None and node.key.startswith(("file:", "plugin:")):
            by_path.setdefault(node.where.path, []).append(node.key)
    node_hits: dict[str, list[int]] = {}
    edge_hits: dict[tuple[str, str, str], list[int]] = {}
    edges_at: dict[tuple[str, int, int], list[tuple[str, str, str]]] = {}
    pairs: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for k, e in b.edges.items():
        # an edge written as one entry (a `skills:` name, an include): a finding there is
        # about it
        if e.where is not None and e.kind in ("loads", "includes"):
            edges_at.setdefault(tuple(e.where), []).append(k)
        pairs.setdefault((e.source, e.target), []).append(k)
    unplaced = []
    for i, f in enumerate(findings):
        nodes: set[str] = set()
        if f.path:
            nodes.update(by_path.get(f.path, ()))
        agent = _agent_node(b, f.agent)
        marker = f"marker:{f.marker}" if f.marker is not None else None
        nodes.update(k for k in (agent, marker) if k is not None and k in b.nodes)
        if f.schema is not None and f"file:{f.schema.path}" in b.nodes:
            nodes.add(f"file:{f.schema.path}")
        edges: set[tuple[str, str, str]] = set()
        if f.path:
            edges.update(edges_at.get((f.path, f.line, f.column), ()))
        for source in by_path.get(f.path or "", ()):
            for target in (agent, marker):
                edges.update(pairs.get((source, target), ()) if target else ())
        if agent and marker:
            edges.update(pairs.get((agent, marker), ()))
        if f.schema is not None:  # a block or table against its schema
            for source in by_path.get(f.path or "", ()):
                edges.update(pairs.get((source, f"file:{f.schema.path}"), ()))
        for k in edges:
            edge_hits.setdefault(k, []).append(i)
            # a missing node is what the finding on the edge to it is about
            nodes.update(end for end in k[:2] if b.nodes[end].missing)
        for k in nodes:
            node_hits.setdefault(k, []).append(i)
        if not nodes and not edges:
            unplaced.append(i)
    nodes = tuple(
        n._replace(findings=tuple(node_hits.get(k, ()))) for k, n in sorted(b.nodes.items())
    )
    edges = tuple(
        e._replace(findings=tuple(edge_hits.get(k, ()))) for k, e in sorted(b.edges.items())
    )
    return Graph(nodes, edges, findings, tuple(unplaced))


def _agent_node(b: Builder, name: str | None) -> str | None:
    if name is None:
        return None
    agent = b.facts.agents.get(name)
    return f"file:{agent.path}" if agent is not None else f"missing-agent:{name}"


def restrict(graph: Graph, covers: Callable[[str], bool]) -> Graph:
    """The part of `graph` about some files: the files and plugins `covers` accepts (by
    path; a plugin by its manifest), their neighbours, the plugins those are drawn in, the
    edges between them, and the findings on what is kept (and those on no node, at an
    accepted path)."""
    chosen = {
        n.key
        for n in graph.nodes
        if n.where is not None and n.key.startswith(("file:", "plugin:")) and covers(n.where.path)
    }
    keep = set(chosen)
    for e in graph.edges:
        if e.source in chosen or e.target in chosen:
            keep.update((e.source, e.target))
    groups = {n.group for n in graph.nodes if n.key in keep and n.group is not None}
    keep.update(f"plugin:{g}" for g in groups if graph.node(f"plugin:{g}") is not None)
    nodes = [n for n in graph.nodes if n.key in keep]
    edges = [e for e in graph.edges if e.source in keep and e.target in keep]
    unplaced = [i for i in graph.unplaced if covers(graph.findings[i].path or "")]
    used = sorted({i for x in (*nodes, *edges) for i in x.findings} | set(unplaced))
    new = {old: i for i, old in enumerate(used)}
    return Graph(
        tuple(n._replace(findings=tuple(new[i] for i in n.findings)) for n in nodes),
        tuple(e._replace(findings=tuple(new[i] for i in e.findings)) for e in edges),
        tuple(graph.findings[i] for i in used),
        tuple(new[i] for i in unplaced),
    )

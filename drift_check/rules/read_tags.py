"""DC4xx: the read-tag handshake between spawners and agents."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from drift_check.facts import Facts, ReadGate
from drift_check.fixes.edits import rename_tag
from drift_check.fixes.model import Applicability, Fix
from drift_check.markers import index
from drift_check.records import NamedTuple
from drift_check.rules.base import Hit, rule


@rule(
    "DC401",
    "legacy-read-tag",
    fix="sometimes",
    failing="""
        agents/gsd-planner.md:  Read every file in <required_reading> first.
        workflows/plan.md:      Task(subagent_type="gsd-planner", prompt="
                                <files_to_read> .planning/ROADMAP.md </files_to_read>")
    """,
    passing="""
        workflows/plan.md:  <required_reading> .planning/ROADMAP.md </required_reading>
        or, in a tree whose agents never mention <required_reading>:
        agents/gsd-planner.md:  Read every file in <files_to_read> first.
        workflows/plan.md:      <files_to_read> .planning/ROADMAP.md </files_to_read>
    """,
)
def legacy_read_tag(facts: Facts) -> Iterator[Hit]:
    """A consumer still uses a retired read tag (`<files_to_read>` by default).

    Where agents gate on the current tag (`read-gate-tag`, `<required_reading>`), files listed
    in the old one are never read. The tag counts as retired only where the tree itself moved:
    some agent, in its file or in a document it includes, mentions the gate tag. A fork whose
    agents all still read `<files_to_read>` is not told to rename what they expect, nor is a
    tag that reaches only agents still reading the retired tag and never the gate tag (the
    agent its section dispatches to; with no dispatch named, the agent whose file it is, or
    the agents of the rows whose `Consumed by` cites the file). Rename the tag (pack settings
    `legacy-read-tags` and `read-gate-tag`). The fix is offered only when every tag in the
    file goes to agents that mention the gate tag, so that it never creates DC402; otherwise
    the message names the agents that need the read-gate clause first. The fix also renames
    the tag in the reference documents those agents include or are told to Read ("Read the
    reviews file from `<files_to_read>`"); where such a document cannot be renamed with it
    (another file still sends the old tag to its readers, or a reader never mentions the gate
    tag), the rename would be half done, and the fix is unsafe.
    """
    gate = facts.settings["read-gate-tag"]
    if not gate or not facts.legacy_reads:
        return
    ix = index(facts)
    if not any(ix.names(a, gate) for a in facts.all_agents):
        return  # the tree never moved to the gate tag: the old one is its contract

    def reads_tag(name: str, tag: str) -> bool:
        agent = facts.agents.get(name)
        return agent is not None and ix.names(agent, tag)

    citing: dict[str, set[str]] = {}
    for row in ix.rows:
        for cited in row.consumed_by:
            citing.setdefault(cited.path, set()).add(row.agent)
    own = {a.path: a.name for a in facts.agents.values()}

    def reached(read: ReadGate) -> set[str]:
        """The agents a tag goes to, known agents only (as DC402 sees the gate tag)."""
        if read.dispatched_agent is not None:
            return {read.dispatched_agent}
        path = read.position.path
        return {own[path]} if path in own else citing.get(path, set()) & set(facts.agents)

    def holdout(name: str, tag: str) -> bool:
        return reads_tag(name, tag) and not reads_tag(name, gate)

    plans = []
    for path in sorted(facts.legacy_reads):
        for tag in facts.settings["legacy-read-tags"]:
            reads = [r for r in facts.legacy_reads[path] if r.tag == tag]
            kept = [r for r in reads if not _all(reached(r), lambda a, t=tag: holdout(a, t))]
            if kept:
                ungated = sorted({a for r in kept for a in reached(r) if not reads_tag(a, gate)})
                whole_file = not ungated and len(kept) == len(reads)
                plans.append((path, tag, reads, kept, ungated, whole_file))
    senders: dict[tuple[str, str], set[str]] = {}  # (agent, tag) -> files sending it the tag
    for path, tag, reads, *_ in plans:
        for r in reads:
            for name in reached(r):
                senders.setdefault((name, tag), set()).add(path)
    fixable = {(path, tag) for path, tag, *_, whole_file in plans if whole_file}
    documents = [
        d._replace(
            complete=d.complete
            and all((p, d.tag) in fixable for a in d.readers for p in senders.get((a, d.tag), ()))
        )
        for d in _documents(facts, gate)
    ]
    for path, tag, reads, kept, ungated, whole_file in plans:
        more = f" ({len(kept) - 1} more in this file)" if len(kept) > 1 else ""
        advice = ""
        if ungated:
            names = ", ".join(f"`{a}`" for a in ungated)
            verb = "mentions" if len(ungated) == 1 else "mention"
            advice = f", and add the read-gate clause to {names}, which never {verb} it"
        elif len(kept) < len(reads):
            advice = " where it goes to an agent that reads the gate tag"
        fix = None
        if whole_file:
            agents = {a for r in kept for a in reached(r)}
            read = [d for d in documents if d.tag == tag and agents.intersection(d.readers)]
            fix = _rename(facts, path, tag, gate, read)
        yield Hit(
            kept[0].position,
            f"retired read tag `{tag}`{more}; replace it with `{gate}`{advice}",
            fix=fix,
        )


class _Document(NamedTuple):
    """A reference document agents read that names a retired read tag."""

    path: str
    tag: str
    readers: tuple[str, ...]  # the agents that include it or are told to Read it
    # the tag can be renamed in it: every reader mentions the gate tag (and, once the senders
    # are known, every file sending the tag to its readers is renamed too)
    complete: bool


def _documents(facts: Facts, gate: str) -> list[_Document]:
    out = []
    for path in sorted(facts.reference_reads):
        readers = [a for a in facts.all_agents if any(i.resolved == path for i in a.includes)]
        names = tuple(sorted({a.name for a in readers}))
        gated = all(index(facts).names(a, gate) for a in readers)
        for tag in sorted({r.tag for r in facts.reference_reads[path]}):
            out.append(_Document(path, tag, names, gated))
    return out


def _rename(facts: Facts, path: str, tag: str, gate: str, read: list[_Document]) -> Fix | None:
    """The rename in `path`, and in the reference documents `read` by the agents it sends
    the tag to (`Read the reviews file from <files_to_read>`): renaming the tag only where it
    is sent would leave those documents telling the agent to read a tag it no longer gets.
    Where a document cannot be renamed with it (another file still sends the old tag to its
    readers, or a reader never mentions the gate tag) the rename is half done, and the fix is
    offered as unsafe, naming the documents it leaves."""
    own = rename_tag(facts, path, tag, gate)
    if own is None or not read:
        return own
    complete = [d for d in read if d.complete]
    left = [d for d in read if not d.complete]
    fixes = [own, *(f for d in complete if (f := rename_tag(facts, d.path, tag, gate)))]
    description = own.description
    if complete:
        description += " here and in " + ", ".join(_read_by(d) for d in complete)
    edits = lambda: tuple(e for f in fixes for e in f.resolve())  # noqa: E731
    if not left:
        return Fix(description, Applicability.SAFE, edits)
    description += (
        f" (unsafe: {', '.join(_read_by(d) for d in left)} still names `{tag}` and is left"
        " as it is, since other files send that tag to its readers or a reader never"
        " mentions the gate tag)"
    )
    return Fix(description, Applicability.UNSAFE, edits)


def _read_by(document: _Document) -> str:
    readers = ", ".join(f"`{a}`" for a in document.readers)
    return f"{document.path} (read by {readers})"


def _all(names: set[str], test: Callable[[str], bool]) -> bool:
    """`test` holds for every name, and there is at least one."""
    return bool(names) and all(test(n) for n in names)


@rule(
    "DC402",
    "read-gate-missing",
    failing="""
        | gsd-planner | ... | `## PLANNING COMPLETE` | `workflows/plan.md` |
        workflows/plan.md sends <required_reading>; agents/gsd-planner.md never mentions it
    """,
    passing="""
        agents/gsd-planner.md:  Read every file in <required_reading> before anything else.
    """,
)
def read_gate_missing(facts: Facts) -> Iterator[Hit]:
    """A consumer sends the read-gate tag to an agent whose instructions never mention it.

    The spawner lists files the agent must read, but nothing tells the agent to read them.
    Where the section holding the tag dispatches to another agent (`subagent_type=...`), the
    tag is not this agent's. Add the gate clause to the agent (or a reference it includes).
    """
    gate = facts.settings["read-gate-tag"]
    if not gate:
        return
    ix = index(facts)
    for row, agent in ix.checked_rows():
        if ix.names(agent, gate):
            continue
        for cited in row.consumed_by:
            sent = [
                g
                for g in facts.read_gates.get(cited.path, ())
                if g.dispatched_agent in (None, row.agent)
            ]
            if sent:
                yield Hit(
                    sent[0].position,
                    f"sends `{gate}` to `{row.agent}`, but {agent.path} never mentions it;"
                    " add the read-gate clause to the agent",
                    agent=row.agent,
                )
                break


RULES = (legacy_read_tag, read_gate_missing)

"""DC4xx: the read-tag handshake between spawners and agents."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Facts
from drift_check.rules.base import Hit, rule
from drift_check.rules.edits import rename_tag
from drift_check.rules.index import index


@rule(
    "DC401",
    "legacy-read-tag",
    fix="safe",
    failing="""
        workflows/plan.md:  <files_to_read> .planning/ROADMAP.md </files_to_read>
    """,
    passing="""
        workflows/plan.md:  <required_reading> .planning/ROADMAP.md </required_reading>
    """,
)
def legacy_read_tag(facts: Facts) -> Iterator[Hit]:
    """A consumer still uses a retired read tag (`<files_to_read>` by default).

    Agents now gate on the current tag, so files listed in the old one are never read.
    Rename the tag (the tags are pack settings `legacy-read-tags` and `read-gate-tag`).
    """
    tags = facts.settings.get("legacy-read-tags", [])
    current = facts.settings.get("read-gate-tag", "")
    for path in sorted(facts.consumers):
        consumer = facts.consumers[path]
        for tag in tags:
            pos = consumer.find(tag)
            if pos is None:
                continue
            if consumer.literals is None:
                count = consumer.source.text.count(tag)
            else:
                count = sum(lit.value.count(tag) for lit in consumer.literals)
            more = f" ({count - 1} more in this file)" if count > 1 else ""
            yield Hit(
                pos,
                f"retired read tag `{tag}`{more}; replace it with `{current}`",
                fix=rename_tag(facts, path, tag, current) if current else None,
            )


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
    gate = facts.settings.get("read-gate-tag", "")
    if not gate:
        return
    for row, agent in index(facts).checked_rows(facts):
        if agent.mentions(gate):
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

"""DC1xx: the registry as a roster: one row per agent file, valid cells, real paths."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Agent, Facts, Position
from drift_check.fixes.edits import add_row
from drift_check.fixes.model import Fix
from drift_check.markers import KINDS, covers, index
from drift_check.rules.base import Hit, rule


@rule(
    "DC101",
    "duplicate-registry-row",
    failing="""
        | gsd-planner | Planning | `## PLANNING COMPLETE` |
        | gsd-planner | Planning | `## PLANNING DONE` |
    """,
    passing="""
        | gsd-planner | Planning | `## PLANNING COMPLETE`, `## PLANNING DONE` |
    """,
)
def duplicate_registry_row(facts: Facts) -> Iterator[Hit]:
    """Two registry rows name the same agent.

    Only the first row is checked, so the second documents a contract nothing enforces.
    Merge the rows into one.
    """
    first: dict[str, int] = {}
    for row in index(facts).rows:
        if row.agent in first:
            yield Hit(
                row.position,
                f"agent `{row.agent}` already has a row at line {first[row.agent]};"
                " merge the two rows into one",
                agent=row.agent,
            )
        else:
            first[row.agent] = row.position.line


@rule(
    "DC102",
    "row-without-agent-file",
    failing="""
        | gsd-archivist | Archiving | `## ARCHIVE COMPLETE` |    (no agents/gsd-archivist.md)
    """,
    passing="""
        (the row is removed, or agents/gsd-archivist.md exists)
    """,
)
def row_without_agent_file(facts: Facts) -> Iterator[Hit]:
    """A registry row names an agent that has no agent file.

    The row documents a contract for an agent that cannot run: usually a renamed or deleted
    agent. Rename the row to the agent's file stem, or remove it.
    """
    agents_glob = ", ".join(facts.settings["agents"])
    for row in index(facts).rows:
        if row.agent not in facts.agent_names:
            yield Hit(
                row.position,
                f"registry row for `{row.agent}` but no agent file `{row.agent}.md` matches"
                f" {agents_glob}; rename the row or remove it",
                agent=row.agent,
            )


@rule(
    "DC103",
    "agent-without-row",
    fix="sometimes",
    failing="""
        agents/gsd-archivist.md exists; the registry has no `gsd-archivist` row
    """,
    passing="""
        | gsd-archivist | Archiving | No marker (writes ARCHIVE.md) |
    """,
)
def agent_without_row(facts: Facts) -> Iterator[Hit]:
    """An agent file has no row in the registry.

    Nobody has recorded how callers detect that agent's completion, so its markers are not
    checked against any consumer. Add a row, with `No marker` if it returns none.
    """
    if facts.registry is None:
        return
    ix = index(facts)
    for name in sorted(facts.agents):
        if name not in ix.row_of:
            agent = facts.agents[name]
            line = agent.frontmatter_lines.get("name", 1)
            yield Hit(
                Position(agent.path, line, 1),
                f"agent `{name}` has no row in {facts.registry.path}; add one that lists its"
                " completion markers (or `No marker`)",
                agent=name,
                fix=_new_row_fix(facts, agent),
            )


@rule(
    "DC104",
    "unknown-kind",
    failing="""
        | gsd-planner | Planning | `## PLANNING COMPLETE` | `workflows/plan.md` | sentinel |
    """,
    passing="""
        | gsd-planner | Planning | `## PLANNING COMPLETE` | `workflows/plan.md` | sentinel-match |
    """,
)
def unknown_kind(facts: Facts) -> Iterator[Hit]:
    """A row's Kind is not one of sentinel-match, artifact+query, structured-return.

    The Kind decides which contract applies; an unknown one silently gets the sentinel
    contract. Use one of the three kinds.
    """
    for row in index(facts).rows:
        if row.kind is not None and row.kind not in KINDS and row.kind_position is not None:
            yield Hit(
                row.kind_position,
                f"unknown Kind `{row.kind}` for `{row.agent}`; use one of {', '.join(KINDS)}",
                agent=row.agent,
            )


@rule(
    "DC105",
    "consumed-by-path-missing",
    failing="""
        | gsd-planner | ... | `## PLANNING COMPLETE` | `workflows/plan-phase.md` |   (no such file)
    """,
    passing="""
        | gsd-planner | ... | `## PLANNING COMPLETE` | `workflows/plan.md` |   (the file exists)
    """,
)
def consumed_by_path_missing(facts: Facts) -> Iterator[Hit]:
    """A `Consumed by` cell cites a file that does not exist.

    The cell is the map readers and the consumer rules navigate by; a stale path sends both
    to nothing. Fix the path, or drop it.
    """
    for row in index(facts).rows:
        for cited in row.consumed_by:
            if cited.path not in facts.existing_paths:
                yield Hit(
                    cited.position,
                    f"`Consumed by` of `{row.agent}` cites `{cited.path}`, which does not"
                    " exist; fix the path or drop it",
                    agent=row.agent,
                )


@rule(
    "DC106",
    "declared-marker-case-collision",
    failing="""
        | gsd-research-synthesizer | ... | `## SYNTHESIS COMPLETE` |
        | gsd-doc-synthesizer      | ... | `## Synthesis Complete` |
    """,
    passing="""
        | gsd-research-synthesizer | ... | `## SYNTHESIS COMPLETE` |
        | gsd-doc-synthesizer      | ... | `## DOC SYNTHESIS COMPLETE` |
    """,
)
def declared_marker_case_collision(facts: Facts) -> Iterator[Hit]:
    """Two declared markers differ only by case.

    A consumer that matches one case-insensitively also matches the other, and a human
    reading the table cannot tell them apart. Rename one of them.
    """
    variants: dict[str, set[str]] = {}
    rows = index(facts).rows
    for row in rows:
        for m in row.markers:
            variants.setdefault(m.text.lower(), set()).add(m.text)
    for row in rows:
        for m in row.markers:
            others = sorted(variants[m.text.lower()] - {m.text})
            if others:
                yield Hit(
                    m.position,
                    f"`{m.text}` differs only by case from "
                    + ", ".join(f"`{o}`" for o in others)
                    + "; rename one so they cannot be confused",
                    agent=row.agent,
                    marker=m.text,
                )


@rule(
    "DC107",
    "unconsumed-without-reason",
    blind_spot=True,
    failing="""
        | gsd-verifier | ... | `## Verification Complete` (unconsumed) |
    """,
    passing="""
        | gsd-verifier | ... | `## Verification Complete` (unconsumed: display heading only) |
    """,
)
def unconsumed_without_reason(facts: Facts) -> Iterator[Hit]:
    """A marker is annotated `(unconsumed)` without saying why.

    The annotation waives the consumer requirement; without a reason it is a silencer, not a
    recorded decision. Write the reason after a colon: `(unconsumed: why)`.
    """
    for row in index(facts).rows:
        for m in row.markers:
            if m.unconsumed and not m.unconsumed_reason:
                yield Hit(
                    m.position,
                    f"`{m.text}` is marked unconsumed without a reason; write"
                    " `(unconsumed: <why nothing matches it>)`",
                    agent=row.agent,
                    marker=m.text,
                )


RULES = (
    duplicate_registry_row,
    row_without_agent_file,
    agent_without_row,
    unknown_kind,
    consumed_by_path_missing,
    declared_marker_case_collision,
    unconsumed_without_reason,
)


def _new_row_fix(facts: Facts, agent: Agent) -> Fix | None:
    """DC103's fix: the agent's markers in the order it shows them, without a heading that
    another of them covers (`## BLOCKED: {why}` under `## BLOCKED`), and their consumers."""
    ix = index(facts)
    shown: list[str] = []
    for e in agent.emissions:
        if ix.marker_shaped(e.text) and e.text not in shown:
            shown.append(e.text)
    markers = [m for m in shown if not any(o != m and covers(o, m) for o in shown)]
    consumers, _ = ix.would_consume(markers, agent.name) if markers else ({}, set())
    return add_row(facts, agent, markers, consumers)

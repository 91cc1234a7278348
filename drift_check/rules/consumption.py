"""DC3xx: who consumes each marker, and what consumers match that nobody emits."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Agent, Facts, Occurrence, QuotedMarker, RegistryRow
from drift_check.fixes.edits import drop_cited, replace_text, rewrite_consumed_by
from drift_check.markers import index, is_sentinel
from drift_check.rules.base import Fix, Hit, rule


@rule(
    "DC301",
    "marker-without-consumer",
    failing="""
        | gsd-roadmapper | ... | `## ROADMAP BLOCKED` |   (no workflow contains the text)
    """,
    passing="""
        workflows/roadmap.md:  If the agent returns `## ROADMAP BLOCKED`, stop and ask.
    """,
)
def marker_without_consumer(facts: Facts) -> Iterator[Hit]:
    """A sentinel-match marker is emitted but no workflow, command, hook or other agent
    contains its exact text.

    The agent reports something nobody acts on: a silent dead end. Add the branch that handles
    it, mark it `(unconsumed: reason)` if it is display-only, or change the row's Kind.
    """
    ix = index(facts)
    for row, agent in ix.checked_rows():
        if not is_sentinel(row):
            continue
        for m in row.markers:
            if m.unconsumed or not ix.emits(agent, m.text):
                continue
            if ix.consumers_of(m.text, agent.name):
                continue
            if ix.case_only_consumer(m.text, agent.name) is None:
                yield Hit(
                    m.position,
                    f"`{m.text}` from `{row.agent}` is consumed by no file; add the branch that"
                    " matches it, or annotate it `(unconsumed: reason)`",
                    agent=row.agent,
                    marker=m.text,
                )


@rule(
    "DC302",
    "consumer-matches-case-only",
    fix="unsafe",
    failing="""
        registry:  | gsd-verifier | ... | `## VERIFICATION COMPLETE` |
        workflows/verify.md:  wait for `## Verification Complete`
    """,
    passing="""
        workflows/verify.md:  wait for `## VERIFICATION COMPLETE`
    """,
)
def consumer_matches_case_only(facts: Facts) -> Iterator[Hit]:
    """A marker's only consumers spell it with a different case.

    Matching is exact-case, so the branch never fires. Fix the consumer's spelling, or change
    the marker and its registry entry to match.
    """
    ix = index(facts)
    for row, agent in ix.checked_rows():
        if not is_sentinel(row):
            continue
        for m in row.markers:
            if m.unconsumed or not ix.emits(agent, m.text):
                continue
            if ix.consumers_of(m.text, agent.name):
                continue
            where = ix.case_only_consumer(m.text, agent.name)
            if where is not None:
                yield Hit(
                    m.position,
                    f"`{m.text}` from `{row.agent}` is matched only case-insensitively (at"
                    f" {where.position}); use the exact case in the consumer or the marker",
                    agent=row.agent,
                    marker=m.text,
                    fix=_respell(facts, where, m.text),
                )


@rule(
    "DC303",
    "consumed-by-cites-no-consumer",
    fix="sometimes",
    failing="""
        | gsd-planner | ... | `## PLANNING COMPLETE` | `workflows/quick.md` |
        only workflows/plan.md contains `## PLANNING COMPLETE`
    """,
    passing="""
        | gsd-planner | ... | `## PLANNING COMPLETE` | `workflows/plan.md` |
    """,
)
def consumed_by_cites_no_consumer(facts: Facts) -> Iterator[Hit]:
    """A marker is consumed, but by none of the files the row's `Consumed by` cites.

    The cell is documentation people and the read-gate rule navigate by; it points at the
    wrong files. Cite the files that really match the marker.
    """
    ix = index(facts)
    for row, agent in ix.checked_rows():
        cited = {c.path for c in row.consumed_by}
        if not is_sentinel(row) or not cited:
            continue
        for m in row.markers:
            if m.unconsumed or not ix.emits(agent, m.text):
                continue
            found = ix.consumers_of(m.text, agent.name)
            if found and not cited.intersection(o.path for o in found):
                real = ", ".join(f"`{o.path}`" for o in found[:3])
                yield Hit(
                    m.position,
                    f"`{m.text}` is consumed by {real}, none of which `Consumed by` cites;"
                    " cite the files that match it",
                    agent=row.agent,
                    marker=m.text,
                    fix=rewrite_consumed_by(row, _row_consumers(facts, row, agent)),
                )


@rule(
    "DC304",
    "consumed-by-entry-unused",
    fix="safe",
    blind_spot=True,
    failing="""
        | gsd-planner | ... | `## PLANNING COMPLETE` | `workflows/plan.md`, `workflows/ship.md` |
        workflows/ship.md never mentions `## PLANNING COMPLETE`
    """,
    passing="""
        | gsd-planner | ... | `## PLANNING COMPLETE` | `workflows/plan.md` |
    """,
)
def consumed_by_entry_unused(facts: Facts) -> Iterator[Hit]:
    """A file cited in `Consumed by` consumes none of the row's markers.

    Each cited file is checked on its own: one real consumer does not make the others true.
    Remove the entry, or add the match it is cited for.
    """
    ix = index(facts)
    for row, agent in ix.checked_rows():
        if not is_sentinel(row):
            continue
        markers = [m.text for m in row.markers if ix.emits(agent, m.text)]
        if not markers:
            continue
        for cited in row.consumed_by:
            if cited.path not in facts.consumers or cited.path == agent.path:
                continue
            if not any(ix.contains(cited.path, m) for m in markers):
                # a file that still matches a marker of the row (one the agent does not
                # show: DC201 reports that) is cited for a reason: it stays
                keeps = any(ix.contains(cited.path, m.text) for m in row.markers)
                yield Hit(
                    cited.position,
                    f"`{cited.path}` is cited as a consumer of `{row.agent}` but contains none"
                    f" of its markers ({', '.join(f'`{m}`' for m in markers)}); drop the entry"
                    " or add the match",
                    agent=row.agent,
                    fix=None if keeps else drop_cited(row, cited),
                )


@rule(
    "DC305",
    "quoted-marker-undeclared",
    failing="""
        workflows/execute.md:  on `## PHASE COMPLETE`, continue   (no row declares it)
        without a registry:
        workflows/debug.md:    Task(subagent_type="debugger") ... on `## ROOT CAUSE FOUND`
                               (no agent shows `## ROOT CAUSE FOUND` in a fenced block)
    """,
    passing="""
        | gsd-executor | ... | `## PHASE COMPLETE` |
        without a registry:
        agents/debugger.md:  ## ROOT CAUSE FOUND   (in its fenced return template)
    """,
)
def quoted_marker_undeclared(facts: Facts) -> Iterator[Hit]:
    """A workflow or command quotes a marker-shaped `## TOKEN` that no agent declares (or,
    in a tree without a registry, that no agent emits).

    It dispatches on a return nothing is contracted to produce: a phantom branch. A quote
    that is a declared marker, carries one (`## ISSUES FOUND: 3`) or begins one passes.
    Declare the producing agent's marker in the registry, or remove the branch.

    Where the tree has no registry, what agents emit is the contract: the quote passes when
    some agent shows it (or a heading it begins) in a fenced block. Without a registry a
    quote is taken as a match instruction only where the text says so: its section
    dispatches to one agent (`subagent_type=...`), or the same paragraph or list quotes a
    marker an agent emits. Show the marker in the return template of the agent that returns
    it, or remove the branch.

    When an agent emits a near miss, the message names it and the agent file (`did you mean
    ## REVIEW COMPLETE, which agents/reviewer.md emits?`): the same words in another case,
    spacing or order, or two words or more of which one is changed by a single letter or
    into another word for the same outcome (`DONE`, `COMPLETE`, `COMPLETED`, `FINISHED`;
    `FAILED`, `FAILURE`). The agent the section dispatches to is asked first; when two
    markers are equally near, none is named.
    """
    ix = index(facts)
    ignored = set(facts.settings["non-agent-tokens"])
    if facts.registry is None:
        yield from _quoted_marker_not_emitted(facts, ignored)
        return
    seen: set[tuple[str, str]] = set()
    for q in facts.quoted_markers:
        if not q.dispatch_surface or q.text in ignored:
            continue
        if not ix.marker_shaped(q.text) or (q.position.path, q.text) in seen:
            continue
        if ix.quotes_declared(q.text):
            continue
        seen.add((q.position.path, q.text))
        yield Hit(
            q.position,
            f"`## {q.text}` is matched here but no registry row declares it; declare the agent"
            " that returns it, or remove the branch" + _near_miss_hint(facts, q),
            marker=q.text,
        )


def _near_miss_hint(facts: Facts, q: QuotedMarker) -> str:
    """The end of a DC305 message: the marker an agent does emit that the quote most likely
    meant (see `Index.near_miss`), if there is one."""
    found = index(facts).near_miss(q.text, q.dispatched_agent)
    if found is None:
        return ""
    marker, paths = found
    where = ", ".join(paths[:2]) + (f" and {len(paths) - 2} more" if len(paths) > 2 else "")
    return f"; did you mean `## {marker}`, which {where} emit{'s' if len(paths) == 1 else ''}?"


def _quoted_marker_not_emitted(facts: Facts, ignored: set[str]) -> Iterator[Hit]:
    """DC305 without a registry: quotes in a dispatch context that no agent emits."""
    ix = index(facts)
    quotes = [q for q in facts.quoted_markers if q.dispatch_surface and q.text not in ignored]
    emitted_in_block = {
        (q.position.path, q.block_line) for q in quotes if ix.quotes_emitted(q.text)
    }
    seen: set[tuple[str, str]] = set()
    for q in quotes:
        if not ix.marker_shaped(q.text) or ix.quotes_emitted(q.text):
            continue
        dispatched = q.dispatched_agent is not None
        if not dispatched and (q.position.path, q.block_line) not in emitted_in_block:
            continue  # nothing says this quote is matched on an agent's return
        if (q.position.path, q.text) in seen:
            continue
        seen.add((q.position.path, q.text))
        where = f" (this section dispatches to `{q.dispatched_agent}`)" if dispatched else ""
        yield Hit(
            q.position,
            f"`## {q.text}` is matched here{where} but no agent emits it in a fenced block;"
            " show it in the return template of the agent that returns it, or remove the"
            " branch" + _near_miss_hint(facts, q),
            agent=q.dispatched_agent,
            marker=q.text,
        )


@rule(
    "DC306",
    "dispatch-on-foreign-marker",
    blind_spot=True,
    failing="""
        workflows/plan.md:
            Task(subagent_type="gsd-planner", ...)
            On `## CHECKPOINT REACHED`: ask the user.   (gsd-planner never emits it)
    """,
    passing="""
        agents/gsd-planner.md shows `## CHECKPOINT REACHED` in its return template
    """,
)
def dispatch_on_foreign_marker(facts: Facts) -> Iterator[Hit]:
    """A workflow matches a marker on the return of an agent that never emits it.

    The section dispatches to exactly one agent (`subagent_type=...`) and quotes a declared
    marker that agent neither emits nor declares, so the branch can never fire. Match a marker
    the agent returns, or teach the agent to return it.
    """
    ix = index(facts)
    seen: set[tuple[str, int, str]] = set()
    for q in facts.quoted_markers:
        name = q.dispatched_agent
        if name is None or not q.dispatch_surface or q.text not in ix.declared:
            continue
        agent = facts.agents.get(name)
        row = ix.row_of.get(name)
        if agent is None or ix.emits(agent, q.text):
            continue
        if row is not None and q.text in row.all_marker_texts:
            continue  # DC201 already says the agent does not emit its own marker
        key = (q.position.path, q.position.line, q.text)
        if key in seen:
            continue
        seen.add(key)
        owners = ", ".join(f"`{o}`" for o in sorted(ix.declared[q.text]))
        yield Hit(
            q.position,
            f"this section dispatches to `{name}` and matches `## {q.text}`, which only"
            f" {owners} emits; `{name}` never returns it",
            agent=name,
            marker=q.text,
        )


RULES = (
    marker_without_consumer,
    consumer_matches_case_only,
    consumed_by_cites_no_consumer,
    consumed_by_entry_unused,
    quoted_marker_undeclared,
    dispatch_on_foreign_marker,
)


def _respell(facts: Facts, where: Occurrence, marker: str) -> Fix | None:
    """The consumer's spelling replaced with the registry's, where it is plain text."""
    consumer = facts.consumers.get(where.path)
    if consumer is None or where.path.endswith(".py"):
        return None  # a Python match is reported at its literal, not at the text itself
    if not consumer.dispatch_surface:
        return None  # an agent's text (its own return template): not a place that matches
    if where.written.lower() != marker.lower():
        return None
    at = where.position
    return replace_text(
        where.path, at.line, at.column, where.written, marker, f"spell it `{marker}` here"
    )


def _row_consumers(facts: Facts, row: RegistryRow, agent: Agent) -> list[str]:
    """Every file that consumes one of the row's emitted, consumed markers, and every cited
    file that still contains one of its markers (a hook matching an unconsumed one), sorted."""
    ix = index(facts)
    paths = {
        o.path
        for m in row.markers
        if not m.unconsumed and ix.emits(agent, m.text)
        for o in ix.consumers_of(m.text, agent.name)
    }
    for cited in row.consumed_by:
        if any(ix.contains(cited.path, m.text) for m in row.markers):
            paths.add(cited.path)
    return sorted(paths)

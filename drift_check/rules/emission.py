"""DC2xx: what agents emit (fenced headings) against what their rows declare."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Agent, Emission, Facts
from drift_check.fixes.edits import add_to_row, remove_from_row, replace_text
from drift_check.markers import NON_SENTINEL, covers, index
from drift_check.rules.base import Hit, rule


def _where(e: Emission) -> str:
    """Where an emission reached through a document sits; the words that reach it are
    quoted as code unless they hold their own (``Read `x.md` ``)."""
    if e.via is None:
        return ""
    via = e.via if "`" in e.via else f"`{e.via}`"
    return f" (in {e.position.path}, reached through {via})"


def _first_emissions(agent: Agent) -> dict[str, Emission]:
    out: dict[str, Emission] = {}
    for e in agent.emissions:
        out.setdefault(e.text, e)
    return out


@rule(
    "DC201",
    "declared-marker-not-emitted",
    fix="unsafe",
    failing="""
        registry:  | gsd-planner | ... | `## PLANNING COMPLETE`, `## PLAN` |
        agents/gsd-planner.md has no fenced `## PLANNING COMPLETE` heading,
        and `## PLANNING COMPLETE` does not carry `## PLAN` (no separator after it)
    """,
    passing="""
        registry:  | gsd-planner | ... | `## PLANNING COMPLETE`, `## ⚠ Source Audit` |
        agents/gsd-planner.md:
            ```markdown
            ## PLANNING COMPLETE
            ```
            ```markdown
            ## ⚠ Source Audit: Unplanned Items Found
            ```
    """,
)
def declared_marker_not_emitted(facts: Facts) -> Iterator[Hit]:
    """A marker the registry declares for an agent appears in no fenced block of the agent
    file or of a reference document it includes.

    Callers wait for a marker the agent was never shown how to return. A declared marker may
    be the beginning of the heading the agent emits: it covers a heading that continues it
    after `:` or after a space and `-`, an en or em dash, `(` or `[` (the declared
    `## ⚠ Source Audit` covers `## ⚠ Source Audit: Unplanned Items Found`), and a caller
    that matches that beginning consumes it. A bare space or letter never ends a marker:
    `## PLAN` covers neither `## PLANNING COMPLETE` nor `## PLAN COMPLETE`. The same holds
    for DC202 to DC205 and the consumer rules. Emit the marker as a heading inside the
    agent's return template, or remove it from the row.
    """
    ix = index(facts)
    for row, agent in ix.checked_rows():
        for m in row.markers:
            if not ix.emits(agent, m.text):
                yield Hit(
                    m.position,
                    f"`{m.text}` is declared for `{row.agent}` but {agent.path} never emits it"
                    " in a fenced block; add it to the agent's return template or remove it"
                    " from the row",
                    agent=row.agent,
                    marker=m.text,
                    # an agent that names the marker outside a fence may be meant to return
                    # it: whether to fence it there or drop it from the row is a person's call
                    fix=None if ix.names(agent, m.text) else remove_from_row(row, m),
                )


@rule(
    "DC202",
    "emitted-marker-not-declared",
    fix="sometimes",
    failing="""
        agents/gsd-planner.md:
            ```markdown
            ## PHASE SPLIT RECOMMENDED
            ```
        registry:  | gsd-planner | ... | `## PLANNING COMPLETE` |
    """,
    passing="""
        registry:  | gsd-planner | ... | `## PLANNING COMPLETE`, `## PHASE SPLIT RECOMMENDED` |
        a heading that carries a declared marker passes too:
        registry:  | gsd-planner | ... | `## ⚠ Source Audit` |
        agents/gsd-planner.md:  ## ⚠ Source Audit: Unplanned Items Found   (in a fence)
    """,
)
def emitted_marker_not_declared(facts: Facts) -> Iterator[Hit]:
    """An agent emits a marker-shaped fenced heading that its row does not declare.

    A heading counts as a marker when it is ALL-CAPS marker-shaped, or, whatever its case or
    script, when a workflow or command quotes it, or its beginning, as `## ...` where it
    matches this agent's return (in a section that dispatches to the agent, or next to one of
    its markers). A heading that carries a declared marker as its beginning is that marker,
    declared (see DC201: `## ⚠ Source Audit: Unplanned Items Found` for the declared
    `## ⚠ Source Audit`; `## PLAN` covers neither `## PLANNING COMPLETE` nor
    `## PLAN COMPLETE`). Undeclared markers are invisible to the consumer checks, so nothing
    notices when a caller stops matching them. Add it to the row (where callers match only
    its beginning, add that beginning: it covers every heading that starts with it). When no
    file matches it yet, declaring it alone would leave it unconsumed (DC301, so `--fix`
    withholds that fix): add the branch that handles it first, or declare it
    `(unconsumed: reason)`.
    """
    ix = index(facts)
    ignored = set(facts.settings["non-agent-tokens"])
    for row, agent in ix.checked_rows():
        if row.kind in NON_SENTINEL:
            continue
        matched = ix.matched_on(agent.name, set(row.all_marker_texts))
        found: list[tuple[str, Emission, str]] = []
        for text, e in _first_emissions(agent).items():
            if text in ignored or ix.declared_covering(text):
                continue  # declared (itself or a marker it carries), here or on another row
            if ix.case_variant(text) is not None:
                continue  # DC204 reports it
            callers = sorted((q for q in matched if covers(q, text)), key=len)
            if not (callers or ix.marker_shaped(text)):
                continue
            found.append((text, e, callers[0] if callers else text))  # what every caller matches
        if not found:
            continue
        consumers, case_only = ix.would_consume([d for _, _, d in found], agent.name)
        declares = {d for _, _, d in found}
        offered: set[str] = set()
        for text, e, declare in found:
            what = "it" if declare == text else f"`## {declare}`, the part callers match,"
            todo, fix = f"; add {what} to the row", None
            if not consumers[declare]:  # declared, it would have no consumer (DC301, DC302)
                case = " (only in another case)" if declare in case_only else ""
                todo = (
                    f"; no file matches it yet{case}: add the branch that handles it, then add"
                    f" {what} to the row, or add it annotated `(unconsumed: reason)`"
                )
            if declare in offered or any(d != declare and covers(d, declare) for d in declares):
                pass  # one fix declares the beginning these headings share
            else:
                offered.add(declare)
                fix = add_to_row(row, declare, ix.rows, _read_only_reason(agent, declare))
            yield Hit(
                e.position,
                f"`{agent.name}` emits `## {text}`{_where(e)} but its registry row"
                f" (line {row.position.line}) does not declare it{todo}",
                agent=agent.name,
                marker=text,
                fix=fix,
            )


def _read_only_reason(agent: Agent, marker: str) -> str:
    """Why declaring `marker` is unsafe when the agent shows it only in documents it is
    told to Read (checkers that follow only `@` includes, GSD's own, do not see it)."""
    vias = [e.via for e in agent.emissions if covers(marker, e.text)]
    if vias and all(v is not None and v.startswith("Read ") for v in vias):
        return (
            f"`{agent.name}` shows it only in a document reached through a `Read` mention,"
            " which checkers that follow only `@` includes (GSD's own) do not follow: they"
            " would report it declared but never emitted"
        )
    return ""


@rule(
    "DC203",
    "vestigial-marker",
    failing="""
        | gsd-codebase-mapper | ... | No marker (writes docs) | ... | artifact+query |
        agents/gsd-codebase-mapper.md still shows `## MAPPING COMPLETE` in a fence
    """,
    passing="""
        agents/gsd-codebase-mapper.md has no marker heading in its return template
    """,
)
def vestigial_marker(facts: Facts) -> Iterator[Hit]:
    """An artifact+query or structured-return agent still emits a marker.

    A marker here is a heading some row declares, or an undeclared one that looks like a
    marker (as in DC202). The Kind says callers read an artifact or parse the return, not
    match a marker; a marker left in the template invites a caller to match it. Remove the
    heading, or declare it `(unconsumed: reason)` if it is kept on purpose.
    """
    ix = index(facts)
    ignored = set(facts.settings["non-agent-tokens"])
    for row, agent in ix.checked_rows():
        if row.kind not in NON_SENTINEL:
            continue
        kept = {m.text for m in row.markers if m.unconsumed}
        matched = ix.matched_on(agent.name, set(row.all_marker_texts))
        for text, e in _first_emissions(agent).items():
            if text in ignored or any(covers(k, text) for k in kept):
                continue
            if (
                ix.declared_covering(text)
                or ix.marker_shaped(text)
                or any(covers(q, text) for q in matched)
            ):
                yield Hit(
                    e.position,
                    f"`{agent.name}` is {row.kind} but still emits `## {text}`{_where(e)};"
                    " remove the heading or declare it `(unconsumed: reason)`",
                    agent=agent.name,
                    marker=text,
                )


@rule(
    "DC204",
    "emitted-marker-case-mismatch",
    fix="unsafe",
    blind_spot=True,
    failing="""
        registry:  | gsd-verifier | ... | `## VERIFICATION COMPLETE` |
        agents/gsd-verifier.md emits `## Verification Complete`
    """,
    passing="""
        agents/gsd-verifier.md emits `## VERIFICATION COMPLETE`
    """,
)
def emitted_marker_case_mismatch(facts: Facts) -> Iterator[Hit]:
    """An agent emits a heading that differs only by case from a declared marker.

    Callers match exact case, so the agent's real return never matches. A heading that
    carries a declared marker as its beginning (`## ⚠ SOURCE AUDIT: 2 gaps` for the declared
    `⚠ Source Audit`) is compared by that beginning. Use the declared spelling in the
    template, or change the registry and every consumer together.
    """
    ix = index(facts)
    for agent in sorted(facts.agents.values(), key=lambda a: a.name):
        for text, e in _first_emissions(agent).items():
            if ix.declared_covering(text):
                continue
            variant = ix.case_variant(text)
            if variant is None:
                continue
            part, declared_markers = variant
            row = ix.row_of.get(agent.name)
            own = set(row.all_marker_texts) if row is not None else set()
            for declared in declared_markers:
                # respelled towards another agent's marker, it would emit that agent's marker
                column = e.text_column if declared in own else 0
                owners = ", ".join(f"`{a}`" for a in sorted(ix.declared.get(declared, ())))
                which = (
                    f"the declared `{declared}`"
                    if declared in own or not owners
                    else f"`{declared}` (the registry declares it for {owners})"
                )
                yield Hit(
                    e.position,
                    f"`{agent.name}` emits `## {text}`{_where(e)}, which differs only by case"
                    f" from {which}; consumers match exact case, so use one spelling"
                    " everywhere",
                    agent=agent.name,
                    marker=text,
                    fix=replace_text(
                        e.position.path,
                        e.position.line,
                        column,
                        part,
                        declared,
                        f"spell the heading `## {declared + text[len(part) :]}`",
                    )
                    if column
                    else None,
                )


@rule(
    "DC205",
    "emits-another-rows-marker",
    blind_spot=True,
    failing="""
        registry:  | gsd-executor | ... | `## PLAN COMPLETE` |
                   | gsd-planner  | ... | `## PLANNING COMPLETE` |
        agents/gsd-executor.md emits `## PLANNING COMPLETE` in a fence
    """,
    passing="""
        registry:  | gsd-executor | ... | `## PLAN COMPLETE`, `## PLANNING COMPLETE` |
    """,
)
def emits_another_rows_marker(facts: Facts) -> Iterator[Hit]:
    """An agent emits a marker that another row declares but its own row does not.

    Callers that dispatch on that marker believe only the other agent returns it. Add the
    marker to this agent's row too (it is then a co-producer), or remove the heading.
    """
    ix = index(facts)
    for row, agent in ix.checked_rows():
        if row.kind in NON_SENTINEL:
            continue  # DC203 reports every declared marker such an agent emits
        own = set(row.all_marker_texts)
        for text, e in _first_emissions(agent).items():
            declared = ix.declared_covering(text)
            if not declared or own.intersection(declared):
                continue
            marker = declared[0]
            owners = ", ".join(f"`{o}`" for o in sorted(ix.declared[marker]))
            carries = "" if marker == text else f", which carries the marker `{marker}`"
            yield Hit(
                e.position,
                f"`{agent.name}` emits `## {text}`{_where(e)}{carries}, which the registry"
                f" declares only for {owners}; add it to this agent's row or remove the"
                " heading",
                agent=agent.name,
                marker=marker,
            )


@rule(
    "DC206",
    "kind-contradicts-tools",
    blind_spot=True,
    failing="""
        | gsd-integration-checker | ... | No marker | ... | artifact+query |
        agents/gsd-integration-checker.md:  tools: Read, Grep, Glob
    """,
    passing="""
        | gsd-integration-checker | ... | No marker | ... | artifact+query |
        agents/gsd-integration-checker.md:  tools: Read, Bash, Grep
    """,
)
def kind_contradicts_tools(facts: Facts) -> Iterator[Hit]:
    """An artifact+query agent has no tool that writes files.

    Its callers read an artifact the agent cannot write, so they find nothing or a stale file.
    A tool that writes files (`write-tools`: Write, Edit, ...) or runs commands (`shell-tools`:
    Bash, PowerShell, also restricted as `Bash(git:*)`) is enough, since a command can write
    the artifact; an agent without a `tools:` key has every tool. Grant Write (or Edit), or
    change the Kind to structured-return.
    """
    write_tools = list(facts.settings["write-tools"])
    able = set(write_tools) | set(facts.settings["shell-tools"])
    for row, agent in index(facts).checked_rows():
        if row.kind != "artifact+query" or agent.tools is None or row.kind_position is None:
            continue
        if not able.intersection(_tool_name(t) for t in agent.tools):
            line = agent.frontmatter_lines.get("tools", 1)
            yield Hit(
                row.kind_position,
                f"`{row.agent}` is artifact+query but its tools ({agent.path}:{line}:"
                f" {', '.join(agent.tools) or 'none'}) cannot write a file; grant"
                f" {' or '.join(write_tools[:2])}, or make the Kind structured-return",
                agent=row.agent,
            )


def _tool_name(grant: str) -> str:
    """`Bash(git diff:*)` grants the Bash tool, restricted to some commands."""
    return grant.split("(", 1)[0].strip()


RULES = (
    declared_marker_not_emitted,
    emitted_marker_not_declared,
    vestigial_marker,
    emitted_marker_case_mismatch,
    emits_another_rows_marker,
    kind_contradicts_tools,
)

"""DC960-DC969: names text relies on: skills loaded by name, the agents or commands said to
spawn an agent, and citations of Python code that must still hold what they cite."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from drift_check.facts import Facts, PythonModule
from drift_check.rules.base import Hit, rule

# Claude Code's own subagent types, which a text may say spawn an agent
_BUILTIN_AGENTS = frozenset({"general-purpose", "explore", "plan", "statusline-setup"})


def _skill_names(facts: Facts) -> set[str]:
    names = {d.rsplit("/", 1)[-1] for d in facts.skill_dirs} | set(facts.skill_names)
    names.update(facts.settings["builtin-skills"])
    for command in facts.commands.values():
        # a command is a skill for the Skill tool; GSD installs `gsd:x` as `gsd-x`
        names.update({command.name, command.name.replace(":", "-")})
    return names


def _plugin_roots(facts: Facts) -> dict[str, str]:
    roots = {
        e.name.name: e.root
        for m in facts.manifests.marketplaces
        for e in m.entries
        if e.name is not None and e.root is not None
    }
    roots.update((p.name.name, p.root) for p in facts.manifests.plugins if p.name is not None)
    return roots


@rule(
    "DC960",
    "unknown-skill-reference",
    failing="""
        skills/agent-response/SKILL.md:   load Skill("orchestrator-aproval")
        (there is no skills/orchestrator-aproval/)
    """,
    passing="""
        skills/agent-response/SKILL.md:   load Skill("orchestrator-approval")
    """,
    blind_spot=True,
)
def unknown_skill_reference(facts: Facts) -> Iterator[Hit]:
    """Text loads a skill by name (`Skill("x")`, "load the skill from
    `skills/x/SKILL.md`") that the tree does not have.

    The Skill tool finds nothing under that name at run time, so the protocol the text
    relies on is never loaded. Fix the name, or add the skill. A name is known when it is a
    skill folder or frontmatter `name`, a command (`gsd:x`, also as `gsd-x`), one of the
    host's bundled skills (`builtin-skills`), or `plugin:skill` of a plugin in the tree; a
    `plugin:skill` of a plugin not in the tree is left alone, and so is a word that stands
    for any skill's name (`Skill("name")`, `Skill("my-skill")`, a name in capitals). Checked
    only in trees with skills or commands.
    """
    if not (facts.skill_dirs or facts.commands):
        return
    known = _skill_names(facts)
    plugins: dict[str, str] | None = None
    folders: set[tuple[str, str]] | None = None
    for ref in facts.name_references:
        if ref.kind != "skill" or ref.name in known:
            continue
        plugin, _, skill = ref.name.rpartition(":")
        if plugin:
            plugins = _plugin_roots(facts) if plugins is None else plugins
            root = plugins.get(plugin)
            if root is None:
                continue
            if folders is None:
                folders = {
                    (folder, s.name) for s in facts.skills.values() for folder in _above(s.path)
                }
            if (root, skill) in folders:
                continue
        close = _close(ref.name, sorted(known), 0.8)
        hint = f" (did you mean `{close[0]}`?)" if close else ""
        yield Hit(
            ref.position,
            f"`{ref.written}` names skill `{ref.name}`, which the tree does not have{hint};"
            " fix the name or add the skill",
        )


def _above(path: str) -> list[str]:
    out = []
    while "/" in path:
        path = path.rsplit("/", 1)[0]
        out.append(path)
    out.append("")
    return out


@rule(
    "DC961",
    "unknown-spawner",
    failing="""
        agents/gsd-debugger.md:   You are spawned by `/gsd:debugg` (interactive debugging)
        (there is no commands/gsd/debugg.md)
    """,
    passing="""
        agents/gsd-debugger.md:   You are spawned by `/gsd:debug` (interactive debugging)
    """,
    blind_spot=True,
)
def unknown_spawner(facts: Facts) -> Iterator[Hit]:
    """Text says an agent is spawned or dispatched by a command, workflow, agent or skill
    that the tree does not have.

    The agent's documented caller was renamed or removed: whoever reads the agent follows a
    dead lead, and the caller that really spawns it may pass what the agent no longer
    expects. Fix the name. Only names in backticks, `/commands`, and kebab-case names
    followed by what they are (`` `diagnose-issues` workflow ``) are checked, against
    agents, skills, commands and the names of the tree's files; checked only in trees with
    agents, skills or commands.
    """
    if not (facts.all_agents or facts.skill_dirs or facts.commands):
        return
    spawners = [ref for ref in facts.name_references if ref.kind == "spawner"]
    # the names asked about, lowered: only those of the tree's names are kept (a set of every
    # file's stem was a large tree's peak memory)
    asked = {n.lower() for ref in spawners for n in (ref.name, ref.name.replace(":", "-"))}
    asked.update(p.lower() for ref in spawners for p in ref.name.split(":"))
    known = chain(
        _skill_names(facts) - set(facts.settings["builtin-skills"]),
        (a.name for a in facts.all_agents),
        facts.agent_names,
        map(_stem, facts.existing_paths),
    )
    lowered = {n for n in map(str.lower, known) if n in asked} | _BUILTIN_AGENTS
    for ref in spawners:
        name = ref.name
        leaf = name.rsplit(":", 1)[-1]
        if name.lower() in lowered or name.replace(":", "-").lower() in lowered:
            continue
        if ":" in name and leaf.lower() in lowered and name.split(":")[0].lower() in lowered:
            continue
        yield Hit(
            ref.position,
            f"`{ref.written.strip().strip('`')}` is named as what spawns this agent, but the"
            f" tree has no agent, skill, command or file called `{name}`; fix the name",
        )


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.split(".", 1)[0] if not name.startswith(".") else name


def _defined(module: PythonModule, symbol: str) -> bool:
    """Whether the module defines `symbol` (`name`, `Class.member`); a member of something
    whose members are not all known (a class with a base, an import) is taken on trust."""
    parts = symbol.split(".")
    if parts[0] not in module.symbols:
        # `tests/x.py::test_y` for a method of a test class: shorthand, not drift
        return len(parts) == 1 and any(k.endswith("." + symbol) for k in module.symbols)
    for i in range(1, len(parts)):
        if ".".join(parts[: i + 1]) not in module.symbols:
            return ".".join(parts[:i]) not in module.closed
    return True


@rule(
    "DC962",
    "unknown-cited-symbol",
    failing="""
        docs/hooks.md:   the check lives in `hooks/contract.py::validate_contract`
        (hooks/contract.py defines `check_contract`)
    """,
    passing="""
        docs/hooks.md:   the check lives in `hooks/contract.py::check_contract`
    """,
    blind_spot=True,
)
def unknown_cited_symbol(facts: Facts) -> Iterator[Hit]:
    """A `path.py::NAME` citation names something the Python file does not define.

    The function, class, constant or method (`Class.method`, pytest's `Class::test`) was
    renamed or removed, and the document still sends readers (and agents) to it. Fix the
    citation. Defined means: a top-level function, class, assignment or import (also under a
    top-level `if` or `try`), or a member of a top-level class. A file that does not parse
    is not checked, nor is a record of the past (a changelog, release notes, a file named
    with its date such as `checklist-20260925-sync.md`), which cites what was there then.
    """
    for citation in facts.citations:
        if not citation.symbol:
            continue
        module = facts.python_modules.get(citation.target)
        if module is None or not module.parsed or _defined(module, citation.symbol):
            continue
        close = _close(citation.symbol, sorted(module.symbols), 0.6)
        hint = f" (did you mean `{close[0]}`, line {module.symbols[close[0]]}?)" if close else ""
        yield Hit(
            citation.position,
            f"`{citation.written}` names `{citation.symbol}`, which {citation.target} does not"
            f" define{hint}; fix the citation",
        )


@rule(
    "DC963",
    "stale-line-citation",
    failing="""
        docs/hooks.md:   `check_contract()` (hooks/contract.py:42)
        (line 42 of hooks/contract.py no longer holds check_contract; it is at line 57)
    """,
    passing="""
        docs/hooks.md:   `check_contract()` (hooks/contract.py:57)
    """,
    blind_spot=True,
)
def stale_line_citation(facts: Facts) -> Iterator[Hit]:
    """A `path.py:LINE` citation points at a line that no longer holds what the text says.

    Where the text names an identifier right next to the citation
    (`` `load()` (hooks/x.py:12) `` or `` hooks/x.py:12 (`load`) ``), the cited line (or
    range) must contain it; otherwise the line must exist. Code moved and the citation did
    not: update the line number (the message says where the identifier is defined now,
    when the file defines it at the top level or in a class). Records of the past (a
    changelog, a file named with its date) are not checked.
    """
    for citation in facts.citations:
        if not citation.line:
            continue
        module = facts.python_modules.get(citation.target)
        if module is None:
            continue
        if citation.end_line > module.line_count:
            yield Hit(
                citation.position,
                f"`{citation.written}` cites line {citation.end_line}, but {citation.target}"
                f" has {module.line_count} lines; update the citation",
            )
            continue
        if not citation.expects or citation.holds:
            continue
        name = citation.expects
        moved = module.symbols.get(name) or module.symbols.get(name.rsplit(".", 1)[-1])
        now = (
            f"; `{name}` is defined at line {moved}"
            if moved
            else f"; {citation.target} does not define `{name}` at the top level"
        )
        span = (
            f"line {citation.line}"
            if citation.line == citation.end_line
            else f"lines {citation.line}-{citation.end_line}"
        )
        yield Hit(
            citation.position,
            f"`{citation.written}` is cited for `{name}`, but {span} of {citation.target} no"
            f" longer holds it{now}; update the citation",
        )


RULES = (unknown_skill_reference, unknown_spawner, unknown_cited_symbol, stale_line_citation)


def _close(name: str, candidates: list[str], cutoff: float) -> list[str]:
    """The closest candidate, if close enough (difflib is imported only for a finding)."""
    from difflib import get_close_matches

    return get_close_matches(name, candidates, n=1, cutoff=cutoff)

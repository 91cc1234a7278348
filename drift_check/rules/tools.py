"""DC605, DC607, DC610: the tool names agents, skills and commands give, against the pack's
`known-tools` and `removed-tools`."""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatchcase

from drift_check.facts import Facts, Named
from drift_check.fixes.edits import replace_list_entry
from drift_check.records import NamedTuple
from drift_check.rules.base import Hit, rule


class ToolList(NamedTuple):
    """One frontmatter list of tool names: an agent's `tools`, a skill's `allowed-tools` ..."""

    owner: str  # "agent `reviewer`", "skill `deploy`", "command `/db:migrate`"
    agent: str | None
    key: str
    entries: tuple[Named, ...]


def tool_base(entry: str) -> str:
    """The tool an entry names: `Bash(git:*)` and `Agent(worker, researcher)` name Bash and
    Agent."""
    return entry.split("(", 1)[0].strip()


def _agent_lists(facts: Facts) -> Iterator[ToolList]:
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        owner = f"agent `{agent.name}`"
        yield ToolList(owner, agent.name, "tools", agent.tool_names)
        yield ToolList(owner, agent.name, "disallowedTools", agent.disallowed_tool_names)


def _skill_lists(facts: Facts) -> Iterator[ToolList]:
    for path in sorted(facts.skills):
        skill = facts.skills[path]
        owner = f"skill `{skill.name}`"
        yield ToolList(owner, None, "allowed-tools", skill.allowed_tools)
        yield ToolList(owner, None, "disallowed-tools", skill.disallowed_tools)
    for path in sorted(facts.commands):
        command = facts.commands[path]
        owner = f"command `/{command.name}`"
        yield ToolList(owner, None, "allowed-tools", command.allowed_tools)
        yield ToolList(owner, None, "disallowed-tools", command.disallowed_tools)


def _unknown(facts: Facts, lists: Iterator[ToolList]) -> Iterator[Hit]:
    known = list(facts.settings["known-tools"] or ())  # null: any tool
    if not known:
        return
    removed = facts.settings["removed-tools"]
    agents = {str((a.frontmatter or {}).get("name") or a.name) for a in facts.all_agents}
    # a name without a wildcard matches only itself: one set lookup, not a match per pattern
    exact = {k for k in known if not any(c in k for c in "*?[")}
    patterns = [k for k in known if k not in exact]
    for tools in lists:
        for entry in tools.entries:
            base = tool_base(entry.name)
            if base in removed or base in exact or any(fnmatchcase(base, p) for p in patterns):
                continue
            yield Hit(
                entry.position,
                f"{tools.owner} lists tool `{entry.name}` in `{tools.key}`, which the"
                f" {facts.preset} preset does not know; {_hint(base, known, agents)}",
                agent=tools.agent,
            )


def _hint(base: str, known: list[str], agents: set[str]) -> str:
    words = base.split()
    if len(words) > 1 and all(any(fnmatchcase(w, p) for p in known) for w in words):
        return "separate tools with commas: the list reads this as one name"
    near = [k for k in known if "*" not in k and k.lower() == base.lower()]
    if near:
        return f"tool names are case-sensitive: write `{near[0]}`"
    if base in agents:
        return f"`{base}` is an agent, which is reached through the `Agent` tool"
    if "mcp" in base.lower() and any(k.startswith("mcp__") for k in known):
        return "an MCP server's tools are named `mcp__<server>__<tool>` (or `mcp__<server>`)"
    return "check the spelling, or add it to `known-tools` if it is a tool of your own"


@rule(
    "DC605",
    "agent-unknown-tool",
    "warning",
    failing="""
        agents/developer.md:   tools: Read, Bash, WebBrowse
    """,
    passing="""
        agents/developer.md:   tools: Read, Bash, WebFetch
    """,
)
def agent_unknown_tool(facts: Facts) -> Iterator[Hit]:
    """An agent's `tools:` or `disallowedTools:` names a tool the pack does not know
    (`known-tools`).

    Claude Code drops a name it does not know without a word, so a misspelt tool is silently
    missing from the agent (or, in `disallowedTools`, silently not denied). A list may be a
    comma string or a YAML list; `Bash(git *)` and `Agent(worker)` name Bash and Agent, and
    patterns such as `mcp__*` in the pack allow MCP tools. A tool Claude Code removed is
    DC607's.
    """
    yield from _unknown(facts, _agent_lists(facts))


@rule(
    "DC610",
    "skill-unknown-tool",
    "warning",
    failing="""
        skills/deploy/SKILL.md:   allowed-tools: Read Bash(kubectl *) Grpe
    """,
    passing="""
        skills/deploy/SKILL.md:   allowed-tools: Read Bash(kubectl *) Grep
    """,
)
def skill_unknown_tool(facts: Facts) -> Iterator[Hit]:
    """A skill's or command's `allowed-tools:` or `disallowed-tools:` names a tool the pack
    does not know (`known-tools`).

    The name matches no tool, so the skill runs without the permission it meant to grant (or
    the tool it meant to take away). The list may be separated by commas or blanks, or be a
    YAML list; `Bash(npm run *)` names Bash. A tool Claude Code removed is DC607's.
    """
    yield from _unknown(facts, _skill_lists(facts))


@rule(
    "DC607",
    "removed-tool",
    fix="unsafe",
    failing="""
        agents/developer.md:   tools: Read, Write, MultiEdit
    """,
    passing="""
        agents/developer.md:   tools: Read, Write, Edit
    """,
)
def removed_tool(facts: Facts) -> Iterator[Hit]:
    """An agent, skill or command names a tool Claude Code removed (`removed-tools`).

    The name no longer matches anything, so the agent runs without that ability and a skill's
    grant or denial does nothing. The pack maps each removed tool to what replaced it:
    MultiEdit to Edit, LS to Glob, NotebookRead to Read, KillShell to TaskStop, BashOutput to
    Read on the task's output file, SlashCommand to Skill, TeamCreate to Agent; TeamDelete has
    no successor. Use the replacement, or drop the entry when the replacement is listed
    already. The fix does either; it is unsafe because the replacement can grant more than
    the old tool did (Read is wider than BashOutput).
    """
    removed = facts.settings["removed-tools"]
    if not removed:
        return
    for tools in [*_agent_lists(facts), *_skill_lists(facts)]:
        bases = [tool_base(e.name) for e in tools.entries]
        for i, entry in enumerate(tools.entries):
            if bases[i] not in removed:
                continue
            successor = str(removed[bases[i]])
            if not successor:
                advice, replacement = "remove it: nothing replaces it", ""
            elif successor in bases:
                advice = f"remove it: `{successor}`, which replaced it, is listed already"
                replacement = ""
            else:
                advice, replacement = f"use `{successor}` instead", successor
            yield Hit(
                entry.position,
                f"{tools.owner} lists tool `{entry.name}` in `{tools.key}`, which Claude Code"
                f" removed; {advice}",
                agent=tools.agent,
                fix=replace_list_entry(facts, tools.entries, i, bases[i], replacement),
            )


RULES = (agent_unknown_tool, removed_tool, skill_unknown_tool)

"""DC6xx: agent frontmatter: required keys, name, the skills it injects, the tools it asks for."""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatchcase

from drift_check.facts import Agent, Facts, Position
from drift_check.rules.base import Hit, rule
from drift_check.rules.edits import set_name, yaml_scalar


def _agents(facts: Facts) -> list[Agent]:
    return sorted(facts.all_agents, key=lambda a: a.path)


@rule(
    "DC601",
    "agent-missing-key",
    failing="""
        agents/reviewer.md:
            ---
            name: reviewer
            ---
    """,
    passing="""
        agents/reviewer.md:
            ---
            name: reviewer
            description: Reviews a change for correctness.
            ---
    """,
)
def agent_missing_key(facts: Facts) -> Iterator[Hit]:
    """An agent's frontmatter lacks a key the pack requires (`agent-required-keys`).

    Claude Code ignores a subagent without `name` and `description`; the orchestrator cannot
    pick it. Add the key.
    """
    required = list(facts.settings.get("agent-required-keys") or [])
    for agent in _agents(facts):
        if agent.path in facts.frontmatter_errors:
            continue  # invalid frontmatter: DC004 reports it
        data = agent.frontmatter or {}
        for key in required:
            if key not in data or data[key] in (None, ""):
                yield Hit(
                    Position(agent.path, 1, 1),
                    f"agent `{agent.name}` has no `{key}` in its frontmatter; add it",
                    agent=agent.name,
                )


def _yaml_kind(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"  # a date or a timestamp


@rule(
    "DC602",
    "agent-name-mismatch",
    fix="safe",
    failing="""
        agents/code-reviewer.md:   name: reviewer
    """,
    passing="""
        agents/code-reviewer.md:   name: code-reviewer
    """,
)
def agent_name_mismatch(facts: Facts) -> Iterator[Hit]:
    """An agent's frontmatter `name` differs from its file's stem.

    Orchestrators dispatch by `name` and registries and matrices list the file stem; when they
    differ, one side names an agent that does not exist. Make them equal. A `name` that YAML
    reads as something other than text (`name: 1.5` is a number) counts as differing: quote it.
    """
    for agent in _agents(facts):
        name = (agent.frontmatter or {}).get("name")
        if name is not None and not isinstance(name, str):
            message = (
                f"agent `name` is read as {_yaml_kind(name)}, not as the text `{agent.name}`;"
                f" set `name: {yaml_scalar(agent.name)}`"
            )
        elif isinstance(name, str) and name and name != agent.name:
            message = (
                f"agent `name: {name}` differs from its file name `{agent.name}`; set"
                f" `name: {agent.name}` or rename the file"
            )
        else:
            continue
        yield Hit(
            Position(agent.path, agent.frontmatter_lines.get("name", 1), 1),
            message,
            agent=agent.name,
            fix=set_name(facts, agent.path, agent.frontmatter_lines, agent.name),
        )


@rule(
    "DC603",
    "agent-unknown-skill",
    failing="""
        agents/developer.md:   skills: [agent-protocol, git-convention]
        (there is no skills/git-convention/)
    """,
    passing="""
        agents/developer.md:   skills: [agent-protocol, git-conventions]
    """,
)
def agent_unknown_skill(facts: Facts) -> Iterator[Hit]:
    """An agent's `skills:` names a skill that does not exist.

    The skill is injected from `skills/<name>/SKILL.md`; a missing one is silently skipped,
    so the agent runs without the protocol it was meant to follow. Fix the name or add the
    skill. An entry `plugin:skill` names a skill of another plugin: it is looked up in that
    plugin when the plugin is in the tree, and left alone when it is not.
    """
    known = {d.rsplit("/", 1)[-1] for d in facts.skill_dirs} | facts.skill_names
    plugins = {p.name: p.root for p in facts.components.plugins if p.name}
    for agent in _agents(facts):
        for ref in agent.skills or ():
            plugin, _, skill = ref.name.rpartition(":")
            if plugin:
                root = plugins.get(plugin)
                if root is None or _plugin_has_skill(facts, root, skill):
                    continue
                yield Hit(
                    ref.position,
                    f"agent `{agent.name}` lists skill `{ref.name}`, but plugin `{plugin}`"
                    f" ({root or '.'}) has no skill `{skill}`; fix the name or add the skill",
                    agent=agent.name,
                )
            elif ref.name not in known:
                yield Hit(
                    ref.position,
                    f"agent `{agent.name}` lists skill `{ref.name}`, which does not exist;"
                    " fix the name or add the skill",
                    agent=agent.name,
                )


def _plugin_has_skill(facts: Facts, root: str, skill: str) -> bool:
    prefix = root + "/" if root else ""
    return any(
        s.path.startswith(prefix)
        and (s.name == skill or (s.frontmatter or {}).get("name") == skill)
        for s in facts.skills.values()
    )


@rule(
    "DC604",
    "agent-skills-prefix",
    failing="""
        agents/developer.md:   skills: [investigation, agent-protocol]
        (Gaia: every list starts with agent-protocol, security-tiers)
    """,
    passing="""
        agents/developer.md:   skills: [agent-protocol, security-tiers, investigation]
    """,
)
def agent_skills_prefix(facts: Facts) -> Iterator[Hit]:
    """An agent's `skills:` list does not start with the skills the pack requires first
    (`agent-skills-prefix`).

    Some skills are the non-negotiables every agent needs before any other (Gaia: the response
    contract and the security tiers). Put them first, in order.
    """
    prefix = list(facts.settings.get("agent-skills-prefix") or [])
    if not prefix:
        return
    for agent in _agents(facts):
        if agent.skills is None:
            continue
        names = [ref.name for ref in agent.skills]
        first = ", ".join(names[: len(prefix)]) or "nothing"
        if names[: len(prefix)] != prefix:
            line = agent.frontmatter_lines.get("skills", 1)
            yield Hit(
                Position(agent.path, line, 1),
                f"agent `{agent.name}` skills start with {first};"
                f" every agent's"
                f" `skills:` must start with {', '.join(prefix)}",
                agent=agent.name,
            )


@rule(
    "DC605",
    "agent-unknown-tool",
    failing="""
        agents/developer.md:   tools: Read, Bash, WebBrowse
    """,
    passing="""
        agents/developer.md:   tools: Read, Bash, WebFetch
    """,
)
def agent_unknown_tool(facts: Facts) -> Iterator[Hit]:
    """An agent's `tools:` names a tool the pack does not know (`known-tools`).

    A misspelt tool is dropped without a word, and the agent silently lacks it. `tools:` may
    be a comma string or a list; patterns such as `mcp__*` in the pack allow MCP tools.
    """
    known = list(facts.settings.get("known-tools") or [])
    if not known:
        return
    for agent in _agents(facts):
        for tool in agent.tool_names:
            base = tool.name.split("(", 1)[0].strip()  # Bash(git:*) grants part of Bash
            if not any(fnmatchcase(base, pattern) for pattern in known):
                yield Hit(
                    tool.position,
                    f"agent `{agent.name}` asks for tool `{tool.name}`, which the"
                    f" {facts.preset} preset does not know; check the spelling",
                    agent=agent.name,
                )


RULES = (
    agent_missing_key,
    agent_name_mismatch,
    agent_unknown_skill,
    agent_skills_prefix,
    agent_unknown_tool,
)

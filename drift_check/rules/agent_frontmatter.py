"""DC6xx: agent frontmatter: required and unknown keys, the name, the skills it injects."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Agent, Facts, Position
from drift_check.fixes.edits import yaml_scalar
from drift_check.fixes.renames import rename
from drift_check.rules.base import Hit, rule


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
    required = list(facts.settings["agent-required-keys"])
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
    fix="sometimes",
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
    Where the pack says an agent is known by its `name` alone (`agent-name-matches-file:
    false`, as in Claude Code, whose plugin agents are often named unlike their files) only
    the agents of a contracts registry are checked, since its rows list file stems; DC606
    checks that the others' names are unique instead. The fix sets `name` to the file stem;
    it is unsafe while another file still uses the old name as a word ("Use the test_runner
    subagent", `Agent(test_runner)`), and the message lists those places.
    """
    if facts.settings["agent-name-matches-file"]:
        checked = _agents(facts)
    elif facts.registry is not None:
        checked = sorted(facts.agents.values(), key=lambda a: a.path)  # the registry's system
    else:
        return
    for agent in checked:
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
        fix, note = rename(facts, agent.path, agent.frontmatter_lines, name, agent.name)
        yield Hit(
            Position(agent.path, agent.frontmatter_lines.get("name", 1), 1),
            message + note,
            agent=agent.name,
            fix=fix,
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
    plugins = {
        e.name.name: e.root
        for m in facts.manifests.marketplaces
        for e in m.entries
        if e.name is not None and e.root is not None
    }
    plugins.update((p.name.name, p.root) for p in facts.manifests.plugins if p.name is not None)
    in_folder: set[tuple[str, str]] | None = None  # built at the first `plugin:skill`
    for agent in _agents(facts):
        for ref in agent.skills or ():
            plugin, _, skill = ref.name.rpartition(":")
            if plugin:
                root = plugins.get(plugin)
                if root is None:
                    continue
                if in_folder is None:
                    in_folder = _skills_by_folder(facts)
                if (root, skill) in in_folder:
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


def _skills_by_folder(facts: Facts) -> set[tuple[str, str]]:
    """(folder, skill name) for every folder above a skill ("" for the tree), under its
    folder's name and its frontmatter `name`: a plugin has a skill when its root is one of
    those folders."""
    out: set[tuple[str, str]] = set()
    for s in facts.skills.values():
        named = (s.frontmatter or {}).get("name")
        names = {s.name, named} if isinstance(named, str) else {s.name}
        folder = s.path
        while folder:
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
            out.update((folder, name) for name in names)
    return out


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
    prefix = list(facts.settings["agent-skills-prefix"])
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


def agent_scope(path: str, existing: frozenset[str], kits: tuple[str, ...] = ()) -> tuple[str, str]:
    """Where an agent's name must be unique, as (kind, folder): the nearest of the `.claude/`
    folder it is under, the kit (a `.claude` folder an installer copies, kept under another
    name) and the plugin folder holding it (one with `.claude-plugin/plugin.json`), else the
    whole tree."""
    parts = path.split("/")[:-1]
    for depth in range(len(parts), -1, -1):
        folder = "/".join(parts[:depth])
        if depth and (parts[depth - 1] == ".claude" or folder in kits):
            return ".claude", folder
        if (f"{folder}/" if folder else "") + ".claude-plugin/plugin.json" in existing:
            return "plugin", folder
    return "tree", ""


def _identity(agent: Agent, kind: str, folder: str) -> str | None:
    """The name an agent is loaded under in its scope. In a plugin (or a bare tree, which may
    be one) folders under `agents/` are part of it (`agents/review/security.md` loads as
    `review:security`), and a plugin agent without `name` takes its file's."""
    name = (agent.frontmatter or {}).get("name")
    if not isinstance(name, str) or not name:
        if kind != "plugin":
            return None
        name = agent.name
    if kind == ".claude":
        return name
    inside = agent.path[len(folder) + 1 :] if folder else agent.path
    segments = inside.split("/")[:-1]
    if segments[:1] == ["agents"]:
        return ":".join([*segments[1:], name])
    return name


def _scope_words(kind: str, folder: str) -> str:
    if kind == "plugin":
        return f"plugin `{folder or '.'}`"
    return f"`{folder}/`" if kind == ".claude" else "tree"


@rule(
    "DC606",
    "agent-duplicate-name",
    failing="""
        .claude/agents/review.md:            name: reviewer
        .claude/agents/team/code-review.md:  name: reviewer
    """,
    passing="""
        .claude/agents/review.md:            name: reviewer
        .claude/agents/team/code-review.md:  name: code-reviewer
    """,
)
def agent_duplicate_name(facts: Facts) -> Iterator[Hit]:
    """Two agents in one scope have the same `name`.

    Claude Code knows an agent by its `name`, not its file: of two files in one `.claude/`
    folder (subfolders included) that declare one name it loads only one, chosen by the order
    the file system lists them. A plugin's agents are named `plugin:name`, with the folders
    under `agents/` in between, so two of them collide only in the same folder. The scope of
    an agent file is the nearest `.claude/` folder, kit (a folder holding `agents/` and
    `commands/` or `skills/` that an installer copies into a project's `.claude/`) or
    plugin folder (one holding `.claude-plugin/plugin.json`) it is in, else the tree.
    Rename one of the two.
    """
    first: dict[tuple[str, str, str], Agent] = {}
    for agent in _agents(facts):
        if agent.path in facts.frontmatter_errors:
            continue  # invalid frontmatter: DC004 reports it
        kind, folder = agent_scope(agent.path, facts.existing_paths, facts.components.kits)
        identity = _identity(agent, kind, folder)
        if identity is None:
            continue
        earlier = first.setdefault((kind, folder, identity), agent)
        if earlier is agent:
            continue
        yield Hit(
            Position(agent.path, agent.frontmatter_lines.get("name", 1), 1),
            f"agent name `{identity}` is also the name of `{earlier.path}` in the same"
            f" {_scope_words(kind, folder)}; Claude Code loads only one of them: rename one",
            agent=agent.name,
        )


def _normalised(key: str) -> str:
    return key.replace("-", "").replace("_", "").lower()


def _key_hint(key: str, allowed: list[str], skill_keys: list[str]) -> str:
    near = [k for k in allowed if _normalised(k) == _normalised(key)]
    if near:
        return f"agent keys are written exactly as documented: `{near[0]}`"
    if _normalised(key) == "allowedtools" and "tools" in allowed:
        return "an agent's tools are its `tools:` list"
    if key in skill_keys:
        return "it is a skill key, which an agent file does not read: remove it"
    return (
        "Claude Code ignores it without a word: remove it, or add it to"
        " `agent-allowed-keys` if your own tooling reads it"
    )


@rule(
    "DC608",
    "agent-unknown-key",
    "warning",
    failing="""
        agents/reviewer.md:   allowed-tools: Read, Grep   (a skill key)
    """,
    passing="""
        agents/reviewer.md:   tools: Read, Grep
    """,
)
def agent_unknown_key(facts: Facts) -> Iterator[Hit]:
    """An agent's frontmatter key is not one the pack knows (`agent-allowed-keys`).

    Claude Code reads only the keys it documents for subagents, spelt exactly (`maxTurns`,
    `disallowedTools`), and ignores any other without a word: a skill key such as
    `allowed-tools` or `context: fork` in an agent file does nothing. In a plugin's agents it
    also ignores the keys the pack lists in `plugin-agent-ignored-keys` (`hooks`,
    `mcpServers`, `permissionMode`, `initialPrompt`): ship hooks and MCP servers with the
    plugin instead. Use the documented key, or remove it; an empty `agent-allowed-keys`
    allows any key.
    """
    allowed = list(facts.settings["agent-allowed-keys"] or ())  # null: any key
    if not allowed:
        return
    skill_keys = list(facts.settings["skill-allowed-keys"] or ())
    plugin_ignored = set(facts.settings["plugin-agent-ignored-keys"])
    for agent in _agents(facts):
        data = agent.frontmatter or {}
        in_plugin = plugin_ignored and agent_scope(agent.path, facts.existing_paths)[0] == "plugin"
        for key in sorted(data, key=lambda k: (agent.frontmatter_lines.get(str(k), 0), str(k))):
            if str(key) not in allowed:
                message = (
                    f"agent `{agent.name}` has key `{key}`, which the {facts.preset} preset"
                    f" does not know for agents; {_key_hint(str(key), allowed, skill_keys)}"
                )
            elif in_plugin and str(key) in plugin_ignored:
                message = (
                    f"agent `{agent.name}` has key `{key}`, which Claude Code ignores in a"
                    f" plugin's agents; {_PLUGIN_ADVICE.get(str(key), _COPY_ADVICE)}"
                )
            else:
                continue
            yield Hit(
                Position(agent.path, agent.frontmatter_lines.get(str(key), 1), 1),
                message,
                agent=agent.name,
            )


_COPY_ADVICE = "remove it, or copy the agent into `.claude/agents/` where it takes effect"
_PLUGIN_ADVICE = {
    "hooks": "ship the hooks in the plugin's `hooks/hooks.json` instead",
    "mcpServers": "declare the servers in the plugin's `.mcp.json` instead",
}


RULES = (
    agent_missing_key,
    agent_name_mismatch,
    agent_unknown_skill,
    agent_skills_prefix,
    agent_duplicate_name,
    agent_unknown_key,
)

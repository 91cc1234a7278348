"""DC14x: what a plugin's manifest lists against the files beside it."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Facts, Position
from drift_check.rules.base import Hit, rule


@rule(
    "DC140",
    "agent-not-listed",
    failing="""
        categories/06-dx/.claude-plugin/plugin.json:  "agents": ["./api-designer.md"]
        categories/06-dx/docs-editor.md               (an agent, not listed)
    """,
    passing="""
        categories/06-dx/.claude-plugin/plugin.json:
            "agents": ["./api-designer.md", "./docs-editor.md"]
    """,
    blind_spot=True,
)
def agent_not_listed(facts: Facts) -> Iterator[Hit]:
    """An agent file sits beside the agents a plugin manifest lists by path, but is not
    listed.

    A plugin that lists its agents in `plugin.json` gets exactly those: Claude Code does not
    load the file, although the README may advertise it. Add its `./` path to the
    manifest's `agents` list, or move the file out of the plugin if it is not an agent.
    """
    for undeclared in sorted(facts.undeclared_agents):
        name = undeclared.path.rsplit("/", 1)[-1]
        yield Hit(
            Position(undeclared.path, 1, 1),
            f"agent file `{name}` is not listed in `agents` of {undeclared.manifest}"
            f" (line {undeclared.key_line}), so Claude Code does not load it; add"
            f" `./{name}` to that list",
        )


RULES = (agent_not_listed,)

"""DC9xx: information: skills nothing refers to."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Facts, Position
from drift_check.rules.base import Hit, rule


@rule(
    "DC901",
    "orphan-skill",
    severity="info",
    failing="""
        skills/old-deploy/SKILL.md: no agent lists it and no other file names `old-deploy`
    """,
    passing="""
        skills/README.md:  - `old-deploy` — loaded on demand for legacy services
    """,
)
def orphan_skill(facts: Facts) -> Iterator[Hit]:
    """A skill no agent, other skill, workflow or README mentions.

    Nothing loads it and nobody documents it: it is dead weight or a forgotten wiring.
    Mention it where it is used, or delete it. Information only: it does not fail a run.

    Only where skills reach agents through frontmatter: a tree whose pack restates the
    wiring in a skill matrix (`skill-matrix`, as Gaia's), and skills beside agents that list
    skills in `skills:`. Claude Code finds a plugin's skills by their description, and
    catalogues register theirs in code, so elsewhere no skill is an orphan.
    """
    if not facts.settings["skill-matrix"]:
        return  # the scanners fill `facts.mentions` only under this condition too
    injected = {ref.name for a in facts.all_agents for ref in a.skills or ()}
    wired = {_root(a.path, "agents") for a in facts.all_agents if a.skills}
    for path in sorted(facts.skills):
        skill = facts.skills[path]
        name = skill.name
        if name in injected or _root(skill.directory, "skills") not in wired:
            continue
        elsewhere = [
            p for p in facts.mentions.get(name, ()) if not p.startswith(skill.directory + "/")
        ]
        if not elsewhere:
            yield Hit(
                Position(skill.path, 1, 1),
                f"skill `{name}` is mentioned by no agent, skill, workflow or README; wire it"
                " in or delete it",
            )


def _root(path: str, folder: str) -> str:
    """The folder holding the last `agents/` or `skills/` of a path (`""` at the top, a
    plugin's folder, `.claude`); an agent outside an `agents/` folder counts from its own."""
    parts = path.split("/")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] == folder:
            return "/".join(parts[:i])
    return "/".join(parts[:-1])


RULES = (orphan_skill,)

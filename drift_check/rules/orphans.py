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
    """
    injected = {ref.name for a in facts.all_agents for ref in a.skills or ()}
    for path in sorted(facts.skills):
        skill = facts.skills[path]
        name = skill.name
        if name in injected:
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


RULES = (orphan_skill,)

"""Where names occur: the places a tree uses an agent's or a skill's frontmatter `name`
(`Use the test_runner subagent`, `Agent(test_runner)`, `skills: [name]`, `plugin:name`), so
that a fix renaming it knows what it would leave pointing at nothing."""

from __future__ import annotations

import re
from collections.abc import Iterable

from drift_check.facts import Agent, Position, Skill, Source


def renamable_names(agents: Iterable[Agent], skills: Iterable[Skill]) -> set[str]:
    """Frontmatter names that differ from their file's stem or their skill's folder: the
    names a `name:` fix would replace."""
    out = set()
    for agent in agents:
        name = (agent.frontmatter or {}).get("name")
        if isinstance(name, str) and name.strip() and name != agent.name:
            out.add(name)
    for skill in skills:
        name = (skill.frontmatter or {}).get("name")
        if isinstance(name, str) and name.strip() and name != skill.name:
            out.add(name)
    return out


def name_uses(sources: Iterable[Source], names: set[str]) -> dict[str, tuple[Position, ...]]:
    """For each name, where it occurs as a whole word in the texts read: not inside a longer
    name (`test_runner` is not in `test_runner_v2`, `refocus` not in `project-refocus`), case
    and spacing as written. Sorted by path, line and column."""
    if not names:
        return {}
    # a name's neighbours: no word character or hyphen on either side
    patterns = {n: re.compile(r"(?<![\w-])" + re.escape(n) + r"(?![\w-])") for n in sorted(names)}
    found: dict[str, list[Position]] = {}
    for source in sources:
        text = source.text
        for name, pattern in patterns.items():
            if name not in text:  # a fast substring test before the regex
                continue
            for m in pattern.finditer(text):
                found.setdefault(name, []).append(source.position(m.start()))
    return {name: tuple(sorted(positions)) for name, positions in found.items()}

"""Where names occur: the places a tree uses an agent's or a skill's frontmatter `name`
(`Use the test_runner subagent`, `Agent(test_runner)`, `skills: [name]`, `plugin:name`), so
that a fix renaming it knows what it would leave pointing at nothing."""

from __future__ import annotations

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
    and spacing as written. Sorted by path, line and column.

    A few names are each found with `str.find`; more, in one multi-pattern (Aho-Corasick)
    pass over each text, whatever their number: a search per name and text grew with names
    times files (a marketplace whose agents are named unlike their files has both in the
    thousands), and the automaton reads a character about ten times slower than `find`."""
    names = {n for n in names if n}
    if not names:
        return {}
    found: dict[str, list[Position]] = {}
    if len(names) <= _FEW_NAMES:
        for source in sources:
            for name in names:
                _uses_of(source, name, found)
        return {name: tuple(sorted(found[name])) for name in sorted(found)}
    from ahocorasick_rs import AhoCorasick

    ordered = sorted(names)
    find = AhoCorasick(ordered).find_matches_as_indexes
    for source in sources:
        text = source.text
        taken: dict[str, int] = {}  # where a name's last use ends: uses of a name never overlap
        for i, start, end in find(text, True):  # in order of their ends
            name = ordered[i]
            if start < taken.get(name, 0) or not _alone(text, start, end):
                continue
            taken[name] = end
            found.setdefault(name, []).append(source.position(start))
    return {name: tuple(sorted(found[name])) for name in sorted(found)}


_FEW_NAMES = 8  # names searched one by one (measured: 4 names, 8 MB of text, 15 ms against 39)


def _uses_of(source: Source, name: str, found: dict[str, list[Position]]) -> None:
    """The uses of one name in one text, added to `found` (overlapping occurrences are
    looked at as the automaton reports them: one that starts inside the last use is not)."""
    text = source.text
    at = text.find(name)
    taken = 0
    while at >= 0:
        end = at + len(name)
        if at >= taken and _alone(text, at, end):
            taken = end
            found.setdefault(name, []).append(source.position(at))
        at = text.find(name, at + 1)


def _alone(text: str, start: int, end: int) -> bool:
    """No word character or hyphen on either side of `text[start:end]`, and no part of a file
    name: not after a `.` (`.pdf`, `report.pdf` do not use a skill named `pdf`), nor before
    one that a word character follows (`pdf.py`)."""
    if start and (_in_name(text[start - 1]) or text[start - 1] == "."):
        return False
    if end < len(text) and _in_name(text[end]):
        return False
    return not (text[end : end + 1] == "." and _in_name(text[end + 1 : end + 2] or " "))


def _in_name(ch: str) -> bool:
    return ch.isalnum() or ch in "_-"

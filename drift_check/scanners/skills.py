"""Skills (`skills/<name>/SKILL.md`) and the names agents' frontmatter gives to skills and tools."""

from __future__ import annotations

import re
from typing import Any

from drift_check.facts import Mention, Named, Skill, Source
from drift_check.scanners.files import Repo
from drift_check.scanners.frontmatter import frontmatter_names, read_frontmatter
from drift_check.scanners.links import find_links, find_mentions
from drift_check.scanners.markdown import scan, unclosed_fence_problem


def count_lines(text: str, rule: str) -> int:
    """Lines of a SKILL.md: `all` of them, the `body` after the frontmatter, or the
    `non-blank` lines of the body."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line; it does not start another
    if rule == "all":
        return len(lines)
    body = lines
    if lines and lines[0] == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
        if end is not None:
            body = lines[end + 1 :]
    if rule == "non-blank":
        return sum(1 for line in body if line.strip())
    return len(body)


def scan_skill(
    path: str,
    repo: Repo,
    settings: dict[str, Any],
    problems: list[Any],
    others: dict[str, list[str]] | None = None,
) -> Skill | None:
    """A SKILL.md's facts. `others`: the tree's skill folders by their names, for paths a
    line gives another skill (`See axiom-design (skills/hig.md)`)."""
    source = repo.read(path)
    if source is None:
        return None
    directory = path.rsplit("/", 1)[0]
    frontmatter, key_lines, problem = read_frontmatter(
        source, repo.limits.max_yaml_depth, repo.limits.max_yaml_aliases
    )
    if problem is not None:
        problems.append(problem)
    text = source.text
    markdown = scan(text, 0)  # the fences: a skill's headings are not facts
    fence = unclosed_fence_problem(path, markdown, markers=False)
    if fence is not None:
        problems.append(fence)
    siblings = settings["sibling-docs"]
    mentions = find_mentions(source, True, key_lines.get("license", 0), markdown)
    if others and len(others) > 1 and "/" in path:
        mentions = _not_elsewhere(mentions, source, directory, others, repo)
    return Skill(
        name=directory.rsplit("/", 1)[-1],
        path=path,
        directory=directory,
        has_frontmatter=text.startswith("---\n"),
        frontmatter=frontmatter,
        frontmatter_lines=key_lines,
        line_count=count_lines(text, settings["skill-line-count"]),
        token_estimate=-(-len(text) // max(1, settings["chars-per-token"])),
        links=tuple(find_links(source, siblings, markdown)),
        path_mentions=tuple(mentions),
        allowed_tools=tool_list(source, frontmatter, key_lines, "allowed-tools"),
        disallowed_tools=tool_list(source, frontmatter, key_lines, "disallowed-tools"),
    )


_WORD = re.compile(r"[\w-]+")
_SLOT = re.compile(r"\{\{[^{}]*\}\}|<[^<>]+>|\$\{[^{}]+\}")


def is_template(skill: Skill) -> bool:
    """A SKILL.md whose `name` is a slot to fill (`{{ NAME }}`, `<skill-name>`, `${NAME}`):
    a template a tool copies into new skills, not a skill; its slots are not errors."""
    name = (skill.frontmatter or {}).get("name")
    return isinstance(name, str) and _SLOT.fullmatch(name.strip()) is not None


def _not_elsewhere(
    mentions: list[Mention],
    source: Source,
    directory: str,
    others: dict[str, list[str]],
    repo: Repo,
) -> list[Mention]:
    """The mentions but those of another skill's files: a path its skill's folder lacks, on
    a line naming another skill of the tree whose folder has it (a catalogue's skills point
    to each other: `HIG compliance: see axiom-design (skills/hig.md)`)."""
    absent = {
        m.path for m in mentions if m.kind == "text" and not repo.exists(f"{directory}/{m.path}")
    }
    if not absent:
        return mentions
    kept = []
    for mention in mentions:
        if mention.path in absent:
            words = _WORD.findall(source.line_text(mention.position.line))
            if any(
                folder != directory and repo.exists(f"{folder}/{mention.path}")
                for word in words
                for folder in others.get(word, ())
            ):
                continue
        kept.append(mention)
    return kept


def tool_list(
    source: Source, frontmatter: dict[str, Any] | None, key_lines: dict[str, int], key: str
) -> tuple[Named, ...]:
    """A skill's or command's `allowed-tools` or `disallowed-tools`: a YAML list, or a string
    separated by commas or blanks."""
    return frontmatter_names(source, frontmatter, key_lines, key, spaces=True) or ()

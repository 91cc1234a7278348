"""Skills (`skills/<name>/SKILL.md`) and the names agents' frontmatter gives to skills and tools."""

from __future__ import annotations

from typing import Any

from drift_check.facts import Named, Skill, Source
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
    path: str, repo: Repo, settings: dict[str, Any], problems: list[Any]
) -> Skill | None:
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
        path_mentions=tuple(find_mentions(source, True, key_lines.get("license", 0), markdown)),
        allowed_tools=tool_list(source, frontmatter, key_lines, "allowed-tools"),
        disallowed_tools=tool_list(source, frontmatter, key_lines, "disallowed-tools"),
    )


def tool_list(
    source: Source, frontmatter: dict[str, Any] | None, key_lines: dict[str, int], key: str
) -> tuple[Named, ...]:
    """A skill's or command's `allowed-tools` or `disallowed-tools`: a YAML list, or a string
    separated by commas or blanks."""
    return frontmatter_names(source, frontmatter, key_lines, key, spaces=True) or ()

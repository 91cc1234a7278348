"""Slash command files (`commands/**/*.md`): their frontmatter and the tools they name."""

from __future__ import annotations

from typing import Any

from drift_check.facts import Command
from drift_check.scanners.files import Repo
from drift_check.scanners.frontmatter import read_frontmatter
from drift_check.scanners.skills import tool_list


def command_name(path: str) -> str:
    """`/name` of a command file: its path under the first `commands/` folder, without `.md`,
    folders joined with `:`; the file's stem when no folder is called `commands`."""
    parts = path.removesuffix(".md").split("/")
    start = parts.index("commands") + 1 if "commands" in parts[:-1] else len(parts) - 1
    return ":".join(parts[start:])


def scan_command(path: str, repo: Repo, problems: list[Any]) -> Command | None:
    source = repo.read(path)
    if source is None:
        return None
    frontmatter, key_lines, problem = read_frontmatter(
        source, repo.limits.max_yaml_depth, repo.limits.max_yaml_aliases
    )
    if problem is not None:
        problems.append(problem)
    return Command(
        name=command_name(path),
        path=path,
        frontmatter=frontmatter,
        frontmatter_lines=key_lines,
        allowed_tools=tool_list(source, frontmatter, key_lines, "allowed-tools"),
        disallowed_tools=tool_list(source, frontmatter, key_lines, "disallowed-tools"),
    )

"""`.gitignore` files, read as git reads them, so that what git ignores is never checked.

A pattern becomes one of the repository's globs (`glob_pattern`: linear whatever the
pattern, since a `.gitignore` arrives in a pull request like any other file). Character
classes (`[abc]`) and backslash escapes other than a leading `\\#` / `\\!` are rare in real
files and have no glob form here: such a pattern is left out, so a file it names is checked
rather than silently skipped. tests/scanners/test_gitignore.py compares the result with git's own.
"""

from __future__ import annotations

from functools import lru_cache

from drift_check.records import NamedTuple

MAX_GITIGNORE_BYTES = 256 * 1024


class IgnorePattern(NamedTuple):
    glob: str  # relative to the folder of the `.gitignore` that holds it
    negated: bool  # `!pattern`: re-include what an earlier pattern ignored
    folders_only: bool  # `pattern/`: matches folders (and so everything in them)


def parse_gitignore(text: str) -> tuple[IgnorePattern, ...]:
    out = []
    for raw in text.splitlines():
        pattern = _pattern(raw)
        if pattern is not None:
            out.append(pattern)
    return tuple(out)


def _pattern(line: str) -> IgnorePattern | None:
    line = line.rstrip(" \t")  # an escaped trailing space leaves a backslash: left out below
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated or line.startswith(("\\#", "\\!")):
        line = line[1:]
    if "[" in line or "\\" in line:
        return None
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line  # a slash at the start or in the middle ties it to this folder
    line = line.lstrip("/")
    parts = []
    for part in line.split("/"):
        # `**` is special only as a whole path segment; elsewhere it is a plain star
        parts.append(part if part == "**" else _single_stars(part))
    glob = "/".join(parts)
    if not anchored and not glob.startswith("**/"):
        glob = "**/" + glob
    return IgnorePattern(glob, negated, folders_only)


def _single_stars(part: str) -> str:
    while "**" in part:
        part = part.replace("**", "*")
    return part


def ignored(rules: list[tuple[str, tuple[IgnorePattern, ...]]], path: str, is_folder: bool) -> bool:
    """Whether git ignores `path` (a repository path): the last pattern that matches it
    decides, and a deeper `.gitignore` comes after the ones above it."""
    from drift_check.scanners.files import glob_pattern, matches

    verdict = False
    for base, patterns in rules:
        if not path.startswith(base):
            continue
        relative = path[len(base) :]
        if not matches(relative, _globs(patterns, is_folder)):
            continue  # most paths: no pattern of this file matches (one joined match)
        for pattern in patterns:
            if pattern.folders_only and not is_folder:
                continue
            if glob_pattern(pattern.glob).match(relative):
                verdict = not pattern.negated
    return verdict


@lru_cache(maxsize=256)
def _globs(patterns: tuple[IgnorePattern, ...], is_folder: bool) -> tuple[str, ...]:
    """The globs of a `.gitignore`'s patterns that apply to a folder, or to a file."""
    return tuple(p.glob for p in patterns if is_folder or not p.folders_only)

"""The project a run checks, found from the paths on the command line.

Contracts cross files, so drift-check always analyses a whole project; the paths it is given
(the files pre-commit passes, the folder an editor saves in) only choose which findings are
reported. The project root is the nearest folder, from each path upwards, that configures
drift-check or is the top of a git repository (see `PROJECT_MARKERS`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from drift_check.records import NamedTuple
from drift_check.reporters.escape import escape

if TYPE_CHECKING:
    from drift_check.rules.base import Finding

# what makes a folder a project root, in the order a root's reason names them; a
# pyproject.toml counts only with a [tool.drift-check] table (see `root_marker`)
PROJECT_MARKERS = (".drift-check.yaml", ".drift-check.yml", "pyproject.toml", ".git")
PYPROJECT_MAX_BYTES = 1024 * 1024  # as config.CONFIG_MAX_BYTES: a config is a page or two


class PathError(Exception):
    """A path on the command line that cannot be checked: one line, exit code 2."""


class Project(NamedTuple):
    """The folder to analyse and the part of it to report on."""

    root: str  # as the user would write it: relative to the current folder, or absolute
    scope: tuple[str, ...]  # root-relative POSIX paths of the given files and folders; () is all
    named: bool  # the root is a given folder or the current one (else the banner names it)

    def covers(self, path: str) -> bool:
        """Whether a finding at `path` (root-relative, POSIX) is reported: it is a given file
        or lies under a given folder."""
        return not self.scope or any(
            path == given or path.startswith(given + "/") for given in self.scope
        )

    def restrict(self, findings: Iterable[Finding]) -> tuple[Finding, ...]:
        """The findings at the given paths."""
        return tuple(f for f in findings if self.covers(f.path))

    def note(self) -> str:
        """What the banner adds when the root is not a folder the user named."""
        return "" if self.named else escape(f"; project root {self.root}")


def root_marker(folder: str) -> str | None:
    """The file that makes `folder` a project root, or None: a drift-check config file, a
    pyproject.toml with a [tool.drift-check] table, or `.git` (a folder, or the file a
    worktree or submodule has)."""
    for name in PROJECT_MARKERS:
        path = os.path.join(folder, name)
        if name == ".git":
            if os.path.lexists(path):
                return name
        elif os.path.isfile(path) and (name != "pyproject.toml" or _configures(folder, path)):
            return name
    return None


def _configures(folder: str, pyproject: str) -> bool:
    """Whether a pyproject.toml has a [tool.drift-check] table. One that cannot be read
    safely (a link out of its folder, too large, not TOML) counts, so that loading the
    config says what is wrong with it instead of the run quietly finding another root."""
    import tomllib

    real = os.path.realpath(pyproject)
    if not real.startswith(os.path.join(os.path.realpath(folder), "")):
        return True  # never read a file outside the folder being looked at
    try:
        with open(real, "rb") as fh:
            data = fh.read(PYPROJECT_MAX_BYTES + 1)
        if len(data) > PYPROJECT_MAX_BYTES:
            return True
        table = tomllib.loads(data.decode("utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return True
    return isinstance(table, dict) and "drift-check" in table


def find_root(start: str, cache: dict[str, str | None] | None = None) -> str | None:
    """The nearest folder from `start` (an absolute folder) upwards that `root_marker`
    accepts, or None. `cache` keeps each folder's answer across the paths of one run."""
    cache = {} if cache is None else cache
    seen = []
    folder = start
    found: str | None = None
    while True:
        if folder in cache:
            found = cache[folder]
            break
        seen.append(folder)
        if root_marker(folder) is not None:
            found = folder
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for visited in seen:
        cache[visited] = found
    return found


def locate(paths: Sequence[str], cwd: str | None = None) -> Project:
    """The project the given files and folders belong to (none: the current folder).

    Each path leads to the root `find_root` finds from its folder (a file starts at the
    folder holding it). With no root found, the root is the single folder given, or the
    folder the given paths have in common. Raises PathError for a path that does not exist
    or lies outside the root, and for paths that lead to two roots."""
    cwd = os.getcwd() if cwd is None else cwd
    given = list(paths) or ["."]
    absolute = [os.path.normpath(os.path.join(cwd, p)) for p in given]
    for path, full in zip(given, absolute, strict=True):
        if not os.path.exists(full):
            raise PathError(escape(f"{path}: does not exist"))
    starts = [a if os.path.isdir(a) else os.path.dirname(a) for a in absolute]
    cache: dict[str, str | None] = {}
    roots = [find_root(start, cache) for start in starts]
    found = sorted({r for r in roots if r is not None})
    if len(found) > 1:
        first, second = (given[roots.index(r)] for r in found[:2])
        raise PathError(
            escape(
                f"{first} and {second} belong to two projects, rooted at"
                f" {_shown(found[0], given, cwd)} and {_shown(found[1], given, cwd)};"
                " check each project in a run of its own"
            )
        )
    root = found[0] if found else os.path.commonpath(starts)
    real_root = os.path.realpath(root)
    scope = []
    for path, full in zip(given, absolute, strict=True):
        real = os.path.realpath(full)
        if not (real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)):
            raise PathError(escape(f"{path}: outside the project root {_shown(root, given, cwd)}"))
        scope.append(os.path.relpath(full, root).replace(os.sep, "/"))
    # a path under another given folder adds nothing
    kept = [p for p in scope if not any(p.startswith(q + "/") for q in scope)]
    return Project(
        root=_shown(root, given, cwd),
        scope=() if "." in scope else tuple(sorted(set(kept))),
        named=root in absolute or root == os.path.normpath(cwd),
    )


def _shown(folder: str, given: list[str], cwd: str) -> str:
    """`folder` as the user wrote it when it is a given path; otherwise relative to the
    current folder, or absolute when the user gave absolute paths."""
    for path in given:
        if os.path.normpath(os.path.join(cwd, path)) == folder:
            return path
    if all(os.path.isabs(p) for p in given):
        return folder
    return os.path.relpath(folder, cwd)

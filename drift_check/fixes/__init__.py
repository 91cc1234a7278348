"""Fixes, in one room: the edit model (`model`), the edits each rule proposes (`edits`),
the planner of a round (`planner`), the rounds with the check before writing (`rounds`) and
the atomic writer (`writer`). Rules only say which edits they propose; `--fix`, `--diff`
and SARIF's `fixes` all take them from here."""

from typing import TYPE_CHECKING, Any

from drift_check.fixes.model import Applicability, Edit, Fix

if TYPE_CHECKING:
    from drift_check.fixes.planner import FileChange, plan, unified_diff
    from drift_check.fixes.writer import WriteError, write

# The planner (difflib) and the writer (tempfile, shutil) load on first use: a check that
# fixes nothing imports only the model, through the rules' edits.
_LATER = {
    "FileChange": "planner",
    "plan": "planner",
    "unified_diff": "planner",
    "WriteError": "writer",
    "write": "writer",
}

__all__ = [
    "Applicability",
    "Edit",
    "FileChange",
    "Fix",
    "WriteError",
    "offered",
    "plan",
    "unified_diff",
    "write",
]


def offered(fix: Fix) -> dict[str, list[Edit]]:
    """The edits of a fix, by file in path order, as a log (SARIF) offers them."""
    by_path: dict[str, list[Edit]] = {}
    for e in fix.resolve():
        by_path.setdefault(e.path, []).append(e)
    return dict(sorted(by_path.items()))


def __getattr__(name: str) -> Any:
    if name not in _LATER:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{_LATER[name]}"), name)
    globals()[name] = value
    return value

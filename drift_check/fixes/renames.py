"""A `name:` fix and the places that still use the old name (DC503, DC602)."""

from __future__ import annotations

from drift_check.facts import Facts, Position
from drift_check.fixes.edits import set_name
from drift_check.fixes.model import Applicability, Fix
from drift_check.records import NamedTuple

_LISTED = 5  # places named in a message; the rest are counted


class Rename(NamedTuple):
    """The fix setting `name:` to `new`, and what the finding's message adds about it."""

    fix: Fix | None
    note: str  # "" when nothing else uses the old name


def rename(facts: Facts, path: str, key_lines: dict[str, int], old: object, new: str) -> Rename:
    """`name:` of `path` set to `new`: safe when no other file read names `old` as a whole
    word (a command's "Use the test_runner subagent", an agent's `skills: [old]`, a matrix
    cell, `plugin:old`); otherwise unsafe, since the rename would leave those places pointing
    at nothing, and the note lists them."""
    fix = set_name(facts, path, key_lines, new)
    uses = _uses(facts, old, path) if isinstance(old, str) else []
    if not uses:
        return Rename(fix, "")
    places = ", ".join(f"{p.path}:{p.line}" for p in uses[:_LISTED])
    if len(uses) > _LISTED:
        places += f" and {len(uses) - _LISTED} more"
    note = f"; `{old}` is still used at {places}: rename those that mean this one"
    if fix is not None:
        fix = fix._replace(
            description=f"{fix.description} (unsafe: `{old}` is still used at {places})",
            applicability=Applicability.UNSAFE,
        )
    return Rename(fix, note)


def _uses(facts: Facts, name: str, path: str) -> list[Position]:
    """Where files other than `path` name `name`, one place per line."""
    seen: set[tuple[str, int]] = set()
    out = []
    for position in facts.name_uses.get(name, ()):
        if position.path == path or (position.path, position.line) in seen:
            continue
        seen.add((position.path, position.line))
        out.append(position)
    return out

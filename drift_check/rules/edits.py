"""Fixes, computed from the facts: the edits a rule offers next to its finding. Applying
them (atomically, keeping line endings) is `drift_check.fixes`."""

import re

from drift_check.facts import DeclaredMarker, Facts, RegistryRow
from drift_check.rules.base import Edit, Fix


def add_to_row(row: RegistryRow, marker: str) -> Fix:
    """Append `## marker` to the row's Completion Markers cell (replacing `No marker`)."""
    start, end = row.markers_cell
    line = row.position.line
    entry = f"`## {marker}`"
    if row.markers:
        edit = Edit(row.position.path, line, end, line, end, f", {entry}")
    else:
        edit = Edit(row.position.path, line, start, line, end, entry)
    return Fix(f"add `## {marker}` to the registry row", "safe", (edit,))


def remove_from_row(row: RegistryRow, marker: DeclaredMarker) -> Fix:
    """Drop one entry (and its comma) from the row's Completion Markers cell."""
    path, line = row.position.path, row.position.line
    entries = list(row.markers)
    i = entries.index(marker)
    if len(entries) == 1:
        start, end = row.markers_cell
        edit = Edit(path, line, start, line, end, "No marker")
    elif i == 0:
        edit = Edit(path, line, marker.position.column, line, entries[1].position.column, "")
    else:
        edit = Edit(path, line, entries[i - 1].end_column, line, marker.end_column, "")
    return Fix(f"remove `## {marker.text}` from the registry row", "unsafe", (edit,))


def set_frontmatter_value(
    facts: Facts, path: str, line: int, key: str, value: str, description: str
) -> Fix | None:
    """Replace the value of `key: ...` on `line` of `path`, keeping the key, its spacing and a
    trailing comment: every other byte of the frontmatter stays as it was."""
    source = facts.sources.get(path)
    if source is None:
        return None
    lines = source.text.split("\n")
    if not 0 < line <= len(lines):
        return None
    m = re.match(rf"({re.escape(key)}[ \t]*:[ \t]*)(.*?)([ \t]+#.*)?$", lines[line - 1])
    if m is None:
        return None
    start = m.end(1) + 1
    end = m.end(2) + 1
    old = m.group(2)
    if len(old) >= 2 and old[0] in "'\"" and old[-1] == old[0]:
        value = f"{old[0]}{value}{old[0]}"  # keep the quoting the author chose
    return Fix(description, "safe", (Edit(path, line, start, line, end, value),))

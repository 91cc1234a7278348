"""Fixes, computed from the facts: the edits a rule offers next to its finding. Applying
them (atomically, keeping line endings) is `drift_check.fixes`."""

import re
from collections.abc import Callable

from drift_check.facts import Agent, DeclaredMarker, Facts, MatrixRow, RegistryRow, Source
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


def add_row(facts: Facts, agent: Agent, is_marker: Callable[[str], bool]) -> Fix | None:
    """A registry row for an agent that has none, after the table's last row: the markers it
    emits, the files that consume them, and a Kind inferred from both and its tools."""
    registry = facts.registry
    if registry is None or not registry.rows:
        return None
    return Fix(
        f"add a registry row for `{agent.name}`", "safe", lambda: _new_row(facts, agent, is_marker)
    )


def _new_row(facts: Facts, agent: Agent, is_marker: Callable[[str], bool]) -> tuple[Edit, ...]:
    registry = facts.registry
    assert registry is not None
    last = registry.rows[-1]
    markers = sorted({e.text for e in agent.emissions if is_marker(e.text)})
    consumers = sorted(
        path
        for path, consumer in facts.consumers.items()
        if path != agent.path and any(consumer.find(m) is not None for m in markers)
    )
    writes = agent.tools is None or bool(
        set(facts.settings.get("write-tools", [])).intersection(agent.tools)
    )
    kind = "sentinel-match" if markers else "artifact+query" if writes else "structured-return"
    role = str((agent.frontmatter or {}).get("description", "")).split(". ")[0].strip()
    role = role.rstrip(".")
    if len(role) > 80:
        role = role[:80].rsplit(" ", 1)[0] + " ..."
    values = {
        "agent": agent.name,
        "role": role.replace("|", "\\|"),
        "completion_markers": ", ".join(f"`## {m}`" for m in markers) or "No marker",
        "consumed_by": ", ".join(f"`{c}`" for c in consumers),
        "kind": kind,
    }
    cells = [values.get(column, "") for column in registry.columns]
    row = _aligned_row(cells, [r.line_text for r in registry.rows])
    line = last.position.line + 1
    return (Edit(registry.path, line, 1, line, 1, row),)


def replace_text(path: str, line: int, column: int, old: str, new: str, what: str) -> Fix:
    """Replace `old`, which starts at (line, column), with `new` (on one line)."""
    edit = Edit(path, line, column, line, column + len(old), new)
    return Fix(what, "unsafe", (edit,))


def rename_tag(facts: Facts, path: str, old: str, new: str) -> Fix | None:
    """Every opening and closing `old` tag of a file renamed to `new` (the edits are found
    only when the fix is applied)."""
    source = facts.sources.get(path)
    if source is None:
        return None
    return Fix(f"rename `{old}` to `{new}`", "safe", lambda: _tag_edits(source, old, new))


def _tag_edits(source: Source, old: str, new: str) -> tuple[Edit, ...]:
    path = source.path
    closing_old = old.replace("<", "</", 1)
    closing_new = new.replace("<", "</", 1)
    edits = []
    for tag, replacement in ((old, new), (closing_old, closing_new)):
        i = source.text.find(tag)
        while i >= 0:
            pos = source.position(i)
            edits.append(
                Edit(path, pos.line, pos.column, pos.line, pos.column + len(tag), replacement)
            )
            i = source.text.find(tag, i + len(tag))
    return tuple(sorted(edits))


def set_name(facts: Facts, path: str, key_lines: dict[str, int], name: str) -> Fix | None:
    """`name:` in the frontmatter of `path` set to `name`."""
    return set_frontmatter_value(
        facts, path, key_lines.get("name", 0), "name", name, f"set `name: {name}`"
    )


def rewrite_consumed_by(row: RegistryRow, consumers: list[str]) -> Fix | None:
    """The row's `Consumed by` cell listing the files that really consume its markers. Safe
    when the cell held only backticked paths; unsafe when prose would be dropped."""
    start, end = row.consumed_by_cell
    if not start or not consumers:
        return None
    old = row.line_text[start - 1 : end - 1]
    prose = re.sub(r"`[^`]*`|[,\s]", "", old)
    new = ", ".join(f"`{c}`" for c in consumers)
    line = row.position.line
    edit = Edit(row.position.path, line, start, line, end, new)
    return Fix("cite the files that consume the markers", "unsafe" if prose else "safe", (edit,))


def rewrite_matrix_row(facts: Facts, row: MatrixRow, skills: list[str]) -> Fix | None:
    """The matrix row's frontmatter cell set to the agent's `skills:` list, and injected
    skills dropped from its on-demand cell."""
    matrix = facts.matrix
    if matrix is None or row.frontmatter_cell is None:
        return None
    line = row.position.line
    start, end = row.frontmatter_cell
    edits = [Edit(matrix.path, line, start, line, end, ", ".join(skills))]
    if row.on_demand_cell is not None and any(r.name in skills for r in row.on_demand):
        od_start, od_end = row.on_demand_cell
        kept = ", ".join(r.name for r in row.on_demand if r.name not in skills)
        edits.append(Edit(matrix.path, line, od_start, line, od_end, kept))
    edits.sort()
    return Fix("rewrite the matrix row from the agent's frontmatter", "safe", tuple(edits))


def _aligned_row(cells: list[str], rows: list[str]) -> str:
    """A table row in the table's own style: padded to its columns when every row puts its
    pipes at the same places, one space around each cell otherwise."""
    pipes = [[i for i, ch in enumerate(r) if ch == "|"] for r in rows]
    if len(cells) + 1 != len(pipes[0]) or any(p != pipes[0] for p in pipes):
        return "| " + " | ".join(cells) + " |\n"
    out = rows[0][: pipes[0][0]]
    for i, cell in enumerate(cells):
        width = pipes[0][i + 1] - pipes[0][i] - 1
        out += "| " + cell.ljust(width - 2) + " "
    return out + "|\n"

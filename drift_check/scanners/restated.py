"""Tables, lists and directory trees in READMEs that restate agents' frontmatter and the
skills folder: which file, which columns and which phrases are pack settings."""

from __future__ import annotations

import re
from typing import Any

from drift_check.facts import (
    MatrixRow,
    Named,
    Position,
    SkillMatrix,
    SkillTree,
    Source,
    TreeEntry,
    UnassignedList,
)
from drift_check.scanners.markdown import scan
from drift_check.scanners.registry import column_key, split_outside, split_row

_TREE_MARK = re.compile(r"(?:├──|└──|\|--|`--) ")
_LIST_ITEM = re.compile(r"^\s*[-*+]\s+(.*)$")
_FIRST_NAME = re.compile(r"`([^`]+)`|([\w][\w.-]*)")


def _names(text: str, column: int, path: str, line: int) -> tuple[Named, ...]:
    out = []
    for entry in split_outside(text, ",", column):
        name = entry.text.replace("`", "").strip()
        if name and name not in ("-", "—", "none", "None"):
            out.append(Named(name, Position(path, line, entry.column)))
    return tuple(out)


def _span(cells: list[Any], header: list[str], keys: list[str]) -> tuple[int, int] | None:
    if len(keys) != 1:
        return None
    cell = cells[header.index(keys[0])]
    return cell.column, cell.column + len(cell.text)


def find_matrix(source: Source, spec: dict[str, Any]) -> SkillMatrix | None:
    """The first table whose header has the agent column and every configured column."""
    agent_key = column_key(str(spec.get("agent-column", "Agent")))
    fm_keys = [column_key(str(c)) for c in spec.get("frontmatter-columns", [])]
    od_keys = [column_key(str(c)) for c in spec.get("on-demand-columns", [])]
    lines = source.text.split("\n")
    for i, raw in enumerate(lines):
        if not raw.lstrip().startswith("|"):
            continue
        header = [column_key(c.text) for c in split_row(raw)]
        if agent_key not in header or not all(k in header for k in fm_keys + od_keys):
            continue
        rows = []
        n = i + 2 if i + 1 < len(lines) and set(lines[i + 1].strip()) <= set("|:- ") else i + 1
        while n < len(lines) and lines[n].lstrip().startswith("|"):
            cells = split_row(lines[n])
            if len(cells) == len(header):
                agent_cell = cells[header.index(agent_key)]
                row_names = {
                    k: _names(
                        cells[header.index(k)].text,
                        cells[header.index(k)].column,
                        source.path,
                        n + 1,
                    )
                    for k in fm_keys + od_keys
                }
                rows.append(
                    MatrixRow(
                        agent_cell.text.replace("`", "").strip(),
                        Position(source.path, n + 1, agent_cell.column),
                        tuple(x for k in fm_keys for x in row_names[k]),
                        tuple(x for k in od_keys for x in row_names[k]),
                        _span(cells, header, fm_keys),
                        _span(cells, header, od_keys),
                    )
                )
            n += 1
        return SkillMatrix(source.path, Position(source.path, i + 1, 1), tuple(rows))
    return None


def find_unassigned(source: Source, phrases: list[str]) -> list[UnassignedList]:
    """Lists introduced by a line holding one of `phrases` (say "not in any agent
    frontmatter"): the first name of each item. An item holding a phrase itself ends the
    list and starts its own, so no item is in more than two lists (a file of such items
    would otherwise give lists of quadratic total length)."""
    lowered = [p.lower() for p in phrases]
    lines = source.text.split("\n")
    out = []
    for i, raw in enumerate(lines):
        if not any(p in raw.lower() for p in lowered):
            continue
        items: list[Named] = []
        n = i + 1
        while n < len(lines) and not lines[n].strip() and not items:
            n += 1  # a blank line may separate the introduction from its list
        while n < len(lines):
            m = _LIST_ITEM.match(lines[n])
            if not m:
                if items and lines[n].startswith((" ", "\t")) and lines[n].strip():
                    n += 1  # a wrapped line continues the item above
                    continue
                break
            first = _FIRST_NAME.search(m.group(1))
            if first:
                name = first.group(1) or first.group(2)
                column = m.start(1) + first.start() + (2 if first.group(1) else 1)
                items.append(Named(name, Position(source.path, n + 1, column)))
            n += 1
            if any(p in lines[n - 1].lower() for p in lowered):
                break  # an item that introduces a list of its own ends this one
        if items:
            out.append(UnassignedList(source.path, Position(source.path, i + 1, 1), tuple(items)))
    return out


def find_tree(source: Source, root: str) -> SkillTree | None:
    """The first fenced block drawing a tree that starts at the folder `root` (`skills/`)."""
    lines = source.text.split("\n")
    for fence in scan(source.text).fences:
        if fence.close_line is None:
            continue
        body = lines[fence.open_line : fence.close_line - 1]
        if not body or body[0].strip().rstrip("/") != root:
            continue
        if not any(_TREE_MARK.search(b) for b in body):
            continue
        entries: list[TreeEntry] = []
        stack: list[str] = []
        for k, raw in enumerate(body[1:], start=fence.open_line + 2):
            m = _TREE_MARK.search(raw)
            if not m:
                continue
            depth = m.start() // 4
            rest = raw[m.end() :]
            name = rest.split("#", 1)[0].strip().split()[0] if rest.strip() else ""
            if not name:
                continue
            is_dir = name.endswith("/")
            clean = name.rstrip("/")
            del stack[depth:]
            stack.append(clean)
            column = m.end() + (len(rest) - len(rest.lstrip())) + 1
            entries.append(
                TreeEntry(f"{root}/" + "/".join(stack), is_dir, Position(source.path, k, column))
            )
        return SkillTree(
            source.path, root, Position(source.path, fence.open_line, 1), tuple(entries)
        )
    return None

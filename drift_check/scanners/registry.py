"""The `AGENT_CONTRACTS` registry: a Markdown table under a configurable heading.

Columns come from the header row (`Agent`, `Role`, `Completion Markers`, optionally
`Consumed by` and `Kind`). Cells split on `|` outside backtick spans and parentheses; a
marker cell is a comma list whose entries may carry backticks, a leading `## ` and one
trailing `(annotation)`; `No marker` means none; `(unconsumed: reason)` waives the consumer
requirement of that one marker.
"""

from drift_check.facts import (
    CitedPath,
    DeclaredMarker,
    InputProblem,
    Position,
    Registry,
    RegistryRow,
    Source,
)
from drift_check.records import NamedTuple
from drift_check.scanners.markdown import scan
from drift_check.scanners.patterns import lazy

NO_MARKER = "no marker"
_SEPARATOR = lazy(r"^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
# A repository path of a file drift-check can read as a consumer: Markdown or Python.
_PATH_TOKEN = lazy(r"\w[\w./-]*\.(?:md|py)")
_LEADING_HASHES = lazy(r"\A#{1,6}[ \t]+")  # only a leading `## `, not one inside


class Cell(NamedTuple):
    text: str
    column: int  # 1-based column of the first non-blank character


def split_outside(text: str, delimiter: str, start_column: int = 1) -> list[Cell]:
    """Split on `delimiter` outside backtick spans and parentheses, keeping columns.

    A backslash-escaped delimiter (`\\|`) is content, as in GitHub tables.
    """
    cells: list[Cell] = []
    in_code = False
    depth = 0
    begin = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] == delimiter:
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        elif not in_code:
            if ch == "(":
                depth += 1
            elif ch == ")" and depth:
                depth -= 1
            elif ch == delimiter and depth == 0:
                cells.append(_cell(text, begin, i, start_column))
                begin = i + 1
        i += 1
    cells.append(_cell(text, begin, n, start_column))
    return cells


def _cell(text: str, begin: int, end: int, start_column: int) -> Cell:
    raw = text[begin:end]
    stripped = raw.lstrip()
    if not stripped:
        return Cell("", start_column + begin)
    return Cell(stripped.rstrip(), start_column + begin + (len(raw) - len(stripped)))


def split_row(line: str) -> list[Cell]:
    body = line.rstrip()
    lead = len(body) - len(body.lstrip())
    body = body.lstrip()
    offset = lead + 1
    if body.startswith("|"):
        body = body[1:]
        offset += 1
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return split_outside(body, "|", offset)


def _span(cell: Cell) -> tuple[int, int]:
    return cell.column, cell.column + len(cell.text)


def column_key(header: str) -> str:
    return "_".join(header.replace("`", "").strip().lower().split())


def parse_marker_cell(cell: Cell, path: str, line: int) -> list[DeclaredMarker]:
    """The markers of a `Completion Markers` cell, each at its own column."""
    markers: list[DeclaredMarker] = []
    for entry in split_outside(cell.text, ",", cell.column):
        text = entry.text
        if not text:
            continue
        annotation = None
        if text.endswith(")"):
            depth = 0
            for i in range(len(text) - 1, -1, -1):
                if text[i] == ")":
                    depth += 1
                elif text[i] == "(":
                    depth -= 1
                    if depth == 0:
                        annotation = text[i + 1 : -1].strip()
                        text = text[:i].rstrip()
                        break
        marker = text.replace("`", "").replace("\\|", "|").strip()
        marker = _LEADING_HASHES.sub("", marker, count=1).strip()
        if not marker or marker.lower() == NO_MARKER:
            continue
        unconsumed = False
        reason = ""
        if annotation is not None and annotation.lower().startswith("unconsumed"):
            rest = annotation[len("unconsumed") :]
            if not (rest and rest[0].isalnum()):  # not a word that merely starts so
                unconsumed = True
                reason = rest.lstrip(" \t:-\u2013\u2014").strip()
        markers.append(
            DeclaredMarker(
                marker,
                Position(path, line, entry.column),
                annotation,
                unconsumed,
                reason,
                entry.column + len(entry.text),
            )
        )
    return markers


def cited_paths(cell: Cell, path: str, line: int) -> list[CitedPath]:
    """Backticked repository paths in a `Consumed by` cell; prose, globs, commands ignored."""
    out: list[CitedPath] = []
    text = cell.text
    i = 0
    while True:
        start = text.find("`", i)
        if start < 0:
            break
        end = text.find("`", start + 1)
        if end < 0:
            break
        token = text[start + 1 : end].strip()
        token = token.removeprefix("./")
        i = end + 1
        if "*" in token or not _PATH_TOKEN.fullmatch(token):
            continue
        if ".." in token.split("/"):
            continue
        out.append(CitedPath(token, Position(path, line, cell.column + start)))  # at the backtick
    return out


def parse_registry(source: Source, heading: str) -> tuple[Registry | None, list[InputProblem]]:
    """Find the table under `heading` (any level, outside fences) and parse its rows."""
    path = source.path
    problems: list[InputProblem] = []
    md = scan(source.text)
    wanted = heading.lstrip("#").strip()
    found = next((h for h in md.headings if not h.in_fence and h.text == wanted), None)
    if found is None:
        problems.append(
            InputProblem(
                Position(path, 1, 1),
                "registry-missing",
                f"no `{wanted}` heading in the contracts file; add the registry table under it"
                " or set `registry-heading` in the config",
            )
        )
        return None, problems
    line_text, count = source.line_text, source.line_count
    i = found.line  # 0-based index of the line after the heading
    while i < count and not line_text(i + 1).strip():
        i += 1
    if i >= count or not line_text(i + 1).lstrip().startswith("|"):
        problems.append(
            InputProblem(
                Position(path, found.line, found.column),
                "registry-missing",
                f"no table under `{wanted}`; the registry must be a pipe table right after it",
            )
        )
        return None, problems
    header_line = i + 1
    header = split_row(line_text(i + 1))
    columns = tuple(column_key(c.text) for c in header)
    i += 1
    if i < count and _SEPARATOR.match(line_text(i + 1).strip()):
        i += 1
    rows: list[RegistryRow] = []
    idx = {name: n for n, name in enumerate(columns)}
    missing = [c for c in ("agent", "completion_markers") if c not in idx]
    if missing:
        problems.append(
            InputProblem(
                Position(path, header_line, 1),
                "registry-row",
                f"registry header lacks the column(s) {', '.join(missing)}; expected Agent, Role,"
                " Completion Markers and optionally Consumed by, Kind",
            )
        )
        return None, problems
    for n in range(i, count):
        raw = line_text(n + 1)
        if not raw.lstrip().startswith("|"):
            break
        lineno = n + 1
        cells = split_row(raw)
        if len(cells) != len(columns):
            problems.append(
                InputProblem(
                    Position(path, lineno, 1),
                    "registry-row",
                    f"registry row has {len(cells)} cells but the header has {len(columns)};"
                    " fix the row (an unescaped `|` outside backticks splits a cell)",
                )
            )
            continue
        agent_cell = cells[idx["agent"]]
        agent = agent_cell.text.replace("`", "").strip()
        if not agent:
            problems.append(
                InputProblem(
                    Position(path, lineno, agent_cell.column),
                    "registry-row",
                    "registry row has an empty Agent cell; name the agent file's stem",
                )
            )
            continue
        markers = parse_marker_cell(cells[idx["completion_markers"]], path, lineno)
        consumed: list[CitedPath] = []
        if "consumed_by" in idx:
            consumed = cited_paths(cells[idx["consumed_by"]], path, lineno)
        kind = kind_pos = None
        if "kind" in idx:
            kcell = cells[idx["kind"]]
            kind = kcell.text.replace("`", "").strip() or None
            kind_pos = Position(path, lineno, kcell.column)
        rows.append(
            RegistryRow(
                agent=agent,
                position=Position(path, lineno, agent_cell.column),
                markers=tuple(markers),
                consumed_by=tuple(consumed),
                kind=kind,
                kind_position=kind_pos,
                line_text=raw,
                markers_cell=_span(cells[idx["completion_markers"]]),
                consumed_by_cell=_span(cells[idx["consumed_by"]])
                if "consumed_by" in idx
                else (0, 0),
            )
        )
    heading_pos = Position(path, found.line, found.column)
    return Registry(path, heading_pos, columns, tuple(rows)), problems

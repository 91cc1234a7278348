"""Tables, lists and directory trees in READMEs that restate agents' frontmatter and the
skills folder: which file, which columns and which phrases are pack settings."""

from __future__ import annotations

import re
from typing import Any

from drift_check.facts import (
    InputProblem,
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
from drift_check.scanners.registry import Cell, column_key, split_outside, split_row

_TREE_MARK = re.compile(r"(?:├──|└──|\|--|`--) ")
_LIST_ITEM = re.compile(r"^\s*[-*+]\s+(.*)$")
_FIRST_NAME = re.compile(r"`([^`]+)`|([\w][\w.-]*)")

# A matrix cell entry that names a skill (`plugin:skill` included); anything else (`speckit.*
# (9 phase skills)`, `agent-response and flow-specific skills`) is prose, not a claim.
_SKILL_NAME = re.compile(r"\w(?:[\w.:-]*\w)?")
_LINK_TEXT = re.compile(r"^\[([^\]]*)\]\([^)]*\)$")

# What a matrix column holds, from its header's words (lower case, punctuation as spaces).
# On demand is asked first: `On-demand (loaded via Skill(...))`, `Not in frontmatter`.
_ON_DEMAND = re.compile(
    r"\bon ?demand\b|\blazy\b|\bloaded when\b|\bwhen needed\b|\boptional\b|\bskill tool\b"
    r"|\bnot (?:in|assigned in|injected)\b"
)
_FRONTMATTER = re.compile(
    r"\bfrontmatter\b|\balways\b|\binject(?:ed|ion)?\b|\bcore\b|\bpre ?loaded\b|\bstart ?up\b"
)
_AGENT = re.compile(r"^(?:sub ?)?agents?\b(?!.*\bskills?\b)")
# Skill columns whose words do not say how the skills load: Gaia's `Domain Skills` has held
# per-agent frontmatter skills in some versions and on-demand ones in others.
_EITHER = re.compile(r"\bskills?\b|\bdomain\b|\bcommon\b")

AGENT, FRONTMATTER, ON_DEMAND, EITHER = "agent", "frontmatter", "on-demand", "either"
HEADER_WORDS = {
    FRONTMATTER: "`Frontmatter`, `Core`, `Injected`, `Always loaded`",
    ON_DEMAND: "`On demand`, `Optional`, `Loaded when`",
    EITHER: "`Domain Skills`, `Skills`",
}


def _header_words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def column_role(header: str) -> str | None:
    """What a skill matrix column holds, read from its header: the agent, skills injected
    by frontmatter, skills loaded on demand, skills of either kind, or nothing of these."""
    words = _header_words(header)
    if _AGENT.search(words):
        return AGENT
    if _ON_DEMAND.search(words):
        return ON_DEMAND
    if _FRONTMATTER.search(words):
        return FRONTMATTER
    if _EITHER.search(words):
        return EITHER
    return None


def _listed(spec: dict[str, Any], key: str) -> list[str]:
    """The column names the config gives (the schema reads one name alone as a list)."""
    return list(spec[key])


def _configured_roles(spec: dict[str, Any]) -> dict[str, str]:
    """Column keys the config names, with their role (`agent-column`, `frontmatter-columns`,
    `on-demand-columns`)."""
    roles = {column_key(c): FRONTMATTER for c in _listed(spec, "frontmatter-columns")}
    roles.update({column_key(c): ON_DEMAND for c in _listed(spec, "on-demand-columns")})
    if spec["agent-column"]:
        roles[column_key(spec["agent-column"])] = AGENT
    return roles


def _roles(header: list[str], spec: dict[str, Any]) -> list[str | None] | None:
    """Each header cell's role, or None when the header is not a skill matrix's: an agent
    column, a frontmatter column and a column of other skills. Columns the config names
    take the role it gives them; when it names frontmatter or on-demand columns, the header
    must have every one of them and no other skill column is read."""
    configured = _configured_roles(spec)
    keys = [column_key(h) for h in header]
    recognised = [column_role(h) for h in header]
    named = [k for k, role in configured.items() if role != AGENT]
    if named:
        if not all(k in keys for k in named):
            return None
        roles = [
            configured.get(k) or (AGENT if r == AGENT else None)
            for k, r in zip(keys, recognised, strict=True)
        ]
    else:
        roles = [configured.get(k) or r for k, r in zip(keys, recognised, strict=True)]
        if FRONTMATTER not in roles or (ON_DEMAND not in roles and EITHER not in roles):
            return None
    if AGENT not in roles:
        return None
    first_agent = roles.index(AGENT)
    return [r if r != AGENT or i == first_agent else None for i, r in enumerate(roles)]


def _without_annotation(text: str) -> str:
    """`name (note)` -> `name`: one trailing parenthesised note is dropped."""
    if text.endswith(")"):
        i = text.rfind("(")
        if i >= 0 and ")" not in text[i:-1]:
            return text[:i]
    return text


def _names(text: str, column: int, path: str, line: int) -> tuple[Named, ...]:
    out = []
    for entry in split_outside(text, ",", column):
        name = _without_annotation(entry.text.replace("`", "").strip()).strip().strip("*").strip()
        if _SKILL_NAME.fullmatch(name) and name not in ("none", "None"):
            out.append(Named(name, Position(path, line, entry.column)))
    return tuple(out)


def _agent_name(text: str) -> str:
    name = text.replace("`", "").replace("*", "").strip()
    link = _LINK_TEXT.match(name)
    return (link.group(1) if link else name).strip().lstrip("@")


def _span(cells: list[Any], roles: list[str | None], role: str) -> tuple[int, int] | None:
    at = [i for i, r in enumerate(roles) if r == role]
    if len(at) != 1:
        return None
    cell = cells[at[0]]
    return cell.column, cell.column + len(cell.text)


def _table_headers(source: Source) -> list[tuple[int, list[Any]]]:
    """(0-based line, header cells) of each table outside fenced blocks."""
    lines = source.text.split("\n")
    md = scan(source.text)
    out = []
    for i, raw in enumerate(lines[:-1]):
        if not raw.lstrip().startswith("|") or md.in_fence(i + 1):
            continue
        if i > 0 and lines[i - 1].lstrip().startswith("|"):
            continue  # a body row, not a header
        below = lines[i + 1].strip()
        if below.startswith("|") and set(below) <= set("|:- ") and "-" in below:
            out.append((i, split_row(raw)))
    return out


def find_matrix(source: Source, spec: dict[str, Any]) -> SkillMatrix | None:
    """The first table outside fences whose header is a skill matrix's (see `_roles`)."""
    lines = source.text.split("\n")
    for i, header in _table_headers(source):
        roles = _roles([c.text for c in header], spec)
        if roles is None:
            continue
        rows = []
        n = i + 2
        while n < len(lines) and lines[n].lstrip().startswith("|"):
            # as GitHub renders a table: missing cells are empty, extra cells are dropped
            cells = split_row(lines[n])[: len(roles)]
            cells += [Cell("", len(lines[n]) + 1)] * (len(roles) - len(cells))
            by_role: dict[str, list[Named]] = {FRONTMATTER: [], ON_DEMAND: [], EITHER: []}
            agent, agent_column = "", 1
            for cell, role in zip(cells, roles, strict=True):
                if role == AGENT:
                    agent, agent_column = _agent_name(cell.text), cell.column
                elif role is not None:
                    by_role[role].extend(_names(cell.text, cell.column, source.path, n + 1))
            if agent:
                rows.append(
                    MatrixRow(
                        agent,
                        Position(source.path, n + 1, agent_column),
                        tuple(by_role[FRONTMATTER]),
                        tuple(by_role[ON_DEMAND]),
                        _span(cells, roles, FRONTMATTER),
                        _span(cells, roles, ON_DEMAND),
                        tuple(by_role[EITHER]),
                    )
                )
            n += 1
        return SkillMatrix(source.path, Position(source.path, i + 1, 1), tuple(rows))
    return None


def matrix_not_found(source: Source, spec: dict[str, Any]) -> InputProblem:
    """Why `source` has no skill matrix, at the table that comes closest (one with an agent
    column), else at the line that speaks of the matrix, else at the top of the file."""
    named = _listed(spec, "frontmatter-columns") + _listed(spec, "on-demand-columns")
    if named:
        want = "an agent column and the columns " + ", ".join(f"`{c}`" for c in named)
    else:
        want = (
            f"an agent column, a column of frontmatter skills ({HEADER_WORDS[FRONTMATTER]})"
            f" and one of other skills ({HEADER_WORDS[ON_DEMAND]}, {HEADER_WORDS[EITHER]})"
        )
    where = Position(source.path, 1, 1)
    found = ""
    for i, header in _table_headers(source):
        roles = {column_role(c.text) for c in header}
        if AGENT in roles:
            where = Position(source.path, i + 1, 1)
            if named:
                keys = {column_key(c.text) for c in header}
                lacks = [f"`{c}`" for c in named if column_key(c) not in keys]
            else:
                lacks = [] if FRONTMATTER in roles else ["of frontmatter skills"]
                if not roles & {ON_DEMAND, EITHER}:
                    lacks.append("of other skills")
            found = "; the table here has no column " + " nor ".join(lacks)
            break
    else:
        at = source.text.lower().find("skill assignment matrix")
        if at >= 0:
            where = Position(source.path, source.position(at).line, 1)
    return InputProblem(
        where,
        "matrix-missing",
        f"no skill assignment matrix in {source.path}, a table with {want}{found}; fix the"
        " header, name the columns in `skill-matrix`, or set `skill-matrix: null` if the"
        " tree has no matrix",
    )


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

"""State vocabularies: which states a field takes, who sets it and who branches on it.

A vocabulary is found from a field that a contract carries:

- **sources** define the states: a JSON Schema `enum` (of `status`, `plan_status`, ...), a
  Markdown states table whose first column the contract's template names as a placeholder
  (`"plan_status": "<STATUS>"` and a table with a `Status` column, as Gaia's agent-protocol
  has), or the `a | b` alternatives a template gives the field (`"state": "OK | CONTINUE"`);
- **producers** give the field a literal value in a fenced `json` / `json:contract` block or
  a `<NAME>_RESULT:` / `<NAME>_REQUEST:` template of the same contract (most of its
  top-level keys are the source's);
- **handlers** branch on the states: a table whose first column holds them and another
  says what to do (`Action`), a list of `` `state` → ... `` items, an arrow tree in a fence
  (`|- COMPLETE -> ...`), in a file that names the field or the contract; and in Python
  and TypeScript files that name the field, comparisons and `case`s;
- **copies** restate the list in code (`_VALID_PLAN_STATUSES`, `ENVELOPE_STATES`) or in a
  second schema.

A handler or copy belongs to the vocabulary it shares most states with (at least two, and
at least half of its own). The `vocabularies` setting names a field's source, copies and
handler files where the shapes alone do not say it.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from drift_check.facts import (
    JsonValue,
    Position,
    SchemaFile,
    Source,
    StateList,
    StateName,
    Vocabulary,
    escape_pointer,
)
from drift_check.records import NamedTuple
from drift_check.scanners.files import Repo, build_output, glob_pattern, matches
from drift_check.scanners.json_parser import (
    JsonSyntaxError,
    member_values,
    parse_at,
    parse_json,
)
from drift_check.scanners.markdown import MarkdownScan, scan
from drift_check.scanners.patterns import lazy
from drift_check.scanners.registry import _SEPARATOR, Cell, split_row
from drift_check.scanners.state_code import (
    COMPLETE_WORDS,
    CodeList,
    is_state,
    name_words,
    names_field,
    typescript_lists,
)
from drift_check.settings import HOOK_EVENTS

_UPPER = lazy(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\Z")
_TEMPLATE_HEAD = lazy(
    r"^([ \t]*)(?:[-*][ \t]+)?`?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:RESULT|REQUEST))`?:[ \t]*$"
)
_TEMPLATE_KEY = lazy(r"([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")
_COMMENT = lazy(r"[ \t]+#[ \t].*$")
_PLACEHOLDER = lazy(r"<([^<>|]+)>\Z|\{\{\s*([^{}|]+?)\s*\}\}\Z")
_LOOSE_PAIR = lazy(r'"([^"\\\n]+)"[ \t]*:[ \t]*"([^"\\\n]*)"')
_LOOSE_KEY = lazy(r'"([^"\\\n]+)"[ \t]*:')
_ARROW = r"(?:→|->|=>|⇒)"
_ARROW_ITEM = lazy(
    r"([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+(\*\*)?(`?)([^`\s*]+)\3(?:\*\*)?[ \t]*:?[ \t]*" + _ARROW
)
_ARROW_TOKENS = ("→", "->", "=>", "⇒")
# a fence run and `json` in any case (as `re.I` reads it: the long s too), one pattern per run,
# so that the engine searches for its literal start (an alternation or `re.I` makes it try
# every position)
_JSON_FENCES = tuple(lazy(run + r"[ \t]*[jJ][sS\u017f][oO][nN]") for run in ("```", "~~~"))
_TREE_ITEM = lazy(r"^[ \t│|]*(?:[|+`├└][-─]+|[├└])[ \t]*(`?)([^\s`]+)\1[ \t]*:?[ \t]*" + _ARROW)
_CONTINUATION = lazy(r"^[ \t]+\S")
# a table's separator row (`|---|:--:|`), the cheap way to find tables in a text
# (it starts with the newline before it: a literal first character is searched for fast)
_TABLE_SEPARATOR = lazy(r"\n[ \t]*\|[ \t]*:?-+:?[ \t]*\|[-|: \t]*(?=\n|\Z)")
# first-column headers of a table that branches on states, and the headers that say what to do
_STATE_HEADERS = frozenset(
    {"status", "state", "result", "outcome", "verdict", "value", "plan status"}
)
# a word of each state header: a first cell without one is not a state header (its words are
# its lowercased text split, less a plural's ending)
_STATE_HINTS = ("status", "state", "result", "outcome", "verdict", "value")
_ACTION_WORDS = frozenset(
    {
        "action", "actions", "handling", "handler", "response", "respond", "next", "then",
        "do", "route", "routing", "tool", "tools", "behavior", "behaviour", "orchestrator",
        "step", "steps", "reaction", "dispatch",
    }
)  # fmt: skip
_TEST_FILE = lazy(
    r"(?:^|/)(?:tests?|__tests__|spec)/|(?:^|/)test_[^/]*\Z|_test\.py\Z|\.(?:test|spec)\.[cm]?[jt]sx?\Z"
)
_CODE_EXTENSIONS = (".py", ".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs")


class Leaf(NamedTuple):
    """A value a contract block gives a field: `path` leads to it through the keys (arrays
    add nothing), `position` is its first character."""

    path: tuple[str, ...]
    value: str
    position: Position


class Block(NamedTuple):
    """A fenced `json` block or a `<NAME>_RESULT:` template in a Markdown file."""

    path: str
    contract: str  # `json:contract`, `CONTEXT_RESULT`; "" for a plain `json` block
    keys: frozenset[str]  # its top-level keys (every key, for a block read loosely)
    leaves: tuple[Leaf, ...]
    loose: bool = False  # not JSON: pairs were picked out one by one, without their path


class Definition(NamedTuple):
    """A list that defines a field's states, with the contract it belongs to."""

    field: tuple[str, ...]
    keys: frozenset[str]
    contracts: frozenset[str]
    states: StateList
    rank: int  # 0 configured, 1 schema enum, 2 states table, 3 template alternatives


class Handler(NamedTuple):
    states: StateList
    file: str


class _Group:
    """A vocabulary while it is being put together."""

    def __init__(self, definition: Definition) -> None:
        self.field = definition.field
        self.keys = definition.keys
        self.contracts = set(definition.contracts)
        self.source = definition.states
        self.copies: list[StateList] = []
        self.emitted: list[StateName] = []
        self.handlers: list[StateList] = []
        self.configured = definition.rank == 0
        self.handler_files: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return self.field[-1]

    def known(self) -> set[str]:
        return {s.name for s in self.source.states} | {s.name for s in self.emitted}

    def vocabulary(self) -> Vocabulary:
        return Vocabulary(
            self.key,
            self.source,
            tuple(self.copies),
            tuple(self.emitted),
            tuple(sorted(self.handlers, key=lambda h: h.position)),
            self.configured,
        )


def find_vocabularies(
    repo: Repo,
    settings: dict[str, Any],
    schemas: Iterable[SchemaFile],
    files: list[str],
) -> tuple[Vocabulary, ...]:
    """Every vocabulary of the tree: zero-config shapes, then the `vocabularies` setting.
    `schemas` are the tree's JSON Schemas as the structured-contract scan read them; `files`
    the tree's files less those `discovery-skip` names."""
    from drift_check.parallel import map_files

    skip = tuple(settings["discovery-skip"])
    definitions: list[Definition] = []
    blocks: list[Block] = []
    pending: list[RawBlock] = []
    read: list[tuple[str, list[Block]]] = []  # every Markdown file read, with its blocks
    markdown = [f for f in files if f.endswith(".md")]
    # the cheap look at every file on every core; the few that may hold blocks are parsed
    # here, as their blocks cost more to send between processes than to find
    looked = map_files(lambda p: _look(repo, p), markdown, repo, light=True)
    for path, marks in zip(markdown, looked, strict=True):
        source = repo.read(path)
        if marks is None or source is None:
            continue
        found = _definitions(source, marks) if marks[1] or marks[2] else _NOTHING
        definitions.extend(found.definitions)
        blocks.extend(found.blocks)
        pending.extend(found.pending)
        read.append((path, found.blocks))
    valid = [s for s in schemas if s.valid and not (skip and matches(s.path, skip))]
    for found_in_schema in map_files(schema_definitions, valid, repo):
        definitions.extend(found_in_schema)
    configured = settings["vocabularies"]
    groups = _group(definitions)
    for entry in configured or ():
        _configure(entry, groups, repo, definitions, files)
    if not groups:
        return ()  # no handler list can belong to anything: none is looked for
    # the blocks that could not define anything are parsed only if they give a field a value
    wanted = [f'"{k}"' for k in sorted({g.key for g in groups})]
    for raw in pending:
        if any(k in raw.content for k in wanted):
            block = _json_block(raw.path, raw.content, raw.before, raw.contract)
            if block is not None:
                blocks.append(block)
    _emissions(groups, blocks)
    skill_dirs = {posixpath.dirname(f) for f in files if posixpath.basename(f) == "SKILL.md"}
    _keep_local(groups, skill_dirs)
    handlers: list[Handler] = []
    mentions: dict[str, Source] = {}
    listed = map_files(lambda item: _read_handler_lists(repo, *item), read, repo, light=True)
    for (path, _), found_handlers in zip(read, listed, strict=True):
        source = repo.read(path)
        if found_handlers and source is not None:
            handlers.extend(Handler(h, path) for h in found_handlers)
            mentions[path] = source
    _handlers(groups, handlers, mentions)
    _code(groups, repo, files, skill_dirs)
    return tuple(g.vocabulary() for g in sorted(groups, key=lambda g: g.source.position))


class _Lines:
    """Positions of offsets met in increasing order, counting newlines once."""

    def __init__(self, text: str, path: str) -> None:
        self.text = text
        self.path = path
        self.offset = 0
        self.line = 1

    def at(self, offset: int) -> Position:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        column = offset - self.text.rfind("\n", 0, offset)
        return Position(self.path, self.line, column)


class _Fences:
    """The file's fences, scanned only when something asks (most files need none)."""

    def __init__(self, text: str, fenced: bool) -> None:
        self.text = text
        self.fenced = fenced
        self._scan: MarkdownScan | None = None

    @property
    def scan(self) -> MarkdownScan:
        if self._scan is None:
            self._scan = scan(self.text, 0) if self.fenced else MarkdownScan((), ())
        return self._scan

    @property
    def fences(self) -> tuple[Any, ...]:
        return self.scan.fences

    def in_fence(self, line: int) -> bool:
        return self.fenced and self.scan.in_fence(line)


class RawBlock(NamedTuple):
    """A fenced JSON block not parsed yet: `content` follows `before` lines of its file."""

    path: str
    content: str
    before: int
    contract: str


class MarkdownFinds(NamedTuple):
    definitions: list[Definition]
    blocks: list[Block]
    handlers: list[StateList]
    pending: list[RawBlock] = []  # noqa: RUF012 (never mutated)


def read_markdown(source: Source) -> MarkdownFinds:
    """The contract blocks, linked states tables and handler lists of one Markdown file.
    A JSON block that can define nothing (no `|` alternatives, no placeholder a table
    could name) is left `pending`: most are parsed only if a field turns out to need them."""
    found = _definitions(source)
    return found._replace(handlers=_handler_lists(source, found.blocks))


# what a cheap look at a text finds: a fence, a JSON fence, a template's name (a plain
# tuple: it crosses between processes for every file, where a record costs far more)
_Marks = tuple[bool, bool, bool]


def _marks(text: str) -> _Marks:
    fenced = "```" in text or "~~~" in text
    return fenced, fenced and _json_fence(text), "_RESULT" in text or "_REQUEST" in text


def _look(repo: Repo, path: str) -> _Marks | None:
    """`_marks` of a Markdown file of the tree; None when it cannot be read."""
    source = repo.read(path)
    return None if source is None else _marks(source.text)


def _read_handler_lists(repo: Repo, path: str, blocks: list[Block]) -> list[StateList]:
    """`_handler_lists` of a Markdown file of the tree read before."""
    source = repo.read(path)
    return [] if source is None else _handler_lists(source, blocks)


def _definitions(source: Source, marks: _Marks | None = None) -> MarkdownFinds:
    """What `read_markdown` finds but the handler lists (which matter only once some
    vocabulary exists): most files hold no block and no template, and are not split.
    `marks`: the text's `_marks`, when known."""
    text = source.text
    fenced, json_fence, templated = marks or _marks(text)
    if not json_fence and not templated:
        return _NOTHING
    lines = text.split("\n")
    markdown = _Fences(text, fenced)
    tabled = "|" in text and _TABLE_SEPARATOR.search(text) is not None
    blocks: list[Block] = []
    pending: list[RawBlock] = []
    raws = _json_blocks(source, lines, markdown) if json_fence else []
    for raw in raws:
        may_define = "|" in raw.content or (tabled and ("<" in raw.content or "{{" in raw.content))
        if not may_define:
            pending.append(raw)
            continue
        block = _json_block(raw.path, raw.content, raw.before, raw.contract)
        if block is not None:
            blocks.append(block)
    if templated:
        blocks.extend(_templates(source, lines, markdown))
    definitions: list[Definition] = []
    for block in blocks:
        if block.loose:
            continue
        for leaf in block.leaves:
            states = alternatives(leaf)
            if states is not None:
                label = f"the alternatives of `{'.'.join(leaf.path)}`"
                definitions.append(
                    Definition(
                        leaf.path,
                        block.keys,
                        frozenset({block.contract} - {""}),
                        StateList("alternatives", label, leaf.position, states),
                        3,
                    )
                )
    placeholders = _placeholders(blocks) if tabled else {}
    if placeholders:
        heads = set(_STATE_HEADERS) | set(placeholders)
        heads.update(_words(leaf.path[-1]) for _, leaf in placeholders.values())
        for table in _tables(text, heads, source.path):
            linked = _linked(table, placeholders)
            if linked is None or markdown.in_fence(table.position.line):
                continue  # not linked: a handler table, if anything
            block, leaf = linked
            states = _column_states(table, source.path)
            if states is not None:
                label = f"the states table of `{'.'.join(leaf.path)}`"
                definitions.append(
                    Definition(
                        leaf.path,
                        block.keys,
                        frozenset({block.contract} - {""}),
                        StateList("table", label, table.position, states),
                        2,
                    )
                )
    return MarkdownFinds(definitions, blocks, [], pending)


_NOTHING = MarkdownFinds([], [], [], [])  # never mutated


def _json_fence(text: str) -> bool:
    backticks, tildes = _JSON_FENCES
    return bool(
        ("```" in text and backticks.search(text)) or ("~~~" in text and tildes.search(text))
    )


def _placeholders(blocks: list[Block]) -> dict[str, tuple[Block, Leaf]]:
    """The blocks' placeholder values (`<STATUS>`) by their words, with where each is."""
    return {
        _words(name): (block, leaf)
        for block in blocks
        for leaf in block.leaves
        if (name := placeholder(leaf.value)) is not None
    }


def _handler_lists(source: Source, blocks: list[Block]) -> list[StateList]:
    """The lists of one Markdown file that branch on states: tables (other than the states
    tables `blocks` link), arrow lists and arrow trees. The fences are scanned only for a
    file that holds two candidates."""
    text = source.text
    tabled = "|" in text and _TABLE_SEPARATOR.search(text) is not None
    arrows = _arrow_lines(text) if ("→" in text or ">" in text or "⇒" in text) else []
    if not tabled and not arrows:
        return []
    fenced = "```" in text or "~~~" in text
    markdown = _Fences(text, fenced)
    lines = _LazyLines(text, arrows)
    handlers: list[StateList] = []
    if tabled:
        placeholders = _placeholders(blocks)
        for table in _tables(text, set(_STATE_HEADERS), source.path, _STATE_HINTS):
            if _linked(table, placeholders) is not None:
                continue  # a states table: a definition (or nothing, in a fence)
            handler = _handler_table(table, source.path)
            if handler is not None and not markdown.in_fence(table.position.line):
                handlers.append(handler)
    if arrows:
        handlers.extend(_arrow_lists(source, lines, [i for i, _ in arrows], markdown))
        if fenced:
            handlers.extend(_arrow_trees(source, lines, [i for i, _ in arrows], markdown))
    return handlers


class _LazyLines:
    """A text's lines by 0-based index, without splitting the whole text for the few lines
    whose start is known (the arrow lines); any other line splits it once."""

    def __init__(self, text: str, known: list[tuple[int, int]]) -> None:
        self.text = text
        self.known = dict(known)
        self._all: list[str] | None = None

    @property
    def all(self) -> list[str]:
        if self._all is None:
            self._all = self.text.split("\n")
        return self._all

    def __len__(self) -> int:
        return len(self.all)

    def __getitem__(self, i: int) -> str:
        start = self.known.get(i)
        if start is None or self._all is not None:
            return self.all[i]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]


def placeholder(value: str) -> str | None:
    m = _PLACEHOLDER.match(value.strip())
    if m is None:
        return None
    return (m.group(1) or m.group(2)).strip()


def alternatives(leaf: Leaf) -> tuple[StateName, ...] | None:
    """`a | b | c` (or `<a | b | c>`) when every part is a state name."""
    value = leaf.value
    if "|" not in value:
        return None
    body, shift = value, 0
    stripped = value.strip()
    if stripped.startswith("<") and stripped.endswith(">"):
        shift = value.index("<") + 1
        body = value[shift : value.rindex(">")]
    out = []
    offset = shift
    for part in body.split("|"):
        name = part.strip()
        if not is_state(name):
            return None
        column = leaf.position.column + offset + (len(part) - len(part.lstrip()))
        out.append(StateName(name, Position(leaf.position.path, leaf.position.line, column)))
        offset += len(part) + 1
    return tuple(out) if len(out) >= 2 else None


@lru_cache(maxsize=4096)
def _words(text: str) -> str:
    # a pure function of names that repeat from file to file (`<JOB_NAME>`, `Status`)
    return " ".join(name_words(text.replace("`", "")))


class _Table(NamedTuple):
    position: Position  # the header row's first cell
    header: list[Cell]
    rows: list[tuple[int, str]]  # line number and text: split only for the tables that matter


def _tables(text: str, heads: set[str], path: str, hints: tuple[str, ...] = ()) -> Iterable[_Table]:
    """Tables with a leading `|`, found from their separator rows, whose first header
    cell is one of `heads` (as words). Their lines are cut from the text around each
    separator, without splitting the text. `hints`: a first cell that is one of `heads`
    holds one of them, lowercased."""
    counter = _Lines(text, path)
    for m in _TABLE_SEPARATOR.finditer(text):
        line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        if not line.lstrip().startswith("|"):
            continue
        cell = line.strip()[1:].split("|", 1)[0]
        if hints:
            lowered = cell.lower()
            if not any(h in lowered for h in hints):
                continue
        if not _SEPARATOR.match(text[m.start() + 1 : m.end()].strip()):
            continue
        if _words(cell) not in heads:
            continue  # the cheap look at the first cell: most tables are not about states
        number = counter.at(m.start() + 1).line - 1  # the header's 1-based line
        header = split_row(line)
        rows = []
        at, j = m.end() + 1, number + 2
        while at <= len(text):
            end = text.find("\n", at)
            row = text[at:] if end < 0 else text[at:end]
            if not row.lstrip().startswith("|"):
                break
            rows.append((j, row))
            if end < 0:
                break
            at, j = end + 1, j + 1
        first = header[0] if header else Cell("", 1)
        yield _Table(Position(path, number, first.column), header, rows)


def _cell_state(cell: Cell) -> tuple[str, int] | None:
    """The state a cell holds alone (`` `COMPLETE` ``, `COMPLETE`, `**COMPLETE**`), with the
    column its name starts at."""
    text = cell.text
    column = cell.column
    if text.startswith("**") and text.endswith("**") and len(text) > 4:
        text, column = text[2:-2], column + 2
    if text.startswith("`") and text.endswith("`") and len(text) > 2:
        name = text[1:-1]
        return (name, column + 1) if is_state(name) else None
    return (text, column) if _UPPER.match(text) and len(text) > 1 else None


def _column_states(table: _Table, path: str) -> tuple[StateName, ...] | None:
    """The states of the table's first column, when every row holds one."""
    out = []
    for line, text in table.rows:
        cells = split_row(text)
        if not cells or not cells[0].text:
            continue
        found = _cell_state(cells[0])
        if found is None:
            return None
        out.append(StateName(found[0], Position(path, line, found[1])))
    return tuple(out) if len(out) >= 2 else None


def _linked(
    table: _Table, placeholders: dict[str, tuple[Block, Leaf]]
) -> tuple[Block, Leaf] | None:
    """The template leaf whose placeholder names the table's first column (`<STATUS>` and
    a `Status` column), or whose key does."""
    if not table.header or not placeholders:
        return None
    head = _words(table.header[0].text)
    if head in placeholders:
        return placeholders[head]
    for block, leaf in placeholders.values():
        if _words(leaf.path[-1]) == head:
            return block, leaf
    return None


def _handler_table(table: _Table, path: str) -> StateList | None:
    if len(table.header) < 2:
        return None
    head = " ".join(name_words(table.header[0].text.replace("`", "")))
    if head not in _STATE_HEADERS:
        return None
    others = {w for cell in table.header[1:] for w in name_words(cell.text.replace("`", ""))}
    if not others & _ACTION_WORDS:
        return None
    states = _column_states(table, path)
    if states is None:
        return None
    label = f"the `{table.header[0].text}` table"
    return StateList("table", label, table.position, states)


def _arrow_lines(text: str) -> list[tuple[int, int]]:
    """The 0-based indexes of the lines that hold an arrow (`->`, `→`, `=>`, `⇒`), each
    with the offset its line starts at (after an arrow, the search goes on from the end of
    its line: a line of many arrows is one line)."""
    starts = set()
    for token in _ARROW_TOKENS:
        at = text.find(token)
        while at >= 0:
            starts.add(text.rfind("\n", 0, at) + 1)
            end = text.find("\n", at)
            at = -1 if end < 0 else text.find(token, end)
    out: list[tuple[int, int]] = []
    line, last = 0, 0
    for start in sorted(starts):
        line += text.count("\n", last, start)
        last = start
        out.append((line, start))
    return out


def _arrow_lists(
    source: Source, lines: _LazyLines, arrows: list[int], markdown: _Fences
) -> list[StateList]:
    """Runs of list items that each start with a state and an arrow (`- `success` → ...`),
    outside fences; an item's continuation lines may sit between them."""
    items: list[tuple[int, int, StateName]] = []  # (0-based line, indent, state)
    for i in arrows:
        m = _ARROW_ITEM.match(lines[i])
        if m is None:
            continue
        name, ticked = m.group(4), bool(m.group(3))
        if (ticked and is_state(name)) or (not ticked and _UPPER.match(name) and len(name) > 1):
            at = Position(source.path, i + 1, m.start(4) + 1)
            items.append((i, len(m.group(1)), StateName(name, at)))
    if len(items) < 2:
        return []  # no run: the fences need not be scanned
    items = [item for item in items if not markdown.in_fence(item[0] + 1)]
    out: list[StateList] = []
    run: list[tuple[int, int, StateName]] = []
    for item in [*items, (-1, -1, StateName("", Position("", 0, 0)))]:
        if run and item[1] == run[-1][1] and _continued(lines, run[-1][0], item[0], item[1]):
            run.append(item)
            continue
        if len(run) >= 2:
            first, indent, _ = run[0]
            at = Position(source.path, first + 1, indent + 1)
            out.append(StateList("list", "the list of states", at, tuple(s for _, _, s in run)))
        run = [item]
    return out


def _continued(lines: _LazyLines, after: int, before: int, indent: int) -> bool:
    """Whether every line between two items is a continuation of the first (indented
    deeper, not blank)."""
    return before > after and all(
        lines[i].strip() and _indent(lines[i]) > indent for i in range(after + 1, before)
    )


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _arrow_trees(
    source: Source, lines: _LazyLines, arrows: list[int], markdown: _Fences
) -> list[StateList]:
    """Arrow trees drawn in a fence: `|- COMPLETE -> Summarize`, `└─ BLOCKED → ask`."""
    by_fence: dict[int, list[StateName]] = {}
    fences: dict[int, Any] = {}
    items = [(i, m) for i in arrows if (m := _TREE_ITEM.match(lines[i])) and is_state(m.group(2))]
    if len(items) < 2:
        return []  # no tree: the fences need not be scanned
    for i, m in items:
        fence = markdown.scan.fence_at(i + 1) if markdown.fenced else None
        if fence is None or fence.open_line == i + 1 or fence.close_line == i + 1:
            continue
        if fence.info.split(":")[0].lower() in ("json", "jsonc", "json5", "yaml", "yml"):
            continue
        fences[fence.open_line] = fence
        at = Position(source.path, i + 1, m.start(2) + 1)
        by_fence.setdefault(fence.open_line, []).append(StateName(m.group(2), at))
    out = []
    for open_line, found in by_fence.items():
        if len(found) >= 2:
            at = Position(source.path, open_line, fences[open_line].column)
            out.append(StateList("tree", "the arrow tree", at, tuple(found)))
    return out


def _json_blocks(source: Source, lines: list[str], markdown: _Fences) -> list[RawBlock]:
    out: list[RawBlock] = []
    for fence in markdown.fences:
        info = fence.info.split()[0] if fence.info.split() else ""
        kind = info.split(":")[0].lower()
        if kind not in ("json", "jsonc", "json5"):
            continue
        opener = lines[fence.open_line - 1].lstrip()
        if opener.startswith(">"):
            continue  # a fence in a block quote: its lines carry `>` marks
        end = (fence.close_line or len(lines) + 1) - 1
        content = "\n".join(lines[fence.open_line : end])
        contract = info if info.lower() not in ("json", "jsonc", "json5") else ""
        out.append(RawBlock(source.path, content, fence.open_line, contract))
    return out


def _json_block(path: str, content: str, before: int, contract: str) -> Block | None:
    """A block's values with their file positions: the content is parsed after `before`
    newlines, so lines and columns are the file's; a fragment (`"key": {...}`) is read as
    the members of an object."""
    for text in ("\n" * before + content, "\n" * (before - 1) + "{\n" + content + "\n}"):
        try:
            root = parse_json(text, path)
        except JsonSyntaxError:
            continue
        if root.kind != "object":
            return None
        return Block(path, contract, frozenset(m.key for m in root.value), tuple(_leaves(root)))
    return _loose(path, content, before, contract)


# keys whose values are not states: the Claude Code hook events (a hooks configuration shown
# in a document holds tool patterns: `"PreToolUse": [{"matcher": "Edit|Write"}]`) and a
# hook's `matcher`, a pattern of tool names wherever it is shown (`"matcher": "Read|Write"`)
_NOT_STATES = frozenset({*HOOK_EVENTS, "matcher"})


def _leaves(root: JsonValue) -> list[Leaf]:
    out: list[Leaf] = []
    todo: list[tuple[JsonValue, tuple[str, ...]]] = [(root, ())]
    while todo:
        node, path = todo.pop()
        if node.kind == "object":
            todo.extend((m.value, (*path, m.key)) for m in node.value if m.key not in _NOT_STATES)
        elif node.kind == "array":
            todo.extend((item, path) for item in node.value)
        elif node.kind == "string" and path:
            at = node.position
            out.append(Leaf(path, node.value, Position(at.path, at.line, at.column + 1)))
    out.sort(key=lambda leaf: leaf.position)
    return out


def _loose(path: str, content: str, before: int, contract: str) -> Block | None:
    """`"key": "value"` pairs of a block that is not JSON (placeholders, comments, `...`)."""
    leaves = []
    starts = [0]
    at = content.find("\n")
    while at >= 0:
        starts.append(at + 1)
        at = content.find("\n", at + 1)
    for m in _LOOSE_PAIR.finditer(content):
        if m.group(1) in _NOT_STATES:
            continue
        line = bisect_right(starts, m.start(2)) - 1
        column = m.start(2) - starts[line] + 1
        leaves.append(Leaf((m.group(1),), m.group(2), Position(path, before + line + 1, column)))
    if not leaves:
        return None
    keys = frozenset(m.group(1) for m in _LOOSE_KEY.finditer(content))
    return Block(path, contract, keys, tuple(leaves), loose=True)


def _templates(source: Source, lines: list[str], markdown: _Fences) -> list[Block]:
    """`<NAME>_RESULT:` / `<NAME>_REQUEST:` templates: indented `key: value` lines."""
    out = []
    for i in _lines_holding(source.text, ("_RESULT", "_REQUEST")):
        head = _TEMPLATE_HEAD.match(lines[i])
        if head is None:
            continue
        base = len(head.group(1))
        stack: list[tuple[int, tuple[str, ...]]] = [(base, ())]
        leaves: list[Leaf] = []
        keys: set[str] = set()
        for j in range(i + 1, len(lines)):
            text = lines[j]
            if not text.strip():
                continue
            indent = _indent(text)
            if indent <= base or text.lstrip().startswith(("```", "~~~")):
                break
            body_at = indent
            if text[indent:].startswith("- "):
                body_at = indent + 2
            m = _TEMPLATE_KEY.match(text, body_at)
            if m is None:
                continue
            while len(stack) > 1 and stack[-1][0] >= body_at:
                stack.pop()
            key_path = (*stack[-1][1], m.group(1))
            if len(key_path) == 1:
                keys.add(m.group(1))
            value = _COMMENT.sub("", m.group(2) or "").strip()
            if value:
                column = m.start(2) + 1
                leaves.append(Leaf(key_path, value, Position(source.path, j + 1, column)))
            else:
                stack.append((body_at, key_path))
        if leaves:
            out.append(Block(source.path, head.group(2), frozenset(keys), tuple(leaves)))
    return out


def _lines_holding(text: str, needles: tuple[str, ...]) -> list[int]:
    """The 0-based indexes of the lines of `text` that hold one of `needles`, in order."""
    offsets = set()
    for needle in needles:
        at = text.find(needle)
        while at >= 0:
            offsets.add(text.rfind("\n", 0, at) + 1)
            at = text.find(needle, at + 1)
    out, line, last = [], 0, 0
    for start in sorted(offsets):
        line += text.count("\n", last, start)
        last = start
        out.append(line)
    return out


_UNSEARCHED = object()


# A template's name (`CONTEXT_RESULT`), in a schema's title or alone
_TEMPLATE_NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:RESULT|REQUEST)\b")


def schema_definitions(schema: SchemaFile) -> list[Definition]:
    """The string `enum`s of a JSON Schema, each at the path of its property."""
    root = schema.plain
    if not isinstance(root, dict):
        return []
    properties = root.get("properties")
    keys: frozenset[str] = frozenset(properties) if isinstance(properties, dict) else frozenset()
    stem = schema.path.rsplit("/", 1)[-1].split(".")[0]
    title = root.get("title")
    title = title if isinstance(title, str) else ""
    contracts = {stem, *_TEMPLATE_NAME.findall(title)}
    out = []
    enums: Any = _UNSEARCHED
    # (node, field, JSON pointer): positions are looked up only for the enums kept
    todo: list[tuple[Any, tuple[str, ...], str]] = [(root, (), "")]
    while todo:
        node, field, pointer = todo.pop()
        if not isinstance(node, dict):
            continue
        enum = node.get("enum")
        if field and isinstance(enum, list):
            strings = [v for v in enum if isinstance(v, str)]
            if len(strings) >= 2 and all(is_state(v) for v in strings):
                if enums is _UNSEARCHED:
                    enums = member_values(schema.source.text, root, "enum")
                written = _enum_written(schema, f"{pointer}/enum", node, enums)
                states = tuple(
                    StateName(
                        v.value, Position(v.position.path, v.position.line, v.position.column + 1)
                    )
                    for v in written.value
                    if v.kind == "string"
                )
                label = f"the `enum` of `{'.'.join(field)}`"
                definitions_list = StateList("schema-enum", label, written.position, states, True)
                out.append(Definition(field, keys, frozenset(contracts), definitions_list, 1))
        found = node.get("properties")
        if isinstance(found, dict):
            todo.extend(
                (value, (*field, key), f"{pointer}/properties/{escape_pointer(key)}")
                for key, value in found.items()
            )
        if "items" in node:
            todo.append((node["items"], field, f"{pointer}/items"))
        for combinator in ("allOf", "anyOf", "oneOf"):
            branch = node.get(combinator)
            if isinstance(branch, list):
                todo.extend((b, field, f"{pointer}/{combinator}/{i}") for i, b in enumerate(branch))
    return out


def _enum_written(
    schema: SchemaFile, pointer: str, holder: Any, enums: dict[int, int] | None
) -> JsonValue:
    """An `enum` array with the position of each entry, parsed where it is written
    (`enums`: where each `enum` of the schema starts, by the id of the subschema holding
    it, when a text search could tell)."""
    start = enums.get(id(holder)) if enums is not None else None
    if start is None:
        found = schema.locate(pointer)
        assert found is not None
        start = found[0]
    return parse_at(schema.source, start)


def _overlap(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two contracts are one when they share at least half of the smaller one's top-level
    keys, and two of them (or all, for a contract of one key)."""
    if not a or not b:
        return a == b
    shared = len(a & b)
    smaller = min(len(a), len(b))
    return shared >= min(2, smaller) and 2 * shared >= smaller


def _claims(contract: frozenset[str], keys: frozenset[str]) -> bool:
    """Whether a block whose object has `keys` is a message of a contract: `_overlap`, but an
    object of one key claims only a contract of one key (`{"type": "user.interrupt"}` shares
    its key with every contract that has a `type`, which tells nothing)."""
    return _overlap(contract, keys) and (len(keys) != 1 or len(contract) <= 1)


def _group(definitions: list[Definition]) -> list[_Group]:
    groups: list[_Group] = []
    # each field's groups in the order they were made: all, and those not a schema's enum
    by_field: dict[tuple[str, ...], tuple[list[_Group], list[_Group]]] = {}
    # (field, contract name) -> the groups of that field whose contracts include the name:
    # all, and those not a schema's enum (a schema's enum looks only at those)
    named: dict[tuple[tuple[str, ...], str], tuple[list[_Group], list[_Group]]] = {}
    order: dict[int, int] = {}  # id(group) -> when it was made
    ordered = sorted(definitions, key=lambda d: (d.rank, -len(d.states.states), d.states.position))
    for definition in ordered:
        every, not_enum = by_field.setdefault(definition.field, ([], []))
        # two schemas are two contracts, even with one field in common
        same = not_enum if definition.rank == 1 else every
        home = _home(definition, same, named, order)
        if home is None:
            group = _Group(definition)
            order[id(group)] = len(groups)
            groups.append(group)
            every.append(group)
            if group.source.kind != "schema-enum":
                not_enum.append(group)
            for contract in group.contracts:
                _name(named, (group.field, contract), group)
            continue
        for contract in definition.contracts - home.contracts:
            _name(named, (home.field, contract), home)
        home.contracts |= definition.contracts
        if definition.rank == 3:
            home.emitted.extend(definition.states.states)  # a template's alternatives
        else:
            home.copies.append(definition.states)
    return groups


_NONE: tuple[list[_Group], list[_Group]] = ([], [])


def _name(
    named: dict[tuple[tuple[str, ...], str], tuple[list[_Group], list[_Group]]],
    key: tuple[tuple[str, ...], str],
    group: _Group,
) -> None:
    every, not_enum = named.setdefault(key, ([], []))
    every.append(group)
    if group.source.kind != "schema-enum":
        not_enum.append(group)


def _home(
    definition: Definition,
    same: list[_Group],
    named: dict[tuple[tuple[str, ...], str], tuple[list[_Group], list[_Group]]],
    order: dict[int, int],
) -> _Group | None:
    """The group a definition joins, among those of its field that share its contract's
    keys: the first one its contract names (a template's alternatives join the schema whose
    title names the template, not the first schema with the same keys); else the only one;
    else the one whose source sits nearest its file (same folder, then the longest shared
    folder); else the first."""
    # `same` leaves out the schemas' enums for a schema's enum (two schemas, two contracts)
    schema = definition.rank == 1
    by_name = [
        g
        for contract in definition.contracts
        for g in named.get((definition.field, contract), _NONE)[1 if schema else 0]
        if _overlap(g.keys, definition.keys)
    ]
    if by_name:
        return min(by_name, key=lambda g: order[id(g)])
    fitting = [
        g
        for g in same
        if _overlap(g.keys, definition.keys) and not _named_apart(g.contracts, definition.contracts)
    ]
    if len(fitting) <= 1:
        return fitting[0] if fitting else None
    here = posixpath.dirname(definition.states.position.path).split("/")
    nearness = [_shared(here, g.source.position.path) for g in fitting]
    best = max(nearness)
    return fitting[nearness.index(best)]


def _named_apart(theirs: set[str], mine: frozenset[str]) -> bool:
    """Whether two contracts are named by different templates (`ALPHA_RESULT` and
    `BETA_RESULT`): two contracts, however alike their keys (a template whose own schema
    could not be read must not join the nearest other skill's)."""
    named = {c for c in mine if _TEMPLATE_NAME.fullmatch(c)}
    if not named or not named.isdisjoint(theirs):
        return False
    return any(_TEMPLATE_NAME.fullmatch(c) for c in theirs)


def _shared(folder: list[str], path: str) -> int:
    """How many leading folders of `folder` the file at `path` sits in too."""
    count = 0
    for mine, theirs in zip(folder, posixpath.dirname(path).split("/"), strict=False):
        if mine != theirs:
            break
        count += 1
    return count


def _emissions(groups: list[_Group], blocks: list[Block]) -> None:
    # groups with the same field, keys and configuration fit and score alike: each such
    # kind is weighed once per leaf (a thousand schemas with one `status` are one kind)
    by_key: dict[str, dict[tuple[tuple[str, ...], frozenset[str], bool], list[_Group]]] = {}
    for group in groups:
        kind = (group.field, group.keys, group.configured)
        by_key.setdefault(group.key, {}).setdefault(kind, []).append(group)
    for block in blocks:
        for leaf in block.leaves:
            candidates = by_key.get(leaf.path[-1])
            if not candidates or not is_state(leaf.value):
                continue
            keys = block.keys
            scored = [
                (len(group_keys & keys) + 1, alike)
                for (field, group_keys, configured), alike in candidates.items()
                if (block.loose or field == leaf.path)
                and ((configured and not group_keys) or _claims(group_keys, keys))
            ]
            best = _best_alike(scored)
            if best is not None:
                best.emitted.append(StateName(leaf.value, leaf.position))


def _keep_local(groups: list[_Group], skill_dirs: set[str]) -> None:
    """A template's alternatives do not judge the values of skills that keep values of their
    own: where two or more other skills each give the field only states the alternatives
    lack, and not the same ones (`"intent": "brainstorm"` in one, `"run"` in another, beside
    `"create | update | validate"`), the field names each skill's own mode, not one shared
    vocabulary, and those skills' values are left out. A single skill off the list, or several
    giving one same undefined state, still counts (that is drift)."""
    for group in groups:
        if group.configured or group.source.kind != "alternatives":
            continue
        home = _bundle(group.source.position.path, skill_dirs)
        defined = {s.name for s in group.source.states}
        by_bundle: dict[str, set[str]] = {}
        for state in group.emitted:
            bundle = _bundle(state.position.path, skill_dirs)
            if bundle != home:
                by_bundle.setdefault(bundle, set()).add(state.name)
        own = {b: names for b, names in by_bundle.items() if not names & defined}
        if len(own) >= 2 and len({frozenset(names) for names in own.values()}) >= 2:
            group.emitted = [
                s for s in group.emitted if _bundle(s.position.path, skill_dirs) not in own
            ]


def _bundle(path: str, skill_dirs: set[str]) -> str:
    """The skill folder a file belongs to, else its own folder."""
    skill = _skill_of(path, skill_dirs)
    return posixpath.dirname(path) if skill is None else skill


def _best_alike(scored: list[tuple[int, list[_Group]]]) -> _Group | None:
    """`_best` of groups given as lists of groups that score alike: a list of two or more
    at the top score is a tie."""
    top = max((score for score, _ in scored), default=0)
    if top <= 0:
        return None
    winners = [alike for score, alike in scored if score == top]
    return winners[0][0] if len(winners) == 1 and len(winners[0]) == 1 else None


def _best(scored: list[tuple[int, _Group]]) -> _Group | None:
    """The group that scores highest, if one does alone (a tie is left unattached)."""
    ranked = sorted((score for score, _ in scored), reverse=True)
    if not ranked or ranked[0] <= 0 or (len(ranked) > 1 and ranked[1] == ranked[0]):
        return None
    return next(group for score, group in scored if score == ranked[0])


def _belongs(states: Iterable[StateName], group: _Group, loose: bool = False) -> int:
    """How many of a list's states the vocabulary knows, when that is enough to call the
    list its own (two and half the list; with `loose`, one and half); else 0."""
    names = {s.name for s in states}
    shared = len(names & group.known())
    enough = shared >= (1 if loose else 2) and 2 * shared >= len(names)
    return shared if enough else 0


def _mentioned(text: str, group: _Group) -> bool:
    """Whether a text names the field (`` `status` ``, `"status"`, `` `x.status` ``) or
    the contract (`json:contract`, `CONTEXT_RESULT`)."""
    key = group.key
    if any(f"{q}{key}{q}" in text for q in "`\"'") or f".{key}`" in text:
        return True
    return any(c and c in text for c in group.contracts)


def _handlers(groups: list[_Group], handlers: list[Handler], sources: dict[str, Source]) -> None:
    named: dict[tuple[str, str, frozenset[str]], bool] = {}  # groups share fields and files
    for handler in handlers:
        text = sources[handler.file].text
        scored = []
        for group in groups:
            configured = any(glob_pattern(g).match(handler.file) for g in group.handler_files)
            key = (handler.file, group.key, frozenset(group.contracts))
            if key not in named:
                named[key] = _mentioned(text, group)
            if configured or named[key]:
                scored.append((_belongs(handler.states.states, group, loose=configured), group))
        best = _best(scored)
        if best is not None:
            best.handlers.append(handler.states)


def _code_lists(path: str, source: Source) -> list[CodeList]:
    """The state lists of a Python file (read with `ast`, imported here: a tree without
    Python never needs it) or of a TypeScript or JavaScript one."""
    if path.endswith(".py"):
        from drift_check.scanners.state_python import python_lists

        return python_lists(source)
    return typescript_lists(source)


def _code(groups: list[_Group], repo: Repo, files: list[str], skill_dirs: set[str]) -> None:
    """Copies and branches in Python and TypeScript files that name a vocabulary's field."""
    code = [
        path
        for path in files
        if path.endswith(_CODE_EXTENSIONS)
        and not path.endswith(".d.ts")
        and not _TEST_FILE.search(path)
        and not build_output(path)
    ]
    if not code:
        return
    # the longest first, then in order: the same pattern in every run
    names = sorted({n for g in groups for n in g.known()}, key=lambda n: (-len(n), n))
    quoted = re.compile("[\"'`](" + "|".join(re.escape(n) for n in names) + ")[\"'`]")
    for path in code:
        source = repo.read(path)
        if source is None or build_output(path, source.text):
            continue
        # worth parsing only where some vocabulary's field and two of its states are named
        named = set(quoted.findall(source.text))
        if len(named) < 2:
            continue
        keys = [g.key for g in groups if len(named & g.known()) >= 2]
        lowered = source.text.lower() if keys else ""  # only where two states are named
        if not any(all(w in lowered for w in name_words(key)) for key in keys):
            continue
        found = _code_lists(path, source)
        # a skill's own script speaks for that skill: the vocabularies of other skills are
        # other contracts, however alike their states (a catalogue's `TERMINAL_STATUSES` of
        # one API beside another API's `status`)
        skill = _skill_of(path, skill_dirs)
        if skill is not None:
            near = [
                g for g in groups if _skill_of(g.source.position.path, skill_dirs) in (None, skill)
            ]
        parents = _Parents(source.text)
        for listed in found:
            _attach_code(groups if skill is None else near, listed, parents)


def _skill_of(path: str, skill_dirs: set[str]) -> str | None:
    """The skill folder a file lies in (the nearest folder above it holding a SKILL.md)."""
    folder = posixpath.dirname(path)
    while folder:
        if folder in skill_dirs:
            return folder
        folder = posixpath.dirname(folder)
    return "" if "" in skill_dirs else None


# how far (in lines) from a mention of a nested field's parent its states are read
_PARENT_REACH = 4


class _Parents:
    """The lines of a code file that name a key (`gate_history`), found once per key."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: dict[str, list[int]] = {}

    def near(self, key: str, line: int) -> bool:
        found = self.lines.get(key)
        if found is None:
            found = self.lines[key] = []
            if key in self.text:
                number, counted = 1, 0  # lines counted up to `counted`, once over the text
                for m in re.finditer(r"(?<![\w-])" + re.escape(key) + r"(?![\w-])", self.text):
                    number += self.text.count("\n", counted, m.start())
                    counted = m.start()
                    found.append(number)
        i = bisect_right(found, line + _PARENT_REACH)
        return i > 0 and found[i - 1] >= line - _PARENT_REACH


def _attach_code(groups: list[_Group], listed: CodeList, parents: _Parents) -> None:
    """The code list joins the vocabulary of its field that knows enough of its states. A
    field of one word inside another (`gate_history[].status`) shares its key with every
    other object's `status`: there only the states read within a few lines of a mention of
    the parent key (`gate_history`) count, the rest being other objects' states. A key of
    more words (`plan_status`) names its object's field wherever it is read."""
    scored: list[tuple[int, _Group]] = []
    kept: dict[int, StateList] = {}
    for g in groups:
        if not names_field(listed.name, g.key):
            continue
        states = listed.states
        if len(g.field) > 1 and len(name_words(g.key)) == 1:
            parent = g.field[-2]
            near = tuple(s for s in states.states if parents.near(parent, s.position.line))
            if not near:
                continue
            if len(near) < len(states.states):
                states = states._replace(states=near, position=near[0].position)
        kept[id(g)] = states
        scored.append((_belongs(states.states, g), g))
    best = _best(scored)
    if best is None:
        return
    if listed.role == "definition":
        best.copies.append(kept[id(best)])
    else:
        best.handlers.append(kept[id(best)])


def _fits(path: tuple[str, ...], field: str) -> bool:
    """Whether a field's path is the one a setting names (`state`, or `pr.state`)."""
    want = tuple(field.split("."))
    return path[-len(want) :] == want


def _configure(
    entry: dict[str, Any],
    groups: list[_Group],
    repo: Repo,
    definitions: list[Definition],
    files: list[str],
) -> None:
    """A `vocabularies` entry: its source becomes the field's source (the vocabulary is
    made if the shapes did not find it), its copies must hold every state, and handler
    lists in its handler files belong to it without naming the field."""
    field = str(entry["field"])
    named = _named_list(entry.get("source"), field, repo, definitions)
    source, path = named if named is not None else (None, tuple(field.split(".")))
    fitting = [g for g in groups if _fits(g.field, field)]
    group = next(
        (g for g in fitting if source is not None and g.source.position == source.position),
        None,
    ) or next((g for g in fitting if g.field == path), None)
    if group is None and fitting:
        group = min(fitting, key=lambda g: (len(g.field), g.source.position))
    if source is None and group is None:
        return
    if group is None:
        assert source is not None
        group = _Group(Definition(path, frozenset(), frozenset(), source, 0))
        groups.append(group)
    elif source is not None and source.position != group.source.position:
        if group.source.kind != "alternatives":
            group.copies.append(group.source)
        group.copies = [c for c in group.copies if c.position != source.position]
        # a template's alternatives counted as emitted are the source now, not a producer
        own = {s.position for s in source.states}
        group.emitted = [s for s in group.emitted if s.position not in own]
        group.source = source
    group.configured = True
    for spec in entry.get("copies") or ():
        copied = _named_list(spec, field, repo, definitions)
        if copied is not None and copied[0].position != group.source.position:
            copy = copied[0]
            group.copies = [c for c in group.copies if c.position != copy.position]
            group.copies.append(copy._replace(complete=True))
    group.handler_files = tuple(entry.get("handlers") or ())


def _named_list(
    spec: Any, field: str, repo: Repo, definitions: list[Definition]
) -> tuple[StateList, tuple[str, ...]] | None:
    """The list a setting names, with the field path it defines: `path` (the list of the
    field there, the shortest path first) or `path::NAME` (the code constant or class)."""
    if not isinstance(spec, str) or not spec:
        return None
    path, _, name = spec.partition("::")
    if not repo.exists(path):
        return None
    if path.endswith(_CODE_EXTENSIONS):
        source = repo.read(path)
        if source is None:
            return None
        found = _code_lists(path, source)
        for listed in found:
            if listed.role != "definition":
                continue
            if (name and listed.name == name) or (not name and names_field(listed.name, field)):
                return listed.states, tuple(field.split("."))
        return None
    here = [d for d in definitions if d.states.position.path == path and _fits(d.field, field)]
    if not here and path.endswith(".md"):
        source = repo.read(path)
        if source is not None:
            here = [d for d in read_markdown(source).definitions if _fits(d.field, field)]
    if not here:
        return None
    best = min(here, key=lambda d: (d.rank, len(d.field), d.states.position))
    return best.states, best.field


__all__ = ["COMPLETE_WORDS", "find_vocabularies", "read_markdown", "schema_definitions"]

"""Structured blocks in Markdown, with the position of every key and value.

Three shapes, as agent repositories write them:

- fenced JSON (```` ```json ````, ```` ```json:contract ````, `structured-info-strings`),
  read with the project's positioned JSON parser;
- `<NAME>_RESULT:` / `<NAME>_REQUEST:` templates (`structured-template-names`): the name
  alone on its line, the fields indented below in a YAML-like form (`key: value`, nested keys
  by indentation, `- item` lists, `# comments`), inside a fence or not;
- dispatch templates: a plain fenced block whose fields at its left margin include one of
  `dispatch-keys` (`ACTION: collect`, `DATA:` with its fields indented below), among prose.

Values that stand for something else are kept as such: `<placeholder>`, `{{VAR}}` and a
string holding one, `...`, and `a | b` alternatives (each a literal). Also found here: field
tables (a `Field`/`Key`/`Property`/`Name`/`Parameter`/`Attribute` column and a `Type` or
`Required` column) and `NAME.field` reads of a template's fields in prose.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from drift_check.facts import (
    BlockMember,
    BlockValue,
    FieldRead,
    FieldRow,
    FieldTable,
    JsonValue,
    Position,
    Source,
    StructuredBlock,
)
from drift_check.records import NamedTuple
from drift_check.scanners.markdown import FenceSpan, MarkdownScan
from drift_check.scanners.patterns import lazy
from drift_check.scanners.registry import split_row

# a placeholder inside a string: `<job-name>`, `<a + 5+ hex chars>`, `{{JOB_NAME}}`
_PLACEHOLDER = lazy(r"<[^<>\s=][^<>\n]*>|\{\{[^{}\n]+\}\}")
ELLIPSIS = frozenset({"...", "…", "etc", "etc."})
# a whole string in brackets is a slot to fill too: `"[detected]"`, `"[based on user choice]"`
_BRACKETED = lazy(r"\[[^\[\]\n]*[A-Za-z][^\[\]\n]*\]")
# one literal of an `a | b` menu: no blanks, no quotes, no brackets
_TOKEN = lazy(r"[\w.:/@+-]+")
# words that describe a type rather than being a value (`"int | null"`)
_TYPE_WORDS = frozenset(
    {"string", "str", "number", "int", "integer", "float", "bool", "boolean", "object",
     "array", "list", "dict", "any"}
)  # fmt: skip
_NUMBER = lazy(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_KEY = lazy(r"""([A-Za-z_$][\w$.-]*|"[^"\n]+"|'[^'\n]+'):(?:[ \t]+|$)""")
_UPPER_KEY = lazy(r"([A-Z][A-Z0-9_]*):(?:[ \t]+|$)")
# a line that is only `NAME:`; found from its colon (a literal the engine jumps to)
_LINE_END_COLON = re.compile(r":[ \t]*\r?(?=\n|\Z)")
_NAME_LINE = re.compile(r"([ \t]*)([A-Z][A-Z0-9_]*)")
_READ = lazy(r"\b([A-Z][A-Z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
# Every match of `_READ` holds this right after its name: a search for it (fast, from a
# literal `.`) finds the candidates, and the word in front of it is where a match would start.
_READ_DOT = lazy(r"\.(?<=[A-Z0-9_]\.)[A-Za-z_]")
_FOLDER = lazy(r"[\w.-]+")
_WORD = lazy(r"\b[A-Z][A-Z0-9_]+\b")
# fences whose content may be a dispatch prompt
_PROSE_INFOS = frozenset({"", "text", "txt", "plain", "markdown", "md", "prompt", "yaml", "yml"})

NAME_HEADERS = frozenset({"field", "key", "property", "name", "parameter", "attribute"})
TYPE_HEADERS = frozenset({"type"})
REQUIRED_HEADERS = frozenset({"required", "required?", "req", "req.", "mandatory"})
_YES = frozenset({"yes", "y", "true", "required", "✓", "✔", "✅", "x", "always", "mandatory"})
_NO = frozenset({"no", "n", "false", "optional", "-", "\u2014", "\u2013", "never", "✗", "❌"})
_FIELD_PATH = lazy(r"[A-Za-z_$][\w$-]*(?:\[\])?(?:\.[A-Za-z_$][\w$-]*(?:\[\])?)*")


def classify_string(text: str, position: Position, template: bool) -> BlockValue:
    """A JSON string as a block reads it: a placeholder, a menu of alternatives, a blank
    (`""` in a template) or a literal."""
    stripped = text.strip()
    if stripped in ELLIPSIS:
        return BlockValue("placeholder", text, position)
    menu = _alternatives(text, position, 1)
    if menu is not None:
        return menu
    if _PLACEHOLDER.search(text) or _BRACKETED.fullmatch(stripped):
        return BlockValue("placeholder", text, position)
    return BlockValue("string", text, position, blank=template and not text)


def _alternatives(text: str, position: Position, shift: int) -> BlockValue | None:
    """`a | b | c` (or `<a | b>`) as alternatives, each at its column; None when the text is
    not such a menu. `shift`: columns from `position` to the text (1 after a quote)."""
    if "|" not in text:
        return None
    inner = text
    stripped = text.strip()
    if stripped.startswith("<") and stripped.endswith(">"):
        start = text.index("<") + 1
        inner, shift = text[start : text.rindex(">")], shift + start
    parts = inner.split("|")
    if len(parts) < 2:
        return None
    out, at = [], 0
    for part in parts:
        word = part.strip()
        if not _TOKEN.fullmatch(word) or word.lower() in _TYPE_WORDS:
            return None
        column = position.column + shift + at + part.index(word)
        out.append(_literal(word, Position(position.path, position.line, column)))
        at += len(part) + 1
    return BlockValue("alternatives", tuple(out), position)


def _literal(word: str, position: Position) -> BlockValue:
    """One alternative of a menu, typed as YAML would read it."""
    if word == "null":
        return BlockValue("null", None, position)
    if word in ("true", "false"):
        return BlockValue("boolean", word == "true", position)
    if _NUMBER.fullmatch(word):
        return BlockValue("number", _number(word), position, loose=True)
    return BlockValue("string", word, position)


def _number(text: str) -> int | float:
    return (
        int(text) if _NUMBER.fullmatch(text) and not any(c in text for c in ".eE") else float(text)
    )


def block_value(node: JsonValue, template: bool, line_shift: int = 0) -> BlockValue:
    """A parsed JSON value as a block value (placeholders and menus recognised), its lines
    moved down by `line_shift`; built without recursion."""

    def moved(position: Position) -> Position:
        return (
            Position(position.path, position.line + line_shift, position.column)
            if line_shift
            else position
        )

    def leaf(item: JsonValue) -> BlockValue | None:
        if item.kind == "string":
            return classify_string(item.value, moved(item.position), template)
        if item.kind in ("object", "array"):
            return None
        return BlockValue(item.kind, item.value, moved(item.position))

    done = leaf(node)
    if done is not None:
        return done
    # each frame: the node, its converted children so far
    results: dict[int, BlockValue] = {}
    todo: list[tuple[JsonValue, bool]] = [(node, False)]
    while todo:
        current, expanded = todo.pop()
        children = (
            [m.value for m in current.value] if current.kind == "object" else list(current.value)
        )
        if not expanded:
            todo.append((current, True))
            todo.extend((c, False) for c in children if c.kind in ("object", "array"))
            continue
        converted = [results.pop(id(c)) if id(c) in results else leaf(c) for c in children]
        position = moved(current.position)
        if current.kind == "object":
            # in a Markdown block, a `"// note": "..."` member is a comment, not a key
            members = tuple(
                BlockMember(m.key, moved(m.key_position), v)
                for m, v in zip(current.value, converted, strict=True)
                if not (template and m.key.startswith("//"))
            )
            results[id(current)] = BlockValue("object", members, position)
        else:
            results[id(current)] = BlockValue(
                "array", tuple(converted), position, blank=template and not converted
            )
    return results[id(node)]


def plain_block_value(value: Any, position: Position, template: bool = False) -> BlockValue:
    """`block_value` of a value as `json.loads` gives it, every node at `position`: what
    validation needs to tell whether a value satisfies a schema, without the positions;
    built without recursion."""

    def leaf(item: Any) -> BlockValue | None:
        if isinstance(item, str):
            return classify_string(item, position, template)
        if isinstance(item, (dict, list)):
            return None
        if item is None:
            return BlockValue("null", None, position)
        return BlockValue("boolean" if isinstance(item, bool) else "number", item, position)

    done = leaf(value)
    if done is not None:
        return done
    results: dict[int, BlockValue] = {}
    todo: list[tuple[Any, bool]] = [(value, False)]
    while todo:
        current, expanded = todo.pop()
        children = list(current.values()) if isinstance(current, dict) else current
        if not expanded:
            todo.append((current, True))
            todo.extend((c, False) for c in children if isinstance(c, (dict, list)))
            continue
        converted = [results.pop(id(c)) if id(c) in results else leaf(c) for c in children]
        if isinstance(current, dict):
            # in a Markdown block, a `"// note": "..."` member is a comment, not a key
            members = tuple(
                BlockMember(k, position, v)
                for k, v in zip(current, converted, strict=True)
                if not (template and k.startswith("//"))
            )
            results[id(current)] = BlockValue("object", members, position)
        else:
            results[id(current)] = BlockValue(
                "array", tuple(converted), position, blank=template and not converted
            )
    return results[id(value)]


class _Token(NamedTuple):
    kind: str  # "key", "item" or "barrier"
    indent: int
    line: int
    column: int  # of the key or the `-`
    key: str
    value: str  # the text after `key:` or `- `, trailing comment removed; "" for none
    value_column: int


def _without_comment(text: str) -> str:
    """The text before a ` # comment` (a `#` after a blank, outside quotes)."""
    if "#" not in text:
        return text.rstrip()  # most values: no character to look at one by one
    quote = ""
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'" and (i == 0 or text[i - 1] in " \t:[,"):
            quote = c
        elif c == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


def _tokens(lines: list[tuple[int, str]], base: int | None = None) -> list[_Token]:
    """The YAML-like lines as tokens. With `base` (a dispatch template), only an upper-case
    `KEY:` counts at that indentation; other lines there are prose (`barrier`)."""
    out: list[_Token] = []
    for number, line in lines:
        content = line.lstrip(" \t")
        if not content.strip() or content.startswith("#"):
            continue
        indent = len(line) - len(content)
        content = content.rstrip("\r\n")
        if base is not None and indent <= base:
            m = _UPPER_KEY.match(content)
            if m is None:
                out.append(_Token("barrier", indent, number, indent + 1, "", "", 0))
                continue
            value = _without_comment(content[m.end() :])
            column = indent + 1
            out.append(_Token("key", indent, number, column, m.group(1), value, column + m.end()))
            continue
        if content == "-" or content.startswith("- "):
            rest = content[1:].lstrip(" ")
            at = indent + (len(content) - len(rest))  # 0-based column of what follows
            m = _KEY.match(rest)
            if m is not None and rest.strip():
                out.append(_Token("item", indent, number, indent + 1, "", "", 0))
                out.append(_key_token(rest, m, at, number))
            else:
                value = _without_comment(rest)
                out.append(_Token("item", indent, number, indent + 1, "", value, at + 1))
            continue
        m = _KEY.match(content)
        if m is None:
            out.append(_Token("barrier", indent, number, indent + 1, "", "", 0))
            continue
        out.append(_key_token(content, m, indent, number))
    return out


def _key_token(content: str, m: re.Match[str], indent: int, number: int) -> _Token:
    key = m.group(1)
    if key[0] in "\"'":
        key = key[1:-1]
    value = _without_comment(content[m.end() :])
    return _Token("key", indent, number, indent + 1, key, value, indent + m.end() + 1)


def _scalar(text: str, position: Position) -> BlockValue:
    """A template value as written after `key:` or `- `."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return classify_string(text[1:-1], position, True)
    if text == "[]":
        return BlockValue("array", (), position, blank=True)
    if text == "{}":
        return BlockValue("object", (), position)
    if text.startswith("[") and text.endswith("]"):
        items, at = [], 1
        for part in text[1:-1].split(","):
            word = part.strip()
            if word:
                column = position.column + at + part.index(word)
                items.append(_scalar(word, Position(position.path, position.line, column)))
            at += len(part) + 1
        return BlockValue("array", tuple(items), position)
    if text.strip() in ELLIPSIS:
        return BlockValue("placeholder", text, position)
    menu = _alternatives(text, position, 0)
    if menu is not None:
        return menu
    if _PLACEHOLDER.search(text):
        return BlockValue("placeholder", text, position)
    if text in ("null", "~"):
        return BlockValue("null", None, position, loose=True)
    if text in ("true", "false"):
        return BlockValue("boolean", text == "true", position, loose=True)
    if _NUMBER.fullmatch(text):
        return BlockValue("number", _number(text), position, loose=True)
    return BlockValue("string", text, position, loose=True)


class _Reader:
    """Builds the value tree of a token list by indentation."""

    def __init__(self, tokens: list[_Token], path: str) -> None:
        self.tokens = tokens
        self.path = path

    def position(self, line: int, column: int) -> Position:
        return Position(self.path, line, column)

    def node(self, i: int, indent: int, at: Position) -> tuple[BlockValue, int]:
        if self.tokens[i].kind == "item":
            return self.sequence(i, indent, at)
        return self.mapping(i, indent, at)

    def mapping(self, i: int, indent: int, at: Position) -> tuple[BlockValue, int]:
        tokens, n = self.tokens, len(self.tokens)
        members: list[BlockMember] = []
        while i < n and tokens[i].indent >= indent:
            token = tokens[i]
            if token.indent > indent or token.kind == "barrier":
                i += 1
                continue
            if token.kind != "key":
                break
            i += 1
            key_at = self.position(token.line, token.column)
            if token.value:
                value = _scalar(token.value, self.position(token.line, token.value_column))
            elif (
                i < n
                and tokens[i].kind != "barrier"
                and (
                    tokens[i].indent > indent
                    or (tokens[i].indent == indent and tokens[i].kind == "item")
                )
            ):
                value, i = self.node(i, tokens[i].indent, key_at)
            else:
                value = BlockValue("placeholder", "", key_at)
            members.append(BlockMember(token.key, key_at, value))
        return BlockValue("object", tuple(members), at), i

    def sequence(self, i: int, indent: int, at: Position) -> tuple[BlockValue, int]:
        tokens, n = self.tokens, len(self.tokens)
        items: list[BlockValue] = []
        while i < n and tokens[i].indent == indent and tokens[i].kind == "item":
            token = tokens[i]
            i += 1
            item_at = self.position(token.line, token.column)
            if token.value:
                items.append(_scalar(token.value, self.position(token.line, token.value_column)))
            elif i < n and tokens[i].indent > indent and tokens[i].kind != "barrier":
                value, i = self.node(i, tokens[i].indent, item_at)
                items.append(value)
            else:
                items.append(BlockValue("placeholder", "", item_at))
        return BlockValue("array", tuple(items), at), i

    def top(self, at: Position) -> BlockValue:
        """The fields of the whole token list, as one object."""
        if not self.tokens:
            return BlockValue("object", (), at)
        indent = min(t.indent for t in self.tokens)
        members: list[BlockMember] = []
        i = 0
        while i < len(self.tokens):
            token = self.tokens[i]
            if token.indent != indent or token.kind != "key":
                i += 1
                continue
            value, i = self.mapping(i, indent, at)
            members.extend(value.value)
        return BlockValue("object", tuple(members), at)


class Section(NamedTuple):
    line: int  # of its heading (0: before any)
    title: str


def _sections(markdown: MarkdownScan) -> list[Section]:
    return [Section(0, "")] + [Section(h.line, h.text) for h in markdown.headings if not h.in_fence]


def _section_at(sections: list[Section], line: int) -> Section:
    found = sections[0]
    for section in sections:
        if section.line >= line:
            break
        found = section
    return found


def _fence_body(lines: list[str], fence: FenceSpan) -> tuple[int, int]:
    """The 0-based line range of a fence's content."""
    end = fence.close_line - 1 if fence.close_line is not None else len(lines)
    return fence.open_line, end


class Scanned(NamedTuple):
    blocks: list[StructuredBlock]
    tables: list[FieldTable]
    reads: list[FieldRead]


# What `scan_structured` can find in a text, from cheap looks at it: nothing, only
# `NAME.field` reads (which need no Markdown scan), or anything.
NOTHING, READS, ALL = 0, 1, 2


def worth_scanning(text: str, settings: dict[str, Any], names: re.Pattern[str], full: bool) -> int:
    """`NOTHING`, `READS` or `ALL`: what a text may hold that `scan_structured` finds (most
    files hold nothing: a few searches spare them the line scan). Each look is a necessary
    condition of what it stands for, never a guess."""
    # without a schema in the tree, only contract blocks can be wrong (DC930)
    infos = settings["structured-info-strings"] if full else settings["contract-info-strings"]
    if _may_hold_info_fence(text, infos):
        return ALL
    if any(names.fullmatch(name) for _, _, name in _headers(text)):
        return ALL
    if not full:
        return NOTHING
    if any(f"{key}:" in text for key in settings["dispatch-keys"]):
        return ALL  # a dispatch prompt may sit in any fence
    if _may_hold_field_table(text):
        return ALL
    return READS if _READ_DOT.search(text) else NOTHING


def _may_hold_info_fence(text: str, infos: list[str]) -> bool:
    """Whether some fence of `text` may have one of `infos` as its first word, compared as
    `scan_structured` compares it (lowercased, after blanks)."""
    return any(run in text and pattern.search(text) for run, pattern in _info_fences(tuple(infos)))


@lru_cache(maxsize=8)
def _info_fences(infos: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """For each fence character, a pattern of its opening run followed by one of `infos`
    (without case) as a whole word: found anywhere, a quoted or indented run too (a
    superset of the fences), searched from the run's literal characters."""
    words = "|".join(re.escape(i.lower()) for i in sorted(set(infos), key=len, reverse=True))
    return tuple(
        (run, re.compile(rf"{re.escape(run)}+[ \t]*(?i:{words})(?!\S)")) for run in ("```", "~~~")
    )


def _may_hold_field_table(text: str) -> bool:
    """Whether `text` has a table header `_field_tables` would read: a `|` line above a
    delimiter row that names a field column and a type or required column."""
    if not _DELIMITER_START.search(text):
        return False
    for _, start in _header_starts(text):
        line = text[start : text.find("\n", start) % (len(text) + 1)]
        if line.lstrip().startswith("|") and _may_name_fields(line):
            return True
    return False


def _may_name_fields(header: str) -> bool:
    """Whether a table's header line may name a field column and a type or required one
    (each header cell, lowercased, is a part of the line's lowercase)."""
    lower = header.lower()
    return any(h in lower for h in NAME_HEADERS) and any(
        h in lower for h in ("type", "req", "mandatory")
    )


# whether a JSON block may claim a schema, from its file, info string and value: a block
# that cannot keeps its value unplaced (StructuredBlock.placed)
MayPair = Callable[[str, str, Any], bool]


def scan_structured(
    source: Source,
    markdown: MarkdownScan,
    settings: dict[str, Any],
    full: bool = True,
    may_pair: MayPair | None = None,
) -> Scanned:
    """The structured blocks, field tables and `NAME.field` reads of one Markdown file;
    without `full` (no schema in the tree), only JSON blocks and templates. With `may_pair`,
    the JSON blocks it rules out are read without their nodes' places."""
    path, text = source.path, source.text
    lines = text.split("\n")
    sections = _sections(markdown)
    infos = {i.lower() for i in settings["structured-info-strings"]}
    contracts = {i.lower() for i in settings["contract-info-strings"]}
    names = re.compile(settings["structured-template-names"])
    dispatch_keys = frozenset(settings["dispatch-keys"])
    # a dispatch prompt writes one of its keys as `KEY:`: a file without any has none
    may_dispatch = any(f"{key}:" in text for key in dispatch_keys)
    blocks: list[StructuredBlock] = []
    headers = [h for h in _headers(text) if names.fullmatch(h[2])]
    header_lines: set[int] = set()
    for offset, indent, name in headers:
        start = source.line(offset) - 1  # 0-based line of the name
        fence = markdown.fence_at(start + 1)
        if fence is not None and (fence.info.split() or [""])[0].lower() in infos:
            continue
        end = _fence_body(lines, fence)[1] if fence is not None else len(lines)
        outside = None if fence is not None else markdown
        section = _section_at(sections, start + 1).line
        blocks.append(_template(path, lines, start, end, indent, name, section, outside))
        header_lines.add(start + 1)
    for fence in markdown.fences:
        info = fence.info.split()[0].lower() if fence.info.split() else ""
        first, end = _fence_body(lines, fence)
        section = _section_at(sections, fence.open_line).line
        at = Position(path, fence.open_line, fence.column)
        if info in infos and (full or info in contracts):
            blocks.append(_json_block(path, lines, first, end, at, info, section, may_pair))
        elif (
            full
            and may_dispatch
            and info in _PROSE_INFOS
            and not header_lines.intersection(range(first, end + 1))
        ):
            dispatch = _dispatch(path, lines, first, end, dispatch_keys, at, section)
            if dispatch is not None:
                blocks.append(dispatch)
    blocks.sort(key=lambda b: (b.position.line, b.position.column))
    if not full:
        return Scanned(blocks, [], [])
    tables = _field_tables(path, text, lines, markdown, sections, names)
    return Scanned(blocks, tables, field_reads(source, names))


def _json_block(
    path: str,
    lines: list[str],
    first: int,
    end: int,
    at: Position,
    info: str,
    section: int,
    may_pair: MayPair | None,
) -> StructuredBlock:
    content = "\n".join(lines[first:end])
    if any(line.lstrip().startswith(">") for line in lines[first:end] if line.strip()):
        content = ""  # a block quote's `>` prefixes: not JSON as written
    skills = _skills_named("\n".join(lines[first:end]))
    from drift_check.scanners.json_parser import (  # most trees hold no JSON block
        JsonSyntaxError,
        has_repeated_key,
        parse_json,
        parse_plain,
    )

    try:
        if may_pair is not None:
            plain = parse_plain(Source(path, content))
            pairs = may_pair(path, info, plain)
            if not pairs or not has_repeated_key(content):
                # a block that may pair keeps its text: most satisfy their schema, and
                # only a violation's place is ever read
                value = plain_block_value(plain, at, template=True)
                return StructuredBlock(
                    path, at, "json", info, "", value, section=section, skills_named=skills,
                    placed=False, text=content if pairs else "",
                )  # fmt: skip
        node = parse_json(content, path)
    except JsonSyntaxError as error:
        where = error.position._replace(line=error.position.line + first)
        return StructuredBlock(path, at, "json", info, "", None, error.message, where, section)
    value = block_value(node, template=True, line_shift=first)
    return StructuredBlock(path, at, "json", info, "", value, section=section, skills_named=skills)


def _template(
    path: str,
    lines: list[str],
    start: int,
    end: int,
    indent: int,
    name: str,
    section: int,
    outside: MarkdownScan | None,
) -> StructuredBlock:
    """The template named on 0-based line `start`: the lines below it indented deeper,
    up to `end` (its fence's end); `outside` a fence, also up to the next fence."""
    body: list[tuple[int, str]] = []
    i = start + 1
    while i < end:
        line = lines[i]
        if outside is not None and outside.in_fence(i + 1):
            break
        if line.strip() and len(line) - len(line.lstrip(" \t")) <= indent:
            break
        body.append((i + 1, line))
        i += 1
    at = Position(path, start + 1, indent + 1)
    value = _Reader(_tokens(body), path).top(at)
    return StructuredBlock(path, at, "template", "", name, value, section=section)


def _headers(text: str) -> list[tuple[int, int, str]]:
    """(offset of the line, indentation, name) of each line that is only `NAME:`."""
    out = []
    for m in _LINE_END_COLON.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        line = _NAME_LINE.fullmatch(text, start, m.start())
        if line is not None:
            out.append((start, len(line.group(1)), line.group(2)))
    return out


def _dispatch(
    path: str,
    lines: list[str],
    first: int,
    end: int,
    keys: frozenset[str],
    at: Position,
    section: int,
) -> StructuredBlock | None:
    """A fenced prompt whose fields at its left margin include a dispatch key."""
    body = [(i + 1, lines[i]) for i in range(first, end)]
    margin = min((len(t) - len(t.lstrip(" \t")) for _, t in body if t.strip()), default=0)
    if not any(
        t[margin:].startswith(key + ":") for _, t in body for key in keys if len(t) > margin
    ):
        return None
    tokens = _tokens(body, base=margin)
    value = _Reader(tokens, path).top(at)
    if not any(m.key in keys for m in value.value):
        return None
    skills = _skills_named("\n".join(lines[first:end]))
    return StructuredBlock(
        path, at, "dispatch", "", "", value, section=section, skills_named=skills
    )


def _skills_named(text: str) -> tuple[str, ...]:
    """Skills a block names by their `SKILL.md` path (`skills/context-collector/SKILL.md`)."""
    return tuple(sorted(set(_before_each(text, "/SKILL.md"))))


def _before_each(text: str, suffix: str) -> list[str]:
    """The file or folder name (`[\\w.-]+`, at most 255 characters) written right before
    each `suffix`; found with `find`, each read backwards a bounded way."""
    out = []
    i = text.find(suffix)
    while i >= 0:
        m = _FOLDER.match(text[max(i - 255, 0) : i][::-1])
        if m is not None:
            out.append(m.group()[::-1])
        i = text.find(suffix, i + len(suffix))
    return out


def _field_tables(
    path: str,
    text: str,
    lines: list[str],
    markdown: MarkdownScan,
    sections: list[Section],
    names: re.Pattern[str],
) -> list[FieldTable]:
    out = []
    done = 0  # lines before this one are read: a table's rows, or a header that was not one
    for i in _header_lines(text):
        if i < done:
            continue
        line = lines[i]
        if not line.lstrip().startswith("|") or not _is_delimiter(lines[i + 1]):
            continue
        if markdown.in_fence(i + 1):
            continue
        if not _may_name_fields(line):
            done = i + 2
            continue
        header = [c.text.strip().strip("*`_ ").lower() for c in split_row(line)]
        name_col = next((k for k, h in enumerate(header) if h in NAME_HEADERS), None)
        required_col = next((k for k, h in enumerate(header) if h in REQUIRED_HEADERS), None)
        has_type = any(h in TYPE_HEADERS for h in header)
        if name_col is None or not (has_type or required_col is not None):
            done = i + 2
            continue
        rows = []
        j = i + 2
        while j < len(lines) and lines[j].lstrip().startswith("|"):
            cells = split_row(lines[j])
            if name_col < len(cells):
                row = _field_row(path, j + 1, cells, name_col, required_col)
                if row is not None:
                    rows.append(row)
            j += 1
        section = _section_at(sections, i + 1)
        before = "\n".join(lines[max(section.line - 1, 0) : i])
        mentions = sorted(
            {w for w in _WORD.findall(before) if names.fullmatch(w)}
            | {f"{n}.schema.json" for n in _before_each(before, ".schema.json")}
        )
        out.append(
            FieldTable(
                path,
                Position(path, i + 1, len(line) - len(line.lstrip()) + 1),
                section.line,
                tuple(rows),
                tuple(mentions),
            )
        )
        done = j
    return out


# Every delimiter row (`_is_delimiter`) holds this: its first `-` follows a `|` with only
# spaces, tabs and colons between. A search for it (fast, from a literal) finds the rows.
_DELIMITER_START = lazy(r"\|[ \t:]*-")


def _header_lines(text: str) -> list[int]:
    """The 0-based numbers of the lines of `text` (split at `\\n`) right above a delimiter
    row, in order: found by one search, not by a look at every line."""
    return [line for line, _ in _header_starts(text)]


def _header_starts(text: str) -> list[tuple[int, int]]:
    """`_header_lines`, each with the offset where that line starts."""
    out = []
    line, done, end = 0, 0, -1
    for m in _DELIMITER_START.finditer(text):
        if m.start() < end:
            continue  # a line already looked at
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.start()) % (len(text) + 1)
        line += text.count("\n", done, start)
        done = start
        if line and _is_delimiter(text[start:end]):
            out.append((line - 1, text.rfind("\n", 0, start - 1) + 1))
    return out


def _is_delimiter(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("|") and set(stripped) <= set("|:- \t") and "-" in stripped


def _field_row(
    path: str, line: int, cells: list[Any], name_col: int, required_col: int | None
) -> FieldRow | None:
    cell = cells[name_col]
    raw = cell.text
    tick = raw.find("`")
    if tick >= 0:
        close = raw.find("`", tick + 1)
        if close < 0:
            return None
        name, offset = raw[tick + 1 : close].strip(), tick + 1
    else:
        name = raw.strip().rstrip("*").strip()
        offset = raw.find(name) if name else 0
    if not _FIELD_PATH.fullmatch(name):
        return None
    required = None
    if required_col is not None and required_col < len(cells):
        answer = cells[required_col].text.strip().strip("*`_ ").lower()
        required = True if answer in _YES else False if answer in _NO else None
    return FieldRow(name, Position(path, line, cell.column + offset), required)


def field_reads(source: Source, names: re.Pattern[str]) -> list[FieldRead]:
    """`NAME.field.sub` in the text, for template names."""
    text = source.text
    out = []
    done = 0  # where the last match ended: the next starts after it, as `finditer`'s would
    for dot in _READ_DOT.finditer(text):
        at = dot.start()
        if at < done:
            continue
        start = at
        while start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        m = _READ.match(text, start) if start < at else None
        if m is None:
            continue
        done = m.end()
        if not names.fullmatch(m.group(1)):
            continue
        fields = tuple(m.group(2)[1:].split("."))
        if fields[-1] in ("md", "json", "yaml", "yml", "txt"):
            continue  # a file name, not a field
        out.append(FieldRead(m.group(1), fields, source.position(m.start(1)), "markdown"))
    return out

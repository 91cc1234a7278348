"""YAML frontmatter between leading `---` lines.

Most frontmatter is a handful of `key: text` lines (plain, or quoted without escapes),
comments and simple `- item` lists.
Importing ruamel.yaml costs more than checking a whole repository, so such frontmatter is
read by a line scan that gives exactly what the strict YAML parser gives (proved by
`tests/scanners/test_frontmatter_property.py`); anything else (escapes, flow collections, anchors,
tags, folded scalars, floats, times, nesting, duplicate keys) goes to ruamel.yaml. Booleans,
plain decimal integers, dates and empty values are read here too: `user-invocable: false`,
`maxTurns: 20` and `created: 2025-12-16` are common in real skills and agents.
"""

import re
from typing import TYPE_CHECKING, Any

from drift_check.facts import InputProblem, Named, Position, Source
from drift_check.records import NamedTuple
from drift_check.scanners.patterns import lazy
from drift_check.yaml_loader import MAX_ALIASES, MAX_DEPTH

if TYPE_CHECKING:
    from datetime import date

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# A top-level key: plain (not a list item or comment), or quoted.
# The plain key ends at its last non-blank before the colon, matched possessively, so a long
# run of blanks is scanned once (a lazy `[^:\n]*?` would rescan it from each character).
_KEY_LINE = re.compile(
    r"""^(?:"([^"\n]*)"|'([^'\n]*)'|((?:[^\s#'"?:\-]|-[^\s:\n])(?:[ \t]*+[^:\n \t]++)*+))"""
    r"""[ \t]*+:(?=[ \t]|$)""",
    re.M,
)
# A plain scalar that YAML's core schema keeps as a string: no indicator first (a `-`
# only before a letter, `_` or `-`: `--type security`; a `.` only in `./` or `../`; any
# character beyond ASCII but a byte-order mark: `🪲 Debugger`), no `: ` or ` #` inside,
# nothing a number, boolean or null could start with.
# (the characters beyond ASCII a parser refuses are refused by `_unsafe` first; a class
# of ranges up to U+10FFFF would cost a millisecond to compile)
_PLAIN = re.compile(r"(?:[A-Za-z_/(<]|-[A-Za-z_-]|\.\.?/|[^\x00-\xa0\ufeff])[^\t]*")
_NOT_PLAIN = re.compile(r": |:$| #")
_ESCAPE = re.compile(r"\\([\"\\])")
# An item of a one-line flow sequence read here: words of name characters and `./|<>()`
# with single spaces between, after a letter, `_`, `(`, `<` or a `-` before a letter, `_`
# or `-` (`[optional description]`, `[--repair]`, `[name | description]` in `argument-hint`)
_FLOW_WORD = lazy(r"(?:[A-Za-z_(<]|-[A-Za-z_-])[A-Za-z0-9_./|<>()-]*(?: [A-Za-z0-9_./|<>()-]+)*")
# Characters a strict parser rejects or reads as line breaks: leave those to it.
_UNSAFE = "[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
_QUOTED = re.compile(r'"((?:[^"\\\t]|\\["\\])*+)"|\'((?:[^\'\t]|\'\')*+)\'')
_NON_STRING = re.compile(
    r"(?:null|Null|NULL|true|True|TRUE|false|False|FALSE|\.inf|\.Inf|\.INF|\.nan|\.NaN|\.NAN|<<)\Z"
)
# What the strict parser reads as an int or a date, in the one spelling of each read here.
_INT = lazy(r"(?:0|[1-9][0-9]{0,17})\Z")
_DATE = lazy(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
# three or more dotted numbers (`1.0.0`): text to the parser, as no number has two dots
_VERSION = lazy(r"[0-9]+(?:\.[0-9]+){2,}\Z")


def _unsafe(text: str) -> bool:
    """Whether `text` holds a character of `_UNSAFE` (every one of them is unprintable,
    and most text is printable: the pattern, costly to compile, is compiled on first use)."""
    global _UNSAFE_PATTERN
    if text.isprintable():
        return False
    if _UNSAFE_PATTERN is None:
        _UNSAFE_PATTERN = re.compile(_UNSAFE)
    return _UNSAFE_PATTERN.search(text) is not None


_UNSAFE_PATTERN: re.Pattern[str] | None = None


class Frontmatter(NamedTuple):
    data: dict[str, Any] | None  # None when absent or invalid
    key_lines: dict[str, int]  # 1-based line of each top-level key
    problem: InputProblem | None


# YAML 1.2 core schema booleans, as the strict parser reads them (`yes`, `on` are text)
_BOOLEANS = {
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
}


def _scalar(value: str) -> "str | bool | int | date | None":
    """The string, boolean, integer or date a plain or simply quoted scalar stands for; None
    if it needs a parser."""
    if value in _BOOLEANS:
        return _BOOLEANS[value]
    if value[:1].isdigit():
        return _number_or_date(value)
    if _unsafe(value):
        return None
    quoted = _QUOTED.fullmatch(value)
    if quoted:
        if quoted.group(1) is None:
            return quoted.group(2).replace("''", "'")
        return _ESCAPE.sub(lambda m: m.group(1), quoted.group(1))  # only \" and \\ here
    if _PLAIN.fullmatch(value) and not _NOT_PLAIN.search(value) and not _NON_STRING.match(value):
        return value
    return None


def _number_or_date(value: str) -> "int | date | str | None":
    """A plain value that starts with a digit: an int, a date, or text such as `7/10` (no
    number, date or time holds a `/`)."""
    if _INT.match(value):
        return int(value)
    if _VERSION.match(value):
        return value
    if "/" in value:
        plain = "\t" not in value and not _NOT_PLAIN.search(value) and not _unsafe(value)
        return value if plain else None
    m = _DATE.match(value)
    if m is None:
        return None
    from datetime import date  # on first use: a few milliseconds

    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None  # no such day: the parser reports it


def simple_yaml(body: str) -> dict[str, Any] | None:
    """The mapping a strict YAML parser reads from `body`, if `body` is simple enough to be
    read line by line; None means "not simple, ask ruamel.yaml". Simple: `key: scalar`,
    `key:` with `  - item` lines, `key: [a, b]` of plain words, `key: |` (or `|-`) literal
    blocks and `key: >` (or `>-`) folded blocks of plain lines."""
    return _line_scan(body)[0]


def _line_scan(body: str) -> tuple[dict[str, Any] | None, tuple[int, int, str] | None]:
    """`simple_yaml`'s answer and, when it gives up at a `key: value` line that the strict
    parser stops at, that line, the column (0-based) and the parser's words: a plain value
    holding a `: ` (the commonest invalid frontmatter: an unquoted description), or a list
    of plain words followed by more (`argument-hint: [name] [--all]`)."""
    data: dict[str, Any] = {}
    list_key: str | None = None
    block_lists: list[str] = []  # keys written `key:`, whose items follow as `  - item`
    mapping: dict[str, Any] | None = None  # a `key:`'s entries, as `  sub: value` lines
    indent = ""  # their indentation
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].rstrip(" ")
        i += 1
        if not line or line.startswith("#"):
            continue
        if line.startswith("  - ") and list_key is not None:
            item = _scalar(line[4:])
            if item is None:
                return None, None
            data[list_key].append(item)
            continue
        if line[0] == " ":  # an entry of the mapping under the last `key:`
            if mapping is None and list_key is not None and data[list_key] == []:
                mapping = data[list_key] = {}
                indent = line[: len(line) - len(line.lstrip(" "))]
                list_key = None
            if mapping is None or not _entry(line, indent, mapping):
                return None, None
            if i < len(lines) and lines[i].startswith(indent + " "):
                return None, None  # more-indented lines after it: the parser reads those
            continue
        mapping = None
        key, sep, value = line.partition(":")
        if not sep or not _KEY.fullmatch(key) or key in data or _NON_STRING.match(key):
            return None, None
        if len(key) > 1024:
            return None, None  # YAML limits implicit keys to 1024 characters
        list_key = None
        if not value:
            data[key] = []
            list_key = key
            block_lists.append(key)
            continue
        if not value.startswith(" "):
            return None, None
        value = value[1:]
        if value in ("|", "|-", ">", ">-"):
            block, i = _literal_block(lines, i, strip=value[1:] == "-")
            if block is not None and value[0] == ">":
                block = _folded(block)
            if block is None:
                return None, None
            data[key] = block
            continue
        scalar = _flow_words(value) if value.startswith("[") else _scalar(value)
        if i < len(lines) and lines[i][:1] == " " and scalar is not None:
            # more-indented lines go on a plain value (`allowed-tools: Bash, Read,` and the
            # rest of the list below it): folded into one line, as YAML reads them
            scalar, i = _continued(value, scalar, lines, i)
        if scalar is None:
            if value.startswith("["):
                more = _FLOW_THEN.match(value)
                if more is None or _flow_words(value[: more.end(1)]) is None:
                    return None, None
                return None, (i - 1, len(key) + 2 + more.start(2), _NO_KEY)
            colon = _NOT_PLAIN.search(value)
            if (
                colon is None
                or colon.group()[0] != ":"
                or not _PLAIN.fullmatch(value, 0, colon.start())
            ):
                return None, None
            return None, (i - 1, len(key) + 2 + colon.start(), _MAPPING_VALUES)
        data[key] = scalar
    for k in block_lists:
        if data[k] == []:
            data[k] = None  # an empty `key:` is null in YAML
    return data, None


def _entry(line: str, indent: str, mapping: dict[str, Any]) -> bool:
    """Add `line`, `sub: scalar` at exactly `indent`, to `mapping` (`metadata:` and its
    `  author: x` lines); False for any other shape, a repeated key included."""
    if not line.startswith(indent) or line[len(indent)] == " ":
        return False
    key, sep, value = line[len(indent) :].partition(":")
    if not sep or not value.startswith(" ") or not _KEY.fullmatch(key) or key in mapping:
        return False
    if _NON_STRING.match(key) or len(key) > 1024:
        return False
    scalar = _scalar(value[1:])
    if scalar is None:
        return False
    mapping[key] = scalar
    return True


def _continued(value: str, scalar: Any, lines: list[str], i: int) -> tuple[Any, int]:
    """A plain `value` (read as `scalar`) continued on the more-indented lines from `i`: the
    lines folded into one string with single spaces, and the line after them; None where a
    line or the value is anything but plain text (a parser reads that)."""
    if not (isinstance(scalar, str) and _PLAIN.fullmatch(value)):
        return None, i  # a quoted, flow or typed value
    parts = [value]
    while i < len(lines) and lines[i][:1] == " ":
        part = lines[i].strip(" ")
        if not part or not _PLAIN.fullmatch(part) or _NOT_PLAIN.search(part) or _unsafe(part):
            return None, i
        parts.append(part)
        i += 1
    return " ".join(parts), i


# A one-line list, then more on its line that starts a token (another list, a word): the
# strict parser wants the next key there. A value going on after `|`, `>`, `:`, `#` or a
# character no token starts with gets other errors, left to the parser.
_FLOW_THEN = lazy(r"(\[[^\[\]]*\]) *([\[A-Za-z0-9(<]|-[A-Za-z_-])")
_NO_KEY = "did not find expected key"
_MAPPING_VALUES = "mapping values are not allowed in this context"


def _flow_words(value: str) -> list[str] | None:
    """`[a, b-c, d/e f]`: a flow sequence of plain words; None for anything richer."""
    if not value.endswith("]"):
        return None
    inner = value[1:-1].strip(" ")
    if not inner:
        return []
    words = [w.strip(" ") for w in inner.split(",")]
    if all(_FLOW_WORD.fullmatch(w) and not _NON_STRING.match(w) for w in words):
        return words
    return None


def _literal_block(lines: list[str], i: int, strip: bool) -> tuple[str | None, int]:
    """The text of a `|` block scalar whose lines start at `i`, and the line after it. Its
    indentation is its first line's; blank lines inside are kept; with `|` the text ends in
    one line break, with `|-` in none. None for any shape the parser reads otherwise."""
    content: list[str] = []
    indent = 0
    last = (
        -1
    )  # the last line with text: it ends the block with a line break unless it ends the body
    while i < len(lines):
        raw = lines[i]
        if _unsafe(raw):
            return None, i
        if not raw.strip(" "):
            if raw and not content:
                return None, i  # spaces before the first line: the parser decides
            content.append(raw[indent:] if indent and len(raw) > indent else "")
            i += 1
            continue
        leading = len(raw) - len(raw.lstrip(" "))
        if not content or not any(content):
            if leading == 0:
                break
            if not indent:
                indent = leading
        if leading < indent:
            break
        content.append(raw[indent:])
        last = i
        i += 1
    while content and not content[-1]:
        content.pop()
    if not content:
        return "", i
    text = "\n".join(content)
    return (text if strip or last == len(lines) - 1 else text + "\n"), i


def _parser_says_context() -> bool:
    """Whether ruamel.yaml parses with its C extension (libyaml), whose error for a `: `
    in a plain value is "mapping values are not allowed in this context" (its pure-Python
    parser words it otherwise)."""
    global _C_PARSER
    if _C_PARSER is None:
        from importlib.machinery import PathFinder

        _C_PARSER = PathFinder.find_spec("_ruamel_yaml") is not None
    return _C_PARSER


_C_PARSER: bool | None = None


def _reader_stop(body: str) -> bool:
    """A character the strict parser's reader refuses, anywhere in `body` (tabs and line
    feeds are text; a carriage return is left to the parser too)."""
    global _READER_STOPS
    if body.replace("\t", " ").replace("\n", " ").isprintable():
        return False  # every stop is unprintable
    if _READER_STOPS is None:
        _READER_STOPS = re.compile(
            "[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
        )
    return _READER_STOPS.search(body) is not None


_READER_STOPS: re.Pattern[str] | None = None


def _folded(literal: str) -> str | None:
    """A `>` block scalar from the text its lines give as a `|` block: its lines joined by
    spaces. None where folding keeps line breaks or spaces (blank or more-indented lines,
    spaces at a line's end): the parser reads those."""
    text = literal.removesuffix("\n")
    lines = text.split("\n")
    if any(not ln or ln[0] == " " or ln[-1] == " " for ln in lines):
        return None
    return " ".join(lines) + literal[len(text) :]


def _hint(problem: str) -> str:
    if "mapping values" in problem:
        return "quote the value: it contains `: `"
    if "duplicate key" in problem:
        return "remove or rename the repeated key"
    return "fix the YAML at this position"


# after an opening `---` that is never closed: the first line that is not blank is a
# heading, a quote, a list item or a table, so the `---` was a rule line, not frontmatter
_MARKDOWN_NEXT = lazy(r"\s*(?:#{1,6}\s|>|[-*+]\s|\|)")


def closing_line(text: str) -> int:
    """Where the `\n---` that closes the frontmatter of `text` (opened by `---\n`) starts;
    -1 when it is never closed. The body is `text[4 : end + 1]`."""
    end = text.find("\n---", 3)
    while end >= 0 and text[end + 4 : end + 5] not in ("", "\n", " ", "\t"):
        end = text.find("\n---", end + 4)
    return end


# NEL, U+2028 and U+2029 break lines in YAML 1.1, and ruamel.yaml's reader still breaks
# lines at them; in YAML 1.2 (which JavaScript readers such as js-yaml follow) they are text, so
# `description: a<U+2028>b: c` holds one key, not two. The parser is given private-use
# stand-ins, and the values get the characters back.
_YAML11_BREAKS = re.compile("[\x85\u2028\u2029]")
_STAND_IN = {"\x85": "\ue085", "\u2028": "\ue028", "\u2029": "\ue029"}
_RESTORE = str.maketrans({v: k for k, v in _STAND_IN.items()})


def _restored(value: Any) -> Any:
    """`value` (parsed from a body with stand-ins) with the characters they stand for."""
    if isinstance(value, str):
        return value.translate(_RESTORE)
    if isinstance(value, dict):
        return {_restored(k): _restored(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_restored(v) for v in value]
    return value


def read_frontmatter(
    source: Source, max_depth: int = MAX_DEPTH, max_aliases: int = MAX_ALIASES
) -> Frontmatter:
    """The YAML mapping between the leading `---` lines, the line of each top-level key,
    and a problem if it is not valid YAML (at the exact line and column of the error) or is
    over a limit (then it is not parsed)."""
    text = source.text
    if not text.startswith("---\n"):
        return Frontmatter(None, {}, None)
    end = closing_line(text)
    if end < 0:
        message = "frontmatter opened with `---` is never closed; add the closing `---` line"
        if _MARKDOWN_NEXT.match(text, 4):
            message = (
                "the file starts with `---`, but Markdown follows, not frontmatter: write its"
                " keys (`name:`, `description:`) between two `---` lines at the top, or remove"
                " this `---`"
            )
        problem = InputProblem(Position(source.path, 1, 1), "frontmatter", message)
        return Frontmatter(None, {}, problem)
    body = text[4 : end + 1]
    key_lines: dict[str, int] = {}
    line, counted = 2, 0  # the body starts on line 2; lines counted up to `counted`
    for m in _KEY_LINE.finditer(body):
        key = next(g for g in m.groups() if g is not None)
        line += body.count("\n", counted, m.start())
        counted = m.start()
        key_lines.setdefault(key, line)
    data, stop = _line_scan(body)
    if data is not None and _depth(data) <= max_depth:
        return Frontmatter(data, key_lines, None)
    if stop is not None and _parser_says_context() and not _reader_stop(body):
        # the strict parser's own error, without importing it: a plain value cannot hold
        # `: `, a list cannot go on (its reader would stop first at a control character
        # anywhere in the body)
        line, column, message = stop
        problem = InputProblem(
            Position(source.path, line + 2, column + 1),
            "frontmatter",
            f"frontmatter is not valid YAML: {message}; {_hint(message)}",
        )
        return Frontmatter(None, key_lines, problem)
    from drift_check.yaml_loader import YamlError, YamlLimit, safe_load  # ruamel on first use

    kept = _YAML11_BREAKS.findall(body)
    if kept:  # stand-ins the parser reads as text, one character each: positions hold
        body = _YAML11_BREAKS.sub(lambda m: _STAND_IN[m.group()], body)
    try:
        loaded = safe_load(body, max_depth, max_aliases)
    except YamlError as exc:
        message = (
            f"frontmatter is {exc.message}"  # over a limit: not parsed
            if isinstance(exc, YamlLimit)
            else f"frontmatter is not valid YAML: {exc.message}; {_hint(exc.message)}"
        )
        problem = InputProblem(
            Position(source.path, exc.line + 1, exc.column), "frontmatter", message
        )
        return Frontmatter(None, key_lines, problem)
    if kept:
        loaded = _restored(loaded)
    if loaded is None:
        return Frontmatter({}, key_lines, None)
    if not isinstance(loaded, dict):
        problem = InputProblem(
            Position(source.path, 2, 1),
            "frontmatter",
            "frontmatter must be a YAML mapping of keys to values",
        )
        return Frontmatter(None, key_lines, problem)
    return Frontmatter(loaded, key_lines, None)


def _depth(data: dict[str, Any]) -> int:
    """How deep the line scan's answer nests (a list or a mapping under a key is 2), as the
    strict parser counts it for `max-yaml-depth`."""
    return 2 if any(isinstance(v, (list, dict)) for v in data.values()) else 1 if data else 0


def split_entries(value: str, spaces: bool = False) -> list[str]:
    """The entries of a list written as one string: split on commas (and on blanks where
    `spaces`) outside parentheses, so `Agent(worker, researcher)` and `Bash(npm run *)` stay
    whole."""
    if "(" not in value:  # nothing to keep whole: the separators split it all
        parts = value.replace("\t", ",").replace(" ", ",") if spaces else value
        return [v.strip() for v in parts.split(",") if v.strip()]
    out: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(value):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and (ch == "," or (spaces and ch in " \t")):
            out.append(value[start:i])
            start = i + 1
    out.append(value[start:])
    return [v.strip() for v in out if v.strip()]


def frontmatter_names(
    source: Source,
    frontmatter: dict[str, Any] | None,
    key_lines: dict[str, int],
    key: str,
    spaces: bool = False,
) -> tuple[Named, ...] | None:
    """The entries of a frontmatter list (`skills:`, `tools:`), as a YAML list or a comma
    string (also a blank-separated one where `spaces`, as `allowed-tools` is), each at the
    line and column where it is written; None when the key is absent."""
    if not frontmatter or key not in frontmatter:
        return None
    value = frontmatter[key]
    if isinstance(value, str):
        names = split_entries(value, spaces)
    elif isinstance(value, list):
        names = [str(v).strip() for v in value if str(v).strip()]
    else:
        return ()
    text = source.text
    line = key_lines.get(key, 1)  # 1-based
    start = line_start(text, line)
    column = len(key) + 1  # search after the key on its own line
    out = []
    for name in names:
        pos = Position(source.path, key_lines.get(key, 1), 1)
        n, at = line, start  # each line up to 200 after the last name found, within the line
        while n <= line + 200:
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            i = text.find(name, at + (column if n == line else 0), end)
            if i >= 0:
                pos = Position(source.path, n, i - at + 1)
                line, start, column = n, at, i - at + len(name)
                break
            if end == len(text):
                break
            n, at = n + 1, end + 1
        out.append(Named(name, pos))
    return tuple(out)


def line_start(text: str, line: int) -> int:
    """Where 1-based `line` starts (the end of the text past its last line): for a line near
    the top (a frontmatter key's, the end of the frontmatter), cheaper than a table of every
    line's start."""
    offset = 0
    for _ in range(line - 1):
        offset = text.find("\n", offset) + 1
        if offset == 0:
            return len(text)
    return offset

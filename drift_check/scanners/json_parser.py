"""JSON with positions: the line and column of every key and value.

The standard `json` module gives values without positions. This parser accepts exactly
what `json.loads` accepts (RFC 8259 JSON; `NaN` and `Infinity`, which `json.loads` also
takes and JavaScript's `JSON.parse` refuses, are refused), stops at the same offset on bad
input, and says what it expected there. It runs without recursion, in time linear in the
text: every character is looked at a bounded number of times, and tokens are matched by
patterns that cannot backtrack. Nesting deeper than `max_depth` is refused where it starts.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring
from typing import Any

from drift_check.facts import JsonMember, JsonValue, Position, Source
from drift_check.scanners.patterns import lazy
from drift_check.settings import default

MAX_DEPTH = default("max-json-depth")

_BLANKS = re.compile(r"[ \t\n\r]*")
# each part is one class starred or an optional group that starts with a fixed character:
# a failed match backs off at most one group, so the match is linear
_NUMBER = lazy(r"(-?(?:0|[1-9][0-9]*))(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_PLAIN = lazy(r'[^"\\\x00-\x1f]*')  # string characters that need no attention
_SIMPLE_STRING = re.compile(r'"([^"\\\x00-\x1f]*)"')
_HEX4 = lazy(r"[0-9a-fA-F]{4}")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = {  # by first character
    "t": ("true", "boolean", True),
    "f": ("false", "boolean", False),
    "n": ("null", "null", None),
}
_VALUE = "a value (an object, array, string, number, true, false or null)"


class JsonSyntaxError(Exception):
    """Invalid JSON: what was expected, at a 0-based offset and its 1-based line and column."""

    def __init__(self, message: str, offset: int, position: Position) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.position = position


class _Open:
    """An object or array whose closing bracket has not been read yet."""

    __slots__ = ("items", "key", "key_position", "kind", "position")

    def __init__(self, kind: str, offset: int, position: Position) -> None:
        self.kind = kind
        self.position = position
        self.items: list[Any] = []
        self.key = ""
        self.key_position = position


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# `json.loads` that refuses what this parser refuses (`NaN`, `Infinity`)
_STRICT = json.JSONDecoder(parse_constant=_refuse)
_SKIP_VALUE = json.JSONDecoder().scan_once  # C: a value at an offset, and where it ends
# a valid document's strings (to drop them before counting brackets) and its leaf containers
_STRING = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = lazy(r"[^\[\]{}]+")
_EMPTY_CONTAINER = lazy(r"\{\}|\[\]")


def parse_plain(source: Source, max_depth: int = MAX_DEPTH) -> Any:
    """The document as `json.loads` gives it (C, no positions), for a text `parse_source`
    accepts; JsonSyntaxError, with `parse_source`'s message and position, for any other.
    Positions of what a finding names are found later with `locate`."""
    try:
        value = _STRICT.decode(source.text)
    except (ValueError, RecursionError):
        value = _FALL_BACK
    if value is _FALL_BACK or _deeper(source.text, max_depth):
        return parse_source(source, max_depth).plain()  # raises where json.loads refused
    return value


_FALL_BACK = object()


class _Repeated(Exception):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _Repeated
    return found


_UNIQUE = json.JSONDecoder(object_pairs_hook=_unique)


def has_repeated_key(text: str) -> bool:
    """Whether a valid document writes a key twice in one object (`json.loads` keeps the
    last value; the positioned parse keeps both members)."""
    if text.count(":") < 2:
        return False
    try:
        _UNIQUE.decode(text)
    except _Repeated:
        return True
    except (ValueError, RecursionError):
        return False
    return False


def _deeper(text: str, limit: int) -> bool:
    """Whether a valid document nests containers more than `limit` deep: each pass drops
    the containers that hold no container, so a document is empty after `depth` passes."""
    if text.count("{") + text.count("[") <= limit:
        return False
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    for _ in range(limit):
        brackets = _EMPTY_CONTAINER.sub("", brackets)
        if not brackets:
            return False
    return True


def locate(text: str, pointer: str) -> tuple[int, int] | None:
    """Where the node at a JSON pointer is written in a valid document: the offset of its
    value and of its key's opening quote (-1 for an array item or the document); None when
    there is no such node. The pointer is read as `json_at` reads it (the last of a repeated
    key)."""
    return Locator(text).find(pointer)


def member_values(text: str, document: Any, key: str) -> dict[int, int] | None:
    """Where the value of every member named `key` starts in a valid document, by the id
    of the object (of `document`, `json.loads`'s reading of `text`) holding it: the keys
    found by text search, matched in order with the document's; None when the two disagree
    in number (a repeated key, an escape in a key), where `Locator` is the way."""
    quoted = json.dumps(key)
    offsets = []
    i = text.find(quoted)
    while i >= 0:
        j = _blanks_at(text, i + len(quoted))
        if text.startswith(":", j):  # a string followed by `:` is a key
            offsets.append(_blanks_at(text, j + 1))
        i = text.find(quoted, i + 1)
    holders: list[int] = []

    def walk(node: Any) -> None:
        # depth first, each object's members in order: the order the keys are written
        if type(node) is dict:
            for k, v in node.items():
                if k == key:
                    holders.append(id(node))
                if type(v) is dict or type(v) is list:
                    walk(v)
        else:
            for v in node:
                if type(v) is dict or type(v) is list:
                    walk(v)

    if isinstance(document, (dict, list)):
        try:
            walk(document)
        except RecursionError:
            return None
    if len(holders) != len(offsets):
        return None
    return dict(zip(holders, offsets, strict=True))


class Locator:
    """`locate` for many pointers into one valid document: each object's members and each
    array's items are found once (siblings skipped by the C decoder) and kept."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._objects: dict[int, dict[str, tuple[int, int]]] = {}
        self._arrays: dict[int, list[int]] = {}

    def find(self, pointer: str) -> tuple[int, int] | None:
        if pointer.startswith("#"):
            pointer = pointer[1:]
        text = self.text
        i, key_at = _blanks_at(text, 0), -1
        for token in pointer.split("/")[1:] if pointer else ():
            key = token.replace("~1", "/").replace("~0", "~")
            c = text[i] if i < len(text) else ""
            if c == "{":
                found = self._members(i).get(key)
                if found is None:
                    return None
                i, key_at = found
            elif c == "[" and key.isdigit() and key.isascii():
                items = self._items(i)
                if int(key) >= len(items):
                    return None
                i, key_at = items[int(key)], -1
            else:
                return None
        return i, key_at

    def _members(self, start: int) -> dict[str, tuple[int, int]]:
        """key -> (value offset, key offset) of the object at `start`; a repeated key's
        last place."""
        found = self._objects.get(start)
        if found is None:
            text, found = self.text, {}
            j = _blanks_at(text, start + 1)
            while text[j] == '"':
                name, k = scanstring(text, j + 1)
                value = _blanks_at(text, _blanks_at(text, k) + 1)  # past the `:`
                found[name] = (value, j)
                end = _blanks_at(text, _SKIP_VALUE(text, value)[1])
                if text[end] != ",":
                    break
                j = _blanks_at(text, end + 1)
            self._objects[start] = found
        return found

    def _items(self, start: int) -> list[int]:
        found = self._arrays.get(start)
        if found is None:
            text, found = self.text, []
            j = _blanks_at(text, start + 1)
            while text[j] != "]":
                found.append(j)
                end = _blanks_at(text, _SKIP_VALUE(text, j)[1])
                if text[end] != ",":
                    break
                j = _blanks_at(text, end + 1)
            self._arrays[start] = found
        return found


def _blanks_at(text: str, i: int) -> int:
    return _BLANKS.match(text, i).end()  # type: ignore[union-attr]


def parse_json(text: str, path: str, max_depth: int = MAX_DEPTH) -> JsonValue:
    """The document's value, each node with its position; JsonSyntaxError otherwise."""
    return parse_source(Source(path, text), max_depth)


def parse_source(source: Source, max_depth: int = MAX_DEPTH) -> JsonValue:
    """`parse_json` of a file's text, with the file's own line starts."""
    return _Parser(source, max_depth).document()


def parse_at(source: Source, offset: int, max_depth: int = MAX_DEPTH) -> JsonValue:
    """The value written at `offset` of a file's text (what follows it is not read), with
    positions: one node of a valid document, found with `locate`."""
    return _Parser(source, max_depth).document(offset, whole=False)


class _Parser:
    def __init__(self, source: Source, max_depth: int) -> None:
        self.text = source.text
        self.n = len(source.text)
        self.lines = source
        self.max_depth = max_depth

    def fail(self, offset: int, message: str) -> JsonSyntaxError:
        return JsonSyntaxError(message, offset, self.lines.position(offset))

    def blanks(self, i: int) -> int:
        if i < self.n and self.text[i] in " \t\n\r":
            return _BLANKS.match(self.text, i).end()  # type: ignore[union-attr]
        return i

    def document(self, start: int = 0, whole: bool = True) -> JsonValue:
        # the hot loop: attribute look-ups are hoisted into locals
        text, n, position, blanks = self.text, self.n, self.lines.position, self.blanks
        stack: list[_Open] = []
        i = blanks(start)
        while True:
            # a value starts at i
            c = text[i] if i < n else ""
            if c == "{" or c == "[":
                if len(stack) >= self.max_depth:
                    raise self.fail(
                        i, f"nested deeper than {self.max_depth} levels (max-json-depth)"
                    )
                frame = _Open("object" if c == "{" else "array", i, position(i))
                j = blanks(i + 1)
                if j < n and text[j] == ("}" if c == "{" else "]"):
                    value, i = JsonValue(frame.kind, (), frame.position), j + 1
                else:
                    stack.append(frame)
                    i = self.key(frame, j) if frame.kind == "object" else j
                    continue
            elif c == '"':
                where = position(i)
                string, i = self.string(i)
                value = JsonValue("string", string, where)
            else:
                value, i = self.scalar(i)
            # a value ended at i: give it to its container, then read what follows it
            while True:
                if not stack:
                    j = blanks(i)
                    if j < n and whole:
                        raise self.fail(j, "unexpected text after the JSON value; remove it")
                    return value
                frame = stack[-1]
                is_object = frame.kind == "object"
                if is_object:
                    frame.items.append(JsonMember(frame.key, frame.key_position, value))
                else:
                    frame.items.append(value)
                closer = "}" if is_object else "]"
                j = blanks(i)
                c = text[j] if j < n else ""
                if c == ",":
                    k = blanks(j + 1)
                    if k < n and text[k] == closer:
                        raise self.fail(j, f"trailing comma before `{closer}`; remove it")
                    i = self.key(frame, k) if is_object else k
                    break
                if c == closer:
                    stack.pop()
                    value, i = JsonValue(frame.kind, tuple(frame.items), frame.position), j + 1
                    continue
                after = "member" if is_object else "item"
                raise self.fail(j, f"expected `,` or `{closer}` after this {after}")

    def key(self, frame: _Open, i: int) -> int:
        """Read `"key" :` at i into the frame; the offset where its value starts."""
        c = self.text[i] if i < self.n else ""
        if c != '"':
            hint = {
                "'": " (JSON has no single quotes)",
                "/": " (JSON has no comments)",
            }.get(c, "")
            raise self.fail(i, f"expected a key in double quotes{hint}")
        frame.key_position = self.lines.position(i)
        frame.key, j = self.string(i)
        j = self.blanks(j)
        if j >= self.n or self.text[j] != ":":
            shown = frame.key if len(frame.key) <= 40 else frame.key[:40] + "..."
            raise self.fail(j, f"expected `:` after the key `{shown}`")
        return self.blanks(j + 1)

    def scalar(self, i: int) -> tuple[JsonValue, int]:
        text = self.text
        literal = _LITERALS.get(text[i : i + 1])
        if literal is not None and text.startswith(literal[0], i):
            word, kind, value = literal
            return JsonValue(kind, value, self.lines.position(i)), i + len(word)
        m = _NUMBER.match(text, i)
        if m is None:
            c = text[i] if i < self.n else ""
            hint = " (JSON has no comments)" if c == "/" else ""
            hint = " (JSON has no single quotes)" if c == "'" else hint
            raise self.fail(i, f"expected {_VALUE}{hint}")
        token = m.group()
        # a fraction, an exponent, or an integer past int()'s digit limit is a float
        whole = m.end(1) == m.end() and len(token) <= 4000
        number: int | float = int(token) if whole else float(token)
        return JsonValue("number", number, self.lines.position(i)), m.end()

    def string(self, start: int) -> tuple[str, int]:
        """The string whose opening quote is at `start`, and the offset after its close.
        Errors sit where `json.loads` puts them: the opening quote of a string never closed,
        the backslash of a bad escape, the `u` of a bad `\\uXXXX`."""
        text, n = self.text, self.n
        simple = _SIMPLE_STRING.match(text, start)
        if simple is not None:  # no escapes: most strings
            return simple.group(1), simple.end()
        parts: list[str] = []
        i = start + 1
        while True:
            m = _PLAIN.match(text, i)
            assert m is not None  # a starred class always matches
            parts.append(m.group())
            i = m.end()
            if i >= n:
                raise self.fail(start, 'string is never closed; add the closing `"`')
            c = text[i]
            if c == '"':
                return "".join(parts), i + 1
            if c != "\\":
                if c == "\n":
                    raise self.fail(i, 'string is not closed on its line; add the closing `"`')
                raise self.fail(
                    i, f"control character U+{ord(c):04X} in a string; write it as an escape"
                )
            if i + 1 >= n:
                raise self.fail(start, 'string is never closed; add the closing `"`')
            escape = text[i + 1]
            if escape != "u":
                if escape not in _ESCAPES:
                    shown = (
                        f" `\\{escape}`"
                        if escape.isprintable()
                        else f": `\\` followed by U+{ord(escape):04X}"
                    )
                    raise self.fail(
                        i,
                        f"invalid escape{shown}; JSON knows"
                        ' \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX',
                    )
                parts.append(_ESCAPES[escape])
                i += 2
                continue
            code = self.hex4(i + 1)
            i += 6
            # a high surrogate and a `\uXXXX` right after it make one character, as in
            # json.loads; any other pair is kept as two code points
            if 0xD800 <= code <= 0xDBFF and i + 6 < n and text.startswith("\\u", i):
                low = self.hex4(i + 1)
                if 0xDC00 <= low <= 0xDFFF:
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
            parts.append(chr(code))

    def hex4(self, u: int) -> int:
        """The value of the four hex digits after the `u` at offset `u`."""
        m = _HEX4.match(self.text, u + 1) if u + 5 < self.n else None
        if m is None:
            raise self.fail(u, "`\\u` must be followed by four hex digits")
        return int(m.group(), 16)


def source_offset(text: str, quote: int, index: int) -> int:
    """Where the `index`-th character of the (valid) string whose opening quote is at
    `quote` is written in `text`: escapes take more than one character there."""
    i, seen = quote + 1, 0
    while seen < index and i < len(text) and text[i] != '"':
        if text[i] != "\\":
            i += 1
        elif text[i + 1] != "u":
            i += 2
        else:
            high = 0xD800 <= int(text[i + 2 : i + 6], 16) <= 0xDBFF
            low = text.startswith("\\u", i + 6) and _HEX4.match(text, i + 8)
            pair = high and low and 0xDC00 <= int(text[i + 8 : i + 12], 16) <= 0xDFFF
            i += 12 if pair else 6
        seen += 1
    return i

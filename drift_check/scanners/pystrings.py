"""The string literals of a Python file, each where it is written.

The standard `ast` decides whether a file parses, and where it does not. The literals are
read from the text of the parsed file by the small lexer below: in a file that parses, a
quote outside comments and strings always starts a string and a `#` a comment, so finding
them needs no tree. The tree alone would not do: it joins what a consumer sees apart (each
piece of an implicit concatenation is a literal of its own; an f-string's text parts are
literals as written, escapes not applied and `{{` kept; the strings inside its fields are
literals too), and before Python 3.12 it misplaces the parts of f-strings, so their text
has to be read anyway; one lexer for all of it costs what walking the tree costs. F-strings
are read with Python 3.12's rules (quotes, backslashes and comments inside fields), which
read every older f-string as its own version does. Plain strings and bytes have their
value (bytes decoded as UTF-8); columns count characters."""

from __future__ import annotations

import sys
import warnings
from typing import TYPE_CHECKING

from drift_check.facts import InputProblem, Position, Source, StringLiteral
from drift_check.scanners.patterns import lazy

if TYPE_CHECKING:  # imported where a file is parsed: most trees hold no Python consumer
    import ast

# lower-cased string prefixes; `t` (template strings, 3.14) keeps its text parts out
_PREFIXES = frozenset({"", "r", "u", "b", "br", "rb", "f", "fr", "rf", "t", "tr", "rt"})
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_BLANK = " \t\f\n"

# outside strings: where a comment or a string starts
_CODE_STOP = lazy(r"""[#'"]""")
# a plain string after its opening quotes, through its closing ones (the first match is the
# tokenizer's: an escaped quote does not end it, a lone quote inside triple quotes neither)
_REST = {
    "'": lazy(r"[^'\\\n]*+(?:\\[\s\S][^'\\\n]*+)*+'"),
    '"': lazy(r'[^"\\\n]*+(?:\\[\s\S][^"\\\n]*+)*+"'),
    "'''": lazy(r"[^'\\]*+(?:(?:\\[\s\S]|'(?!''))[^'\\]*+)*+'''"),
    '"""': lazy(r'[^"\\]*+(?:(?:\\[\s\S]|"(?!""))[^"\\]*+)*+"""'),
}
# where an f-string's text part may end: a field, an escape, its closing quote
_TEXT_STOP = {"'": lazy(r"[{}\\']"), '"': lazy(r'[{}\\"]')}
_SPEC_STOP = lazy(r"[{}\\]")
# in a replacement field's expression: strings, comments (3.12), brackets, and what ends it
_EXPRESSION_STOP = lazy(r"""[#'"()\[\]{}!:=]""")
# escapes that mean one thing in every string and bytes literal (not `\x`, `\N{}`, octal...)
_ESCAPE = lazy(r"\\([\s\S])")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "\n": ""}

Found = list[tuple[int, str | None]]  # (offset, value); None: evaluate the piece's text


class _Unlexed(Exception):
    """The text is not what a parsed file holds (an error in this module, never the user's)."""


def python_literals(source: Source, problems: list[InputProblem]) -> tuple[StringLiteral, ...]:
    """Every string literal of a Python file, at its own line and column, in file order; a
    file that does not parse is a problem and has none."""
    text = source.text
    try:
        parse_python(text, source.path)
    except (SyntaxError, ValueError) as exc:
        found = _newer_fstrings(text) if sys.version_info < (3, 12) else None
        if found is not None:
            return _literals(source, found)
        line, column = (
            (exc.lineno or 1, exc.offset or 1) if isinstance(exc, SyntaxError) else (1, 1)
        )
        problems.append(
            InputProblem(
                Position(source.path, line, column),
                "unreadable",
                "Python file does not parse; its string literals are not checked",
            )
        )
        return ()
    except (RecursionError, MemoryError):
        problems.append(
            InputProblem(Position(source.path, 1, 1), "unreadable", "Python file nests too deeply")
        )
        return ()
    try:
        found = _lex(text, [])
    except (_Unlexed, IndexError, ValueError, RecursionError):
        problems.append(
            InputProblem(
                Position(source.path, 1, 1),
                "unreadable",
                "drift-check could not read the strings of this Python file (a bug in"
                " drift-check: please report it); its string literals are not checked",
            )
        )
        return ()
    return _literals(source, found)


def parse_python(text: str, path: str) -> ast.Module:
    """The module's syntax tree, or SyntaxError, ValueError, RecursionError, MemoryError.
    What Python warns of (an invalid escape: a SyntaxWarning printed to stderr from Python
    3.12) is the file's business, never drift-check's output."""
    import ast

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, path)


def python_tree(source: Source) -> ast.Module | None:
    """The syntax tree of a Python file; None when it does not parse (repository code may be
    Python 2, a template, or broken on purpose)."""
    try:
        return parse_python(source.text, source.path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _lex(text: str, fstrings: list[tuple[int, int]]) -> Found:
    """The strings of the whole text, in order; where each f-string starts and ends goes
    to `fstrings`."""
    found: Found = []
    i = 0
    while m := _CODE_STOP.search(text, i):
        j = m.start()
        if text[j] == "#":
            i = text.find("\n", j)
            if i < 0:
                break
            continue
        start = _prefix_start(text, j) if j and text[j - 1] in _WORD else j
        i = _string(text, start, j, found)
        prefix = text[start:j].lower()
        if "f" in prefix or "t" in prefix:
            fstrings.append((start, i))
    return found


def _newer_fstrings(text: str) -> Found | None:
    """The strings of a file that Python 3.11 rejects, read with 3.12's f-string rules, when
    that is all it rejects: the file parses once every f-string is an empty string. None
    otherwise."""
    fstrings: list[tuple[int, int]] = []
    try:
        found = _lex(text, fstrings)
    except (_Unlexed, IndexError, ValueError, RecursionError):
        return None
    if not fstrings:
        return None
    masked = []
    last = 0
    for start, end in fstrings:
        masked += (text[last:start], '""')
        last = end
    masked.append(text[last:])
    try:
        parse_python("".join(masked), "")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    return found


def _literals(source: Source, found: Found) -> tuple[StringLiteral, ...]:
    """The literals found, in file order, with the values still to evaluate evaluated."""
    text = source.text
    pending = [k for k, (_, value) in enumerate(found) if value is None]
    if pending:
        values = _evaluate(text, [found[k][0] for k in pending])
        for k, value in zip(pending, values, strict=True):
            found[k] = (found[k][0], value)
    found.sort(key=lambda f: f[0])
    out = []
    line, line_start, last = 1, 0, 0
    for offset, value in found:
        if value is None:
            continue
        newlines = text.count("\n", last, offset)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", last, offset) + 1
        last = offset
        position = Position(source.path, line, offset - line_start + 1)
        out.append(StringLiteral(value, position))
    return tuple(out)


def _evaluate(text: str, starts: list[int]) -> list[str | None]:
    """The values of the plain strings that start at `starts` (as `ast.literal_eval` gives
    each: what Python makes of the piece alone), all in one evaluation when it can be."""
    pieces = []
    for start in starts:
        quote = start
        while text[quote] not in "'\"":
            quote += 1
        pieces.append(text[start : _plain_end(text, quote)])
    import ast

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = ast.literal_eval("(" + ",\n".join(pieces) + ",)")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        values = [_value(p) for p in pieces]  # one of them is not valid alone: skip it
    return [v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in values]


def _value(piece: str) -> str | bytes | None:
    import ast

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = ast.literal_eval(piece)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (str, bytes)) else None


def _string(text: str, start: int, quote: int, found: Found) -> int:
    """The string whose prefix starts at `start` and first quote is at `quote`: its pieces
    added to `found`; the offset after it."""
    prefix = text[start:quote].lower()
    if prefix not in _PREFIXES or text[quote] not in "'\"":
        raise _Unlexed(start)
    mark = text[quote] * 3 if text.startswith(text[quote] * 3, quote) else text[quote]
    if "f" in prefix or "t" in prefix:
        return _fstring(text, quote + len(mark), mark, "r" in prefix, "f" in prefix, found)
    end = _plain_end(text, quote)
    body = text[quote + len(mark) : end - len(mark)]
    if "r" in prefix or "\\" not in body:
        found.append((start, body))
    elif all(e in _SIMPLE for e in _ESCAPE.findall(body)):
        found.append((start, _ESCAPE.sub(lambda m: _SIMPLE[m.group(1)], body)))
    else:
        found.append((start, None))  # other escapes: evaluated once the literals are known
    return end


def _prefix_start(text: str, quote: int) -> int:
    """Where the string whose quote is at `quote` starts: at its prefix, if the word before
    the quote is one (`else"x"` is a keyword and a string)."""
    start = quote
    while start > 0 and text[start - 1] in _WORD:
        start -= 1
    return start if text[start:quote].lower() in _PREFIXES else quote


def _plain_end(text: str, quote: int) -> int:
    mark = text[quote] * 3 if text.startswith(text[quote] * 3, quote) else text[quote]
    m = _REST[mark].match(text, quote + len(mark))
    if m is None:
        raise _Unlexed(quote)
    return m.end()


def _fstring(text: str, i: int, mark: str, raw: bool, keep: bool, found: Found) -> int:
    """An f-string from just after its opening quotes: its text parts (where `keep`) and the
    strings in its fields added to `found`; the offset after its closing quotes."""
    stop = _TEXT_STOP[mark[0]]
    part = i
    while True:
        m = stop.search(text, i)
        if m is None:
            raise _Unlexed(i)
        j = m.start()
        c = text[j]
        if c == "\\":
            after = text[j + 1 : j + 2]
            if not raw and after == "N" and text.startswith("{", j + 2):
                i = text.index("}", j + 3) + 1  # a named escape, not a field
            else:
                i = j + 1 if after in ("{", "}") else j + 2
        elif c == "{" and not text.startswith("{", j + 1):
            if keep and j > part:
                found.append((part, text[part:j]))
            i = part = _field(text, j + 1, keep, found)
        elif c in "{}":
            i = j + 2  # `{{` or `}}`: text
        elif text.startswith(mark, j):
            if keep and j > part:
                found.append((part, text[part:j]))
            return j + len(mark)
        else:
            i = j + 1  # a lone quote inside triple quotes


def _field(text: str, i: int, keep: bool, found: Found) -> int:
    """A replacement field from just after its `{`: expression, `=`, `!conversion`,
    `:format spec`; the offset after its closing `}`."""
    j = _expression(text, i, found)
    if text[j] == "=":
        j = _blank(text, j + 1)
    if text[j] == "!":
        j += 1
        while text[j] in _WORD:
            j += 1
        j = _blank(text, j)
    if text[j] == ":":
        j = _spec(text, j + 1, keep, found)
    if text[j] != "}":
        raise _Unlexed(j)
    return j + 1


def _blank(text: str, i: int) -> int:
    """The offset after the blanks and comments (3.12: fields may span lines) at `i`."""
    while True:
        while text[i] in _BLANK:
            i += 1
        if text[i] != "#":
            return i
        i = text.index("\n", i)


def _expression(text: str, i: int, found: Found) -> int:
    """A field's expression: the strings in it added to `found`; the offset of what ends it
    at bracket depth 0 (`}`, the `!` of a conversion, `:`, the `=` of `{x=}`)."""
    depth = 0
    while True:
        m = _EXPRESSION_STOP.search(text, i)
        if m is None:
            raise _Unlexed(i)
        j = m.start()
        c = text[j]
        i = j + 1
        if c in "'\"":
            i = _string(text, _prefix_start(text, j), j, found)
        elif c == "#":
            i = text.find("\n", j)  # a comment (3.12: fields may span lines)
            if i < 0:
                raise _Unlexed(j)
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return j
            depth -= 1
        elif depth == 0:
            following = text[j + 1 : j + 2]
            if c in "!=" and following == "=":
                i = j + 2  # `!=`, `==`
            elif c == "=" and text[j - 1] in "<>":
                pass  # `<=`, `>=`
            else:
                return j


def _spec(text: str, i: int, keep: bool, found: Found) -> int:
    """A format spec from just after its `:`: its text parts (where `keep`) and nested
    fields; the offset of the `}` that ends it."""
    part = i
    while True:
        m = _SPEC_STOP.search(text, i)
        if m is None:
            raise _Unlexed(i)
        j = m.start()
        c = text[j]
        if c == "\\":
            i = j + 1 if text[j + 1 : j + 2] in ("{", "}") else j + 2
            continue
        if keep and j > part:
            found.append((part, text[part:j]))
        if c == "}":
            return j
        i = part = _field(text, j + 1, keep, found)

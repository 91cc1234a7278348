"""The Python literal scanner against two oracles, on generated sources.

The sources hold what hook code holds around strings: implicit concatenations (on one line,
over lines in parentheses, with comments and line continuations between the pieces), every
prefix, every quote, escapes, non-ASCII text before and inside strings (so byte and
character columns differ), f-strings with conversions, `=`, format specs and nested fields,
strings and f-strings nested in fields, and Python 3.12's f-strings (the enclosing quote
inside a field, backslashes and comments in fields), which Python 3.11 reads too.

- The hand oracle: the generator knows where it put each literal and what it holds (the
  value of a plain string is what Python makes of the piece alone; an f-string's text part
  is its text as written).
- libcst, which drift-check used before the standard `ast` (a test dependency only): the
  scanner must report exactly what it reported, value, line and column.
"""

from __future__ import annotations

import ast
import importlib.util
from typing import NamedTuple

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.facts import Source
from drift_check.scanners.pystrings import python_literals

PROPERTY = settings(max_examples=300, deadline=None)

QUOTES = ("'", '"', "'''", '"""')
SAFE = ("a", "Z", " ", "#", "é", "→", "🚀", "名", "## DONE", ":", "!", "=")
ESCAPES = ("\\n", "\\t", "\\\\", "\\x41", "\\101", "\\\n")
STR_ESCAPES = ("\\u00e9", "\\N{BULLET}", "\\U0001F680")
NAMES = ("x", "é", "名前", "_v2")


class Source_(NamedTuple):
    text: str
    expected: list[tuple[str, int]]  # (value, offset), in file order


class Out:
    """The text being written, and the literals the generator knows it holds."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.expected: list[tuple[str, int]] = []

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def literal(self, value: str) -> None:
        self.expected.append((value, self.size))


def _content(draw: st.DrawFn, quote: str, raw: bool, is_bytes: bool, fstring: bool) -> str:
    """The text between a string's quotes: valid for its quote, prefix and kind."""
    q = quote[0]
    other = "'" if q == '"' else '"'
    tokens = [*SAFE, other] if not is_bytes else ["a", "Z", " ", "#", "## DONE", other]
    if fstring:
        tokens = [t for t in tokens if t not in ("{", "}")] + ["{{", "}}"]
    if len(quote) == 3:
        tokens += ["\n", q + "a"]
    if raw:
        tokens += ["\\d", "\\" + q]
    else:
        tokens += [*ESCAPES, "\\" + q]
        if not is_bytes:
            tokens += list(STR_ESCAPES)
    body = "".join(draw(st.lists(st.sampled_from(tokens), max_size=6)))
    if len(quote) == 3 and body.endswith(q):
        body += "a"
    return body


@st.composite
def plain(draw: st.DrawFn, out: Out, avoid: str = "", is_bytes: bool | None = None) -> None:
    """A plain string or bytes (`is_bytes`: which, or either); `avoid` as in `fstring`."""
    bytes_prefixes, str_prefixes = ("b", "rb", "Br"), ("", "r", "u", "R", "U")
    choices = {True: bytes_prefixes, False: str_prefixes, None: bytes_prefixes + str_prefixes}
    prefix = draw(st.sampled_from(choices[is_bytes]))
    quote = draw(st.sampled_from([q for q in QUOTES if q[0] != avoid]))
    raw, is_bytes = "r" in prefix.lower(), "b" in prefix.lower()
    text = f"{prefix}{quote}{_content(draw, quote, raw, is_bytes, False)}{quote}"
    value = ast.literal_eval(text)
    out.literal(value.decode("utf-8", "replace") if isinstance(value, bytes) else value)
    out.write(text)


@st.composite
def fstring(draw: st.DrawFn, out: Out, depth: int = 0, avoid: str = "") -> None:
    """An f-string; `avoid` is a quote the enclosing string uses (Python 3.11 style: a
    nested string takes another quote), "" where 3.12's nesting is drawn."""
    prefix = draw(st.sampled_from(("f", "F", "rf", "fR")))
    quote = draw(st.sampled_from([q for q in QUOTES if q[0] != avoid]))
    raw = "r" in prefix.lower()
    out.write(prefix + quote)
    part = ""
    for kind in draw(st.lists(st.sampled_from(("text", "field")), max_size=4)):
        if kind == "text":
            part += _content(draw, quote, raw, False, True)
            continue
        if part:
            out.literal(part)
            out.write(part)
            part = ""
        draw(field(out, quote, depth))
    if part:
        if len(quote) == 3 and part.endswith(quote[0]):
            part += "a"
        out.literal(part)
        out.write(part)
    out.write(quote)


@st.composite
def field(draw: st.DrawFn, out: Out, quote: str, depth: int) -> None:
    """A replacement field: an expression (maybe holding strings), `=`, a conversion and
    a format spec with text and nested fields."""
    newer = draw(st.booleans())  # Python 3.12 only: any quote inside, comments
    avoid = "" if newer else quote[0]
    kind = draw(st.sampled_from(("name", "compare", "string", "fstring", "dict", "lambda")))
    out.write("{" + (" " if kind == "dict" else draw(st.sampled_from(("", " ")))))
    if kind == "name":
        out.write(draw(st.sampled_from(NAMES)))
    elif kind == "compare":
        out.write("a " + draw(st.sampled_from(("!=", "==", "<=", ">=", "<"))) + " b")
    elif kind == "string" or (kind == "fstring" and depth >= 2):
        out.write("d[")
        draw(plain(out, avoid))
        out.write("]")
    elif kind == "fstring":
        draw(fstring(out, depth + 1, avoid))
    elif kind == "dict":
        out.write("{")
        draw(plain(out, avoid))
        out.write(": 1}[0]")
    else:
        out.write("(lambda: 1)()")
    debug, conversion, spec = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    if newer and len(quote) == 3 and not (debug or conversion or spec):
        out.write("  # a comment's 'quote' and {brace}\n")
    if debug:
        out.write(draw(st.sampled_from(("=", " = "))))
    if conversion:
        out.write(draw(st.sampled_from(("!r", "!s", "!a"))))
    if spec:
        out.write(":")
        part = ""
        for kind in draw(st.lists(st.sampled_from(("text", "field")), max_size=3)):
            if kind == "text":
                part += draw(st.sampled_from((">10", "%H:%M", "é", ",", ".2f")))
                continue
            if part:
                out.literal(part)
                out.write(part)
                part = ""
            out.write("{" + draw(st.sampled_from(NAMES)) + "}")
        if part:
            out.literal(part)
            out.write(part)
    out.write("}")


@st.composite
def sources(draw: st.DrawFn) -> Source_:
    out = Out()
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):  # a string before, on the same line
            out.write(draw(st.sampled_from(NAMES)) + " = ")
            draw(plain(out))
            out.write("; ")
        out.write(draw(st.sampled_from(NAMES)) + " = (")
        pieces = draw(st.integers(1, 3))
        is_bytes = draw(st.booleans())  # bytes and str do not concatenate
        for k in range(pieces):
            if not is_bytes and draw(st.booleans()):
                draw(fstring(out))
            else:
                draw(plain(out, "", is_bytes))
            if k < pieces - 1:
                out.write(draw(st.sampled_from((" ", "\n    ", "  # 'q' \"q\" {\n    ", " \\\n"))))
        out.write(")\n")
    return Source_("".join(out.parts), out.expected)


def _scan(text: str) -> list[tuple[str, int, int]]:
    problems: list[object] = []
    found = python_literals(Source("hook.py", text), problems)  # type: ignore[arg-type]
    assert problems == [], (text, problems)
    return [(lit.value, lit.position.line, lit.position.column) for lit in found]


def _positions(text: str, expected: list[tuple[str, int]]) -> list[tuple[str, int, int]]:
    out = []
    for value, offset in expected:
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        out.append((value, line, column))
    return out


@pytest.mark.slow
@PROPERTY
@given(sources())
@example(Source_('x = (f"{d["k"]!r:{"w"}}")\n', [("k", 10), ("w", 18)]))
@example(Source_('é = (f"é{x}ü" "→\\n")\n', [("é", 7), ("ü", 11), ("→\n", 14)]))
def test_literals_where_the_generator_put_them(source: Source_) -> None:
    assert _scan(source.text) == _positions(source.text, source.expected)


HAS_LIBCST = importlib.util.find_spec("libcst") is not None


@pytest.mark.slow
@pytest.mark.skipif(not HAS_LIBCST, reason="libcst (a test dependency) is not installed")
@PROPERTY
@given(sources())
def test_literals_as_libcst_found_them(source: Source_) -> None:
    from tests.libcst_oracle import libcst_literals

    problems: list[object] = []
    old = libcst_literals(Source("hook.py", source.text), problems)
    assert problems == []
    assert _scan(source.text) == [
        (lit.value, lit.position.line, lit.position.column) for lit in old
    ]

"""Suppression comments, found where they are comments and nowhere else.

- Markdown: `<!-- drift-check: KIND[CODES] reason -->` on one line, outside fenced blocks,
  inline code spans and the YAML frontmatter.
- The YAML frontmatter of a Markdown file, and Python: `# drift-check: KIND[CODES] reason`
  in a real comment (a `#` in a quoted or block scalar, or in a Python string, is text).
- JSON has no comments: nothing there is a directive.

KIND is one of `KINDS`; `[CODES]` may be left out (then it means every code). A word that is
not a KIND is recorded only when brackets follow it (`disable-line[DC701]` was meant as a
directive; the suppression stage reports it). Which lines a directive covers is decided by
the suppression stage (`drift_check/filters.py`); the grammar is in docs/suppressions.md.
"""

import re
from collections.abc import Iterator

from drift_check.facts import Directive, Named, Position, Source

KINDS = frozenset({"ignore", "ignore-file", "disable-next-line", "disable", "enable"})

# The head is a regular expression; the `]`, the `-->` and the line's end are found with
# `str.find`, each search starting where the last one ended, so that many heads on one long
# line cost one pass over it. The word is possessive: a `-` must be followed by a letter.
_WORD = r"([A-Za-z]++(?:-[A-Za-z]++)*+)"
_MARKDOWN_HEAD = re.compile(r"<!--[ \t]*+drift-check:[ \t]*+" + _WORD)
_COMMENT_HEAD = re.compile(r"#[ \t]*+drift-check:[ \t]*+" + _WORD)
# A `#` that starts a YAML comment: first on its line or after a blank.
_YAML_COMMENT = re.compile(r"(?:^|(?<=[ \t]))#[ \t]*+drift-check:", re.M)


def find_directives(source: Source) -> list[Directive]:
    """Every suppression comment of `source`, in file order."""
    text = source.text
    if "drift-check:" not in text or source.path.endswith(".json"):
        return []
    if source.path.endswith(".py"):
        return _python(source)
    from drift_check.scanners.frontmatter import closing_line
    from drift_check.scanners.markdown import Cursor, scan

    body_end = 0  # where the Markdown after the frontmatter starts
    out: list[Directive] = []
    if text.startswith("---\n"):
        end = closing_line(text)
        if end >= 0:
            body_end = end + 4
            if "drift-check:" in text[4 : end + 1]:
                out.extend(_yaml(source, 4, end + 1))
    if text.find("drift-check:", body_end) < 0:
        return out
    markdown = scan(text, max_level=0)
    cursor = Cursor(source)
    alone: dict[int, bool] = {}  # by the offset of the line's start
    for start, word, codes, reason, line_end in _markdown_matches(text, body_end):
        pos = cursor.position(start)
        if markdown.in_fence(pos.line) or cursor.in_code_span(start):
            continue  # shown as code: text, not a directive
        line_start = cursor.line_start
        if line_start not in alone:
            alone[line_start] = _only_comments(text, line_start, line_end)
        named = None if codes is None else _codes(pos, start, codes)
        out.append(Directive(pos, word.lower(), named, reason, alone[line_start]))
    return out


def _markdown_matches(
    text: str, pos: int
) -> Iterator[tuple[int, str, tuple[int, str] | None, str, int]]:
    """(offset, word, (offset, text) of the codes or None, reason, end of the line) of each
    Markdown directive from `pos` on: leftmost first, never overlapping."""
    n = len(text)
    newline = bracket = close = -1  # the first `\n`, `]`, `-->` at or after the last search
    while True:
        m = _MARKDOWN_HEAD.search(text, pos)
        if m is None:
            return
        after = m.end()
        pos = after  # no head can start inside this one
        if newline < after:
            newline = _find(text, "\n", after, n)
        word = m.group(1)
        codes: tuple[int, str] | None = None
        if text.startswith("[", after):
            if bracket <= after:
                bracket = _find(text, "]", after + 1, n)
            if bracket >= newline:
                continue
            codes = (after + 1, text[after + 1 : bracket])
            rest = bracket + 1
        elif word.lower() in KINDS and (
            text.startswith("-->", after) or text[after : after + 1] in (" ", "\t")
        ):
            rest = after
        else:
            continue
        if close < rest:
            close = _find(text, "-->", rest, n)
        if close >= newline:
            continue
        yield m.start(), word, codes, text[rest:close].strip(" \t"), newline
        pos = close + 3


def _find(text: str, needle: str, start: int, n: int) -> int:
    i = text.find(needle, start)
    return n if i < 0 else i


def _only_comments(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` (one line) holds nothing but blanks and HTML comments."""
    i = start
    while True:
        while i < end and text[i] in " \t":
            i += 1
        if i >= end:
            return True
        if not text.startswith("<!--", i):
            return False
        close = text.find("-->", i + 4, end)
        if close < 0:
            return False
        i = close + 3


def _codes(pos: Position, start: int, codes: tuple[int, str]) -> tuple[Named, ...]:
    """The codes written in the brackets (at `codes[0]` in the text, the directive at
    `start`), upper-cased, each at its own column."""
    offset, raw = codes
    out = []
    for piece in raw.split(","):
        code = piece.strip()
        if code:
            column = pos.column + offset - start + piece.index(code)
            out.append(Named(code.upper(), Position(pos.path, pos.line, column)))
        offset += len(piece) + 1
    return tuple(out)


def _comment(comment: str, pos: Position, alone: bool) -> Directive | None:
    """The directive a `#` comment (`comment` from its `#`, at `pos`) holds, if any."""
    m = _COMMENT_HEAD.match(comment)
    if m is None:
        return None
    after = m.end()
    word = m.group(1)
    codes = None
    if comment.startswith("[", after):
        bracket = comment.find("]", after + 1)
        if bracket < 0:
            return None
        codes = _codes(pos, 0, (after + 1, comment[after + 1 : bracket]))
        rest = bracket + 1
    elif word.lower() in KINDS and comment[after : after + 1] in ("", " ", "\t"):
        rest = after
    else:
        return None
    return Directive(pos, word.lower(), codes, comment[rest:].strip(" \t"), alone)


def _python(source: Source) -> list[Directive]:
    import io
    import tokenize

    out: list[Directive] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source.text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return out  # DC001 reports a file that does not parse
    for tok in tokens:
        if tok.type != tokenize.COMMENT or "drift-check:" not in tok.string:
            continue
        pos = Position(source.path, tok.start[0], tok.start[1] + 1)
        found = _comment(tok.string, pos, not tok.line[: tok.start[1]].strip())
        if found is not None:
            out.append(found)
    return out


def _yaml(source: Source, start: int, end: int) -> list[Directive]:
    """The directives in the YAML comments of `source.text[start:end]` (frontmatter). The
    YAML scanner's tokens say where scalars are; a `#` inside one is text. Frontmatter that
    does not scan has none (DC004 reports it)."""
    import bisect

    from drift_check.scanners.markdown import Cursor

    cursor = Cursor(source)
    body = source.text[start:end]
    spans = _token_spans(body)
    if spans is None:
        return []
    starts = [s for s, _ in spans]
    out = []
    line_end = -1  # the end of the line of the last comment: a comment runs to it
    for m in _YAML_COMMENT.finditer(body):
        if m.start() < line_end:
            continue
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < spans[i][1]:
            continue  # inside a scalar
        line_start = body.rfind("\n", 0, m.start()) + 1
        line_end = body.find("\n", m.start())
        if line_end < 0:
            line_end = len(body)
        comment = body[m.start() : line_end]
        pos = cursor.position(start + m.start())
        found = _comment(comment, pos, not body[line_start : m.start()].strip(" \t"))
        if found is not None:
            out.append(found)
    return out


def _token_spans(body: str) -> list[tuple[int, int]] | None:
    """(start, end) offsets of the YAML tokens of `body` that have text, in order; None
    when it is not YAML."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    from drift_check.yaml_loader import collect_cycles

    collect_cycles()
    try:
        tokens = list(YAML(typ="safe", pure=True).scan(body))
    except (YAMLError, RecursionError):
        return None
    return [
        (t.start_mark.index, t.end_mark.index)
        for t in tokens
        if t.end_mark.index > t.start_mark.index
    ]

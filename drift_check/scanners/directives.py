"""Suppression comments: `<!-- drift-check: ignore[DC101] reason -->` in Markdown and
`# drift-check: ignore[DC101] reason` in Python, or `ignore-file[...]` for a whole file.

A directive inside a fenced block or a code span is text, not a directive; in Python only a
real comment counts (found with the tokenizer, never by running anything).
"""

import re
from collections.abc import Iterator

from drift_check.facts import Directive, Position, Source

# A Markdown directive is `<!--[ \t]*drift-check:[ \t]*(ignore-file|ignore)\[([^\]\n]*)\]`,
# then `[ \t]*(.*?)[ \t]*-->` on the same line. Only its head is a regular expression: as one
# expression, a long run of blanks in the reason was rescanned at every character of the
# lazy `.*?` (quadratic), and so was the rest of the line from each of many heads on a line
# without `-->`. The `]` and `-->` are found by `_markdown_matches` with `str.find`, each
# search starting where the last one ended, which finds what the expression found.
_MARKDOWN_HEAD = re.compile(r"<!--[ \t]*drift-check:[ \t]*(ignore-file|ignore)\[")
_PYTHON = re.compile(r"#[ \t]*drift-check:[ \t]*(ignore-file|ignore)\[([^\]\n]*)\][ \t]*(.*)$")


def _codes(raw: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in raw.split(",") if c.strip())


def find_directives(source: Source) -> list[Directive]:
    text = source.text
    if "drift-check:" not in text or source.path.endswith(".json"):
        return []  # JSON has no comments: a directive in a string is text
    if source.path.endswith(".py"):
        return _python(source)
    from drift_check.scanners.markdown import Cursor, scan

    markdown = scan(text)
    cursor = Cursor(source)
    out = []
    for start, kind, codes, reason in _markdown_matches(text):
        pos = cursor.position(start)
        if markdown.in_fence(pos.line):
            continue  # inside a fenced block
        if cursor.in_code_span(start):
            continue
        out.append(Directive(pos, kind == "ignore-file", _codes(codes), reason))
    return out


def _markdown_matches(text: str) -> Iterator[tuple[int, str, str, str]]:
    """(offset, kind, codes, reason) of each directive, as `re.finditer` over the whole
    pattern (see `_MARKDOWN_HEAD`) gave them: leftmost first, never overlapping."""
    n = len(text)
    newline = bracket = close = -1  # the first `\n`, `]`, `-->` at or after the last search
    pos = 0
    while True:
        m = _MARKDOWN_HEAD.search(text, pos)
        if m is None:
            return
        after = m.end()
        if newline < after:
            newline = _find(text, "\n", after, n)
        if bracket < after:
            bracket = _find(text, "]", after, n)
        if bracket < newline:
            if close <= bracket:
                close = _find(text, "-->", bracket + 1, n)
            if close < newline:
                yield (
                    m.start(),
                    m.group(1),
                    text[after:bracket],
                    text[bracket + 1 : close].strip(" \t"),
                )
                pos = close + 3
                continue
        pos = m.start() + 1  # not a directive here; look again one character on


def _find(text: str, needle: str, start: int, n: int) -> int:
    i = text.find(needle, start)
    return n if i < 0 else i


def _python(source: Source) -> list[Directive]:
    import io
    import tokenize

    out: list[Directive] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source.text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return out  # DC001 reports a file that does not parse
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        m = _PYTHON.match(tok.string)
        if m:
            pos = Position(source.path, tok.start[0], tok.start[1] + 1)
            out.append(Directive(pos, m.group(1) == "ignore-file", _codes(m.group(2)), m.group(3)))
    return out

"""Suppression comments: `<!-- drift-check: ignore[DC101] reason -->` in Markdown and
`# drift-check: ignore[DC101] reason` in Python, or `ignore-file[...]` for a whole file.

A directive inside a fenced block or a code span is text, not a directive; in Python only a
real comment counts (found with the tokenizer, never by running anything).
"""

import re

from drift_check.facts import Directive, Position, Source

_MARKDOWN = re.compile(
    r"<!--[ \t]*drift-check:[ \t]*(ignore-file|ignore)\[([^\]\n]*)\][ \t]*(.*?)[ \t]*-->"
)
_PYTHON = re.compile(r"#[ \t]*drift-check:[ \t]*(ignore-file|ignore)\[([^\]\n]*)\][ \t]*(.*)$")


def _codes(raw: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in raw.split(",") if c.strip())


def find_directives(source: Source) -> list[Directive]:
    text = source.text
    if "drift-check:" not in text:
        return []
    if source.path.endswith(".py"):
        return _python(source)
    from drift_check.scanners.markdown import scan

    fenced = [(f.open_line, f.close_line or 1 << 30) for f in scan(text).fences]
    out = []
    for m in _MARKDOWN.finditer(text):
        pos = source.position(m.start())
        if any(lo <= pos.line <= hi for lo, hi in fenced):
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        if text.count("`", line_start, m.start()) % 2:
            continue  # inside a code span
        out.append(Directive(pos, m.group(1) == "ignore-file", _codes(m.group(2)), m.group(3)))
    return out


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

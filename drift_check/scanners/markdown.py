"""A line scan of Markdown fences and ATX headings with CommonMark semantics.

A full Markdown parse costs more than the whole check; the facts drift-check needs (which
headings sit inside which fenced blocks, and which fence is left open) come from the lines
that start with a fence run or a `#`. `tests/test_markdown_property.py` checks that this scan
agrees with markdown-it-py on generated documents.

One deliberate difference: an indented fence opener is still a fence (agent prompts nest
return templates in list items, where CommonMark would also see a fence), so indentation is
not limited to three spaces as it is for a fence at the top level of a document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Lines that can matter: a fence run or a heading, after any indentation.
_CANDIDATE = re.compile(r"^([ \t]*)(`{3,}|~{3,}|#{1,6}(?=[ \t]|$))(.*)$", re.M)
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")


@dataclass(frozen=True, slots=True)
class HeadingLine:
    line: int
    column: int
    level: int
    text: str
    in_fence: bool


@dataclass(frozen=True, slots=True)
class FenceSpan:
    open_line: int
    close_line: int | None  # None: the fence runs to the end of the file
    char: str
    length: int
    indent: int


@dataclass(frozen=True, slots=True)
class MarkdownScan:
    headings: tuple[HeadingLine, ...]
    fences: tuple[FenceSpan, ...]

    @property
    def unclosed(self) -> FenceSpan | None:
        if self.fences and self.fences[-1].close_line is None:
            return self.fences[-1]
        return None


def _indent_width(ws: str) -> int:
    width = 0
    for ch in ws:
        width += 4 - (width % 4) if ch == "\t" else 1
    return width


def heading_text(rest: str) -> str:
    """The content of an ATX heading from the text after its `#` run."""
    text = rest.strip(" \t")
    return _CLOSING_HASHES.sub("", text).strip(" \t") if text.endswith("#") else text


def scan(text: str) -> MarkdownScan:
    """Fences and headings of `text` (lines separated by `\\n`), with 1-based positions."""
    headings: list[HeadingLine] = []
    fences: list[FenceSpan] = []
    open_fence: tuple[int, str, int, int] | None = None  # line, char, length, indent
    last_end = 0
    line = 1
    for m in _CANDIDATE.finditer(text):
        line += text.count("\n", last_end, m.start())
        last_end = m.start()
        ws, run, rest = m.group(1), m.group(2), m.group(3)
        indent = _indent_width(ws)
        if run[0] in "`~":
            if open_fence is None:
                if run[0] == "`" and "`" in rest:
                    continue  # an inline code span, not a fence opener
                open_fence = (line, run[0], len(run), indent)
            elif run[0] == open_fence[1] and len(run) >= open_fence[2] and not rest.strip(" \t"):
                fences.append(FenceSpan(open_fence[0], line, open_fence[1], open_fence[2], indent))
                open_fence = None
            continue
        level = len(run)
        if open_fence is None:
            if indent >= 4:
                continue
            headings.append(HeadingLine(line, len(ws) + 1, level, heading_text(rest), False))
        else:
            # Inside a fence the opener's indentation is removed first (CommonMark).
            if indent - open_fence[3] >= 4:
                continue
            headings.append(HeadingLine(line, len(ws) + 1, level, heading_text(rest), True))
    if open_fence is not None:
        fences.append(FenceSpan(open_fence[0], None, open_fence[1], open_fence[2], open_fence[3]))
    return MarkdownScan(tuple(h for h in headings if h.text), tuple(fences))

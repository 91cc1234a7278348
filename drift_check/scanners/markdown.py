"""A line scan of Markdown fences and ATX headings with CommonMark semantics.

A full Markdown parse costs more than the whole check; the facts drift-check needs (which
headings sit inside which fenced blocks, and which fence is left open) come from the lines
that start with a fence run or a `#`. `tests/scanners/test_markdown_property.py` checks that
this scan agrees with markdown-it-py on generated documents.

Containers are followed as far as fences need them: a fence may open on a list-item or
block-quote line (`- ```markdown`, `> ````), and its closer counts only if it is indented
less than four columns past the opener. One deliberate difference: an indented fence opener
is still a fence (agent prompts nest return templates in list items, where CommonMark would
also see a fence), so indentation is not limited to three spaces as it is for a fence at the
top level of a document.
"""

import bisect
import re
from collections import OrderedDict
from collections.abc import Iterator
from functools import lru_cache

from drift_check.facts import InputProblem, Position, Source
from drift_check.records import NamedTuple
from drift_check.scanners.patterns import lazy


# Lines that can matter: a fence run or a heading, after any indentation and any list-item
# or block-quote markers. The leading newline is a literal prefix the regex engine searches
# for quickly; `scan` prepends one.
#
# The container markers are an atomic group and the indentation after them possessive: the
# spaces between markers can be split between a marker's trailing `[ \t]+` (or `>`'s `[ \t]?`)
# and the next marker's `[ \t]{0,3}` in several ways, so on a line of markers that is not a
# candidate (`- - - - ... x`, `> > > ... x`) backtracking would try every split, 2**n or
# 4**n of them. No split can help: a fence or heading run never starts with a container
# character or a blank, so the greedy first try is the only one that can succeed, and the
# groups match exactly what backtracking ones would
# (`tests/robustness/test_hostile_patterns.py`).
@lru_cache(maxsize=6)
def _candidates(max_level: int) -> re.Pattern[str]:
    # max_level 0: fences only (a heading never opens or closes one)
    hashes = "#{1,%d}" % max_level if max_level else "(?!)"  # noqa: UP031 (braces need escaping)
    # The look-ahead turns away, before the slower part, a line whose first character after
    # the characters container markers and blanks are made of is not a run's first.
    first = r"\n(?=[ \t>*+\d.)-]*+[#`~])" if max_level else r"\n(?=[ \t>*+\d.)-]*+[`~])"
    return re.compile(
        first + r"((?>(?:[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+|[ \t]{0,3}>[ \t]?)*))([ \t]*+)"
        r"(`{3,}|~{3,}|" + hashes + r"(?=[ \t\n]|\Z))([^\n]*)"
    )


_CONTAINER_MARK = lazy(r"[^ \t]")
# A closing `#` run: tried only where a run of blanks starts (the look-behind), and possessive,
# so a long run of blanks before something other than `#`s is not rescanned from each blank.
_CLOSING_HASHES = lazy(r"(?:^|(?<![ \t])[ \t]++)#++[ \t]*+$")


class HeadingLine(NamedTuple):
    line: int
    column: int
    level: int
    text: str
    in_fence: bool
    offset: int  # where the heading's line starts in the text


class FenceSpan(NamedTuple):
    open_line: int
    close_line: int | None  # None: the fence runs to the end of the file
    char: str
    length: int
    indent: int
    column: int  # of the opening run
    info: str = ""  # the info string after the opening run (`markdown`, `bash`, ...)
    close_end: int = -1  # where the closing line ends in the text (its `\n`); -1: none


class MarkdownScan(NamedTuple):
    headings: tuple[HeadingLine, ...]
    fences: tuple[FenceSpan, ...]
    fence_opens: tuple[int, ...] = ()  # each fence's opening line, for `in_fence`

    @property
    def unclosed(self) -> FenceSpan | None:
        if self.fences and self.fences[-1].close_line is None:
            return self.fences[-1]
        return None

    def in_fence(self, line: int) -> bool:
        """Whether 1-based `line` lies in a fenced block, fence lines included (fences are
        in order and never nested, so one binary search finds the only candidate)."""
        return self.fence_at(line) is not None

    def fence_at(self, line: int) -> FenceSpan | None:
        """The fenced block 1-based `line` lies in, fence lines included."""
        i = bisect.bisect_right(self.fence_opens, line) - 1
        if i >= 0 and line <= (self.fences[i].close_line or 1 << 30):
            return self.fences[i]
        return None


def _indent_width(ws: str) -> int:
    width = 0
    for ch in ws:
        width += 4 - (width % 4) if ch == "\t" else 1
    return width


def _fence_lines(text: str) -> Iterator[re.Match[str]]:
    """The candidate matches of the lines that hold a ``` or ~~~ run: with no headings asked
    for, no other line can open or close a fence, and a `find` skips the rest."""
    pattern = _candidates(0)
    starts: set[int] = set()
    for run in ("```", "~~~"):
        i = text.find(run)
        while i >= 0:
            starts.add(text.rfind("\n", 0, i))
            end = text.find("\n", i)
            i = -1 if end < 0 else text.find(run, end)
    for start in sorted(starts):
        m = pattern.match(text, start)
        if m is not None:
            yield m


def heading_text(rest: str) -> str:
    """The content of an ATX heading from the text after its `#` run."""
    text = rest.strip()
    return _CLOSING_HASHES.sub("", text).strip() if text.endswith("#") else text


# Scans of the texts read in this run, by the text's identity (each scanner asks for the
# scan of a file it reads; several read one file), with the text kept so the id stays its own.
_scans: OrderedDict[int, tuple[str, dict[tuple[int, bool], MarkdownScan]]] = OrderedDict()
# Characters of text kept at most, the earliest scanned let go first, as the files' reader
# lets its texts go (`files.TEXT_BUDGET`): a text it read again is another object anyway, and
# the texts kept here would otherwise add a large tree's files to its peak memory.
_KEPT = 4 << 20
_kept = 0


def scan(text: str, max_level: int = 6, fenced_only: bool = False) -> MarkdownScan:
    """Fences and headings (up to `max_level`; 0 for fences only) of `text`, lines
    separated by `\\n`. `fenced_only`: only the headings inside fences (what an agent's
    emissions are), found by looking only at the lines of the fences.

    A text scanned before (the same object) is not scanned again: the fences do not depend
    on the headings asked for, and the headings of a full scan hold those of any other."""
    global _kept
    entry = _scans.get(id(text))
    if entry is None or entry[0] is not text:
        if entry is not None:  # the id of a text no longer alive
            _kept -= len(_scans.pop(id(text))[0])
        entry = _scans[id(text)] = (text, {})
        _kept += len(text)
        while _kept > _KEPT and len(_scans) > 1:
            _kept -= len(_scans.popitem(last=False)[1][0])
    known = entry[1]
    key = (max_level, fenced_only)
    found = known.get(key)
    if found is not None:
        return found
    full = known.get((6, False))
    if full is not None:
        found = _narrowed(full, max_level, fenced_only)
    elif not max_level and known:
        found = _narrowed(next(iter(known.values())), 0, False)
    else:
        found = _scan(text, max_level, fenced_only)
    known[key] = found
    return found


def forget() -> None:
    """Drop the scans kept (the end of a run: its texts may go)."""
    global _kept
    _scans.clear()
    _kept = 0


def _narrowed(full: MarkdownScan, max_level: int, fenced_only: bool) -> MarkdownScan:
    """What `_scan` gives for `max_level` and `fenced_only` from a scan that asked for
    more (every heading, or any headings for fences only)."""
    if not max_level:
        return MarkdownScan((), full.fences, full.fence_opens)
    headings = tuple(
        h for h in full.headings if h.level <= max_level and (h.in_fence or not fenced_only)
    )
    return MarkdownScan(headings, full.fences, full.fence_opens)


def _scan(text: str, max_level: int, fenced_only: bool) -> MarkdownScan:
    headings: list[HeadingLine] = []
    fences: list[FenceSpan] = []
    fence_line = fence_len = fence_indent = fence_column = 0
    fence_char = ""  # empty while no fence is open
    fence_quoted = False  # the open fence sits in a block quote
    fence_info = ""
    text = "\n" + text
    count = text.count
    last = 0
    line = 0
    opened = 0  # where the open fence's opening line ends
    if fenced_only or not max_level:
        lines = _fence_lines(text)
    else:
        lines = _candidates(max_level).finditer(text)
    for m in lines:
        start = m.start()  # the newline before the line: the line's offset in the real text
        line += count("\n", last, start + 1)
        last = start + 1
        container, ws, run, rest = m.groups()
        if container:
            if fence_char and (not fence_quoted or _has_list_marker(container)):
                continue  # inside a fence a list marker or a `>` is just text
            indent = _indent_width(_CONTAINER_MARK.sub(" ", container) + ws)
        else:
            indent = _indent_width(ws) if ws else 0
        column = len(container) + len(ws) + 1
        char = run[0]
        if char != "#":
            if not fence_char:
                if char == "`" and "`" in rest:
                    continue  # an inline code span, not a fence opener
                fence_line, fence_char, fence_len = line, char, len(run)
                fence_indent, fence_column = indent, column
                fence_quoted = ">" in container
                fence_info = rest.strip()
                opened = m.end()
            elif (
                char == fence_char
                and len(run) >= fence_len
                and indent - fence_indent < 4
                and not rest.strip(" \t")
            ):
                if fenced_only and max_level:
                    _fenced_headings(
                        text,
                        opened,
                        start,
                        fence_line,
                        fence_indent,
                        fence_quoted,
                        max_level,
                        headings,
                    )
                fences.append(
                    FenceSpan(
                        fence_line,
                        line,
                        fence_char,
                        fence_len,
                        fence_indent,
                        fence_column,
                        fence_info,
                        m.end() - 1,  # the text has a newline put before it
                    )
                )
                fence_char = ""
            continue
        # Inside a fence the opener's indentation is removed first (CommonMark).
        if indent - fence_indent >= 4 if fence_char else indent >= 4 and not container:
            continue
        title = heading_text(rest)
        if title:
            headings.append(HeadingLine(line, column, len(run), title, bool(fence_char), start))
    if fence_char:
        if fenced_only and max_level:
            _fenced_headings(
                text, opened, len(text), fence_line, fence_indent, fence_quoted, max_level, headings
            )
        fences.append(
            FenceSpan(
                fence_line, None, fence_char, fence_len, fence_indent, fence_column, fence_info
            )
        )
    return MarkdownScan(tuple(headings), tuple(fences), tuple(f.open_line for f in fences))


def _fenced_headings(
    text: str,
    start: int,
    end: int,
    line: int,
    indent_of_fence: int,
    quoted: bool,
    max_level: int,
    out: list[HeadingLine],
) -> None:
    """The headings on the lines of `text` (with `scan`'s leading newline) between offsets
    `start` and `end`: the inside of a fence opened on 1-based `line` at indentation
    `indent_of_fence` (in a block quote where `quoted`), as `scan` reads them there."""
    count = text.count
    last = start
    for m in _candidates(max_level).finditer(text, start, end):
        at = m.start()
        line += count("\n", last, at + 1)
        last = at + 1
        container, ws, run, rest = m.groups()
        if run[0] != "#":
            continue  # a fence run inside the fence: not its closer, and no heading
        if container:
            if not quoted or _has_list_marker(container):
                continue
            indent = _indent_width(_CONTAINER_MARK.sub(" ", container) + ws)
        else:
            indent = _indent_width(ws) if ws else 0
        if indent - indent_of_fence >= 4:
            continue
        title = heading_text(rest)
        if title:
            out.append(HeadingLine(line, len(container) + len(ws) + 1, len(run), title, True, at))


def unclosed_fence_problem(
    path: str, markdown: MarkdownScan, markers: bool, text: str = ""
) -> InputProblem | None:
    """The finding for the fence `markdown` leaves open, if any. `markers`: the file is an
    agent's or one it includes, where fenced headings are emitted markers. Given the file's
    `text`, a block that holds an opener of its own kind, where the fences first went out
    of step, is named."""
    fence = markdown.unclosed
    if fence is None:
        return None
    run = fence.char * fence.length
    swallowed = "look like emitted markers" if markers else "lose their anchors"
    cause = _out_of_step(text, markdown) if text and not fence.info else None
    if cause is not None:
        outer, nested, opener = cause
        advice = (
            f"the fences went out of step at line {outer.open_line}: the block opened there"
            f" holds {_code_span(opener)} (line {nested}), and the"
            f" {outer.char * outer.length} meant to close that one closed the outer block at"
            f" line {outer.close_line}; open the outer block with a longer run"
            f" ({outer.char * (outer.length + 1)})"
        )
    elif not fence.info and len(markdown.fences) > 1:
        # A bare run after other fences is most often a closer whose block a nested fence
        # (```bash inside ```markdown) already closed.
        advice = (
            f"if this {run} was meant to close a block, a fence nested in that block closed it"
            f" first: open the outer block with a longer run ({fence.char * (fence.length + 1)})"
        )
    else:
        advice = f"close it with {run}"
    after = text.split("\n", fence.open_line) if text else ()
    if text and (len(after) <= fence.open_line or not after[-1].strip()):
        # a stray run on the last line: nothing reads as code, but it shows an empty block
        what = f"code fence opened here is never closed, on the file's last line; {advice}"
        if advice.startswith("close"):
            what = "code fence opened here on the file's last line is never closed: remove it"
    else:
        what = (
            f"code fence opened here is never closed, so everything after line"
            f" {fence.open_line} reads as code (headings there {swallowed}); {advice}"
        )
    return InputProblem(Position(path, fence.open_line, fence.column), "fence", what)


# a fence opener with an info string (```bash), as it stands inside another block's text
_NESTED_OPENER = lazy(r"[ \t]*+(`{3,}+|~{3,}+)[ \t]*+([^\s`]\S*)")


def _code_span(text: str) -> str:
    """`text` as inline code, with a delimiter no run of backticks in it matches."""
    if "`" not in text:
        return f"`{text}`"
    runs = {len(r) for r in re.findall(r"`+", text)}
    tick = next(n for n in range(2, len(text) + 3) if n not in runs)
    return f"{'`' * tick} {text} {'`' * tick}"


def _out_of_step(text: str, markdown: MarkdownScan) -> tuple[FenceSpan, int, str] | None:
    """The first closed block whose text holds an opener of its own character and at least
    its length (```bash inside ```), with that opener's line and text: the run meant to
    close the nested block closed this one, and the fences after it pair up wrongly."""
    lines: list[str] | None = None
    for fence in markdown.fences:
        if fence.close_line is None:
            return None
        if fence.close_line - fence.open_line < 2:
            continue  # no room for a nested opener
        if lines is None:
            lines = text.split("\n")
        for number in range(fence.open_line + 1, fence.close_line):
            m = _NESTED_OPENER.match(lines[number - 1])
            if m and m.group(1)[0] == fence.char and len(m.group(1)) >= fence.length:
                return fence, number, m.group(1) + m.group(2)
    return None


def _has_list_marker(container: str) -> bool:
    return any(c not in " \t>" for c in container)


class Cursor:
    """Positions of a text's offsets, taken in increasing order, in one pass over the text.

    `Source.position` counts lines from the start of the text at every call, and a scanner
    that called it (or counted the backticks before a match on its line) for every match took
    time quadratic in the file for a file made of matches. An offset before the last one
    starts the count again from the top: exact, only slower.
    """

    def __init__(self, source: Source) -> None:
        self.path = source.path
        self.text = source.text
        self.offset = 0
        self.line = 1
        self.line_start = 0
        self.ticks = 0  # backticks in text[line_start:offset]

    def _advance(self, offset: int) -> None:
        text = self.text
        if offset < self.offset:
            self.offset = self.line_start = self.ticks = 0
            self.line = 1
        newlines = text.count("\n", self.offset, offset)
        if newlines:
            self.line += newlines
            self.line_start = text.rfind("\n", self.offset, offset) + 1
            self.ticks = text.count("`", self.line_start, offset)
        else:
            self.ticks += text.count("`", self.offset, offset)
        self.offset = offset

    def position(self, offset: int) -> Position:
        self._advance(offset)
        return Position(self.path, self.line, offset - self.line_start + 1)

    def in_code_span(self, offset: int) -> bool:
        """An odd number of backticks before `offset` on its line: inside an inline code span."""
        self._advance(offset)
        return self.ticks % 2 == 1

"""The fence/heading line scan agrees with markdown-it-py (CommonMark) on generated documents.

Documents are built from a grammar of lines: blank lines, prose, ATX headings (levels 1-6,
0-3 spaces of indentation, optional closing `#`s), fence openers and closers (backticks or
tildes, runs of 3-5, optional info strings) and lines meant to sit inside fences. Fence
lines stay within 0-3 spaces of indentation: the scanner deliberately also treats deeper
indented openers as fences (see its module docstring), CommonMark does not.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from drift_check.scanners.markdown import _scan, forget, scan

pytestmark = pytest.mark.slow  # hypothesis against markdown-it-py

MD = MarkdownIt("commonmark")


# --- what markdown-it says ------------------------------------------------------------------


class Expected(NamedTuple):
    headings: set[tuple[int, str]]  # (1-based line, text) of ATX headings outside fences
    fences: list[tuple[int, int | None]]  # (open line, close line or None), 1-based
    fenced_headings: set[tuple[int, str]]  # headings in fence contents (not nested fences)
    nested_headings: set[tuple[int, str]]  # the same, also inside fences nested in those


def _closes(line: str, char: str, length: int) -> bool:
    m = re.fullmatch(r" {0,3}(%s{%d,})[ \t]*" % (re.escape(char), length), line)  # noqa: UP031
    return m is not None


def _atx_headings(tokens: list, offset: int) -> set[tuple[int, str]]:
    out = set()
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.markup.startswith("#"):
            inline = tokens[i + 1]
            if inline.content:  # an empty heading is never a marker; the scanner skips it
                out.add((offset + tok.map[0] + 1, inline.content))
    return out


def _expand(line: str) -> str:
    """The line with its leading spaces and tabs expanded to spaces (tab stops of 4)."""
    ws = line[: len(line) - len(line.lstrip(" \t"))]
    return ws.expandtabs(4) + line[len(ws) :]


def _fenced_headings(
    tokens: list, lines: list[str], offset: int, depth: int = 1
) -> set[tuple[int, str]]:
    """Headings inside fence contents, parsed as Markdown, down to `depth` nested fences.

    The content is re-parsed as a document of its own: its lines, with tabs in their
    indentation expanded at their real columns and the opener's indentation removed.
    """
    out: set[tuple[int, str]] = set()
    for tok in tokens:
        if tok.type != "fence":
            continue
        start, end = tok.map
        opener = _expand(lines[start])
        indent = len(opener) - len(opener.lstrip(" "))
        closed = end - 1 > start and _closes(lines[end - 1], tok.markup[0], len(tok.markup))
        content = []
        for raw in lines[start + 1 : end - 1 if closed else end]:
            line = _expand(raw)
            strip = min(indent, len(line) - len(line.lstrip(" ")))
            content.append(line[strip:])
        inner = MD.parse("\n".join(content))
        out |= _atx_headings(inner, offset + start + 1)
        if depth > 1:
            out |= _fenced_headings(inner, content, offset + start + 1, depth - 1)
    return out


def expected(text: str) -> Expected:
    tokens = MD.parse(text)
    lines = text.split("\n")
    fences: list[tuple[int, int | None]] = []
    for tok in tokens:
        if tok.type != "fence":
            continue
        start, end = tok.map
        last = end - 1
        closed = last > start and _closes(lines[last], tok.markup[0], len(tok.markup))
        fences.append((start + 1, end if closed else None))
    return Expected(
        _atx_headings(tokens, 0),
        fences,
        _fenced_headings(tokens, lines, 0),
        _fenced_headings(tokens, lines, 0, depth=10),
    )


def check_agrees(text: str) -> None:
    got = scan(text)
    want = expected(text)
    lines = text.split("\n")

    # (a) headings outside fences
    outside = {(h.line, h.text) for h in got.headings if not h.in_fence}
    assert outside == want.headings

    # (b) fenced lines: the same fence spans, fenced headings inside them; the same fences
    # when headings are not asked for
    spans = [(f.open_line, f.close_line) for f in got.fences]
    assert spans == want.fences
    assert _scan(text, 0, False) == got._replace(headings=())
    inside = set()
    for start, end in want.fences:
        inside.update(range(start + 1, (end if end is not None else len(lines) + 1)))
    fenced = {(h.line, h.text) for h in got.headings if h.in_fence}
    assert {line for line, _ in fenced} <= inside
    # Every heading of a fence's content is found. A fence nested in a fence is content to
    # the scanner (it only looks for the outer closer), and its headings are found when
    # indented less than 4 columns from the outer opener: a subset of what re-parsing the
    # nested fence finds (it removes the nested opener's indentation too).
    assert want.fenced_headings <= fenced <= want.nested_headings

    # (c) an unterminated fence is the last one, and only when markdown-it ran it to the end
    last_open = bool(want.fences) and want.fences[-1][1] is None
    assert (got.unclosed is not None) == last_open
    if got.unclosed is not None:
        assert got.unclosed.open_line == want.fences[-1][0]

    # positions: the column points at the `#` run (or fence run), the offset at the line's start
    for f in got.fences:
        assert lines[f.open_line - 1][f.column - 1 :].startswith(f.char * f.length)
    for h in got.headings:
        assert lines[h.line - 1][h.column - 1] == "#"
        assert text[h.offset :].split("\n", 1)[0] == lines[h.line - 1]


# --- the grammar ----------------------------------------------------------------------------

INDENT = st.sampled_from(["", " ", "  ", "   "])
# Indentation of lines inside fences may go deeper (and use tabs): content, not fences.
DEEP_INDENT = st.sampled_from(["", " ", "  ", "   ", "    ", "      ", "\t", " \t", "  \t"])
WORD = st.text(
    alphabet=st.sampled_from([*"abcXYZ019_:()*-.!?é⚠中#\\`~"]),
    min_size=1,
    max_size=8,
)
SPACE = st.sampled_from([" ", "  ", "\t", " \t"])


@st.composite
def words(draw: st.DrawFn, min_size: int = 1) -> str:
    parts = draw(st.lists(WORD, min_size=min_size, max_size=4))
    out = ""
    for i, part in enumerate(parts):
        out += (draw(SPACE) if i else "") + part
    return out


@st.composite
def prose(draw: st.DrawFn) -> str:
    # Starts with a letter: no list, block quote, HTML block, table or setext underline.
    first = draw(st.sampled_from(["Some", "text", "See", "#hashtag", "Return", "x"]))
    rest = draw(st.one_of(st.just(""), words().map(lambda w: " " + w)))
    if first == "x":
        return "x#" + rest
    return first + rest


@st.composite
def heading(draw: st.DrawFn, indent: st.SearchStrategy[str] = INDENT) -> str:
    level = draw(st.integers(1, 7))  # 7 is not a heading
    out = draw(indent) + "#" * level
    if draw(st.booleans()):
        out += draw(SPACE) + draw(words())
    if draw(st.booleans()):
        out += draw(st.sampled_from(["", " "])) + " " + "#" * draw(st.integers(1, 3))
    return out + draw(st.sampled_from(["", "", " ", "\t"]))


def info_string(char: str) -> st.SearchStrategy[str]:
    plain = st.sampled_from(["", "", "markdown", " markdown", "json title", "md {x}"])
    if char == "~":
        return st.one_of(plain, st.sampled_from(["a`b", " ~~", "`x`"]))
    return st.one_of(plain, st.sampled_from(["a`b", " `x`"]))  # a backtick: not a fence


@st.composite
def fence_line(draw: st.DrawFn) -> str:
    char = draw(st.sampled_from(["`", "~"]))
    out = draw(INDENT) + char * draw(st.integers(3, 5))
    if draw(st.booleans()):
        out += draw(info_string(char))
    else:
        out += draw(st.sampled_from(["", "", " ", "  ", "\t"]))  # a possible closer
    return out


@st.composite
def inside_line(draw: st.DrawFn) -> str:
    return draw(
        st.one_of(
            heading(DEEP_INDENT),
            heading(DEEP_INDENT),
            prose(),
            st.sampled_from(["", "```", "``", "~~", "**Reason:** {why}", "| a | b |"]),
        )
    )


@st.composite
def fenced_block(draw: st.DrawFn) -> list[str]:
    """An opener, content lines, and usually a closer (of any length 3-5, maybe too short)."""
    char = draw(st.sampled_from(["`", "~"]))
    length = draw(st.integers(3, 5))
    opener = draw(INDENT) + char * length + draw(info_string(char))
    body = draw(st.lists(inside_line(), max_size=5))
    closer: list[str] = []
    if draw(st.integers(0, 4)):
        run = char * draw(st.integers(max(3, length - 1), 5))  # sometimes one too short
        closer = [draw(INDENT) + run + draw(st.sampled_from(["", " "]))]
    return [opener, *body, *closer]


LINE = st.one_of(
    st.sampled_from(["", "", " ", "\t"]),
    prose(),
    heading(),
    heading(),
    fence_line(),
    inside_line(),
)
BLOCK = st.one_of(LINE.map(lambda line: [line]), fenced_block())


@st.composite
def documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(BLOCK, max_size=14))
    text = "\n".join(line for block in blocks for line in block)
    return text + draw(st.sampled_from(["", "\n", "\n\n"]))


# --- the property ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(documents())
@example("````\n```\n## IN\n```\n## STILL IN\n````\n## OUT\n")
@example("```\n## A\n")
@example("~~~ a`b\n## A\n~~~\n")
@example("   ```\n  ## A\n      ## B\n   ```\n")
def test_scan_agrees_with_markdown_it(text: str) -> None:
    check_agrees(text)


# --- hand-written cases ---------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(documents())
def test_the_fences_only_scan_finds_the_same_fences(text: str) -> None:
    """`scan(text, 0)` (what DC005 runs on every Markdown file) skips headings only."""
    full, fences = _scan(text, 6, False), _scan(text, 0, False)
    assert fences.fences == full.fences
    assert fences.headings == ()


@settings(max_examples=400, deadline=None)
@given(documents(), st.integers(1, 6))
@example("> ```\n> # in\n# out\n```\n", 6)
@example("- ```\n  - # item\n  # x\n      # deep\n```", 2)
@example("~~~\n```\n## A\n```\n~~~\n## B\n````\n#\n# C #\n", 6)
def test_the_fenced_only_scan_finds_the_same_fenced_headings(text: str, level: int) -> None:
    """`scan(text, fenced_only=True)` (what an agent's emissions need) looks only at the
    lines of the fences, and finds what the full scan finds there."""
    full, fenced = _scan(text, level, False), _scan(text, level, True)
    assert fenced.fences == full.fences
    assert fenced.headings == tuple(h for h in full.headings if h.in_fence)


MODES = [(0, False), (2, False), (6, False), (2, True), (6, True), (0, True)]


@settings(max_examples=300, deadline=None)
@given(documents(), st.permutations(MODES))
@example("- ```\n  - # item\n  # x\n      # deep\n```", MODES)
@example("> ```\n> # in\n# out\n```\n", MODES[::-1])
def test_a_text_scanned_again_gets_what_a_new_scan_gives(
    text: str, modes: list[tuple[int, bool]]
) -> None:
    """A text's scans are kept for the run and narrowed for a later ask (fewer heading
    levels, fenced headings only, fences only): each is what scanning anew gives."""
    forget()
    for level, fenced_only in modes:
        assert scan(text, level, fenced_only) == _scan(text, level, fenced_only)
    forget()


def test_four_backtick_fence_contains_three_backtick_fence() -> None:
    text = "````markdown\n```\n## INNER\n```\n## OUTER\n````\n## PROSE\n"
    check_agrees(text)
    got = scan(text)
    assert [(f.open_line, f.close_line, f.length) for f in got.fences] == [(1, 6, 4)]
    assert [(h.line, h.text, h.in_fence) for h in got.headings] == [
        (3, "INNER", True),
        (5, "OUTER", True),
        (7, "PROSE", False),
    ]
    assert got.unclosed is None


def test_backtick_info_string_with_backtick_is_not_a_fence() -> None:
    text = "```a`b\n## NOT FENCED\n```\n"
    check_agrees(text)
    got = scan(text)
    assert [(h.text, h.in_fence) for h in got.headings] == [("NOT FENCED", False)]
    # the third line opens a fence that is never closed
    assert got.unclosed is not None and got.unclosed.open_line == 3


def test_tilde_info_string_may_contain_backticks() -> None:
    text = "~~~ a`b`\n## FENCED\n~~~\n"
    check_agrees(text)
    assert [h.in_fence for h in scan(text).headings] == [True]


def test_hashtag_is_not_a_heading() -> None:
    text = "#hashtag\n##NOSPACE\n# real\n"
    check_agrees(text)
    assert [(h.line, h.text) for h in scan(text).headings] == [(3, "real")]


def test_shorter_or_other_fence_does_not_close() -> None:
    text = "````\n```\n~~~~\n## IN\n`````\n## OUT\n"
    check_agrees(text)
    got = scan(text)
    assert [(f.open_line, f.close_line) for f in got.fences] == [(1, 5)]
    assert [(h.text, h.in_fence) for h in got.headings] == [("IN", True), ("OUT", False)]


def test_closer_with_info_string_does_not_close() -> None:
    text = "```\n## IN\n``` markdown\n## STILL IN\n"
    check_agrees(text)
    got = scan(text)
    assert got.unclosed is not None and got.unclosed.open_line == 1
    assert all(h.in_fence for h in got.headings)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("#\tTab after hashes\n", [(1, "Tab after hashes", False)]),  # a tab separates
        ("\t# tab-indented\n", []),  # a tab is 4 columns: indented code
        (" \t# space+tab\n", []),  # still 4 columns
        ("# title\t#\t\n", [(1, "title", False)]),  # tabs around the closing sequence
        ("```\n\t## in fence\n```\n", []),  # 4 columns inside the fence too: content
        ("  ```\n\t## in fence\n  ```\n", [(2, "in fence", True)]),  # 2 removed, 2 left
    ],
)
def test_tabs(text: str, want: list[tuple[int, str, bool]]) -> None:
    check_agrees(text)
    assert [(h.line, h.text, h.in_fence) for h in scan(text).headings] == want


def test_closing_hashes() -> None:
    text = "## A ##\n## B#\n## C \\##\n### ###\n#\n"
    check_agrees(text)
    assert [h.text for h in scan(text).headings] == ["A", "B#", "C \\##"]


def test_indented_code_block_heading_is_not_a_heading() -> None:
    text = "para\n\n    # code\n"
    check_agrees(text)
    assert scan(text).headings == ()


def test_indented_opener_is_a_fence_by_design() -> None:
    """The documented deviation: a fence nested in a list item (indented 4+) still counts."""
    text = "1. Return:\n\n    ```markdown\n    ## DONE\n    ```\n"
    got = scan(text)
    assert [(h.text, h.in_fence) for h in got.headings] == [("DONE", True)]
    assert got.unclosed is None


def test_closer_indented_four_spaces_does_not_close_top_level_fence() -> None:
    check_agrees("```\n## A\n    ```\n## B\n```\n")


def test_heading_text_with_trailing_no_break_space() -> None:
    check_agrees("## PLAN COMPLETE\u00a0\n")


@pytest.mark.parametrize(
    "text",
    [
        "- ```markdown\n  ## DONE\n  ```\n\n## Prose\n",
        "1. ```markdown\n   ## DONE\n   ```\n\n## Prose\n",
        "> ```markdown\n> ## DONE\n> ```\n\n## Prose\n",
    ],
)
def test_fence_opened_on_a_container_line(text: str) -> None:
    got = scan(text)
    assert [(h.text, h.in_fence) for h in got.headings] == [("DONE", True), ("Prose", False)]
    assert got.unclosed is None

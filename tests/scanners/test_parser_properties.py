"""Properties of the parsers, on random text and on what the fixers print.

1. Random text (control characters, CR, NUL, lone combining marks, long lines, the syntax
   characters of each format) never makes the registry parser, the fence/heading scanner,
   the suppression-comment parser or the frontmatter reader raise anything but the project's
   own errors, and what they return points inside the text.
2. Parse, print, parse again is stable wherever a fixer relies on it: registry rows printed
   cell by cell (`_aligned_row`, used for the DC103 row), a marker added to or removed from a
   row (DC201/DC202), a `Consumed by` cell rewritten (DC303/DC304), a heading respelled
   (DC204), `name:` set in frontmatter (DC602/DC503), and suppression comments printed
   from the codes they hold (as DC010 quotes them).

`tests/scanners/test_registry_parser.py`, `tests/scanners/test_markdown_property.py` and
`tests/scanners/test_frontmatter_property.py` check what these parsers find on well-formed input
(the scanner against markdown-it-py, the frontmatter fast path against ruamel.yaml); this
file checks what they do on anything else, and what happens to what the fixers write.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.config import ConfigError
from drift_check.facts import Agent, Emission, Position, Registry, RegistryRow, Source
from drift_check.fixes.edits import (
    _aligned_row,
    add_row,
    add_to_row,
    remove_from_row,
    replace_text,
    rewrite_consumed_by,
    set_frontmatter_value,
    yaml_scalar,
)
from drift_check.rules.base import Edit, Fix
from drift_check.scanners.directives import find_directives
from drift_check.scanners.frontmatter import frontmatter_names, read_frontmatter, simple_yaml
from drift_check.scanners.markdown import heading_text, scan
from drift_check.scanners.registry import (
    Cell,
    parse_marker_cell,
    parse_registry,
    split_row,
)
from drift_check.yaml_loader import YamlError, safe_load

pytestmark = pytest.mark.slow  # hypothesis runs

PROJECT_ERRORS = (YamlError, ConfigError)  # anything else escaping a parser is a bug
PATH = "gsd-core/references/agent-contracts.md"
HEADING = "## Agent Registry"
HEADER = "| Agent | Role | Completion Markers | Consumed by | Kind |"
PROPERTY = settings(max_examples=200, deadline=None)


def survive(parse: Callable[[], Any]) -> Any:
    """What `parse` returns; None if it raised one of the project's errors (anything else
    is raised on, and fails the test)."""
    try:
        return parse()
    except PROJECT_ERRORS:
        return None


def apply(text: str, edits: tuple[Edit, ...]) -> str:
    """`text` with one-line edits applied (columns 1-based, the end just after the last)."""
    lines = text.split("\n")
    for e in sorted(edits, reverse=True):
        assert e.line == e.end_line and e.column <= e.end_column
        line = lines[e.line - 1]
        lines[e.line - 1] = line[: e.column - 1] + e.text + line[e.end_column - 1 :]
    return "\n".join(lines)


def edits_of(fix: Fix | None) -> tuple[Edit, ...]:
    assert fix is not None
    return fix.resolve()


# --- random text ----------------------------------------------------------------------------

TRICKY = [
    *"\x00\r\t\x0b\x0c\x1b\x1c\x7f\x85\u2028\u2029\ufeff\u200b\u00a0",
    "\r\n",
    "\u0301",  # a combining accent with nothing to combine with
    "\u0301\u0301\u0301",
    "é",
    "中",
    "\U0001f600",
    *"|`#()[],\\:-~>*+!?'\"<",
    "\\|",
    "```",
    "~~~",
    "## ",
    "---",
    "> ",
    "- ",
    "1. ",
    "<!--",
    "-->",
    "drift-check:",
    " ignore[",
    "ignore-file[",
    "DC1",
    "No marker",
    "(unconsumed: x)",
    "`## A`",
    "name: x",
    "  - x",
    "\n",
    "\n\n",
    " ",
    "    ",
]
CHUNK = st.one_of(st.text(max_size=12), st.sampled_from(TRICKY))
# A long line, or none: a run of one character somewhere among the chunks.
LONG = st.one_of(
    st.just(""),
    st.builds(
        lambda unit, n: unit * n,
        st.sampled_from(["a", " ", "#", "|", "`", "-", "(", "é"]),
        st.integers(300, 3000),
    ),
)
TEXT = st.builds(
    lambda chunks, long, at: "".join([*chunks[:at], long, *chunks[at:]]),
    st.lists(CHUNK, max_size=30),
    LONG,
    st.integers(0, 30),
)


def registry_text(noise: str, table: str) -> str:
    return noise + "\n" + HEADING + "\n\n" + table


@PROPERTY
@given(TEXT, TEXT, st.sampled_from([HEADING, "Agent Registry", "#", "", "\x00", "## é\u0301"]))
@example("", "| Agent | Completion Markers |\n| a | `## A` (x), `## B`,, No marker |\n", HEADING)
@example("", "| Agent | Completion Markers |\n|\x85a\x85|\x85(|\n", HEADING)
def test_registry_parser_never_raises(noise: str, table: str, heading: str) -> None:
    text = registry_text(noise, table)
    result = survive(lambda: parse_registry(Source(PATH, text), heading))
    if result is None:
        return
    reg, problems = result
    lines = text.split("\n")
    for p in problems:
        assert 1 <= p.position.line <= len(lines) and p.position.column >= 1
    if reg is None:
        return
    for row in reg.rows:
        assert row.line_text == lines[row.position.line - 1]
        # the columns the fixers edit by: each marker entry, re-read alone, is that marker
        for m in row.markers:
            entry = row.line_text[m.position.column - 1 : m.end_column - 1]
            [again] = parse_marker_cell(Cell(entry, m.position.column), PATH, m.position.line)
            assert again == m
        start, end = row.markers_cell
        cell = Cell(row.line_text[start - 1 : end - 1], start)
        assert parse_marker_cell(cell, PATH, row.position.line) == list(row.markers)


@PROPERTY
@given(TEXT, st.integers(1, 6))
@example("- > 1) ```\n\x00## A\n```", 6)
@example("\u0301# A #\n```\r\n## B\n", 2)
def test_scanner_never_raises_and_is_consistent(text: str, max_level: int) -> None:
    md = survive(lambda: scan(text, max_level))
    if md is None:
        return
    lines = text.split("\n")
    # fences are in order and never nest; only the last may be open (the suppression and
    # link scanners look fences up by bisection and rely on this)
    previous = 0
    for f in md.fences:
        assert f.open_line > previous
        assert f.close_line is None or f.close_line > f.open_line
        assert lines[f.open_line - 1][f.column - 1 :].startswith(f.char * f.length)
        previous = f.close_line if f.close_line is not None else len(lines) + 1
    assert all(f.close_line is not None for f in md.fences[:-1])

    def fenced(line: int) -> bool:
        return any(f.open_line < line < (f.close_line or len(lines) + 1) for f in md.fences)

    for h in md.headings:
        line = lines[h.line - 1]
        assert text[h.offset :].split("\n", 1)[0] == line
        assert line[h.column - 1 :].startswith("#" * h.level)
        assert 1 <= h.level <= max_level
        assert h.text and h.text == h.text.strip()
        assert h.in_fence == fenced(h.line)
    for n in range(1, len(lines) + 2):  # `in_fence` counts the fence lines themselves
        inside = any(f.open_line <= n <= (f.close_line or 1 << 30) for f in md.fences)
        assert md.in_fence(n) == inside


@PROPERTY
@given(TEXT, st.sampled_from(["a.md", "hook.py"]))
@example("<!-- drift-check: ignore[dc1,, DC2 ] why -->", "a.md")
@example("x = 1  # drift-check: ignore[DC1] \x00", "hook.py")
@example("'''\n# drift-check: ignore[DC1]", "hook.py")
@example("\x00# drift-check: ignore[A]\n\tx\n  y", "hook.py")
def test_suppression_parser_never_raises(text: str, path: str) -> None:
    text = "drift-check: " + text  # parsed at all only when the prefix is in the file
    found = survive(lambda: find_directives(Source(path, text)))
    if found is None:
        return
    lines = text.split("\n")
    for d in found:
        line = lines[d.position.line - 1]
        assert line[d.position.column - 1 :].startswith("#" if path.endswith(".py") else "<!--")
        assert "\n" not in d.reason
        if path.endswith(".md"):  # a Markdown directive closes on its own line
            assert "-->" in line[d.position.column - 1 :]
        for c in d.codes or ():
            assert c.name and c.name == c.name.strip() and "," not in c.name and "]" not in c.name
            assert c.position.line == d.position.line
            assert line[c.position.column - 1 :].upper().startswith(c.name)


@PROPERTY
@given(TEXT, st.booleans())
@example("name: a\n  - b\nskills:\n  - \x00\n", True)
@example("k: [\u2028]", True)
@example("tools: Read, \u0301Write\n", False)
@example("\r\r\r'", True)  # the parser's lines end at a `\r` too; a problem's line must not
def test_frontmatter_reader_never_raises(body: str, closed: bool) -> None:
    text = "---\n" + body + ("\n---\n# Agent\n" if closed else "")
    source = Source("agents/a.md", text)
    fm = survive(lambda: read_frontmatter(source))
    assert fm is not None  # stricter: invalid YAML is a reported problem, never an exception
    n_lines = text.count("\n") + 1
    assert all(1 <= line <= n_lines for line in fm.key_lines.values())
    if fm.problem is not None:
        assert fm.data is None
        assert 1 <= fm.problem.position.line <= n_lines and fm.problem.position.column >= 1
    if fm.data is not None:
        assert isinstance(fm.data, dict)
        for key in ("tools", "skills"):
            names = frontmatter_names(source, fm.data, fm.key_lines, key)
            for named in names or ():
                assert 1 <= named.position.line <= n_lines
    survive(lambda: simple_yaml(body))


# --- registry rows: parse, print, parse ----------------------------------------------------

CELL_PARTS = st.sampled_from(
    [
        *"abcXYZ019 _-:.,/#()`\\|*!?'\"\t<>",
        *["é", "中", "\u0301", "\x1b", "\x00", "\u00a0", "\x85"],
        *["No marker", "unconsumed", "## ", ".md", ".py", "\\|", "`## A`", " (x)", "`a/b.md`"],
    ]
)
CELL = st.lists(CELL_PARTS, max_size=10).map("".join)


def texts(cells: list[Cell]) -> list[str]:
    return [c.text for c in cells]


@PROPERTY
@given(st.lists(CELL, min_size=1, max_size=6), st.booleans())
@example(["a", "b (", "c"], False)
@example(["a \\", "b"], True)
@example(["`x", "y|z"], True)
def test_row_cells_survive_print_and_parse(cells: list[str], aligned: bool) -> None:
    line = "| " + " | ".join(cells) + " |"
    first = split_row(line)
    for c in first:  # the columns fixers edit by point at the cell's text
        assert line[c.column - 1 : c.column - 1 + len(c.text)] == c.text
    model = "|" + "|".join(["      "] * len(first)) + "|"
    printed = _aligned_row(texts(first), [model, model] if aligned else [model, "|"])
    assert printed.endswith("|\n")
    assert texts(split_row(printed[:-1])) == texts(first)


def row_facts(row: RegistryRow) -> tuple[Any, ...]:
    return (
        row.agent,
        [(m.text, m.annotation, m.unconsumed, m.unconsumed_reason) for m in row.markers],
        [c.path for c in row.consumed_by],
        row.kind,
    )


def table(rows: list[str]) -> str:
    body = "".join(r + "\n" for r in rows)
    return f"# Contracts\n\n{HEADING}\n\n{HEADER}\n|---|---|---|---|---|\n{body}\nAfter it.\n"


def parsed(text: str) -> Registry:
    reg, _ = parse_registry(Source(PATH, text), HEADING)
    assert reg is not None
    return reg


def problems_of(text: str) -> list[str]:
    return [p.message for p in parse_registry(Source(PATH, text), HEADING)[1]]


ROW = st.lists(CELL, min_size=5, max_size=5).map(lambda cells: "| " + " | ".join(cells) + " |")


@PROPERTY
@given(st.lists(ROW, min_size=1, max_size=5))
def test_registry_rows_survive_print_and_parse(rows: list[str]) -> None:
    text = table(rows)
    reg = parsed(text)
    lines = text.split("\n")
    for row in reg.rows:
        cells = texts(split_row(row.line_text))
        lines[row.position.line - 1] = _aligned_row(cells, [HEADER])[:-1]
    again = parsed("\n".join(lines))
    assert [row_facts(r) for r in again.rows] == [row_facts(r) for r in reg.rows]


# What reaches the marker fixers: the text of a fenced heading (stripped, no closing `#`s)
# that is marker-shaped or quoted as `## ...` by a workflow (no backtick either way). Left
# out: `No marker`, which the parser reads as no marker (add_to_row offers no fix for it).
MARKER = (
    st.lists(
        st.sampled_from(
            [*"ABCXYZ019 _-:./#()',!?|\\\t", "é", "中", "\u0301", "\x1b", "## ", "\\|"]
        ),
        min_size=1,
        max_size=12,
    )
    .map(lambda parts: heading_text("".join(parts)))
    .filter(lambda text: text != "" and text.lower() != "no marker")
)
ENTRY = st.tuples(MARKER, st.sampled_from(["", " (first run)", " (unconsumed: shown)"]))


def markers_cell(entries: list[tuple[str, str]]) -> str:
    return ", ".join(f"`## {text}`{note}" for text, note in entries) or "No marker"


def one_row_registry(entries: list[tuple[str, str]], consumed: str = "") -> str:
    return table([f"| gsd-a | Does A | {markers_cell(entries)} | {consumed} | sentinel-match |"])


@PROPERTY
@given(st.lists(ENTRY, max_size=4), MARKER)
@example([], "PLAN COMPLETE")
@example([("A", " (x)")], "B (y)")
@example([("A", "")], "## X, Y | Z")
@example([], "a \\| b")
@example([("A", "")], "\\\\|")
def test_added_marker_is_read_back(entries: list[tuple[str, str]], marker: str) -> None:
    text = one_row_registry(entries)
    [row] = parsed(text).rows
    edits = edits_of(add_to_row(row, marker))
    # GitHub splits a table cell on a `|` even inside a code span, unless it is escaped
    assert all(e.text[i - 1] == "\\" for e in edits for i in range(len(e.text)) if e.text[i] == "|")
    fixed = apply(text, edits)
    [again] = parsed(fixed).rows
    assert again.all_marker_texts == (*row.all_marker_texts, marker)
    want = row_facts(row)[1]
    if want and want[-1][1] is not None and not want[-1][2]:
        # a trailing note stays last in the cell: the new marker goes before it
        want = [*want[:-1], (want[-1][0], None, False, ""), (marker, *want[-1][1:])]
        assert row_facts(again)[1] == want
    else:
        assert row_facts(again)[1][:-1] == want  # the others keep their notes


@pytest.mark.parametrize("marker", ["No marker", "NO MARKER", "no marker", "A `B`"])
def test_no_fix_adds_a_marker_the_row_cannot_declare(marker: str) -> None:
    [row] = parsed(one_row_registry([("A", "")])).rows
    assert add_to_row(row, marker) is None


@PROPERTY
@given(st.lists(ENTRY, min_size=1, max_size=5), st.data())
def test_removed_marker_is_gone_and_the_rest_stay(
    entries: list[tuple[str, str]], data: st.DataObject
) -> None:
    text = one_row_registry(entries)
    [row] = parsed(text).rows
    i = data.draw(st.integers(0, len(row.markers) - 1))
    fixed = apply(text, edits_of(remove_from_row(row, row.markers[i])))
    assert problems_of(fixed) == []
    [again] = parsed(fixed).rows
    want = row_facts(row)[1]
    assert row_facts(again)[1] == want[:i] + want[i + 1 :]


PATH_TOKEN = st.from_regex(r"[a-z0-9_][a-z0-9_./-]{0,20}\.(md|py)", fullmatch=True).filter(
    lambda p: ".." not in p.split("/") and not p.startswith("./")
)


@PROPERTY
@given(st.lists(PATH_TOKEN, min_size=1, max_size=4, unique=True), CELL)
def test_rewritten_consumed_by_cites_exactly_the_consumers(
    consumers: list[str], old_cell: str
) -> None:
    old_cell = "".join(ch for ch in old_cell if ch not in "|(`\\")  # one cell, not the rest
    text = one_row_registry([("A", "")], consumed=old_cell)
    [row] = parsed(text).rows
    if row.consumed_by_cell[0] == 0:  # an empty old cell has no span to rewrite
        assert rewrite_consumed_by(row, consumers) is None
        return
    fixed = apply(text, edits_of(rewrite_consumed_by(row, consumers)))
    [again] = parsed(fixed).rows
    assert [c.path for c in again.consumed_by] == consumers
    assert row_facts(again)[1] == row_facts(row)[1]


class _Consumes:
    def find(self, needle: str) -> Position | None:
        return Position("w.md", 1, 1)


def new_row_facts(description: str, markers: list[str], consumers: list[str]) -> Any:
    existing = "| gsd-a | Does A | `## A` | `w.md` | sentinel-match |"
    text = table([existing])
    agent = Agent(
        name="gsd-new",
        path="agents/gsd-new.md",
        frontmatter={"description": description},
        frontmatter_lines={},
        tools=None,
        emissions=tuple(
            Emission("gsd-new", m, Position("agents/gsd-new.md", 9, 1)) for m in markers
        ),
        includes=(),
        texts=(),
    )
    facts = SimpleNamespace(
        registry=parsed(text),
        consumers={c: _Consumes() for c in consumers},
        settings={"write-tools": ["Write"]},
    )
    return text, facts, agent


# The role is the description's first sentence (some 80 characters at most): parentheses,
# code spans and line breaks, closed or not, before or after a `. `, and long ones.
DESCRIPTION = st.lists(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8),
        st.sampled_from(
            [*"()`|\\. \n\r\t\x85\u2028", ". ", "e.g. ", "\\|", "`a|b`", "(x. y)", " " * 30]
        ),
    ),
    max_size=40,
).map("".join)


@PROPERTY
@given(DESCRIPTION, st.lists(MARKER, max_size=3), st.lists(PATH_TOKEN, max_size=3, unique=True))
@example("Plans | executes. More.", ["PLAN COMPLETE"], ["gsd-core/workflows/plan.md"])
def test_new_row_reads_back_as_the_agent(
    description: str, markers: list[str], consumers: list[str]
) -> None:
    text, facts, agent = new_row_facts(description, markers, consumers)
    shown = list(dict.fromkeys(markers))  # in the order the agent shows them, once each
    fixed = apply(text, edits_of(add_row(facts, agent, shown, {m: consumers for m in shown})))
    assert problems_of(fixed) == []
    rows = {r.agent: r for r in parsed(fixed).rows}
    new = rows["gsd-new"]
    assert new.all_marker_texts == tuple(shown)
    assert [c.path for c in new.consumed_by] == (sorted(consumers) if markers else [])
    assert new.kind == ("sentinel-match" if markers else "artifact+query")
    assert row_facts(rows["gsd-a"]) == row_facts(parsed(text).rows[0])
    role = split_row(new.line_text)[1].text
    assert len(role) <= 2 * 65  # a clause of at most 60 characters or so, `|` escaped
    assert not role.endswith("...")
    assert all(role[i - 1] == "\\" for i in range(len(role)) if role[i] == "|")  # GitHub too


@pytest.mark.parametrize(
    ("description", "role"),
    [
        ("Reviews plans (e.g. phase plans). Then reports.", "Reviews plans"),
        ("Runs `make check. lint` first. Then stops.", "Runs `make check. lint` first"),
        # a parenthesis or code span the description leaves open is closed
        ("Runs `make check. Then stops.", "Runs `make check`"),
        ("Reviews plans(see below. Then stops.", "Reviews plans(see below)"),
        ("Reviews plans(e.g", "Reviews plans(e.g)"),
        ("Ends with(x `", "Ends with(x ``)"),
        # the first clause, up to a comma, a dash or a word that starts a complement
        (
            "Researches a chosen AI framework's official docs to produce implementation-ready"
            " guidance — best practices. Spawned by /gsd:ai-integration-phase.",
            "Researches a chosen AI framework's official docs",
        ),
        (
            "Retroactive audit of an implemented AI phase's evaluation coverage.",
            "Retroactive audit",
        ),
        ("Plans, then executes. More.", "Plans, then executes"),  # not before its second word
        # no clause end early enough: whole words, none dangling, no ellipsis
        (
            "Runs `make check lint typecheck test coverage docs build package publish release"
            " deploy` then reports.",
            "Runs `make check lint typecheck test coverage docs build`",
        ),
        ("Plans | executes. More.", "Plans \\| executes"),
        ("Plans\n  and executes.\nMore.", "Plans and executes"),
        ("Archives finished phases.", "Archives finished phases"),
    ],
)
def test_new_row_role_reads_back_as_one_cell(description: str, role: str) -> None:
    text, facts, agent = new_row_facts(description, ["REVIEW DONE"], [])
    fixed = apply(text, edits_of(add_row(facts, agent, ["REVIEW DONE"], {})))
    assert problems_of(fixed) == []
    new = {r.agent: r for r in parsed(fixed).rows}["gsd-new"]
    assert split_row(new.line_text)[1].text == role
    assert new.all_marker_texts == ("REVIEW DONE",)


# --- headings and frontmatter values respelled in place -----------------------------------


@PROPERTY
@given(
    st.sampled_from(["", "  ", "- ", "> ", "1. "]),
    st.integers(1, 6),
    st.text(alphabet=st.sampled_from([*"abcXYZ 19#\\`*_\t:é\u0301ß"]), min_size=1, max_size=20),
    st.sampled_from(["", " #", " ##  ", "\t#"]),
    st.booleans(),
)
def test_respelled_heading_reads_back(
    prefix: str, level: int, title: str, closing: str, fenced: bool
) -> None:
    line = f"{prefix}{'#' * level} {title}{closing}"
    text = f"```markdown\n{line}\n```\n" if fenced else f"Text.\n{line}\n"
    found = [h for h in scan(text).headings if h.line == 2]
    if not found:
        return
    [h] = found
    # DC204's fix: the heading's text found after its `#` run, replaced by the declared spelling
    column = line.find(h.text, h.column - 1) + 1
    assert column > 0
    declared = h.text.swapcase()
    fixed = apply(text, edits_of(replace_text("a.md", 2, column, h.text, declared, "respell")))
    [again] = [g for g in scan(fixed).headings if g.line == 2]
    assert again.text == declared


STEM = st.from_regex(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", fullmatch=True)


def set_name(text: str, stem: str) -> str:
    """`text` after DC605's fix, which sets `name:` to the file's stem."""
    source = Source("agents/a.md", text)
    line = read_frontmatter(source).key_lines["name"]
    facts: Any = SimpleNamespace(sources={source.path: source})
    return apply(text, edits_of(set_frontmatter_value(facts, source.path, line, "name", stem, "")))


@settings(max_examples=100, deadline=None)  # ruamel.yaml reads the quoted and commented ones
@given(
    STEM,
    st.sampled_from(["old", '"old"', "'old'", "old  # a comment", '"x: y"', "x-y # c"]),
    st.sampled_from(["name: ", "name:   ", "name:\t"]),
)
def test_frontmatter_name_set_in_place_reads_back(stem: str, old: str, key: str) -> None:
    text = f"---\ndescription: D\n{key}{old}\ntools: Read\n---\n# A\n"
    after = read_frontmatter(Source("agents/a.md", set_name(text, stem)))
    assert after.problem is None and after.data is not None
    assert after.data["name"] == stem
    assert {k: v for k, v in after.data.items() if k != "name"} == {
        "description": "D",
        "tools": "Read",
    }


@pytest.mark.parametrize(
    ("stem", "written"),
    [
        ("gsd-planner", "gsd-planner"),
        ("1password", "1password"),  # a string to YAML too: left plain
        ("-x", "-x"),
        ("123", "'123'"),
        ("true", "'true'"),
        ("1.5", "'1.5'"),
        ("null", "'null'"),
        ("~", "'~'"),
        ("2001-12-14", "'2001-12-14'"),
        ("a #b", "'a #b'"),
        ("a: b", "'a: b'"),
        ("- x", "'- x'"),
        *[(f"{c}x", f"'{c}x'") for c in "*&!%@`"],
        ("x ", "'x '"),
        ("it's", "it's"),
        ("'x'", "'''x'''"),
        ("a\x1bb", '"a\\x1bb"'),
        ("a\u2028b", '"a\\u2028b"'),
    ],
)
def test_frontmatter_name_quoted_when_yaml_would_retype_it(stem: str, written: str) -> None:
    text = "---\nname: old  # was\n---\n"
    fixed = set_name(text, stem)
    assert fixed == f"---\nname: {written}  # was\n---\n"
    after = read_frontmatter(Source("agents/a.md", fixed))
    assert after.data is not None and after.data["name"] == stem


@pytest.mark.parametrize(
    ("line", "written"),
    [
        ('name: "a #b"  # c', 'name: "gsd-x"  # c'),  # a ` #` inside quotes is no comment
        ("name: 'it''s #' # c", "name: 'gsd-x' # c"),
        ('name: "a\\"b #"', 'name: "gsd-x"'),
        ("name: old\n  # an indented comment", "name: gsd-x\n  # an indented comment"),
    ],
)
def test_frontmatter_name_replaces_the_whole_value(line: str, written: str) -> None:
    assert set_name(f"---\n{line}\n---\n", "gsd-x") == f"---\n{written}\n---\n"


@pytest.mark.parametrize(
    "lines",
    [
        "name: |\n  gsd-old",
        "name: >-\n  gsd-old",
        'name: "gsd\n  old"',
        "name: 'gsd\n\n  old'",
        "name: gsd\n  old",
        "name: gsd\n\n  old",
    ],
)
def test_frontmatter_name_on_several_lines_gets_no_fix(lines: str) -> None:
    """Replacing the first line of a value that goes on below would leave the rest."""
    source = Source("agents/a.md", f"---\n{lines}\ntools: Read\n---\n")
    assert read_frontmatter(source).data is not None
    facts: Any = SimpleNamespace(sources={source.path: source})
    assert set_frontmatter_value(facts, source.path, 2, "name", "gsd-x", "") is None


def strict_yaml(text: str) -> Any:
    """What ruamel.yaml (safe) reads, or the exception it raises."""
    try:
        return safe_load(text)
    except Exception as exc:  # an invalid date is a ValueError
        return exc


NAME = st.lists(
    st.one_of(
        st.text(max_size=4),
        st.sampled_from(
            [*"#:-*&!%@`'\"\\|>?[]{},~. \t", "null", "true", "0x1", "1", "1.5", "2001-12-14", " #"]
        ),
    ),
    min_size=1,
    max_size=5,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(NAME, st.sampled_from(["old", "'old'", '"old"', "old  # c"]))
@example("123", "old")
@example("a\x00b", "'old'")
@example("'", '"old"')
@example("---", "old")
@example("\ufeff", "old")
def test_frontmatter_name_quoted_exactly_when_needed(stem: str, old: str) -> None:
    """Any stem reads back as itself (with the strict parser and the frontmatter reader),
    and is written plain exactly when plain reads back, unless the author quoted `name:`.
    A byte-order mark reads back plain but is always escaped: editors and tools drop a bare
    one, and the name would change under the reader's eyes."""
    text = f"---\nname: {old}\ntools: Read\n---\n"
    fixed = set_name(text, stem)
    body = fixed.removeprefix("---\n").removesuffix("---\n")
    assert strict_yaml(body) == {"name": stem, "tools": "Read"}
    after = read_frontmatter(Source("agents/a.md", fixed))
    assert after.data == {"name": stem, "tools": "Read"}
    written = yaml_scalar(stem, old[0] if old[0] in "'\"" else "")
    assert body.startswith(f"name: {written}")
    if old[0] not in "'\"":
        plain = strict_yaml(f"name: {stem}\n") == {"name": stem}
        plain_reads_back = plain and "\ufeff" not in stem
        assert (written == stem) == plain_reads_back


# The value pattern of `set_frontmatter_value` was `(.*?)([ \t]+#.*)?$`, quadratic on a long
# run of blanks; the possessive one that replaced it must match the same spans.
LAZY_VALUE = re.compile(r"(name[ \t]*:[ \t]*)(.*?)([ \t]+#.*)?$")
POSSESSIVE_VALUE = re.compile(r"(name[ \t]*:[ \t]*+)((?:[^ \t]|[ \t]++(?!#))*+)([ \t]+#.*)?$")
VALUE_LINE = st.builds(
    lambda key, rest: key + rest,
    st.sampled_from(["name:", "name :", "name\t:", "nam", ""]),
    st.lists(
        st.sampled_from([*" \t#:'\"a\r\x0b\x85", "é", "  #", " # c", "x y", "\t#"]), max_size=14
    ).map("".join),
)


@settings(max_examples=1000, deadline=None)
@given(VALUE_LINE)
def test_frontmatter_value_pattern_matches_as_the_lazy_one(line: str) -> None:
    old, new = LAZY_VALUE.match(line), POSSESSIVE_VALUE.match(line)
    assert (old is None) == (new is None)
    if old is not None and new is not None:
        assert [old.span(i) for i in (1, 2, 3)] == [new.span(i) for i in (1, 2, 3)]


@pytest.mark.parametrize(
    "value",
    [
        " " * 100_000 + "x",
        "a" + " " * 100_000 + "b",
        "a" + " \t" * 50_000,
        "a " * 50_000 + "#",
        "a" + " " * 100_000 + "#" + " " * 100_000,
    ],
)
def test_frontmatter_value_on_a_long_run_of_blanks_is_linear(value: str) -> None:
    text = f"---\nname: {value}\n---\n"
    source = Source("agents/a.md", text)
    facts: Any = SimpleNamespace(sources={source.path: source})
    start = time.perf_counter()
    fix = set_frontmatter_value(facts, source.path, 2, "name", "a", "")
    elapsed = time.perf_counter() - start
    assert fix is not None
    assert elapsed < 1.0


# --- suppression comments: parse, print, parse ---------------------------------------------

CODE = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="],\n\r"),
    max_size=6,
)
REASON = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
    max_size=30,
)


def markdown_directive(kind: str, codes: tuple[str, ...] | list[str], reason: str) -> str:
    return f"<!-- drift-check: {kind}[{', '.join(codes)}] {reason} -->"


def python_directive(kind: str, codes: tuple[str, ...] | list[str], reason: str) -> str:
    return f"x = 1  # drift-check: {kind}[{', '.join(codes)}] {reason}"


@PROPERTY
@given(
    st.sampled_from(["ignore", "ignore-file", "disable-next-line", "disable", "enable"]),
    st.lists(CODE, max_size=4),
    REASON,
    st.sampled_from([("a.md", markdown_directive), ("hook.py", python_directive)]),
)
@example("ignore", ["dc101", " DC2 "], "kept -- for now", ("a.md", markdown_directive))
@example("ignore", ["ß"], "a--", ("a.md", markdown_directive))
@example("ignore-file", [], " \t", ("hook.py", python_directive))
@example("ignore", ["a\x0c", "\u0131"], "x\x00y\x0c ", ("hook.py", python_directive))
def test_suppression_comment_survives_print_and_parse(
    kind: str,
    codes: list[str],
    reason: str,
    form: tuple[str, Callable[[str, Any, str], str]],
) -> None:
    path, write = form
    [first] = find_directives(Source(path, write(kind, codes, reason) + "\n"))
    assert first.kind == kind
    written = tuple(c.name for c in first.codes or ())
    assert written == tuple(c.strip().upper() for c in codes if c.strip())
    if path.endswith(".md") and "-->" not in reason:
        assert first.reason == reason.strip(" \t")
    [again] = find_directives(Source(path, write(kind, written, first.reason) + "\n"))
    assert (again.kind, tuple(c.name for c in again.codes or ()), again.reason) == (
        first.kind,
        written,
        first.reason,
    )


_MARKER_CHARS = st.text(alphabet="AB :-([\u2013\u2014\u26a0", max_size=10)


@given(_MARKER_CHARS, _MARKER_CHARS)
@example("\u26a0 Source Audit", "\u26a0 Source Audit: Unplanned Items Found")
@example("PLAN", "PLANNING COMPLETE")
@example("PLAN", "PLAN COMPLETE")
def test_a_marker_covers_a_heading_exactly_when_the_heading_can_be_cut_to_it(
    marker: str, heading: str
) -> None:
    """`covers` (is this heading that marker?) and `cuts` (which markers can this heading
    be?) are written separately, for speed; they must agree."""
    from drift_check.markers import covers, cuts

    expected = heading == marker or marker in cuts(heading, len(heading))
    assert covers(marker, heading) == expected


@pytest.mark.parametrize(
    ("heading", "covered"),
    [
        ("PLAN", True),
        ("PLAN: 3 tasks", True),
        ("PLAN - partial", True),
        ("PLAN \u2014 partial", True),
        ("PLAN (draft)", True),
        ("PLAN [2/3]", True),
        ("PLANNING COMPLETE", False),
        ("PLAN COMPLETE", False),
        ("PLAN-B", False),
        ("PLAN:", True),
        ("plan: 3 tasks", False),
    ],
)
def test_what_a_declared_marker_covers(heading: str, covered: bool) -> None:
    from drift_check.markers import covers

    assert covers("PLAN", heading) is covered


def test_cutting_a_long_heading_reads_only_its_beginning() -> None:
    from drift_check.markers import cuts

    start = time.perf_counter()
    found = cuts("A" + ":" * 1_000_000, 60)
    assert time.perf_counter() - start < 0.5
    assert max(map(len, found)) <= 60

"""The `## Agent Registry` table parser: cells, marker cells, cited paths, header columns."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.facts import Source
from drift_check.scanners.registry import (
    Cell,
    cited_paths,
    column_key,
    parse_marker_cell,
    parse_registry,
    split_outside,
    split_row,
)

PATH = "gsd-core/references/agent-contracts.md"
HEADING = "## Agent Registry"


def texts(cells: list[Cell]) -> list[str]:
    return [c.text for c in cells]


# --- split_outside / split_row --------------------------------------------------------------


def test_split_keeps_columns_of_first_non_blank_character() -> None:
    assert split_outside("a | bb |  c", "|") == [Cell("a", 1), Cell("bb", 5), Cell("c", 11)]
    assert split_outside("x,y", ",", start_column=7) == [Cell("x", 7), Cell("y", 9)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("`a|b` | c", ["`a|b`", "c"]),  # a backtick span protects the delimiter
        ("x (a|b) | c", ["x (a|b)", "c"]),  # parentheses too
        ("x (a (b|c) d) | e", ["x (a (b|c) d)", "e"]),  # nested
        ("a \\| b | c", ["a \\| b", "c"]),  # an escaped pipe is content
        ("`x \\| y` | z", ["`x \\| y`", "z"]),
        ("a) | b", ["a)", "b"]),  # a stray closing parenthesis changes nothing
        ("a ( | b", ["a ( | b"]),  # an unclosed one swallows the rest
        ("a ` | b", ["a ` | b"]),  # as does an unclosed backtick
        ("||", ["", "", ""]),
        ("", [""]),
    ],
)
def test_split_outside(text: str, want: list[str]) -> None:
    assert texts(split_outside(text, "|")) == want


def test_split_outside_commas() -> None:
    cells = split_outside("`## A, B`, `## C` (x, y), D", ",")
    assert texts(cells) == ["`## A, B`", "`## C` (x, y)", "D"]


def test_split_row_strips_outer_pipes_and_keeps_real_columns() -> None:
    line = "| gsd-planner | Planning | `## A` |"
    cells = split_row(line)
    assert texts(cells) == ["gsd-planner", "Planning", "`## A`"]
    for cell in cells:
        assert line[cell.column - 1 :].startswith(cell.text)


def test_split_row_without_outer_pipes_and_with_indentation() -> None:
    line = "  a | b | c"
    cells = split_row(line)
    assert texts(cells) == ["a", "b", "c"]
    assert [line[c.column - 1] for c in cells] == ["a", "b", "c"]


def test_split_row_escaped_last_pipe_is_content() -> None:
    assert texts(split_row("| a | b \\|")) == ["a", "b \\|"]


def test_empty_cell_column_is_inside_the_line() -> None:
    line = "| a |   | c |"
    cells = split_row(line)
    assert texts(cells) == ["a", "", "c"]
    assert 1 <= cells[1].column <= len(line)


# --- parse_marker_cell ----------------------------------------------------------------------


def markers(text: str, column: int = 10) -> list[tuple[str, int, str | None, bool, str]]:
    return [
        (m.text, m.position.column, m.annotation, m.unconsumed, m.unconsumed_reason)
        for m in parse_marker_cell(Cell(text, column), PATH, 3)
    ]


def test_marker_list_with_columns() -> None:
    cell = "`## PLANNING COMPLETE`, `## PLANNING BLOCKED`"
    assert markers(cell, 30) == [
        ("PLANNING COMPLETE", 30, None, False, ""),
        ("PLANNING BLOCKED", 54, None, False, ""),
    ]
    found = parse_marker_cell(Cell(cell, 30), PATH, 8)
    assert all(m.position.path == PATH and m.position.line == 8 for m in found)


@pytest.mark.parametrize(
    ("cell", "want"),
    [
        ("## X", [("X", 10, None, False, "")]),  # no backticks
        ("`### X`", [("X", 10, None, False, "")]),  # any heading level
        ("`X`", [("X", 10, None, False, "")]),  # no hashes at all
        ("`## A, B`", [("A, B", 10, None, False, "")]),  # a comma inside backticks
        ("`## DONE (x)`", [("DONE (x)", 10, None, False, "")]),  # parentheses in backticks
        ("`STEP ## TWO`", [("STEP ## TWO", 10, None, False, "")]),  # hashes inside stay
        ("`## A` (first run only)", [("A", 10, "first run only", False, "")]),
        ("## DONE (x (y))", [("DONE", 10, "x (y)", False, "")]),  # one nested annotation
        ("No marker", []),
        ("no marker", []),
        ("No marker (writes `MAP.md`)", []),
        ("", []),
        (", ,", []),
    ],
)
def test_marker_cell_entries(cell: str, want: list) -> None:
    assert markers(cell) == want


@pytest.mark.parametrize(
    ("cell", "unconsumed", "reason"),
    [
        ("`## Check Done` (unconsumed: shown to the user only)", True, "shown to the user only"),
        ("`## X` (unconsumed)", True, ""),  # waived, but without a reason (DC107 reports it)
        ("`## X` (unconsumed:)", True, ""),
        ("`## X` (unconsumed - logged)", True, "logged"),
        ("`## X` (Unconsumed: R)", True, "R"),
        ("`## X` (unconsumedly)", False, ""),  # a word that merely starts so
        ("`## X` (consumed by hooks)", False, ""),
        ("`## X`", False, ""),
    ],
)
def test_unconsumed_annotation(cell: str, unconsumed: bool, reason: str) -> None:
    [(text, _, _, got_unconsumed, got_reason)] = markers(cell)
    assert text == "X" or text == "Check Done"
    assert (got_unconsumed, got_reason) == (unconsumed, reason)


def test_unconsumed_applies_to_its_own_marker_only() -> None:
    got = markers("`## A` (unconsumed: debug), `## B`")
    assert [(m[0], m[3]) for m in got] == [("A", True), ("B", False)]


def test_escaped_pipe_in_marker_is_a_pipe() -> None:
    assert [m[0] for m in markers("`## PASS \\| FAIL`")] == ["PASS | FAIL"]


# --- cited_paths ----------------------------------------------------------------------------


def cited(text: str, column: int = 5) -> list[tuple[str, int]]:
    return [(c.path, c.position.column) for c in cited_paths(Cell(text, column), PATH, 3)]


def test_cited_paths_are_backticked_repository_paths_at_their_backtick() -> None:
    text = "`gsd-core/workflows/plan.md`, `hooks/route.py`"
    assert cited(text, 5) == [("gsd-core/workflows/plan.md", 5), ("hooks/route.py", 35)]


@pytest.mark.parametrize(
    "text",
    [
        "`workflows/*.md`",  # a glob
        "`gsd-core/workflows/**/plan.md`",
        "`/gsd:plan`",  # a command
        "`node scripts/check.py --fix`",
        "`../outside.md`",  # leaves the root
        "`gsd-core/../../x.md`",
        "reads MAP.md and hooks/route.py",  # prose, no backticks
        "`notes.txt`",  # not a file drift-check reads
        "`unterminated.md",
        "the orchestrator",
        "",
    ],
)
def test_cited_paths_ignore_non_paths(text: str) -> None:
    assert cited(text) == []


def test_cited_paths_mixed_prose() -> None:
    text = "`gsd-core/workflows/map.md` reads MAP.md; `commands/*.md`, `/gsd:map`, `a/b.py`"
    assert [p for p, _ in cited(text)] == ["gsd-core/workflows/map.md", "a/b.py"]


# --- parse_registry -------------------------------------------------------------------------


def registry(table: str, before: str = "# Agent Contracts\n\n## Agent Registry\n\n"):  # type: ignore[no-untyped-def]
    return parse_registry(Source(PATH, before + table), HEADING)


def test_column_key() -> None:
    assert column_key(" Completion Markers ") == "completion_markers"
    assert column_key("`Consumed  by`") == "consumed_by"
    assert column_key("KIND") == "kind"


def test_three_column_registry() -> None:
    reg, problems = registry(
        "| Agent | Role | Completion Markers |\n"
        "|-------|------|--------------------|\n"
        "| gsd-planner | Planning | `## PLANNING COMPLETE` |\n"
        "| gsd-mapper | Mapping | No marker |\n"
    )
    assert problems == []
    assert reg is not None
    assert reg.columns == ("agent", "role", "completion_markers")
    assert not reg.has_consumed_by and not reg.has_kind
    assert [r.agent for r in reg.rows] == ["gsd-planner", "gsd-mapper"]
    planner, mapper = reg.rows
    assert planner.all_marker_texts == ("PLANNING COMPLETE",)
    assert planner.consumed_by == () and planner.kind is None and planner.kind_position is None
    assert mapper.markers == ()
    assert tuple(planner.position) == (PATH, 7, 3)
    assert tuple(reg.heading_position)[:2] == (PATH, 3)


def test_five_column_registry_in_any_column_order() -> None:
    row = "| sentinel-match | `gsd-executor` | `## PLAN COMPLETE` | Execution | `hooks/route.py` |"
    reg, problems = registry(
        "| Kind | Agent | Completion Markers | Role | Consumed by |\n"
        "|:-----|:-----:|-------------------:|------|-------------|\n" + row + "\n"
    )
    assert problems == []
    assert reg is not None
    assert reg.columns == ("kind", "agent", "completion_markers", "role", "consumed_by")
    [r] = reg.rows
    assert r.agent == "gsd-executor"  # backticks removed
    assert r.kind == "sentinel-match"
    assert r.all_marker_texts == ("PLAN COMPLETE",)
    assert [c.path for c in r.consumed_by] == ["hooks/route.py"]
    assert r.line_text == row
    # every position points at its own cell on line 7
    assert r.position.line == r.kind_position.line == r.markers[0].position.line == 7
    assert row[r.position.column - 1 :].startswith("`gsd-executor`")
    assert row[r.kind_position.column - 1 :].startswith("sentinel-match")
    assert row[r.markers[0].position.column - 1 :].startswith("`## PLAN COMPLETE`")
    assert row[r.consumed_by[0].position.column - 1 :].startswith("`hooks/route.py`")


def test_malformed_row_is_reported_and_the_other_rows_still_parse() -> None:
    reg, problems = registry(
        "| Agent | Role | Completion Markers |\n"
        "|-------|------|--------------------|\n"
        "| gsd-a | A | `## A DONE` |\n"
        "| gsd-b | B | ## X | Y | `## B DONE` |\n"  # unescaped pipes: five cells
        "| | C | `## C DONE` |\n"  # an empty agent cell
        "| gsd-d | D (pass|fail) | `## D DONE` |\n"  # a pipe in parentheses is fine
    )
    assert reg is not None
    assert [r.agent for r in reg.rows] == ["gsd-a", "gsd-d"]
    assert [(p.kind, p.position.line) for p in problems] == [
        ("registry-row", 8),
        ("registry-row", 9),
    ]
    assert all(p.position.path == PATH for p in problems)


def test_header_without_marker_column_is_reported_at_the_header() -> None:
    reg, problems = registry("| Agent | Role |\n|---|---|\n| a | b |\n")
    assert reg is None
    assert [(p.kind, p.position.line) for p in problems] == [("registry-row", 5)]


def test_missing_heading_and_missing_table() -> None:
    reg, problems = parse_registry(Source(PATH, "# Contracts\n\nno table\n"), HEADING)
    assert reg is None and [p.kind for p in problems] == ["registry-missing"]
    reg, problems = registry("Some prose first.\n\n| Agent | Role | Completion Markers |\n")
    assert reg is None and [p.kind for p in problems] == ["registry-missing"]
    assert problems[0].position.line == 3  # at the heading


def test_heading_inside_a_fence_is_not_the_registry() -> None:
    text = (
        "```markdown\n## Agent Registry\n\n| Agent | Role | Completion Markers |\n```\n\n"
        "### Agent Registry\n\n| Agent | Role | Completion Markers |\n|---|---|---|\n"
        "| real | R | `## REAL` |\n"
    )
    reg, problems = parse_registry(Source(PATH, text), HEADING)
    assert problems == []
    assert reg is not None and [r.agent for r in reg.rows] == ["real"]


def test_table_ends_at_the_first_line_that_is_not_a_row() -> None:
    reg, _ = registry(
        "| Agent | Role | Completion Markers |\n|---|---|---|\n| a | A | `## A` |\n\n"
        "| b | B | `## B` |\n"
    )
    assert reg is not None and [r.agent for r in reg.rows] == ["a"]


# --- never raises ---------------------------------------------------------------------------

TABLE_CHARS = st.sampled_from([*"|`()\\,:#- \tabAZ19*./\u00a0é\x1b\r"])
ROW = st.one_of(
    st.text(alphabet=TABLE_CHARS, max_size=40),
    st.text(alphabet=TABLE_CHARS, max_size=30).map(lambda s: "|" + s + "|"),
    st.lists(st.text(alphabet=TABLE_CHARS, max_size=10), max_size=6).map(
        lambda cells: "| " + " | ".join(cells) + " |"
    ),
    st.sampled_from(
        [
            "| Agent | Role | Completion Markers | Consumed by | Kind |",
            "| Agent | Role | Completion Markers |",
            "|---|---|---|",
            "|:--|--:|:-:|---|---|",
            "",
            "```",
            "## Agent Registry",
            "| `` | x | `## A` (unconsumed) |",
        ]
    ),
)


@pytest.mark.slow  # a property run: hundreds of generated cases
@settings(max_examples=300, deadline=None)
@given(st.lists(ROW, max_size=8), st.text(max_size=20))
@example(["| Agent | Role | Completion Markers |", "|---|---|---|", "| ` ` | r | m |"], "")
@example(["| Agent | Agent | Completion Markers |", "| a | | m |"], "")
@example(["|", "|"], "")
def test_parse_registry_never_raises(rows: list[str], noise: str) -> None:
    text = noise + "\n## Agent Registry\n\n" + "\n".join(rows) + "\n"
    reg, problems = parse_registry(Source(PATH, text), HEADING)
    n_lines = text.count("\n") + 1
    for p in problems:
        assert p.kind in ("registry-missing", "registry-row")
        assert 1 <= p.position.line <= n_lines and p.position.column >= 1
    if reg is None:
        assert problems
        return
    for row in reg.rows:
        assert row.agent.strip()
        assert "`" not in row.agent
        assert 1 <= row.position.line <= n_lines
        assert row.line_text == text.split("\n")[row.position.line - 1]
        for m in row.markers:
            assert m.text and m.position.line == row.position.line
            assert m.text.lower() != "no marker"
        for c in row.consumed_by:
            assert "*" not in c.path and ".." not in c.path.split("/")

"""--fix, --unsafe-fixes and --diff: what is written, what is kept, and that a second run
changes nothing."""

import os
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.fixes.planner import FileChange, as_written
from drift_check.scanners.files import line_endings
from tests.conftest import git_diff, tree_files, write_tree

REGISTRY = "gsd-core/references/agent-contracts.md"
PLANNER_EXTRA = {
    "agents/gsd-planner.md": (
        "---\nname: gsd-planner\ndescription: Plans a phase.\ntools: Read, Write\n---\n\n"
        "Read every file in <required_reading> first.\n\n"
        "```markdown\n## PLANNING COMPLETE\n```\n\n"
        "```markdown\n## PLANNING SPLIT\n```\n\n"
        "Other formats: @~/.claude/gsd-core/references/planner-formats.md\n"
    ),
    "gsd-core/workflows/plan.md": (
        '# Plan\n\n<step name="plan">\nTask(subagent_type="gsd-planner", prompt="\n'
        '<required_reading>\n.planning/ROADMAP.md\n</required_reading>\n")\n\n'
        "- On `## PLANNING COMPLETE`: execute.\n- On `## PLANNING BLOCKED`: stop.\n"
        "- On `## PLANNING SPLIT`: plan each half.\n</step>\n"
    ),
}


def _tree(tmp_path: Path, files: dict[str, str | None]) -> Path:
    return write_tree(tmp_path, tree_files("gsd", files))


def test_fix_adds_an_undeclared_marker_and_keeps_every_other_byte(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _tree(tmp_path, PLANNER_EXTRA)
    before = (root / REGISTRY).read_text()
    run = cli(str(root), "--fix", "-q")
    assert run.code == 0, run.out
    assert "fixed 2 findings" in run.err  # the DC202, and the DC305 the new row settles
    after = (root / REGISTRY).read_text()
    old_row = next(line for line in before.splitlines() if line.startswith("| gsd-planner"))
    new_row = old_row.replace(
        "`## PLANNING BLOCKED` |", "`## PLANNING BLOCKED`, `## PLANNING SPLIT` |"
    )
    assert after == before.replace(old_row, new_row)
    again = cli(str(root), "--fix", "-q")
    assert "fixed 0 findings" in again.err
    assert (root / REGISTRY).read_text() == after


def test_diff_shows_the_fix_and_writes_nothing(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _tree(tmp_path, PLANNER_EXTRA)
    before = (root / REGISTRY).read_text()
    run = cli(str(root), "--diff", "-q")
    assert run.code == 1
    assert run.out.startswith(f"--- a/{REGISTRY}\n+++ b/{REGISTRY}\n")
    assert "+| gsd-planner | Planning | `## PLANNING COMPLETE`, `## PLANNING BLOCKED`," in run.out
    assert (root / REGISTRY).read_text() == before
    clean = _tree(tmp_path / "clean", {})
    assert cli(str(clean), "--diff", "-q").code == 0


def test_unsafe_fix_needs_the_flag(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = {
        "agents/gsd-executor.md": (
            "---\nname: gsd-executor\ndescription: Executes a plan.\ntools: Read, Write, Bash\n"
            "---\n\nNo template any more.\n"
        ),
        # nothing matches the marker either, so removing it creates no DC305
        "gsd-core/workflows/execute.md": '# Execute\n\nTask(subagent_type="gsd-executor")\n',
        "hooks/route.py": "NEXT = {}\n",
    }
    root = _tree(tmp_path, files)
    safe_only = cli(str(root), "--fix", "-q", "--select", "DC201")
    assert safe_only.code == 1
    assert "fixed 0 findings" in safe_only.err
    assert "more fixable with `--fix --unsafe-fixes`" in safe_only.out
    run = cli(str(root), "--fix", "--unsafe-fixes", "-q", "--select", "DC201")
    assert run.code == 0
    row = next(
        line
        for line in (root / REGISTRY).read_text().splitlines()
        if line.startswith("| gsd-executor")
    )
    assert row == (
        "| gsd-executor | Execution | No marker"
        " | `gsd-core/workflows/execute.md`, `hooks/route.py` | sentinel-match |"
    )


def test_name_fix_keeps_quotes_comments_line_endings_bom_and_mode(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _tree(tmp_path, {})
    skill = root / "skills/deploy/SKILL.md"
    skill.parent.mkdir(parents=True)
    text = (
        '---\r\nname: "deploy-prod"  # renamed later\r\n'
        "description: Use when deploying.\r\n---\r\n\r\n# Deploy\r\n"
    )
    skill.write_bytes(b"\xef\xbb\xbf" + text.encode())
    os.chmod(skill, 0o640)
    run = cli(str(root), "--fix", "-q", "--select", "DC503")
    assert run.code == 0, run.out
    data = skill.read_bytes()
    assert data == b"\xef\xbb\xbf" + text.replace('"deploy-prod"', '"deploy"').encode()
    assert os.stat(skill).st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    "text",
    [
        # mixed: a Windows editor saved some lines; the renamed line ends in `\n`, others not
        '---\r\nname: "deploy-prod"\ndescription: Use when deploying.\r\n---\n\n# Deploy\r\n',
        # the renamed line itself ends in `\r\n`, among lines that end in `\n`
        "---\nname: deploy-prod\r\ndescription: Use when deploying.\n---\n\n# Deploy\n",
        # old Mac endings only: a lone `\r` ends every line
        "---\rname: deploy-prod\rdescription: Use when deploying.\r---\r\r# Deploy\r",
        # a lone `\r` among `\r\n` endings
        "---\r\nname: deploy-prod\r\ndescription: Use when deploying.\r---\r\n\r\n# Deploy\r\n",
    ],
)
def test_a_fix_keeps_each_lines_own_ending_and_the_diff_shows_those_bytes(
    tmp_path: Path,
    text: str,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    root = _tree(tmp_path, {})
    skill = root / "skills/deploy/SKILL.md"
    skill.parent.mkdir(parents=True)
    before = text.encode()
    skill.write_bytes(before)
    expected = before.replace(b"deploy-prod", b"deploy")
    diff = cli(str(root), "--diff", "-q", "--select", "DC503")
    assert diff.code == 1, diff.err
    path = "skills/deploy/SKILL.md"
    assert diff.out == git_diff({path: before}, {path: expected})
    run = cli(str(root), "--fix", "-q", "--select", "DC503")
    assert run.code == 0, run.out
    assert skill.read_bytes() == expected
    assert cli(str(root), "--fix", "-q", "--select", "DC503").err.count("fixed 0 findings") == 1


def test_lines_a_change_adds_take_the_commonest_ending_and_rewritten_ones_keep_theirs() -> None:
    change = FileChange(
        "p.md", "a\nb\nc\nd", "a\nB\nnew\nc\nd", "\r\n", False, ("\r\n", "\n", "\r")
    )
    assert as_written(change) == ("a\r\nb\nc\rd", "a\r\nB\nnew\r\nc\rd")
    uniform = FileChange("p.md", "a\nb\n", "a\nc\n", "\r", False, None)
    assert as_written(uniform) == ("a\rb\r", "a\rc\r")


LINE = st.sampled_from(["", "a", "b", "---", "name: x", " - c"])
ENDING = st.sampled_from(["\n", "\r\n", "\r"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(LINE, ENDING), min_size=1, max_size=12),
    st.lists(LINE, max_size=12),
    st.integers(0, 12),
    st.integers(0, 12),
)
# a new empty line after a line that ends in `\r`: an `\n` there would read as one `\r\n`
@example(lines=[("", "\n"), ("", "\r"), ("", "\n")], put=[""], at=0, cut=0)
def test_as_written_keeps_the_file_and_writes_only_its_endings(
    lines: list[tuple[str, str]], put: list[str], at: int, cut: int
) -> None:
    raw = "".join(line + end for line, end in lines[:-1]) + lines[-1][0]
    newline, endings = line_endings(raw) if "\r" in raw else ("\n", None)
    old = raw.replace("\r\n", "\n").replace("\r", "\n")
    old_lines = old.split("\n")
    at = min(at, len(old_lines))
    new = "\n".join(old_lines[:at] + put + old_lines[min(len(old_lines), at + cut) :])
    written_old, written_new = as_written(FileChange("p.md", old, new, newline, False, endings))
    assert written_old == raw
    assert written_new.replace("\r\n", "\n").replace("\r", "\n") == new
    assert set(re.findall("\r\n|\r|\n", written_new)) <= set(endings or ()) | {newline}
    if new == old:
        assert written_new == raw


@pytest.mark.parametrize(
    ("text", "newline", "endings"),
    [
        ("a\r\nb\r\n", "\r\n", None),
        ("a\rb\r", "\r", None),
        ("a\r\nb\nc\r\n", "\r\n", ("\r\n", "\n", "\r\n")),
        ("a\rb\nc", "\n", ("\r", "\n")),  # a tie: `\n`
        ("a\r\rb\r\n", "\r", ("\r", "\r", "\r\n")),
    ],
)
def test_line_endings_of_a_text(text: str, newline: str, endings: tuple[str, ...] | None) -> None:
    assert line_endings(text) == (newline, endings)


def test_json_says_which_findings_have_a_fix(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _tree(tmp_path, PLANNER_EXTRA)
    findings = cli(str(root), "--format", "json", "-q").json()["findings"]
    (finding,) = [f for f in findings if f["code"] == "DC202"]
    assert finding["fix"] == {
        "applicability": "safe",
        "description": "add `## PLANNING SPLIT` to the registry row",
    }


def test_a_symlinked_file_is_not_written_through(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _tree(tmp_path / "repo", {})
    real = root / "drafts/deploy.md"
    real.parent.mkdir(parents=True)
    real.write_text("---\nname: deploy-prod\ndescription: Use when deploying.\n---\n")
    (root / "skills/deploy").mkdir(parents=True)
    os.symlink(real, root / "skills/deploy/SKILL.md")
    # the link's target names `deploy-prod` too, which makes the rename unsafe
    run = cli(str(root), "--fix", "--unsafe-fixes", "-q", "--select", "DC503")
    assert run.code == 2
    assert "a link or outside the repository; not written" in run.err
    assert "name: deploy-prod" in real.read_text()


def test_a_new_row_follows_an_aligned_table(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    registry = (
        "# Agent Contracts\n\n## Agent Registry\n\n"
        "| Agent        | Role       | Completion Markers         |\n"
        "|--------------|------------|----------------------------|\n"
        "| gsd-planner  | Planning   | `## PLANNING COMPLETE`     |\n"
        "| gsd-executor | Execution  | `## PLAN COMPLETE`         |\n"
        "\nMore text.\n"
    )
    files = {
        "get-shit-done/references/agent-contracts.md": registry,
        "agents/gsd-planner.md": "```\n## PLANNING COMPLETE\n```\n",
        "agents/gsd-executor.md": "```\n## PLAN COMPLETE\n```\n",
        "agents/gsd-mapper.md": (
            "---\nname: gsd-mapper\ndescription: Maps code.\ntools: Read\n---\n"
        ),
        "commands/gsd/run.md": "Wait for `## PLANNING COMPLETE` or `## PLAN COMPLETE`.\n",
    }
    root = write_tree(tmp_path, files)
    run = cli(str(root), "--fix", "-q", "--select", "DC103")
    assert run.code == 0, run.out
    lines = (root / "get-shit-done/references/agent-contracts.md").read_text().splitlines()
    assert lines[8] == "| gsd-mapper   | Maps code  | No marker                  |"
    assert lines[9:] == ["", "More text."]


def test_the_rows_a_fix_adds_read_the_tables_layout_once(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Each new row is written in the table's style, worked out from every row once for
    all of them, not once per row (a 3,300-row registry took 12 ms a fix)."""
    from drift_check import parallel
    from drift_check.fixes import edits

    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")  # the fixes resolved in this process
    registry = (
        "# Agent Contracts\n\n## Agent Registry\n\n"
        "| Agent        | Role       | Completion Markers         |\n"
        "|--------------|------------|----------------------------|\n"
        "| gsd-planner  | Planning   | `## PLANNING COMPLETE`     |\n"
    )
    files = {
        "get-shit-done/references/agent-contracts.md": registry,
        "agents/gsd-planner.md": "```\n## PLANNING COMPLETE\n```\n",
        "commands/gsd/run.md": "Wait for `## PLANNING COMPLETE`.\n",
    }
    for name in ("gsd-a", "gsd-b", "gsd-c"):
        files[f"agents/{name}.md"] = f"---\nname: {name}\ndescription: Maps.\ntools: Read\n---\n"
    root = write_tree(tmp_path, files)
    calls = {"layout": 0, "style": 0}
    layout, style = edits._shared_pipes, edits._count_style

    def counted_layout(lines: list[str]) -> list[int] | None:
        calls["layout"] += 1
        return layout(lines)

    def counted_style(rows: tuple[object, ...]) -> tuple[bool, bool]:
        calls["style"] += 1
        return style(rows)  # type: ignore[arg-type]

    monkeypatch.setattr(edits, "_shared_pipes", counted_layout)
    monkeypatch.setattr(edits, "_count_style", counted_style)
    run = cli(str(root), "--fix", "-q", "--select", "DC103")
    assert run.code == 0, run.out
    lines = (root / "get-shit-done/references/agent-contracts.md").read_text().splitlines()
    assert lines[-3:] == [
        "| gsd-a        | Maps       | No marker                  |",
        "| gsd-b        | Maps       | No marker                  |",
        "| gsd-c        | Maps       | No marker                  |",
    ]
    assert calls == {"layout": 1, "style": 1}


def test_no_row_is_offered_for_a_name_that_would_split_the_table(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    odd = {"agents/gsd-a|b.md": "---\nname: gsd-a|b\ndescription: Odd.\n---\n"}
    plain = {"agents/gsd-ab.md": "---\nname: gsd-ab\ndescription: Plain.\n---\n"}
    root = write_tree(tmp_path, tree_files("gsd", {**odd, **plain}))
    found = cli(str(root), "--format", "json", "-q", "--select", "DC103").json()["findings"]
    fixes = {f["path"]: "fix" in f for f in found}
    assert fixes == {"agents/gsd-a|b.md": False, "agents/gsd-ab.md": True}


def test_a_removed_tool_is_dropped_only_where_the_edit_is_clean(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """DC607 removes an entry only with its separator on the same line or as a whole
    `- item` line, and never empties a list (no list means every tool)."""
    agents = {
        "agents/alone.md": "---\nname: alone\ndescription: A.\ntools: TeamDelete\n---\n",
        "agents/quoted.md": (
            '---\nname: quoted\ndescription: Q.\ntools:\n  - Read\n  - "TeamDelete"\n---\n'
        ),
        "agents/inline.md": "---\nname: inline\ndescription: I.\ntools: Read, TeamDelete\n---\n",
    }
    root = write_tree(tmp_path, tree_files("claude-code", agents))
    found = cli(str(root), "--format", "json", "-q", "--select", "DC607").json()["findings"]
    fixes = {f["path"]: f.get("fix") for f in found}
    assert fixes == {
        "agents/alone.md": None,
        "agents/quoted.md": None,
        "agents/inline.md": {"applicability": "unsafe", "description": "remove `TeamDelete`"},
    }


def test_renaming_a_retired_read_tag_never_sends_the_gate_to_an_agent_that_ignores_it(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    """DC401's fix must not create DC402: a tag that would reach an agent never mentioning
    the gate tag is reported, and left for a person."""
    root = _tree(
        tmp_path,
        {
            "gsd-core/workflows/map.md": (
                '# Map\n\nTask(subagent_type="gsd-mapper", prompt="\n<files_to_read>\nsrc/\n'
                '</files_to_read>\n"), then read MAP.md.\n'
            ),
            "gsd-core/workflows/quick.md": (
                '# Quick\n\nTask(subagent_type="gsd-planner", prompt="\n<files_to_read>\n'
                '.planning/STATE.md\n</files_to_read>\n"), then execute.\n'
            ),
        },
    )
    select = ("--select", "DC401,DC402")
    before = cli(str(root), "--format", "json", "-q", *select).json()["findings"]
    assert sorted((f["code"], f["path"], "fix" in f) for f in before) == [
        ("DC401", "gsd-core/workflows/map.md", False),
        ("DC401", "gsd-core/workflows/quick.md", True),
    ]
    run = cli(str(root), "--fix", "-q", *select)
    assert "fixed 1 finding" in run.err
    after = cli(str(root), "--format", "json", "-q", *select).json()["findings"]
    assert [(f["code"], f["path"]) for f in after] == [("DC401", "gsd-core/workflows/map.md")]
    assert "<required_reading>" in (root / "gsd-core/workflows/quick.md").read_text()


def test_a_name_still_used_elsewhere_is_not_renamed_by_the_safe_fix(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A `name:` fix would break "Use the test_runner subagent" and still print "All checks
    passed!": while another file uses the old name, the fix is unsafe and says where."""
    agent = "---\nname: test_runner\ndescription: Runs the tests.\ntools: Read, Bash\n---\n\nRun.\n"
    files = {
        "agents/test-runner.md": agent,
        "commands/test.md": "---\ndescription: Test.\n---\n\nUse the test_runner subagent.\n",
    }
    root = write_tree(tmp_path, tree_files("gaia", files))
    (finding,) = cli(str(root), "--format", "json", "-q", "--select", "DC602").json()["findings"]
    assert finding["fix"] == {
        "applicability": "unsafe",
        "description": "set `name: test-runner` (unsafe: `test_runner` is still used at"
        " commands/test.md:5)",
    }
    run = cli(str(root), "--fix", "-q", "--select", "DC602")
    assert run.code == 1
    assert "fixed 0 findings" in run.err
    assert (root / "agents/test-runner.md").read_text() == agent


def test_a_read_tag_rename_that_would_leave_a_reference_document_behind_is_unsafe(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    """DC401 renames the tag in the reference documents the receiving agent reads too; where
    one cannot be renamed with it (review.md still sends the old tag to the planner, and its
    fix waits for gsd-mapper's read-gate clause), the rename is half done: unsafe, saying so."""
    planner = PLANNER_EXTRA["agents/gsd-planner.md"].replace(
        "first.\n", "first.\nIn reviews mode, Read `gsd-core/references/planner-reviews.md`.\n"
    )
    files = {
        "agents/gsd-planner.md": planner,
        "gsd-core/references/planner-reviews.md": "Read the reviews from `<files_to_read>`.\n",
        "gsd-core/workflows/quick.md": (
            'Task(subagent_type="gsd-planner", prompt="<files_to_read>R.md</files_to_read>")\n'
        ),
    }
    root = _tree(tmp_path / "complete", files)
    (complete,) = cli(str(root), "--format", "json", "-q", "--select", "DC401").json()["findings"]
    assert complete["fix"] == {
        "applicability": "safe",
        "description": "rename `<files_to_read>` to `<required_reading>` here and in"
        " gsd-core/references/planner-reviews.md (read by `gsd-planner`)",
    }
    review = (
        '# Review\n\n## Map\n\nTask(subagent_type="gsd-mapper", prompt="<files_to_read>src/'
        '</files_to_read>")\n\n## Plan\n\nTask(subagent_type="gsd-planner", prompt="'
        '<files_to_read>R.md</files_to_read>")\n'
    )
    root = _tree(tmp_path / "half", {**files, "gsd-core/workflows/review.md": review})
    findings = cli(str(root), "--format", "json", "-q", "--select", "DC401").json()["findings"]
    fixes = {f["path"]: f.get("fix") for f in findings}
    assert fixes == {
        "gsd-core/workflows/quick.md": {
            "applicability": "unsafe",
            "description": "rename `<files_to_read>` to `<required_reading>` (unsafe:"
            " gsd-core/references/planner-reviews.md (read by `gsd-planner`) still names"
            " `<files_to_read>` and is left as it is, since other files send that tag to its"
            " readers or a reader never mentions the gate tag)",
        },
        "gsd-core/workflows/review.md": None,
    }
    quick = (root / "gsd-core/workflows/quick.md").read_text()
    assert "fixed 0 findings" in cli(str(root), "--fix", "-q", "--select", "DC401").err
    assert (root / "gsd-core/workflows/quick.md").read_text() == quick


def test_a_registry_fix_that_a_checker_would_contest_is_unsafe_and_says_why(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    """DC202 declaring a marker the agent shows only through a `Read` mention (GSD's own
    checker does not follow those), and DC103 adding a row whose marker nothing consumes
    (a DC301 until a person acts), are unsafe, and the description says what is left."""
    files: dict[str, str | None] = {
        "agents/gsd-planner.md": (
            "---\nname: gsd-planner\ndescription: Plans a phase.\ntools: Read, Write\n---\n\n"
            "Read every file in <required_reading> first.\n\n"
            "```markdown\n## PLANNING COMPLETE\n```\n\n"
            "Other formats: @~/.claude/gsd-core/references/planner-formats.md\n\n"
            "When revising, Read `gsd-core/references/planner-revision.md` first.\n"
        ),
        "gsd-core/references/planner-revision.md": (
            "# Revision\n\n```markdown\n## REVISION COMPLETE\n```\n"
        ),
        "gsd-core/workflows/plan.md": (
            '# Plan\n\n<step name="plan">\nTask(subagent_type="gsd-planner", prompt="\n'
            '<required_reading>\n.planning/ROADMAP.md\n</required_reading>\n")\n\n'
            "- On `## PLANNING COMPLETE`: execute.\n- On `## PLANNING BLOCKED`: stop.\n"
            "- On `## REVISION COMPLETE`: check again.\n</step>\n"
        ),
        "agents/gsd-auditor.md": (
            "---\nname: gsd-auditor\ndescription: Audits a phase.\ntools: Read\n---\n\n"
            "```markdown\n## AUDIT DONE\n```\n"
        ),
    }
    root = _tree(tmp_path, files)
    findings = cli(str(root), "--format", "json", "-q").json()["findings"]
    fixes = {f["code"]: f["fix"] for f in findings if f["code"] in ("DC103", "DC202")}
    assert fixes == {
        "DC202": {
            "applicability": "unsafe",
            "description": "add `## REVISION COMPLETE` to the registry row (unsafe:"
            " `gsd-planner` shows it only in a document reached through a `Read` mention,"
            " which checkers that follow only `@` includes (GSD's own) do not follow: they"
            " would report it declared but never emitted)",
        },
        "DC103": {
            "applicability": "unsafe",
            "description": "add a registry row for `gsd-auditor` (unsafe: nothing consumes"
            " `## AUDIT DONE`; add the branch that matches it or annotate it"
            " `(unconsumed: reason)` in the new row; `Consumed by` is left empty)",
        },
    }

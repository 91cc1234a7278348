"""Fixes on texts the run let go: after the scan no file's text is held; a fix, a diff or a
baseline reads the file again, checked against the bytes first read, and a file that changed
in between is refused in one line naming it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from drift_check import engine
from drift_check.config import load_config
from drift_check.facts import SourceChanged
from drift_check.scanners import files
from tests.conftest import fix_cases, tree_files, write_tree
from tests.rules.test_rule_cases import _check_fix

SKILL = "skills/deploy/SKILL.md"
MISNAMED = "---\nname: deploy-prod\ndescription: Use when deploying.\n---\n\n# Deploy\n"


@pytest.fixture
def rereads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """No text held beyond the file read last (budget 0), and every read again recorded."""
    monkeypatch.setattr(files, "TEXT_BUDGET", 0)
    monkeypatch.setattr(files, "TEXT_HOLD_ALL", -1)  # no tree is small enough to hold all
    seen: list[str] = []
    reread = files.Texts.reread

    def spy(self: files.Texts, source: Any) -> str:
        seen.append(source.path)
        return reread(self, source)

    monkeypatch.setattr(files.Texts, "reread", spy)
    return seen


@pytest.mark.parametrize(("code", "case"), fix_cases())
def test_fixes_apply_when_texts_are_not_held(
    code: str, case: dict, tmp_path: Path, cli, rereads: list[str]
) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files(case.get("base"), case.get("files")))
    _check_fix(code, case, tmp_path, cli)
    assert rereads  # the fixes' texts came from the files, not from memory


def test_the_scan_lets_every_text_go(tmp_path: Path) -> None:
    write_tree(tmp_path, tree_files("gsd", {SKILL: MISNAMED}))
    facts = engine.scan(load_config(str(tmp_path)))
    assert facts.sources and not [p for p, s in facts.sources.items() if s.held]
    assert facts.sources[SKILL].line_text(2) == "name: deploy-prod"  # read again


def test_a_source_read_again_is_checked_against_the_bytes_read(tmp_path: Path) -> None:
    write_tree(tmp_path, {"a.md": "one\r\ntwo\r\n", "b.md": "\ufeffb\n"})
    repo = files.Repo(str(tmp_path), budget=0)
    a, b = repo.read("a.md"), repo.read("b.md")
    assert a is not None and b is not None
    assert not a.held and b.held  # the last one read is kept
    assert (a.text, a.newline, b.text, b.bom) == ("one\ntwo\n", "\r\n", "b\n", True)
    (tmp_path / "a.md").write_text("one\r\nTWO\r\n", encoding="utf-8")
    repo.release()
    with pytest.raises(SourceChanged, match=r"^a\.md: changed on disk"):
        a.line_text(2)
    (tmp_path / "b.md").unlink()
    with pytest.raises(SourceChanged, match=r"^b\.md: "):
        b.text  # noqa: B018 (the read is the test)


QUICK = "gsd-core/workflows/quick.md"
LEGACY = 'Task(subagent_type="gsd-planner", prompt="\n<files_to_read>\nx.md\n</files_to_read>\n")\n'


@pytest.mark.parametrize(
    ("path", "content", "args"),
    [
        (SKILL, MISNAMED, ("--fix",)),  # the rule reads the line it rewrites
        (SKILL, MISNAMED, ("--diff",)),
        (SKILL, MISNAMED, ("--fix", "--select", "DC503")),
        (QUICK, LEGACY, ("--fix",)),  # the fix finds its edits only when it is applied
        (QUICK, LEGACY, ("--diff",)),
    ],
)
def test_a_file_changed_after_the_scan_is_refused(
    path: str, content: str, args: tuple[str, ...], tmp_path: Path, cli, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files("gsd", {path: content}))
    edited = content + "\nEdited meanwhile.\n"
    scan = engine.build_facts

    def scan_then_edit(*a: Any, **k: Any) -> Any:
        facts = scan(*a, **k)
        if (tmp_path / path).read_text(encoding="utf-8") != edited:  # after the first scan
            (tmp_path / path).write_text(edited, encoding="utf-8")
        return facts

    monkeypatch.setattr(engine, "build_facts", scan_then_edit)
    run = cli(str(tmp_path), *args, "-q")
    assert run.code == 2
    assert (
        run.err == f"drift-check: {path}: changed on disk since drift-check read it; run it again\n"
    )
    assert (tmp_path / path).read_text(encoding="utf-8") == edited
    assert run.out == ""


@pytest.mark.parametrize("text", ["", "a", "\n", "a\nbc\n", "\n\nx\n\ny", "ab\r\n"])
def test_positions_counted_before_the_line_table_agree_with_it(text: str) -> None:
    """A source answers its first positions by counting newlines (a file read again for one
    search needs one or two), then builds the table of line starts: both agree."""
    from drift_check.facts import Source

    for offset in range(len(text) + 2):
        counted, table = Source("a.md", text), Source("a.md", text)
        table.starts  # noqa: B018 (built first: every lookup after it is the table's)
        assert counted.position(offset) == table.position(offset), offset


def test_a_tree_scanned_holding_no_text_gives_the_same_report(
    cli, monkeypatch: pytest.MonkeyPatch, rereads: list[str]
) -> None:  # type: ignore[no-untyped-def]
    """Every scanner reads again what it needs when only the last file read is held (a
    large tree's case), and finds what it finds holding every text (a small tree's)."""
    examples = str(Path(__file__).resolve().parents[2] / "examples")
    monkeypatch.setattr(files, "TEXT_BUDGET", 1 << 40)
    held = cli(examples, "--format", "json", "-q")
    after_the_scan = len(rereads)  # the rules' fixes read their lines again
    monkeypatch.setattr(files, "TEXT_BUDGET", 0)
    monkeypatch.setattr("drift_check.scanners.markdown._KEPT", 0)
    let_go = cli(examples, "--format", "json", "-q")
    assert len(rereads) > 2 * after_the_scan + 10
    assert (let_go.code, let_go.out) == (held.code, held.out)


def test_a_small_tree_holds_every_text_through_the_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {f"{c}.md": c * 100 + "\n" for c in "abc"})
    monkeypatch.setattr(files, "TEXT_BUDGET", 0)  # the window: the last text read only
    repo = files.Repo(str(tmp_path))
    sources = [repo.read(f"{c}.md") for c in "abc"]
    assert all(s is not None and s.held for s in sources)  # 303 bytes: all held
    repo.release()
    assert not any(s is not None and s.held for s in sources)

    monkeypatch.setattr(files, "TEXT_HOLD_ALL", 302)  # one byte less: only the window
    repo = files.Repo(str(tmp_path))
    sources = [repo.read(f"{c}.md") for c in "abc"]
    assert [s is not None and s.held for s in sources] == [False, False, True]


def test_files_never_read_as_text_do_not_count_against_holding_every_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, {f"{c}.md": c * 100 + "\n" for c in "abc"})
    (tmp_path / "logo.png").write_bytes(b"\x89PNG" + bytes(1000))
    monkeypatch.setattr(files, "TEXT_BUDGET", 0)
    monkeypatch.setattr(files, "TEXT_HOLD_ALL", 303)  # the texts' bytes, not the image's
    repo = files.Repo(str(tmp_path))
    sources = [repo.read(f"{c}.md") for c in "abc"]
    assert all(s is not None and s.held for s in sources)

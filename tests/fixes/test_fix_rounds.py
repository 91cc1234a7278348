"""The fix room: the planner, the rounds run in memory, the check before writing, `--diff`
equal to what `--fix` writes, `--fix --baseline`, and fixes against their rules' metadata."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from drift_check.config import load_config
from drift_check.engine import Report, run
from drift_check.facts import Source
from drift_check.fixes import Applicability, Edit, Fix
from drift_check.fixes.planner import apply, plan, select
from drift_check.fixes.rounds import new_findings, run_rounds
from drift_check.rules import ALL_RULES
from drift_check.rules.base import Finding
from tests.conftest import CORPUS, FIXTURES, fix_cases, load_yaml, tree_files, write_tree

REGISTRY = "gsd-core/references/agent-contracts.md"
RULES = {r.code: r for r in ALL_RULES}


def _finding(n: int, fix: Fix | None, path: str = "a.md") -> Finding:
    return Finding(path, n, 1, f"DC{n:03}", "message", "name", "error", fix=fix)


def _edit(line: int, start: int, end: int, text: str) -> Edit:
    return Edit("a.md", line, start, line, end, text)


class _Facts:
    def __init__(self, text: str) -> None:
        self.sources = {"a.md": Source("a.md", text)}


def test_the_planner_defers_an_overlapping_fix_and_skips_unsafe_ones() -> None:
    facts = _Facts("abcdef\n")
    first = _finding(1, Fix("one", Applicability.SAFE, (_edit(1, 1, 3, "X"),)))
    overlapping = _finding(2, Fix("two", Applicability.SAFE, (_edit(1, 2, 4, "Y"),)))
    unsafe = _finding(3, Fix("three", Applicability.UNSAFE, (_edit(1, 5, 6, "Z"),)))
    later = _finding(4, Fix("four", Applicability.SAFE, (_edit(1, 6, 7, "W"),)))
    chosen = select([first, overlapping, unsafe, later], facts, unsafe=False)  # type: ignore[arg-type]
    assert [p.finding for p in chosen] == [first, later]
    assert apply(chosen, {"a.md": "abcdef\n"}) == {"a.md": "XcdeW\n"}
    with_unsafe = select([first, overlapping, unsafe, later], facts, unsafe=True)  # type: ignore[arg-type]
    assert [p.finding for p in with_unsafe] == [first, unsafe, later]


def test_insertions_at_one_point_keep_the_findings_order() -> None:
    facts = _Facts("a\n")
    fixes = [
        _finding(n, Fix(str(n), Applicability.SAFE, (_edit(2, 1, 1, f"{n}\n"),))) for n in (1, 2)
    ]
    (change,) = plan(fixes, facts, unsafe=False)  # type: ignore[arg-type]
    assert change.new == "a\n1\n2\n"


def test_a_fix_that_changes_nothing_changes_no_file() -> None:
    facts = _Facts("same\n")
    noop = _finding(1, Fix("noop", Applicability.SAFE, (_edit(1, 1, 5, "same"),)))
    assert plan([noop], facts, unsafe=False) == []  # type: ignore[arg-type]


def _report(root: Path, overlay: dict[str, str] | None = None) -> Report:
    return run(load_config(str(root), None), overlay=overlay)


# an agent emits a marker its row does not declare (DC202, a safe fix) that no workflow
# matches: declaring it would create DC301 (a declared marker nobody consumes)
UNCONSUMED = {
    "agents/gsd-planner.md": str(tree_files("gsd", None)["agents/gsd-planner.md"])
    + "\n```markdown\n## PLANNING STALLED\n```\n",
}


def test_the_rules_read_the_overlay_and_nothing_is_written(tmp_path: Path) -> None:
    root = write_tree(tmp_path, tree_files("gsd", UNCONSUMED))
    agent = root / "agents/gsd-planner.md"
    before = agent.read_bytes()
    text = before.decode().replace("## PLANNING STALLED", "## PLANNING COMPLETE")
    report = _report(root, {"agents/gsd-planner.md": text})
    assert report.facts.sources["agents/gsd-planner.md"].text == text
    assert "DC202" not in {f.code for f in report.findings}
    assert agent.read_bytes() == before


def test_a_fix_that_would_create_a_finding_is_withheld(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path, tree_files("gsd", UNCONSUMED))
    before = (root / REGISTRY).read_bytes()
    report = _report(root)
    assert [f.code for f in report.findings] == ["DC202"]
    outcome = run_rounds(
        report, lambda texts: _report(root, texts), True, lambda r: list(r.findings)
    )
    assert outcome.changes == []
    (withheld,) = outcome.withheld
    assert (withheld.finding.code, withheld.created.code) == ("DC202", "DC301")
    result = cli(str(root), "--fix", "-q")
    assert (root / REGISTRY).read_bytes() == before
    assert "drift-check: withheld the DC202 fix at agents/gsd-planner.md:16:1" in result.err
    assert "it would create DC301 at gsd-core/references/agent-contracts.md:" in result.err
    assert result.err.endswith(
        "drift-check: fixed 0 findings, 1 left for a person, 1 fix withheld, 0 new\n"
    )
    diff = cli(str(root), "--diff", "-q")
    assert (diff.code, diff.out) == (0, "")
    assert "withheld the DC202 fix" in diff.err


def test_the_check_splits_a_round_and_keeps_the_clean_fixes(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = dict(UNCONSUMED)
    files["skills/deploy/SKILL.md"] = (
        "---\nname: deploy-prod\ndescription: Use when deploying.\n---\n"
    )
    files["skills/review/SKILL.md"] = "---\nname: reviewing\ndescription: Use to review.\n---\n"
    root = write_tree(tmp_path, tree_files("gsd", files))
    result = cli(str(root), "--fix", "-q")
    assert "name: deploy\n" in (root / "skills/deploy/SKILL.md").read_text()
    assert "name: review\n" in (root / "skills/review/SKILL.md").read_text()
    assert "PLANNING STALLED" not in (root / REGISTRY).read_text()
    assert result.err.endswith(
        "drift-check: fixed 2 findings, 1 left for a person, 1 fix withheld, 0 new\n"
    )


def test_a_finding_whose_line_a_fix_edits_is_not_new(tmp_path: Path) -> None:
    root = write_tree(tmp_path, tree_files("gsd", UNCONSUMED))
    before = _report(root)
    registry = before.facts.sources[REGISTRY].text
    row = next(line for line in registry.split("\n") if line.startswith("| gsd-planner "))
    edited = registry.replace(
        row, row.replace("`## PLANNING COMPLETE`", "`## PLANNING COMPLETE`, `## PLANNING STALLED`")
    )
    after = _report(root, {REGISTRY: edited})
    created = new_findings(before, after, {REGISTRY})
    assert [f.code for f in created] == ["DC301"]
    # the same finding on an edited line is matched by code, path, agent and marker
    assert new_findings(after, after._replace(findings=after.findings), {REGISTRY}) == []


def _fresh(root: Path, files: dict[str, str | bytes]) -> Path:
    root.mkdir()
    return write_tree(root, files)


def _snapshot(root: Path) -> dict[str, bytes]:
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            if not path.is_symlink():
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def _diff_equals_fix(tmp_path: Path, make, cli, extra: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    """`--diff` applied with `git apply` to one fresh copy gives, byte for byte, what `--fix`
    writes to another."""
    for unsafe in ((), ("--unsafe-fixes",)):
        tag = "unsafe" if unsafe else "safe"
        diffed, fixed = make(tmp_path / f"diffed-{tag}"), make(tmp_path / f"fixed-{tag}")
        diff = cli(str(diffed), "--diff", "-q", *unsafe, *extra)
        assert diff.code in (0, 1), diff.err
        if diff.out:
            patch = tmp_path / f"{tag}.patch"
            patch.write_text(diff.out, encoding="utf-8")
            subprocess.run(
                ["git", "apply", "--whitespace=nowarn", str(patch)],
                cwd=diffed,
                check=True,
                capture_output=True,
            )
        cli(str(fixed), "--fix", "-q", *unsafe, *extra)
        assert _snapshot(diffed) == _snapshot(fixed)


needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


@pytest.mark.slow
@needs_git
@pytest.mark.parametrize(("code", "case"), fix_cases())
def test_diff_is_what_fix_writes_on_every_fix_case(
    code: str, case: dict, tmp_path: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    files = tree_files(case.get("base"), case.get("files"))
    _diff_equals_fix(
        tmp_path, lambda root: _fresh(root, files), cli, ("--select", case.get("select", code))
    )


def _corpus_copy(root: Path) -> Path:
    shutil.copytree(CORPUS, root, symlinks=True)
    for folder, _, names in os.walk(root):  # the corpus is read-only; its copy must not be
        os.chmod(folder, 0o755)
        for name in names:
            if not os.path.islink(os.path.join(folder, name)):
                os.chmod(os.path.join(folder, name), 0o644)
    return root


@pytest.mark.slow
@needs_git
@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus not present")
def test_diff_is_what_fix_writes_on_the_gsd_corpus(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _diff_equals_fix(tmp_path, _corpus_copy, cli, ())


def test_fix_with_a_baseline_touches_only_new_findings(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    old = "---\nname: deploy-prod\ndescription: Use when deploying.\n---\n"
    root = write_tree(tmp_path / "tree", tree_files("gsd", {"skills/deploy/SKILL.md": old}))
    baseline = tmp_path / "baseline.json"
    assert cli(str(root), "--baseline-write", str(baseline), "-q").code == 0
    new = "---\nname: reviewing\ndescription: Use to review.\n---\n"
    write_tree(root, {"skills/review/SKILL.md": new})
    result = cli(str(root), "--fix", "--baseline", str(baseline), "-q")
    assert (root / "skills/deploy/SKILL.md").read_text() == old
    assert "name: review\n" in (root / "skills/review/SKILL.md").read_text()
    assert result.code == 0, result.out
    assert result.err.endswith(
        "drift-check: fixed 1 finding, 0 left for a person, 0 fixes withheld, 0 new\n"
    )
    diff = cli(str(root), "--diff", "--baseline", str(baseline), "-q")
    assert diff.out == ""


def _all_cases() -> list[object]:
    out = []
    for path in sorted((FIXTURES / "rules").glob("*.yaml")):
        data = load_yaml(path)
        for n, case in enumerate(data["cases"]):
            if case.get("expect"):
                out.append(pytest.param(data["rule"], case, id=f"{data['rule']}-{n}"))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("code", "case"), _all_cases())
def test_every_fix_matches_its_rules_metadata(code: str, case: dict, tmp_path: Path) -> None:
    """A rule declared `safe` yields only safe fixes, `unsafe` only unsafe ones, `sometimes`
    either; a rule that declares none yields none; every fix resolves to edits of files read."""
    root = write_tree(tmp_path, tree_files(case.get("base"), case.get("files")))
    report = _report(root)
    for f in report.findings:
        declared = RULES[f.code].fix
        if f.fix is None:
            continue
        assert declared is not None, f"{f.code} yields a fix but declares none"
        assert f.fix.applicability in (Applicability.SAFE, Applicability.UNSAFE)
        if declared != Applicability.SOMETIMES:
            assert f.fix.applicability == declared, f"{f.code}: {f.fix.description}"
        for e in f.fix.resolve():
            assert e.path in report.facts.sources
            assert (e.line, e.column) <= (e.end_line, e.end_column)


SKILL = (
    "---\nname: deploy-prod\ndescription: Use when deploying.\n---\n\n"
    "Use when\u2028 deploying.\x85x\x0cy\n"
)


@needs_git
@pytest.mark.parametrize(
    "data",
    [
        SKILL.encode(),
        SKILL.rstrip("\n").encode(),  # no newline at the end
        SKILL.replace("\n", "\r\n").encode(),
        b"\xef\xbb\xbf" + SKILL.encode(),
    ],
    ids=["lf", "no-final-newline", "crlf", "bom"],
)
def test_diff_is_in_the_files_own_bytes(data: bytes, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Line endings, a byte-order mark, a last line without a newline, and characters that
    Python (not git) takes for line breaks: `git apply` of the diff still gives what --fix
    writes."""
    files = {"skills/deploy/SKILL.md": data}
    _diff_equals_fix(tmp_path, lambda root: _fresh(root, files), cli, ())


def test_a_fix_that_leaves_its_finding_is_applied_once(tmp_path: Path) -> None:
    """A fix whose finding is still there after it was applied is not applied again in the
    next round (it would append the same text ten times)."""
    root = write_tree(tmp_path, tree_files("gsd", None))
    path = "agents/gsd-planner.md"

    def stubborn(report: Report) -> Report:
        end = len(report.facts.sources[path].text.split("\n"))
        fix = Fix("append", Applicability.SAFE, (Edit(path, end, 1, end, 1, "x\n"),))
        finding = Finding(path, 1, 1, "DC999", "still here", "stubborn", "error", fix=fix)
        return report._replace(findings=(finding,))

    start = stubborn(_report(root))
    outcome = run_rounds(
        start, lambda texts: stubborn(_report(root, texts)), False, lambda r: list(r.findings)
    )
    (change,) = outcome.changes
    assert change.new == change.old + "x\n"
    assert outcome.withheld == []


def test_with_a_baseline_a_fix_that_would_change_a_baselined_key_is_withheld(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    """A baselined DC301 on the planner's row: declaring a new marker on that row changes
    the row's text, so the baselined finding would come back as new; the fix is withheld
    with --baseline, and applied without one."""
    base = tree_files("gsd", None)
    row = "`## PLANNING COMPLETE`, `## PLANNING BLOCKED`"
    planner = str(base["agents/gsd-planner.md"])
    files = {
        REGISTRY: str(base[REGISTRY]).replace(row, row + ", `## PLANNING PAUSED`"),
        "agents/gsd-planner.md": planner + "\n```markdown\n## PLANNING PAUSED\n```\n",
    }
    stalled = {
        "agents/gsd-planner.md": files["agents/gsd-planner.md"]
        + "\n```markdown\n## PLANNING STALLED\n```\n",
        "gsd-core/workflows/plan.md": str(base["gsd-core/workflows/plan.md"])
        + "\nOn `## PLANNING STALLED` stop.\n",
    }
    baseline = tmp_path / "baseline.json"
    for name, args in (("with", ("--baseline", str(baseline))), ("without", ())):
        root = write_tree(tmp_path / name, tree_files("gsd", files))
        assert cli(str(root), "--baseline-write", str(baseline), "-q").code == 0
        write_tree(root, stalled)
        result = cli(str(root), "--fix", "-q", *args)
        declared = "`## PLANNING STALLED`" in (root / REGISTRY).read_text()
        if args:
            assert not declared
            assert "withheld the DC202 fix" in result.err
            assert "it would create DC301" in result.err
        else:
            assert declared, result.err
            assert result.err.endswith("0 fixes withheld, 0 new\n"), result.err

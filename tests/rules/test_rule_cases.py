"""Every rule's cases, as data: tests/fixtures/rules/<CODE>.yaml.

A case is a tree (a base tree plus the files that differ), and the positions
(`path:line:col`) of the findings the rule must report there, no more and no fewer:

    rule: DC101
    cases:
      - name: what this case shows
        base: gsd              # optional: start from tests/fixtures/trees/gsd.yaml
        files:                 # files to add or replace
          path/in/tree.md: |   # text, written as UTF-8
            content
          gone.md: null        # null deletes a base file
          logo.md: !!binary |  # base64 of raw bytes (binary, Latin-1, UTF-16 ...)
            iVBORw0KGgo=
          link.md: !symlink /etc/passwd   # a symbolic link to this target
        expect:                # path:line:col of every finding of this rule; [] when clean
          - gsd-core/references/agent-contracts.md:9:3
        message_contains: ["a substring of some finding's message"]   # optional
        message_lacks: ["a substring no finding's message holds"]     # optional
        select: "DC010,DC103"  # optional: the rules to run (default: this rule alone)
        fixed:                 # optional: files after `--fix --unsafe-fixes` (see _check_fix);
          path/in/tree.md: |   # all as they were: no fix is offered
            content
        withheld: DC301        # optional: the fix in `fixed` would create this finding, so
                               # --fix withholds it (SARIF still offers it to a person)
        xfail: "why"           # optional: a known bug; `expect` says what SHOULD be reported

Lines and columns are 1-based; a column counts characters, not bytes. An `xfail` case is
strict: it fails the suite once the bug is fixed, so that the marker gets removed.

The exit code is checked too, from the severities of the findings in the JSON output: 1
when any finding is an error or a warning, 0 when there are none or all are `info` (an
info rule such as DC901 reports without failing the run).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drift_check.rules import ALL_RULES
from tests.conftest import FIXTURES, git_diff, load_yaml, tree_files, write_tree

CASE_FILES = sorted((FIXTURES / "rules").glob("*.yaml"))


def _cases() -> list[object]:
    out = []
    for path in CASE_FILES:
        data = load_yaml(path)
        for case in data["cases"]:
            marks = (
                [pytest.mark.xfail(reason=case["xfail"], strict=True)] if "xfail" in case else []
            )
            out.append(
                pytest.param(data["rule"], case, id=f"{data['rule']}: {case['name']}", marks=marks)
            )
    return out


@pytest.mark.parametrize(("code", "case"), _cases())
def test_rule_case(code: str, case: dict, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files(case.get("base"), case.get("files")))
    run = cli(str(tmp_path), "--format", "json", "--select", case.get("select", code), "-q")
    assert run.code in (0, 1), run.err
    found = sorted(
        f"{f['path']}:{f['line']}:{f['column']}"
        for f in run.json()["findings"]
        if f["code"] == code
    )
    assert found == sorted(case["expect"] or [])
    failing = any(f["severity"] != "info" for f in run.json()["findings"])
    assert run.code == (1 if failing else 0)
    for needle in case.get("message_contains", []):
        assert any(needle in f["message"] for f in run.json()["findings"]), needle
    for needle in case.get("message_lacks", []):
        assert not any(needle in f["message"] for f in run.json()["findings"]), needle
    if "fixed" in case:
        _check_fix(code, case, tmp_path, cli)


def _check_fix(code: str, case: dict, root: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """`fixed` maps paths to their content after `--fix --unsafe-fixes` of this rule alone;
    `--diff` must show that change first, and a second `--fix` must change nothing. With
    `withheld`, the fix would create a finding of that code: `--diff` and `--fix` say so and
    change nothing."""
    select = ("--select", case.get("select", code))
    before = {p: (root / p).read_text(encoding="utf-8") for p in case["fixed"]}
    if "withheld" in case:
        for args in (("--diff",), ("--fix",)):
            run = cli(str(root), *args, "--unsafe-fixes", "-q", *select)
            assert f"fix at {case['expect'][0]} (" in run.err, run.err
            assert f"it would create {case['withheld']} at " in run.err, run.err
            assert {p: (root / p).read_text(encoding="utf-8") for p in case["fixed"]} == before
        return
    diff = cli(str(root), "--diff", "--unsafe-fixes", "-q", *select)
    if case["fixed"] == before:  # no fix offered: nothing to show, nothing written
        assert (diff.code, diff.out) == (0, ""), diff.out
        again = cli(str(root), "--fix", "--unsafe-fixes", "-q", *select)
        assert "fixed 0 findings" in again.err
        assert {p: (root / p).read_text(encoding="utf-8") for p in case["fixed"]} == before
        return
    assert diff.code == 1
    expected = git_diff(
        {p: before[p].encode() for p in case["fixed"]},
        {p: text.encode() for p, text in case["fixed"].items()},
    )
    assert diff.out == expected
    assert {p: (root / p).read_text(encoding="utf-8") for p in case["fixed"]} == before
    cli(str(root), "--fix", "--unsafe-fixes", "-q", *select)
    for path, content in case["fixed"].items():
        assert (root / path).read_text(encoding="utf-8") == content, path
    again = cli(str(root), "--fix", "--unsafe-fixes", "-q", *select)
    assert "fixed 0 findings" in again.err


def test_every_rule_has_a_failing_and_a_passing_case() -> None:
    covered: dict[str, set[bool]] = {}
    for path in CASE_FILES:
        data = load_yaml(path)
        assert path.stem == data["rule"], f"{path.name} holds cases of {data['rule']}"
        for case in data["cases"]:
            covered.setdefault(data["rule"], set()).add(bool(case["expect"]))
    missing = [r.code for r in ALL_RULES if covered.get(r.code) != {True, False}]
    assert not missing, f"rules without both a failing and a passing case: {missing}"


def test_base_tree_is_clean(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files("gsd", None))
    run = cli(str(tmp_path), "--format", "json", "-q")
    assert run.json()["findings"] == []
    assert run.code == 0

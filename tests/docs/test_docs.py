"""Generated documentation cannot drift from the rule metadata it is generated from."""

from __future__ import annotations

import json
import re
from pathlib import Path

from drift_check.docs import generate
from drift_check.rules import ALL_RULES
from drift_check.settings import EXTENDS, SETTINGS

ROOT = Path(__file__).resolve().parents[2]


def test_generated_docs_are_current() -> None:
    stale = [
        str(path.relative_to(ROOT))
        for path, content in generate(ROOT).items()
        if not path.exists() or path.read_text(encoding="utf-8") != content
    ]
    assert not stale, f"run `python -m drift_check.docs`; stale: {stale}"


def test_the_settings_table_is_the_schema() -> None:
    """docs/configuration.md lists every setting of drift_check/settings.py, in order, and
    names every `extend-` form."""
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    generated = page.split("<!-- settings-table:begin -->")[1].split("<!-- settings-table:end")[0]
    table = generated.split("\n\n")[0]
    assert re.findall(r"^\| `([a-z-]+)` \|", table, re.M) == [s.name for s in SETTINGS]
    assert set(re.findall(r"`(extend-[a-z-]+)`", generated)) == set(EXTENDS)


def test_no_rule_page_without_a_rule() -> None:
    pages = {p.stem for p in (ROOT / "docs" / "rules").glob("*.md")}
    assert pages == {r.code for r in ALL_RULES}


def test_rule_metadata_is_complete() -> None:
    names = set()
    for r in ALL_RULES:
        assert r.code.startswith("DC") and len(r.code) == 5
        assert r.name == r.name.lower() and " " not in r.name
        assert r.severity in ("error", "warning", "info")
        assert r.summary.endswith(".") and r.explanation and r.failing and r.passing
        names.add(r.name)
    assert len(names) == len(ALL_RULES)


def test_the_editor_problem_matcher_reads_every_finding_line(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(ROOT)
    page = (ROOT / "docs" / "output-formats.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- editor:vscode -->\n```json\n(.*?)```\n", page, re.S)
    assert block is not None
    matcher = json.loads(block.group(1))["problemMatcher"]["pattern"]
    pattern = re.compile(matcher["regexp"])
    run = cli("examples", "-q", "--format", "json")
    findings = run.json()["findings"]
    lines = cli("examples", "-q").out.splitlines()[: len(findings)]
    for line, finding in zip(lines, findings, strict=True):
        m = pattern.match(line)
        assert m is not None, line
        assert m.group(matcher["file"]) == f"examples/{finding['path']}"
        assert int(m.group(matcher["line"])) == finding["line"]
        assert int(m.group(matcher["column"])) == finding["column"]
        assert m.group(matcher["code"]) == finding["code"]
        assert m.group(matcher["message"]).endswith(finding["message"])

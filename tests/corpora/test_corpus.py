"""drift-check on the real GSD corpus in ../shared (skipped when it is absent).

docs/corpus-review.md lists the 53 findings GSD's own check reports there, with drift-check's
code for each, and the reviewed findings drift-check adds. The run must report exactly those.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import CORPUS

REVIEW = Path(__file__).resolve().parents[2] / "docs" / "corpus-review.md"
ROW = re.compile(r"^\|(?: [a-z_]+ \|)? (DC\d{3}) \| `([^`]+):(\d+)` \|", re.M)

pytestmark = [
    pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared corpus not present"),
    pytest.mark.slow,  # the real corpora
]


def _documented() -> tuple[set[tuple[str, str, int]], int]:
    text = REVIEW.read_text(encoding="utf-8")
    reference = text.split("## The 53 reference findings", 1)[1].split("## What drift-check adds")[
        0
    ]
    rows = {(m[1], m[2], int(m[3])) for m in ROW.finditer(text)}
    return rows, len(ROW.findall(reference))


def test_corpus_findings_are_exactly_the_reviewed_ones(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli(str(CORPUS), "--format", "json")
    assert run.code == 1
    assert "preset 'gsd' detected from get-shit-done/references/agent-contracts.md" in run.err
    found = {(f["code"], f["path"], f["line"]) for f in run.json()["findings"]}
    documented, reference_count = _documented()
    assert reference_count == 53
    assert sorted(documented - found) == [], "documented findings drift-check no longer reports"
    assert sorted(found - documented) == [], "findings not reviewed in docs/corpus-review.md"


def test_corpus_registry_facts(cli) -> None:  # type: ignore[no-untyped-def]
    summary = cli(str(CORPUS), "--format", "json", "-q").json()["summary"]
    assert summary["registry_rows"] == 22
    assert summary["agents"] == 33


def test_corpus_output_is_deterministic(cli) -> None:  # type: ignore[no-untyped-def]
    first = cli(str(CORPUS), "-q").out
    assert first == cli(str(CORPUS), "-q").out
    assert (
        cli(str(CORPUS), "--format", "json", "-q").out
        == cli(str(CORPUS), "--format", "json", "-q").out
    )


def test_fix_on_a_copy_leaves_only_what_needs_a_person(tmp_path, cli) -> None:  # type: ignore[no-untyped-def]
    """docs/fixes.md lists what is left after `--fix --unsafe-fixes` and why."""
    import os
    import shutil

    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    for folder, _, names in os.walk(copy):  # the corpus is read-only; its copy must not be
        os.chmod(folder, 0o755)
        for name in names:
            if not os.path.islink(os.path.join(folder, name)):
                os.chmod(os.path.join(folder, name), 0o644)
    run = cli(str(copy), "--fix", "--unsafe-fixes", "--format", "json", "-q")
    left = Counter(f["code"] for f in run.json()["findings"])
    assert left == Counter(
        DC005=1, DC201=2, DC202=3, DC204=1, DC205=1, DC301=2, DC302=2, DC305=2, DC961=1
    )  # each explained in docs/fixes.md; none of them new
    assert run.err.endswith(", 0 new\n"), run.err
    again = cli(str(copy), "--fix", "--unsafe-fixes", "-q")
    assert "fixed 0 findings" in again.err
    assert cli(str(CORPUS), "-q", "--format", "json").json()["summary"]["findings"] == 59

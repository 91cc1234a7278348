"""drift-check on the plugin corpora in ../shared/corpora (skipped when absent): the run
gives exactly what docs/corpus-review-plugins.md records, each finding read by hand there."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import SHARED

pytestmark = pytest.mark.slow  # the real corpora

REVIEW = Path(__file__).resolve().parents[2] / "docs" / "corpus-review-plugins.md"
ROW = re.compile(r"^\| (DC\d{3}) \| (\d+) \| (.*?) \| .* \|$", re.M)
LOCATION = re.compile(r"`([^`\s]+):(\d+)`")


def _sections() -> dict[str, str]:
    text = REVIEW.read_text(encoding="utf-8")
    parts = re.split(r"^## (\S+)\n", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


SECTIONS = _sections()


@pytest.mark.skipif(not (SHARED / "corpora").is_dir(), reason="../shared corpora not present")
@pytest.mark.parametrize("corpus", sorted(SECTIONS))
def test_the_run_is_exactly_the_reviewed_findings(corpus: str, cli) -> None:  # type: ignore[no-untyped-def]
    run = cli(str(SHARED / "corpora" / corpus), "--format", "json", "-q")
    assert run.code in (0, 1), run.err
    findings = run.json()["findings"]
    rows = ROW.findall(SECTIONS[corpus])
    assert rows, f"no review rows for {corpus}"
    documented = {code: int(n) for code, n, _ in rows}
    assert dict(Counter(f["code"] for f in findings)) == documented
    for code, _, where in rows:
        listed = {(path, int(line)) for path, line in LOCATION.findall(where)}
        if listed:
            found = {(f["path"], f["line"]) for f in findings if f["code"] == code}
            assert found == listed, code


def test_the_review_covers_the_three_corpora() -> None:
    assert sorted(SECTIONS) == [
        "laurigates-claude-plugins-d687dc39",
        "superpowers-44c9b2d6",
        "voltagent-subagents-c9e51ec",
    ]

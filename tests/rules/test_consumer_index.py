"""The multi-pattern consumer search agrees with a plain search per marker and per file."""

from __future__ import annotations

from pathlib import Path

from drift_check.config import load_config
from drift_check.facts import Facts
from drift_check.scanners import build_facts
from drift_check.scanners.occurrences import find_occurrences
from tests.conftest import tree_files, write_tree

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _facts(tmp_path: Path) -> Facts:
    files = tree_files("gsd", None)
    files["gsd-core/workflows/extra.md"] = (
        "Wait for `## plan complete` (wrong case), then ## PLANNING COMPLETE twice:\n"
        "PLANNING COMPLETE. And ⚠ unicode before ## Plan Complete.\n"
    )
    files["agents/gsd-planner.md"] += "\n```markdown\n## Result Summary\n```\n"
    files["hooks/more.py"] = 'X = "## PLAN COMPLETE"  # PLANNING BLOCKED in a comment\n'
    return build_facts(load_config(str(write_tree(tmp_path, files))))


def _markers(facts: Facts) -> list[str]:
    assert facts.registry is not None
    return sorted({m.text for row in facts.registry.rows for m in row.markers})


def test_exact_pass_equals_a_find_per_file(tmp_path: Path) -> None:
    for facts in (_facts(tmp_path), build_facts(load_config(str(EXAMPLES)))):
        exact = find_occurrences(facts.consumers, _markers(facts)).exact
        for marker in _markers(facts):
            expected = [
                (path, facts.consumers[path].find(marker), marker)
                for path in sorted(facts.consumers)
                if facts.consumers[path].find(marker) is not None
            ]
            assert [tuple(o) for o in exact.get(marker, ())] == expected, marker
            assert facts.occurrences.exact.get(marker, ()) == exact.get(marker, ()), marker


def _folded_find(facts: Facts, marker: str) -> list[tuple[str, int, int]]:
    """The plain way: lower both sides (ASCII only, as the index does) and find."""
    out = []
    for path in sorted(facts.consumers):
        consumer = facts.consumers[path]
        if consumer.literals is not None:
            hit = next(
                (lit for lit in consumer.literals if marker.lower() in lit.value.lower()), None
            )
            if hit is not None:
                out.append((path, hit.position.line, hit.position.column))
            continue
        text = consumer.source.text
        folded = text.encode().lower()
        i = folded.find(marker.lower().encode())
        if i >= 0:
            pos = consumer.source.position(len(folded[:i].decode("utf-8")))
            out.append((path, pos.line, pos.column))
    return out


def test_folded_pass_equals_a_folded_find_per_file(tmp_path: Path) -> None:
    facts = _facts(tmp_path)
    folded = find_occurrences(facts.consumers, _markers(facts)).folded
    for marker in _markers(facts):
        got = [(o.path, o.position.line, o.position.column) for o in folded.get(marker, ())]
        assert got == _folded_find(facts, marker), marker
    plan = {o.path: o for o in folded["PLAN COMPLETE"]}["gsd-core/workflows/extra.md"]
    assert tuple(plan.position)[1:] == (1, 14)  # the `plan` of `## plan complete`
    assert plan.written == "plan complete"


def test_every_marker_heading_and_quote_is_searched(tmp_path: Path) -> None:
    facts = _facts(tmp_path)
    assert "plan complete" in {q.text for q in facts.quoted_markers}
    assert "gsd-core/workflows/extra.md" in {
        o.path for o in facts.occurrences.exact["plan complete"]
    }
    emitted = {e.text for a in facts.all_agents for e in a.emissions}
    shaped = {t for t in emitted if t.isupper()}
    assert shaped and shaped <= set(facts.occurrences.folded)  # each agent file consumes its own
    assert "Result Summary" in emitted  # a heading, not marker-shaped, quoted by nobody:
    assert "Result Summary" not in facts.occurrences.folded  # no rule asks who consumes it

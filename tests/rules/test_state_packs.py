"""The packs for the three seed systems, each found with zero config and each reporting
exactly the drifts planted in a tree shaped like its seed (and nothing on the fixed twin):

- gaia (seed 000): tests/rules/test_gaia_states.py;
- gdskills (seed 001, keryx's contract skills): tests/fixtures/trees/contract-skills.yaml;
- envelope (seed 003, agentic-workflow's orchestration envelope):
  tests/fixtures/trees/envelope.yaml.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import tree_files, write_tree

SKILL = "src/gdskills/bundled/skills/orchestration/context-collector"
PROMPT = f"{SKILL}/orchestrator-prompt.md"
PACKAGE = "packages/agentic-workflow-schema"

TREES = {
    "contract-skills": (
        "gdskills+agent-skills",
        # the template claims the skill's schema: its `refresh` is DC925's (structured rules)
        {("DC925", PROMPT, 9, 27), ("DC950", PROMPT, 21, 4)},
        {
            PROMPT: [
                ("collect | refresh", "collect | update"),
                ("   - `error` →", "   - `partial` → use what was collected\n   - `error` →"),
            ]
        },
    ),
    "envelope": (
        "envelope+agent-skills",
        {
            ("DC950", "docs/workflow/ORCHESTRATION.md", 5, 3),
            ("DC953", f"{PACKAGE}/envelope.schema.json", 6, 23),
            ("DC952", f"{PACKAGE}/src/index.ts", 7, 4),
        },
        {
            "docs/workflow/ORCHESTRATION.md": [
                ("| `BLOCKED` |", "| `READY_FOR_AUDIT` | `/audit-pr` | strong |\n| `BLOCKED` |")
            ],
            f"{PACKAGE}/envelope.schema.json": [('"BLOCKED"]', '"BLOCKED", "HALT"]')],
            f"{PACKAGE}/src/index.ts": [('  "PAUSED",\n', "")],
        },
    ),
}


def _edited(tree: str, edits: dict[str, list[tuple[str, str]]]) -> dict[str, str]:
    files = tree_files(tree, None)
    out = {}
    for path, replacements in edits.items():
        text = files[path]
        assert isinstance(text, str)
        for old, new in replacements:
            assert old in text, (path, old)
            text = text.replace(old, new)
        out[path] = text
    return out


@pytest.mark.parametrize("tree", sorted(TREES))
def test_the_pack_is_found_and_reports_exactly_the_planted_drift(
    tree: str,
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    preset, planted, _ = TREES[tree]
    write_tree(tmp_path, tree_files(tree, None))
    run = cli(str(tmp_path), "--format", "json", "-q")
    data = run.json()
    assert data["preset"] == preset
    found = {(f["code"], f["path"], f["line"], f["column"]) for f in data["findings"]}
    assert found == planted
    assert run.code == 1


@pytest.mark.parametrize("tree", sorted(TREES))
def test_the_fixed_twin_is_clean(tree: str, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _, _, fixes = TREES[tree]
    write_tree(tmp_path, tree_files(tree, _edited(tree, fixes)))
    run = cli(str(tmp_path), "--format", "json", "-q")
    assert run.json()["findings"] == []
    assert run.code == 0


def test_the_envelope_pack_names_the_copies_that_must_hold_every_state(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    """Without the pack the JSON Schema is the source (a schema's enum defines a field):
    its missing HALT is then reported where the envelope emits it, and nothing says the
    TypeScript constant is a complete copy. The pack makes the skill's schema block the
    source of truth, as its text says, and the package's two lists copies of it."""
    write_tree(tmp_path, tree_files("envelope", None))
    (tmp_path / ".drift-check.yaml").write_text("preset: agent-skills\n", encoding="utf-8")
    findings = cli(str(tmp_path), "--format", "json", "-q").json()["findings"]
    found = {(f["code"], f["path"]) for f in findings}
    assert ("DC952", "skills/orchestration-envelope/SKILL.md") in found  # HALT, undefined
    assert not any(code == "DC953" for code, _ in found)

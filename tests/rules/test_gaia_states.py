"""Seed 000's own state drift, reproduced exactly: in Gaia, agent-response handles `REVIEW`,
which no agent emits and agent-protocol's State Machine table does not define, and has no
branch for `APPROVAL_REQUEST`, which agents do emit.

The tree is data: tests/fixtures/trees/gaia-states.yaml, in the shapes the seed shows (the
contract template with `<STATUS>`, the states table, examples.md, the arrow tree and the
table of agent-response). The whole run must report exactly the three findings below; with
both `REVIEW` branches renamed to `APPROVAL_REQUEST` the tree is clean.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import tree_files, write_tree

RESPONSE = "skills/agent-response/SKILL.md"
DRIFT = {
    ("DC950", RESPONSE, 14, 1),  # the arrow tree: no branch for APPROVAL_REQUEST
    ("DC951", RESPONSE, 18, 6),  # `|- REVIEW` in the arrow tree
    ("DC951", RESPONSE, 30, 4),  # the `REVIEW` row of the table
}
EMITTED = "skills/agent-protocol/examples.md:48:36"  # "plan_status": "APPROVAL_REQUEST"
SOURCE = "skills/agent-protocol/SKILL.md:53:3"  # the State Machine table


def _run(root: Path, cli, files: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    write_tree(root, tree_files("gaia-states", files))
    return cli(str(root), "--format", "json", "-q")


def test_reports_exactly_the_seed_drift(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = _run(tmp_path, cli)
    data = run.json()
    assert data["preset"] == "gaia"
    found = {(f["code"], f["path"], f["line"], f["column"]) for f in data["findings"]}
    assert found == DRIFT
    assert run.code == 1


def test_each_finding_names_both_sides(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    findings = _run(tmp_path, cli).json()["findings"]
    [unhandled] = [f for f in findings if f["code"] == "DC950"]
    assert "`APPROVAL_REQUEST`" in unhandled["message"]
    assert f"is emitted ({EMITTED})" in unhandled["message"]
    assert f"{RESPONSE}:26:3" in unhandled["message"]  # the table, the second handler
    for dead in (f for f in findings if f["code"] == "DC951"):
        assert "`REVIEW` is handled here but nothing emits it" in dead["message"]
        assert f"({SOURCE}) does not define it" in dead["message"]
        assert "`APPROVAL_REQUEST` is defined and handled nowhere: renamed?" in dead["message"]


def test_renaming_the_branches_leaves_a_clean_tree(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    text = tree_files("gaia-states", None)[RESPONSE]
    assert isinstance(text, str) and text.count("REVIEW") == 2
    fixed = text.replace("|- REVIEW         ", "|- APPROVAL_REQUEST").replace(
        "| `REVIEW` |", "| `APPROVAL_REQUEST` |"
    )
    run = _run(tmp_path, cli, {RESPONSE: fixed})
    assert run.json()["findings"] == []
    assert run.code == 0


def test_the_pack_links_the_handler_without_the_contract_named(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The gaia pack names agent-response as the handler of `plan_status`: the drift is found
    even when its text names neither the field nor `json:contract`."""
    text = tree_files("gaia-states", None)[RESPONSE]
    assert isinstance(text, str)
    plain = text.replace("json:contract", "contract")
    run = _run(tmp_path, cli, {RESPONSE: plain})
    found = {(f["code"], f["line"]) for f in run.json()["findings"]}
    assert found == {("DC950", 14), ("DC951", 18), ("DC951", 30)}
    (tmp_path / ".drift-check.yaml").write_text("preset: claude-code\n", encoding="utf-8")
    run = cli(str(tmp_path), "--format", "json", "-q", "--select", "DC95")
    assert run.json()["findings"] == []  # without the pack, an unnamed handler is no handler

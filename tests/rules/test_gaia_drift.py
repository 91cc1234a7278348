"""A larger Gaia-like tree with exactly one planted drift of each skills-and-agents rule.

The tree is data: tests/fixtures/trees/gaia-drift.yaml (6 agents, 13 skills, the skill
assignment matrix, the on-demand lists and the directory tree of Gaia's skills/README.md).
Each drift is commented in the YAML above the file it sits in; PLANTED below is the same
list as (code, path, line). drift-check must report exactly these, nothing more.
"""

from __future__ import annotations

import re
from pathlib import Path

from drift_check.rules import ALL_RULES
from tests.conftest import FIXTURES, tree_files, write_tree

TREE = FIXTURES / "trees" / "gaia-drift.yaml"

PLANTED = {
    # DC5xx: SKILL.md frontmatter and budgets
    ("DC501", "skills/execution/SKILL.md", 1),  # no frontmatter at all
    ("DC502", "skills/gws_setup/SKILL.md", 2),  # name with an underscore (folder too)
    ("DC503", "skills/gitops-patterns/SKILL.md", 2),  # name: gitops-pattern
    ("DC504", "skills/fast-queries/SKILL.md", 3),  # description over 1024 characters
    ("DC505", "skills/request-approval/SKILL.md", 4),  # compatibility over 500 characters
    ("DC506", "skills/terraform-patterns/SKILL.md", 4),  # triggers: is not a skill key
    ("DC507", "skills/investigation/SKILL.md", 1),  # injected, 100 lines (budget < 100)
    ("DC508", "skills/fast-queries/SKILL.md", 1),  # over 5000 tokens (information)
    ("DC509", "skills/context-updater/SKILL.md", 4),  # metadata user-invocable: false
    ("DC510", "skills/git-conventions/SKILL.codex.md", 2),  # the Codex copy's old name
    # DC6xx: agent frontmatter
    ("DC601", "agents/gaia-planner.md", 1),  # no description
    ("DC602", "agents/gaia-operator.md", 2),  # name: gaia-ops
    ("DC603", "agents/gaia-planner.md", 4),  # brief-spec was deleted
    ("DC604", "agents/gitops-operator.md", 5),  # security-tiers before agent-protocol
    ("DC605", "agents/terraform-architect.md", 4),  # Webfetch
    ("DC606", "agents/gaia-ops.md", 2),  # gaia-operator.md declares gaia-ops too
    ("DC607", "agents/gitops-operator.md", 4),  # MultiEdit, beside Edit
    ("DC608", "agents/developer.md", 5),  # maxturns
    ("DC609", "commands/release.md", 3),  # args
    ("DC610", "skills/security-tiers/SKILL.md", 4),  # Gerp
    ("DC611", "commands/sync.md", 3),  # argument-hint: [--dry-run]
    # DC7xx: links, sibling documents, memory imports, bundled files
    ("DC701", "skills/command-execution/SKILL.md", 11),  # [the pipe rules](pipes.md)
    ("DC702", "skills/terraform-patterns/SKILL.md", 10),  # #state-locking vs ## State locks
    ("DC703", "skills/git-conventions/SKILL.md", 10),  # examples.md is not there
    ("DC704", "CLAUDE.md", 4),  # @docs/operating-rules.md does not exist
    ("DC706", "skills/security-tiers/SKILL.md", 13),  # scripts/hook-model.sh is not there
    # DC8xx: skills/README.md restating the frontmatter and the folder
    ("DC801", "skills/README.md", 69),  # gaia-operator row lacks context-updater
    ("DC802", "skills/README.md", 70),  # row for the deleted cloud-troubleshooter
    ("DC803", "skills/README.md", 77),  # git-conventions: developer injects it now
    ("DC804", "skills/README.md", 33),  # the tree (fence line) leaves out legacy-deploy
    ("DC805", "skills/README.md", 46),  # gitops-patterns/examples.md does not exist
    # DC901 (info): the orphan, which is also the folder the tree leaves out
    ("DC901", "skills/legacy-deploy/SKILL.md", 1),
}

# the DC801 drift: the matrix cell and the agent's frontmatter entry it disagrees with
MATRIX_ROW = "skills/README.md:69:3"
FRONTMATTER_ENTRY = "agents/gaia-operator.md:9:5"

# structured contracts (DC92x and up) are planted in their own fixture trees
_FAMILIES = ("DC5", "DC6", "DC7", "DC8", "DC90")
# rules this tree cannot show beside the others, with where their cases are instead
_NOT_PLANTABLE = {
    "DC806": "a tree whose matrix is checked has one; tests/fixtures/rules/DC806.yaml",
}


def _run(tmp_path: Path, cli, *argv: str):  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files("gaia-drift", None))
    return cli(str(tmp_path), *argv)


def test_reports_exactly_the_planted_drifts(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = _run(tmp_path, cli, "--format", "json", "-q")
    assert run.code == 1, run.err
    data = run.json()
    assert data["preset"] == "gaia"
    found = [(f["code"], f["path"], f["line"]) for f in data["findings"]]
    assert len(found) == len(set(found)), "a planted drift was reported twice"
    assert set(found) == PLANTED
    severities = {f["code"]: f["severity"] for f in data["findings"]}
    assert severities == {r.code: r.severity for r in ALL_RULES if r.code in severities}
    assert severities["DC901"] == "info"
    assert severities["DC508"] == "info"  # the specification recommends, not requires


def test_one_drift_of_each_rule_and_each_commented() -> None:
    """PLANTED covers every DC5xx-DC9xx rule once, and the fixture comments each of them."""
    rules = sorted(
        r.code for r in ALL_RULES if r.code.startswith(_FAMILIES) and r.code not in _NOT_PLANTABLE
    )
    assert sorted(code for code, _path, _line in PLANTED) == rules
    commented = set(re.findall(r"^# (DC\d{3})\b", TREE.read_text(encoding="utf-8"), re.M))
    assert commented == set(rules)


def test_matrix_disagreement_names_both_sides(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The DC801 finding sits on the matrix row and its message names the agent's
    frontmatter line; the rendered line carries both file:line pairs."""
    run = _run(tmp_path, cli, "--format", "json", "--select", "DC801", "-q")
    [finding] = run.json()["findings"]
    assert f"{finding['path']}:{finding['line']}:{finding['column']}" == MATRIX_ROW
    assert FRONTMATTER_ENTRY in finding["message"]
    assert "context-updater" in finding["message"]

    text = _run(tmp_path / "text", cli, "--format", "text", "--select", "DC801", "-q")
    [line] = [ln for ln in text.out.splitlines() if ": DC801 " in ln]
    assert f"{MATRIX_ROW}:" in line
    assert FRONTMATTER_ENTRY in line

"""The rule packs end to end: each pack's clean tree (tests/fixtures/trees/<pack>.yaml) is
detected as that pack and gives no findings; a `.claude/` tree is a Claude Code tree; packs
compose, both the shipped ones (a GSD tree with skills gets the skill rules) and a pack of
the user's own that `extends` a shipped one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import tree_files, write_tree

SKILL_RULES = ("DC5", "DC6", "DC7", "DC8", "DC9")


def _positions(findings: list[dict], codes: tuple[str, ...] = ("DC",)) -> list[str]:
    return sorted(
        f"{f['code']} {f['path']}:{f['line']}:{f['column']}"
        for f in findings
        if f["code"].startswith(codes)
    )


@pytest.mark.parametrize(
    ("pack", "found"),
    [
        ("gsd", "gsd-core/references/agent-contracts.md"),
        ("gaia", "skills/README.md ('skill assignment matrix')"),
        ("agent-skills", "skills/pdf-forms/SKILL.md"),
        ("claude-code", ".claude-plugin/plugin.json"),
    ],
)
def test_clean_tree_is_detected_and_clean(pack: str, found: str, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files(pack, None))
    run = cli(str(tmp_path), "--format", "json")
    assert run.json()["findings"] == []
    assert run.code == 0
    assert run.json()["preset"] == pack
    assert f"preset {pack!r} detected from {found};" in run.err


def test_dot_claude_tree_is_claude_code(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The plugin tree moved under .claude/ (no plugin.json): still Claude Code, still clean,
    and its agents and skills are read from there."""
    files = {
        (path if path.startswith(".claude-plugin/") else f".claude/{path}"): text
        for path, text in tree_files("claude-code", None).items()
    }
    del files[".claude-plugin/plugin.json"]
    write_tree(tmp_path, files)
    run = cli(str(tmp_path), "--format", "json")
    assert run.json()["findings"] == []
    assert run.code == 0
    assert "preset 'claude-code' detected from .claude/agents/code-reviewer.md;" in run.err
    assert " 2 agents," in run.err

    # the rules see the files under .claude/: a misspelt tool and a skill that is not there
    (tmp_path / ".claude/agents/test-runner.md").write_text(
        "---\nname: test-runner\ndescription: Runs the tests.\ntools: Read, Bsh\n"
        "skills: [review-checklist, changelogs]\n---\n",
        encoding="utf-8",
    )
    run = cli(str(tmp_path), "--format", "json", "-q")
    assert _positions(run.json()["findings"]) == [
        "DC603 .claude/agents/test-runner.md:5:28",
        "DC605 .claude/agents/test-runner.md:4:14",
    ]


# A GSD tree with one contract drift: gsd-executor emits nothing, so its declared marker is
# not emitted (DC201).
GSD_DRIFT = {
    "agents/gsd-executor.md": (
        "---\nname: gsd-executor\ndescription: Executes a plan.\ntools: Read, Write, Bash\n---\n"
        "\nWhen done, say PLAN COMPLETE.\n"
    ),
}
GSD_SKILLS = {
    "skills/gsd-debug/SKILL.md": (
        "---\nname: gsd-debug\ndescription: Use when a phase fails its checks.\n---\n"
        "\n# Debug\n\nReproduce, isolate, fix.\n"
    ),
    "skills/GSD_Review/SKILL.md": (
        "---\nname: GSD_Review\ndescription: Use when reviewing a phase.\n---\n\n# Review\n"
    ),
    "README.md": "# Skills\n\n`gsd-debug` and `GSD_Review` are loaded on demand.\n",
}


def test_gsd_tree_with_skills_gets_the_skill_rules_too(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    without = tmp_path / "without"
    write_tree(without, tree_files("gsd", GSD_DRIFT))
    contracts_only = cli(str(without), "--format", "json", "-q").json()["findings"]
    assert _positions(contracts_only) == ["DC201 gsd-core/references/agent-contracts.md:8:30"]

    with_skills = tmp_path / "with"
    write_tree(with_skills, tree_files("gsd", {**GSD_DRIFT, **GSD_SKILLS}))
    run = cli(str(with_skills), "--format", "json")
    assert "preset 'gsd' detected from gsd-core/references/agent-contracts.md;" in run.err
    findings = run.json()["findings"]
    # the contract findings are exactly those of the tree without skills
    contract_codes = tuple(f"DC{n}" for n in range(5))
    assert _positions(findings, contract_codes) == _positions(contracts_only)
    assert not _positions(contracts_only, SKILL_RULES)
    # and the skills are checked
    assert _positions(findings, SKILL_RULES) == ["DC502 skills/GSD_Review/SKILL.md:2:1"]


def test_gsd_tree_gets_the_strict_agent_skills_keys(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    skill = (
        "---\nname: gsd-debug\ndescription: Use when a phase fails its checks.\n"
        "user-invocable: true\n---\n"
    )
    write_tree(tmp_path, tree_files("gsd", {"skills/gsd-debug/SKILL.md": skill}))
    run = cli(str(tmp_path), "--format", "json", "-q", "--select", "DC506")
    assert _positions(run.json()["findings"]) == ["DC506 skills/gsd-debug/SKILL.md:4:1"]


def test_gsd_tree_with_clean_skills_stays_clean(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    skills = {k: v for k, v in GSD_SKILLS.items() if "GSD_Review" not in k}
    write_tree(tmp_path, tree_files("gsd", skills))
    run = cli(str(tmp_path), "--format", "json", "-q")
    assert run.json()["findings"] == []
    assert run.code == 0


def _investigation(lines: int) -> str:
    head = ["---", "name: investigation", "description: Use when diagnosing a failure.", "---"]
    body = [f"Step {n}." for n in range(1, lines - len(head) + 1)]
    return "\n".join(head + body) + "\n"


MY_PACK = """\
name: my-pack
extends: gaia
summary: Gaia, with a tighter start-up budget.
settings:
  skill-injected-line-limit: 20
"""


def test_user_pack_extends_a_shipped_pack(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """`preset: my-pack.yaml` names a pack file in the tree; it extends gaia and overrides
    one setting, which takes effect while gaia's others stay."""
    files = {
        ".drift-check.yaml": "preset: my-pack.yaml\n",
        "my-pack.yaml": MY_PACK,
        "skills/investigation/SKILL.md": _investigation(20),
    }
    write_tree(tmp_path, tree_files("gaia", files))
    run = cli(str(tmp_path), "--format", "json")
    assert "preset 'my-pack.yaml' set in .drift-check.yaml;" in run.err
    assert run.json()["preset"] == "my-pack"
    findings = run.json()["findings"]
    assert _positions(findings) == ["DC507 skills/investigation/SKILL.md:1:1"]
    assert "injected into `developer` at start-up it must stay under 20" in findings[0]["message"]

    # one line fewer is under the new budget (gaia's own is 100)
    (tmp_path / "skills/investigation/SKILL.md").write_text(_investigation(19), encoding="utf-8")
    run = cli(str(tmp_path), "--format", "json", "-q")
    assert run.json()["findings"] == []

    # gaia's other settings are inherited: the skills prefix and the matrix still apply
    (tmp_path / "agents/planner.md").write_text(
        "---\nname: planner\ndescription: Plans features.\ntools: Read, Grep\n"
        "skills: [security-tiers]\n---\n",
        encoding="utf-8",
    )
    run = cli(str(tmp_path), "--format", "json", "-q")
    codes = {f["code"] for f in run.json()["findings"]}
    assert {"DC604", "DC801"} <= codes


def test_without_the_user_pack_gaia_budget_applies(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files("gaia", {"skills/investigation/SKILL.md": _investigation(20)}))
    run = cli(str(tmp_path), "--format", "json", "-q")
    assert run.json()["findings"] == []


def test_packs_command_checks_the_shipped_presets(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("packs")
    assert run.code == 0, run.err
    names = [line.split(":")[0] for line in run.out.splitlines()]
    assert names == [
        "agent-skills", "base", "claude-code", "contracts", "envelope", "gaia", "gdskills", "gsd",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("pack", "error"),
    [
        (
            '{"name": "p", "extends": "gsd", "rules": ["DC2", "XX9"]}',
            "unknown rule code or prefix 'XX9'",
        ),
        (
            '{"name": "p", "settings": {"max-line-length": "long"}}',
            "`settings.max-line-length` must be a whole number, 0 or more",
        ),
        (
            '{"name": "p", "settings": {"no-such-setting": 1}}',
            "unknown key `settings.no-such-setting`",
        ),
        ('{"name": "p", "extends": "no-such-preset"}', "unknown preset 'no-such-preset'"),
        ('{"name": "p", "extends": "mine/pack.yaml"}', "extends itself"),
        ('{"name": "p", "colour": "red"}', "unknown key `colour` in rule pack"),
        ("name: [unclosed", "pack.yaml:1:16: did not find expected"),  # the end of the text
        (
            '{"name": "p", "extends": "mine/gone.yaml"}',
            "`extends` 'mine/gone.yaml': no such rule pack file",
        ),
    ],
)
def test_packs_command_reports_a_bad_pack_in_one_line(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, monkeypatch, pack: str, error: str
) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine/pack.yaml").write_text(pack, encoding="utf-8")
    (tmp_path / "mine/good.yaml").write_text('{"name": "g", "extends": "gsd"}', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = cli("packs", "mine/good.yaml", "mine/pack.yaml")
    assert run.code == 2
    assert run.out.startswith("mine/good.yaml: pack 'g'")  # the good one is still checked
    assert run.err.count("\n") == 1 and error in run.err, run.err
    assert "pack.yaml" in run.err


def test_packs_command_names_a_file_that_is_not_a_pack(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    run = cli("packs", "missing.yaml", "notes.txt")
    assert run.code == 2
    assert run.err.splitlines() == [
        "drift-check: missing.yaml: no such rule pack file",
        "drift-check: notes.txt: a rule pack file ends in .yaml or .yml",
    ]


def test_claude_code_skill_keys_are_the_specifications_and_claude_codes() -> None:
    """DC506 allows `claude-skill-keys` in folders named for Claude under any pack; the
    claude-code pack allows them everywhere. The two lists must not drift apart."""
    from drift_check.config import load_pack
    from drift_check.settings import CLAUDE_SKILL_KEYS

    spec = load_pack("agent-skills", ".").settings["skill-allowed-keys"]
    claude = load_pack("claude-code", ".").settings["skill-allowed-keys"]
    assert sorted(claude) == sorted([*spec, *CLAUDE_SKILL_KEYS])

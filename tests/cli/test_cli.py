"""End to end through main(argv): exit codes, formats, selection, configuration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import tree_files, write_tree

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_examples_report_their_deliberate_drift(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli(str(EXAMPLES), "--format", "json")
    assert run.code == 1
    codes = {f["code"] for f in run.json()["findings"]}
    # the drift examples/README.md promises
    for code in ("DC103", "DC104", "DC105", "DC107", "DC201", "DC202", "DC206", "DC302"):
        assert code in codes
    for code in ("DC304", "DC305", "DC306", "DC401", "DC503", "DC703"):
        assert code in codes
    assert "preset 'gsd' detected from gsd-core/references/agent-contracts.md" in run.err


def test_clean_tree_exits_zero_with_a_plain_message(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files("gsd", None))
    run = cli(str(tmp_path))
    assert run.code == 0
    assert run.out == "All checks passed!\n"


def test_text_lines_summary_and_count(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files("gsd", {"agents/gsd-orphan.md": "# orphan\n"}))
    run = cli(str(tmp_path), "-q")
    lines = run.out.splitlines()
    assert lines[0].endswith(
        "agents/gsd-orphan.md:1:1: DC103 [*] agent `gsd-orphan` has no row in"
        " gsd-core/references/agent-contracts.md; add one that lists its completion markers"
        " (or `No marker`)"
    )
    assert "1  DC103  agent-without-row" in lines
    assert lines[-2:] == ["Found 1 finding.", "[*] 1 fixable with `--fix`."]
    assert run.err == ""
    assert "\x1b[" not in run.out  # no colour when not on a terminal


def test_json_schema_fields(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files("gsd", {"agents/gsd-orphan.md": "# orphan\n"}))
    data = cli(str(tmp_path), "--format", "json", "-q").json()
    assert data["version"] == 1
    assert data["preset"] == "gsd"
    assert data["registry"] == "gsd-core/references/agent-contracts.md"
    assert data["summary"]["findings"] == 1
    assert data["summary"]["by_code"] == {"DC103": 1}
    (finding,) = data["findings"]
    assert finding == {
        "code": "DC103",
        "name": "agent-without-row",
        "severity": "error",
        "path": "agents/gsd-orphan.md",
        "line": 1,
        "column": 1,
        "message": finding["message"],
        "agent": "gsd-orphan",
        "fix": {"applicability": "safe", "description": "add a registry row for `gsd-orphan`"},
    }


def test_select_and_ignore_by_code_and_prefix(cli) -> None:  # type: ignore[no-untyped-def]
    def codes(*args: str) -> set[str]:
        run = cli(str(EXAMPLES), "--format", "json", "-q", *args)
        return {f["code"] for f in run.json()["findings"]}

    assert codes("--select", "DC3") == {"DC302", "DC304", "DC305", "DC306"}
    assert codes("--select", "DC3", "--ignore", "DC305,DC306") == {"DC302", "DC304"}
    assert codes("--select", "dc103") == {"DC103"}
    assert "DC401" not in codes("--ignore", "DC4")


def test_output_file(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "report.json"
    run = cli(str(EXAMPLES), "--format", "json", "--output", str(out), "-q")
    assert run.code == 1
    assert run.out == ""
    assert json.loads(out.read_text())["summary"]["findings"] > 0


def test_rules_and_explain(cli) -> None:  # type: ignore[no-untyped-def]
    listing = cli("rules")
    assert listing.code == 0
    assert any(
        line.startswith("DC301  marker-without-consumer") for line in listing.out.splitlines()
    )
    explained = cli("explain", "DC301")
    assert explained.code == 0
    assert explained.out.startswith("DC301 marker-without-consumer (error")
    assert "Fails:" in explained.out and "Passes:" in explained.out
    assert cli("explain", "marker-without-consumer").out == explained.out
    unknown = cli("explain", "DC999")
    assert unknown.code == 2
    assert "unknown rule" in unknown.err


def test_missing_path_is_a_usage_error(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = cli(str(tmp_path / "nope"))
    assert run.code == 2
    assert run.err == f"drift-check: {tmp_path / 'nope'}: does not exist\n"


@pytest.mark.parametrize("quiet", [(), ("-q",)])
def test_nothing_to_check_is_one_line_and_exit_0(tmp_path: Path, cli, quiet) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, {"README.md": "# A library\n", "src/lib.py": "X = 1\n"})
    run = cli(str(tmp_path), *quiet)
    assert run.code == 0
    assert run.out == ""
    assert run.err == (
        f"drift-check: nothing to check in {tmp_path}: no agents, skills, commands,"
        " manifests or contract registry found\n"
    )


def test_config_in_pyproject(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = tree_files("gsd", {"agents/gsd-orphan.md": "# orphan\n"})
    files["pyproject.toml"] = '[tool.drift-check]\nignore = ["DC103"]\n'
    write_tree(tmp_path, files)
    run = cli(str(tmp_path))
    assert run.code == 0
    assert "preset 'gsd' detected" in run.err


def test_config_yaml_overrides_pack_settings(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = tree_files("gsd", None)
    registry = files.pop("gsd-core/references/agent-contracts.md")
    files["docs/contracts.md"] = registry
    files[".drift-check.yaml"] = "preset: gsd\nregistry: docs/contracts.md\n"
    write_tree(tmp_path, files)
    run = cli(str(tmp_path), "--format", "json")
    assert run.json()["registry"] == "docs/contracts.md"
    assert "preset 'gsd' set in .drift-check.yaml" in run.err


def test_severity_override(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = tree_files("gsd", {"agents/gsd-orphan.md": "# orphan\n"})
    files["pyproject.toml"] = '[tool.drift-check]\nseverity = { DC103 = "warning" }\n'
    write_tree(tmp_path, files)
    (finding,) = cli(str(tmp_path), "--format", "json").json()["findings"]
    assert finding["severity"] == "warning"


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ("prest: gsd\n", ".drift-check.yaml:1: unknown key `prest`"),
        ("agents: agents/*.md\n", ".drift-check.yaml:1: `agents` must be a list of strings"),
        ("max-line-length: -1\n", "`max-line-length` must be a whole number, 0 or more"),
        ("preset: nosuch\n", "unknown preset 'nosuch'"),
        ("preset: [gsd\n", ".drift-check.yaml:"),
        ("skill-matrix:\n  fil: x.md\n", "unknown key `skill-matrix.fil`"),
        (
            "skill-matrix:\n  on-demand-columns: 7\n",
            "`skill-matrix.on-demand-columns` must be a column name or a list of them",
        ),
    ],
)
def test_config_errors_name_the_file_and_key(tmp_path: Path, cli, config: str, error: str) -> None:  # type: ignore[no-untyped-def]
    run = cli(str(write_tree(tmp_path, tree_files("gsd", {".drift-check.yaml": config}))))
    assert run.code == 2
    assert run.err.count("\n") == 1 and error in run.err, run.err
    assert "Traceback" not in run.err


def test_old_and_new_gsd_layouts_are_detected(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = {
        (path.replace("gsd-core/", "get-shit-done/", 1)): content
        for path, content in tree_files("gsd", None).items()
    }
    files = {
        path: content.replace("gsd-core/", "get-shit-done/") for path, content in files.items()
    }
    write_tree(tmp_path, files)
    run = cli(str(tmp_path))
    assert run.code == 0, run.out
    assert "detected from get-shit-done/references/agent-contracts.md" in run.err


def test_version(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("--version")
    assert run.code == 0
    assert run.out.startswith("drift-check, version ")


def test_init_writes_a_starter_config_once(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path / "repo", tree_files("gsd", None))
    run = cli("init", str(root))
    assert run.code == 0
    written = (root / ".drift-check.yaml").read_text()
    assert "preset: gsd\n" in written
    assert "gsd-core/references/agent-contracts.md exists" in run.out
    assert cli(str(root), "-q").code == 0  # the starter config is valid
    again = cli("init", str(root))
    assert again.code == 2
    assert "already configures drift-check; not overwritten" in again.err
    assert (root / ".drift-check.yaml").read_text() == written
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = cli("init", str(empty))
    assert nothing.code == 2
    assert not (empty / ".drift-check.yaml").exists()


def test_exit_zero_reports_but_does_not_fail(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plain = cli(str(EXAMPLES), "-q")
    zero = cli(str(EXAMPLES), "-q", "--exit-zero")
    assert (plain.code, zero.code) == (1, 0)
    assert zero.out == plain.out and "Found 15 findings." in zero.out
    missing = cli(str(tmp_path / "nowhere"), "--exit-zero")
    assert missing.code == 2  # an error is still an error


def test_output_format_is_an_alias_of_format(cli) -> None:  # type: ignore[no-untyped-def]
    assert cli(str(EXAMPLES), "-q", "--output-format", "json").out == (
        cli(str(EXAMPLES), "-q", "--format", "json").out
    )


def test_banner_counts_read_as_english(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    one = write_tree(
        tmp_path, {".claude/agents/solo.md": "---\nname: solo\ndescription: Alone.\n---\n"}
    )
    err = cli(str(one), "--select", "DC601").err
    assert "detected from .claude/agents/solo.md; 1 agent, 1 rule\n" in err
    assert "(5 rows), 6 agents, 1 skill, 1 command, 11 consumer files" in cli(str(EXAMPLES)).err


def test_banner_counts_unreadable_agents_and_skills_apart(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    binary = write_tree(tmp_path / "a", {"agents/b.md": "bin\x00ary\n"})
    err = cli(str(binary)).err
    assert "detected from agents/b.md; 0 agents (1 unreadable), " in err
    skills = write_tree(
        tmp_path / "s",
        {
            "skills/x/SKILL.md": "\x00",
            "skills/y/SKILL.md": "---\nname: y\ndescription: Why.\n---\n",
        },
    )
    assert "; 0 agents, 1 skill (1 unreadable), " in cli(str(skills)).err


def test_the_console_script_collects_cycles_only_once_ruamel_yaml_has_parsed() -> None:
    """`single_run_gc` turns the cyclic collector off; the first YAML text ruamel.yaml
    parses turns it back on (its loads leave cycles behind), a text the fast path reads
    does not."""
    import gc

    from drift_check import yaml_loader
    from drift_check.cli import single_run_gc
    from drift_check.facts import Source
    from drift_check.scanners.frontmatter import read_frontmatter

    before = gc.get_threshold()
    try:
        single_run_gc()
        assert not gc.isenabled()
        simple = Source("a/SKILL.md", "---\nname: a\ndescription: Plain.\n---\n")
        assert read_frontmatter(simple).data == {"name": "a", "description": "Plain."}
        assert not gc.isenabled()
        aliased = Source("b/SKILL.md", "---\nname: b\nmeta: &m\n  x: 1\nother: *m\n---\n")
        assert read_frontmatter(aliased).data == {"name": "b", "meta": {"x": 1}, "other": {"x": 1}}
        assert gc.isenabled()
    finally:
        yaml_loader._collector_waits = False
        gc.enable()
        gc.set_threshold(*before)

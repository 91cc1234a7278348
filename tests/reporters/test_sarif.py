"""`--format sarif`: a SARIF 2.1.0 log that validates against the schema (tests/schemas), says
what the JSON format says, and carries fixes that produce what `--fix` writes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator, FormatChecker

from tests.conftest import fix_cases, tree_files, write_tree

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "tests" / "schemas" / "sarif-2.1.0.json").read_text("utf-8"))
VALIDATOR = Draft4Validator(SCHEMA, format_checker=FormatChecker())


def _valid(log: dict[str, Any]) -> None:
    errors = sorted(VALIDATOR.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


@pytest.fixture
def in_dir(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    def chdir(path: Path) -> None:
        monkeypatch.chdir(path)

    return chdir


def test_the_schema_rejects_what_it_should() -> None:
    """The validator is not vacuous: a log without `runs` or with a bad level fails."""
    assert list(VALIDATOR.iter_errors({"version": "2.1.0"}))
    bad = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": []}]}
    assert not list(VALIDATOR.iter_errors(bad))
    bad["runs"][0]["results"] = [{"message": {"text": "m"}, "level": "fatal"}]
    assert list(VALIDATOR.iter_errors(bad))


def test_examples_log_is_valid_and_agrees_with_json(tmp_path: Path, cli, in_dir) -> None:  # type: ignore[no-untyped-def]
    tree = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", tree)
    in_dir(tmp_path)
    sarif = cli("examples", "--format", "sarif", "-q")
    plain = cli("examples", "--format", "json", "-q")
    assert sarif.code == plain.code == 1
    log = json.loads(sarif.out)
    _valid(log)
    (run,) = log["runs"]
    findings = plain.json()["findings"]
    assert len(run["results"]) == len(findings) > 0
    rules = run["tool"]["driver"]["rules"]
    for result, finding in zip(run["results"], findings, strict=True):
        assert result["ruleId"] == finding["code"]
        assert rules[result["ruleIndex"]]["id"] == finding["code"]
        assert result["message"]["text"] == finding["message"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {
            "uri": f"examples/{finding['path']}",
            "uriBaseId": "%SRCROOT%",
        }
        assert location["region"] == {
            "startLine": finding["line"],
            "startColumn": finding["column"],
        }
        assert result["level"] == finding["severity"]
        assert ("fixes" in result) == ("fix" in finding)
    assert run["columnKind"] == "unicodeCodePoints"


def test_driver_lists_every_rule_that_ran_with_help_and_level(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path, tree_files("gsd", None))
    (root / ".drift-check.yaml").write_text(
        "preset: gsd\nseverity:\n  DC201: warning\n  DC901: info\n", encoding="utf-8"
    )
    log = json.loads(cli(str(root), "--format", "sarif", "-q", "--ignore", "DC5").out)
    _valid(log)
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    ran = json.loads(cli("rules", "--format", "json").out)
    expected = {r["code"] for r in ran if r["code"] in rules}
    assert set(rules) == expected and not any(code.startswith("DC5") for code in rules)
    assert rules["DC201"]["defaultConfiguration"] == {"level": "warning"}
    assert rules["DC901"]["defaultConfiguration"] == {"level": "note"}
    assert rules["DC101"]["defaultConfiguration"] == {"level": "error"}
    dc101 = rules["DC101"]
    assert dc101["name"] and dc101["shortDescription"]["text"]
    assert "Fails:" in dc101["help"]["text"]
    assert dc101["help"]["markdown"].startswith("# DC101")


def test_a_clean_tree_gives_a_valid_log_without_results(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path, tree_files("gsd", None))
    run = cli(str(root), "--format", "sarif", "-q")
    assert run.code == 0
    log = json.loads(run.out)
    _valid(log)
    assert log["runs"][0]["results"] == []


def test_paths_are_uris(tmp_path: Path, cli, in_dir) -> None:  # type: ignore[no-untyped-def]
    """Relative to the working directory and percent-encoded; a file outside the working
    directory is named by its absolute file URI."""
    files = tree_files("gsd", {"agents/gsd-odd name%.md": "# odd\n"})
    root = write_tree(tmp_path / "repo", files)
    in_dir(root)
    log = json.loads(cli(".", "--format", "sarif", "-q").out)
    _valid(log)
    (loc,) = {
        json.dumps(r["locations"][0]["physicalLocation"]["artifactLocation"])
        for r in log["runs"][0]["results"]
    }
    assert json.loads(loc) == {"uri": "agents/gsd-odd%20name%25.md", "uriBaseId": "%SRCROOT%"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    in_dir(elsewhere)
    log = json.loads(cli(str(root), "--format", "sarif", "-q").out)
    _valid(log)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    uri = location["artifactLocation"]["uri"]
    assert uri.startswith("file:///") and uri.endswith("/repo/agents/gsd-odd%20name%25.md")
    assert "uriBaseId" not in location["artifactLocation"]


def test_output_is_deterministic_and_fingerprints_survive_edits_above(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    flow = "gsd-core/workflows/stray.md"
    root = write_tree(tmp_path, tree_files("gsd", {flow: "On `## NOBODY EMITS THIS`: stop.\n"}))
    first = cli(str(root), "--format", "sarif", "-q").out
    assert cli(str(root), "--format", "sarif", "-q").out == first
    (root / flow).write_text("# Stray\n\nOn `## NOBODY EMITS THIS`: stop.\n", encoding="utf-8")
    moved = json.loads(cli(str(root), "--format", "sarif", "-q").out)["runs"][0]["results"]
    (before,) = json.loads(first)["runs"][0]["results"]
    (after,) = moved
    assert after["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert after["partialFingerprints"] == before["partialFingerprints"]


def test_control_characters_stay_escaped(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path, tree_files("gsd", {"agents/gsd-\x1b[31mred.md": "# o\n"}))
    run = cli(str(root), "--format", "sarif", "-q")
    assert "\x1b" not in run.out
    _valid(json.loads(run.out))


def _apply(text: str, replacements: list[dict[str, Any]]) -> str:
    """Apply SARIF replacements (1-based lines and code-point columns, end exclusive)."""
    starts = [0]
    for n, ch in enumerate(text):
        if ch == "\n":
            starts.append(n + 1)

    def offset(line: int, column: int) -> int:
        return len(text) if line > len(starts) else min(starts[line - 1] + column - 1, len(text))

    spans = sorted(
        {
            (
                offset(r["deletedRegion"]["startLine"], r["deletedRegion"]["startColumn"]),
                offset(r["deletedRegion"]["endLine"], r["deletedRegion"]["endColumn"]),
                r["insertedContent"]["text"],
            )
            for r in replacements
        },
        reverse=True,
    )
    for (start, end, new), later in zip(spans, [None, *spans], strict=False):
        assert later is None or end <= later[0], "replacements overlap"
        text = text[:start] + new + text[end:]
    return text


@pytest.mark.parametrize(("code", "case"), fix_cases())
def test_sarif_fixes_write_what_fix_writes(code: str, case: dict, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Every fix case of tests/fixtures/rules: applying the log's replacements gives the
    files `--fix --unsafe-fixes` writes."""
    root = write_tree(tmp_path, tree_files(case.get("base"), case.get("files")))
    select = ("--select", case.get("select", code))
    log = json.loads(cli(str(root), "--format", "sarif", "-q", *select).out)
    _valid(log)
    by_file: dict[str, list[dict[str, Any]]] = {}
    for result in log["runs"][0]["results"]:
        for fix in result.get("fixes", []):
            for change in fix["artifactChanges"]:
                uri = change["artifactLocation"]["uri"]
                assert uri.startswith("file:///")
                path = os.path.relpath(uri.removeprefix("file://"), root).replace(os.sep, "/")
                by_file.setdefault(path, []).extend(change["replacements"])
    # a case whose `fixed` files are as they were says no fix is offered
    changed = {p for p, text in case["fixed"].items() if (root / p).read_text("utf-8") != text}
    assert set(by_file) == changed
    for path, replacements in by_file.items():
        before = (root / path).read_text(encoding="utf-8")
        assert _apply(before, replacements) == case["fixed"][path], path


def _result(log: dict[str, Any], code: str) -> dict[str, Any]:
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == code]
    return result


def test_a_contract_finding_links_to_its_schema_side(tmp_path: Path, cli, in_dir) -> None:  # type: ignore[no-untyped-def]
    """The template omits `summary`: the result is the template's line, its related
    location (id 1) is the schema's `required` (line 6, column 15 of the base tree's
    output contract), and the message names it by a SARIF embedded link to that id."""
    prompt = "skills/orchestration/notes-collector/orchestrator-prompt.md"
    schema = "skills/orchestration/notes-collector/output-contract.schema.json"
    template = (
        "# Notes collector: orchestrator prompt\n\n## Expected response\n\n```\n"
        "NOTES_RESULT:\n  action:     gather | refresh\n  status:     ok | failed\n"
        "  notes_path: <JOBS_ROOT>/{{JOB}}/notes.md\n"
        "  failure_reason: <only when status is failed>\n```\n"
    )
    write_tree(tmp_path, tree_files("skills-package", {prompt: template}))
    in_dir(tmp_path)
    log = json.loads(cli(".", "--format", "sarif", "-q").out)
    _valid(log)
    result = _result(log, "DC923")
    assert result["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 6,
        "startColumn": 1,
    }
    assert result["relatedLocations"] == [
        {
            "id": 1,
            "physicalLocation": {
                "artifactLocation": {"uri": schema, "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 6, "startColumn": 15},
            },
            "message": {"text": "the schema side: `#/required`"},
        }
    ]
    assert result["message"]["text"] == (
        f"`NOTES_RESULT` template omits `summary`, which [`#/required` in {schema}:6](1)"
        " requires; add it to the block, or drop it from `required`"
    )
    finding = next(
        f for f in cli(".", "--format", "json", "-q").json()["findings"] if f["code"] == "DC923"
    )
    assert finding["schema"] == {"path": schema, "pointer": "#/required", "line": 6, "column": 15}


def test_brackets_in_the_link_text_are_escaped(tmp_path: Path, cli, in_dir) -> None:  # type: ignore[no-untyped-def]
    """A pointer through a key written with brackets keeps them as text: `\\[` and `\\]`
    (one backslash each before JSON encoding), so the link is still the one at the end."""
    schema = "skills/orchestration/notes-collector/odd.schema.json"
    odd = (
        "{\n"
        '  "type": "object",\n'
        '  "properties": {\n'
        '    "odd[1]": {"type": "object", "properties": {"x": {}},\n'
        '               "additionalProperties": false}\n'
        "  }\n"
        "}\n"
    )
    block = '# An odd result\n\n```json\n{"$schema": "odd.schema.json", "odd[1]": {"y": 1}}\n```\n'
    files = {schema: odd, "skills/orchestration/notes-collector/odd.md": block}
    write_tree(tmp_path, tree_files("skills-package", files))
    in_dir(tmp_path)
    log = json.loads(cli(".", "--format", "sarif", "-q").out)
    _valid(log)
    result = _result(log, "DC924")
    assert "[`#/properties/odd\\[1\\]/additionalProperties` in " in result["message"]["text"]
    assert f"{schema}:5](1)" in result["message"]["text"]
    region = result["relatedLocations"][0]["physicalLocation"]["region"]
    assert region == {"startLine": 5, "startColumn": 40}


def test_a_finding_at_its_schema_side_has_no_related_location(tmp_path: Path, cli, in_dir) -> None:  # type: ignore[no-untyped-def]
    """DC920 is reported at the schema node itself: no related location, no link."""
    schema = "skills/orchestration/notes-collector/input-contract.schema.json"
    files = {schema: '{"type": "text"}\n'}
    write_tree(tmp_path, tree_files("skills-package", files))
    in_dir(tmp_path)
    log = json.loads(cli(".", "--format", "sarif", "-q").out)
    _valid(log)
    result = _result(log, "DC920")
    assert "relatedLocations" not in result
    assert "](1)" not in result["message"]["text"]

"""GitHub workflow commands and --statistics."""

from pathlib import Path

from drift_check.reporters.github import _data, _property
from tests.conftest import tree_files, write_tree


def test_github_escaping_follows_the_runner() -> None:
    assert _data("50% done\nnext\r") == "50%25 done%0Anext%0D"
    assert _property("a:b,c%") == "a%3Ab%2Cc%25"


def test_github_annotations(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path / "repo", tree_files("gsd", {"agents/gsd-orphan.md": "# orphan\n"}))
    monkeypatch.chdir(tmp_path)
    run = cli("repo", "--format", "github", "-q")
    assert run.code == 1
    assert run.out.splitlines() == [
        "::error file=repo/agents/gsd-orphan.md,line=1,col=1,title=DC103 agent-without-row::"
        "agent `gsd-orphan` has no row in gsd-core/references/agent-contracts.md; add one that"
        " lists its completion markers (or `No marker`)"
    ]
    assert root.is_dir()


def test_statistics(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = tree_files("gsd", {"agents/a-orphan.md": "# a\n", "agents/b-orphan.md": "# b\n"})
    files["gsd-core/workflows/old.md"] = "<files_to_read>\n"
    run = cli(str(write_tree(tmp_path, files)), "--statistics", "-q")
    assert run.code == 1
    assert run.out.splitlines() == [
        "2  DC103  agent-without-row  [*]",
        "1  DC401  legacy-read-tag  [*]",
    ]


def test_a_finding_with_no_place_in_a_file(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`--preset gsd` on a tree without the registry: DC002 names no file (none asks for
    the registry but the command line), so no format invents a position for it."""
    import json

    from tests.reporters.test_sarif import _valid

    write_tree(tmp_path / "repo", {"agents/a.md": "---\nname: a\n---\n# a\n"})
    monkeypatch.chdir(tmp_path)
    args = ("repo", "--preset", "gsd", "--select", "DC002", "-q")
    text = cli(*args)
    assert text.code == 1
    assert text.out.splitlines()[0] == (
        "repo: DC002 contracts registry file not found (looked for gsd-core/references/"
        "agent-contracts.md, get-shit-done/references/agent-contracts.md); create it or set"
        " `registry` in the config"
    )
    (finding,) = cli(*args, "--format", "json").json()["findings"]
    assert (finding["path"], finding["line"], finding["column"]) == (None, None, None)
    assert cli(*args, "--format", "github").out.startswith("::error title=DC002 registry-not")
    log = json.loads(cli(*args, "--format", "sarif").out)
    _valid(log)
    assert log["runs"][0]["results"][0]["locations"] == []


def test_json_is_encoded_finding_by_finding_as_in_one_piece(tmp_path: Path) -> None:
    """The JSON report encodes each finding on its own (a large tree's findings at once took
    more memory than its facts): the same bytes as the whole document through `json.dumps`,
    nested values, no-place findings and characters it escapes included."""
    import json

    from drift_check.config import load_config
    from drift_check.engine import run
    from drift_check.reporters.json_format import _RAW, as_dict, render

    files = tree_files("gsd", {"agents/gsd-orphan.md": "# orphan\n"})
    files["gsd-core/workflows/old.md"] = "<files_to_read>\n"
    files["agents/gsd-\u2028odd\x85.md"] = "# odd\n"
    report = run(load_config(str(write_tree(tmp_path, files))))
    assert len(report.findings) > 2 and any(f.fix for f in report.findings)
    whole = json.dumps(as_dict(report), indent=2, ensure_ascii=False)
    expected = _RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", whole) + "\n"
    assert render(report) == expected
    assert "\\u2028" in expected
    empty = report._replace(findings=())
    assert render(empty) == json.dumps(as_dict(empty), indent=2, ensure_ascii=False) + "\n"

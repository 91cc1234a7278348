"""Paths on the command line: the project root found from them, the whole project analysed,
findings reported for the given files and folders only (drift_check/project.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from drift_check.project import Project, find_root, locate
from tests.conftest import tree_files, write_tree

ROOT = Path(__file__).resolve().parents[2]

# the clean gsd tree with drift in four places: the executor's marker renamed (DC202 in the
# agent, DC201 in the registry), an agent with no row (DC103, fixed by adding a registry
# row), a skill whose name is not its folder's (DC503) and a memory file's broken link (DC701)
DRIFT = {
    "agents/gsd-orphan.md": "# orphan\n",
    "skills/lint/SKILL.md": "---\nname: lnt\ndescription: Lints.\n---\n# Lint\n",
    "CLAUDE.md": "# Memory\n\nSee [the guide](docs/guide.md).\n",
}
REGISTRY = "gsd-core/references/agent-contracts.md"
EVERY = {
    ("CLAUDE.md", "DC701"),
    ("agents/gsd-executor.md", "DC202"),
    ("agents/gsd-orphan.md", "DC103"),
    (REGISTRY, "DC201"),
    ("skills/lint/SKILL.md", "DC503"),
}


def _project(root: Path, marker: str | None = ".git") -> Path:
    """The drifting tree at `root`, made a project root by `marker` (a folder for `.git`)."""
    files = tree_files("gsd", DRIFT)
    executor = files["agents/gsd-executor.md"]
    assert isinstance(executor, str) and "## PLAN COMPLETE" in executor
    files["agents/gsd-executor.md"] = executor.replace("## PLAN COMPLETE", "## PLAN FINISHED")
    write_tree(root, files)
    if marker == ".git":
        (root / ".git").mkdir()
    return root


def _found(run) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    assert run.code in (0, 1), run.err
    return {(f["path"], f["code"]) for f in run.json()["findings"]}


def _no_marker_above(path: Path) -> None:
    if find_root(str(path)) is not None:
        pytest.skip(f"{path} lies inside a project ({find_root(str(path))})")


def test_the_whole_project_without_paths(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(_project(tmp_path))
    assert _found(cli("--format", "json", "-q")) == EVERY
    assert _found(cli(".", "--format", "json", "-q")) == EVERY


def test_several_folders(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _project(tmp_path)
    run = cli(str(root / "agents"), str(root / "skills"), "--format", "json", "-q")
    assert _found(run) == {
        ("agents/gsd-executor.md", "DC202"),
        ("agents/gsd-orphan.md", "DC103"),
        ("skills/lint/SKILL.md", "DC503"),
    }
    assert run.json()["summary"]["findings"] == 3


def test_a_single_file(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(_project(tmp_path))
    run = cli("CLAUDE.md")
    assert run.code == 1
    assert run.out.splitlines()[0].startswith("CLAUDE.md:3:17: DC701 ")
    assert run.out.splitlines()[-1] == "Found 1 finding."
    # the banner names no root: the project is the current folder
    assert run.err.startswith("drift-check: preset 'gsd' detected")
    assert "project root" not in run.err


def test_a_file_plus_a_folder(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(_project(tmp_path))
    run = cli("CLAUDE.md", "gsd-core", "--format", "json", "-q")
    assert _found(run) == {("CLAUDE.md", "DC701"), (REGISTRY, "DC201")}


def test_a_file_without_findings_passes(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(_project(tmp_path))
    run = cli("gsd-core/workflows/plan.md", "-q")
    assert (run.code, run.out) == (0, "All checks passed!\n")


def test_a_run_from_a_subfolder(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The whole project is analysed: the renamed marker's DC201 sits in the registry, which
    is outside the folder, so only the agent's side of that drift is reported."""
    monkeypatch.chdir(_project(tmp_path) / "agents")
    run = cli()
    assert run.code == 1
    lines = run.out.splitlines()
    assert [line.split(": ")[0] for line in lines[:2]] == [
        "gsd-executor.md:8:1",
        "gsd-orphan.md:1:1",
    ]
    assert lines[-2] == "Found 2 findings."
    assert run.err.rstrip().endswith("; project root ..")
    assert _found(cli("--format", "json", "-q")) == {
        ("agents/gsd-executor.md", "DC202"),
        ("agents/gsd-orphan.md", "DC103"),
    }


@pytest.mark.parametrize(
    ("marker", "content"),
    [
        (".drift-check.yaml", "ignore: [DC103]\n"),
        (".drift-check.yml", "ignore: [DC103]\n"),
        ("pyproject.toml", '[tool.drift-check]\nignore = ["DC103"]\n'),
    ],
)
def test_the_root_is_the_folder_with_the_config(tmp_path: Path, cli, marker, content) -> None:  # type: ignore[no-untyped-def]
    """The project inside a git repository, configured in its own folder: a path in it
    finds that folder, and the config there is the one used (DC103 ignored)."""
    (tmp_path / ".git").mkdir()
    project = _project(tmp_path / "project", marker=None)
    (project / marker).write_text(content, encoding="utf-8")
    assert locate([str(project / "agents" / "gsd-orphan.md")]).root == str(project)
    run = cli(str(project / "agents"), "--format", "json", "-q")
    assert _found(run) == {("agents/gsd-executor.md", "DC202")}


@pytest.mark.parametrize("kind", ["folder", "file"])
def test_the_root_is_the_top_of_a_git_repository(tmp_path: Path, kind: str) -> None:
    """`.git` is a folder in a clone, a file in a worktree or a submodule."""
    top = tmp_path / "repo"
    (top / "a" / "b").mkdir(parents=True)
    if kind == "folder":
        (top / ".git").mkdir()
    else:
        (top / ".git").write_text("gitdir: /elsewhere/.git/worktrees/repo\n", encoding="utf-8")
    (top / "a" / "b" / "x.md").write_text("# x\n", encoding="utf-8")
    project = locate([str(top / "a" / "b" / "x.md"), str(top / "a")])
    assert project == Project(root=str(top), scope=("a",), named=False)


def test_a_pyproject_without_the_table_is_not_a_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_tree(tmp_path, {"lib/pyproject.toml": "[tool.ruff]\nline-length = 99\n"})
    project = locate([str(tmp_path / "lib")])
    assert project.root == str(tmp_path)
    assert project.scope == ("lib",)


def test_a_pyproject_that_is_not_toml_is_an_error(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, {"lib/pyproject.toml": "[tool.drift-check\n", "lib/a.md": "# a\n"})
    run = cli(str(tmp_path / "lib" / "a.md"))
    assert run.code == 2
    assert run.err.startswith(f"drift-check: {tmp_path / 'lib' / 'pyproject.toml'}: ")
    assert len(run.err.splitlines()) == 1


def test_a_pyproject_linked_out_of_its_folder_is_not_read(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """It counts as a root, so that loading the config refuses it, as at any root."""
    (tmp_path / ".git").mkdir()
    write_tree(tmp_path, {"lib/a.md": "# a\n"})
    os.symlink("/etc/passwd", tmp_path / "lib" / "pyproject.toml")
    run = cli(str(tmp_path / "lib" / "a.md"))
    assert run.code == 2
    assert run.err.count("\n") == 1 and "outside the repository" in run.err
    assert "root:" not in run.out + run.err


def test_without_a_marker_the_root_is_the_folder_or_the_common_parent(tmp_path: Path) -> None:
    _no_marker_above(tmp_path)
    write_tree(tmp_path, {"a/x.md": "# x\n", "a/b/y.md": "# y\n", "c/z.md": "# z\n"})
    assert locate([str(tmp_path / "a")]) == Project(str(tmp_path / "a"), (), True)
    assert locate([str(tmp_path / "a" / "x.md")]) == Project(str(tmp_path / "a"), ("x.md",), False)
    assert locate([str(tmp_path / "a" / "b" / "y.md"), str(tmp_path / "c")]) == Project(
        str(tmp_path), ("a/b/y.md", "c"), False
    )


def test_paths_are_shown_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The root as the user would write it: relative paths give a relative root."""
    (tmp_path / ".git").mkdir()
    write_tree(tmp_path, {"a/b/x.md": "# x\n", "c/y.md": "# y\n"})
    monkeypatch.chdir(tmp_path / "a")
    assert locate(["b/x.md"]) == Project("..", ("a/b/x.md",), False)
    assert locate(["b/x.md", "../c/"]) == Project("..", ("a/b/x.md", "c"), False)
    assert locate(["..", "b"]) == Project("..", (), True)


def test_two_roots_are_a_usage_error(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / ".git").mkdir()
    write_tree(tmp_path, {"a/.drift-check.yaml": "", "a/x.md": "# x\n", "b/y.md": "# y\n"})
    run = cli(str(tmp_path / "a" / "x.md"), str(tmp_path / "b"))
    assert run.code == 2
    assert run.err == (
        f"drift-check: {tmp_path / 'b'} and {tmp_path / 'a' / 'x.md'} belong to two projects,"
        f" rooted at {tmp_path} and {tmp_path / 'a'}; check each project in a run of its own\n"
    )


def test_a_missing_path_among_others(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(_project(tmp_path))
    run = cli("agents", "agents/gsd-nope.md")
    assert (run.code, run.out) == (2, "")
    assert run.err == "drift-check: agents/gsd-nope.md: does not exist\n"


def test_a_path_outside_the_root(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    _no_marker_above(tmp_path)
    root = _project(tmp_path / "repo")
    write_tree(tmp_path, {"elsewhere/notes.md": "# notes\n"})
    run = cli(str(root / "agents"), str(tmp_path / "elsewhere"))
    assert run.code == 2
    assert run.err == (f"drift-check: {tmp_path / 'elsewhere'}: outside the project root {root}\n")


def test_a_link_that_leaves_the_root(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _project(tmp_path / "repo")
    write_tree(tmp_path, {"elsewhere/notes.md": "# notes\n"})
    (root / "notes").symlink_to(tmp_path / "elsewhere")
    run = cli(str(root / "notes" / "notes.md"))
    assert run.code == 2
    assert run.err == (
        f"drift-check: {root / 'notes' / 'notes.md'}: outside the project root {root}\n"
    )


def test_fix_applies_only_the_fixes_of_the_findings_reported(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The orphan agent's fix adds a row to the registry, outside the given folder: that
    edit is made; the skill's fix, for a finding outside the folder, is not."""
    root = _project(tmp_path)
    skill = (root / "skills/lint/SKILL.md").read_text(encoding="utf-8")
    registry = (root / REGISTRY).read_text(encoding="utf-8")
    diff = cli(str(root / "agents"), "--diff")
    assert diff.code == 1
    assert f"+++ b/{REGISTRY}" in diff.out and "SKILL.md" not in diff.out
    run = cli(str(root / "agents"), "--fix", "--format", "json")
    # the executor's DC202 is left: its fix would create a finding, and is withheld
    assert "fixed 1 finding, 1 left for a person, 1 fix withheld, 0 new" in run.err
    assert _found(run) == {("agents/gsd-executor.md", "DC202")}
    assert (root / "skills/lint/SKILL.md").read_text(encoding="utf-8") == skill
    fixed = (root / REGISTRY).read_text(encoding="utf-8")
    assert fixed != registry and "| gsd-orphan |" in fixed
    assert _found(cli(str(root), "--format", "json", "-q")) == EVERY - {
        ("agents/gsd-orphan.md", "DC103")
    }


def test_a_baseline_with_paths(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A baseline of the whole project, used on one folder: its entries for other paths are
    not "no longer occurring"; one written for a folder holds that folder's findings."""
    root = _project(tmp_path)
    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    assert cli(str(root), "--baseline-write", str(whole)).code == 0
    run = cli(str(root / "agents"), "--baseline", str(whole))
    assert (run.code, run.out) == (0, "All checks passed!\n")
    assert "no longer occurs" not in run.err
    run = cli(str(root / "agents"), "--baseline-write", str(part))
    assert "recorded 2 findings" in run.err
    run = cli(str(root), "--baseline", str(part), "--format", "json", "-q")
    assert _found(run) == EVERY - {
        ("agents/gsd-executor.md", "DC202"),
        ("agents/gsd-orphan.md", "DC103"),
    }


def test_nothing_to_check_with_a_file(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / ".git").mkdir()
    write_tree(tmp_path, {"README.md": "# A library\n", "src/lib.py": "X = 1\n"})
    monkeypatch.chdir(tmp_path / "src")
    run = cli("lib.py", "-q")
    assert (run.code, run.out) == (0, "")
    assert run.err.startswith("drift-check: nothing to check in ..: ")


@pytest.mark.parametrize("text", ["", "# examples/ is a project of its own\n"])
def test_an_empty_config_file_is_accepted(tmp_path: Path, cli, text: str) -> None:  # type: ignore[no-untyped-def]
    root = _project(tmp_path)
    (root / ".drift-check.yaml").write_text(text, encoding="utf-8")
    assert _found(cli(str(root), "--format", "json", "-q")) == EVERY


def test_examples_is_a_project_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """`drift-check examples` from this repository's root checks examples/, not the
    repository around it (whose `.git` is above it)."""
    assert (ROOT / "examples" / ".drift-check.yaml").is_file()
    monkeypatch.chdir(ROOT)
    assert locate(["examples"]) == Project("examples", (), True)
    assert locate(["examples/agents"]) == Project("examples", ("agents",), False)
    assert locate([str(ROOT / "examples")]).root == str(ROOT / "examples")
    monkeypatch.chdir(ROOT / "examples" / "agents")
    assert locate([]) == Project("..", ("agents",), False)
    assert os.path.samefile(os.path.join(os.getcwd(), locate([]).root), ROOT / "examples")

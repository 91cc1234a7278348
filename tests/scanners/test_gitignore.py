"""`.gitignore` handling: what git ignores is never listed, so never read or checked.

The patterns are translated to the repository's own linear globs (no library imported at
start-up); here they are compared with git itself (`git ls-files --others
--exclude-standard` lists exactly the files git does not ignore). Skipped without git."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drift_check.scanners.files import Repo
from drift_check.scanners.gitignore import parse_gitignore
from tests.conftest import write_tree

pytestmark = pytest.mark.slow  # git itself on generated trees

GIT_LIST = ["git", "-c", "core.excludesFile=/dev/null"]  # the tree's own rules only
SEGMENTS = ["a", "b", "ab", "dist", "x.md", "y.log"]
paths = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map("/".join)
pattern_parts = st.sampled_from(["a", "b", "dist", "*", "**", "*.md", "*.log", "x.md", "?b"])
patterns = st.builds(
    lambda neg, lead, parts, trail: (
        ("!" if neg else "") + ("/" if lead else "") + "/".join(parts) + ("/" if trail else "")
    ),
    st.booleans(),
    st.booleans(),
    st.lists(pattern_parts, min_size=1, max_size=3),
    st.booleans(),
)


def _listed(tmp_path: Path, files: list[str], gitignore: str) -> set[str]:
    tree = {f: "x\n" for f in files}
    tree[".gitignore"] = gitignore
    write_tree(tmp_path, tree)
    return set(Repo(str(tmp_path)).files()) - {".gitignore"}


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@settings(max_examples=150, deadline=None)
@given(st.lists(paths, min_size=1, max_size=8, unique=True), st.lists(patterns, max_size=4))
def test_the_same_files_are_ignored_as_git_says(tmp_path_factory, files, lines) -> None:  # type: ignore[no-untyped-def]
    # a path cannot be both a file and a folder
    files = [f for f in files if not any(g.startswith(f + "/") for g in files)]
    text = "\n".join(lines) + "\n"
    root = tmp_path_factory.mktemp("t")
    ours = _listed(root, files, text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    listing = subprocess.run(
        [*GIT_LIST, "-C", str(root), "ls-files", "--others", "--exclude-standard", "-z"],
        check=True,
        capture_output=True,
        text=True,
    )
    assert ours == set(listing.stdout.split("\0")) - {"", ".gitignore"}


def test_a_nested_gitignore_and_negation(tmp_path: Path) -> None:
    files = ["skills/a/SKILL.md", "skills/b/SKILL.md", "out/x.md", "docs/gen/y.md", "docs/z.md"]
    tree = {f: "x\n" for f in files}
    tree[".gitignore"] = "# build output\nout/\nskills/*/\n!skills/b/\n"
    tree["docs/.gitignore"] = "gen/\n"
    write_tree(tmp_path, tree)
    assert Repo(str(tmp_path)).files() == [
        ".gitignore",
        "docs/.gitignore",
        "docs/z.md",
        "skills/b/SKILL.md",
    ]


def test_patterns_without_a_glob_form_are_left_out() -> None:
    parsed = parse_gitignore("[Bb]uild/\nfoo\\ bar\n\\#not-a-comment\n  \n# comment\n")
    assert [p.glob for p in parsed] == ["**/#not-a-comment"]


def test_ignored_skills_are_not_components(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    skill = "---\nname: {0}\ndescription: Use when {0}.\n---\n"
    write_tree(
        tmp_path,
        {
            ".gitignore": ".opencode/\n",
            "skills/lint/SKILL.md": skill.format("lint"),
            ".opencode/skills/lint/SKILL.md": skill.format("Lint Copy"),
        },
    )
    run = cli(str(tmp_path), "--format", "json")
    assert run.code == 0
    assert run.json()["summary"]["components"]["skills"] == 1

"""Zero config on trees shaped like real agent repositories (tests/fixtures/shapes/*.yaml).

Each shape is a small tree written to imitate a kind of public repository, with defects
planted in it. With no configuration drift-check must find the tree's components (the banner
says what it found) and report exactly the planted findings, no more; the clean twin (the
same tree with the `clean:` files replacing the drifting ones) must give none.

    shape: what it imitates
    base: gsd               # optional: start from tests/fixtures/trees/gsd.yaml
    found: "a substring of the banner"
    files: {path: text}
    planted: ["CODE path:line:col", ...]   # every finding, exactly
    clean: {path: text}     # the fixed files
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES, load_yaml, tree_files, write_tree

SHAPES = sorted((FIXTURES / "shapes").glob("*.yaml"))


def _findings(run) -> list[str]:  # type: ignore[no-untyped-def]
    return sorted(
        f"{f['code']} {f['path']}:{f['line']}:{f['column']}" for f in run.json()["findings"]
    )


@pytest.mark.parametrize("path", SHAPES, ids=[p.stem for p in SHAPES])
def test_zero_config_finds_every_planted_defect(path: Path, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    shape = load_yaml(path)
    write_tree(tmp_path, tree_files(shape.get("base"), shape["files"]))
    run = cli(str(tmp_path), "--format", "json")
    assert shape["found"] in run.err, run.err
    assert _findings(run) == sorted(shape["planted"])
    assert run.code == (1 if shape["planted"] else 0)


@pytest.mark.parametrize("path", SHAPES, ids=[p.stem for p in SHAPES])
def test_the_clean_twin_has_no_finding(path: Path, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    shape = load_yaml(path)
    files = tree_files(shape.get("base"), {**shape["files"], **(shape["clean"] or {})})
    write_tree(tmp_path, files)
    run = cli(str(tmp_path), "--format", "json")
    assert _findings(run) == []
    assert run.code == 0
    assert shape["found"] in run.err, run.err


def test_every_shape_the_issue_names_is_here() -> None:
    names = {p.stem for p in SHAPES}
    assert names >= {
        "marketplace",
        "nested-catalogue",
        "claude-subfolders",
        "commands-only",
        "plain-agents",
        "empty",
        "gsd-beside-marketplace",
    }

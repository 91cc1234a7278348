"""Shared helpers: trees written from data, and the CLI run in-process through main(argv)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from drift_check.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpora" / "gsd-build-bdcaab2"


def load_yaml(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text(encoding="utf-8"))


def tree_files(base: str | None, files: dict[str, str | None] | None) -> dict[str, str]:
    """The files of a fixture tree: a base tree from fixtures/trees with overrides
    (a value of null deletes the base file)."""
    out: dict[str, str] = dict(load_yaml(FIXTURES / "trees" / f"{base}.yaml")) if base else {}
    for path, content in (files or {}).items():
        if content is None:
            out.pop(path, None)
        else:
            out[path] = content
    return out


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return root


class Run:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code = code
        self.out = out
        self.err = err

    def json(self) -> dict[str, Any]:
        return json.loads(self.out)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run drift-check in-process: `cli("PATH", "--format", "json")`."""

    def run(*argv: str) -> Run:
        code = main(list(argv))
        captured = capsys.readouterr()
        return Run(code, captured.out, captured.err)

    return run

"""Shared helpers: trees written from data, and the CLI run in-process through main(argv)."""

from __future__ import annotations

import difflib
import functools
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor

from drift_check.cli import main


def _trees_in_memory(folder: str = "/dev/shm", least_free: int = 1 << 30) -> None:
    """Put pytest's temporary folders (and so every tree a test writes) in a memory file
    system where one is usable, unless TMPDIR says where they go. About 1,500 tests write a
    tree and remove it; on the disk of a shared VM the waits for those writes were as long as
    the tests' own work (the quick lane 51 s against 28 s in one process). The xdist workers'
    folders are made under the controller's, which reads this too. A folder mounted
    `noexec` is passed over (the hook tests run the virtual environments pre-commit
    builds there), and so is one with less than `least_free` bytes free (Docker gives
    /dev/shm 64 MB)."""
    if os.environ.get("TMPDIR") or not hasattr(os, "statvfs"):
        return
    try:
        st = os.statvfs(folder)
    except OSError:
        return
    refused = getattr(os, "ST_NOEXEC", 0) | os.ST_RDONLY
    if st.f_flag & refused or st.f_bavail * st.f_frsize < least_free:
        return
    if os.access(folder, os.W_OK | os.X_OK):
        tempfile.tempdir = folder


_trees_in_memory()

FIXTURES = Path(__file__).parent / "fixtures"
SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpora" / "gsd-build-bdcaab2"


class Symlink(str):
    """A fixture file that is a symbolic link to this target (YAML `!symlink target`)."""


class _FixtureConstructor(SafeConstructor):
    """The safe constructor plus `!symlink`; a subclass, so drift-check's own YAML loading
    in the same process does not learn the tag."""


_FixtureConstructor.add_constructor(
    "!symlink", lambda loader, node: Symlink(loader.construct_scalar(node))
)


@functools.cache
def load_yaml(path: Path) -> Any:
    """A fixture file's data, read once per session (several modules parametrize from the
    same rule cases); callers only read it."""
    yaml = YAML(typ="safe")
    yaml.Constructor = _FixtureConstructor
    return yaml.load(path.read_text(encoding="utf-8"))


@functools.cache
def _base_tree(base: str) -> dict[str, str | bytes]:
    """A base tree, read once per test session (hundreds of cases start from one)."""
    return dict(load_yaml(FIXTURES / "trees" / f"{base}.yaml"))


def tree_files(
    base: str | None, files: dict[str, str | bytes | None] | None
) -> dict[str, str | bytes]:
    """The files of a fixture tree: a base tree from fixtures/trees with overrides
    (a value of null deletes the base file; see `write_tree` for bytes and links)."""
    out: dict[str, str | bytes] = dict(_base_tree(base)) if base else {}
    for path, content in (files or {}).items():
        if content is None:
            out.pop(path, None)
        else:
            out[path] = content
    return out


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write text as UTF-8, bytes (YAML `!!binary`) as they are, and `!symlink` as a link."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Symlink):
            path.symlink_to(str(content))
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def git_diff(before: dict[str, bytes], after: dict[str, bytes]) -> str:
    """The unified diff of two states of some files' bytes as git prints it: lines split at
    `\n` only (a `\r` stays in its line), a last line without one marked so."""

    def lines(data: bytes) -> list[str]:
        parts = data.decode("utf-8", "replace").split("\n")
        return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])

    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        for path in sorted(set(before) | set(after))
        if before.get(path) != after.get(path)
        for line in difflib.unified_diff(
            lines(before.get(path, b"")), lines(after.get(path, b"")), f"a/{path}", f"b/{path}"
        )
    )


def fix_cases() -> list[object]:
    """Every rule case with `fixed:` files, as test parameters (rule code, case)."""
    out = []
    for path in sorted((FIXTURES / "rules").glob("*.yaml")):
        data = load_yaml(path)
        for case in data["cases"]:
            if "fixed" in case:
                out.append(pytest.param(data["rule"], case, id=f"{data['rule']}: {case['name']}"))
    return out


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

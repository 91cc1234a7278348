"""--fix when the tree changes under it or a write fails, and two --fix runs at once.

Each fault hits one file after the tree was scanned and the fixes planned (through a seam
around `fixes.write`, which `cli._write` looks up when it writes the rounds): the run says so in
one line naming the file and exits 2; that file stays byte for byte as it was (or stays
gone), no temporary file is left in any folder, and the other files are still fixed, to the
end, even the registry, whose two fixes overlap and take two rounds.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import pytest

from drift_check import fixes
from drift_check.cli import main
from drift_check.fixes import FileChange
from tests.conftest import tree_files, write_tree

pytestmark = pytest.mark.slow  # concurrent fix runs and injected faults

REGISTRY = "gsd-core/references/agent-contracts.md"
DEPLOY = "skills/deploy/SKILL.md"
REVIEW = "skills/review/SKILL.md"
MAPPER_ROW = (
    "| gsd-mapper | Mapping | No marker (writes `MAP.md`) | `gsd-core/workflows/map.md`"
    " reads MAP.md | artifact+query |"
)
BASE = tree_files("gsd", None)


def _skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n"


def _files(extra_skills: int = 0) -> dict[str, str | bytes]:
    """Safe fixes in three files: two markers for the registry's `No marker` row (DC202; both
    replace that cell, so the second waits for round two), and a skill `name` in each of two
    (DC503). `extra_skills` more misnamed skills give concurrent runs more to race on."""
    files: dict[str, str | bytes | None] = {
        REGISTRY: str(BASE[REGISTRY]).replace(
            MAPPER_ROW,
            "| gsd-mapper | Mapping | No marker | `gsd-core/workflows/map.md` | sentinel-match |",
        ),
        "agents/gsd-mapper.md": (
            str(BASE["agents/gsd-mapper.md"])
            + "\n```\n## MAP DONE\n```\n\n```\n## MAP FAILED\n```\n"
        ),
        "gsd-core/workflows/map.md": (
            str(BASE["gsd-core/workflows/map.md"])
            + "\nOn `## MAP DONE` go on; on `## MAP FAILED` stop.\n"
        ),
        DEPLOY: _skill("deploy-prod", "Use when deploying."),
        REVIEW: _skill("reviewing", "Use when reviewing a change."),
    }
    for i in range(extra_skills):
        files[f"skills/extra-{i:02}/SKILL.md"] = _skill(f"old-{i:02}", f"Use for task {i}.")
    return tree_files("gsd", files)


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root, hidden ones (a temporary `.drift-check-*`) included."""
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


@pytest.fixture(scope="module")
def fixed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The tree after one undisturbed --fix."""
    root = write_tree(tmp_path_factory.mktemp("reference"), _files())
    assert main([str(root), "--fix", "-q"]) == 0
    return _snapshot(root)


def test_the_tree_has_fixes_in_three_files_and_two_rounds(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, fixed
) -> None:
    root = write_tree(tmp_path, _files())
    before = _snapshot(root)
    assert sorted(p for p in before if before[p] != fixed[p]) == [REGISTRY, DEPLOY, REVIEW]
    assert b"| gsd-mapper | Mapping | `## MAP DONE`, `## MAP FAILED` |" in fixed[REGISTRY]
    assert b"name: deploy\n" in fixed[DEPLOY] and b"name: review\n" in fixed[REVIEW]
    run = cli(str(root), "--fix", "-q")
    assert (run.code, run.err) == (
        0,
        "drift-check: fixed 6 findings, 0 left for a person, 0 fixes withheld, 0 new\n",
    )
    assert _snapshot(root) == fixed


@contextmanager
def _fault_before_writing(
    monkeypatch: pytest.MonkeyPatch, target: str, fault: Callable[[Path], object]
) -> Iterator[None]:
    """Run `fault` on `target` just before --fix writes it (once): after the scan and the
    plan."""
    real = fixes.write
    written: list[str] = []

    def write(root: str, change: FileChange) -> None:
        if change.path == target and target not in written:
            fault(Path(root, change.path))
        written.append(change.path)
        real(root, change)

    with monkeypatch.context() as patch:
        patch.setattr(fixes, "write", write)
        yield
    assert target in written, "the fault was never hit"


def _check_outcome(
    run: Any, root: Path, fixed: dict[str, bytes], target: str, left: bytes | None
) -> None:
    """Exit 2, one error line naming `target`, no traceback; `target` holds `left` (None:
    absent), every other file is fixed, and no other file appeared."""
    assert run.code == 2, run.err
    assert "Traceback" not in run.err
    errors = [line for line in run.err.splitlines() if not line.startswith("drift-check: fixed ")]
    assert len(errors) == 1, run.err
    assert errors[0].startswith(f"drift-check: {target}: "), errors
    expected = {path: data for path, data in fixed.items() if path != target}
    if left is not None:
        expected[target] = left
    assert _snapshot(root) == expected


@pytest.mark.parametrize("target", [REGISTRY, DEPLOY])
def test_a_file_deleted_before_its_write_stays_deleted(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, fixed, monkeypatch, target: str
) -> None:
    root = write_tree(tmp_path, _files())
    with _fault_before_writing(monkeypatch, target, os.unlink):
        run = cli(str(root), "--fix", "-q")
    assert "cannot read it again: No such file or directory" in run.err
    _check_outcome(run, root, fixed, target, None)


@pytest.mark.parametrize("target", [REGISTRY, DEPLOY])
def test_a_file_changed_before_its_write_keeps_the_change(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, fixed, monkeypatch, target: str
) -> None:
    root = write_tree(tmp_path, _files())
    edited = (root / target).read_bytes() + b"\nSomeone else's line.\n"
    with _fault_before_writing(monkeypatch, target, lambda path: path.write_bytes(edited)):
        run = cli(str(root), "--fix", "-q")
    assert "changed since it was read; not written" in run.err
    _check_outcome(run, root, fixed, target, edited)


def test_a_file_another_run_already_fixed_is_no_error(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, fixed, monkeypatch
) -> None:
    root = write_tree(tmp_path, _files())
    with _fault_before_writing(monkeypatch, DEPLOY, lambda path: path.write_bytes(fixed[DEPLOY])):
        run = cli(str(root), "--fix", "-q")
    assert (run.code, run.err) == (
        0,
        "drift-check: fixed 6 findings, 0 left for a person, 0 fixes withheld, 0 new\n",
    )
    assert _snapshot(root) == fixed


needs_non_root = pytest.mark.skipif(
    os.geteuid() == 0, reason="root writes and renames regardless of permissions"
)


@needs_non_root
@pytest.mark.parametrize("target", [REGISTRY, DEPLOY])
def test_a_read_only_file_is_not_written(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, fixed, target: str
) -> None:
    root = write_tree(tmp_path, _files())
    before = (root / target).read_bytes()
    os.chmod(root / target, 0o444)
    run = cli(str(root), "--fix", "-q")
    assert "read-only; not written" in run.err
    _check_outcome(run, root, fixed, target, before)
    assert os.stat(root / target).st_mode & 0o777 == 0o444


@needs_non_root
@pytest.mark.parametrize("target", [REGISTRY, DEPLOY])
def test_a_file_in_a_read_only_folder_is_not_written(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, fixed, target: str
) -> None:
    root = write_tree(tmp_path, _files())
    before = (root / target).read_bytes()
    folder = (root / target).parent
    os.chmod(folder, 0o555)
    try:
        run = cli(str(root), "--fix", "-q")
    finally:
        os.chmod(folder, 0o755)
    assert "cannot write next to it: Permission denied" in run.err
    _check_outcome(run, root, fixed, target, before)


def _no_space(*_args: object) -> NoReturn:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class _HalfWritten:
    """A temporary file that takes half the data, then finds the disk full."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh

    def __enter__(self) -> _HalfWritten:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.fh.close()

    def write(self, data: bytes) -> int:
        self.fh.write(data[: len(data) // 2])
        self.fh.flush()
        _no_space()


@pytest.mark.parametrize("stage", ["write", "fsync", "replace"])
@pytest.mark.parametrize("target", [REGISTRY, DEPLOY])
def test_a_full_disk_leaves_the_file_and_no_temporary(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, fixed, monkeypatch, target: str, stage: str
) -> None:
    root = write_tree(tmp_path, _files())
    before = (root / target).read_bytes()
    real_fdopen = os.fdopen
    failing: dict[str, Callable[..., Any]] = {
        "write": lambda fd, mode: _HalfWritten(real_fdopen(fd, mode)),
        "fsync": _no_space,
        "replace": _no_space,
    }
    real = fixes.write

    def write(root_: str, change: FileChange) -> None:
        if change.path != target:
            real(root_, change)
            return
        with monkeypatch.context() as patch:  # the disk is full for this file's write only
            patch.setattr(os, {"write": "fdopen"}.get(stage, stage), failing[stage])
            real(root_, change)

    monkeypatch.setattr(fixes, "write", write)
    run = cli(str(root), "--fix", "-q")
    assert "not written: No space left on device" in run.err
    _check_outcome(run, root, fixed, target, before)


def test_two_fix_runs_at_once_leave_every_file_valid(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = _files(extra_skills=30)
    reference = write_tree(tmp_path / "reference", files)
    assert cli(str(reference), "--fix", "-q").code == 0
    want = _snapshot(reference)
    report = cli(str(reference), "--format", "json", "-q").json()["findings"]
    original = _snapshot(write_tree(tmp_path / "original", files))
    exe = [sys.executable, "-m", "drift_check"]
    for attempt in range(5):
        root = write_tree(tmp_path / f"run{attempt}", files)
        procs = []
        for delay in (0.0, 0.02 * attempt):  # the second run starts a little later each time
            time.sleep(delay)
            procs.append(
                subprocess.Popen(
                    [*exe, str(root), "--fix", "-q"],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            # one at a time per tree (cli._lock_tree): the second plans from the first's result
            assert proc.returncode == 0, err
            assert "Traceback" not in out + err
            assert all(line.startswith("drift-check: ") for line in err.splitlines()), err
        now = _snapshot(root)
        assert now.keys() == want.keys()  # no temporary file left, none lost
        assert now == want and now != original
        check = cli(str(root), "--format", "json", "-q")
        assert (check.code, check.json()["findings"]) == (0, report)


def test_an_interrupted_write_leaves_no_temporary(tmp_path: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path, _files())
    before = _snapshot(root)
    real = fixes.write

    def interrupt(*_args: object) -> NoReturn:
        raise KeyboardInterrupt

    def write(root_: str, change: FileChange) -> None:
        if change.path == DEPLOY:
            monkeypatch.setattr(os, "fsync", interrupt)
        real(root_, change)

    monkeypatch.setattr(fixes, "write", write)
    run = cli(str(root), "--fix", "-q")
    assert (run.code, run.err.strip()) == (2, "drift-check: aborted")  # click adds a newline
    now = _snapshot(root)
    assert now.keys() == before.keys()
    assert now[DEPLOY] == before[DEPLOY]


@pytest.mark.skipif(sys.platform == "win32", reason="no flock")
def test_a_fix_run_waits_for_the_one_holding_the_tree(tmp_path: Path) -> None:
    import fcntl

    root = write_tree(tmp_path, _files())
    before = _snapshot(root)
    fd = os.open(root, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a --fix run in progress holds it
    proc = subprocess.Popen(
        [sys.executable, "-m", "drift_check", str(root), "--fix", "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=1.5)
        assert _snapshot(root) == before  # it waits before reading or writing anything
    finally:
        os.close(fd)  # the lock goes with it
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert err.startswith(f"drift-check: waiting for another --fix run on {root}\n")
    assert _snapshot(root) != before

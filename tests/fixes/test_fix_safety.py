"""Fixes never touch bytes outside their edits, and a failed or killed write leaves each
file either as it was or as fixed, never truncated."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drift_check.config import load_config
from drift_check.engine import run
from drift_check.fixes import FileChange, WriteError, plan, write
from tests.conftest import tree_files, write_tree

pytestmark = pytest.mark.slow  # killed fix runs

REGISTRY = "gsd-core/references/agent-contracts.md"
prose = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="|`#\n"),
    max_size=30,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(before=st.lists(prose, max_size=4), after=st.lists(prose, max_size=4), pad=st.integers(0, 3))
def test_fixes_change_only_the_edited_cells(tmp_path: Path, before, after, pad) -> None:  # type: ignore[no-untyped-def]
    files = tree_files("gsd", None)
    registry = files[REGISTRY]
    head, _, tail = registry.partition("## Agent Registry\n")
    spaced = tail.replace("| gsd-planner |", "|" + " " * (pad + 1) + "gsd-planner |")
    files[REGISTRY] = (
        head + "\n".join(before) + "\n\n## Agent Registry\n" + spaced + "\n".join(after) + "\n"
    )
    files["agents/gsd-planner.md"] = (
        files["agents/gsd-planner.md"] + "\n```\n## PLANNING SPLIT\n```\n"
    )
    root = tmp_path / f"t{abs(hash((tuple(before), tuple(after), pad)))}"
    write_tree(root, files)
    report = run(load_config(str(root)))
    changes = plan(list(report.findings), report.facts, unsafe=True)
    old_lines = files[REGISTRY].split("\n")
    for change in changes:
        assert change.path == REGISTRY
        new_lines = change.new.split("\n")
        assert len(new_lines) == len(old_lines)
        for old, new in zip(old_lines, new_lines, strict=True):
            if old != new:  # the planner row: only its markers cell grew
                assert old.lstrip().startswith("|") and "gsd-planner" in old
                cell_end = old.index("`## PLANNING BLOCKED`") + len("`## PLANNING BLOCKED`")
                assert new.startswith(old[:cell_end])
                assert new.endswith(old[cell_end:])
                assert new[cell_end : len(new) - len(old[cell_end:])] == ", `## PLANNING SPLIT`"


def _change(root: Path) -> FileChange:
    report = run(load_config(str(root)))
    (change,) = plan(list(report.findings), report.facts, unsafe=False)
    return change


PLANNER = {
    "agents/gsd-planner.md": tree_files("gsd", None)["agents/gsd-planner.md"]
    + "\n```\n## PLANNING SPLIT\n```\n",
    "gsd-core/workflows/split.md": "On `## PLANNING SPLIT` in plan.md too.\n",
}


def test_a_failing_write_leaves_the_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path, tree_files("gsd", PLANNER))
    before = (root / REGISTRY).read_bytes()
    change = _change(root)

    def full_disk(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(WriteError, match="not written: No space left on device"):
        write(str(root), change)
    assert (root / REGISTRY).read_bytes() == before
    assert not [p for p in (root / REGISTRY).parent.iterdir() if p.name.startswith(".drift-check-")]


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path: Path) -> None:
    root = write_tree(tmp_path, tree_files("gsd", PLANNER))
    change = _change(root)
    (root / REGISTRY).write_text("someone else's edit\n")
    with pytest.raises(WriteError, match="changed since it was read"):
        write(str(root), change)
    assert (root / REGISTRY).read_text() == "someone else's edit\n"


def test_killing_fix_runs_leaves_each_file_old_or_new(tmp_path: Path) -> None:
    # one fix, applied in one round: a killed run can only leave the old or the new file
    files = tree_files("gsd", {"agents/gsd-planner.md": PLANNER["agents/gsd-planner.md"]})
    # a large registry makes the write long enough to be interrupted
    files[REGISTRY] = files[REGISTRY] + ("\nfiller line of the contracts document" * 200_000) + "\n"
    exe = [sys.executable, "-m", "drift_check"]
    fixed = None
    for attempt in range(8):
        root = write_tree(tmp_path / f"run{attempt}", files)
        old = (root / REGISTRY).read_bytes()
        proc = subprocess.Popen(
            [*exe, str(root), "--fix", "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(0.05 + 0.05 * attempt)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = (root / REGISTRY).read_bytes()
        if now != old:
            if fixed is None:
                done = write_tree(tmp_path / "reference", files)
                subprocess.run([*exe, str(done), "--fix", "-q"], capture_output=True, check=False)
                fixed = (done / REGISTRY).read_bytes()
            assert now == fixed

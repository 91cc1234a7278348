"""Bad input end to end: a finding or a one-line error, never a traceback; the rest of the
tree is still checked; nothing is written into the tree; control characters never reach
the terminal raw.

Every tree starts from the clean `gsd` fixture plus a canary: a workflow that still sends
the retired `<files_to_read>` tag (DC401 at gsd-core/workflows/map.md:3:1). The canary
must still be reported next to whatever the bad input causes.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.conftest import tree_files, write_tree

CANARY_PATH = "gsd-core/workflows/map.md"
CANARY = (
    "# Map\n\n<files_to_read>\nMAP.md\n</files_to_read>\n\n"
    'Task(subagent_type="gsd-mapper"), then read MAP.md.\n'
)
CANARY_FINDING = ("DC401", f"{CANARY_PATH}:3:1")
REGISTRY = "gsd-core/references/agent-contracts.md"


def make_tree(root: Path, overrides: dict[str, str | None] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    return write_tree(root, tree_files("gsd", {CANARY_PATH: CANARY, **(overrides or {})}))


def snapshot(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry under root (links not followed): mode, size and mtime."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            out[os.path.relpath(path, root)] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return out


class Checked:
    """Runs the CLI on a tree, in JSON and in text, with the promises every run keeps."""

    def __init__(self, cli, root: Path) -> None:  # type: ignore[no-untyped-def]
        self.cli = cli
        self.root = root

    def run(self, *args: str, expect_code: tuple[int, ...] = (0, 1)):  # type: ignore[no-untyped-def]
        before = snapshot(self.root)
        run = self.cli(str(self.root), *args)
        assert "Traceback" not in run.out and "Traceback" not in run.err
        assert "internal error" not in run.err
        assert run.code in expect_code, run.err
        assert snapshot(self.root) == before, "drift-check wrote into the tree"
        return run

    def findings(self, *args: str) -> list[tuple[str, str]]:
        """(code, path:line:col) of every finding, checking the exit code agrees."""
        run = self.run("--format", "json", "-q", *args)
        found = [
            (f["code"], f"{f['path']}:{f['line']}:{f['column']}") for f in run.json()["findings"]
        ]
        assert run.code == (1 if found else 0)
        text = self.run(*args)
        assert "\x1b" not in text.out and "\x1b" not in text.err
        assert text.code == run.code
        self.text = text
        self.json = run.json()
        return found


@pytest.fixture
def checked(tmp_path: Path, cli):  # type: ignore[no-untyped-def]
    def make(overrides: dict[str, str | None] | None = None) -> Checked:
        return Checked(cli, make_tree(tmp_path / "repo", overrides))

    return make


def test_canary_alone(checked) -> None:  # type: ignore[no-untyped-def]
    assert checked().findings() == [CANARY_FINDING]


def test_non_utf8_agent_file(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    (c.root / "agents/gsd-executor.md").write_bytes(
        "---\nname: gsd-executor\ndescription: Exécute un plan.\n---\n".encode("latin-1")
    )
    found = c.findings()
    # at the bad byte, as a character column: "description: Ex" is 15 characters
    assert ("DC001", "agents/gsd-executor.md:3:16") in found
    assert CANARY_FINDING in found
    # an unreadable agent is not a missing agent, nor one that emits nothing
    assert sorted(found) == sorted([("DC001", "agents/gsd-executor.md:3:16"), CANARY_FINDING])


def test_binary_file_with_nul_bytes(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    (c.root / "agents/gsd-checker.md").write_bytes(b"---\nname: x\n---\n\x00\x01\x02\xff")
    (c.root / "agents/gsd-logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    found = c.findings()
    assert ("DC001", "agents/gsd-checker.md:1:1") in found
    assert ("DC001", "agents/gsd-logo.md:1:1") in found
    assert CANARY_FINDING in found
    assert "\\x1a" not in c.text.out  # the binary content itself is never printed


def test_utf16_file_is_reported(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    path = c.root / "agents/gsd-executor.md"
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    found = c.findings()
    assert ("DC001", "agents/gsd-executor.md:1:1") in found
    assert CANARY_FINDING in found


def test_utf8_bom_is_read_fine(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    for rel in ("agents/gsd-planner.md", REGISTRY, "gsd-core/workflows/plan.md", "hooks/route.py"):
        path = c.root / rel
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    # the BOM hides neither the frontmatter, nor the registry, nor any marker
    assert c.findings() == [CANARY_FINDING]


def test_utf8_bom_keeps_positions(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    path = c.root / "agents/gsd-checker.md"
    path.write_bytes(b"\xef\xbb\xbf" + b"---\nname: gsd-checker\ndescription: a: b\n---\n")
    found = c.findings()
    assert ("DC004", "agents/gsd-checker.md:3:15") in found  # the column ignores the BOM


DRIFT = {  # the executor no longer emits its marker: DC201 at the registry row
    "agents/gsd-executor.md": "---\nname: gsd-executor\ndescription: Executes a plan.\n"
    "tools: Read, Write, Bash\n---\n\nWhen done, say PLAN COMPLETE.\n",
    "agents/gsd-checker.md": "---\nname: gsd-checker\ndescription: a: b\n---\n",
}


def test_crlf_line_endings_keep_positions(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    lf = Checked(cli, make_tree(tmp_path / "lf", DRIFT))
    want = lf.findings()
    assert ("DC201", f"{REGISTRY}:8:30") in want
    assert ("DC004", "agents/gsd-checker.md:3:15") in want
    assert CANARY_FINDING in want

    crlf = Checked(cli, make_tree(tmp_path / "crlf", DRIFT))
    for dirpath, _, filenames in os.walk(crlf.root):
        for name in filenames:
            path = Path(dirpath) / name
            path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert crlf.findings() == want
    assert [f["message"] for f in crlf.json["findings"]] == [
        f["message"] for f in lf.json["findings"]
    ]
    assert "\\r" not in crlf.text.out


def test_symlink_to_a_file_outside_the_root(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    os.symlink("/etc/passwd", c.root / "agents/gsd-passwd.md")
    found = c.findings()
    assert ("DC001", "agents/gsd-passwd.md:1:1") in found
    assert CANARY_FINDING in found
    assert "root:" not in c.text.out  # not read
    # not read, so not an agent without a row either
    assert not any(
        path.startswith("agents/gsd-passwd.md") for code, path in found if code != "DC001"
    )


def _outside_dir(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "gsd-outside.md").write_text(
        "# Outside\n\n<files_to_read>\nx\n</files_to_read>\n\nOn `## OUTSIDE MARKER`: stop.\n",
        encoding="utf-8",
    )
    return outside


def test_directory_symlink_outside_the_root_in_workflows(checked, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    os.symlink(_outside_dir(tmp_path), c.root / "gsd-core/workflows/external")
    found = c.findings()
    assert ("DC001", "gsd-core/workflows/external:1:1") in found
    assert CANARY_FINDING in found
    assert "OUTSIDE" not in c.text.out  # nothing under the link was read
    assert not any("gsd-outside" in path for _, path in found)


def test_directory_symlink_outside_the_root_in_agents(checked, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    os.symlink(_outside_dir(tmp_path), c.root / "agents/external")
    found = c.findings()
    assert CANARY_FINDING in found
    assert "OUTSIDE" not in c.text.out
    assert ("DC001", "agents/external:1:1") in found


def test_symlink_loop_dangling_link_and_fifo(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    os.symlink("loop.md", c.root / "agents/loop.md")  # points at itself
    os.symlink("no-such-file.md", c.root / "agents/dangling.md")
    os.symlink("..", c.root / "agents/parent")  # an in-root directory link: not walked twice
    os.mkfifo(c.root / "agents/fifo.md")  # reading it would block forever

    def timeout(signum, frame):  # type: ignore[no-untyped-def]
        raise AssertionError("drift-check hung on a special file")

    old = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(30)
    try:
        found = c.findings()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert ("DC001", "agents/loop.md:1:1") in found
    assert CANARY_FINDING in found
    assert not any("fifo" in path or "parent/" in path for _, path in found)


def test_unreadable_file(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    path = c.root / "agents/gsd-executor.md"
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as root: a mode-000 file is still readable")
        found = c.findings()
        assert ("DC001", "agents/gsd-executor.md:1:1") in found
        assert CANARY_FINDING in found
    finally:
        path.chmod(0o644)


def test_invalid_yaml_frontmatter(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked(
        {
            "agents/gsd-planner.md": "---\nname: gsd-planner\ndescription: Plans: a phase\n"
            "tools: Read, Write\n---\n\nRead every file in <required_reading> first.\n\n"
            "```markdown\n## PLANNING COMPLETE\n```\n\n"
            "Other formats: @~/.claude/gsd-core/references/planner-formats.md\n"
        }
    )
    found = c.findings()
    assert ("DC004", "agents/gsd-planner.md:3:19") in found  # the `:` after "Plans"
    assert CANARY_FINDING in found
    # the agent is still checked from its body: its markers are still emitted
    assert not any(code in ("DC201", "DC103", "DC102") for code, _ in found)


def test_unterminated_fence(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked(
        {
            "agents/gsd-executor.md": "---\nname: gsd-executor\ndescription: Executes a plan.\n"
            "tools: Read, Write, Bash\n---\n\n```markdown\n## PLAN COMPLETE\n\nNo closing fence.\n"
        }
    )
    found = c.findings()
    assert ("DC005", "agents/gsd-executor.md:7:1") in found
    assert CANARY_FINDING in found


def test_a_tree_without_its_registry_is_checked_as_what_it_holds(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked({REGISTRY: None})
    run = c.run()
    # without its registry nothing says the tree is GSD: its agents and commands are
    # checked as Claude Code's
    assert run.err.startswith("drift-check: preset 'claude-code' detected from ")
    assert "; 4 agents, 1 command, " in run.err


COMMAND_CANARY = {  # the retired tag in a command: outside the `{core}` folder
    "commands/gsd/map.md": "---\ndescription: Map\n---\n\n<files_to_read>\nx\n</files_to_read>\n"
}


def test_missing_registry_with_a_configured_preset_is_a_finding(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked({REGISTRY: None, ".drift-check.yaml": "preset: gsd\n", **COMMAND_CANARY})
    found = c.findings()
    assert ("DC002", ".drift-check.yaml:1:1") in found  # the line that asks for it
    assert ("DC401", "commands/gsd/map.md:5:1") in found  # the rest of the tree is checked


def test_missing_registry_still_checks_the_core_workflows(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked({REGISTRY: None, ".drift-check.yaml": "preset: gsd\n"})
    assert CANARY_FINDING in c.findings()


def test_registry_with_a_malformed_row(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    path = c.root / REGISTRY
    text = path.read_text(encoding="utf-8")
    bad = "| gsd-planner | Planning | `## PLANNING COMPLETE` | `## PLANNING BLOCKED` |"
    text = text.replace(
        "| gsd-planner | Planning | `## PLANNING COMPLETE`, `## PLANNING BLOCKED` |", bad
    )
    assert bad in text
    path.write_text(text, encoding="utf-8")
    found = c.findings()
    assert ("DC003", f"{REGISTRY}:7:1") in found
    assert CANARY_FINDING in found
    # the other rows still parse: their agents have rows and their markers are declared
    assert not any(
        p.startswith(("agents/gsd-executor.md", "agents/gsd-mapper.md", "agents/gsd-checker.md"))
        for _, p in found
    )
    assert c.json["summary"]["registry_rows"] == 3


def test_control_characters_are_escaped_in_text_output(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    path = c.root / REGISTRY
    text = path.read_text(encoding="utf-8")
    path.write_text(
        text.replace("`## PLAN COMPLETE`", "`## PLAN\x1b[31m COMPLETE\x9b\x07`"), encoding="utf-8"
    )
    (c.root / "agents/gsd-\x1b[2Jevil.md").write_text("---\nname: x\n---\n", encoding="utf-8")
    (c.root / "agents/gsd-new\nline.md").write_text("---\nname: y\n---\n", encoding="utf-8")
    found = c.findings()
    assert CANARY_FINDING in found
    out = c.text.out + c.text.err
    for raw in ("\x1b", "\x9b", "\x07"):
        assert raw not in out
    assert "PLAN\\x1b[31m COMPLETE\\x9b\\x07" in out  # the marker, escaped
    assert "agents/gsd-\\x1b[2Jevil.md" in out  # the file name, escaped
    assert "agents/gsd-new\\x0aline.md" in out  # a newline in a name cannot forge a line
    assert not any(line.startswith("line.md") for line in out.splitlines())


def test_nonexistent_path_argument(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    run = cli(str(tmp_path / "no-such-dir"))
    assert run.code == 2
    assert run.out == ""
    assert len(run.err.strip().splitlines()) == 1 and run.err.startswith("drift-check: ")
    assert "Traceback" not in run.err
    assert not (tmp_path / "no-such-dir").exists()


def test_path_argument_that_is_a_file(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A file is checked as part of its project (tests/cli/test_paths.py): here a tree with
    nothing to check."""
    (tmp_path / "file.md").write_text("# x\n", encoding="utf-8")
    run = cli(str(tmp_path / "file.md"))
    assert (run.code, run.out) == (0, "")
    assert run.err.startswith("drift-check: nothing to check in ")


@pytest.mark.parametrize("code", ["DC999", "XYZ", "DC1,DC0X"])
def test_unknown_select_code(checked, code: str) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    run = c.run("--select", code, expect_code=(2,))
    assert run.out == ""
    assert len(run.err.strip().splitlines()) == 1 and run.err.startswith("drift-check: ")


def test_unknown_ignore_code(checked) -> None:  # type: ignore[no-untyped-def]
    c = checked()
    run = c.run("--ignore", "DC999", expect_code=(2,))
    assert len(run.err.strip().splitlines()) == 1 and run.err.startswith("drift-check: ")

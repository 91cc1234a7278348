"""Hostile input, generated: every run finishes with findings (exit 0/1) or a one-line error
(exit 2), reads nothing outside the root, writes nothing without `--fix`, and prints control
characters escaped. Each tree is the clean `gsd` fixture plus the canary of
tests/robustness/test_bad_input.py (DC401 at gsd-core/workflows/map.md:3:1), which must still be
reported: one bad file never hides the rest of the tree.

The limits (`max-file-bytes`, `max-line-length`, `max-yaml-depth`, `max-yaml-aliases`,
`max-json-depth`) report a file and skip it instead of parsing it.
"""

from __future__ import annotations

import builtins
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drift_check.config import packs_dir
from tests.robustness.test_bad_input import CANARY_FINDING, REGISTRY, Checked, make_tree

pytestmark = pytest.mark.slow  # large generated hostile trees

AGENT = "agents/gsd-executor.md"
AGENT_HEAD = "---\nname: gsd-executor\ndescription: Executes a plan.\ntools: Read, Write\n---\n"
AGENT_BODY = "\n```markdown\n## PLAN COMPLETE\n```\n"


@pytest.fixture
def hostile(tmp_path: Path, cli):  # type: ignore[no-untyped-def]
    def make(overrides: dict[str, str | None] | None = None) -> Checked:
        return Checked(cli, make_tree(tmp_path / "repo", overrides))

    return make


def _timed(c: Checked, limit: float = 20.0) -> list[tuple[str, str]]:
    """The findings, and the run (JSON and text) must not take pathological time; the
    bound is generous: the point is that nothing is quadratic or worse, not speed."""
    start = time.perf_counter()
    found = c.findings()
    assert time.perf_counter() - start < limit
    assert CANARY_FINDING in found
    return found


def test_lone_cr_line_endings_keep_positions(hostile) -> None:  # type: ignore[no-untyped-def]
    c = hostile()
    canary = c.root / "gsd-core/workflows/map.md"
    canary.write_bytes(canary.read_bytes().replace(b"\n", b"\r"))
    assert _timed(c) == [CANARY_FINDING]


def test_one_ten_megabyte_line_is_reported_and_skipped(hostile) -> None:  # type: ignore[no-untyped-def]
    c = hostile({"gsd-core/workflows/long.md": "# Long\n\n" + "x" * 10_000_000 + "\n"})
    found = _timed(c)
    assert ("DC001", "gsd-core/workflows/long.md:3:1") in found
    assert "max-line-length" in c.text.out


def test_line_length_limit_is_configurable(hostile) -> None:  # type: ignore[no-untyped-def]
    # the agents' and the canary's lines are shorter, so they are still read (the canary needs
    # the planner: its mention of the gate tag is what makes `<files_to_read>` retired)
    c = hostile({".drift-check.yaml": "preset: gsd\nmax-line-length: 70\n"})
    lines = (c.root / REGISTRY).read_text(encoding="utf-8").split("\n")
    first_long = next(n for n, line in enumerate(lines, 1) if len(line) > 70)
    found = _timed(c)
    assert ("DC001", f"{REGISTRY}:{first_long}:1") in found


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("- " * 10_000 + "## PLAN COMPLETE\n", id="10k nested list items"),
        pytest.param("> " * 10_000 + "## PLAN COMPLETE\n", id="10k nested quotes"),
        pytest.param(
            "".join(" " * min(i, 400) + "- item\n" for i in range(10_000)), id="10k indented items"
        ),
        pytest.param("```\n## PLAN COMPLETE\n```\n" * 33_334, id="100k fences"),
        pytest.param("`" * 100_000 + "\n" + "#" * 99_999 + " X\n", id="long fence, heading runs"),
        pytest.param("```\n" * 100_000, id="100k fence lines, last one unclosed"),
    ],
)
def test_deep_nesting_and_many_fences_in_an_agent(hostile, body: str) -> None:  # type: ignore[no-untyped-def]
    _timed(hostile({AGENT: AGENT_HEAD + AGENT_BODY + body}))


ALIAS_BOMB = "".join(
    [
        "lol0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
        *(
            f"lol{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n"
            for i in range(1, 10)  # 9**10 strings if anything expanded it
        ),
    ]
)


@pytest.mark.parametrize(
    ("frontmatter", "line", "words"),
    [
        pytest.param(ALIAS_BOMB, 9, "max-yaml-aliases", id="alias bomb"),  # the 51st alias
        pytest.param("deep: " + "[" * 10_000 + "]" * 10_000 + "\n", 3, "max-yaml-depth", id="deep"),
        pytest.param(
            "deep:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 200)),
            None,
            "max-yaml-depth",
            id="deep block mappings",
        ),
    ],
)
def test_yaml_limits_refuse_frontmatter_unparsed(  # type: ignore[no-untyped-def]
    hostile, frontmatter: str, line: int | None, words: str
) -> None:
    head = f"---\nname: gsd-executor\n{frontmatter}---\n"
    c = hostile({AGENT: head + AGENT_BODY})
    found = _timed(c)
    problems = [path for code, path in found if code == "DC004"]
    assert len(problems) == 1 and problems[0].startswith(f"{AGENT}:")
    if line is not None:
        assert problems[0].split(":")[1] == str(line)
    assert words in c.text.out


def test_yaml_limits_are_configurable(hostile) -> None:  # type: ignore[no-untyped-def]
    deep = "deep: " + "[" * 10 + "]" * 10 + "\n"
    config = "preset: gsd\nmax-yaml-depth: 5\nmax-yaml-aliases: 0\n"
    c = hostile({".drift-check.yaml": config, AGENT: f"---\nname: gsd-executor\n{deep}---\n"})
    assert any(code == "DC004" for code, _ in _timed(c))
    c.root.joinpath(AGENT).write_text(
        "---\nname: gsd-executor\na: &x 1\nb: *x\n---\n" + AGENT_BODY, encoding="utf-8"
    )
    assert "max-yaml-aliases" in Checked(c.cli, c.root).run().out
    c.root.joinpath(".drift-check.yaml").write_text("preset: gsd\n", encoding="utf-8")
    assert "max-yaml" not in Checked(c.cli, c.root).run().out  # the defaults allow both


@pytest.mark.parametrize(
    ("manifest", "text", "where"),
    [
        pytest.param(
            ".claude-plugin/plugin.json",
            "[" * 100_000 + "]" * 100_000,
            ".claude-plugin/plugin.json:1:65",
            id="100k nested arrays",
        ),
        pytest.param(
            "hooks/hooks.json",
            '{"hooks": {"Stop": [{"hooks": ['
            + ",".join(['{"type": "command", "command": "\\"x\\" ' + "a" * 40 + '"}'] * 20_000)
            + "]}]}}",
            None,
            id="20k hooks on one line",
        ),
        pytest.param(
            ".mcp.json",
            '{"mcpServers": {' + ",\n".join(f'"s{i}": {{"command": "x"}}' for i in range(20_000)),
            ".mcp.json:20000:27",
            id="20k servers, never closed",
        ),
        pytest.param(
            ".claude/settings.json",
            '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "'
            + "\\u00e9" * 50_000
            + '"}]}]}}',
            None,
            id="a command of 50k escapes",
        ),
    ],
)
def test_hostile_manifests(hostile, manifest: str, text: str, where: str | None) -> None:  # type: ignore[no-untyped-def]
    c = hostile(
        {
            ".drift-check.yaml": "preset: gsd\nmax-line-length: 10000000\n",
            ".claude-plugin/plugin.json": '{"name": "gsd"}',
            manifest: text,
        }
    )
    found = _timed(c)
    problems = [path for code, path in found if code == "DC007"]
    assert problems == ([where] if where else [])


def test_json_depth_is_configurable(hostile) -> None:  # type: ignore[no-untyped-def]
    manifest = {".claude-plugin/plugin.json": '{"name": "gsd", "x": [[[[1]]]]}'}
    c = hostile({".drift-check.yaml": "preset: gsd\nmax-json-depth: 4\n", **manifest})
    assert ("DC007", ".claude-plugin/plugin.json:1:25") in _timed(c)
    assert "nested deeper than 4 levels (max-json-depth)" in c.text.out


@pytest.mark.parametrize(
    "tagged",
    [
        '!!python/object/apply:os.system ["touch {pwned}"]',
        "!!python/name:os.system",
        '!!python/object/new:subprocess.Popen [["touch", "{pwned}"]]',
        "!custom {{a: 1}}",
    ],
)
def test_yaml_tags_construct_nothing(hostile, tmp_path: Path, tagged: str) -> None:  # type: ignore[no-untyped-def]
    pwned = tmp_path / "pwned"
    value = tagged.format(pwned=pwned)
    c = hostile({AGENT: f"---\nname: gsd-executor\ndescription: {value}\n---\n" + AGENT_BODY})
    found = _timed(c)
    assert ("DC004", f"{AGENT}:3:14") in found
    assert not pwned.exists()


def test_a_registry_of_ten_thousand_rows_and_rows_of_wrong_width(hostile) -> None:  # type: ignore[no-untyped-def]
    c = hostile()
    registry = c.root / REGISTRY
    lines = registry.read_text(encoding="utf-8").split("\n")
    header = next(i for i, line in enumerate(lines) if line.startswith("| Agent"))
    extra = [
        f"| gsd-ghost-{n} | Ghost | `## GHOST {n} DONE` | `gsd-core/workflows/plan.md` |"
        " sentinel-match |"
        for n in range(10_000)
    ]
    extra += ["| too | few |", "| " + " | ".join(["x"] * 40) + " |", "|" * 5000]
    lines[header + 2 : header + 2] = extra
    registry.write_text("\n".join(lines), encoding="utf-8")
    found = _timed(c, limit=60.0)
    assert sum(code == "DC102" for code, _ in found) == 10_000  # no agent file for any ghost
    assert sum(code == "DC003" for code, _ in found) == 3


def test_file_names_with_newlines_and_escape_sequences(hostile) -> None:  # type: ignore[no-untyped-def]
    names = ["agents/gsd-new\nline.md", "agents/gsd-\x1b[2Jclear.md", "agents/gsd-\x07bell.md"]
    c = hostile({name: "# nameless\n" for name in names})
    found = _timed(c)
    for name in names:
        assert ("DC103", f"{name}:1:1") in found  # exact in JSON
    assert "\x1b" not in c.text.out and "\x07" not in c.text.out
    assert "gsd-new\\x0aline.md" in c.text.out and "gsd-\\x1b[2Jclear.md" in c.text.out
    github = c.run("--format", "github")
    assert "\x1b" not in github.out and "gsd-new%0Aline.md" in github.out


def test_a_marker_with_terminal_control_characters(hostile) -> None:  # type: ignore[no-untyped-def]
    marker = "PLAN \x1b]0;pwned\x07 COMPLETE"
    c = hostile()
    registry = c.root / REGISTRY
    text = registry.read_text(encoding="utf-8")
    registry.write_text(
        text.replace("`## PLAN COMPLETE`", f"`## PLAN COMPLETE`, `## {marker}`", 1),
        encoding="utf-8",
    )
    found = _timed(c)
    assert any(code == "DC201" for code, _ in found)  # declared, never emitted
    assert "\x1b" not in c.text.out and "\x07" not in c.text.out
    assert "\\x1b]0;pwned\\x07" in c.text.out


def test_an_unreadable_file_even_as_root(hostile, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Running as root makes mode 000 readable, so the refusal is simulated where the file
    is opened: the run reports it and checks the rest."""
    c = hostile()
    target = os.path.realpath(c.root / AGENT)
    real_open, real_os_open = builtins.open, os.open

    def guarded(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(file, str) and os.path.realpath(file) == target:
            raise PermissionError(13, "Permission denied", file)
        return real_open(file, *args, **kwargs)

    def guarded_os(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(file, str) and os.path.realpath(file) == target:
            raise PermissionError(13, "Permission denied", file)
        return real_os_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded)
    monkeypatch.setattr(os, "open", guarded_os)
    found = _timed(c)
    assert ("DC001", f"{AGENT}:1:1") in found
    assert "Permission denied" in c.text.out


def test_everything_at_once_reads_nothing_outside_the_root(hostile, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("## SECRET COMPLETE\n", encoding="utf-8")
    c = hostile(
        {
            "gsd-core/workflows/bad-utf8.md": None,
            AGENT: f"---\nname: gsd-executor\n{ALIAS_BOMB}---\n" + AGENT_BODY,
            "agents/gsd-deep.md": "- " * 10_000 + "x\n",
        }
    )
    root = c.root
    (root / "gsd-core/workflows/bad-utf8.md").write_bytes(b"# bad \xff\xfe\n")
    (root / "gsd-core/workflows/utf16.md").write_bytes("# x\n".encode("utf-16"))
    (root / "gsd-core/workflows/nul.md").write_bytes(b"# x\x00\n")
    os.symlink("/etc/passwd", root / "agents/gsd-passwd.md")
    os.symlink(outside, root / "gsd-core/workflows/outside")
    os.symlink(outside / "secret.md", root / "agents/gsd-secret.md")
    os.symlink("loop-a.md", root / "agents/loop-b.md")
    os.symlink("loop-b.md", root / "agents/loop-a.md")
    opened: list[str] = []
    real_open, real_os_open = builtins.open, os.open
    real_scandir = os.scandir

    files_read: list[str] = []

    def recording_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(file, (str, bytes, os.PathLike)):
            opened.append(os.path.realpath(file))
            files_read.append(os.path.realpath(file))
        return real_open(file, *args, **kwargs)

    def recording_os_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(os.path.realpath(file))
        files_read.append(os.path.realpath(file))
        return real_os_open(file, *args, **kwargs)

    def recording_scandir(path=".", *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(os.path.realpath(path))
        return real_scandir(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", recording_open)
    monkeypatch.setattr(os, "open", recording_os_open)
    monkeypatch.setattr(os, "scandir", recording_scandir)
    c.run("-q")
    in_tree = [p for p in files_read if p.startswith(os.path.realpath(root) + os.sep)]
    assert in_tree and len(in_tree) == len(set(in_tree)), "a file of the tree was read twice"
    found = _timed(c)
    # elsewhere, drift-check reads only its own rule packs and the libraries it imports
    allowed = tuple(os.path.realpath(p) for p in (root, packs_dir(), sys.prefix, sys.base_prefix))
    outside = [p for p in opened if not any(p == a or p.startswith(a + os.sep) for a in allowed)]
    assert opened and not outside, outside
    assert "SECRET" not in c.text.out and "root:" not in c.text.out
    for path in ("agents/gsd-passwd.md", "agents/gsd-secret.md", "gsd-core/workflows/utf16.md"):
        assert ("DC001", f"{path}:1:1") in found


# The peak is read from /proc/self/status (VmHWM, this process's own address space):
# getrusage's ru_maxrss carries over the forking parent's peak through exec, and the parent
# here is pytest, large after the other tests.
MEMORY_PROBE = """
import sys
from drift_check.cli import main
code = main([sys.argv[1], "-q", "--format", "json", "--output", sys.argv[2]])
with open("/proc/self/status") as fh:
    peak = next(line.split()[1] for line in fh if line.startswith("VmHWM:"))
print(code, peak)
"""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
def test_a_fifty_megabyte_file_is_skipped_in_bounded_memory(hostile, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    c = hostile()
    line = "Prose that waits for `## PLAN COMPLETE` | in | a | table |\n"
    with open(c.root / "gsd-core/workflows/huge.md", "w", encoding="utf-8") as fh:
        for _ in range(50 * 1024 * 1024 // len(line) + 1):
            fh.write(line)
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-c", MEMORY_PROBE, str(c.root), str(report)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    code, maxrss_kb = proc.stdout.split()
    assert code == "1", proc.stderr
    assert int(maxrss_kb) < 200 * 1024, f"peak memory {int(maxrss_kb) // 1024} MB"
    assert "gsd-core/workflows/huge.md" in report.read_text(encoding="utf-8")


def _no_hang(seconds: int = 30):  # type: ignore[no-untyped-def]
    def timeout(signum, frame):  # type: ignore[no-untyped-def]
        raise AssertionError("drift-check blocked on a special file")

    signal.signal(signal.SIGALRM, timeout)
    signal.alarm(seconds)


@pytest.mark.parametrize("name", [".drift-check.yaml", "pyproject.toml"])
def test_a_config_file_linked_out_of_the_root_is_refused(hostile, name: str) -> None:  # type: ignore[no-untyped-def]
    c = hostile()
    os.symlink("/etc/passwd", c.root / name)
    run = c.run(expect_code=(2,))
    assert run.err.count("\n") == 1 and "outside the repository" in run.err
    assert "root:" not in run.out + run.err


def test_special_files_where_config_and_detection_look_do_not_block(hostile) -> None:  # type: ignore[no-untyped-def]
    c = hostile()
    os.mkfifo(c.root / "pyproject.toml")
    os.mkfifo(c.root / ".drift-check.yml")
    (c.root / "skills").mkdir(exist_ok=True)
    os.mkfifo(c.root / "skills/README.md")  # the gaia preset's detection reads this file
    _no_hang()
    try:
        _timed(c)
    finally:
        signal.alarm(0)
    c.root.joinpath("pack.yaml").unlink(missing_ok=True)
    os.mkfifo(c.root / "pack.yaml")
    (c.root / ".drift-check.yaml").write_text("preset: pack.yaml\n", encoding="utf-8")
    _no_hang()
    try:
        run = c.run(expect_code=(2,))
    finally:
        signal.alarm(0)
    assert "pack.yaml: a rule pack must be a regular file" in run.err


FORBIDDEN_MODULES = {"subprocess", "socket", "http", "urllib.request", "ftplib", "pickle", "shelve"}
FORBIDDEN_CALLS = {"eval", "exec", "system", "popen", "execv", "execvp", "spawnv", "__import__"}


def test_the_package_has_no_code_that_runs_programs_or_talks_to_the_network() -> None:
    """docs/security.md promises no execution and no network: nothing in drift_check/
    imports a module for either, or calls eval, exec, os.system and the like."""
    import ast

    package = Path(__file__).resolve().parents[2] / "drift_check"
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            bad = [n for n in names if n in FORBIDDEN_MODULES or n.split(".")[0] in {"socket"}]
            if path.name == "wire.py" and bad == ["pickle"]:
                bad = []  # a worker's results, from a memory file only this run holds
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if called in FORBIDDEN_CALLS:
                    bad.append(called)
            found += [f"{path.name}:{getattr(node, 'lineno', 0)}: {b}" for b in bad]
    assert not found


@pytest.mark.parametrize("name", [".drift-check.yaml", "pyproject.toml", "pack.yaml"])
def test_an_oversized_config_file_is_refused(hostile, name: str) -> None:  # type: ignore[no-untyped-def]
    c = hostile()
    big = "# padding\n" * 120_000  # 1.2 MB of comments: valid YAML and TOML
    if name == "pack.yaml":
        (c.root / ".drift-check.yaml").write_text("preset: pack.yaml\n", encoding="utf-8")
        big = '{"name": "p"}\n' + big
    (c.root / name).write_text(big, encoding="utf-8")
    run = c.run(expect_code=(2,))
    assert run.err.count("\n") == 1 and "not a config file" in run.err and name in run.err

"""The main command's arguments read without click (`drift_check.options.parse`) agree
with click's reading of them, and the usual command lines are read that way."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drift_check.cli import SUBCOMMAND_NAMES
from drift_check.commands import SUBCOMMANDS, check
from drift_check.options import CHECK_OPTIONS, parse

FLAGS = [flag for option in CHECK_OPTIONS for flag in option.flags]
# arguments click reads in ways the table does not (help, version, clusters, attached short
# values, `=` forms, a lone dash) and values of every kind: choices, a folder, a file, empty
TOKENS = [
    *FLAGS,
    *("-h", "--help", "--version", "--bogus", "-qv", "-oout.txt", "-x", "--", "-", ""),
    *("--format=json", "--format=yaml", "--color=never", "--fix=1", "--select=", "--output=d"),
    *("--output-format=sarif", "--config=cfg.yaml", "--exclude=docs/**", "--quiet=yes"),
    *("json", "text", "sarif", "yaml", "always", "auto", "DC1", "DC101,DC2", "docs/**"),
    *("f.md", "d", "d/", "out.txt", "cfg.yaml", "missing/x.md", "a=b", "rules", "graph"),
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("options")
    (root / "d").mkdir()
    (root / "f.md").write_text("# f\n")
    (root / "cfg.yaml").write_text("select: [DC]\n")
    return root


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _click_reading(args: list[str]) -> dict[str, Any] | None:
    """The parameters click gives the main command for `args`; None where it refuses them
    or answers itself (help, version)."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            ctx = check.make_context("drift-check", list(args))
    except (click.exceptions.Exit, click.ClickException):
        return None
    return dict(ctx.params)


@pytest.mark.slow
@settings(
    max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(TOKENS), max_size=7))
def test_a_command_line_is_read_as_click_reads_it_or_left_to_click(
    tree: Path, args: list[str]
) -> None:
    if args and args[0] in SUBCOMMAND_NAMES:
        args = ["--", *args]  # `main` gives a subcommand's name to click before `parse`
    with _inside(tree):
        read = parse(args)
        by_click = _click_reading(args)
    if by_click is None:
        assert read is None, args  # click refuses it or answers itself: click must see it
    elif read is not None:
        paths, options = read
        assert {"paths": paths, **options} == by_click, args


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["."],
        ["f.md", "d/x.md"],
        ["--fix", "f.md"],
        ["--format", "json", "-q", "."],
        ["--output-format=sarif", "-o", "out.txt"],
        ["--select", "DC1", "--select=DC2,DC3", "--ignore", "DC101", "--exit-zero"],
        ["--config", "cfg.yaml", "--preset", "gaia", "--color", "never", "-v"],
        ["--baseline", "b.json", "--summary", "s.md", "--json-report=r.json", "--", "-f.md"],
    ],
)
def test_the_usual_command_lines_are_read_without_click(tree: Path, args: list[str]) -> None:
    with _inside(tree):
        read = parse(args)
        assert read is not None
        paths, options = read
        assert {"paths": paths, **options} == _click_reading(args)


@pytest.mark.parametrize(
    "args",
    [["-h"], ["--version"], ["--bogus"], ["-qv"], ["--format", "yaml"], ["--output", "d"]],
)
def test_help_version_and_what_click_refuses_are_left_to_click(tree: Path, args: list[str]) -> None:
    with _inside(tree):
        assert parse(args) is None


def test_the_subcommand_names_are_clicks() -> None:
    assert set(SUBCOMMAND_NAMES) == set(SUBCOMMANDS)


def test_click_lists_every_option_of_the_table() -> None:
    options = [p for p in check.params if isinstance(p, click.Option)]
    table = [option.flags for option in CHECK_OPTIONS]
    assert [tuple(p.opts) for p in options if p.name not in ("version", "help")] == table


@pytest.mark.slow
def test_a_run_imports_no_click(tmp_path: Path) -> None:
    skill = tmp_path / "skills" / "demo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: demo\ndescription: Use when testing.\n---\n\n# Demo\n")
    script = (
        "import sys\nfrom drift_check.cli import main\n"
        "code = main(['.', '--format', 'json'])\n"
        "print(code, 'click' in sys.modules, 'inspect' in sys.modules, file=sys.stderr)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert run.stderr.splitlines()[-1] == "0 False False", run.stderr


def test_the_version_is_said_as_click_says_it(capsys: pytest.CaptureFixture[str]) -> None:
    from drift_check.cli import main
    from drift_check.commands import run_click

    assert run_click(["--version"]) == 0
    by_click = capsys.readouterr()
    assert main(["--version"]) == 0
    assert capsys.readouterr() == by_click


def test_a_reader_that_goes_away_ends_the_run_quietly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from drift_check.cli import main

    skill = tmp_path / "skills" / "demo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: other\ndescription: Use when testing.\n---\n")

    class Closed(io.StringIO):  # stdout piped into a reader that has gone (`| head`)
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Closed())
    assert main([str(tmp_path), "-q"]) == 1  # as click ends it: exit 1, nothing said
    assert capsys.readouterr().err == ""


def test_a_stream_set_to_ascii_gets_utf8_as_click_gave_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from drift_check.cli import main

    skill = tmp_path / "skills" / "démo" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: other\ndescription: Use when testing.\n---\n", encoding="utf-8")
    out, err = io.BytesIO(), io.BytesIO()
    # `PYTHONIOENCODING=ascii`: stdout strict, stderr escaping, as Python sets them up
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, "ascii", "strict"))
    monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(err, "ascii", "backslashreplace"))
    assert main([str(tmp_path)]) == 1
    assert "skills/démo/SKILL.md:2:1: DC503".encode() in out.getvalue()
    assert "from skills/démo/SKILL.md".encode() in err.getvalue()

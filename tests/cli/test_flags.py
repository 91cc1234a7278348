"""The main command's options and messages, end to end through main(argv): unknown codes
alike in both config files and on the command line, which config file wins, the `--show-*`
options, `--verbose`, `--color`, `--exclude`, `--extend-select`, `--preset`, `--unsafe-fixes`
alone, `init --force`, every command's `-h`, and `--watch` in a real process."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from drift_check.cli import SUBCOMMANDS, _color
from drift_check.config import known_presets
from tests.conftest import write_tree

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SEE = " (see `drift-check rules`)"
SKILL = "---\nname: {name}\ndescription: Use when testing.\n---\n\n# A skill\n"


def _skills(root: Path, extra: dict[str, str] | None = None) -> Path:
    """Two skills, `beta`'s `name` differing from its folder (DC503, a safe fix)."""
    files = {
        "skills/alpha/SKILL.md": SKILL.format(name="alpha"),
        "skills/beta/SKILL.md": SKILL.format(name="gamma"),
        **(extra or {}),
    }
    return write_tree(root, files)


def _one_error(run: Any) -> str:
    assert run.code == 2, (run.code, run.out, run.err)
    assert run.err.count("\n") == 1 and "Traceback" not in run.err, run.err
    return str(run.err.removeprefix("drift-check: ").rstrip("\n"))


# (config key written in both files, the command-line option or None, the bad value, the
# message after the location)
UNKNOWN = "unknown rule code or prefix"
UNKNOWN_CODES = [
    ("select", "--select", "DC999", f"`select`: {UNKNOWN} 'DC999'"),
    ("ignore", "--ignore", "DC999", f"`ignore`: {UNKNOWN} 'DC999'"),
    ("extend-select", "--extend-select", "DC99", f"`extend-select`: {UNKNOWN} 'DC99'"),
    ("severity", None, "DC999", "`severity`: 'DC999' is not a whole rule code"),
    ("per-file-ignores", None, "XX1", f"`per-file-ignores` 'skills/**': {UNKNOWN} 'XX1'"),
]


def _config(key: str, code: str, toml: bool) -> str:
    if key == "severity":
        return (
            f'[tool.drift-check]\nseverity = {{ {code} = "info" }}\n'
            if toml
            else (f"severity:\n  {code}: info\n")
        )
    if key == "per-file-ignores":
        return (
            f'[tool.drift-check]\nper-file-ignores = {{ "skills/**" = ["{code}"] }}\n'
            if toml
            else (f'per-file-ignores:\n  "skills/**": [{code}]\n')
        )
    return f'[tool.drift-check]\n{key} = ["{code}"]\n' if toml else f"{key}: [{code}]\n"


@pytest.mark.parametrize(("key", "option", "code", "message"), UNKNOWN_CODES)
def test_an_unknown_code_is_the_same_error_in_both_files_and_on_the_command_line(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    key: str,
    option: str | None,
    code: str,
    message: str,
) -> None:
    yaml_root = _skills(
        tmp_path / "yaml", {".drift-check.yaml": "# mine\n" + _config(key, code, False)}
    )
    toml_root = _skills(tmp_path / "toml", {"pyproject.toml": _config(key, code, True)})
    assert _one_error(cli(str(yaml_root))) == f"{yaml_root / '.drift-check.yaml'}:2: {message}{SEE}"
    assert _one_error(cli(str(toml_root))) == f"{toml_root / 'pyproject.toml'}:2: {message}{SEE}"
    if option is not None:
        root = _skills(tmp_path / "plain")
        tail = message.split(": ", 1)[1]
        assert _one_error(cli(str(root), option, code)) == f"{option}: {tail}{SEE}"


@pytest.mark.parametrize("where", ["yaml", "toml", "command line"])
def test_a_prefix_of_real_codes_stays_valid_everywhere(tmp_path: Path, cli, where: str) -> None:  # type: ignore[no-untyped-def]
    files = {
        "yaml": {".drift-check.yaml": "select: [dc5]\nignore: [DC2]\nextend-select: [DC7]\n"},
        "toml": {"pyproject.toml": '[tool.drift-check]\nselect = ["DC5"]\nignore = ["dc2"]\n'},
        "command line": {},
    }[where]
    root = _skills(tmp_path, files)
    args = ("--select", "dc5", "--ignore", "DC2", "--extend-select", "DC7")
    run = cli(str(root), "--format", "json", *(args if where == "command line" else ()))
    assert run.code == 1, run.err
    assert {f["code"] for f in run.json()["findings"]} == {"DC503"}


def test_the_dedicated_file_wins_over_pyproject(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skills(
        tmp_path,
        {
            ".drift-check.yaml": "ignore: [DC503]\n",
            "pyproject.toml": '[tool.drift-check]\nselect = ["DC999"]\n',  # never read
        },
    )
    run = cli(str(root))
    assert run.code == 0, run.err
    assert ", config .drift-check.yaml; " in run.err
    shown = cli(str(root), "--show-settings").out
    assert 'config-file               = ".drift-check.yaml"  # found at the root\n' in shown
    assert 'ignore                    = ["DC503"]  # config .drift-check.yaml\n' in shown
    (root / ".drift-check.yaml").unlink()
    assert _one_error(cli(str(root))).startswith(f"{root / 'pyproject.toml'}:2: `select`")


def test_a_pyproject_without_the_table_is_no_config(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skills(tmp_path, {"pyproject.toml": '[tool.ruff]\nselect = ["E"]\n'})
    run = cli(str(root), "--show-settings")
    assert "config-file               = null  # none found\n" in run.out


def test_a_config_file_that_is_not_there(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skills(tmp_path)
    for name in ("nope.yaml", "nope.toml"):
        assert _one_error(cli(str(root), "--config", name)) == f"{name}: no such file"


@pytest.mark.parametrize("command", ["", *SUBCOMMANDS])
def test_every_command_has_a_help_with_one_line_per_option(cli, command: str) -> None:  # type: ignore[no-untyped-def]
    args = [command, "-h"] if command else ["--help"]
    run = cli(*args)
    assert run.code == 0 and not run.err
    assert run.out.startswith(f"Usage: drift-check {command}".rstrip() + " [OPTIONS]")
    section = run.out.split("\nOptions:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    # each line names an option, and its help sits on the same line
    assert all(re.match(r"^  -{1,2}\w[\w-]*.*\S {2,}\S", line) for line in section), section
    from drift_check.cli import check

    command_object = SUBCOMMANDS[command] if command else check
    options = [p for p in command_object.params if p.param_type_name == "option"]
    assert len(section) == len(options)


def test_unsafe_fixes_alone_marks_them_fixable_and_says_how(cli) -> None:  # type: ignore[no-untyped-def]
    plain = cli(str(EXAMPLES), "-q")
    unsafe = cli(str(EXAMPLES), "-q", "--unsafe-fixes")
    assert (plain.code, unsafe.code) == (1, 1)
    findings = cli(str(EXAMPLES), "-q", "--format", "json").json()["findings"]
    fixes = [f["fix"]["applicability"] for f in findings if f.get("fix")]
    safe, risky = fixes.count("safe"), fixes.count("unsafe")
    assert safe and risky
    assert plain.out.count(" [*] ") == safe
    assert (
        f"[*] {safe} fixable with `--fix`.\n{risky} more fixable with `--fix --unsafe-fixes`."
        in (plain.out)
    )
    assert unsafe.out.count(" [*] ") == safe + risky
    assert unsafe.out.endswith(f"[*] {safe + risky} fixable with `--fix --unsafe-fixes`.\n")


def test_init_twice_says_how_to_overwrite_and_force_does(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skills(tmp_path)
    assert cli("init", str(root)).code == 0
    written = (root / ".drift-check.yaml").read_text()
    (root / ".drift-check.yaml").write_text("select: [DC5]\n")
    again = cli("init", str(root))
    assert _one_error(again).endswith("not overwritten (`drift-check init --force` overwrites it)")
    forced = cli("init", "--force", str(root))
    assert forced.code == 0
    assert (root / ".drift-check.yaml").read_text() == written
    (root / ".drift-check.yaml").write_text("select: [\n")  # broken: --force replaces it too
    assert cli("init", str(root), "--force").code == 0
    assert (root / ".drift-check.yaml").read_text() == written


def test_show_files_lists_each_file_read_with_its_kind(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = shutil.copytree(EXAMPLES, tmp_path / "examples")
    run = cli(str(root), "--show-files")
    assert run.code == 0 and not run.err
    rows = [line.split() for line in run.out.splitlines()]
    listed = {row[0]: " ".join(row[1:]) for row in rows}
    assert [row[0] for row in rows] == sorted(listed)
    assert listed["gsd-core/references/agent-contracts.md"] == "registry"
    assert listed["agents/gsd-mapper.md"] == "agent"
    assert listed["skills/route-returns/SKILL.md"] == "skill"
    assert listed["commands/gsd/plan.md"] == "command"
    assert listed["gsd-core/workflows/review.md"] == "consumer"
    assert listed["hooks/route_return.py"] == "consumer"
    assert listed["gsd-core/references/planner-output.md"] == "referenced"  # an include
    json_report = cli(str(root), "--format", "json", "-q").json()
    assert {f["path"] for f in json_report["findings"]} <= set(listed)
    excluded = cli(str(root), "--show-files", "--exclude", "skills/**").out
    assert "skills/route-returns/SKILL.md" not in excluded
    assert "agents/gsd-mapper.md" in excluded


def test_show_settings_says_where_each_value_comes_from(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    config = "skill-line-limit: 300\nextend-known-tools: [MyTool]\nignore: [DC9]\n"
    root = _skills(
        tmp_path,
        {
            ".drift-check.yaml": config,
            ".claude/agents/a.md": "---\nname: a\ndescription: An agent.\n---\n",
        },
    )
    run = cli(
        str(root), "--show-settings", "--extend-exclude", "vendor/**", "--extend-select", "DC5"
    )
    assert run.code == 0 and not run.err
    lines = dict(re.findall(r"^([a-z-]+) += (.*)$", run.out, re.M))
    assert lines["root"] == f"{json.dumps(str(root))}  # the folder checked"
    assert lines["packs"].startswith("[\"claude-code\"]  # preset 'claude-code' detected from ")
    assert lines["select"] == '["DC"]  # pack claude-code'
    assert lines["extend-select"] == '["DC5"]  # command line'
    assert lines["ignore"] == '["DC9"]  # config .drift-check.yaml'
    assert lines["skill-line-limit"] == "300  # config .drift-check.yaml"
    assert lines["skill-name-max"] == "64  # default"
    assert lines["agent-name-matches-file"] == "false  # pack claude-code"
    assert lines["skill-token-limit"] == "5000  # pack agent-skills"
    assert lines["exclude"] == '["vendor/**"]  # default, command line'
    tools = lines["known-tools"]
    assert tools.endswith(', "MyTool"]  # pack claude-code, config .drift-check.yaml')
    rules = json.loads(lines["rules"].split("  # ")[0])
    assert "DC503" in rules and "DC901" not in rules
    assert lines["rules"].endswith(f"  # {len(rules)} selected")
    # every setting is there, once
    from drift_check.settings import SETTINGS

    assert all(s.name in lines for s in SETTINGS)
    assert len(run.out.splitlines()) == len(SETTINGS) + 9
    assert (
        cli(str(root), "--show-settings", "--select", "DC5").out.count('["DC5"]  # command line')
        == 1
    )


def test_show_fixes_lists_available_fixes_and_then_the_applied_ones(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = shutil.copytree(EXAMPLES, tmp_path / "examples")
    findings = cli(str(root), "-q", "--format", "json").json()["findings"]
    fixable = [f for f in findings if f.get("fix")]
    available = cli(str(root), "-q", "--show-fixes")
    listed = available.out.split(f"\n{len(fixable)} fixes available:\n", 1)[1].splitlines()
    assert len(listed) == len(fixable)
    for line, f in zip(listed, fixable, strict=True):
        where = f"{root}/{f['path']}:{f['line']}:{f['column']}:"
        assert line.startswith(os.path.relpath(where) if not os.path.isabs(where) else where)
        assert f" {f['code']} [{f['fix']['applicability']}] {f['fix']['description']}" in line
    fixed = cli(str(root), "-q", "--fix", "--show-fixes")
    summary = re.search(r"fixed (\d+) findings?", fixed.err)
    assert summary is not None, fixed.err
    head = f"Fixed {summary.group(1)} finding{'s' if summary.group(1) != '1' else ''}:\n"
    applied = fixed.out.split(head, 1)[1].splitlines()
    assert len(applied) == int(summary.group(1)) > 0
    safe = {
        (f["path"], f["line"], f["code"]) for f in fixable if f["fix"]["applicability"] == "safe"
    }
    for line in applied:
        m = re.match(rf"{re.escape(str(root))}/(.+?):(\d+):\d+: (DC\d+) ", line)
        assert m is not None and (m.group(1), int(m.group(2)), m.group(3)) in safe, line
    # json on stdout stays json: the list goes to stderr
    again = cli(str(root), "-q", "--format", "json", "--show-fixes")
    assert json.loads(again.out) and "fixes available:" in again.err


def test_verbose_says_what_was_read_and_how_long_each_phase_took(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skills(tmp_path, {".drift-check.yaml": "ignore: [DC9]\n"})
    run = cli(str(root), "-v")
    assert run.code == 1
    err = run.err.splitlines()
    assert f"drift-check: config file: {root / '.drift-check.yaml'}" in err
    assert "drift-check: packs: agent-skills (preset 'agent-skills' detected from" in run.err
    assert "drift-check: read 2 files" in err
    assert "drift-check: read skills/alpha/SKILL.md (skill)" in err
    assert "drift-check: read skills/beta/SKILL.md (skill)" in err
    timing = err[-1]
    assert re.fullmatch(
        r"drift-check: time: config \d+ ms, discovery \d+ ms, scan \d+ ms, rules \d+ ms,"
        r" suppressions \d+ ms, report \d+ ms",
        timing,
    ), timing
    assert cli(str(root)).out == run.out  # stdout is the same report


@pytest.mark.parametrize(
    ("option", "env", "colored"),
    [
        ((), {}, False),  # not a terminal
        ((), {"FORCE_COLOR": "1"}, True),
        ((), {"FORCE_COLOR": ""}, False),  # set but empty: not forced
        (("--color", "always"), {"NO_COLOR": "1"}, True),  # the option wins
        (("--color", "never"), {"FORCE_COLOR": "1"}, False),
        (("--color", "auto"), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, True),
    ],
)
def test_color_option_and_environment(cli, monkeypatch, option, env, colored) -> None:  # type: ignore[no-untyped-def]
    for name in ("FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = cli(str(EXAMPLES), "-q", *option).out
    assert ("\x1b[" in out) is colored
    assert "\x1b[" not in cli(str(EXAMPLES), "-q", "--format", "json", *option).out


def test_auto_color_on_a_terminal_unless_no_color(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert _color("auto", None, "text")
    assert not _color("auto", "report.txt", "text")  # a file is no terminal
    assert not _color("auto", None, "json")
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _color("auto", None, "text")
    assert _color("always", None, "text")


def test_exclude_replaces_the_setting_and_extend_exclude_adds_to_it(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = {
        ".drift-check.yaml": "exclude: [skills/beta/**]\n",
        "skills/delta/SKILL.md": SKILL.format(name="epsilon"),
    }
    root = _skills(tmp_path, files)

    def reported(*args: str) -> set[str]:
        run = cli(str(root), "--format", "json", "-q", *args)
        return {f["path"] for f in run.json()["findings"]}

    assert reported() == {"skills/delta/SKILL.md"}
    assert reported("--exclude", "skills/delta/**") == {"skills/beta/SKILL.md"}
    assert reported("--extend-exclude", "skills/delta/**") == set()
    assert reported("--exclude", "nothing/**,skills/delta/**") == {"skills/beta/SKILL.md"}


def test_extend_select_adds_to_the_selection(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = {
        ".drift-check.yaml": "select: [DC1]\n",
        "skills/beta/SKILL.md": "---\nname: gamma\ndescription: x\nfoo: 1\n---\n",
    }
    root = _skills(tmp_path, files)

    def codes(*args: str) -> set[str]:
        run = cli(str(root), "--format", "json", "-q", *args)
        return {f["code"] for f in run.json()["findings"]}

    assert codes() == set()
    assert codes("--extend-select", "DC503") == {"DC503"}
    assert codes("--extend-select", "DC503,DC506") == {"DC503", "DC506"}
    assert codes("--select", "DC506", "--extend-select", "DC503") == {"DC503", "DC506"}


def test_preset_forces_a_pack_and_an_unknown_one_lists_the_known(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = _skills(
        tmp_path, {"skills/beta/SKILL.md": "---\nname: beta\ndescription: x\nmodel: x\n---\n"}
    )
    strict = cli(str(root), "--format", "json")
    assert "preset 'agent-skills' detected" in strict.err
    assert {f["code"] for f in strict.json()["findings"]} == {"DC506"}  # `model` is Claude Code's
    claude = cli(str(root), "--preset", "claude-code")
    assert claude.code == 0, claude.out
    assert "drift-check: preset 'claude-code' set on the command line;" in claude.err
    error = _one_error(cli(str(root), "--preset", "nope"))
    assert error == f"--preset: unknown preset 'nope'; known presets: {', '.join(known_presets())}"


def test_a_missing_path_is_one_line(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert _one_error(cli(str(tmp_path / "nowhere"))).endswith("nowhere: does not exist")


def _wait_for(read: Any, pattern: str, count: int, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    text = read()
    while text.count(pattern) < count and time.monotonic() < deadline:
        time.sleep(0.1)
        text = read()
    return str(text)


def test_watch_sees_a_change_saved_while_the_first_check_runs(tmp_path: Path) -> None:
    """The watcher is set up before the first check: a file saved during that check is a
    change (the first version started watching after it, and missed the save)."""
    import threading

    from drift_check.watch import watch

    root = _skills(tmp_path / "tree")
    runs: list[int] = []

    def check() -> None:
        runs.append(1)
        if len(runs) == 1:
            (root / "skills/alpha/SKILL.md").write_text(SKILL.format(name="zeta"))
        else:
            raise KeyboardInterrupt  # the second check: end the watch as Ctrl-C does

    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(watch(str(root), check)), daemon=True)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive(), "the save made during the first check was not seen"
    assert (len(runs), codes) == (2, [0])


@pytest.mark.slow
def test_watch_checks_again_after_a_change_and_ctrl_c_exits_0(tmp_path: Path) -> None:
    root = _skills(tmp_path / "tree")
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "drift_check", str(root), "--watch", "-q"],
            stdout=stdout,
            stderr=stderr,
            cwd=tmp_path,
        )
        try:
            first = _wait_for(out.read_text, "Found 1 finding.", 1, 60)
            assert first.count("Found 1 finding.") == 1, (first, err.read_text())
            (root / "skills/alpha/SKILL.md").write_text(SKILL.format(name="zeta"))
            second = _wait_for(out.read_text, "Found 2 findings.", 1, 60)
            assert "Found 2 findings." in second, (second, err.read_text())
        finally:
            process.send_signal(signal.SIGINT)
            code = process.wait(timeout=30)
    assert code == 0
    messages = err.read_text()
    assert f"drift-check: watching {root} for changes (Ctrl-C to stop)" in messages
    assert "changed; checking again" in messages
    assert "Traceback" not in messages

"""The settings schema: every setting declared once, defaults under every pack, `extend-`
forms, and config files checked as strictly as the command line (one line, exit 2)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from drift_check import settings as schema
from drift_check.config import load_config, load_yaml_document, packs_dir
from drift_check.scanners import discover_tree
from tests.conftest import tree_files, write_tree

PACKAGE = Path(__file__).resolve().parents[2] / "drift_check"


def _code() -> str:
    return "\n".join(
        p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py") if p.name != "settings.py"
    )


def test_each_setting_is_declared_once_and_its_default_has_its_type() -> None:
    names = [s.name for s in schema.SETTINGS]
    assert len(names) == len(set(names))
    assert not [n for n in names if n.startswith(schema.EXTEND)]
    for s in schema.SETTINGS:
        assert s.kind.accepts(s.default) or (s.default is None and s.kind.nullable), s.name
        assert s.doc and "\n" not in s.doc and "|" not in s.doc, s.name
    assert schema.check({s.name: s.default for s in schema.SETTINGS}) is not None


def test_code_reads_only_declared_settings_and_never_with_a_fallback() -> None:
    code = _code()
    read = set(re.findall(r"settings\[\"([a-z-]+)\"\]", code))
    read |= set(re.findall(r"\bglobs\(\"([a-z-]+)\"\)", code))
    assert read <= set(schema.BY_NAME), read - set(schema.BY_NAME)
    assert not re.findall(r"settings\.get\(", code)  # a default lives in the schema only


def test_every_setting_is_read_somewhere() -> None:
    code = _code()
    unread = [s.name for s in schema.SETTINGS if f'"{s.name}"' not in code]
    assert not unread


def test_the_base_pack_restates_no_default() -> None:
    base = load_yaml_document(Path(packs_dir(), "base.yaml").read_text(encoding="utf-8"))
    assert "settings" not in base


# layers (lowest first) -> a setting as resolved
RESOLVE_CASES = [
    ([], "agents", ("agents/*.md",)),
    ([{"agents": ("a/*.md",)}], "agents", ("a/*.md",)),
    ([{"extend-agents": ("b/*.md",)}], "agents", ("agents/*.md", "b/*.md")),
    ([{"agents": ("a/*.md",)}, {"extend-agents": ("b/*.md",)}], "agents", ("a/*.md", "b/*.md")),
    ([{"agents": ("a/*.md",), "extend-agents": ("b/*.md",)}], "agents", ("a/*.md", "b/*.md")),
    ([{"extend-agents": ("b/*.md",)}, {"agents": ("c/*.md",)}], "agents", ("c/*.md",)),
    (
        [{"extend-agents": ("b/*.md",)}, {"extend-agents": ("c/*.md",)}],
        "agents",
        ("agents/*.md", "b/*.md", "c/*.md"),
    ),
    # a null allow-list allows anything: extending it must not make it a list of one
    ([{"extend-known-tools": ("MyTool",)}], "known-tools", None),
    ([{"known-tools": ("Read",)}, {"extend-known-tools": ("X",)}], "known-tools", ("Read", "X")),
    (
        [{"skill-allowed-keys": None, "extend-skill-allowed-keys": ("x",)}],
        "skill-allowed-keys",
        None,
    ),
]


@pytest.mark.parametrize(("layers", "name", "value"), RESOLVE_CASES)
def test_extend_appends_to_what_the_layers_below_say(
    layers: list[Any], name: str, value: Any
) -> None:
    resolved = schema.resolve(layers)
    assert resolved[name] == value
    assert set(resolved) == set(schema.BY_NAME)


def test_every_list_setting_has_an_extend_form() -> None:
    lists = {s.name for s in schema.SETTINGS if s.kind.is_list}
    assert {"agents", "known-tools", "skill-allowed-keys", "exclude"} <= lists
    assert set(schema.EXTENDS) == {f"extend-{name}" for name in lists}
    assert "extend-registry-heading" not in schema.KEYS


SEE = " (see `drift-check rules`)"

# A config file's content (and files beside it) -> the one line drift-check prints, exit 2.
# {config} is the config file's path, followed by the line of the key; {see} the pointer
# every unknown code gets.
CONFIG_ERRORS = [
    ("prest: gsd\n", "{config}:1: unknown key `prest`"),
    ("extend-agent: [x]\n", "{config}:1: unknown key `extend-agent`"),
    ("extend-registry-heading: X\n", "{config}:1: unknown key `extend-registry-heading`"),
    ("agents: agents/*.md\n", "{config}:1: `agents` must be a list of strings"),
    ("extend-known-tools: MyTool\n", "{config}:1: `extend-known-tools` must be a list of strings"),
    ("known-tools: Read\n", "{config}:1: `known-tools` must be a list of strings or null"),
    ("registry: 3\n", "{config}:1: `registry` must be a path or a list of paths"),
    ("max-line-length: -1\n", "{config}:1: `max-line-length` must be a whole number, 0 or more"),
    (
        "skill-token-limit: many\n",
        "{config}:1: `skill-token-limit` must be a whole number, 0 or more or null",
    ),
    ("follow-read-mentions: 1\n", "{config}:1: `follow-read-mentions` must be true or false"),
    ("marker-shape: '[A-Z'\n", "{config}:1: `marker-shape` must be a regular expression"),
    (
        "skill-line-count: lines\n",
        "{config}:1: `skill-line-count` must be one of all, body, non-blank",
    ),
    ("skill-matrix: [a]\n", "{config}:1: `skill-matrix` must be a mapping or null"),
    (
        "skill-matrix: {file: x.md, colour: red}\n",
        "{config}:1: unknown key `skill-matrix.colour`"
        " (known: file, agent-column, frontmatter-columns, on-demand-columns)",
    ),
    (
        "skill-matrix: {agent-column: [A]}\n",
        "{config}:1: `skill-matrix.agent-column` must be a string or null",
    ),
    (
        "skill-matrix: {file: x.md, on-demand-columns: 7}\n",
        "{config}:1: `skill-matrix.on-demand-columns` must be a column name or a list of them",
    ),
    (
        "select: [XX999]\n",
        "{config}:1: `select`: unknown rule code or prefix 'XX999'{see}",
    ),
    (
        "select: DC1\nignore: [DC103, dc99]\n",
        "{config}:2: `ignore`: unknown rule code or prefix 'DC99'{see}",
    ),
    (
        "extend-select: [DC9, XX1]\n",
        "{config}:1: `extend-select`: unknown rule code or prefix 'XX1'{see}",
    ),
    ("select: {DC1: yes}\n", "{config}:1: `select` must be a list of rule codes or prefixes"),
    (
        "severity: {DC3: warning}\n",
        "{config}:1: `severity`: 'DC3' is not a whole rule code{see}",
    ),
    (
        "severity: {XX101: warning}\n",
        "{config}:1: `severity`: 'XX101' is not a whole rule code{see}",
    ),
    (
        "severity: {DC101: loud}\n",
        "{config}:1: `severity` maps rule codes to one of error, warning, info",
    ),
    (
        'per-file-ignores: {"agents/*.md": [DC103, XX1]}\n',
        "{config}:1: `per-file-ignores` 'agents/*.md': unknown rule code or prefix 'XX1'{see}",
    ),
    ("preset: mine.yaml\n", "mine.yaml: no such rule pack file"),
]

# A pack file `mine.yaml` (used with `preset: mine.yaml`) -> the one line, exit 2.
PACK_ERRORS = [
    ("name: mine\nsettings: [a]\n", "{pack}: `settings` must be a mapping"),
    ("name: mine\nsettings: {colour: red}\n", "{pack}: unknown key `settings.colour`"),
    (
        "name: mine\nsettings: {extend-agents: x}\n",
        "{pack}: `settings.extend-agents` must be a list of strings",
    ),
    (
        "name: mine\nsettings: {skill-matrix: {file: 3}}\n",
        "{pack}: `settings.skill-matrix.file` must be a string",
    ),
    (
        "name: mine\nrules: [DC1, XX9]\n",
        "{pack}: `rules`: unknown rule code or prefix 'XX9'{see}",
    ),
]


def _error_line(run: Any) -> str:
    assert run.code == 2, (run.code, run.out, run.err)
    assert run.err.count("\n") == 1, run.err
    assert run.err.startswith("drift-check: ")
    return str(run.err[len("drift-check: ") : -1])


@pytest.mark.parametrize(("config", "error"), CONFIG_ERRORS)
def test_a_config_error_is_one_line_naming_the_file_and_key(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    config: str,
    error: str,
) -> None:
    root = write_tree(tmp_path, tree_files("gsd", {".drift-check.yaml": config}))
    expected = error.format(config=root / ".drift-check.yaml", see=SEE)
    assert _error_line(cli(str(root))) == expected


def test_a_config_error_in_pyproject_names_pyproject(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    pyproject = '[tool.drift-check]\nextend-select = ["XX1"]\n'
    root = write_tree(tmp_path, tree_files("gsd", {"pyproject.toml": pyproject}))
    assert _error_line(cli(str(root))) == (
        f"{root / 'pyproject.toml'}:2: `extend-select`: unknown rule code or prefix 'XX1'{SEE}"
    )


def test_the_config_is_checked_before_a_layout_is_looked_for(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = write_tree(tmp_path, {".drift-check.yaml": "ignore: [XX1]\n"})
    assert _error_line(cli(str(root))) == (
        f"{root / '.drift-check.yaml'}:1: `ignore`: unknown rule code or prefix 'XX1'{SEE}"
    )


@pytest.mark.parametrize(("pack", "error"), PACK_ERRORS)
def test_a_pack_error_is_one_line_naming_the_pack_and_key(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    pack: str,
    error: str,
) -> None:
    files = {".drift-check.yaml": "preset: mine.yaml\n", "mine.yaml": pack}
    root = write_tree(tmp_path, tree_files("gsd", files))
    expected = error.format(pack=os.path.realpath(root / "mine.yaml"), see=SEE)
    assert _error_line(cli(str(root))) == expected


BAD_SKILL = "---\nname: Bad_Name\ndescription: Use when testing.\n---\n\n# Bad\n"


def test_a_pack_without_extends_gets_the_defaults(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A pack that extends nothing used to crash (`KeyError: 'registry'`): every setting it
    does not set has its default, so it runs like any other pack."""
    files = {
        ".drift-check.yaml": "preset: mine.yaml\n",
        "mine.yaml": "name: mine\nsettings:\n  skill-line-limit: 3\n",
        "skills/Bad_Name/SKILL.md": BAD_SKILL,
        "agents/helper.md": "---\nname: helper\ndescription: Helps.\n---\n\nUse Bad_Name.\n",
    }
    root = write_tree(tmp_path, files)
    run = cli(str(root), "--format", "json")
    assert run.code == 1, run.err
    assert "set in .drift-check.yaml; 1 agent, 1 skill," in run.err
    found = sorted((f["code"], f["path"], f["line"]) for f in run.json()["findings"])
    assert found == [
        ("DC502", "skills/Bad_Name/SKILL.md", 2),  # the default `skills` glob and name rules
        ("DC507", "skills/Bad_Name/SKILL.md", 1),  # the pack's own limit
    ]


def test_packs_command_counts_the_settings_a_pack_changes(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli("packs")
    assert run.code == 0, run.err
    lines = dict(line.split(": ", 1) for line in run.out.splitlines())
    assert re.fullmatch(r"pack 'base', \d+ rules, 0 settings over the defaults", lines["base"])
    assert lines["contracts"].endswith(", 1 setting over the defaults")


TOOLS_AGENT = (
    "---\nname: test-runner\ndescription: Runs the tests.\ntools: Read, MyTool, Bsh\n---\n\nRun.\n"
)


def _unknown_tools(tmp_path: Path, cli, files: dict[str, str]) -> list[str]:  # type: ignore[no-untyped-def]
    files = {"agents/test-runner.md": TOOLS_AGENT, **files}
    root = write_tree(tmp_path, tree_files("claude-code", files))
    run = cli(str(root), "--format", "json", "-q", "--select", "DC605")
    assert run.code in (0, 1), run.err
    findings = [f for f in run.json()["findings"] if f["path"] == "agents/test-runner.md"]
    return [re.findall(r"tool `(.+?)`", f["message"])[0] for f in findings]


@pytest.mark.parametrize(
    ("files", "unknown"),
    [
        ({}, ["MyTool", "Bsh"]),
        # the pack's tools (Read) are kept and one is added
        ({".drift-check.yaml": "extend-known-tools: [MyTool]\n"}, ["Bsh"]),
        # the plain form replaces the pack's list: Read is unknown now
        ({".drift-check.yaml": "known-tools: [MyTool]\n"}, ["Read", "Bsh"]),
        ({".drift-check.yaml": "known-tools: [Bsh]\nextend-known-tools: [MyTool]\n"}, ["Read"]),
        # a pack that allows any tool still does
        ({".drift-check.yaml": "known-tools: null\nextend-known-tools: [MyTool]\n"}, []),
        # in a pack of one's own, on top of the pack it extends
        (
            {
                ".drift-check.yaml": "preset: mine.yaml\n",
                "mine.yaml": "name: mine\nextends: claude-code\n"
                "settings: {extend-known-tools: [MyTool]}\n",
            },
            ["Bsh"],
        ),
    ],
)
def test_extend_known_tools_keeps_the_packs_tools(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, files: dict[str, str], unknown: list[str]
) -> None:
    assert _unknown_tools(tmp_path, cli, files) == unknown


@pytest.mark.parametrize(
    ("config", "select"),
    [
        ("ignore: [DC1]\n", ("DC",)),
        ("extend-select: [dc9]\n", ("DC", "DC9")),
        ("preset: gsd\nextend-select: [dc9]\n", ("DC", "DC9")),
        ("select: [DC1, DC2]\nextend-select: [DC503]\n", ("DC1", "DC2", "DC503")),
        ("select: DC101,dc2\n", ("DC101", "DC2")),
    ],
)
def test_select_and_extend_select(tmp_path: Path, config: str, select: tuple[str, ...]) -> None:
    root = write_tree(tmp_path, tree_files("gsd", {".drift-check.yaml": config}))
    assert discover_tree(load_config(str(root))).config.select == select


def test_config_codes_are_read_as_the_command_line_reads_them(tmp_path: Path) -> None:
    config = (
        "severity: {dc103: warning}\n"
        "per-file-ignores: {'agents/*.md': [dc1, 'DC201,DC202']}\n"
        "registry: docs/contracts.md\n"
    )
    root = write_tree(tmp_path, tree_files("gsd", {".drift-check.yaml": config}))
    loaded = load_config(str(root))
    assert loaded.severities == {"DC103": "warning"}
    assert loaded.per_file_ignores == {"agents/*.md": ["DC1", "DC201", "DC202"]}
    assert loaded.settings["registry"] == ("docs/contracts.md",)


# Values of every type a config file can give, most of them wrong for most settings.
ANY_VALUES = [True, 3, -1, 2.5, "(", ["a", 1], [["nested"]], {"a": 1}]


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)  # a number or a string: written alike in both


@pytest.mark.parametrize("name", [s.name for s in schema.SETTINGS])
def test_any_value_of_any_setting_is_taken_or_one_line(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    name: str,
) -> None:
    """A value of the wrong type is the one-line error naming the config file, exit 2; a
    value the setting takes is a run (exit 0 or 1); never a traceback or an internal error
    (16 runs a setting, most of them stopped at the config)."""
    skill = "---\nname: x\ndescription: Use when x.\n---\n\nbody\n"
    root = write_tree(tmp_path, {"skills/x/SKILL.md": skill})
    refused = 0
    for value in ANY_VALUES:
        for config, text in (
            (".drift-check.yaml", json.dumps({name: value}) + "\n"),
            ("pyproject.toml", f"[tool.drift-check]\n{json.dumps(name)} = {_toml(value)}\n"),
        ):
            for old in (".drift-check.yaml", "pyproject.toml"):
                (root / old).unlink(missing_ok=True)
            (root / config).write_text(text, encoding="utf-8")
            run = cli(str(root))
            assert run.code in (0, 1, 2), (config, value, run.err)
            assert "internal error" not in run.err and "Traceback" not in run.err
            if run.code == 2:
                refused += 1
                assert _error_line(run).startswith(f"{root / config}:"), (value, run.err)
    assert refused  # some value is wrong for every setting

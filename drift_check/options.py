"""The main command's options, declared once: click builds its command from this table
(`drift_check.commands`), and `parse` reads a command line of them without click.

Importing click and what it brings (`inspect`, `uuid`, `datetime`, ...) costs about a
quarter of an empty tree's run, and a pre-commit hook starts drift-check on every commit.
`parse` reads the command lines it can read exactly as click would (the same values for
the same arguments; `tests/cli/test_options.py` compares the two on generated command
lines) and gives None for any other: help, version, a subcommand, an unknown or clustered
option, a missing or doubtful value, a value click would refuse. click then reads it, with
its own help and its own error messages.
"""

from __future__ import annotations

import os
from typing import Any

from drift_check.records import NamedTuple


class Option(NamedTuple):
    flags: tuple[str, ...]  # `--format`, `--output-format`; a short one (`-o`) last
    dest: str  # the keyword the command receives
    help: str
    kind: str = "flag"  # "flag", "value", or "values" (repeatable)
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    default: str | None = None
    file: bool = False  # a file's path (click refuses a folder there)


FORMATS = ("text", "json", "github", "sarif", "html", "markdown")

CONFIG = Option(
    ("--config",),
    "config_file",
    "Read this .drift-check.yaml or pyproject.toml.",
    "value",
    "FILE",
    file=True,
)
PRESET = Option(
    ("--preset",),
    "preset",
    "Use this pack (or pack file) instead of discovery's.",
    "value",
    "NAME",
)

# in the order `-h` lists them
CHECK_OPTIONS: tuple[Option, ...] = (
    Option(
        ("--select",), "select", "Only these codes or prefixes (comma list).", "values", "CODES"
    ),
    Option(
        ("--extend-select",),
        "extend_select",
        "Add these codes or prefixes to the selection.",
        "values",
        "CODES",
    ),
    Option(("--ignore",), "ignore", "Skip these codes or prefixes.", "values", "CODES"),
    PRESET,
    Option(
        ("--exclude",),
        "exclude",
        "Files never read (replaces the `exclude` setting).",
        "values",
        "PATTERN",
    ),
    Option(
        ("--extend-exclude",),
        "extend_exclude",
        "Files never read, added to `exclude`.",
        "values",
        "PATTERN",
    ),
    CONFIG,
    Option(
        ("--format", "--output-format"),
        "fmt",
        "text (default), json, github, sarif, html or markdown.",
        "value",
        "FORMAT",
        FORMATS,
        "text",
    ),
    Option(("--output", "-o"), "output", "Write the report to FILE.", "value", "FILE", file=True),
    Option(
        ("--json-report",),
        "json_report",
        "Also write the JSON report to FILE, whatever --format prints.",
        "value",
        "FILE",
        file=True,
    ),
    Option(("--statistics",), "statistics", "Print a count per rule instead of findings."),
    Option(("--exit-zero",), "exit_zero", "Exit 0 even with findings (errors still exit 2)."),
    Option(("--fix",), "fix", "Apply the safe fixes, then report what is left."),
    Option(
        ("--unsafe-fixes",),
        "unsafe_fixes",
        "Unsafe fixes too: applied with --fix, else marked [*].",
    ),
    Option(("--diff",), "diff", "Print the fixes as a unified diff; write nothing."),
    Option(("--show-fixes",), "show_fixes", "List the fixes applied (--fix) or available."),
    Option(("--show-files",), "show_files", "List the files read, with their kind, and exit."),
    Option(("--show-settings",), "show_settings", "Print the resolved configuration and exit."),
    Option(
        ("--baseline",),
        "baseline_file",
        "Report only findings not recorded in FILE.",
        "value",
        "FILE",
        file=True,
    ),
    Option(
        ("--baseline-write",),
        "baseline_out",
        "Record the findings in FILE and exit 0.",
        "value",
        "FILE",
        file=True,
    ),
    Option(
        ("--summary",),
        "summary",
        "Also append a Markdown summary to FILE ($GITHUB_STEP_SUMMARY).",
        "value",
        "FILE",
        file=True,
    ),
    Option(
        ("--color",),
        "color",
        "Colour the text report (auto: a terminal).",
        "value",
        None,
        ("auto", "always", "never"),
        "auto",
    ),
    Option(("--quiet", "-q"), "quiet", "Do not print which packs were used."),
    Option(("--verbose", "-v"), "verbose", "Print config, packs, files read and timings."),
    Option(("--watch",), "watch", "Check again on every change in the project."),
)

_BY_FLAG = {flag: option for option in CHECK_OPTIONS for flag in option.flags}


def defaults() -> dict[str, Any]:
    """Each option's value when the command line does not give it."""
    return {
        o.dest: False if o.kind == "flag" else () if o.kind == "values" else o.default
        for o in CHECK_OPTIONS
    }


def parse(args: list[str]) -> tuple[tuple[str, ...], dict[str, Any]] | None:
    """The paths and the options of the main command's `args`, as click gives them; None
    where click is to read them."""
    paths: list[str] = []
    given = defaults()
    lists: dict[str, list[str]] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":  # the rest are paths
            paths += args[i:]
            break
        if not arg.startswith("-"):
            paths.append(arg)
            continue
        flag, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        option = _BY_FLAG.get(flag)
        if option is None:
            return None  # help, version, an unknown or clustered option, a lone `-`
        if option.kind == "flag":
            if eq:
                return None  # click refuses a value for a flag
            given[option.dest] = True
            continue
        if not eq:
            if i == len(args) or args[i].startswith("-"):
                return None  # no value, or one that looks like an option
            value = args[i]
            i += 1
        if (option.choices and value not in option.choices) or (
            option.file and not _a_file_path(value)
        ):
            return None
        if option.kind == "values":
            lists.setdefault(option.dest, []).append(value)
        else:
            given[option.dest] = value  # the last one given, as click keeps it
    if not all(_readable(p) for p in paths):
        return None
    given.update((dest, tuple(values)) for dest, values in lists.items())
    return tuple(paths), given


def _a_file_path(value: str) -> bool:
    """What click's `Path(dir_okay=False)` accepts: no folder, and readable if it exists."""
    return not os.path.isdir(value) and _readable(value)


def _readable(path: str) -> bool:
    """What click's `Path()` accepts: a path that does not exist, or one that can be read."""
    return not os.path.exists(path) or os.access(path, os.R_OK)

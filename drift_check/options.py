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


def _dest(flags: tuple[str, ...]) -> str:
    return flags[0].lstrip("-").replace("-", "_")  # `--exit-zero`: `exit_zero`, as click


def _flag(*flags: str, help: str) -> Option:
    return Option(flags, _dest(flags), help)


def _many(flag: str, metavar: str, help: str) -> Option:
    return Option((flag,), _dest((flag,)), help, "values", metavar)


def _file(*flags: str, help: str, dest: str = "") -> Option:
    return Option(flags, dest or _dest(flags), help, "value", "FILE", file=True)


CONFIG = _file(
    "--config", dest="config_file", help="Read this .drift-check.yaml or pyproject.toml."
)
PRESET = Option(
    ("--preset",), "preset", "Use this pack (or pack file) instead of discovery's.", "value", "NAME"
)

# in the order `-h` lists them
CHECK_OPTIONS: tuple[Option, ...] = (
    _many("--select", "CODES", "Only these codes or prefixes (comma list)."),
    _many("--extend-select", "CODES", "Add these codes or prefixes to the selection."),
    _many("--ignore", "CODES", "Skip these codes or prefixes."),
    PRESET,
    _many("--exclude", "PATTERN", "Files never read (replaces the `exclude` setting)."),
    _many("--extend-exclude", "PATTERN", "Files never read, added to `exclude`."),
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
    _file("--output", "-o", help="Write the report to FILE."),
    _file("--json-report", help="Also write the JSON report to FILE, whatever --format prints."),
    _flag("--statistics", help="Print a count per rule instead of findings."),
    _flag("--exit-zero", help="Exit 0 even with findings (errors still exit 2)."),
    _flag("--fix", help="Apply the safe fixes, then report what is left."),
    _flag("--unsafe-fixes", help="Unsafe fixes too: applied with --fix, else marked [*]."),
    _flag("--diff", help="Print the fixes as a unified diff; write nothing."),
    _flag("--show-fixes", help="List the fixes applied (--fix) or available."),
    _flag("--show-files", help="List the files read, with their kind, and exit."),
    _flag("--show-settings", help="Print the resolved configuration and exit."),
    _file("--baseline", dest="baseline_file", help="Report only findings not recorded in FILE."),
    _file("--baseline-write", dest="baseline_out", help="Record the findings in FILE and exit 0."),
    _file("--summary", help="Also append a Markdown summary to FILE ($GITHUB_STEP_SUMMARY)."),
    Option(
        ("--color",),
        "color",
        "Colour the text report (auto: a terminal).",
        "value",
        None,
        ("auto", "always", "never"),
        "auto",
    ),
    _flag("--quiet", "-q", help="Do not print which packs were used."),
    _flag("--verbose", "-v", help="Print config, packs, files read and timings."),
    _flag("--watch", help="Check again on every change in the project."),
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

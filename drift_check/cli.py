"""Command line: `drift-check [PATH]...`, `drift-check rules`, `drift-check explain CODE`.

Exit codes: 0 clean, 1 findings, 2 usage, configuration or internal error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any

import click

from drift_check import __version__
from drift_check.records import NamedTuple

if TYPE_CHECKING:
    from drift_check.config import Config
    from drift_check.engine import Report
    from drift_check.filters import BaselineEntry
    from drift_check.fixes.rounds import Outcome
    from drift_check.project import Project
    from drift_check.rules.base import Finding

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


def _codes(values: tuple[str, ...], option: str) -> tuple[str, ...]:
    """Rule codes or prefixes from a command-line option, checked as a config file's are."""
    from drift_check.rules import parse_codes

    try:
        return parse_codes(values)
    except ValueError as exc:
        raise UsageError(f"{option}: {exc}") from None


def _patterns(values: tuple[str, ...]) -> list[str]:
    """Globs from a repeatable option that also takes comma lists."""
    return [p.strip() for value in values for p in value.split(",") if p.strip()]


# the widest option column (`--format, --output-format FORMAT`), so that every option's
# help stays on its own line; a fixed width keeps `-h` and the README the same everywhere
OPTION_COLUMN = 34
CONTEXT = {"help_option_names": ["-h", "--help"], "terminal_width": 100, "max_content_width": 100}


class Command(click.Command):
    """A command whose `-h` lists each option on one line."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        options = (p for p in self.get_params(ctx) if isinstance(p, click.Option))
        rows = [row for p in options if (row := p.get_help_record(ctx))]
        if rows:
            with formatter.section("Options"):
                formatter.write_dl(rows, col_max=OPTION_COLUMN)


class Options(NamedTuple):
    """The main command's arguments, as click passes them, and the project its paths name."""

    path: str  # the project's root
    project: Project
    select: tuple[str, ...]
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]
    preset: str | None
    exclude: tuple[str, ...]
    extend_exclude: tuple[str, ...]
    config_file: str | None
    fmt: str
    output: str | None
    json_report: str | None
    statistics: bool
    exit_zero: bool
    fix: bool
    unsafe_fixes: bool
    diff: bool
    show_fixes: bool
    show_files: bool
    show_settings: bool
    baseline_file: str | None
    baseline_out: str | None
    summary: str | None
    color: str
    quiet: bool
    verbose: bool
    watch: bool


_config_option = click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Read this .drift-check.yaml or pyproject.toml.",
)


@click.command(
    cls=Command,
    context_settings=CONTEXT,
    epilog="""\b
Other commands (each with -h):
  drift-check rules          list every rule
  drift-check explain CODE   explain one rule, with a failing and a passing example
  drift-check init [PATH]    write a starter .drift-check.yaml for what discovery finds
  drift-check packs [FILE]   check rule packs: the shipped presets, or your own
  drift-check graph [PATHS]  draw the contract graph (HTML, Mermaid or DOT)""",
)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--select", multiple=True, metavar="CODES", help="Only these codes or prefixes (comma list)."
)
@click.option(
    "--extend-select",
    multiple=True,
    metavar="CODES",
    help="Add these codes or prefixes to the selection.",
)
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these codes or prefixes.")
@click.option(
    "--preset", metavar="NAME", help="Use this pack (or pack file) instead of discovery's."
)
@click.option(
    "--exclude",
    multiple=True,
    metavar="PATTERN",
    help="Files never read (replaces the `exclude` setting).",
)
@click.option(
    "--extend-exclude",
    multiple=True,
    metavar="PATTERN",
    help="Files never read, added to `exclude`.",
)
@_config_option
@click.option(
    "--format",
    "--output-format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif", "html", "markdown"]),
    default="text",
    metavar="FORMAT",
    help="text (default), json, github, sarif, html or markdown.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Write the report to FILE.",
)
@click.option(
    "--json-report",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Also write the JSON report to FILE, whatever --format prints.",
)
@click.option("--statistics", is_flag=True, help="Print a count per rule instead of findings.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even with findings (errors still exit 2).")
@click.option("--fix", is_flag=True, help="Apply the safe fixes, then report what is left.")
@click.option(
    "--unsafe-fixes", is_flag=True, help="Unsafe fixes too: applied with --fix, else marked [*]."
)
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--show-fixes", is_flag=True, help="List the fixes applied (--fix) or available.")
@click.option("--show-files", is_flag=True, help="List the files read, with their kind, and exit.")
@click.option("--show-settings", is_flag=True, help="Print the resolved configuration and exit.")
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Report only findings not recorded in FILE.",
)
@click.option(
    "--baseline-write",
    "baseline_out",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Record the findings in FILE and exit 0.",
)
@click.option(
    "--summary",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="Also append a Markdown summary to FILE ($GITHUB_STEP_SUMMARY).",
)
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    help="Colour the text report (auto: a terminal).",
)
@click.option("--quiet", "-q", is_flag=True, help="Do not print which packs were used.")
@click.option("--verbose", "-v", is_flag=True, help="Print config, packs, files read and timings.")
@click.option("--watch", is_flag=True, help="Check again on every change in the project.")
@click.version_option(
    __version__, "--version", prog_name="drift-check", help="Print the version and exit."
)
@click.help_option("-h", "--help", help="Print this help and exit.")
def check(paths: tuple[str, ...], **given: Any) -> int:
    """Check the agent contracts of the project that holds PATHS (files or folders; default:
    the current folder) and report the findings at PATHS."""
    project = _project(paths)
    path = project.root
    options = Options(path=path, project=project, **given)
    if options.fix:
        _lock_tree(path)
    if not options.watch:
        return _check(options)
    from drift_check.watch import watch

    def once() -> None:
        try:
            _check(options)
        except Exception as exc:  # a config error while watching: say so, keep watching
            click.echo(_error_line(exc), err=True)

    return watch(path, once, [p for p in (options.output, options.baseline_out) if p])


def _check(o: Options) -> int:
    """One run of the main command."""
    from drift_check.config import CommandLine, load_config
    from drift_check.engine import run
    from drift_check.reporters import render
    from drift_check.reporters.text import banner, display_path, nothing_found

    phases: dict[str, float] | None = {} if o.verbose else None
    started = perf_counter()
    if (parallel := sys.modules.get("drift_check.parallel")) is not None:
        parallel.counts.update(started=0, redone=0)  # this run's (`--watch` runs again)
    excludes = {"exclude": _patterns(o.exclude), "extend-exclude": _patterns(o.extend_exclude)}
    extend_select = _codes(o.extend_select, "--extend-select")
    command_line = CommandLine(o.preset, {k: v for k, v in excludes.items() if v}, extend_select)
    config = load_config(o.path, o.config_file, command_line)
    select = _codes(o.select, "--select")
    select += extend_select if select else ()
    ignore = _codes(o.ignore, "--ignore")
    if phases is not None:
        phases["config"] = perf_counter() - started
    if o.show_settings or o.show_files:
        return _show(o, config, select, ignore)
    report = run(config, select, ignore, phases=phases)
    if nothing_found(report):
        click.echo(banner(report), err=True)  # one line, as ruff says so, even with -q
        if o.fmt == "text" and o.output is None:
            _append_summary(o.summary, report)
            _write_json_report(o.json_report, report)
            return EXIT_CLEAN
    elif not o.quiet:
        click.echo(banner(report) + o.project.note(), err=True)
    if o.verbose:
        _say_what_was_read(report)
    if o.baseline_out is not None:
        from drift_check.filters import baseline_text

        recorded = o.project.restrict(report.findings)
        with open(o.baseline_out, "w", encoding="utf-8") as fh:
            fh.write(baseline_text(list(recorded), report.facts))
        click.echo(f"drift-check: recorded {len(recorded)} findings in {o.baseline_out}", err=True)
        _write_json_report(o.json_report, report._replace(findings=tuple(recorded)))
        return EXIT_CLEAN
    write_failed = False
    fixed: list[Finding] | None = None
    if o.diff or o.fix:
        from drift_check.fixes.rounds import run_rounds

        fixing = perf_counter()
        # the check runs every rule the config selects, so that a fix of the rules chosen
        # on the command line cannot create a finding of another
        narrowed = bool(select or ignore)
        full = run(config) if narrowed else report
        targets, frozen = _targets(o.baseline_file, {r.code for r in report.rules}, o.project)
        outcome = run_rounds(
            full, lambda texts: run(config, overlay=texts), o.unsafe_fixes, targets, frozen
        )
        for w in outcome.withheld:
            f, c = w.finding, w.created
            click.echo(
                f"drift-check: withheld the {f.code} fix at {f.path}:{f.line}:{f.column}"
                f" ({w.description}): it would create {c.code} at {c.path}:{c.line}:{c.column}:"
                f" {c.message}",
                err=True,
            )
        if o.diff:
            from drift_check.fixes import unified_diff

            click.echo("".join(unified_diff(c) for c in outcome.changes), nl=False)
            shown = report._replace(findings=o.project.restrict(report.findings))
            _write_json_report(o.json_report, shown)
            return EXIT_FINDINGS if outcome.changes else EXIT_CLEAN
        report, write_failed, fixed = _write(full, outcome, targets, frozen, lambda: run(config))
        if narrowed:
            texts = {} if write_failed else {c.path: c.new for c in outcome.changes}
            report = run(config, select, ignore, overlay=texts)
        report = outcome.without_withheld(report)
        if phases is not None:
            phases["fixes"] = perf_counter() - fixing
    if o.baseline_file is not None:
        report = _against_baseline(report, o.baseline_file, o.project)
    report = report._replace(findings=o.project.restrict(report.findings))
    reporting = perf_counter()
    color = _color(o.color, o.output, o.fmt)
    if o.statistics:
        from drift_check.reporters.text import statistics_table

        text = statistics_table(report)
    else:
        base = os.path.dirname(os.path.abspath(o.output)) if o.output else None
        text = render(report, o.fmt, color, os.getcwd(), o.unsafe_fixes, base)
    if o.show_fixes:
        from drift_check.reporters.show import fixes_text

        root, cwd = report.config.root, os.getcwd()
        listed = fixes_text(
            report.findings if fixed is None else fixed,
            fixed is not None,
            lambda p: display_path(root, p, cwd),
        )
        if o.fmt == "text" and o.output is None:
            text += "\n" + listed
        else:  # stdout holds a machine format or nothing
            click.echo(listed, err=True, nl=False)
    if o.output is not None:
        with open(o.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        click.echo(text, nl=False, color=color)  # click strips colour off a pipe unless told
    _append_summary(o.summary, report)
    if phases is not None:
        phases["report"] = perf_counter() - reporting
        timings = ", ".join(f"{name} {1000 * t:.0f} ms" for name, t in phases.items())
        parallel = sys.modules.get("drift_check.parallel")
        if parallel is not None and parallel.counts["started"]:
            started, redone = parallel.counts["started"], parallel.counts["redone"]
            click.echo(f"drift-check: workers: {started} started, {redone} redone here", err=True)
        click.echo(f"drift-check: time: {timings}", err=True)  # the last line
    _write_json_report(o.json_report, report)
    failing = any(f.severity != "info" for f in report.findings)  # info never fails a run
    if write_failed:
        return EXIT_ERROR
    return EXIT_FINDINGS if failing and not o.exit_zero else EXIT_CLEAN


def _append_summary(path: str | None, report: Report) -> None:
    """`--summary`: the Markdown report appended to FILE, as a CI job's summary file is
    written to (the action passes `$GITHUB_STEP_SUMMARY`), whatever `--format` prints."""
    if path is not None:
        from drift_check.reporters import markdown

        with open(path, "a", encoding="utf-8") as fh:
            fh.write(markdown.render(report))


def _color(choice: str, output: str | None, fmt: str) -> bool:
    """Colour for the text report: `always`/`never` as asked; `auto` when stdout is a
    terminal and `NO_COLOR` is unset or empty, or when `FORCE_COLOR` is set and not empty
    (and the report goes to stdout)."""
    if fmt != "text" or choice == "never":
        return False
    if choice == "always":
        return True
    if output is not None:
        return False
    return bool(os.environ.get("FORCE_COLOR")) or (
        sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    )


def _show(o: Options, config: Config, select: tuple[str, ...], ignore: tuple[str, ...]) -> int:
    """`--show-settings` and `--show-files`: what the run would use and read, on stdout."""
    from drift_check.reporters import show
    from drift_check.rules import selected
    from drift_check.scanners import build_facts, discover_tree

    discovered = discover_tree(config)
    config = discovered.config
    text = ""
    if o.show_settings:
        rules = selected(select or config.select, config.ignore + ignore)
        text += show.settings_text(config, rules, select, ignore)
    if o.show_files:
        text += show.files_text(build_facts(config, discovered))
    if o.output is not None:
        with open(o.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        click.echo(text, nl=False)
    return EXIT_CLEAN


def _say_what_was_read(report: Report) -> None:
    """`--verbose`, on stderr: the config file, the packs and why, each file read."""
    from drift_check.reporters.escape import escape
    from drift_check.reporters.show import file_kinds

    config = report.config
    click.echo(f"drift-check: config file: {config.config_file or 'none'}", err=True)
    packs = config.preset or "none"
    click.echo(
        escape(f"drift-check: packs: {packs} ({config.reason or 'nothing found'})"), err=True
    )
    kinds = file_kinds(report.facts)
    click.echo(f"drift-check: read {len(kinds)} file{'s' if len(kinds) != 1 else ''}", err=True)
    for path, kind in kinds.items():
        click.echo(escape(f"drift-check: read {path} ({kind})"), err=True)


def _write_json_report(path: str | None, report: Report) -> None:
    """`--json-report`: the JSON report of the run beside what `--format` prints, so a CI
    step reads the count from one run (the action does)."""
    if path is not None:
        from drift_check.reporters import render

        with open(path, "w", encoding="utf-8") as fh:
            fh.write(render(report, "json"))


def _lock_tree(path: str) -> None:
    """One `--fix` at a time per tree: a second run waits here, before it reads anything,
    until the first has written its fixes, so it never plans from text that is about to
    change. An advisory lock on the folder itself (nothing is written to take it), released
    when the command ends; where the system has no `flock`, runs are not serialised."""
    try:
        import fcntl
    except ImportError:  # Windows
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return  # not a folder we can open: load_config says what is wrong with it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        click.echo(f"drift-check: waiting for another --fix run on {path}", err=True)
        fcntl.flock(fd, fcntl.LOCK_EX)
    click.get_current_context().call_on_close(lambda: os.close(fd))


def _project(paths: tuple[str, ...]) -> Project:
    from drift_check.project import PathError, locate

    try:
        return locate(paths)
    except PathError as exc:
        raise UsageError(str(exc)) from None


def _targets(
    baseline_file: str | None, codes: set[str], project: Project
) -> tuple[Callable[[Report], list[Finding]], Callable[[Report], list[Finding]]]:
    """The findings `--fix` may touch (those at the given paths of the rules that ran,
    `codes`, that the baseline does not hold), and the findings the baseline holds, whose
    keys a fix must not change."""
    if baseline_file is None:

        def fixable(report: Report) -> list[Finding]:
            return [f for f in project.restrict(report.findings) if f.code in codes]

        return fixable, (lambda r: [])
    from drift_check.filters import apply_baseline

    baseline = _read_baseline(baseline_file)

    def split(report: Report) -> tuple[list[Finding], list[Finding]]:
        new = apply_baseline(list(report.findings), report.facts, baseline)[0]
        recorded = set(report.findings) - set(new)
        fixable = [f for f in project.restrict(new) if f.code in codes]
        return fixable, [f for f in report.findings if f in recorded]

    return (lambda report: split(report)[0]), (lambda report: split(report)[1])


def _write(
    before: Report,
    outcome: Outcome,
    targets: Callable[[Report], list[Finding]],
    frozen: Callable[[Report], list[Finding]],
    rerun: Callable[[], Report],
) -> tuple[Report, bool, list[Finding]]:
    """Write the final texts of the rounds and say what happened: findings fixed, findings
    left for a person, fixes withheld, and new findings (0, since every fix was checked).
    A file that cannot be written is reported and left alone; the others are written, and
    the counts are then taken from the tree as it is on disk. Returns the report after,
    whether a write failed, and the findings the fixes removed."""
    from drift_check import fixes
    from drift_check.fixes.rounds import new_findings

    failed = False
    for change in outcome.changes:
        try:
            fixes.write(before.config.root, change)
        except fixes.WriteError as exc:
            click.echo(f"drift-check: {exc}", err=True)
            failed = True
    after = rerun() if failed else outcome.report
    changed = {c.path for c in outcome.changes}
    wanted = targets(before)
    gone = new_findings(after, before._replace(findings=tuple(wanted)), changed)
    created = new_findings(before, after, changed, frozenset(frozen(before)))
    fixed, left = len(gone), len(targets(after))
    click.echo(
        f"drift-check: fixed {fixed} finding{'s' if fixed != 1 else ''}, {left} left for a"
        f" person, {len(outcome.withheld)} fix{'es' if len(outcome.withheld) != 1 else ''}"
        f" withheld, {len(created)} new",
        err=True,
    )
    return after, failed, gone


def _read_baseline(baseline_file: str) -> dict[BaselineEntry, int]:
    from drift_check.filters import read_baseline

    try:
        with open(baseline_file, encoding="utf-8") as fh:
            return read_baseline(fh.read(), baseline_file)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _against_baseline(report: Report, baseline_file: str, project: Project) -> Report:
    """The report without the findings the baseline holds; entries at the given paths that
    no longer occur are listed on stderr, so the baseline can be shrunk."""
    from drift_check.filters import apply_baseline

    baseline = _read_baseline(baseline_file)
    new, stale = apply_baseline(list(report.findings), report.facts, baseline)
    for entry in (e for e in stale if project.covers(e.path)):
        click.echo(
            f"drift-check: baseline entry no longer occurs: {entry.code} {entry.path}"
            " (rewrite the baseline with --baseline-write)",
            err=True,
        )
    return report._replace(findings=tuple(new))


@click.command("rules", cls=Command, context_settings=CONTEXT)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    metavar="FORMAT",
    help="text (default) or json.",
)
@click.help_option("-h", "--help", help="Print this help and exit.")
def rules_cmd(fmt: str) -> int:
    """List every rule: code, name, default severity and summary."""
    from drift_check.rules import ALL_RULES

    if fmt == "json":
        import json

        data = [
            {"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary}
            for r in ALL_RULES
        ]
        click.echo(json.dumps(data, indent=2))
        return EXIT_CLEAN
    for r in ALL_RULES:
        click.echo(f"{r.code}  {r.name:<32} {r.severity:<8} {r.summary}")
    return EXIT_CLEAN


@click.command("explain", cls=Command, context_settings=CONTEXT)
@click.argument("code")
@click.help_option("-h", "--help", help="Print this help and exit.")
def explain_cmd(code: str) -> int:
    """Explain one rule (by code or name), with a failing and a passing example."""
    from drift_check.docs import rule_text
    from drift_check.rules import lookup

    found = lookup(code)
    if found is None:
        raise UsageError(f"unknown rule {code!r} (see `drift-check rules`)")
    click.echo(rule_text(found))
    return EXIT_CLEAN


STARTER = """\
# drift-check configuration: docs/configuration.md in the drift-check repository lists
# every key. {reason}.
preset: {preset}
# select: [DC]                  # codes or prefixes to run
# ignore: []                    # codes or prefixes to skip
# exclude: ["vendor/**"]       # files never read or checked
# severity: {{DC304: warning}}
# per-file-ignores:
#   "agents/experimental-*.md": [DC103]
"""


@click.command("init", cls=Command, context_settings=CONTEXT)
@click.argument("path", default=".", type=click.Path(file_okay=False))
@click.option("--force", is_flag=True, help="Overwrite an existing .drift-check.yaml.")
@click.help_option("-h", "--help", help="Print this help and exit.")
def init_cmd(path: str, force: bool) -> int:
    """Write a starter .drift-check.yaml for the layout detected at PATH."""
    from drift_check.config import ConfigError, detect, find_user_config

    found = None if force else find_user_config(path)
    if found is not None:
        if found[0].endswith(".toml"):
            raise ConfigError(
                f"{found[0]} already configures drift-check; not overwritten (`drift-check init"
                " --force` writes .drift-check.yaml, which then wins over it)"
            )
        raise ConfigError(
            f"{found[0]} already configures drift-check; not overwritten (`drift-check init"
            " --force` overwrites it)"
        )
    detected = detect(path)
    if detected is None:
        raise ConfigError(
            f"{path}: no known layout found; write .drift-check.yaml with `preset:` by hand"
        )
    preset, probe = detected
    target = os.path.join(path, ".drift-check.yaml")
    reason = f"Preset '{preset}' was chosen because {probe} exists"
    text = STARTER.format(reason=reason, preset=preset)
    if "+" in preset:  # several systems: discovery keeps choosing all of them
        reason = f"Presets {', '.join(preset.split('+'))} were chosen because {probe} exist"
        text = STARTER.format(reason=reason, preset=preset).replace(
            f"preset: {preset}\n",
            "# preset: (left unset, so discovery keeps checking each system it finds)\n",
        )
    with open(target, "w" if force else "x", encoding="utf-8") as fh:
        fh.write(text)
    click.echo(f"drift-check: wrote {target}: {reason.lower()}.")
    return EXIT_CLEAN


@click.command("packs", cls=Command, context_settings=CONTEXT)
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.help_option("-h", "--help", help="Print this help and exit.")
def packs_cmd(files: tuple[str, ...]) -> int:
    """Check rule packs: the shipped presets, or the pack FILES (inside the current folder).
    Each is loaded with the packs it extends, its settings type-checked and its rule codes
    looked up; one line per pack (its rules, and how many settings it changes from the
    defaults), and exit 2 if any is invalid."""
    from drift_check.config import ConfigError, known_presets, load_pack
    from drift_check.rules import selected
    from drift_check.settings import changed

    root = os.getcwd()
    bad = 0
    for target in files or tuple(known_presets()):
        try:
            if files and not target.endswith((".yaml", ".yml")):
                raise ConfigError(f"{target}: a rule pack file ends in .yaml or .yml")
            name = os.path.relpath(os.path.abspath(target), root) if files else target
            pack = load_pack(name, root)
        except ConfigError as exc:
            click.echo(f"drift-check: {exc}", err=True)
            bad += 1
            continue
        n = len(selected(pack.rules, ()))
        m = len(changed(pack.settings))
        over = f"{m} setting{'s' if m != 1 else ''} over the defaults"
        click.echo(f"{target}: pack {pack.name!r}, {n} rules, {over}")
    return EXIT_ERROR if bad else EXIT_CLEAN


@click.command("graph", cls=Command, context_settings=CONTEXT)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "mermaid", "dot"]),
    default="html",
    metavar="FORMAT",
    help="html (default: one page, no network), mermaid or dot.",
)
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False), metavar="FILE", help="Write it to FILE."
)
@_config_option
@click.option(
    "--preset", metavar="NAME", help="Use this pack (or pack file) instead of discovery's."
)
@click.help_option("-h", "--help", help="Print this help and exit.")
def graph_cmd(
    paths: tuple[str, ...],
    fmt: str,
    output: str | None,
    config_file: str | None,
    preset: str | None,
) -> int:
    """Draw the contract graph of the project that holds PATHS (default: the current folder):
    agents, markers, consumers, skills and plugins, joined by what emits, consumes,
    dispatches, loads and includes; a node or edge with findings in red, listing them. Given
    files or folders inside the project, only their nodes and their neighbours are drawn."""
    from drift_check.config import CommandLine, load_config
    from drift_check.engine import run
    from drift_check.graph import build_graph, restrict
    from drift_check.reporters.graph import render

    project = _project(paths)
    report = run(load_config(project.root, config_file, CommandLine(preset)))
    graph = build_graph(report.facts, report.findings)
    if project.scope:
        graph = restrict(graph, project.covers)
    base = os.path.dirname(os.path.abspath(output)) if output else os.getcwd()
    name = os.path.basename(os.path.abspath(report.config.root))
    text = render(graph, fmt, report.config.root, base, f"drift-check graph: {name}")
    if output is not None:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
        click.echo(
            f"drift-check: wrote {output}: {len(graph.nodes)} nodes, {len(graph.edges)} edges,"
            f" {len(graph.findings)} findings",
            err=True,
        )
    else:
        click.echo(text, nl=False)
    return EXIT_CLEAN


SUBCOMMANDS = {
    "rules": rules_cmd,
    "explain": explain_cmd,
    "init": init_cmd,
    "packs": packs_cmd,
    "graph": graph_cmd,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command = check
    if args and args[0] in SUBCOMMANDS:
        command = SUBCOMMANDS[args.pop(0)]
    try:
        result = command.main(args=args, prog_name=_prog(command), standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except Exception as exc:
        if os.environ.get("DRIFT_CHECK_DEBUG") and not _known(exc):
            raise
        click.echo(_error_line(exc), err=True)
        return EXIT_ERROR
    return int(result or 0)


def _prog(command: click.Command) -> str:
    """The name `-h` and usage errors show: `drift-check`, or `drift-check rules`, ..."""
    return "drift-check" if command is check else f"drift-check {command.name}"


def _known(exc: Exception) -> bool:
    """An error of the user's input (usage, config, a file), not drift-check's own."""
    from drift_check.config import ConfigError
    from drift_check.facts import SourceChanged

    known = (click.ClickException, click.Abort, UsageError, ConfigError, OSError, SourceChanged)
    return isinstance(exc, known)


def _error_line(exc: Exception) -> str:
    """The one line that reports an error: what is wrong, and where."""
    if isinstance(exc, click.ClickException):
        return f"drift-check: {exc.format_message()}"
    if isinstance(exc, click.Abort):
        return "drift-check: aborted"
    if isinstance(exc, OSError):
        if isinstance(exc, FileNotFoundError) and exc.filename:
            return f"drift-check: {exc.filename}: no such file"
        return f"drift-check: {exc.filename or ''}: {exc.strerror or exc}"
    if _known(exc):
        return f"drift-check: {exc}"
    # the last line of defence: never a traceback
    return (
        f"drift-check: internal error: {type(exc).__name__}: {exc}"
        " (set DRIFT_CHECK_DEBUG=1 for details and please report it)"
    )


def run() -> None:
    """The console script: `main`, then exit without tearing the interpreter down.

    Freeing every module and object at exit takes longer than a pre-commit hook should wait
    (about 13 ms of a 0.15 s run, measured in docs/performance.md); the output is flushed
    first, and nothing else is left to do. Tests call `main(argv)`, which returns normally.
    """
    single_run_gc()
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError):
        code = code or EXIT_ERROR
    os._exit(code)


def single_run_gc() -> None:
    """Almost no full collections in the console script's process, which checks one tree
    and exits.

    A large tree's facts are millions of small objects, alive until the exit, and each full
    collection walked them all for nothing (about 10% of a 200-plugin marketplace's run,
    docs/performance.md). The young generations are still collected: parsing YAML leaves
    reference cycles, and without them a real marketplace's run took half again the memory.
    """
    import gc

    gc.set_threshold(700, 10, 1000)  # the first two are CPython's defaults

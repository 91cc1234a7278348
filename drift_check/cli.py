"""Command line: `drift-check [PATH]...`, `drift-check rules`, `drift-check explain CODE`.

Exit codes: 0 clean, 1 findings, 2 usage, configuration or internal error.

The main command runs without importing click when `drift_check.options.parse` reads its
arguments (a pre-commit hook's, a CI step's: almost every run); help, version, usage errors
and the subcommands are click's, in `drift_check.commands`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import IO, TYPE_CHECKING, Any

from drift_check.options import parse
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


_ANSI = "\x1b"


def echo(message: str = "", err: bool = False, nl: bool = True, color: bool | None = None) -> None:
    """Print `message` (and a newline) to stdout, or stderr with `err`, and flush, as
    `click.echo` does: escape sequences are removed unless `color` is True, or None and the
    stream is a terminal."""
    stream: IO[str] = sys.stderr if err else sys.stdout
    if _ANSI in message and not (color or (color is None and _isatty(stream))):
        import re

        message = re.sub(r"\x1b\[[;?0-9]*[a-zA-Z]", "", message)
    if nl:
        message += "\n"
    buffer = getattr(stream, "buffer", None)
    if not message.isascii() and buffer is not None and _says_ascii(stream):
        # a stream set to ASCII (`PYTHONIOENCODING=ascii`) gets UTF-8, as click gives it
        stream.flush()
        buffer.write(message.encode("utf-8", "replace"))
        buffer.flush()
        return
    try:
        stream.write(message)
    except UnicodeEncodeError:  # a stream that cannot say every character
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(message.encode(encoding, "replace").decode(encoding))
    stream.flush()


def _says_ascii(stream: IO[str]) -> bool:
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return False


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except ValueError:  # closed
        return False


class Options(NamedTuple):
    """The main command's arguments, named as in `drift_check.options`, and the project its
    paths name."""

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


def run_check(paths: tuple[str, ...], given: dict[str, Any]) -> int:
    """The main command, with its options as `drift_check.options` names them."""
    project = _project(paths)
    path = project.root
    options = Options(path=path, project=project, **given)
    lock = _lock_tree(path) if options.fix else None
    try:
        if not options.watch:
            return _check(options)
        from drift_check.watch import watch

        def once() -> None:
            try:
                _check(options)
            except Exception as exc:  # a config error while watching: say so, keep watching
                echo(_error_line(exc), err=True)

        return watch(path, once, [p for p in (options.output, options.baseline_out) if p])
    finally:
        if lock is not None:
            os.close(lock)


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
        echo(banner(report), err=True)  # one line, as ruff says so, even with -q
        if o.fmt == "text" and o.output is None:
            _append_summary(o.summary, report)
            _write_json_report(o.json_report, report)
            return EXIT_CLEAN
    elif not o.quiet:
        echo(banner(report) + o.project.note(), err=True)
    if o.verbose:
        _say_what_was_read(report)
    if o.baseline_out is not None:
        from drift_check.filters import baseline_text

        recorded = o.project.restrict(report.findings)
        with open(o.baseline_out, "w", encoding="utf-8") as fh:
            fh.write(baseline_text(list(recorded), report.facts))
        echo(f"drift-check: recorded {len(recorded)} findings in {o.baseline_out}", err=True)
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
            echo(
                f"drift-check: withheld the {f.code} fix at {f.path}:{f.line}:{f.column}"
                f" ({w.description}): it would create {c.code} at {c.path}:{c.line}:{c.column}:"
                f" {c.message}",
                err=True,
            )
        if o.diff:
            from drift_check.fixes import unified_diff

            echo("".join(unified_diff(c) for c in outcome.changes), nl=False)
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
            echo(listed, err=True, nl=False)
    if o.output is not None:
        with open(o.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        echo(text, nl=False, color=color)  # colour is taken off a pipe unless asked for
    _append_summary(o.summary, report)
    if phases is not None:
        phases["report"] = perf_counter() - reporting
        timings = ", ".join(f"{name} {1000 * t:.0f} ms" for name, t in phases.items())
        parallel = sys.modules.get("drift_check.parallel")
        if parallel is not None and parallel.counts["started"]:
            started, redone = parallel.counts["started"], parallel.counts["redone"]
            echo(f"drift-check: workers: {started} started, {redone} redone here", err=True)
        echo(f"drift-check: time: {timings}", err=True)  # the last line
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
        echo(text, nl=False)
    return EXIT_CLEAN


def _say_what_was_read(report: Report) -> None:
    """`--verbose`, on stderr: the config file, the packs and why, each file read."""
    from drift_check.reporters.escape import escape
    from drift_check.reporters.show import file_kinds

    config = report.config
    echo(f"drift-check: config file: {config.config_file or 'none'}", err=True)
    packs = config.preset or "none"
    echo(escape(f"drift-check: packs: {packs} ({config.reason or 'nothing found'})"), err=True)
    kinds = file_kinds(report.facts)
    echo(f"drift-check: read {len(kinds)} file{'s' if len(kinds) != 1 else ''}", err=True)
    for path, kind in kinds.items():
        echo(escape(f"drift-check: read {path} ({kind})"), err=True)


def _write_json_report(path: str | None, report: Report) -> None:
    """`--json-report`: the JSON report of the run beside what `--format` prints, so a CI
    step reads the count from one run (the action does)."""
    if path is not None:
        from drift_check.reporters import render

        with open(path, "w", encoding="utf-8") as fh:
            fh.write(render(report, "json"))


def _lock_tree(path: str) -> int | None:
    """One `--fix` at a time per tree: a second run waits here, before it reads anything,
    until the first has written its fixes, so it never plans from text that is about to
    change. An advisory lock on the folder itself (nothing is written to take it), released
    when the command ends (the caller closes the descriptor returned); where the system has no
    `flock`, runs are not serialised."""
    try:
        import fcntl
    except ImportError:  # Windows
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None  # not a folder we can open: load_config says what is wrong with it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        echo(f"drift-check: waiting for another --fix run on {path}", err=True)
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


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
            echo(f"drift-check: {exc}", err=True)
            failed = True
    after = rerun() if failed else outcome.report
    changed = {c.path for c in outcome.changes}
    wanted = targets(before)
    gone = new_findings(after, before._replace(findings=tuple(wanted)), changed)
    created = new_findings(before, after, changed, frozenset(frozen(before)))
    fixed, left = len(gone), len(targets(after))
    echo(
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
        echo(
            f"drift-check: baseline entry no longer occurs: {entry.code} {entry.path}"
            " (rewrite the baseline with --baseline-write)",
            err=True,
        )
    return report._replace(findings=tuple(new))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:  # the start-up floor a benchmark takes: no click either
        from drift_check import __version__

        echo(f"drift-check, version {__version__}")
        return EXIT_CLEAN
    try:
        try:
            parsed = None if args and args[0] in SUBCOMMAND_NAMES else parse(args)
            if parsed is None:
                from drift_check.commands import run_click

                return run_click(args)
            return int(run_check(*parsed) or 0)
        except (EOFError, KeyboardInterrupt):  # as click says it: a newline, then the line
            echo(err=True)
            raise Aborted() from None
        except BrokenPipeError:  # the reader went away (`| head`): exit 1, as click does
            _quiet_stdout()
            return EXIT_FINDINGS
    except Exception as exc:
        if os.environ.get("DRIFT_CHECK_DEBUG") and not _known(exc):
            raise
        echo(_error_line(exc), err=True)
        return EXIT_ERROR


SUBCOMMAND_NAMES = ("rules", "explain", "init", "packs", "graph")


class Aborted(Exception):
    pass


def _quiet_stdout() -> None:
    """Point stdout at the null device, so that flushing what is left of it at the exit
    cannot fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's captured stdout)
        pass


def __getattr__(name: str) -> Any:
    """click's commands (`check`, `SUBCOMMANDS`, ...), from `drift_check.commands`."""
    if name in ("SUBCOMMANDS", "check") or name.endswith("_cmd"):
        from drift_check import commands

        return getattr(commands, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _known(exc: Exception) -> bool:
    """An error of the user's input (usage, config, a file), not drift-check's own."""
    from drift_check.config import ConfigError
    from drift_check.facts import SourceChanged

    known: tuple[type[BaseException], ...] = (
        Aborted,
        UsageError,
        ConfigError,
        OSError,
        SourceChanged,
    )
    click = sys.modules.get("click")
    if click is not None:
        known += (click.ClickException, click.Abort)
    return isinstance(exc, known)


def _error_line(exc: Exception) -> str:
    """The one line that reports an error: what is wrong, and where."""
    click = sys.modules.get("click")
    if click is not None and isinstance(exc, click.ClickException):
        return f"drift-check: {exc.format_message()}"
    if isinstance(exc, Aborted) or (click is not None and isinstance(exc, click.Abort)):
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
    from drift_check.scanners.patterns import preload

    preload()
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
    docs/performance.md). The collector is off until ruamel.yaml parses a text, whose
    reference cycles it is there for (`yaml_loader.collect_cycles`): a run whose frontmatter
    the fast path reads makes none worth collecting, and its young collections took 2 to 5%
    of the run.
    """
    import gc

    from drift_check.yaml_loader import collector_waits

    gc.set_threshold(700, 10, 1000)  # the first two are CPython's defaults
    collector_waits()

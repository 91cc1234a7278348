"""Command line: `drift-check [PATH]`, `drift-check rules`, `drift-check explain CODE`.

Exit codes: 0 clean, 1 findings, 2 usage, configuration or internal error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import click

from drift_check import __version__

if TYPE_CHECKING:
    from drift_check.engine import Report
    from drift_check.filters import BaselineEntry
    from drift_check.fixes.rounds import Outcome
    from drift_check.rules.base import Finding

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


def _codes(values: tuple[str, ...]) -> tuple[str, ...]:
    from drift_check.rules import parse_codes

    try:
        return parse_codes(values)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


@click.command(
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Other commands: `drift-check rules` lists the rules, `drift-check explain CODE`"
    " explains one, `drift-check init` writes a starter config, `drift-check packs [FILE...]`"
    " checks rule packs.",
)
@click.argument("path", default=".", type=click.Path(file_okay=False))
@click.option("--select", multiple=True, help="Only these rule codes or prefixes (comma list).")
@click.option("--ignore", multiple=True, help="Skip these rule codes or prefixes (comma list).")
@click.option(
    "--format",
    "--output-format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
)
@click.option("--statistics", is_flag=True, help="Print a count per rule instead of findings.")
@click.option(
    "--exit-zero", is_flag=True, help="Exit 0 even when there are findings (errors still exit 2)."
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report here.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Config file.")
@click.option("--quiet", "-q", is_flag=True, help="Do not print which preset was used.")
@click.option("--fix", is_flag=True, help="Apply the safe fixes, then report what is left.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix or --diff: unsafe fixes too.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False),
    help="Report only findings not recorded in this baseline file.",
)
@click.option(
    "--baseline-write",
    "baseline_out",
    type=click.Path(dir_okay=False),
    help="Record the current findings in this baseline file and exit 0.",
)
@click.version_option(__version__, prog_name="drift-check")
def check(
    path: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    fmt: str,
    output: str | None,
    config_file: str | None,
    quiet: bool,
    statistics: bool,
    exit_zero: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    baseline_file: str | None,
    baseline_out: str | None,
) -> int:
    """Check the agent contracts of the repository at PATH (default: current directory)."""
    from drift_check.config import load_config
    from drift_check.engine import run
    from drift_check.reporters import render
    from drift_check.reporters.text import banner, nothing_found

    if fix:
        _lock_tree(path)
    config = load_config(path, config_file)
    report = run(config, _codes(select), _codes(ignore))
    if nothing_found(report):
        click.echo(banner(report), err=True)  # one line, as ruff says so, even with -q
        if fmt == "text" and output is None:
            return EXIT_CLEAN
    elif not quiet:
        click.echo(banner(report), err=True)
    if baseline_out is not None:
        from drift_check.filters import baseline_text

        with open(baseline_out, "w", encoding="utf-8") as fh:
            fh.write(baseline_text(list(report.findings), report.facts))
        click.echo(
            f"drift-check: recorded {len(report.findings)} findings in {baseline_out}", err=True
        )
        return EXIT_CLEAN
    write_failed = False
    if diff or fix:
        from drift_check.fixes.rounds import run_rounds

        # the check runs every rule the config selects, so that a fix of the rules chosen
        # on the command line cannot create a finding of another
        narrowed = bool(select or ignore)
        full = run(config) if narrowed else report
        targets, frozen = _targets(baseline_file, {r.code for r in report.rules})
        outcome = run_rounds(
            full, lambda texts: run(config, overlay=texts), unsafe_fixes, targets, frozen
        )
        for w in outcome.withheld:
            f, c = w.finding, w.created
            click.echo(
                f"drift-check: withheld the {f.code} fix at {f.path}:{f.line}:{f.column}"
                f" ({w.description}): it would create {c.code} at {c.path}:{c.line}:{c.column}:"
                f" {c.message}",
                err=True,
            )
        if diff:
            from drift_check.fixes import unified_diff

            click.echo("".join(unified_diff(c) for c in outcome.changes), nl=False)
            return EXIT_FINDINGS if outcome.changes else EXIT_CLEAN
        report, write_failed = _write(full, outcome, targets, frozen, lambda: run(config))
        if narrowed:
            texts = {} if write_failed else {c.path: c.new for c in outcome.changes}
            report = run(config, _codes(select), _codes(ignore), overlay=texts)
        report = outcome.without_withheld(report)
    if baseline_file is not None:
        report = _against_baseline(report, baseline_file)
    color = (
        output is None and fmt == "text" and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    )
    if statistics:
        from drift_check.reporters.text import statistics_table

        text = statistics_table(report)
    else:
        text = render(report, fmt, color=color, cwd=os.getcwd())
    if output is not None:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        click.echo(text, nl=False)
    failing = any(f.severity != "info" for f in report.findings)  # info never fails a run
    if write_failed:
        return EXIT_ERROR
    return EXIT_FINDINGS if failing and not exit_zero else EXIT_CLEAN


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


def _targets(
    baseline_file: str | None, codes: set[str]
) -> tuple[Callable[[Report], list[Finding]], Callable[[Report], list[Finding]]]:
    """The findings `--fix` may touch (those of the rules that ran, `codes`, that the
    baseline does not hold), and the findings the baseline holds, whose keys a fix must not
    change."""
    if baseline_file is None:
        return (lambda report: [f for f in report.findings if f.code in codes]), (lambda r: [])
    from drift_check.filters import apply_baseline

    baseline = _read_baseline(baseline_file)

    def split(report: Report) -> tuple[list[Finding], list[Finding]]:
        new = apply_baseline(list(report.findings), report.facts, baseline)[0]
        recorded = set(report.findings) - set(new)
        return [f for f in new if f.code in codes], [f for f in report.findings if f in recorded]

    return (lambda report: split(report)[0]), (lambda report: split(report)[1])


def _write(
    before: Report,
    outcome: Outcome,
    targets: Callable[[Report], list[Finding]],
    frozen: Callable[[Report], list[Finding]],
    rerun: Callable[[], Report],
) -> tuple[Report, bool]:
    """Write the final texts of the rounds and say what happened: findings fixed, findings
    left for a person, fixes withheld, and new findings (0, since every fix was checked).
    A file that cannot be written is reported and left alone; the others are written, and
    the counts are then taken from the tree as it is on disk. Returns the report after."""
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
    return after, failed


def _read_baseline(baseline_file: str) -> dict[BaselineEntry, int]:
    from drift_check.filters import read_baseline

    try:
        with open(baseline_file, encoding="utf-8") as fh:
            return read_baseline(fh.read(), baseline_file)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _against_baseline(report: Report, baseline_file: str) -> Report:
    """The report without the findings the baseline holds; entries that no longer occur are
    listed on stderr, so the baseline can be shrunk."""
    from drift_check.filters import apply_baseline

    baseline = _read_baseline(baseline_file)
    new, stale = apply_baseline(list(report.findings), report.facts, baseline)
    for entry in stale:
        click.echo(
            f"drift-check: baseline entry no longer occurs: {entry.code} {entry.path}"
            " (rewrite the baseline with --baseline-write)",
            err=True,
        )
    return report._replace(findings=tuple(new))


@click.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
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


@click.command("explain")
@click.argument("code")
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


@click.command("init")
@click.argument("path", default=".", type=click.Path(file_okay=False))
def init_cmd(path: str) -> int:
    """Write a starter .drift-check.yaml for the layout detected at PATH."""
    from drift_check.config import ConfigError, detect, find_user_config

    found = find_user_config(path)
    if found is not None:
        raise ConfigError(f"{found[0]} already configures drift-check; not overwritten")
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
    with open(target, "x", encoding="utf-8") as fh:
        fh.write(text)
    click.echo(f"drift-check: wrote {target}: {reason.lower()}.")
    return EXIT_CLEAN


@click.command("packs")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
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


SUBCOMMANDS = {
    "rules": rules_cmd,
    "explain": explain_cmd,
    "init": init_cmd,
    "packs": packs_cmd,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command = check
    if args and args[0] in SUBCOMMANDS:
        command = SUBCOMMANDS[args.pop(0)]
    from drift_check.config import ConfigError

    try:
        result = command.main(args=args, prog_name="drift-check", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.ClickException as exc:
        click.echo(f"drift-check: {exc.format_message()}", err=True)
        return EXIT_ERROR
    except click.Abort:
        click.echo("drift-check: aborted", err=True)
        return EXIT_ERROR
    except (UsageError, ConfigError) as exc:
        click.echo(f"drift-check: {exc}", err=True)
        return EXIT_ERROR
    except OSError as exc:
        click.echo(f"drift-check: {exc.filename or ''}: {exc.strerror or exc}", err=True)
        return EXIT_ERROR
    except Exception as exc:  # the last line of defence: never a traceback
        if os.environ.get("DRIFT_CHECK_DEBUG"):
            raise
        click.echo(
            f"drift-check: internal error: {type(exc).__name__}: {exc}"
            " (set DRIFT_CHECK_DEBUG=1 for details and please report it)",
            err=True,
        )
        return EXIT_ERROR
    return int(result or 0)


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

"""click's side of the command line: the commands, their help and usage errors, and the
subcommands (`rules`, `explain`, `init`, `packs`, `graph`). `drift_check.cli` runs the main
command without click where `drift_check.options.parse` can read its arguments; this module
is imported for everything else.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import click

from drift_check import __version__
from drift_check.cli import EXIT_CLEAN, EXIT_ERROR, UsageError, _project, run_check
from drift_check.options import CHECK_OPTIONS, CONFIG, PRESET, Option

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


def _option(option: Option) -> Callable[[Any], Any]:
    """click's option for an entry of the table in `drift_check.options`."""
    kind: dict[str, Any] = {}
    if option.kind == "flag":
        kind["is_flag"] = True
    elif option.kind == "values":
        kind["multiple"] = True
    if option.choices:
        kind["type"] = click.Choice(list(option.choices))
    elif option.file:
        kind["type"] = click.Path(dir_okay=False)
    if option.default is not None:
        kind["default"] = option.default
    return click.option(
        *option.flags, option.dest, metavar=option.metavar, help=option.help, **kind
    )


def _check_options(command: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(CHECK_OPTIONS):  # the first applied is listed last
        command = _option(option)(command)
    return command


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
@_check_options
@click.version_option(
    __version__, "--version", prog_name="drift-check", help="Print the version and exit."
)
@click.help_option("-h", "--help", help="Print this help and exit.")
def check(paths: tuple[str, ...], **given: Any) -> int:
    """Check the agent contracts of the project that holds PATHS (files or folders; default:
    the current folder) and report the findings at PATHS."""
    return run_check(paths, given)


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
@_option(CONFIG)
@_option(PRESET)
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


def run_click(args: Sequence[str]) -> int:
    """The command `args` name (the main one unless the first is a subcommand's name), read
    and run by click: its help, its version, its usage errors (raised, as every error)."""
    args = list(args)
    command = SUBCOMMANDS[args.pop(0)] if args and args[0] in SUBCOMMANDS else check
    try:
        result = command.main(args=args, prog_name=_prog(command), standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    return int(result or 0)


def _prog(command: click.Command) -> str:
    """The name `-h` and usage errors show: `drift-check`, or `drift-check rules`, ..."""
    return "drift-check" if command is check else f"drift-check {command.name}"

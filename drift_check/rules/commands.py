"""DC609, DC611: slash command files' frontmatter (DC611 also a skill's, which takes the
same `argument-hint` key)."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Facts, Position
from drift_check.fixes.edits import quote_flow_value
from drift_check.rules.base import Hit, rule


@rule(
    "DC609",
    "command-unknown-key",
    "warning",
    failing="""
        commands/release.md:   args: "[version]"
    """,
    passing="""
        commands/release.md:   argument-hint: "[version]"
    """,
)
def command_unknown_key(facts: Facts) -> Iterator[Hit]:
    """A slash command file's frontmatter key is not one the pack knows
    (`command-allowed-keys`).

    Claude Code reads a command file's frontmatter as a skill's and ignores any key it does
    not document, without a word, so the setting never takes effect. Use the documented key,
    move your own data under `metadata`, or remove it; a key your own tooling reads belongs
    in `command-allowed-keys` (`extend-command-allowed-keys` in your config), and an empty
    list allows any key.
    """
    allowed = set(facts.settings["command-allowed-keys"] or ())  # null: any key
    if not allowed:
        return
    for path in sorted(facts.commands):
        command = facts.commands[path]
        lines = command.frontmatter_lines
        for key in sorted(command.frontmatter or {}, key=lambda k: (lines.get(str(k), 0), str(k))):
            if str(key) in allowed:
                continue
            meant = _documented(str(key), allowed)
            advice = (
                f"write it `{meant}`"
                if meant
                else "use the documented key, move it under `metadata`, or remove it; if your"
                " own tooling reads it, add it to `command-allowed-keys`"
            )
            yield Hit(
                Position(path, lines.get(str(key), 1), 1),
                f"command `/{command.name}` has key `{key}`, which the {facts.preset} preset"
                f" does not know for commands; Claude Code ignores it: {advice}",
            )


# keys written for a documented one: its words spelled otherwise (`allowed_tools`,
# `argumentHint`), or another name for what it sets
_MEANT = {"tools": "allowed-tools", "tool-access": "allowed-tools", "args": "argument-hint"}


def _documented(key: str, allowed: set[str]) -> str | None:
    """The allowed key `key` stands for, if it plainly stands for one."""
    spelled = "".join("-" + c.lower() if c.isupper() else c for c in key).lstrip("-")
    spelled = spelled.replace("_", "-").replace("--", "-")
    meant = spelled if spelled in allowed else _MEANT.get(spelled)
    return meant if meant in allowed and meant != key else None


@rule(
    "DC611",
    "argument-hint-not-text",
    "warning",
    fix="safe",
    failing="""
        commands/health.md:   argument-hint: [--repair]
    """,
    passing="""
        commands/health.md:   argument-hint: "[--repair]"
    """,
)
def argument_hint_not_text(facts: Facts) -> Iterator[Hit]:
    """A command's or a skill's `argument-hint` is written as a YAML list or mapping.

    Square brackets are how a hint shows an optional argument, but an unquoted value that
    starts with `[` or `{` is read by YAML as a list or a mapping, not as the text shown:
    Claude Code joins the list's items (`[--repair]` shows as `--repair`), a mapping
    (`[optional: topic]`) has crashed its completion menu, and hosts that ask for text (GitHub
    Copilot's CLI) drop the command. Quote it; the fix does, keeping the text as written.
    """
    found = [*facts.commands.values(), *facts.skills.values()]
    for item in sorted(found, key=lambda c: c.path):
        value = (item.frontmatter or {}).get("argument-hint")
        if not isinstance(value, (list, dict)):
            continue
        line = item.frontmatter_lines.get("argument-hint", 1)
        kind = "a list" if isinstance(value, list) else "a mapping"
        yield Hit(
            Position(item.path, line, 1),
            f"`argument-hint` is {kind} to YAML, not the text it shows: hosts show it joined,"
            ' or drop the file; quote it, as in `argument-hint: "[name]"`',
            fix=quote_flow_value(facts, item.path, line, "argument-hint"),
        )


RULES = (command_unknown_key, argument_hint_not_text)

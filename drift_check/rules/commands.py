"""DC609: slash command files' frontmatter."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Facts, Position
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
            yield Hit(
                Position(path, lines.get(str(key), 1), 1),
                f"command `/{command.name}` has key `{key}`, which the {facts.preset} preset"
                " does not know for commands; Claude Code ignores it: use the documented key,"
                " move it under `metadata`, or remove it; if your own tooling reads it, add it"
                " to `command-allowed-keys`",
            )


RULES = (command_unknown_key,)

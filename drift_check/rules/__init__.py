"""The rule set: one module per rule family, each rule's metadata next to its check.

- `inputs`      DC0xx  files that cannot be read or parsed
- `suppressions` DC010 suppression comments that suppress nothing
- `roster`      DC1xx  the registry as a roster of agents and cited paths
- `manifests`   DC110-DC139  plugin, marketplace, hooks and MCP manifests (JSON)
- `plugins`     DC14x  what a plugin manifest lists against the files beside it
- `emission`    DC2xx  what agents emit against what their rows declare
- `consumption` DC3xx  who consumes each marker; phantom and misdirected matches
- `read_tags`   DC4xx  the read-tag handshake between spawners and agents
- `skills`      DC5xx  SKILL.md frontmatter and line/token budgets
- `agent_frontmatter` DC6xx  agents' required and unknown keys, names and skills
- `tools`       DC605, DC607, DC610  tool names in agents, skills and commands
- `commands`    DC609, DC611  slash command frontmatter
- `links`       DC7xx  links, anchors and sibling documents from skills and agents
- `restated`    DC8xx  README tables, lists and trees that restate frontmatter and folders
- `orphans`     DC901  information: skills nothing refers to
- `structured`  DC920-DC949  JSON Schemas, the blocks that claim them, their tables,
                readers and dispatchers
- `vocabulary`  DC950-DC959  state vocabularies: sources, copies, producers and handlers
- `references`  DC960-DC969  skills, agents and code symbols named in text
"""

from __future__ import annotations

from collections.abc import Iterable

from drift_check.rules import (
    agent_frontmatter,
    commands,
    consumption,
    emission,
    inputs,
    links,
    manifests,
    orphans,
    plugins,
    read_tags,
    references,
    restated,
    roster,
    skills,
    structured,
    suppressions,
    tools,
    vocabulary,
)
from drift_check.rules.base import Finding, Hit, Rule, rule

# in code order, whichever module a rule lives in
ALL_RULES: tuple[Rule, ...] = tuple(
    sorted(
        (
            *inputs.RULES,
            *suppressions.RULES,
            *roster.RULES,
            *manifests.RULES,
            *plugins.RULES,
            *emission.RULES,
            *consumption.RULES,
            *read_tags.RULES,
            *skills.RULES,
            *agent_frontmatter.RULES,
            *tools.RULES,
            *commands.RULES,
            *links.RULES,
            *restated.RULES,
            *orphans.RULES,
            *structured.RULES,
            *vocabulary.RULES,
            *references.RULES,
        ),
        key=lambda r: r.code,
    )
)
BY_CODE: dict[str, Rule] = {r.code: r for r in ALL_RULES}


def lookup(code_or_name: str) -> Rule | None:
    wanted = code_or_name.strip()
    return BY_CODE.get(wanted.upper()) or next((r for r in ALL_RULES if r.name == wanted), None)


def parse_codes(values: Iterable[str], whole: bool = False) -> tuple[str, ...]:
    """Rule codes or prefixes of codes (`whole`: codes only) from comma lists, upper-cased;
    ValueError names the first that is no rule's, for the command line and config files."""
    out: list[str] = []
    for value in values:
        for code in value.split(","):
            code = code.strip().upper()
            if not code:
                continue
            if whole and code not in BY_CODE:
                raise ValueError(f"{code!r} is not a whole rule code (see `drift-check rules`)")
            if not any(r.code.startswith(code) for r in ALL_RULES):
                raise ValueError(f"unknown rule code or prefix {code!r} (see `drift-check rules`)")
            out.append(code)
    return tuple(out)


def selected(select: tuple[str, ...], ignore: tuple[str, ...]) -> list[Rule]:
    """Rules whose code starts with a selected prefix and with no ignored prefix."""
    chosen = tuple(s.upper() for s in select)
    dropped = tuple(i.upper() for i in ignore)
    return [r for r in ALL_RULES if r.code.startswith(chosen) and not r.code.startswith(dropped)]


__all__ = [
    "ALL_RULES",
    "BY_CODE",
    "Finding",
    "Hit",
    "Rule",
    "lookup",
    "parse_codes",
    "rule",
    "selected",
]

"""A generated Claude Code plugin marketplace, for timing discovery and the checks at scale.

`generate_marketplace(root, plugins, seed)` writes one `.claude-plugin/marketplace.json` at
the root listing every plugin by a `./<name>` source, and per plugin (a top-level
`<name>-plugin/` folder, as in the real marketplace below):

- `.claude-plugin/plugin.json` (name, version, description, author, repository, license,
  keywords);
- 10 agents `agents/<name>.md`: name, description, tools, model, color; 3 in 10 have a
  `skills:` list naming skills of the same plugin, and one in three of those also names a
  skill of the next plugin as `other-plugin:skill`; one in ten has a `name` that is not its
  file's (plugin agents are known by their name);
- 10 skills `skills/<name>/SKILL.md`: name, description, allowed-tools, and on some
  user-invocable, argument-hint or model; a body of tables, lists and bash fences; one or
  two links to `references/REFERENCE.md` beside it (one with an `#anchor` that exists);
- 10 commands `commands/<name>.md`: description, allowed-tools, argument-hint;
- in one plugin of seven, `hooks/hooks.json` whose commands run `hooks/<name>.sh` through
  `${CLAUDE_PLUGIN_ROOT}`, and that script.

Sizes are the medians measured on /work/shared/corpora/laurigates-claude-plugins-d687dc39
(44 plugins, 419 skills, 21 agents, 6 hook files; 14.3 MB, 1,757 files): SKILL.md 7,350
bytes (about 198 lines), a Markdown file beside a skill (REFERENCE.md and references/)
7,650 bytes, agent 5,486 bytes, plugin.json 603 bytes, hooks.json 686 bytes, hook script
6,233 bytes, a marketplace entry about 450 bytes. That marketplace has no commands; their
size is the median of the GSD corpus's commands (1,325 bytes). Each file's size varies
from 0.6 to 1.4 times its median; the generated medians are within 5% of these (plugin.json
and hooks.json 8% under), with longer lines (a SKILL.md is about 146 lines, not 198).
Generated trees are heavier in two ways, on purpose: the real one has 10 skills and half an
agent per plugin (this one 10 of each and 10 commands), and a Markdown file beside one
skill in three (here every skill has one).

Skill frontmatter keeps to keys Claude Code documents: the real skills also carry
`created`/`modified`/`reviewed` dates, which would add one finding per key per skill and
make this a benchmark of the reporter. A few defects are planted at fixed rates, so that the
run reports something: a link to a missing reference (one skill in 50), an agent's skill
that does not exist (one agent in 60), an unknown tool (one agent in 70).

Deterministic: the same (plugins, seed) writes the same bytes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import NamedTuple

from synth import Out

AGENTS_PER_PLUGIN = 10
SKILLS_PER_PLUGIN = 10
COMMANDS_PER_PLUGIN = 10
HOOKS_EVERY = 7  # one plugin in seven has hooks/hooks.json

# medians measured on laurigates-claude-plugins-d687dc39 (commands: gsd-build-bdcaab2)
SKILL_BYTES = 7_350
REFERENCE_BYTES = 7_650
AGENT_BYTES = 5_486
COMMAND_BYTES = 1_325
HOOK_SCRIPT_BYTES = 6_233

_TOPICS = (
    "git commit branch rebase release deploy container image cluster helm terraform state"
    " lint format test coverage fixture mock schema migration query index cache queue"
    " metric alert trace log secret policy review audit docs changelog workflow pipeline"
    " package dependency build bundle api endpoint auth token session config plugin hook"
)
TOPICS = tuple(_TOPICS.split())
_VERBS = "check run create update list inspect validate render sync prune watch plan"
VERBS = tuple(_VERBS.split())
_WORDS = (
    "the a of to and in for with when each every before after only never always use run"
    " check file change branch commit output result error value option flag step command"
    " project config current target source remote local default required optional agent"
    " skill review test build report status context issue request version"
)
WORDS = tuple(_WORDS.split())
TOOLS = ("Read", "Write", "Edit", "Bash", "Grep", "Glob", "TodoWrite", "WebFetch", "WebSearch")
MODELS = ("sonnet", "opus", "haiku", "inherit")
COLORS = ("blue", "green", "yellow", "purple", "red", "cyan")
CATEGORIES = ("development", "infrastructure", "testing", "documentation", "ai", "ux")
_SYLLABLES = "ba ce di fo gu ha ji ko lu me ni po qa ru si ta vo wu xe ze"
SYLLABLES = tuple(_SYLLABLES.split())


class Counts(NamedTuple):
    """What a generated marketplace holds (what discovery should find) and its size."""

    plugins: int
    agents: int
    skills: int
    commands: int
    hook_files: int
    files: int
    bytes: int


def _tag(i: int) -> str:
    """A short unique pronounceable name for index i (three syllables: 8,000 values)."""
    return "".join(SYLLABLES[(i // 20**k) % 20] for k in range(3))


def plugin_name(i: int) -> str:
    return f"{_tag(i)}-plugin"


def skill_name(plugin: int, k: int) -> str:
    return f"{_tag(plugin)}-{TOPICS[(plugin * 7 + k) % len(TOPICS)]}-{VERBS[k % len(VERBS)]}"


class Text:
    """Deterministic Markdown filler shaped like the real plugins' documents."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        # sections drawn from a pool: generating every word of 50 MB would take minutes
        self.pool = [self._section() for _ in range(1024)]

    def words(self, lo: int, hi: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(lo, hi)))

    def sentence(self) -> str:
        return self.words(8, 18).capitalize() + "."

    def title(self) -> str:
        return f"{self.rng.choice(TOPICS)} {self.rng.choice(VERBS)}".title()

    def table(self) -> str:
        rows = [
            f"| `{self.rng.choice(TOPICS)} {self.rng.choice(VERBS)}` | {self.words(3, 8)} |"
            for _ in range(self.rng.randint(3, 7))
        ]
        return "| Command | Purpose |\n|---------|---------|\n" + "\n".join(rows)

    def fence(self) -> str:
        lines = []
        for _ in range(self.rng.randint(2, 6)):
            lines.append(f"# {self.words(3, 7)}")
            lines.append(
                f"{self.rng.choice(TOPICS)} {self.rng.choice(VERBS)} --{self.rng.choice(TOPICS)}"
            )
        return "```bash\n" + "\n".join(lines) + "\n```"

    def bullets(self) -> str:
        return "\n".join(
            f"- **{self.rng.choice(TOPICS).title()}**: {self.sentence()}"
            for _ in range(self.rng.randint(3, 6))
        )

    def prose(self) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(2, 4)))

    def _section(self) -> str:
        block = self.rng.choice((self.prose, self.table, self.fence, self.bullets))()
        return f"{self.title()}\n\n{self.prose()}\n\n{block}"

    def sections(self, nbytes: int, level: str = "##") -> str:
        """Headed sections of prose, tables, lists and fences until about `nbytes`."""
        parts: list[str] = []
        size = 0
        while size < nbytes:
            part = f"{level} {self.rng.choice(self.pool)}"
            if parts and size + len(part) // 2 > nbytes:
                break  # nearer the size without it
            parts.append(part)
            size += len(part) + 2
        return "\n\n".join(parts)

    def size(self, median: int) -> int:
        return int(median * self.rng.uniform(0.6, 1.4))


def _frontmatter(pairs: list[tuple[str, str | list[str]]]) -> str:
    lines = ["---"]
    for key, value in pairs:
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"  - {v}" for v in value)
        else:
            lines.append(f"{key}: {value}")
    lines.append("---")
    return "\n".join(lines)


def _skill(t: Text, plugin: int, k: int) -> tuple[str, str]:
    """A SKILL.md and its references/REFERENCE.md."""
    name = skill_name(plugin, k)
    index = plugin * SKILLS_PER_PLUGIN + k
    tools = ", ".join(t.rng.sample(TOOLS[:6], t.rng.randint(2, 5)))
    pairs: list[tuple[str, str | list[str]]] = [
        ("name", name),
        ("description", f"{t.sentence()} Use when {t.words(6, 12)}."),
        ("allowed-tools", tools),
    ]
    if k % 2:
        pairs.append(("user-invocable", "false"))
    if k % 3 == 0:
        pairs.append(("argument-hint", '"[--dry-run] [target]"'))
    if k % 5 == 4:
        pairs.append(("model", t.rng.choice(MODELS[:3])))
    sibling = skill_name(plugin, (k + 1) % SKILLS_PER_PLUGIN)
    when = "\n".join(
        [
            "| Use this skill when... | Use something else when... |",
            "|---|---|",
            *(f"| {t.words(4, 9)} | {t.words(3, 6)} -> `{sibling}` |" for _ in range(3)),
        ]
    )
    target = "references/MISSING.md" if index % 50 == 17 else "references/REFERENCE.md"
    links = [f"For options and troubleshooting, see [REFERENCE.md]({target})."]
    if k % 2 == 0:
        links.append("Patterns: [the pattern catalogue](references/REFERENCE.md#patterns).")
    head = f"{_frontmatter(pairs)}\n\n# {name.replace('-', ' ').title()}\n\n{t.prose()}\n\n"
    head += f"## When to Use This Skill\n\n{when}\n\n"
    tail = "\n\n## Reference\n\n" + "\n".join(links) + "\n"
    body = t.sections(max(500, t.size(SKILL_BYTES) - len(head) - len(tail)))
    reference = (
        f"# {name} reference\n\n{t.prose()}\n\n## Patterns\n\n{t.bullets()}\n\n"
        + t.sections(t.size(REFERENCE_BYTES) - 400, "###")
        + "\n"
    )
    return head + body + tail, reference


def _agent(t: Text, plugin: int, k: int, n_plugins: int) -> tuple[str, str]:
    """An agent's file name and text."""
    name = f"{_tag(plugin)}-{TOPICS[(plugin + k * 3) % len(TOPICS)]}-agent-{k}"
    index = plugin * AGENTS_PER_PLUGIN + k
    tools = list(t.rng.sample(TOOLS, t.rng.randint(3, 7)))
    if index % 70 == 33:
        tools.append("Deploy")  # not a Claude Code tool
    # plugin agents are known by their `name`, often not their file's: one in ten here
    named = f"{_tag(plugin)}-{TOPICS[(plugin + k) % len(TOPICS)]}-specialist" if k == 9 else name
    pairs: list[tuple[str, str | list[str]]] = [
        ("name", named),
        ("description", f"{t.sentence()} Use proactively when {t.words(5, 10)}."),
        ("tools", ", ".join(tools)),
        ("model", t.rng.choice(MODELS)),
        ("color", t.rng.choice(COLORS)),
    ]
    if k % 10 in (1, 4, 7):
        skills = [skill_name(plugin, (k + j) % SKILLS_PER_PLUGIN) for j in range(2)]
        if k % 10 == 4 and n_plugins > 1:
            other = (plugin + 1) % n_plugins
            skills.append(f"{plugin_name(other)}:{skill_name(other, k % SKILLS_PER_PLUGIN)}")
        if index % 60 == 21:
            skills.append(f"{_tag(plugin)}-retired-skill")  # names no skill
        pairs.append(("skills", skills))
    head = f"{_frontmatter(pairs)}\n\n# {name.replace('-', ' ').title()}\n\n{t.prose()}\n\n"
    return name, head + t.sections(max(500, t.size(AGENT_BYTES) - len(head))) + "\n"


def _command(t: Text) -> str:
    tools = ", ".join(f"Bash({t.rng.choice(TOPICS)} *)" for _ in range(2)) + ", Read, Edit"
    pairs: list[tuple[str, str | list[str]]] = [
        ("description", f"{t.sentence()}"),
        ("allowed-tools", tools),
        ("argument-hint", '"[--all] [name]"'),
    ]
    head = f"{_frontmatter(pairs)}\n\n## Context\n\n{t.prose()}\n\n## Execution\n\n"
    steps = []
    size = t.size(COMMAND_BYTES) - len(head)
    while sum(map(len, steps)) < size:
        steps.append(f"{len(steps) + 1}. {t.sentence()} Use `$ARGUMENTS` if given.")
    return head + "\n".join(steps) + "\n"


def _hooks(t: Text, script: str) -> tuple[str, str]:
    """hooks.json (about 690 bytes) and the script it runs."""
    command = {
        "type": "command",
        "command": f"bash ${{CLAUDE_PLUGIN_ROOT}}/hooks/{script}",
        "timeout": 10,
    }
    data = {
        "description": f"{t.sentence()}",
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [command]}],
            "SessionStart": [{"matcher": "", "hooks": [command]}],
        },
    }
    lines = ["#!/usr/bin/env bash", "set -euo pipefail", ""]
    size = t.size(HOOK_SCRIPT_BYTES)
    while sum(map(len, lines)) + len(lines) < size:
        lines.append(f"# {t.sentence()}")
        lines.append(f'if [ -n "${{{t.rng.choice(TOPICS).upper()}:-}}" ]; then exit 0; fi')
    return json.dumps(data, indent=2) + "\n", "\n".join(lines) + "\n"


def generate_marketplace(root: Path, plugins: int, seed: int = 1) -> Counts:
    """Write a marketplace of `plugins` plugins under `root`; what it holds."""
    rng = random.Random(f"drift-check-marketplace:{seed}:{plugins}")
    t = Text(rng)
    out = Out(root)
    entries = []
    hook_files = 0
    for p in range(plugins):
        folder = plugin_name(p)
        description = t.sentence()
        keywords = sorted({t.rng.choice(TOPICS) for _ in range(16)})
        manifest = {
            "name": folder,
            "version": f"{p % 3 + 1}.{p % 11}.{p % 7}",
            "description": description,
            "author": {"name": "Bench Author"},
            "homepage": f"https://example.invalid/marketplace/tree/main/{folder}",
            "repository": "https://example.invalid/marketplace",
            "license": "MIT",
            "keywords": keywords,
        }
        out.write(f"{folder}/.claude-plugin/plugin.json", json.dumps(manifest, indent=2) + "\n")
        entries.append(
            {
                "name": folder,
                "source": f"./{folder}",
                "description": description,
                "version": manifest["version"],
                "keywords": keywords,
                "category": CATEGORIES[p % len(CATEGORIES)],
            }
        )
        for k in range(SKILLS_PER_PLUGIN):
            skill, reference = _skill(t, p, k)
            base = f"{folder}/skills/{skill_name(p, k)}"
            out.write(f"{base}/SKILL.md", skill)
            out.write(f"{base}/references/REFERENCE.md", reference)
        for k in range(AGENTS_PER_PLUGIN):
            name, text = _agent(t, p, k, plugins)
            out.write(f"{folder}/agents/{name}.md", text)
        for k in range(COMMANDS_PER_PLUGIN):
            name = f"{TOPICS[(p + k) % len(TOPICS)]}-{VERBS[k % len(VERBS)]}"
            out.write(f"{folder}/commands/{name}.md", _command(t))
        if p % HOOKS_EVERY == 0:
            script = f"{_tag(p)}-guard.sh"
            hooks, body = _hooks(t, script)
            out.write(f"{folder}/hooks/hooks.json", hooks)
            out.write(f"{folder}/hooks/{script}", body)
            hook_files += 1
    marketplace = {
        "$schema": "https://json.schemastore.org/claude-code-marketplace.json",
        "name": "bench-marketplace",
        "owner": {"name": "Bench Author"},
        "description": f"A generated marketplace of {plugins} plugins.",
        "plugins": entries,
    }
    out.write(".claude-plugin/marketplace.json", json.dumps(marketplace, indent=2) + "\n")
    return Counts(
        plugins=plugins,
        agents=plugins * AGENTS_PER_PLUGIN,
        skills=plugins * SKILLS_PER_PLUGIN,
        commands=plugins * COMMANDS_PER_PLUGIN,
        hook_files=hook_files,
        files=out.files,
        bytes=out.bytes,
    )

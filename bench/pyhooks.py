"""A generated Gaia-style tree whose Python hooks consume the agents' markers, for timing
how drift-check reads Python.

`generate_hooks_tree(root, hooks, seed, registry)` writes:

- 8 agents `agents/<name>.md` (name, description, tools, model, a `skills:` list starting
  with agent-protocol and security-tiers) whose fenced return templates show their markers;
- 20 skills `skills/<name>/SKILL.md` and `skills/README.md` with the skill assignment
  matrix and the directory tree (what makes discovery choose the gaia pack);
- `hooks` Python files: `hooks/pre_tool_use.py`, `post_tool_use.py`, `subagent_stop.py`,
  `session_start.py` and the rest as `hooks/modules/<area>/<name>.py`, like Gaia's
  hooks/modules/ packages. Each is 40 to 360 lines (median about 210, 9 KB) of what hook
  code holds: docstrings, constant tables keyed by markers, f-strings with conversions,
  format specs and nested fields, implicit concatenations over lines, raw regexes, bytes,
  comments, `match` statements, and non-ASCII text (arrows, accents, emoji) in strings and
  comments, so that byte and character columns differ on many lines;
- with `registry`, `references/agent-contracts.md`: one row per agent declaring its markers
  and citing the hooks that match them (the contracts pack joins gaia). Without it the
  tree declares no marker, and nothing a hook's strings hold can be checked.

Two drifts are planted so that the run reports something: a marker no hook matches (DC301),
and one the hooks spell in title case (DC302); its row cites those hooks, which match none
of its markers (DC304), and not the hooks that match its other marker (DC303).

Deterministic: the same (hooks, seed, registry) writes the same bytes. Plain standard library.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import NamedTuple

from synth import Out

AGENTS = (
    ("gaia-orchestrator", ("ROUTING COMPLETE", "ROUTING BLOCKED")),
    ("gaia-planner", ("PLAN COMPLETE", "PLAN REJECTED")),
    ("terraform-architect", ("TERRAFORM PLAN READY", "APPROVAL REQUEST")),
    ("gitops-operator", ("DEPLOYMENT COMPLETE", "ROLLBACK REQUIRED")),
    ("cloud-troubleshooter", ("ROOT CAUSE FOUND", "INVESTIGATION INCONCLUSIVE")),
    ("devops-developer", ("IMPLEMENTATION COMPLETE", "CHECKPOINT REACHED")),
    ("speckit-planner", ("SPEC COMPLETE", "CLARIFICATION NEEDED")),
    ("gaia-system", ("SYSTEM CHECK PASSED", "SYSTEM CHECK FAILED")),
)
UNCONSUMED = "INVESTIGATION INCONCLUSIVE"  # planted: DC301
CASE_ONLY = "CLARIFICATION NEEDED"  # planted: DC302 (the hooks spell it in title case)
SKILLS = (
    "agent-protocol",
    "security-tiers",
    "command-execution",
    "context-updater",
    "fast-queries",
    "git-conventions",
    "gitops-patterns",
    "investigation",
    "request-approval",
    "terraform-patterns",
    "execution",
    "output-format",
    "reference-lookup",
    "specification",
    "planning",
    "kubernetes-ops",
    "cloud-costs",
    "incident-response",
    "release-notes",
    "policy-checks",
)
AREAS = ("routing", "security", "context", "approval", "audit", "state", "tools", "tiers")
_TEXT = (
    "agent hook tool call command context approval tier state session plan task result"
    " output error policy rule check skill route handler payload event status file path"
    " project workspace cluster release deploy request response cache token"
)
_WORDS = tuple(_TEXT.split())
_ACCENTED = ("résumé", "naïve", "façade", "café", "déjà vu", "Zürich", "São Paulo", "Ωmega")
_SYMBOLS = ("→", "✅", "⚠", "·", "—", "…", "❌", "🚀", "«", "»")
LINES_MIN, LINES_MAX = 40, 360


class HooksTree(NamedTuple):
    """What a generated tree holds and its size."""

    agents: int
    skills: int
    hook_files: int
    python_lines: int
    files: int
    bytes: int


def hook_paths(hooks: int) -> list[str]:
    """The hook files: four entry points, then modules spread over the areas."""
    entry = ["pre_tool_use", "post_tool_use", "subagent_stop", "session_start"]
    paths = [f"hooks/{name}.py" for name in entry[:hooks]]
    for i in range(hooks - len(paths)):
        area = AREAS[i % len(AREAS)]
        paths.append(f"hooks/modules/{area}/{_WORDS[i % len(_WORDS)]}_{i:03d}.py")
    return paths


class _Module:
    """One hook module's source, built from blocks of the kinds hook code holds."""

    def __init__(self, rng: random.Random, markers: list[str], index: int) -> None:
        self.rng = rng
        self.markers = markers  # the markers this module matches
        self.index = index
        self.lines: list[str] = []

    def word(self) -> str:
        return self.rng.choice(_WORDS)

    def words(self, lo: int, hi: int) -> str:
        return " ".join(self.word() for _ in range(self.rng.randint(lo, hi)))

    def fancy(self) -> str:
        """Words with, now and then, accented text or a symbol outside the ASCII range."""
        parts = self.words(2, 6).split()
        if self.rng.random() < 0.5:
            parts.insert(self.rng.randint(0, len(parts)), self.rng.choice(_ACCENTED))
        if self.rng.random() < 0.5:
            parts.insert(self.rng.randint(0, len(parts)), self.rng.choice(_SYMBOLS))
        return " ".join(parts)

    def marker(self) -> str:
        return self.rng.choice(self.markers)

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def header(self, path: str) -> None:
        self.add(
            f'"""{path}: {self.fancy()}.',
            "",
            f"Routes agent returns {self.rng.choice(_SYMBOLS)} {self.words(4, 9)}.",
            f"Matches `## {self.marker()}` and the other markers of its agents.",
            '"""',
            "",
            "from __future__ import annotations",
            "",
            "import json",
            "import logging",
            "import re",
            "from pathlib import Path",
            "from typing import Any",
            "",
            f'log = logging.getLogger("gaia.hooks.{self.word()}")',
            "",
        )

    def table(self) -> None:
        name = f"{self.word().upper()}_ROUTES_{self.rng.randint(0, 999)}"
        self.add(f"{name}: dict[str, str] = {{")
        for m in self.rng.sample(self.markers, min(len(self.markers), self.rng.randint(2, 4))):
            self.add(f'    "## {m}": "{self.word()}_{self.word()}",')
        self.add(f'    "{self.word()}": "{self.fancy()}",', "}", "")

    def function(self) -> None:
        name = f"{self.word()}_{self.word()}_{self.rng.randint(0, 9999)}"
        m = self.marker()
        width = self.rng.randint(4, 12)
        inner = self.word()
        call = f"{{payload.get('{inner}')}}"
        self.add(
            f'def {name}(payload: dict[str, Any], tier: str = "T{self.rng.randint(0, 3)}") -> str:',
            f'    """{self.fancy().capitalize()}: {self.words(5, 12)}."""',
            f"    # {self.fancy()}: a comment that names ## {m} is not a match",
            f'    text = payload.get("{self.word()}", "")',
            f'    if "## {m}" in text:',
            f'        log.info(f"{self.word()} {{tier!r:>{width}}} → {call}")',
            f'        return f"{self.fancy()} {{len(text):{width}d}} {{text[:{width}]!r}}"',
            '    message = ("' + self.words(3, 6) + ' "',
            f'               "{self.fancy()} "',
            f'               f"{{tier}} {self.words(1, 3)}")',
            f'    pattern = re.compile(r"^##\\s+({self.word().upper()}|{m.split()[0]})\\b")',
            "    if pattern.match(text):",
            f"        return f\"{{message}}: {{'{self.fancy()}' if tier else '{self.word()}'}}\"",
            f'    raw = b"{self.word()}\\x00{self.word()}"',
            '    return message + raw.decode("utf-8", "replace") + "\\n\\t\\u2192"',
            "",
        )

    def matcher(self) -> None:
        a, b = self.rng.sample(self.markers, 2) if len(self.markers) > 1 else (self.marker(),) * 2
        self.add(
            f"def match_{self.word()}_{self.rng.randint(0, 9999)}(line: str) -> str | None:",
            "    match line.strip():",
            f'        case "## {a}":',
            f'            return "{self.word()}"',
            f"        case '## {b}' | '## {b.lower()}':",
            f"            return '{self.fancy()}'",
            "        case _:",
            f'            return f"""{self.words(2, 5)}',
            f"{{line!r}} {self.fancy()} {{len(line):>{self.rng.randint(3, 9)}}}",
            f'{self.words(1, 4)}"""',
            "",
        )

    def config(self) -> None:
        self.add(
            f"def load_{self.word()}_{self.rng.randint(0, 9999)}(root: Path) -> dict[str, Any]:",
            f'    path = root / ".claude" / "{self.word()}.json"',
            "    try:",
            '        return json.loads(path.read_text(encoding="utf-8"))',
            "    except (OSError, ValueError) as exc:",
            f'        log.warning("%s: {self.fancy()} (%s)", path, exc)',
            "        return {",
            f'            "{self.word()}": {self.rng.randint(0, 99)},',
            f'            "{self.word()}": "{self.fancy()}",',
            f'            "note": "{self.words(3, 8)}" "{self.words(2, 5)}",',
            "        }",
            "",
        )

    def build(self, path: str, lines: int) -> str:
        self.header(path)
        blocks = (self.table, self.function, self.function, self.matcher, self.config)
        while len(self.lines) < lines:
            self.rng.choice(blocks)()
        return "\n".join(self.lines) + "\n"


def _agent(name: str, markers: tuple[str, ...], skills: list[str]) -> str:
    listed = "".join(f"  - {s}\n" for s in skills)
    returns = "\n\n".join(f"## {m}\n\n**Summary:** what was done, and why." for m in markers)
    return (
        f"---\nname: {name}\ndescription: The {name.replace('-', ' ')} of the Gaia stack.\n"
        f"tools: Read, Write, Edit, Bash, Grep\nmodel: inherit\nskills:\n{listed}---\n\n"
        f"# {name}\n\nDo the work the skills describe, then return one of these.\n\n"
        f"## Return\n\n```markdown\n{returns}\n```\n"
    )


def _registry(cited: dict[str, list[str]]) -> str:
    rows = []
    for name, markers in AGENTS:
        cell = ", ".join(f"`## {m}`" for m in markers)
        consumed = ", ".join(f"`{p}`" for p in cited[name])
        rows.append(f"| {name} | {name.split('-')[-1].title()} | {cell} | {consumed} |")
    return (
        "# Agent contracts\n\n## Agent Registry\n\n"
        "| Agent | Role | Completion Markers | Consumed by |\n|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n"
    )


def generate_hooks_tree(
    root: Path, hooks: int = 118, seed: int = 1, registry: bool = True
) -> HooksTree:
    """Write the tree (see the module docstring); `registry` adds the contracts file."""
    rng = random.Random(seed)
    out = Out(root)
    for i, (name, markers) in enumerate(AGENTS):
        skills = ["agent-protocol", "security-tiers", *SKILLS[2 + i * 2 : 4 + i * 2]]
        out.write(f"agents/{name}.md", _agent(name, markers, skills))
    for skill in SKILLS:
        steps = "\n".join(f"{k}. Step {k} of {skill}: check, then act." for k in range(1, 30))
        out.write(
            f"skills/{skill}/SKILL.md",
            f"---\nname: {skill}\ndescription: Use when working on {skill}.\n---\n\n"
            f"# {skill}\n\n{steps}\n",
        )
    matrix = "\n".join(
        f"| {name} | agent-protocol, security-tiers, {', '.join(SKILLS[2 + i * 2 : 4 + i * 2])} | |"
        for i, (name, _) in enumerate(AGENTS)
    )
    tree = "\n".join(f"├── {s}/" for s in sorted(SKILLS))
    out.write(
        "skills/README.md",
        f"# Skills\n\n```\nskills/\n{tree}\n```\n\n**Skill assignment matrix:**\n\n"
        f"| Agent | Core Skills | Domain Skills |\n|---|---|---|\n{matrix}\n",
    )
    paths = hook_paths(hooks)
    consumed = [m for _, ms in AGENTS for m in ms if m != UNCONSUMED]
    cited: dict[str, list[str]] = {name: [] for name, _ in AGENTS}
    lines = 0
    for k, path in enumerate(paths):
        chosen = rng.sample(consumed, 3)
        module = _Module(rng, [m.title() if m == CASE_ONLY else m for m in chosen], k)
        source = module.build(path, rng.randint(LINES_MIN, LINES_MAX))
        lines += source.count("\n")
        out.write(path, source)
        for name, markers in AGENTS:
            if any(m in chosen for m in markers) and len(cited[name]) < 3:
                cited[name].append(path)
    if registry:
        out.write("references/agent-contracts.md", _registry(cited))
    return HooksTree(len(AGENTS), len(SKILLS), len(paths), lines, out.files, out.bytes)

"""Synthetic GSD trees with the shape of the corpus gsd-build-bdcaab2 (measured from it when
it is present, built-in constants otherwise), scaled by a factor, and a skills-heavy
Gaia-style tree. Seeded: the same arguments write the same bytes.

Plain standard library.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path
from typing import NamedTuple


class Profile(NamedTuple):
    agents: int
    references: int  # including the contracts file
    workflows: int
    commands: int
    agent_bytes: int
    reference_bytes: int
    workflow_bytes: int
    command_bytes: int
    rows: int  # registry rows
    fenced_headings: int  # headings inside fences, over all agent files
    includes: int  # `@`-includes of .md files in agent files
    dispatches: int  # `subagent_type=` in workflows and commands
    quotes: int  # quoted `## TOKEN`s in workflows and commands
    legacy_files: int  # files with a `<files_to_read>` tag
    source: str


# Measured on gsd-build-bdcaab2 with `measure_profile` (used when the corpus is absent).
BUILTIN = Profile(
    agents=33,
    references=63,
    workflows=106,
    commands=67,
    agent_bytes=583_060,
    reference_bytes=368_564,
    workflow_bytes=1_339_321,
    command_bytes=121_298,
    rows=22,
    fenced_headings=597,
    includes=45,
    dispatches=69,
    quotes=103,
    legacy_files=21,
    source="built-in constants (measured on gsd-build-bdcaab2)",
)

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]")
_INCLUDE = re.compile(r"(?<![\w@/])@[~$\w.][^\s`'\"()<>\[\]{}|,;*]*\.md")
_DISPATCH = re.compile(r"subagent_type\s*[=:]")
_QUOTED = re.compile(r"""[`'"]## ([^`'"\n]+)[`'"]""")


def fenced_headings(text: str) -> int:
    """Headings on lines inside fenced blocks (a close needs the opener's character and at
    least its length, with nothing after it)."""
    count = 0
    opener = ""
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if opener:
            if m and m.group(1)[0] == opener[0] and len(m.group(1)) >= len(opener):
                if not m.group(2).strip():
                    opener = ""
            elif _HEADING.match(line):
                count += 1
        elif m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            opener = m.group(1)
    return count


def _files(root: Path, pattern: str) -> list[Path]:
    return sorted(p for p in root.glob(pattern) if p.is_file())


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


def tree_size(root: Path) -> tuple[int, int]:
    """Number of files and total bytes under `root`."""
    files = total = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            files += 1
            total += os.path.getsize(os.path.join(dirpath, name))
    return files, total


def measure_profile(root: Path) -> Profile | None:
    """The profile of a GSD tree (either layout); None if `root` is not one."""
    core = next((c for c in ("gsd-core", "get-shit-done") if (root / c).is_dir()), None)
    if core is None:
        return None
    agents = _files(root, "agents/*.md")
    refs = _files(root, f"{core}/references/**/*.md")
    flows = _files(root, f"{core}/workflows/**/*.md")
    cmds = _files(root, "commands/**/*.md")
    surfaces = [_read(p) for p in flows + cmds]
    agent_texts = [_read(p) for p in agents]
    contracts = _read(root / core / "references" / "agent-contracts.md")
    table = contracts.split("## Agent Registry", 1)[-1].split("\n## ", 1)[0]
    rows = [ln for ln in table.split("\n") if ln.startswith("|")][2:]
    return Profile(
        agents=len(agents),
        references=len(refs),
        workflows=len(flows),
        commands=len(cmds),
        agent_bytes=sum(p.stat().st_size for p in agents),
        reference_bytes=sum(p.stat().st_size for p in refs),
        workflow_bytes=sum(p.stat().st_size for p in flows),
        command_bytes=sum(p.stat().st_size for p in cmds),
        rows=len(rows),
        fenced_headings=sum(fenced_headings(t) for t in agent_texts),
        includes=sum(len(_INCLUDE.findall(t)) for t in agent_texts),
        dispatches=sum(len(_DISPATCH.findall(t)) for t in surfaces),
        quotes=sum(len(_QUOTED.findall(t)) for t in surfaces),
        legacy_files=sum(
            "<files_to_read>" in _read(p) for p in agents + refs + flows + cmds if p.is_file()
        ),
        source=f"measured on {root.name}",
    )


_WORDS = (
    "agent plan phase task wave commit verify research roadmap state summary context budget"
    " orchestrator checkpoint executor requirement decision gap audit gate template marker"
    " return spawn prompt file path read write section step table field schema review fix"
    " the a of to and in for with when each every before after only never always must should"
    " load parse check update create report handle continue skip abort retry present confirm"
    " user project milestone dependency artifact output input result status error warning"
    " scope goal criteria evidence coverage boundary interface module test build deploy config"
)
WORDS = tuple(_WORDS.split())
_SYLLABLES = "ba ce di fo gu ha ji ko lu me ni po qa ru si ta vo wu xe ze"
SYLLABLES = tuple(_SYLLABLES.split())
ROLES = (
    ("planner", ("PLANNING COMPLETE",)),
    ("executor", ("PLAN COMPLETE", "CHECKPOINT REACHED")),
    ("researcher", ("RESEARCH COMPLETE", "RESEARCH BLOCKED")),
    ("checker", ("VERIFICATION PASSED", "ISSUES FOUND")),
    ("synthesizer", ("SYNTHESIS COMPLETE",)),
    ("debugger", ("DEBUG COMPLETE", "ROOT CAUSE FOUND", "CHECKPOINT REACHED")),
    ("roadmapper", ("ROADMAP CREATED", "ROADMAP REVISED", "ROADMAP BLOCKED")),
    ("auditor", ("AUDIT COMPLETE",)),
    ("mapper", ("MAPPING COMPLETE",)),
    ("writer", ()),
    ("profiler", ()),
)
TEMPLATE_HEADINGS = (
    "Summary",
    "Findings",
    "Plans Created",
    "Next Steps",
    "Open Questions",
    "Evidence",
    "Sources",
    "Deviations",
    "Self-Check",
    "Wave Structure",
    "Key Decisions",
    "Risks",
)
TOOLS = "Read, Write, Edit, Bash, Grep, Glob, WebFetch"


def _tag(i: int) -> str:
    """A short unique pronounceable tag for index i (three syllables: 8000 values)."""
    return "".join(SYLLABLES[(i // 20**k) % 20] for k in range(3))


class Out:
    """Writes files under a root and counts them (files and bytes)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files = 0
        self.bytes = 0

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        self.files += 1
        self.bytes += len(data)


class Writer(Out):
    """Deterministic filler, and the files written with it."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        super().__init__(root)
        self.rng = rng
        self.paragraphs = [self._paragraph() for _ in range(512)]

    def sentence(self) -> str:
        words = [self.rng.choice(WORDS) for _ in range(self.rng.randint(6, 16))]
        if self.rng.random() < 0.3:  # never first: a value cannot start with a backtick
            words[self.rng.randrange(1, len(words))] = f"`{self.rng.choice(WORDS)}.md`"
        return " ".join(words).capitalize() + "."

    def _paragraph(self) -> str:
        kind = self.rng.random()
        if kind < 0.25:
            return "\n".join(
                f"- **{self.rng.choice(WORDS).capitalize()}:** {self.sentence()}"
                for _ in range(self.rng.randint(2, 6))
            )
        if kind < 0.35:
            cells = [self.rng.choice(WORDS) for _ in range(3)]
            rows = [f"| {a} | {b} | {c} |" for a, b, c in (cells, cells[::-1], cells)]
            return "| Field | Required | Description |\n|---|---|---|\n" + "\n".join(rows)
        if kind < 0.45:
            body = "\n".join(
                f"gsd-sdk query {self.rng.choice(WORDS)} --{self.rng.choice(WORDS)}"
                for _ in range(self.rng.randint(1, 4))
            )
            return f"```bash\n{body}\n```"
        # prose lines of moderate length, as the corpus has (about 40 bytes a line)
        return "\n".join(self.sentence() for _ in range(self.rng.randint(2, 5)))

    def filler(self, nbytes: int) -> str:
        """Sections of prose, lists, tables and code until about `nbytes` characters."""
        out: list[str] = []
        size = 0
        while size < nbytes:
            if self.rng.random() < 0.3:
                title = " ".join(self.rng.choice(WORDS) for _ in range(3)).title()
                part = f"## {title}" if self.rng.random() < 0.5 else f"### {title}"
            else:
                part = self.rng.choice(self.paragraphs)
            out.append(part)
            size += len(part) + 2
        return "\n\n".join(out)

    def size(self, mean: float) -> int:
        return max(200, int(mean * self.rng.uniform(0.4, 1.6)))


class Agent(NamedTuple):
    name: str
    markers: tuple[str, ...]  # emitted in its return template
    declared: tuple[str, ...]  # in its registry row (empty with no row)
    has_row: bool
    kind: str


def generate(root: Path, profile: Profile, factor: int, seed: int) -> tuple[int, int]:
    """Write a synthetic GSD tree `factor` times the profile's size; (files, bytes).

    Per file sizes and densities follow the profile; scaling adds agents, rows, references,
    workflows and commands (files keep their size). Drift is injected at fixed rates:
    agents with no row, declared markers never emitted, undeclared emitted markers (one
    through an included reference), quoted markers nobody declares, case-only consumers,
    a sentinel marker nobody matches, `<files_to_read>` tags.
    """
    rng = random.Random(f"drift-check-bench:{seed}:{factor}")
    w = Writer(root, rng)
    core = "gsd-core"
    n_agents = profile.agents * factor
    n_refs = max(2, profile.references * factor) - 1  # the contracts file is one of them
    n_flows = profile.workflows * factor
    n_cmds = profile.commands * factor
    agents_1x = max(profile.agents, 1)

    refs = [f"{core}/references/{_tag(i)}-{rng.choice(WORDS)}.md" for i in range(n_refs)]
    for i, rel in enumerate(refs):  # a corpus-like share of references sit in subfolders
        if i % 30 == 7:
            refs[i] = rel.replace("/references/", "/references/examples/")
    flows = [f"{core}/workflows/{_tag(i)}-{rng.choice(WORDS)}.md" for i in range(n_flows)]
    for i, rel in enumerate(flows):
        if i % 6 == 5:
            flows[i] = rel.replace("/workflows/", f"/workflows/{_tag(i // 6)}/")
    cmds = [f"commands/gsd/{_tag(i)}-{rng.choice(WORDS)}.md" for i in range(n_cmds)]

    # Agents and their contracts.
    agents: list[Agent] = []
    template_refs: dict[int, str] = {}  # agent index -> reference carrying its template
    for i in range(n_agents):
        role, phrases = ROLES[i % len(ROLES)]
        name = f"gsd-{_tag(i)}-{role}"
        prefix = _tag(i).upper()
        markers = tuple(f"{prefix} {p}" if p != "CHECKPOINT REACHED" else p for p in phrases)
        has_row = (i + 1) * profile.rows // agents_1x > i * profile.rows // agents_1x
        kind = "sentinel-match" if markers else rng.choice(("artifact+query", "structured-return"))
        declared = markers if has_row else ()
        if has_row and markers and i % 17 == 3:
            declared += (f"{prefix} PARTIAL",)  # declared, never emitted
        if i % 23 == 1:
            markers += (f"{prefix} ESCALATE",)  # emitted, not declared
        if i % 29 == 11 and markers:
            template_refs[i] = refs[(i * 7) % len(refs)]
        agents.append(Agent(name, markers, declared, has_row, kind))

    # Dispatch surfaces: each dispatch names an agent with sentinel markers and quotes them.
    sentinel = [a for a in agents if a.has_row and a.markers and a.kind == "sentinel-match"]
    n_dispatch = max(1, profile.dispatches * factor)
    flow_sections: dict[str, list[str]] = {rel: [] for rel in flows + cmds}
    consumed_by: dict[str, list[str]] = {}
    quote_budget = profile.quotes / max(profile.dispatches, 1)  # quotes per dispatch
    for d in range(n_dispatch):
        agent = sentinel[d % len(sentinel)] if sentinel else agents[d % len(agents)]
        surface = flows[(d * 5) % len(flows)] if d % 8 else cmds[(d * 3) % len(cmds)]
        quoted = [m for m in agent.markers if m in agent.declared]
        quoted = quoted[: max(1, round(quote_budget + rng.uniform(-0.5, 0.5)))]
        if d == 5 % n_dispatch and len(quoted) > 1:
            quoted = quoted[:1]  # the other marker of this agent has no consumer
        lines = [
            f'<step name="spawn_{agent.name[4:].replace("-", "_")}">',
            f"Spawn the {agent.name} agent with the phase context:",
            "",
            "```",
            "Task(",
            '  prompt="<required_reading>\\n{context_path}\\n</required_reading>",',
            f'  subagent_type="{agent.name}",',
            '  model="{planner_model}",',
            ")",
            "```",
            "",
            "Handle the return:",
        ]
        for m in quoted:
            shown = m.title() if d % 41 == 13 else m  # matches only case-insensitively
            lines.append(f"- **`## {shown}`:** {rng.choice(w.paragraphs).split(chr(10))[0]}")
        if d % 37 == 19:
            lines.append(f"- **`## {_tag(d).upper()} SPLIT RECOMMENDED`:** nobody declares it.")
        lines.append("</step>")
        flow_sections[surface].append("\n".join(lines))
        consumed_by.setdefault(agent.name, [])
        if surface not in consumed_by[agent.name] and len(consumed_by[agent.name]) < 2:
            consumed_by[agent.name].append(surface)

    # The registry (5 columns) inside the contracts reference.
    table = [
        "| Agent | Role | Completion Markers | Consumed by | Kind |",
        "|-------|------|--------------------|-------------|------|",
    ]
    for i, a in enumerate(agents):
        if not a.has_row:
            continue
        cells = ", ".join(f"`## {m}`" for m in a.declared) or "No marker (writes docs directly)"
        cited = [f"`{p}`" for p in consumed_by.get(a.name, [])]
        if i % 31 == 4:
            cited.append(f"`{core}/workflows/retired-{_tag(i)}.md`")  # does not exist
        role = " ".join(rng.choice(WORDS) for _ in range(2)).capitalize()
        table.append(
            f"| {a.name} | {role} | {cells} | {', '.join(cited) or 'orchestrator'} | {a.kind} |"
        )
    contracts = "\n\n".join(
        [
            "# Agent Contracts",
            "Completion markers and handoff schemas for all GSD agents.",
            "## Agent Registry",
            "\n".join(table),
            "## Marker Rules",
            w.filler(4000),
        ]
    )
    w.write(f"{core}/references/agent-contracts.md", contracts + "\n")

    # References; a few carry an agent's fenced return template (emission via include).
    carried = {ref: i for i, ref in template_refs.items()}
    ref_mean = (profile.reference_bytes * factor - len(contracts)) / max(n_refs, 1)
    for rel in refs:
        parts = [f"# {Path(rel).stem.title()}", w.filler(w.size(ref_mean))]
        if rel in carried:
            a = agents[carried[rel]]
            extra = f"{_tag(carried[rel]).upper()} OUTLINE COMPLETE"
            parts.append(f"## Return Template\n\n```markdown\n## {a.markers[0]}\n\n## {extra}\n```")
        w.write(rel, "\n\n".join(parts) + "\n")

    # Agents: frontmatter, role, includes, sections, example fences, return template.
    agent_mean = profile.agent_bytes / max(profile.agents, 1)
    headings_per_agent = profile.fenced_headings / max(profile.agents, 1)
    include_rate = profile.includes / max(profile.agents, 1)
    for i, a in enumerate(agents):
        tools = TOOLS if a.kind != "structured-return" else "Read, Bash, Grep, Glob"
        head = [
            "---",
            f"name: {a.name}",
            f"description: {w.sentence()} Spawned by /gsd:{_tag(i)} orchestrator.",
            f"tools: {tools}",
            f"color: {rng.choice(('green', 'blue', 'yellow', 'purple'))}",
            "---",
            "",
            "<role>",
            f"You are a GSD {a.name[4:]}. {w.sentence()}",
            "",
            "Read every file listed in the `<required_reading>` block before anything else.",
            "</role>",
        ]
        includes = [refs[(i * 13 + k) % len(refs)] for k in range(int(include_rate))]
        if rng.random() < include_rate % 1:
            includes.append(refs[(i * 13 + 7) % len(refs)])
        if i in template_refs:
            includes.append(template_refs[i])
        if i % 43 == 21:
            includes.append(f"{core}/references/missing-{_tag(i)}.md")  # unresolved
        body = [f"@~/.claude/{rel}" for rel in includes]
        size = w.size(agent_mean)
        fences: list[str] = []
        budget = max(0, round(headings_per_agent * rng.uniform(0.3, 1.7)) - len(a.markers))
        while budget > 0:
            n = min(budget, rng.randint(2, 5))
            inner = "\n\n".join(
                f"{'##' if k == 0 else '###'} {rng.choice(TEMPLATE_HEADINGS)}\n\n{{details}}"
                for k in range(n)
            )
            fences.append(f"```markdown\n{inner}\n```")
            budget -= n
        if a.markers and i not in template_refs:
            shown = list(a.markers)
            if i % 53 == 26:
                shown[0] = shown[0].title()  # case differs from the declared marker
            template = "\n\n".join(f"## {m}\n\n**Phase:** {{phase}}" for m in shown)
            fences.append(
                f"<structured_returns>\n\n```markdown\n{template}\n```\n\n</structured_returns>"
            )
        used = sum(map(len, head)) + sum(map(len, body)) + sum(map(len, fences))
        chunk = max(100, (size - used) // (len(fences) + 1) - 150)
        for fence in fences:
            body.append(w.filler(chunk))
            body.append(fence)
        body.append(w.filler(chunk))
        w.write(f"agents/{a.name}.md", "\n".join(head) + "\n\n" + "\n\n".join(body) + "\n")

    # Workflows and commands: filler around the dispatch sections; some legacy read tags.
    legacy_rate = profile.legacy_files / max(profile.workflows + profile.commands, 1)
    flow_mean = profile.workflow_bytes / max(profile.workflows, 1)
    cmd_mean = profile.command_bytes / max(profile.commands, 1)
    for n, rel in enumerate(flows + cmds):
        is_cmd = rel.startswith("commands/")
        size = w.size(cmd_mean if is_cmd else flow_mean)
        parts: list[str] = []
        if is_cmd:
            parts.append(
                "---\n"
                f"name: gsd:{Path(rel).stem}\n"
                f"description: {w.sentence()}\n"
                'argument-hint: "[phase] [--auto]"\n'
                "allowed-tools:\n  - Read\n  - Write\n  - Bash\n  - Task\n---"
            )
            parts.append(f"<objective>\n{w.sentence()}\n</objective>")
            parts.append(
                f"<execution_context>\n@~/.claude/{flows[(n * 11) % len(flows)]}\n"
                "</execution_context>"
            )
        else:
            parts.append(f"<purpose>\n{w.sentence()}\n</purpose>")
            parts.append(
                "<required_reading>\n"
                + "\n".join(f"@~/.claude/{rng.choice(refs)}" for _ in range(rng.randint(1, 3)))
                + "\n</required_reading>"
            )
        if rng.random() < legacy_rate:
            parts.append("<files_to_read>\n- {state_path}\n- {roadmap_path}\n</files_to_read>")
        parts.append("<process>")
        sections = flow_sections[rel]
        used = sum(len(s) for s in sections) + sum(len(s) for s in parts)
        chunk = max(100, (size - used) // (len(sections) + 1) - 150)
        for section in sections:
            parts.append(w.filler(chunk))
            parts.append(section)
        parts.append(w.filler(chunk))
        parts.append("</process>")
        w.write(rel, "\n\n".join(parts) + "\n")

    w.write("LICENSE", "MIT License\n\n" + w.filler(800) + "\n")
    return w.files, w.bytes


SKILLS_TARGET_S = 1.0  # the skills-heavy tree, median wall time (issue 3)


def generate_skills(root: Path, skills: int, agents: int, seed: int) -> tuple[int, int]:
    """A Gaia-style tree: `skills` skills (SKILL.md of about 60 lines, a reference.md with
    headings that links resolve to), `agents` agents injecting 8 skills each, and a
    skills/README.md with the assignment matrix and the directory tree. A few drifts."""
    rng = random.Random(seed)
    names = [f"skill-{i:04d}" for i in range(skills)]
    for i, name in enumerate(names):
        folder = root / "skills" / name
        folder.mkdir(parents=True)
        steps = "\n".join(
            f"{k + 1}. Step {k + 1} of {name}: check the inputs, then act (see reference.md)."
            for k in range(50)
        )
        key = "name" if i % 97 else "nmae"  # a misspelt key now and then: DC506
        (folder / "SKILL.md").write_text(
            f"---\n{key}: {name}\ndescription: Use when working on {name}.\n---\n\n"
            f"# {name}\n\n{steps}\n\nDetails: [the checklist](reference.md#checklist).\n",
            encoding="utf-8",
        )
        (folder / "reference.md").write_text(
            f"# {name} reference\n\n## Checklist\n\n" + "- a check\n" * 40, encoding="utf-8"
        )
    rows = []
    for a in range(agents):
        chosen = ["agent-protocol", "security-tiers", *rng.sample(names, 6)]
        listed = "".join(f"  - {n}\n" for n in chosen)
        (root / "agents").mkdir(exist_ok=True)
        (root / "agents" / f"agent-{a:03d}.md").write_text(
            f"---\nname: agent-{a:03d}\ndescription: Agent {a}.\ntools: Read, Write\n"
            f"skills:\n{listed}---\n\nDo the work the skills describe.\n",
            encoding="utf-8",
        )
        shown = chosen if a % 10 else chosen[:-1]  # a row that forgot a skill: DC801
        rows.append(f"| agent-{a:03d} | {', '.join(shown)} | |")
    for base in ("agent-protocol", "security-tiers"):
        (root / "skills" / base).mkdir()
        (root / "skills" / base / "SKILL.md").write_text(
            f"---\nname: {base}\ndescription: Use always.\n---\n\n# {base}\n", encoding="utf-8"
        )
    tree = "\n".join(
        f"├── {n}/\n│   └── reference.md"
        for n in sorted([*names, "agent-protocol", "security-tiers"])
    )
    (root / "skills" / "README.md").write_text(
        f"# Skills\n\n```\nskills/\n{tree}\n```\n\n**Skill assignment matrix:**\n\n"
        "| Agent | Core Skills | Domain Skills |\n|---|---|---|\n" + "\n".join(rows) + "\n",
        encoding="utf-8",
    )
    return tree_size(root)

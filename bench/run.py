#!/usr/bin/env python3
"""Cold-run benchmark of the installed `drift-check` console script.

Every measured run is a fresh process (wall time with `time.perf_counter` around the
process, peak memory from that process's own `rusage`). Trees: the real corpus in
`../shared/corpora/gsd-build-bdcaab2` (skipped with a note when absent) and synthetic GSD
trees 1x, 10x and 100x its size, generated (seeded, deterministic) into a temporary
directory outside the project. The results table is written into `docs/performance.md`
between `<!-- bench:begin -->` and `<!-- bench:end -->`.

    python bench/run.py --exe /path/to/venv/bin/drift-check [--runs 21] [--check]

Plain standard library; see bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

PROJECT = Path(__file__).resolve().parent.parent
CORPUS = PROJECT.parent / "shared" / "corpora" / "gsd-build-bdcaab2"
DOC = PROJECT / "docs" / "performance.md"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"

TARGET_MEDIAN_S = 0.12  # corpus cold run, median wall time
TARGET_RSS_MB = 60.0  # corpus cold run, peak resident memory
LINEAR_SLACK = 1.2  # 100x may take at most 100 x (1x time) x this

# ---------------------------------------------------------------------------------------
# Measuring one process
# ---------------------------------------------------------------------------------------


class Sample(NamedTuple):
    wall: float  # seconds, perf_counter around start and reaping of the process
    cpu: float  # user + system seconds of that process
    rss_mb: float  # that process's own peak resident set size
    code: int
    timed_out: bool


class Stats(NamedTuple):
    runs: int
    median: float
    low: float
    high: float
    cpu: float  # median
    rss_mb: float  # median of the per-run peaks
    rss_max_mb: float  # highest per-run peak
    timed_out: bool  # the first run was killed at the timeout; the numbers are lower bounds


class Job(NamedTuple):
    label: str
    cmd: list[str]
    cwd: Path
    ok_codes: tuple[int, ...] = (0,)
    keep_output: bool = False  # keep every run's standard output, not only the first


class Measured(NamedTuple):
    stats: Stats
    outputs: list[str]  # the first run's standard output, or every timed run's


def _rss_mb(maxrss: int) -> float:
    # ru_maxrss is in kilobytes on Linux and the BSDs, in bytes on macOS.
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


# The process that starts every measured run: a lean interpreter (`-I -S`, builtin modules
# only) that forks, execs the command, reaps it with `os.wait4` and reports that child's
# own rusage. Why not spawn from this script? A child's ru_maxrss is never below the RSS of
# the memory image it was forked from (the kernel keeps the pre-exec high-water mark), so
# children of this script would all show at least this script's RSS (16 MB and growing,
# while a bare interpreter needs 9 MB); RUSAGE_CHILDREN is worse still, a maximum over all
# children so far. The helper's own image is about 7 MB, below anything measured here.
# A run is stopped by RLIMIT_CPU at the timeout (the runs are CPU-bound).
_HELPER = """
import os, resource, sys, time
for line in sys.stdin:
    cwd, limit, out, *argv = line.rstrip("\\n").split("\\0")
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            null = os.open(os.devnull, os.O_RDWR)
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC) if out else null
            os.dup2(null, 0)
            os.dup2(fd, 1)
            os.dup2(null, 2)
            cap = int(float(limit)) + 1
            resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 5))
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    sys.stdout.write(f"{wall!r} {ru.ru_utime + ru.ru_stime!r} {ru.ru_maxrss} {status}\\n")
    sys.stdout.flush()
"""


class Runner:
    """Cold runs through the helper process (see `_HELPER`)."""

    def __init__(self, python: str) -> None:
        self.proc = subprocess.Popen(
            [python, "-I", "-S", "-c", _HELPER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run(self, cmd: Sequence[str], cwd: Path, timeout: float, out: str = "") -> Sample:
        """One fresh process of `cmd` in `cwd`, its standard output to the file `out`
        (or /dev/null): wall time around fork to reaping, and its own rusage."""
        fields = [str(cwd), str(timeout), out, *cmd]
        if any(c in f for f in fields for c in "\0\n"):
            raise SystemExit(f"bench: cannot pass {fields!r} to the helper")
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("\0".join(fields) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline().split()
        if len(reply) != 4:
            raise SystemExit("bench: the measuring helper process died")
        wall, cpu, maxrss, status = float(reply[0]), float(reply[1]), int(reply[2]), int(reply[3])
        code = os.waitstatus_to_exitcode(status)
        timed_out = code in (-signal.SIGXCPU, -signal.SIGKILL)
        return Sample(wall, cpu, _rss_mb(maxrss), code, timed_out)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def _stats(samples: list[Sample]) -> Stats:
    walls = [s.wall for s in samples]
    rss = [s.rss_mb for s in samples]
    return Stats(
        runs=len(samples),
        median=statistics.median(walls),
        low=min(walls),
        high=max(walls),
        cpu=statistics.median(s.cpu for s in samples),
        rss_mb=statistics.median(rss),
        rss_max_mb=max(rss),
        timed_out=any(s.timed_out for s in samples),
    )


def measure_all(jobs: list[Job], opts: argparse.Namespace, runner: Runner) -> list[Measured]:
    """Cold runs of every job, interleaved: warm-up runs first, then rounds that run each
    job once, so that a drift in the machine's speed (a shared VM's is large over
    minutes) touches every row alike.

    Each job gets up to `opts.runs` timed runs, fewer if they would not fit in
    `opts.budget` seconds (an odd number, for a plain median); a job whose first run alone
    exceeds the budget is reported from that one cold run. A run that reaches
    `opts.timeout` CPU seconds is stopped and reported as a lower bound.
    """
    firsts: list[Sample] = []
    outputs: list[list[str]] = []
    counts: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stdout")

        def once(k: int, keep: bool) -> Sample:
            job = jobs[k]
            sample = runner.run(job.cmd, job.cwd, opts.timeout, out if keep else "")
            if sample.code not in job.ok_codes and not sample.timed_out:
                raise SystemExit(f"bench: {job.label}: `{' '.join(job.cmd)}` exited {sample.code}")
            if keep:
                with open(out, encoding="utf-8", errors="replace") as fh:
                    outputs[k].append(fh.read())
            return sample

        for k, job in enumerate(jobs):
            print(f"  {job.label}: first run", end="", flush=True)
            outputs.append([])
            first = once(k, True)
            firsts.append(first)
            slow = first.wall >= opts.budget or first.timed_out
            n = 0 if slow else max(1, min(opts.runs, int(opts.budget / max(first.wall, 1e-9))))
            counts.append(n if n % 2 or n == opts.runs or n == 0 else n - 1)
            print(f" {first.wall:.3f} s; {counts[-1] or 'no more'} timed runs", flush=True)
            if job.keep_output and counts[-1]:
                outputs[-1].clear()  # a warm-up run, not one of the timed runs
        for _ in range(opts.warmup - 1):
            for k, n in enumerate(counts):
                if n:
                    once(k, False)
        samples: list[list[Sample]] = [
            [] if n else [f] for n, f in zip(counts, firsts, strict=True)
        ]
        for i in range(max(counts, default=0)):
            for k, job in enumerate(jobs):
                if i < counts[k]:
                    samples[k].append(once(k, job.keep_output))
    results = []
    for job, runs, kept in zip(jobs, samples, outputs, strict=True):
        stats = _stats(runs)
        print(
            f"  {job.label:<34} n={stats.runs:<3} median {stats.median:.3f} s"
            f"  min {stats.low:.3f}  max {stats.high:.3f}  cpu {stats.cpu:.3f} s"
            f"  rss {stats.rss_mb:.1f} MB" + ("  TIMED OUT" if stats.timed_out else ""),
            flush=True,
        )
        results.append(Measured(stats, kept))
    return results


_FOUND = re.compile(r"^Found (\d+) findings?\.$", re.M)


def findings_in(output: str) -> int | None:
    """The count from the text report's last line (`Found N findings.` or a clean pass)."""
    counts = _FOUND.findall(output)
    if counts:
        return int(counts[-1])
    return 0 if "All checks passed!" in output else None


# In-process phases of one cold run, each run in a fresh interpreter. The rule loop is
# `drift_check.engine.run` with the scan split out, so that the two can be timed apart.
_PHASES = """
import time
t = [time.perf_counter()]
import click
t.append(time.perf_counter())
import drift_check.cli
t.append(time.perf_counter())
try:
    import os
    from drift_check.config import load_config
    from drift_check.engine import Report
    from drift_check.reporters import render
    from drift_check.rules import selected
    from drift_check.scanners import build_facts
    t.append(time.perf_counter())
    config = load_config(".", None)
    t.append(time.perf_counter())
    facts = build_facts(config)
    t.append(time.perf_counter())
    rules = selected(config.select, config.ignore)
    found = set()
    for r in rules:
        found.update(r.findings(facts, config.severities.get(r.code)))
    t.append(time.perf_counter())
    report = Report(config, facts, tuple(rules), tuple(sorted(found)))
    text = render(report, "text", color=False, cwd=os.getcwd())
    t.append(time.perf_counter())
    print(" ".join(repr(b - a) for a, b in zip(t, t[1:])), len(found))
except Exception as exc:  # the engine's internals moved: say so, do not stop the benchmark
    print("error:", type(exc).__name__, exc)
"""
PHASE_NAMES = (
    "`import click` (with its own imports: inspect, typing, enum, ...)",
    "`import drift_check.cli` beyond click",
    "lazy imports on the check path (config, engine, scanners, facts, rules, reporters)",
    "`load_config`: layout detection, pack loading",
    "`build_facts`: walk, read and scan the files",
    "rules over the facts",
    "text report",
)


def phase_medians(outputs: list[str]) -> list[tuple[str, float]] | str:
    """Median seconds per phase from the phase script's outputs (or why there are none)."""
    per: list[list[float]] = [[] for _ in PHASE_NAMES]
    for text in outputs:
        fields = text.split()
        if len(fields) != len(PHASE_NAMES) + 1:
            return f"the phase script failed ({text.strip()[:200]}); the engine API may have moved"
        for i, value in enumerate(fields[:-1]):
            per[i].append(float(value))
    if not outputs:
        return "no timed runs"
    return [(name, statistics.median(v)) for name, v in zip(PHASE_NAMES, per, strict=True)]


# ---------------------------------------------------------------------------------------
# The shape of a GSD tree: measured from the corpus, or built-in constants
# ---------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------
# A synthetic GSD tree
# ---------------------------------------------------------------------------------------

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


class Writer:
    """Deterministic filler and file writing, with a count of files and bytes."""

    def __init__(self, root: Path, rng: random.Random) -> None:
        self.root = root
        self.rng = rng
        self.files = 0
        self.bytes = 0
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

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        path.write_bytes(data)
        self.files += 1
        self.bytes += len(data)


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


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------


class Row(NamedTuple):
    label: str
    files: int | None
    mb: float | None
    findings: int | None
    stats: Stats


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
        key = "name" if i % 97 else "nmae"  # a misspelt key now and then: DC502/DC506
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


def interpreter_of(exe: str) -> list[str]:
    """The interpreter a console script runs under (its `#!` line), else this one."""
    try:
        with open(exe, "rb") as fh:
            first = fh.readline(512).decode("utf-8", "replace").strip()
    except OSError:
        return [sys.executable]
    if first.startswith("#!"):
        return first[2:].split()
    return [sys.executable]


def project_commit() -> str:
    """The project's git commit, marked when the work tree has changes (best effort)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(PROJECT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(PROJECT), "status", "--porcelain", "--", "drift_check", "rules"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown commit"
    return f"commit {head}" + (" with local changes" if dirty else "")


def install_kind(interp: list[str]) -> str:
    """Which code the console script runs: an installed copy (and whether it matches the
    work tree's `drift_check/`) or the work tree itself (an editable install)."""
    proc = subprocess.run(
        [*interp, "-I", "-c", "import drift_check; print(drift_check.__file__)"],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        return "install location unknown"
    installed = Path(proc.stdout.strip()).resolve().parent
    if installed.is_relative_to(PROJECT):
        return "an editable install: the work tree, not what users get"
    ours = PROJECT / "drift_check"
    mine = {p.relative_to(ours) for p in ours.rglob("*.py")}
    theirs = {p.relative_to(installed) for p in installed.rglob("*.py")}
    same = mine == theirs and all(
        (ours / rel).read_bytes() == (installed / rel).read_bytes() for rel in mine
    )
    if same:
        return (
            f"an installed copy, as users get it, identical to the work tree's {project_commit()}"
        )
    return (
        "an installed copy that DIFFERS from the work tree's drift_check/"
        f" ({project_commit()}): reinstall before trusting these numbers"
    )


def machine() -> str:
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            model = next(
                (ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), ""
            )
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    cpu = f"{usable} CPU{'s' if usable != 1 else ''}" + (f" ({model})" if model else "")
    return f"{platform.system()} {platform.machine()}, {cpu}"


def _f(value: float | None, fmt: str) -> str:
    return "" if value is None else format(value, fmt)


def render(rows: list[Row], meta: dict[str, str], notes: list[str], verdicts: list[str]) -> str:
    out = [
        f"Measured {meta['date']} on {meta['machine']}; Python {meta['python']}"
        f" (`{meta['interp']}`); {meta['version']}."
        f" Up to {meta['runs']} timed runs per row"
        f" after {meta['warmup']} warm-up runs (fewer where one run is slow: see `runs`)."
        " Each run is a fresh process of the installed console script, started in the"
        " tree's root (`drift-check .`, output to /dev/null, OS file cache warm). Wall"
        " seconds: median, min, max; CPU seconds (user + system) and peak RSS: median of"
        " each run's own value.",
        "",
        "| tree | files | MB | findings | runs | median s | min s | max s | CPU s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        s = r.stats
        more = ">" if s.timed_out else ""
        out.append(
            f"| {r.label} | {'' if r.files is None else r.files} | {_f(r.mb, '.2f')}"
            f" | {'' if r.findings is None else r.findings} | {s.runs} | {more}{s.median:.3f}"
            f" | {more}{s.low:.3f} | {more}{s.high:.3f} | {s.cpu:.3f} | {s.rss_mb:.1f} |"
        )
    out.append("")
    out.extend(f"- {n}" for n in notes)
    if verdicts:
        out.append("")
        out.append("Targets (`--check` exits 1 when one is missed):")
        out.append("")
        out.extend(f"- {v}" for v in verdicts)
    return "\n".join(out)


def render_phases(
    label: str, phases: list[tuple[str, float]] | str, start: float, total: float, script: float
) -> str:
    """Where the time of one cold run goes, phase by phase (medians)."""
    head = (
        f"Where the time goes on {label}: a script that does what the console script does,"
        " timing each phase in process (median of fresh processes, interleaved with the"
        " rows above"
    )
    if isinstance(phases, str):
        return f"{head}): {phases}."
    rest = total - start - sum(s for _, s in phases)
    out = [
        f"{head}; interpreter start-up is the `python -c pass` row):",
        "",
        "| phase | ms | share |",
        "|---|---:|---:|",
        f"| interpreter start-up (`python -c pass`) | {start * 1000:.1f} | {start / total:.0%} |",
    ]
    out.extend(f"| {name} | {s * 1000:.1f} | {s / total:.0%} |" for name, s in phases)
    out.append(
        f"| the rest: interpreter exit, noise (run median minus the phases)"
        f" | {rest * 1000:.1f} | {rest / total:.0%} |"
    )
    out.append(
        f"| **one cold run, median** (the console script: {script * 1000:.1f})"
        f" | **{total * 1000:.1f}** | 100% |"
    )
    return "\n".join(out)


DOC_SKELETON = f"# Performance\n\n## Results\n\n{BEGIN}\n{END}\n"


def write_doc(doc: Path, block: str) -> None:
    text = doc.read_text(encoding="utf-8") if doc.exists() else DOC_SKELETON
    if BEGIN not in text or END not in text:
        text = text.rstrip("\n") + f"\n\n## Results\n\n{BEGIN}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(f"{head}{BEGIN}\n{block}\n{END}{tail}", encoding="utf-8")


def _scales(value: str) -> list[int]:
    try:
        scales = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("a comma list of integers, e.g. 1,10,100") from None
    if not scales or any(s < 1 for s in scales):
        raise argparse.ArgumentTypeError("scales must be positive integers")
    return scales


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--exe", default=shutil.which("drift-check"), help="console script to time")
    p.add_argument("--runs", type=int, default=21, help="timed runs per tree (default 21)")
    p.add_argument(
        "--warmup", type=int, default=2, help="untimed runs first, at least 1 (default 2)"
    )
    p.add_argument(
        "--budget",
        type=float,
        default=120.0,
        help="seconds per tree: a slow tree gets fewer runs (default 120)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=1800.0,
        help="stop a run after this many CPU seconds, reported as a lower bound (default 1800)",
    )
    p.add_argument("--scales", type=_scales, default=[1, 10, 100], help="default 1,10,100")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    p.add_argument("--corpus", type=Path, default=CORPUS, help="the real tree to time")
    p.add_argument("--doc", type=Path, default=DOC, help="where the table goes")
    p.add_argument(
        "--baseline",
        metavar="EXE",
        help="another drift-check console script (say, an install of an older commit) to"
        " time on the corpus in the same interleaved rounds, for an A/B comparison",
    )
    p.add_argument("--no-write", action="store_true", help="print only, leave the doc alone")
    p.add_argument("--keep", action="store_true", help="keep the generated trees")
    p.add_argument("--check", action="store_true", help="exit 1 if a target is missed")
    args = p.parse_args(argv)
    if not args.exe:
        p.error("no `drift-check` on PATH; install the project or pass --exe")
    if args.runs < 1:
        p.error("--runs must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    runner = Runner(sys.executable)
    try:
        return bench(args, runner)
    finally:
        runner.close()


def bench(args: argparse.Namespace, runner: Runner) -> int:
    exe = str(Path(args.exe).resolve()) if os.sep in args.exe else args.exe
    interp = interpreter_of(exe)
    py = subprocess.run(
        [*interp, "-c", "import sys; print(sys.version.split()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    version = subprocess.run(
        [exe, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    install = install_kind(interp)  # before measuring: the work tree may move meanwhile
    print(f"bench: {exe} ({version}, Python {py}); {install}; {machine()}", flush=True)

    tmp = Path(tempfile.mkdtemp(prefix="drift-check-bench-"))
    if tmp.resolve().is_relative_to(PROJECT):
        raise SystemExit(f"bench: temporary directory {tmp} is inside the project")
    try:
        return _bench(args, runner, exe, interp, py, f"{version}, {install}", tmp)
    finally:
        if args.keep:
            print(f"bench: generated trees kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def _bench(
    args: argparse.Namespace,
    runner: Runner,
    exe: str,
    interp: list[str],
    py: str,
    version: str,
    tmp: Path,
) -> int:
    notes: list[str] = []
    empty = tmp / "empty"
    empty.mkdir()
    jobs = [
        Job("`python -c pass`", [*interp, "-c", "pass"], empty),
        Job('`python -c "import click"`', [*interp, "-c", "import click"], empty),
        Job("`drift-check --version`", [exe, "--version"], empty),
    ]
    trees: dict[str, tuple[str, Path, int, int]] = {}  # key -> label, root, files, bytes
    profile = BUILTIN
    corpus = args.corpus.resolve()
    if corpus.is_dir():
        profile = measure_profile(corpus) or BUILTIN
        files, size = tree_size(corpus)
        trees["corpus"] = (f"corpus `{corpus.name}`", corpus, files, size)
    else:
        notes.append(f"Corpus not found at `{args.corpus}`: skipped; the 1x tree stands in.")
        print(f"bench: corpus not found at {args.corpus}: skipped", flush=True)
    for factor in args.scales:
        start = time.perf_counter()
        files, size = generate(tmp / f"x{factor}", profile, factor, args.seed)
        made = time.perf_counter() - start
        print(f"bench: generated {factor}x: {files} files, {size / 1e6:.1f} MB in {made:.1f} s")
        trees[f"{factor}x"] = (f"generated {factor}x", tmp / f"x{factor}", files, size)
    files, size = generate_skills(tmp / "skills", 1000, 100, args.seed)
    trees["skills"] = (
        "generated skills-heavy (1,000 skills, 100 agents)",
        tmp / "skills",
        files,
        size,
    )
    notes.append(
        f"Generated trees: seed {args.seed}, shape {profile.source}. Per 1x: {profile.agents}"
        f" agents, {profile.rows} registry rows (5 columns here), {profile.references}"
        f" references, {profile.workflows} workflows, {profile.commands} commands,"
        f" {profile.fenced_headings} fenced headings in agents, {profile.dispatches}"
        f" dispatches, {profile.quotes} quoted markers. Scaling multiplies the files (agents,"
        " rows, markers, workflows), not their size."
    )
    jobs.extend(Job(label, [exe, "."], root, (0, 1)) for label, root, _, _ in trees.values())
    phase_key = "corpus" if "corpus" in trees else f"{min(args.scales)}x"
    if args.baseline:
        label, root, files, size = trees[phase_key]
        baseline = str(Path(args.baseline).resolve())
        trees["baseline"] = (f"{label}, baseline `{baseline}`", root, files, size)
        jobs.append(Job(trees["baseline"][0], [baseline, "."], root, (0, 1)))
    phase_script = tmp / "phases.py"
    phase_script.write_text(_PHASES, encoding="utf-8")
    phase_job = Job("phase timings", [*interp, str(phase_script)], trees[phase_key][1])
    jobs.append(phase_job._replace(keep_output=True))

    results = dict(zip((j.label for j in jobs), measure_all(jobs, args, runner), strict=True))
    rows = [Row(j.label, None, None, None, results[j.label].stats) for j in jobs[:3]]
    by_key: dict[str, Row] = {}
    for key, (label, _, files, size) in trees.items():
        got = results[label]
        by_key[key] = Row(label, files, size / 1e6, findings_in(got.outputs[0]), got.stats)
        rows.append(by_key[key])
    floor = results["`drift-check --version`"].stats

    failures: list[str] = []
    verdicts: list[str] = []

    def verdict(ok: bool, text: str) -> None:
        verdicts.append(f"{'met' if ok else 'MISSED'}: {text}")
        if not ok:
            failures.append(text)

    skills_row = by_key.get("skills")
    if skills_row is not None:
        verdict(
            skills_row.stats.median <= SKILLS_TARGET_S and not skills_row.stats.timed_out,
            f"{skills_row.label}: median {skills_row.stats.median:.3f} s <= {SKILLS_TARGET_S} s",
        )
    target = by_key.get(phase_key)
    if target is not None:
        s = target.stats
        verdict(
            s.median <= TARGET_MEDIAN_S and not s.timed_out,
            f"{target.label}: median {s.median:.3f} s <= {TARGET_MEDIAN_S} s",
        )
        verdict(
            s.rss_max_mb <= TARGET_RSS_MB,
            f"{target.label}: peak RSS {s.rss_max_mb:.1f} MB (highest run)"
            f" <= {TARGET_RSS_MB:.0f} MB",
        )
    scales = sorted(args.scales)
    if len(scales) > 1:
        lo, hi = scales[0], scales[-1]
        small, big = by_key[f"{lo}x"], by_key[f"{hi}x"]
        assert small.mb and big.mb
        per = [r.stats.median / r.mb * 1000 for r in (small, big)]
        net = [max(r.stats.median - floor.median, 0.0) / r.mb * 1000 for r in (small, big)]
        notes.append(
            f"Linearity: {per[0]:.1f} ms/MB at {lo}x, {per[1]:.1f} ms/MB at {hi}x"
            f" (x{per[1] / per[0]:.1f}); net of the `--version` start-up floor,"
            f" {net[0]:.1f} and {net[1]:.1f} ms/MB"
            + (f" (x{net[1] / net[0]:.1f})." if net[0] else ".")
        )
        limit = hi / lo * small.stats.median * LINEAR_SLACK
        verdict(
            big.stats.median <= limit and not big.stats.timed_out,
            f"{hi}x median {big.stats.median:.2f} s{' (timed out)' if big.stats.timed_out else ''}"
            f" <= {hi // lo if hi % lo == 0 else hi / lo} x {lo}x median x {LINEAR_SLACK}"
            f" = {limit:.2f} s (actual ratio {big.stats.median / small.stats.median:.0f})",
        )

    meta = {
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "python": py,
        "interp": " ".join(interp),
        "version": version,
        "runs": str(args.runs),
        "warmup": str(args.warmup),
    }
    block = render(rows, meta, notes, verdicts)
    phases = results[phase_job.label]
    block += "\n\n" + render_phases(
        by_key[phase_key].label,
        phase_medians(phases.outputs),
        rows[0].stats.median,
        phases.stats.median,
        by_key[phase_key].stats.median,
    )
    print()
    print(block)
    if not args.no_write:
        write_doc(args.doc, block)
        print(f"\nbench: wrote the table into {args.doc}")
    if args.check and failures:
        print("\nbench: --check: " + "; ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Cold-run benchmark of the installed `drift-check` console script.

Every measured run is a fresh process (wall time with `time.perf_counter` around the
process, peak memory from that process's own `rusage`). Two suites, each written into
`docs/performance.md` between its own begin and end markers:

- `gsd` (the default): the real corpus `../shared/corpora/gsd-build-bdcaab2` (skipped with
  a note when absent), synthetic GSD trees 1x, 10x and 100x its size, and a skills-heavy
  tree;
- `marketplace`: generated Claude Code plugin marketplaces of 25, 50, 100, 200 and 400
  plugins (10 agents, 10 skills and 10 commands each), checked as a user would
  (`drift-check TREE -q --format json`);
- `python`: a generated Gaia-style tree with 118 Python hooks whose strings consume the
  agents' markers, the same tree without its registry (nothing reads the hooks), and the
  corpus; with `--baseline`, both installs on each tree and their JSON reports compared;
- `skills`: skills and agents trees (the real corpora, generated skills trees of 1,000 and
  3,000 skills, the 200-plugin marketplace), each beside agnix, a Rust linter of the same
  files, when it is installed (`pip install agnix`).

    python bench/run.py --exe /path/to/venv/bin/drift-check [--runs 21] [--check]
    python bench/run.py --suite marketplace --exe /path/to/venv/bin/drift-check
    python bench/run.py --suite python --exe NEW/bin/drift-check --baseline OLD/bin/drift-check
    python bench/run.py --suite skills --exe /path/to/venv/bin/drift-check

Generated trees go to a temporary directory outside the project. Plain standard library;
see bench/README.md. Modules: `measure` (timing processes and phases), `synth` (GSD and
skills trees), `marketplace` (plugin marketplaces), `report` (tables and the doc).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from contracts import generate_contracts
from marketplace import Counts, generate_marketplace
from measure import (
    Job,
    Measured,
    Runner,
    Stats,
    findings_in,
    measure_all,
    phase_medians,
    phase_script,
)
from pyhooks import generate_hooks_tree
from report import (
    PROJECT,
    Row,
    SkillsRow,
    SkillsTree,
    install_kind,
    interpreter_of,
    machine,
    render,
    render_marketplace,
    render_phase_columns,
    render_phases,
    render_skills,
    render_structured,
    write_doc,
)
from synth import BUILTIN, generate, generate_skills, measure_profile, tree_size

CORPORA = PROJECT.parent / "shared" / "corpora"
CORPUS = CORPORA / "gsd-build-bdcaab2"
DOC = PROJECT / "docs" / "performance.md"

TARGET_MEDIAN_S = 0.12  # corpus cold run, median wall time
TARGET_RSS_MB = 60.0  # corpus cold run, peak resident memory
LINEAR_SLACK = 1.2  # 100x may take at most 100 x (1x time) x this
SKILLS_TARGET_S = 1.0  # the skills-heavy tree, median wall time (issue 3)
MARKETPLACE_TARGET_PLUGINS = 200
MARKETPLACE_TARGET_S = 1.0  # 200 plugins, median wall time (issue 10)
STRUCTURED_TARGET_SKILLS = 500
STRUCTURED_TARGET_S = 1.0  # 500 skills, two schemas and ten blocks each, cold (issue 14)
AGNIX_RATIO = 2.0  # skills suite: drift-check's median at most this times agnix's (issue 13)
SKILLS_3000_TARGET_S = 0.6  # skills suite: the 3,000-skills tree, median wall time (issue 13)


class Context(NamedTuple):
    """What is being timed, found once before measuring."""

    exe: str
    interp: list[str]
    python: str  # its version
    version: str  # `drift-check --version`, and which install it is


def _counts(value: str) -> list[int]:
    try:
        counts = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("a comma list of integers, e.g. 1,10,100") from None
    if not counts or any(c < 1 for c in counts):
        raise argparse.ArgumentTypeError("a comma list of positive integers")
    return counts


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--suite",
        choices=("gsd", "marketplace", "structured", "python", "skills"),
        default="gsd",
        help="which trees to time (default gsd)",
    )
    p.add_argument(
        "--agnix",
        help="skills: the agnix binary timed beside drift-check (default: the one beside"
        " --exe, else on PATH; without one its columns are left out)",
    )
    p.add_argument(
        "--skill-trees",
        type=_counts,
        default=[1000, 3000],
        help="skills: sizes of the generated skills trees (default 1000,3000)",
    )
    p.add_argument(
        "--corpora",
        type=Path,
        default=CORPORA,
        help="skills: the folder of real trees, each timed (default ../shared/corpora)",
    )
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
    p.add_argument(
        "--scales", type=_counts, default=[1, 10, 100], help="gsd: tree sizes (default 1,10,100)"
    )
    p.add_argument(
        "--plugins",
        type=_counts,
        default=[25, 50, 100, 200, 400],
        help="marketplace: numbers of plugins (default 25,50,100,200,400)",
    )
    p.add_argument(
        "--skills",
        type=_counts,
        default=[125, 250, 500],
        help="structured: numbers of skills with contracts (default 125,250,500)",
    )
    p.add_argument("--hooks", type=int, default=118, help="python: Python hook files (default 118)")
    p.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    p.add_argument("--corpus", type=Path, default=CORPUS, help="gsd: the real tree to time")
    p.add_argument("--doc", type=Path, default=DOC, help="where the table goes")
    p.add_argument(
        "--baseline",
        metavar="EXE",
        help="another drift-check console script (say, an install of an older commit) to"
        " time on the corpus (gsd) or the target marketplace in the same interleaved rounds,"
        " for an A/B comparison",
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
    load = os.getloadavg()
    print(f"bench: load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}", flush=True)

    tmp = Path(tempfile.mkdtemp(prefix="drift-check-bench-"))
    if tmp.resolve().is_relative_to(PROJECT):
        raise SystemExit(f"bench: temporary directory {tmp} is inside the project")
    ctx = Context(exe, interp, py, f"{version}, {install}")
    suites = {
        "gsd": gsd_suite,
        "marketplace": marketplace_suite,
        "structured": structured_suite,
        "python": python_suite,
        "skills": skills_suite,
    }
    suite = suites[args.suite]
    try:
        return suite(args, runner, ctx, tmp)
    finally:
        if args.keep:
            print(f"bench: generated trees kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def floor_jobs(ctx: Context, empty: Path) -> list[Job]:
    """The start-up floor every run pays: the interpreter, click, and the console script."""
    empty.mkdir(exist_ok=True)
    return [
        Job("`python -c pass`", [*ctx.interp, "-c", "pass"], empty),
        Job('`python -c "import click"`', [*ctx.interp, "-c", "import click"], empty),
        Job("`drift-check --version`", [ctx.exe, "--version"], empty),
    ]


def metadata(args: argparse.Namespace, ctx: Context, loads: list[float]) -> dict[str, str]:
    return {
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "python": ctx.python,
        "interp": " ".join(ctx.interp),
        "version": ctx.version,
        "runs": str(args.runs),
        "warmup": str(args.warmup),
        "load": f"{min(loads):.2f} to {max(loads):.2f}",
    }


class Verdicts:
    """Targets met or missed, in order, for the doc and for `--check`."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.failures: list[str] = []

    def add(self, ok: bool, text: str) -> None:
        self.lines.append(f"{'met' if ok else 'MISSED'}: {text}")
        if not ok:
            self.failures.append(text)


def finish(args: argparse.Namespace, block: str, suite: str, verdicts: Verdicts) -> int:
    """Print the block, write it into the doc, and say whether the targets were met."""
    print()
    print(block)
    if not args.no_write:
        heading = {
            "gsd": "Results",
            "marketplace": "Results: plugin marketplaces",
            "structured": "Results: structured contracts",
            "python": "Results: Python hooks",
            "skills": "Results: skills and agents trees beside agnix",
        }[suite]
        write_doc(args.doc, block, suite, heading)
        print(f"\nbench: wrote the table into {args.doc}")
    if args.check and verdicts.failures:
        print("\nbench: --check: " + "; ".join(verdicts.failures), file=sys.stderr)
        return 1
    return 0


def measure_with_load(
    jobs: list[Job], args: argparse.Namespace, runner: Runner
) -> tuple[dict[str, Measured], list[float]]:
    """Every job measured; the one-minute load average before and after, as a record of
    how busy the machine was."""
    loads = [os.getloadavg()[0]]
    results = dict(zip((j.label for j in jobs), measure_all(jobs, args, runner), strict=True))
    loads.append(os.getloadavg()[0])
    return results, loads


def gsd_suite(args: argparse.Namespace, runner: Runner, ctx: Context, tmp: Path) -> int:
    notes: list[str] = []
    jobs = floor_jobs(ctx, tmp / "empty")
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
    jobs.extend(Job(label, [ctx.exe, "."], root, (0, 1)) for label, root, _, _ in trees.values())
    phase_key = "corpus" if "corpus" in trees else f"{min(args.scales)}x"
    if args.baseline:
        label, root, files, size = trees[phase_key]
        baseline = str(Path(args.baseline).resolve())
        trees["baseline"] = (f"{label}, baseline `{baseline}`", root, files, size)
        jobs.append(Job(trees["baseline"][0], [baseline, "."], root, (0, 1)))
    script = str(phase_script(tmp))
    phase_job = Job("phase timings", [*ctx.interp, script, "text"], trees[phase_key][1])
    jobs.append(phase_job._replace(keep_output=True))

    results, loads = measure_with_load(jobs, args, runner)
    rows = [Row(j.label, None, None, None, results[j.label].stats) for j in jobs[:3]]
    by_key: dict[str, Row] = {}
    for key, (label, _, files, size) in trees.items():
        got = results[label]
        by_key[key] = Row(label, files, size / 1e6, findings_in(got.outputs[0]), got.stats)
        rows.append(by_key[key])
    floor = results["`drift-check --version`"].stats

    verdicts = Verdicts()
    skills_row = by_key.get("skills")
    if skills_row is not None:
        verdicts.add(
            skills_row.stats.median <= SKILLS_TARGET_S and not skills_row.stats.timed_out,
            f"{skills_row.label}: median {skills_row.stats.median:.3f} s <= {SKILLS_TARGET_S} s",
        )
    target = by_key.get(phase_key)
    if target is not None:
        s = target.stats
        verdicts.add(
            s.median <= TARGET_MEDIAN_S and not s.timed_out,
            f"{target.label}: median {s.median:.3f} s <= {TARGET_MEDIAN_S} s",
        )
        verdicts.add(
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
        verdicts.add(
            big.stats.median <= limit and not big.stats.timed_out,
            f"{hi}x median {big.stats.median:.2f} s{' (timed out)' if big.stats.timed_out else ''}"
            f" <= {hi // lo if hi % lo == 0 else hi / lo} x {lo}x median x {LINEAR_SLACK}"
            f" = {limit:.2f} s (actual ratio {big.stats.median / small.stats.median:.0f})",
        )

    block = render(rows, metadata(args, ctx, loads), notes, verdicts.lines)
    phases = results[phase_job.label]
    block += "\n\n" + render_phases(
        by_key[phase_key].label,
        phase_medians(phases.outputs),
        rows[0].stats.median,
        phases.stats.median,
        by_key[phase_key].stats.median,
    )
    return finish(args, block, "gsd", verdicts)


COMPONENT_KEYS = (  # generator count -> key of the JSON summary's `components`
    ("plugins", "plugins"),
    ("agents", "agents"),
    ("skills", "skills"),
    ("commands", "commands"),
    ("hook_files", "hook_files"),
)


def discovered(output: str) -> tuple[dict[str, int], int | None]:
    """The component counts and the number of findings in a JSON report."""
    try:
        summary = json.loads(output)["summary"]
    except (ValueError, KeyError, TypeError):
        return {}, None
    return dict(summary.get("components", {})), summary.get("findings")


def missed_components(counts: Counts, found: dict[str, int]) -> list[str]:
    """Where discovery's counts differ from what was generated."""
    return [
        f"{key} {found.get(key)} of {getattr(counts, attr)}"
        for attr, key in COMPONENT_KEYS
        if found.get(key) != getattr(counts, attr)
    ]


def label(plugins: int) -> str:
    return f"{plugins} plugins"


def findings_at(rows: list[tuple[int, Counts, int | None, Stats, bool]], n: int) -> int | None:
    return next(findings for plugins, _, findings, _, _ in rows if plugins == n)


def marketplace_suite(args: argparse.Namespace, runner: Runner, ctx: Context, tmp: Path) -> int:
    jobs = floor_jobs(ctx, tmp / "empty")
    script = str(phase_script(tmp))
    trees: list[tuple[int, Counts, Path]] = []
    for n in sorted(set(args.plugins)):
        start = time.perf_counter()
        root = tmp / f"marketplace-{n}"
        counts = generate_marketplace(root, n, args.seed)
        made = time.perf_counter() - start
        print(
            f"bench: generated {n} plugins: {counts.files} files,"
            f" {counts.bytes / 1e6:.1f} MB in {made:.1f} s",
            flush=True,
        )
        trees.append((n, counts, root))
    for n, _, root in trees:
        cmd = [ctx.exe, str(root), "-q", "--format", "json"]
        jobs.append(Job(label(n), cmd, root, (0, 1)))
    target = next((t for t in trees if t[0] == MARKETPLACE_TARGET_PLUGINS), trees[-1])
    base_label = f"{label(target[0])}, baseline"
    for n, _, root in trees:
        jobs.append(Job(f"{label(n)}: phases", [*ctx.interp, script, "json"], root, (0,), True))
    if args.baseline:
        baseline = str(Path(args.baseline).resolve())
        cmd = [baseline, str(target[2]), "-q", "--format", "json"]
        jobs.append(Job(base_label, cmd, target[2], (0, 1)))
        phases_cmd = [*interpreter_of(baseline), script, "json"]
        jobs.append(Job(f"{base_label}: phases", phases_cmd, target[2], (0,), True))

    results, loads = measure_with_load(jobs, args, runner)
    floor = results["`drift-check --version`"].stats
    verdicts = Verdicts()
    notes: list[str] = []
    rows = []
    for n, counts, _ in trees:
        got = results[label(n)]
        found, findings = discovered(got.outputs[0])
        missed = missed_components(counts, found)
        if missed:
            notes.append(f"{label(n)}: discovery found {', '.join(missed)} generated.")
        rows.append((n, counts, findings, got.stats, not missed))
    verdicts.add(
        all(ok for *_, ok in rows),
        "discovery: at every size, the JSON summary counts every generated plugin, agent,"
        " skill, command and hook file",
    )
    n_t, _, _, s_t, _ = next(r for r in rows if r[0] == target[0])
    verdicts.add(
        s_t.median <= MARKETPLACE_TARGET_S and not s_t.timed_out,
        f"{label(n_t)}: median {s_t.median:.3f} s <= {MARKETPLACE_TARGET_S} s",
    )
    if len(rows) > 1:
        (lo, _, _, s_lo, _), (hi, _, _, s_hi, _) = rows[0], rows[-1]
        net_lo = max(s_lo.median - floor.median, 0.0) / lo
        net_hi = max(s_hi.median - floor.median, 0.0) / hi
        verdicts.add(
            net_hi <= net_lo * LINEAR_SLACK,
            f"linear: time per plugin net of the `--version` floor at {hi} plugins,"
            f" {net_hi * 1000:.2f} ms, <= {LINEAR_SLACK} x that at {lo} plugins"
            f" ({net_lo * 1000:.2f} ms)",
        )
        by_n = {r[0]: r[3].median for r in rows}
        doublings = [
            f"{by_n[2 * n] / by_n[n]:.2f} ({2 * n}/{n})" for n in sorted(by_n) if 2 * n in by_n
        ]
        if doublings:
            notes.append(
                "Linearity: time(2n)/time(n) is "
                + ", ".join(doublings)
                + "; 2 is linear, less than 2 is the start-up floor being shared."
            )
    columns = [label(n) for n, _, _ in trees]
    if args.baseline:
        s = results[base_label].stats
        _, base_findings = discovered(results[base_label].outputs[0])
        same = "the same" if base_findings == findings_at(rows, target[0]) else "NOT the same"
        notes.append(
            f"Baseline `{args.baseline}` on {label(target[0])}, in the same rounds: median"
            f" {s.median:.3f} s (min {s.low:.3f}, CPU {s.cpu:.3f} s), {base_findings} findings"
            f" ({same} number); its phases are the last column below."
        )
        columns.append(base_label)
    block = render_marketplace(
        rows, results, metadata(args, ctx, loads), notes, verdicts.lines, args.seed
    )
    block += "\n\n" + render_phase_columns(
        [
            (
                c,
                phase_medians(results[f"{c}: phases"].outputs),
                results[f"{c}: phases"].stats.median,
            )
            for c in columns
        ],
        results["`python -c pass`"].stats.median,
    )
    return finish(args, block, "marketplace", verdicts)


def structured_suite(args: argparse.Namespace, runner: Runner, ctx: Context, tmp: Path) -> int:
    """Skills packages with contracts (bench/contracts.py): the floor, then each size cold,
    `drift-check TREE -q --format json`; the findings compared with the planted defects."""
    jobs = floor_jobs(ctx, tmp / "empty")
    trees = []
    for n in sorted(set(args.skills)):
        root = tmp / f"contracts-{n}"
        counts = generate_contracts(root, n, args.seed)
        print(f"bench: generated {n} skills: {counts.files} files", flush=True)
        trees.append((n, counts, root))
        jobs.append(Job(f"{n} skills", [ctx.exe, str(root), "-q", "--format", "json"], root, (1,)))
    results, loads = measure_with_load(jobs, args, runner)
    verdicts = Verdicts()
    rows = []
    for n, counts, _ in trees:
        got = results[f"{n} skills"]
        found = json.loads(got.outputs[0])["summary"]["findings"] if got.outputs[0] else None
        rows.append((n, counts, found, got.stats))
    target = next((r for r in rows if r[0] == STRUCTURED_TARGET_SKILLS), rows[-1])
    verdicts.add(
        target[3].median <= STRUCTURED_TARGET_S and not target[3].timed_out,
        f"{target[0]} skills: median {target[3].median:.3f} s <= {STRUCTURED_TARGET_S} s",
    )
    block = render_structured(rows, results, metadata(args, ctx, loads), verdicts.lines, args.seed)
    return finish(args, block, "structured", verdicts)


def python_suite(args: argparse.Namespace, runner: Runner, ctx: Context, tmp: Path) -> int:
    """Reading Python hooks: a Gaia-style tree whose hooks consume the agents' markers
    (every hook parsed), the same tree without its registry (nothing reads the hooks, none
    is parsed) and the corpus (no hooks), each timed for `--exe` and, in the same rounds,
    for `--baseline`, whose JSON reports must be byte for byte those of `--exe`."""
    jobs = floor_jobs(ctx, tmp / "empty")
    trees: dict[str, tuple[Path, int, int]] = {}
    for registry in (True, False):
        root = tmp / ("hooks" if registry else "hooks-no-registry")
        made = generate_hooks_tree(root, args.hooks, args.seed, registry)
        name = f"Gaia-style, {made.hook_files} Python hooks" + ("" if registry else ", no registry")
        trees[name] = (root, made.files, made.bytes)
        print(f"bench: generated {name}: {made.files} files, {made.python_lines} Python lines")
    corpus = args.corpus.resolve()
    if corpus.is_dir():
        trees[f"corpus `{corpus.name}`"] = (corpus, *tree_size(corpus))
    exes = [("", ctx.exe)]
    if args.baseline:
        exes.append((", baseline", str(Path(args.baseline).resolve())))
    for name, (root, _, _) in trees.items():
        jobs.extend(Job(name + suffix, [exe, "."], root, (0, 1)) for suffix, exe in exes)
    hooks_tree = next(iter(trees.values()))[0]
    script = str(phase_script(tmp))
    phase_job = Job("phase timings", [*ctx.interp, script, "text"], hooks_tree, (0, 1), True)
    jobs.append(phase_job)

    results, loads = measure_with_load(jobs, args, runner)
    rows = [Row(j.label, None, None, None, results[j.label].stats) for j in jobs[:3]]
    for name, (_, files, size) in trees.items():
        for suffix, _ in exes:
            got = results[name + suffix]
            rows.append(
                Row(name + suffix, files, size / 1e6, findings_in(got.outputs[0]), got.stats)
            )
    verdicts = Verdicts()
    notes = [
        f"Generated trees: seed {args.seed}, bench/pyhooks.py: 8 agents, 20 skills with the"
        " assignment matrix, the hooks (median 210 lines) and, in the first, a registry"
        " whose rows cite them. The corpus has no Python file."
    ]
    if args.baseline:
        for name, (root, _, _) in trees.items():
            new, old = results[name].stats.median, results[name + ", baseline"].stats.median
            notes.append(f"{name}: baseline median / this median = {old / new:.1f}.")
            reports = [
                subprocess.run(
                    [exe, ".", "--format", "json", "-q"], cwd=root, capture_output=True, check=False
                ).stdout
                for _, exe in exes
            ]
            verdicts.add(
                reports[0] == reports[1],
                f"{name}: the JSON reports of both installs are byte for byte the same",
            )
    block = render(rows, metadata(args, ctx, loads), notes, verdicts.lines)
    phases = results[phase_job.label]
    first = rows[3]
    block += "\n\n" + render_phases(
        first.label,
        phase_medians(phases.outputs),
        rows[0].stats.median,
        phases.stats.median,
        first.stats.median,
    )
    return finish(args, block, "python", verdicts)


def find_agnix(args: argparse.Namespace, exe: str) -> str | None:
    """The agnix binary to time: `--agnix`, else the one installed beside the console
    script (`pip install agnix` in the same environment), else one on PATH."""
    if args.agnix:
        return str(Path(args.agnix).resolve()) if os.sep in args.agnix else args.agnix
    beside = Path(exe).parent / "agnix"
    if os.sep in exe and beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("agnix")


def skills_suite(args: argparse.Namespace, runner: Runner, ctx: Context, tmp: Path) -> int:
    """Skills and agents trees, each timed with drift-check and with agnix in the same
    rounds: the real corpora, generated skills trees and the 200-plugin marketplace."""
    agnix = find_agnix(args, ctx.exe)
    agnix_version = ""
    if agnix:
        agnix_version = subprocess.run(
            [agnix, "--version"], capture_output=True, text=True, check=False
        ).stdout.strip()
        print(f"bench: yardstick {agnix} ({agnix_version})", flush=True)
    else:
        print("bench: agnix not found (pip install agnix): its columns are left out", flush=True)
    trees: list[SkillsTree] = []
    corpora = args.corpora.resolve()
    if corpora.is_dir():
        for root in sorted(p for p in corpora.iterdir() if p.is_dir()):
            files, size = tree_size(root)
            trees.append(SkillsTree(f"corpus `{root.name}`", root, files, size, "corpus"))
    for n in sorted(set(args.skill_trees)):
        root = tmp / f"skills-{n}"
        files, size = generate_skills(root, n, 100, args.seed)
        trees.append(SkillsTree(f"generated skills ({n:,} skills)", root, files, size, str(n)))
    root = tmp / f"marketplace-{MARKETPLACE_TARGET_PLUGINS}"
    counts = generate_marketplace(root, MARKETPLACE_TARGET_PLUGINS, args.seed)
    label_mp = f"generated marketplace ({MARKETPLACE_TARGET_PLUGINS} plugins)"
    trees.append(SkillsTree(label_mp, root, counts.files, counts.bytes, "marketplace"))
    print(f"bench: {len(trees)} trees", flush=True)

    jobs = floor_jobs(ctx, tmp / "empty")
    if agnix:
        jobs.append(Job("`agnix --version`", [agnix, "--version"], tmp / "empty"))
    baseline = str(Path(args.baseline).resolve()) if args.baseline else None
    for t in trees:
        jobs.append(Job(f"{t.label}: drift-check", [ctx.exe, "."], t.root, (0, 1)))
        if agnix:
            jobs.append(Job(f"{t.label}: agnix", [agnix, "."], t.root, (0, 1)))
        if baseline:
            jobs.append(Job(f"{t.label}: baseline", [baseline, "."], t.root, (0, 1)))
    results, loads = measure_with_load(jobs, args, runner)

    verdicts = Verdicts()
    rows: list[SkillsRow] = []
    for t in trees:
        ours = results[f"{t.label}: drift-check"]
        theirs = results.get(f"{t.label}: agnix")
        base = results.get(f"{t.label}: baseline")
        rows.append(SkillsRow(t, findings_in(ours.outputs[0]), ours, theirs, base))
        if theirs is not None:
            ratio = ours.stats.median / theirs.stats.median
            verdicts.add(
                ratio <= AGNIX_RATIO and not ours.stats.timed_out,
                f"{t.label}: drift-check {ours.stats.median:.3f} s <= {AGNIX_RATIO:g} x agnix"
                f" {theirs.stats.median:.3f} s (ratio {ratio:.2f})",
            )
    big = next((r for r in rows if r.tree.kind == "3000"), None)
    if big is not None:
        s = big.ours.stats
        verdicts.add(
            s.median <= SKILLS_3000_TARGET_S and not s.timed_out,
            f"{big.tree.label}: median {s.median:.3f} s <= {SKILLS_3000_TARGET_S} s",
        )
    mp = next(r for r in rows if r.tree.kind == "marketplace")
    verdicts.add(
        mp.ours.stats.median <= MARKETPLACE_TARGET_S and not mp.ours.stats.timed_out,
        f"{mp.tree.label}: median {mp.ours.stats.median:.3f} s <= {MARKETPLACE_TARGET_S} s",
    )
    meta = metadata(args, ctx, loads)
    meta["agnix"] = f"`{agnix}` ({agnix_version})" if agnix else ""
    meta["baseline"] = f"`{baseline}`" if baseline else ""
    block = render_skills(rows, results, meta, verdicts.lines, args.seed)
    return finish(args, block, "skills", verdicts)


if __name__ == "__main__":
    sys.exit(main())

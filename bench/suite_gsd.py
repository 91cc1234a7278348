"""The `gsd` suite: the real GSD corpus, synthetic GSD trees 1x, 10x and 100x its size, and
a skills-heavy tree; the start-up floor and the phases of one run."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from measure import (
    Job,
    Runner,
    findings_in,
    phase_medians,
    phase_script,
)
from report import (
    Row,
    render,
    render_phases,
)
from suite import (
    LINEAR_SLACK,
    SKILLS_TARGET_S,
    TARGET_MEDIAN_S,
    TARGET_RSS_MB,
    Context,
    Verdicts,
    finish,
    floor_jobs,
    measure_with_load,
    metadata,
)
from synth import BUILTIN, generate, generate_skills, measure_profile, tree_size


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

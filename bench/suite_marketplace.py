"""The `marketplace` suite: generated Claude Code plugin marketplaces of growing size,
checked as a user would (`drift-check TREE -q --format json`)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from marketplace import Counts, generate_marketplace
from measure import (
    Job,
    Runner,
    Stats,
    phase_medians,
    phase_script,
)
from report import (
    interpreter_of,
    render_marketplace,
    render_phase_columns,
)
from suite import (
    LINEAR_SLACK,
    MARKETPLACE_TARGET_PLUGINS,
    MARKETPLACE_TARGET_S,
    Context,
    Verdicts,
    finish,
    floor_jobs,
    measure_with_load,
    metadata,
)

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

"""The `skills` suite: skills and agents trees (the real corpora, generated skills trees, the
200-plugin marketplace), each beside agnix when it is installed."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from pathlib import Path

from marketplace import generate_marketplace
from measure import (
    Job,
    Runner,
    findings_in,
)
from report import (
    SkillsRow,
    SkillsTree,
    render_skills,
)
from suite import (
    AGNIX_RATIO,
    MARKETPLACE_TARGET_PLUGINS,
    MARKETPLACE_TARGET_S,
    SKILLS_3000_TARGET_S,
    Context,
    Verdicts,
    finish,
    floor_jobs,
    measure_with_load,
    metadata,
)
from synth import generate_skills, tree_size


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

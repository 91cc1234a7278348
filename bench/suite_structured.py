"""The `structured` suite: generated skills packages with structured contracts (schemas,
blocks, dispatch templates) of growing size."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from contracts import generate_contracts
from measure import (
    Job,
    Runner,
)
from report import (
    render_structured,
)
from suite import (
    STRUCTURED_TARGET_S,
    STRUCTURED_TARGET_SKILLS,
    Context,
    Verdicts,
    finish,
    floor_jobs,
    measure_with_load,
    metadata,
)


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

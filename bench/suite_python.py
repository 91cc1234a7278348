"""The `python` suite: a generated Gaia-style tree whose Python hooks consume the agents'
markers, the same tree without its registry, and the corpus."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from measure import (
    Job,
    Runner,
    findings_in,
    phase_medians,
    phase_script,
)
from pyhooks import generate_hooks_tree
from report import (
    Row,
    render,
    render_phases,
)
from suite import (
    Context,
    Verdicts,
    finish,
    floor_jobs,
    measure_with_load,
    metadata,
)
from synth import tree_size


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

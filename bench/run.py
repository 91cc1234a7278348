#!/usr/bin/env python3
"""Cold-run benchmark of the installed `drift-check` console script.

Every measured run is a fresh process (wall time with `time.perf_counter` around the
process, peak memory from that process's own `rusage`). Five suites, each written into
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
see bench/README.md. Modules: `suite_*` (one suite each, `suite` what they share),
`measure` (timing processes and phases), `synth` (GSD and skills trees), `marketplace`
(plugin marketplaces), `contracts` (structured contracts), `pyhooks` (Python hooks),
`report` (tables and the doc).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from measure import (
    Runner,
)
from report import (
    PROJECT,
    install_kind,
    interpreter_of,
    machine,
)
from suite import CORPORA, CORPUS, DOC, Context
from suite_gsd import gsd_suite
from suite_marketplace import marketplace_suite
from suite_python import python_suite
from suite_skills import skills_suite
from suite_structured import structured_suite


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


if __name__ == "__main__":
    sys.exit(main())

"""What every suite shares: the targets, what is being timed (`Context`), the start-up
floor, the run's metadata, the verdicts, and writing the result into the doc."""

from __future__ import annotations

import argparse
import datetime
import os
import sys
from pathlib import Path
from typing import NamedTuple

from measure import (
    Job,
    Measured,
    Runner,
    measure_all,
)
from report import (
    PROJECT,
    machine,
    write_doc,
)

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

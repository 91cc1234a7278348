"""Measuring cold runs: each a fresh process, timed from outside, and the phases of one
run timed from inside.

Plain standard library; `run.py` says what is measured, `report.py` how it is shown.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple


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
    walls: tuple[float, ...] = ()  # each timed run's wall seconds, in the order of the rounds


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
        results.append(Measured(stats, kept, tuple(s.wall for s in runs)))
    return results


_FOUND = re.compile(r"^Found (\d+) findings?\.$", re.M)


def findings_in(output: str) -> int | None:
    """The count from the text report's last line (`Found N findings.` or a clean pass)."""
    counts = _FOUND.findall(output)
    if counts:
        return int(counts[-1])
    return 0 if "All checks passed!" in output else None


# In-process phases of one cold run, each run in a fresh interpreter (the tree is the
# working directory, the report format the first argument): `engine.scan` (discovery, then
# the scanners) and `engine.check` (rules and suppressions), as `engine.run` calls them. The
# file layer is timed by wrapping the walk (the whole of it, where processes share it) and
# every file read (a few microseconds a file); a read belongs to discovery when it starts
# before discovery's time (`phases`) is up.
_PHASES = """
import sys, time
perf = time.perf_counter
t = [perf()]
import drift_check.records
t.append(perf())
import drift_check.cli
getattr(drift_check.cli, "single_run_gc", lambda: None)()  # as the console script does
t.append(perf())
try:
    import os
    from drift_check import engine
    from drift_check.config import load_config
    from drift_check.reporters import render
    from drift_check.scanners.files import Repo
    t.append(perf())
    walked = [0.0]
    reads = []  # (start, seconds) of every file read

    def timed_walk(fn):
        def wrapper(repo, absdir, reldir, *rest, **kwargs):
            if reldir != "":
                return fn(repo, absdir, reldir, *rest, **kwargs)
            start = perf()
            try:
                return fn(repo, absdir, reldir, *rest, **kwargs)
            finally:
                walked[0] += perf() - start
        return wrapper

    def timed_read(fn):
        def wrapper(*args, **kwargs):
            start = perf()
            try:
                return fn(*args, **kwargs)
            finally:
                reads.append((start, perf() - start))
        return wrapper

    def timed_whole(fn):  # the walk shared between processes (`Repo._walk_tree`)
        def wrapper(*args, **kwargs):
            start = perf()
            try:
                return fn(*args, **kwargs)
            finally:
                walked[0] += perf() - start
        return wrapper

    if hasattr(Repo, "_walk_tree"):
        Repo._walk_tree = timed_whole(Repo._walk_tree)
    else:
        Repo._walk = timed_walk(Repo._walk)
    Repo._read = timed_read(Repo._read)
    config = load_config(".", None)
    t.append(perf())
    phases = {}
    start = perf()
    facts = engine.scan(config, phases=phases)
    scanned = perf()
    findings = engine.check(facts)
    checked = perf()
    discovered = start + phases["discovery"]
    read_in_discovery = sum(d for s, d in reads if s < discovered)
    read_in_scan = sum(d for s, d in reads if s >= discovered)
    t.append(t[-1] + walked[0])
    t.append(t[-1] + phases["discovery"] - walked[0] - read_in_discovery)
    t.append(t[-1] + read_in_discovery + read_in_scan)
    t.append(t[-1] + (scanned - start) - phases["discovery"] - read_in_scan)
    t.append(t[-1] + checked - scanned)
    report = engine.Report(facts.config, facts, engine.rules_run(facts.config), findings)
    start = perf()
    text = render(report, sys.argv[1], color=False, cwd=os.getcwd())
    t.append(t[-1] + perf() - start)
    print(" ".join(repr(b - a) for a, b in zip(t, t[1:])), len(report.findings))
except Exception as exc:  # the engine's API moved: say so, do not stop the benchmark
    print("error:", type(exc).__name__, exc)
"""
PHASE_NAMES = (
    "`typing` and `drift_check.records` (every record class of the package is made with them)",
    "`import drift_check.cli` beyond them (a run imports no click since 2026-12-02)",
    "lazy imports on the check path (config, engine, scanners, facts, rules, reporters)",
    "`load_config`: config file and packs",
    "walk: list the tree's files (`.gitignore` honoured)",
    "discovery: components by convention, packs chosen (reading not counted)",
    "reading files (open, size check, decode), wherever they are read",
    "scan: frontmatter, fences, links, consumers, mentions (reading not counted)",
    "rules over the facts (suppressions included)",
    "report",
)


def phase_script(directory: Path) -> Path:
    """Write the phase script into `directory`; its path."""
    path = directory / "phases.py"
    path.write_text(_PHASES, encoding="utf-8")
    return path


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

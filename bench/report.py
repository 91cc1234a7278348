"""Showing the measurements: what was measured (machine, interpreter, which install), the
results tables in Markdown, and writing them into `docs/performance.md` between a suite's
begin and end markers.

Plain standard library.
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

from marketplace import Counts
from measure import Measured, Stats

PROJECT = Path(__file__).resolve().parent.parent


class Row(NamedTuple):
    label: str
    files: int | None
    mb: float | None
    findings: int | None
    stats: Stats


class SkillsTree(NamedTuple):
    label: str
    root: Path
    files: int
    bytes: int
    kind: str  # "corpus", the number of generated skills, or "marketplace"


class SkillsRow(NamedTuple):
    tree: SkillsTree
    findings: int | None  # drift-check's
    ours: Measured
    agnix: Measured | None
    baseline: Measured | None


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
        " each run's own value. One-minute load average while measuring:"
        f" {meta['load']} (other work on the machine inflates wall times).",
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


def render_marketplace(
    rows: list[tuple[int, Counts, int | None, Stats, bool]],
    results: dict[str, Measured],
    meta: dict[str, str],
    notes: list[str],
    verdicts: list[str],
    seed: int,
) -> str:
    """The marketplace table: one row per size, with time per plugin."""
    floor = results["`drift-check --version`"].stats.median
    out = [
        f"Measured {meta['date']} on {meta['machine']}; Python {meta['python']}"
        f" (`{meta['interp']}`); {meta['version']}."
        f" Up to {meta['runs']} timed runs per row after {meta['warmup']} warm-up runs."
        " Each run is a fresh process of the installed console script,"
        " `drift-check TREE -q --format json`, output to a file, OS file cache warm."
        " Wall seconds: median, min, max; CPU seconds (user + system) and peak RSS: median"
        " of each run's own value. One-minute load average while measuring:"
        f" {meta['load']} (other work on the machine inflates wall times).",
        "",
        "| tree | runs | median s | min s | max s | CPU s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label in ("`python -c pass`", '`python -c "import click"`', "`drift-check --version`"):
        s = results[label].stats
        out.append(
            f"| {label} | {s.runs} | {s.median:.3f} | {s.low:.3f} | {s.high:.3f}"
            f" | {s.cpu:.3f} | {s.rss_mb:.1f} |"
        )
    out += [
        "",
        "| plugins | agents | skills | commands | hook files | files | MB | findings | runs"
        " | median s | min s | max s | CPU s | peak RSS MB | ms per plugin"
        " | ms per plugin, net of `--version` |",
        "|" + "---:|" * 16,
    ]
    for n, c, findings, s, _ in rows:
        more = ">" if s.timed_out else ""
        out.append(
            f"| {n} | {c.agents} | {c.skills} | {c.commands} | {c.hook_files} | {c.files}"
            f" | {c.bytes / 1e6:.1f} | {'' if findings is None else findings} | {s.runs}"
            f" | {more}{s.median:.3f} | {more}{s.low:.3f} | {more}{s.high:.3f} | {s.cpu:.3f}"
            f" | {s.rss_mb:.1f} | {s.median / n * 1000:.2f}"
            f" | {max(s.median - floor, 0.0) / n * 1000:.2f} |"
        )
    out.append("")
    out.append(
        f"- Generated by `bench/marketplace.py`, seed {seed}: sizes of files are the medians"
        " of the real marketplace laurigates-claude-plugins-d687dc39 (see the module's"
        " docstring); every count in the table is what the generator wrote and what"
        " drift-check's JSON summary reported."
    )
    out.extend(f"- {n}" for n in notes)
    out += ["", "Targets (`--check` exits 1 when one is missed):", ""]
    out.extend(f"- {v}" for v in verdicts)
    return "\n".join(out)


def render_structured(
    rows: list[tuple[int, Any, int | None, Stats]],
    results: dict[str, Measured],
    meta: dict[str, str],
    verdicts: list[str],
    seed: int,
) -> str:
    """The structured-contracts table: one row per number of skills."""
    out = [
        f"Measured {meta['date']} on {meta['machine']}; Python {meta['python']}"
        f" (`{meta['interp']}`); {meta['version']}."
        f" Up to {meta['runs']} timed runs per row after {meta['warmup']} warm-up runs,"
        " each a fresh process of the installed console script, `drift-check TREE -q"
        " --format json`, OS file cache warm. One-minute load average while measuring:"
        f" {meta['load']}.",
        "",
        "| tree | runs | median s | min s | max s | CPU s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for label in ("`python -c pass`", '`python -c "import click"`', "`drift-check --version`"):
        s = results[label].stats
        out.append(
            f"| {label} | {s.runs} | {s.median:.3f} | {s.low:.3f} | {s.high:.3f}"
            f" | {s.cpu:.3f} | {s.rss_mb:.1f} |"
        )
    out += [
        "",
        "| skills | schemas | blocks | files | MB | planted | findings | runs | median s"
        " | min s | CPU s | peak RSS MB | ms per skill |",
        "|" + "---:|" * 13,
    ]
    for n, c, findings, s in rows:
        out.append(
            f"| {n} | {c.schemas} | {c.blocks} | {c.files} | {c.bytes / 1e6:.1f}"
            f" | {c.defects} | {'' if findings is None else findings} | {s.runs}"
            f" | {s.median:.3f} | {s.low:.3f} | {s.cpu:.3f} | {s.rss_mb:.1f}"
            f" | {s.median / n * 1000:.2f} |"
        )
    out += [
        "",
        f"- Generated by `bench/contracts.py`, seed {seed}: per skill a SKILL.md and an"
        " orchestrator prompt holding ten structured blocks (two `NAME_RESULT` templates, two"
        " dispatch templates, a `$schema` example, a `json:contract` block, four API payloads"
        " that pair with nothing) and two schemas (input, output) of their own text. One"
        " skill in 25 has a planted defect; a template's defect shows in both of its copies,"
        " so findings are about 1.6 x the planted defects.",
        "",
        "Targets (`--check` exits 1 when one is missed):",
        "",
    ]
    out.extend(f"- {v}" for v in verdicts)
    return "\n".join(out)


_AGNIX_FOUND = re.compile(r"Found (\d+) errors?, (\d+) warnings?(?:\s+(\d+) info)?")


def agnix_findings(output: str) -> int | None:
    """Errors, warnings and info messages in agnix's text report."""
    m = _AGNIX_FOUND.search(output)
    return None if m is None else sum(int(g) for g in m.groups() if g)


def paired_ratio(ours: Measured, theirs: Measured) -> float:
    """The median over the rounds of drift-check's time over agnix's in the same round
    (runs are interleaved, so the i-th run of each is from the same round)."""
    pairs = [a / b for a, b in zip(ours.walls, theirs.walls, strict=False) if b > 0]
    return statistics.median(pairs) if pairs else float("nan")


def render_skills(
    rows: list[SkillsRow],
    results: dict[str, Measured],
    meta: dict[str, str],
    verdicts: list[str],
    seed: int,
) -> str:
    """Skills and agents trees: drift-check beside agnix on each, whole process."""
    with_agnix = any(r.agnix is not None for r in rows)
    with_base = any(r.baseline is not None for r in rows)
    out = [
        f"Measured {meta['date']} on {meta['machine']}; Python {meta['python']}"
        f" (`{meta['interp']}`); {meta['version']}."
        + (f" Yardstick: agnix {meta['agnix']}." if with_agnix else " agnix not installed.")
        + f" Up to {meta['runs']} timed runs per row after {meta['warmup']} warm-up runs,"
        " in interleaved rounds: each round runs every command once, so the two tools meet"
        " the same machine. Each run is a fresh process started in the tree's root, whole"
        " process: `drift-check .` and `agnix .`, output to /dev/null, OS file cache warm."
        " Wall seconds (median and min), CPU seconds (user + system, median) and peak RSS"
        " (median). One-minute load average while measuring:"
        f" {meta['load']} (other work on the machine inflates wall times).",
        "",
        "| start-up floor | runs | median s | min s | CPU s | peak RSS MB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label in (
        "`python -c pass`",
        '`python -c "import click"`',
        "`drift-check --version`",
        "`agnix --version`",
    ):
        if label in results:
            st = results[label].stats
            out.append(
                f"| {label} | {st.runs} | {st.median:.3f} | {st.low:.3f} | {st.cpu:.3f}"
                f" | {st.rss_mb:.1f} |"
            )
    head = (
        "| tree | files | MB | drift-check findings | runs | drift-check median s | min s"
        " | CPU s | RSS MB"
    )
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    if with_agnix:
        head += " | agnix findings | agnix median s | min s | CPU s | RSS MB | ratio | paired ratio"
        rule += "---:|---:|---:|---:|---:|---:|---:|"
    if with_base:
        head += " | baseline median s"
        rule += "---:|"
    out += ["", head + " |", rule]
    for r in rows:
        s = r.ours.stats
        more = ">" if s.timed_out else ""
        cells = [
            r.tree.label,
            str(r.tree.files),
            f"{r.tree.bytes / 1e6:.1f}",
            "" if r.findings is None else str(r.findings),
            str(s.runs),
            f"{more}{s.median:.3f}",
            f"{more}{s.low:.3f}",
            f"{s.cpu:.3f}",
            f"{s.rss_mb:.1f}",
        ]
        if with_agnix:
            if r.agnix is None:
                cells += [""] * 7
            else:
                a = r.agnix.stats
                found = agnix_findings(r.agnix.outputs[0]) if r.agnix.outputs else None
                cells += [
                    "" if found is None else str(found),
                    f"{a.median:.3f}",
                    f"{a.low:.3f}",
                    f"{a.cpu:.3f}",
                    f"{a.rss_mb:.1f}",
                    f"{s.median / a.median:.2f}",
                    f"{paired_ratio(r.ours, r.agnix):.2f}",
                ]
        if with_base:
            cells.append("" if r.baseline is None else f"{r.baseline.stats.median:.3f}")
        out.append("| " + " | ".join(cells) + " |")
    out += [
        "",
        "- ratio: drift-check's median over agnix's; paired ratio: the median over the rounds"
        " of the two tools' times in the same round. agnix runs its own rules (Agent Skills,"
        " Claude Code, hooks, plugins, MCP, memory files) and reads about the same files:"
        " every Markdown file of a skills tree (`agnix -v` says how many it checked); it"
        " uses every core, and so does drift-check (its agents, skills and commands are read"
        " by forked workers on a large tree; `DRIFT_CHECK_JOBS=1` for one process).",
        f"- Generated skills trees: `bench/synth.py` `generate_skills`, seed {seed}: N skills"
        " (a SKILL.md of about 60 lines, 50 of them numbered steps that mention reference.md,"
        " and a reference.md with headings), 100 agents injecting 8 skills each, and a"
        " skills/README.md with the assignment matrix and the directory tree. The marketplace:"
        " `bench/marketplace.py` (see [Plugin marketplaces](#plugin-marketplaces)).",
    ]
    if with_base:
        out.append(f"- baseline: {meta['baseline']}, timed in the same rounds.")
    out += ["", "Targets (`--check` exits 1 when one is missed):", ""]
    out.extend(f"- {v}" for v in verdicts)
    return "\n".join(out)


def render_phase_columns(
    columns: list[tuple[str, list[tuple[str, float]] | str, float]], start: float
) -> str:
    """Where the time of one cold run goes at each size: phases as rows, sizes as columns
    (`columns`: a label, the phase medians or why there are none, the phase script's
    median run). `start` is the interpreter's start-up."""
    ok = [(label, p, total) for label, p, total in columns if not isinstance(p, str)]
    failed = [f"{label}: {p}" for label, p, _ in columns if isinstance(p, str)]
    out = [
        "Where the time goes: a script that does what the console script does, timing each"
        " phase in process (milliseconds, median of fresh processes, interleaved with the"
        " rows above; interpreter start-up is the `python -c pass` row)."
    ]
    if failed:
        out.append(" ".join(failed) + ".")
    if not ok:
        return "\n".join(out)
    out += [
        "",
        "| phase | " + " | ".join(label for label, _, _ in ok) + " |",
        "|---|" + "---:|" * len(ok),
        "| interpreter start-up (`python -c pass`) | "
        + " | ".join(f"{start * 1000:.0f}" for _ in ok)
        + " |",
    ]
    names = [name for name, _ in ok[0][1]]  # type: ignore[union-attr]
    for i, name in enumerate(names):
        cells = [f"{p[i][1] * 1000:.0f}" for _, p, _ in ok]  # type: ignore[index]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    rest = [total - start - sum(s for _, s in p) for _, p, total in ok]  # type: ignore[union-attr]
    out.append(
        "| the rest: interpreter exit, noise (run median minus the phases) | "
        + " | ".join(f"{r * 1000:.0f}" for r in rest)
        + " |"
    )
    out.append(
        "| **one run of the phase script, median** | "
        + " | ".join(f"**{total * 1000:.0f}**" for _, _, total in ok)
        + " |"
    )
    return "\n".join(out)


def markers(suite: str) -> tuple[str, str]:
    """The comments that hold a suite's block in the doc (the GSD suite's have no name)."""
    name = "" if suite == "gsd" else f":{suite}"
    return f"<!-- bench{name}:begin -->", f"<!-- bench{name}:end -->"


def write_doc(doc: Path, block: str, suite: str = "gsd", heading: str = "Results") -> None:
    """Replace the suite's block in `doc`; a doc without one gets it under `heading`."""
    begin, end = markers(suite)
    text = doc.read_text(encoding="utf-8") if doc.exists() else "# Performance\n"
    if begin not in text or end not in text:
        text = text.rstrip("\n") + f"\n\n## {heading}\n\n{begin}\n{end}\n"
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(f"{head}{begin}\n{block}\n{end}{tail}", encoding="utf-8")

"""Concise text: `path:line:col: CODE message`, a summary by code, a count line."""

from __future__ import annotations

import os
from collections import Counter

from drift_check.engine import Report
from drift_check.facts import Facts
from drift_check.reporters.escape import escape
from drift_check.rules.base import Finding

_COLORS = {"path": "1", "code": "1;31", "warning": "1;33", "info": "1;34", "dim": "2"}


def _paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{_COLORS[style]}m{text}\x1b[0m" if color else text


def display_path(root: str, path: str, cwd: str | None) -> str:
    full = os.path.normpath(os.path.join(root, path))
    if cwd is None:
        return full
    rel = os.path.relpath(os.path.abspath(full), cwd)
    return full if rel.startswith("..") and os.path.isabs(root) else rel.replace(os.sep, "/")


def render(
    report: Report, color: bool = False, cwd: str | None = None, unsafe_fixes: bool = False
) -> str:
    """`unsafe_fixes`: `--unsafe-fixes` was given, so unsafe fixes are marked `[*]` too and
    the summary counts them with the safe ones, as ruff does."""
    root = report.config.root

    def marked(f: Finding) -> bool:
        return f.fix is not None and (unsafe_fixes or f.fix.applicability == "safe")

    lines = []
    shown: dict[str, str] = {}  # each path as displayed: most files have several findings
    for f in report.findings:
        place = f":{f.line}:{f.column}" if f.path else ""  # a finding about the whole tree
        path = shown.get(f.path)
        if path is None:
            path = shown[f.path] = display_path(root, f.path, cwd)
        where = escape(f"{path}{place}:")
        style = "code" if f.severity == "error" else f.severity
        code = _paint(f.code, style, color)
        mark = "[*] " if marked(f) else ""
        lines.append(f"{_paint(where, 'path', color)} {code} {mark}{escape(f.message)}")
    if report.findings:
        lines.append("")
        counts = Counter((f.code, f.name) for f in report.findings)
        width = len(str(max(counts.values())))
        for (code, name), n in sorted(counts.items()):
            lines.append(f"{n:>{width}}  {_paint(code, 'code', color)}  {name}")
        lines.append("")
        n = len(report.findings)
        lines.append(f"Found {n} finding{'s' if n != 1 else ''}.")
        fixable = sum(1 for f in report.findings if marked(f))
        unsafe = sum(1 for f in report.findings if f.fix and not marked(f))
        if fixable:
            option = "--fix --unsafe-fixes" if unsafe_fixes else "--fix"
            lines.append(f"[*] {fixable} fixable with `{option}`.")
        if unsafe:
            lines.append(f"{unsafe} more fixable with `--fix --unsafe-fixes`.")
    else:
        lines.append("All checks passed!")
    return "\n".join(lines) + "\n"


def banner(report: Report) -> str:
    """One line for stderr: which packs were used and why, and what was found."""
    facts = report.facts
    if nothing_found(report):
        return escape(f"drift-check: nothing to check in {report.config.root}: {facts.reason}")
    parts = []
    if facts.registry is not None:
        rows = _count(len(facts.registry.rows), "row")
        parts.append(f"registry {facts.registry.path} ({rows})")
    elif facts.settings["registry"]:
        parts.append("no registry found")
    counts = dict((noun, n) for n, noun in facts.components.counts())
    counts["agent"] = len(facts.all_agents)
    counts["skill"] = len(facts.skills)
    unread = _unreadable(facts)
    parts += [
        _count(n, noun) + (f" ({unread[noun]} unreadable)" if unread.get(noun) else "")
        for noun, n in counts.items()
        if n or noun == "agent" or unread.get(noun)
    ]
    if facts.registry is not None or facts.quoted_markers:
        parts.append(_count(len(facts.consumers), "consumer file"))
    parts.append(_count(len(report.rules), "rule"))
    return escape(f"drift-check: {facts.reason}{_config_file(report)}; {', '.join(parts)}")


def _unreadable(facts: Facts) -> dict[str, int]:
    """How many agent and skill files discovery found that could not be read (binary, too
    large, not UTF-8): the banner counts them apart, as their DC001 says why."""
    unreadable = {p.position.path for p in facts.problems if p.kind == "unreadable"}
    if not unreadable:
        return {}
    components = facts.components
    return {
        "agent": len(unreadable.intersection(components.agents)),
        "skill": len(unreadable.intersection(components.skills)),
    }


def _config_file(report: Report) -> str:
    """`, config FILE` when the run read a config file the reason does not name already."""
    path = report.config.config_file
    if path is None:
        return ""
    shown = os.path.relpath(path, report.config.root).replace(os.sep, "/")
    shown = path if shown.startswith("..") else shown
    return "" if shown in report.facts.reason else f", config {shown}"


def nothing_found(report: Report) -> bool:
    """No component, no registry and no finding: the run checked nothing (exit 0, as ruff
    does on a tree without Python files)."""
    facts = report.facts
    return (
        not facts.preset
        and not report.findings
        and not facts.all_agents
        and not facts.skills
        and facts.registry is None
        and facts.components.empty
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def statistics_table(report: Report) -> str:
    """`--statistics`: how many findings per rule, most first, and how many can be fixed."""
    counts = Counter((f.code, f.name) for f in report.findings)
    fixable = Counter(f.code for f in report.findings if f.fix is not None)
    width = len(str(max(counts.values(), default=0)))
    lines = [
        f"{n:>{width}}  {code}  {name}" + ("  [*]" if fixable[code] else "")
        for (code, name), n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    return "".join(line + "\n" for line in lines)

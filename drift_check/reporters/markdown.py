"""The findings as GitHub-flavoured Markdown, for a job's step summary
(`$GITHUB_STEP_SUMMARY`) or a pull request comment: a count per rule, then the findings of
each file in a collapsed section.

Text from the tree never becomes markup: outside code spans every character GitHub's
Markdown acts on inline is backslash-escaped and `<`, `>` and `&` are entities; a code
span's fence is longer than any backtick run inside it. GitHub caps a step summary at 1 MiB,
so at most `MAX_LISTED` findings are listed; the count per rule covers them all.
"""

from __future__ import annotations

import re
from collections import Counter

from drift_check.engine import Report
from drift_check.reporters.escape import escape
from drift_check.rules.base import Finding

MAX_LISTED = 1000

# what Markdown on GitHub reads inline: escapes, code, emphasis, links, strikethrough, table
# cells, math, mentions and issue references
_ACTIVE = re.compile(r"([\\`*_\[\]~|$@#])")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}
_SPAN = re.compile(r"`([^`\n]+)`")


def plain(value: str) -> str:
    """Text that Markdown shows as it is: one line, no emphasis, links, HTML or tables."""
    flat = escape(re.sub(r"\s+", " ", value))
    flat = _ACTIVE.sub(r"\\\1", flat)
    return re.sub("[<>&]", lambda m: _ENTITIES[m.group()], flat)


def code(value: str) -> str:
    """A code span holding `value` exactly (one line)."""
    flat = escape(" ".join(value.split()))
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def message(value: str) -> str:
    """A finding's message: its `backtick spans` as code, the rest as plain text."""
    out, last = [], 0
    for m in _SPAN.finditer(value):
        out.append(plain(value[last : m.start()]))
        out.append(code(m.group(1)))
        last = m.end()
    out.append(plain(value[last:]))
    return "".join(out)


def render(report: Report) -> str:
    findings = report.findings
    n = len(findings)
    facts = report.facts
    lines = [f"## drift-check: {n} finding{'s' * (n != 1)}" if n else "## drift-check: no findings"]
    lines.append("")
    reason = facts.reason or "nothing found"
    lines.append(f"{plain(reason[:1].upper() + reason[1:])}; {len(report.rules)} rules ran.")
    if not findings:
        lines += ["", "All checks passed!"]
        return "\n".join(lines) + "\n"
    lines += ["", "| Rule | Name | Severity | Findings |", "|---|---|---|---:|"]
    counts = Counter((f.code, f.name, f.severity) for f in findings)
    for (rule, name, severity), k in sorted(counts.items()):
        lines.append(f"| {rule} | {plain(name)} | {severity} | {k} |")
    by_file: dict[str, list[Finding]] = {}
    for f in findings[:MAX_LISTED]:
        by_file.setdefault(f.path or "", []).append(f)
    for path, items in by_file.items():
        lines += ["", f"<details><summary>{_summary_text(path)} ({len(items)})</summary>", ""]
        for f in items:
            where = f"{f.line}:{f.column}" if f.path else "-"
            lines.append(f"- {code(where)} **{f.code}** {message(f.message)}")
        lines += ["", "</details>"]
    if n > MAX_LISTED:
        lines += [
            "",
            f"{n - MAX_LISTED} more findings are not listed here; see the annotations or the"
            " JSON report.",
        ]
    return "\n".join(lines) + "\n"


def _summary_text(path: str) -> str:
    """A file name inside `<summary>`: HTML, so entities only (Markdown is not read there)."""
    if not path:
        return "(no file)"
    flat = escape(" ".join(path.split()))
    return "<code>" + re.sub("[<>&]", lambda m: _ENTITIES[m.group()], flat) + "</code>"

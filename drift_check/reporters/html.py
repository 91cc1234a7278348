"""The findings as one self-contained HTML page: grouped by file, and by rule with the rule's
explanation. No script, nothing fetched; every name and message escaped (`reporters.page`).
Links to files are relative to the folder the page is written to."""

from __future__ import annotations

import os
import re
from collections import Counter

from drift_check.engine import Report
from drift_check.reporters.page import asset, attr, document, file_href, text
from drift_check.rules import lookup
from drift_check.rules.base import Finding

_SPAN = re.compile(r"`([^`\n]+)`")


def prose(value: str) -> str:
    """Escaped text whose `backtick spans` are set as code."""
    return _SPAN.sub(lambda m: f"<code>{m.group(1)}</code>", text(value))


def render(report: Report, base: str | None = None) -> str:
    """The page for `report`; `base` is the folder the page is written to (links to files
    are relative to it), the working folder when it is None."""
    root = report.config.root
    here = os.getcwd() if base is None else base
    findings = report.findings
    name = os.path.basename(os.path.abspath(root)) or root
    title = f"drift-check report: {name}"
    n = len(findings)
    severities = Counter(f.severity for f in findings)
    counts = ", ".join(
        f"{k} {severities[k]}" for k in ("error", "warning", "info") if k in severities
    )
    facts = report.facts
    parts = [
        f"<header><h1>{text(title)}</h1>",
        f'<p class="summary"><strong>{n} finding{"s" * (n != 1)}</strong>'
        + (f" ({text(counts)})" if counts else "")
        + f" in {text(root)}; {text(facts.reason or 'nothing found')};"
        f" {len(report.rules)} rules ran.</p>",
        '<nav><a href="#by-file">By file</a> · <a href="#by-rule">By rule</a></nav></header>',
        "<main>",
    ]
    if not findings:
        parts.append('<p class="clean">All checks passed!</p>')
    else:
        parts += _by_file(findings, root, here)
        parts += _by_rule(findings, root, here)
    parts.append("</main>\n")
    return document(title, asset("report.css"), "\n".join(parts))


def _where(f: Finding, root: str, base: str, show_path: bool) -> str:
    if not f.path:
        return '<span class="where">(no file)</span>'
    label = f"{f.path}:{f.line}:{f.column}" if show_path else f"{f.line}:{f.column}"
    href = file_href(root, f.path, f.line, base)
    return f'<a class="where" href="{attr(href)}">{text(label)}</a>'


def _row(f: Finding, root: str, base: str, show_path: bool, show_code: bool) -> str:
    code = f'<a class="code" href="#{attr(f.code)}">{text(f.code)}</a> ' if show_code else ""
    fix = ' <span class="fix">fixable</span>' if f.fix is not None else ""
    return (
        f'<li class="sev-{text(f.severity)}">{_where(f, root, base, show_path)} {code}'
        f'<span class="sev">{text(f.severity)}</span> {prose(f.message)}{fix}</li>'
    )


def _by_file(findings: tuple[Finding, ...], root: str, base: str) -> list[str]:
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.path or "", []).append(f)
    out = ['<section id="by-file"><h2>By file</h2>']
    for path, items in groups.items():
        shown = path or "(no file)"
        out.append(
            f'<details open><summary><span class="path">{text(shown)}</span>'
            f' <span class="count">{len(items)}</span></summary><ul>'
        )
        out += [_row(f, root, base, False, True) for f in items]
        out.append("</ul></details>")
    out.append("</section>")
    return out


def _by_rule(findings: tuple[Finding, ...], root: str, base: str) -> list[str]:
    groups: dict[str, list[Finding]] = {}
    for f in sorted(findings, key=lambda f: f.code):
        groups.setdefault(f.code, []).append(f)
    out = ['<section id="by-rule"><h2>By rule</h2>']
    for code, items in groups.items():
        rule = lookup(code)
        name = items[0].name
        out.append(
            f'<details id="{attr(code)}" open><summary><span class="code">{text(code)}</span>'
            f' <span class="name">{text(name)}</span> <span class="count">{len(items)}</span>'
            "</summary>"
        )
        if rule is not None:
            out.append(f'<div class="rule"><p class="what">{prose(rule.summary)}</p>')
            out += [f"<p>{prose(p)}</p>" for p in rule.explanation.split("\n\n") if p.strip()]
            out.append(
                f"<details><summary>Examples</summary><p>Fails:</p><pre>{text(rule.failing)}</pre>"
                f"<p>Passes:</p><pre>{text(rule.passing)}</pre></details></div>"
            )
        out.append("<ul>")
        out += [_row(f, root, base, True, False) for f in items]
        out.append("</ul></details>")
    out.append("</section>")
    return out

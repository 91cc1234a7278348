"""SARIF 2.1.0 output for code scanning (GitHub, Azure DevOps, IDE viewers).

One run. The driver lists the rules that ran, each with its summary, its explanation as help
text and Markdown, and its default level. A result carries the rule, the level, the message,
one physical location (line and column, columns counted in Unicode code points as the other
formats count them), a fingerprint that survives edits above the finding (the baseline key),
and the fix as SARIF replacements when the finding has one. A structured-contract finding
whose schema side is written elsewhere carries it as a related location (id 1), and its
message links to it the way SARIF 2.1.0 embeds links in plain text (§3.11.6): the words
that name the schema side become `[...](1)`, brackets and backslashes in them escaped.

Paths are relative to the working directory, the checkout in a workflow, under the base id
`%SRCROOT%`; a file outside the working directory is named by its absolute `file:` URI.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any
from urllib.parse import quote

from drift_check import __version__
from drift_check.engine import Report
from drift_check.fixes.model import Edit
from drift_check.rules.base import Finding, Rule

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
BASE_ID = "%SRCROOT%"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _location(root: str, path: str, cwd: str) -> dict[str, Any]:
    full = os.path.abspath(os.path.join(root, path))
    rel = os.path.relpath(full, cwd)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        uri = "file://" + quote(full.replace(os.sep, "/"))
        return {"uri": uri}
    return {"uri": quote(rel.replace(os.sep, "/")), "uriBaseId": BASE_ID}


def _rule(r: Rule, severity: str) -> dict[str, Any]:
    from drift_check.docs import rule_page, rule_text

    item: dict[str, Any] = {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.explanation.split("\n\n")[0].replace("\n", " ")},
        "help": {"text": rule_text(r), "markdown": rule_page(r)},
        "defaultConfiguration": {"level": _LEVEL[severity]},
        "properties": {"tags": ["drift-check", r.code[:3] + "xx"]},
    }
    if r.fix:
        item["properties"]["fix"] = str(r.fix)
    return item


def _fingerprint(f: Finding, report: Report) -> str:
    from drift_check.filters import baseline_key

    key = baseline_key(f, report.facts)
    return hashlib.sha256("\0".join(key).encode("utf-8")).hexdigest()


def _fix(f: Finding, root: str, cwd: str) -> list[dict[str, Any]]:
    from drift_check.fixes import offered

    if f.fix is None:
        return []
    changes = offered(f.fix)
    if not changes:
        return []
    return [
        {
            "description": {"text": f"{f.fix.description} ({f.fix.applicability} fix)"},
            "artifactChanges": [
                {
                    "artifactLocation": _location(root, path, cwd),
                    "replacements": [_replacement(e) for e in edits],
                }
                for path, edits in changes.items()
            ],
        }
    ]


def _replacement(e: Edit) -> dict[str, Any]:
    region = {
        "startLine": e.line,
        "startColumn": e.column,
        "endLine": e.end_line,
        "endColumn": e.end_column,
    }
    return {"deletedRegion": region, "insertedContent": {"text": e.text}}


_SCHEMA_SIDE = 1  # the related location's id, the link target in the message


def _link_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _schema_side(f: Finding, root: str, cwd: str) -> tuple[str, list[dict[str, Any]]]:
    """The message, and the related location of the finding's schema side (none when the
    finding is reported at that very place, or has no schema side)."""
    side = f.schema
    if side is None or (side.path, side.position.line, side.position.column) == (
        f.path,
        f.line,
        f.column,
    ):
        return f.message, []
    named = side.reference
    link = f"[{_link_text(named)}]({_SCHEMA_SIDE})"
    message = (
        f.message.replace(named, link, 1) if named in f.message else f"{f.message} (schema: {link})"
    )
    related = {
        "id": _SCHEMA_SIDE,
        "physicalLocation": {
            "artifactLocation": _location(root, side.path, cwd),
            "region": {"startLine": side.position.line, "startColumn": side.position.column},
        },
        "message": {"text": f"the schema side: `#{side.pointer}`"},
    }
    return message, [related]


def as_dict(report: Report, cwd: str) -> dict[str, Any]:
    root = report.config.root
    severities = report.config.severities
    index = {r.code: n for n, r in enumerate(report.rules)}
    rules = [_rule(r, severities.get(r.code, r.severity)) for r in report.rules]
    results = []
    for f in report.findings:
        message, related = _schema_side(f, root, cwd)
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": _LEVEL.get(f.severity, "error"),
            "message": {"text": message},
            "locations": [  # none for a finding about the whole tree
                {
                    "physicalLocation": {
                        "artifactLocation": _location(root, f.path, cwd),
                        "region": {"startLine": f.line, "startColumn": f.column},
                    }
                }
            ]
            if f.path
            else [],
            "partialFingerprints": {"driftCheckKey/v1": _fingerprint(f, report)},
        }
        if related:
            result["relatedLocations"] = related
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        subject = {k: v for k, v in (("agent", f.agent), ("marker", f.marker)) if v is not None}
        if subject:
            result["properties"] = subject
        fixes = _fix(f, root, cwd)
        if fixes:
            result["fixes"] = fixes
        results.append(result)
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "drift-check",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {
                    BASE_ID: {"description": {"text": "The directory drift-check ran in."}}
                },
                "properties": {"preset": report.facts.preset},
                "results": results,
            }
        ],
    }


def render(report: Report, cwd: str | None = None) -> str:
    data = as_dict(report, cwd or os.getcwd())
    return json.dumps(data, indent=2, ensure_ascii=True) + "\n"

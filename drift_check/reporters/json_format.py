"""JSON output, schema version 1 (documented in docs/json-schema.md)."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from drift_check import __version__
from drift_check.engine import Report

if TYPE_CHECKING:
    from drift_check.rules.base import Finding

SCHEMA_VERSION = 1


def as_dict(report: Report) -> dict[str, Any]:
    return _document(report, [_finding(f) for f in report.findings])


def _finding(f: Finding) -> dict[str, Any]:
    item: dict[str, Any] = {
        "code": f.code,
        "name": f.name,
        "severity": f.severity,
        # null for a finding about the whole tree, with no place in a file
        "path": f.path or None,
        "line": f.line if f.path else None,
        "column": f.column if f.path else None,
        "message": f.message,
    }
    if f.agent is not None:
        item["agent"] = f.agent
    if f.marker is not None:
        item["marker"] = f.marker
    if f.schema is not None:
        item["schema"] = {
            "path": f.schema.path,
            "pointer": "#" + f.schema.pointer,
            "line": f.schema.position.line,
            "column": f.schema.position.column,
        }
    if f.fix is not None:
        item["fix"] = {"applicability": f.fix.applicability, "description": f.fix.description}
    return item


def _document(report: Report, findings: list[dict[str, Any]]) -> dict[str, Any]:
    facts = report.facts
    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": "drift-check", "version": __version__},
        "root": report.config.root,
        "preset": report.facts.preset,
        "registry": facts.registry_path,
        "summary": {
            "findings": len(report.findings),
            "by_code": dict(sorted(Counter(f.code for f in report.findings).items())),
            "by_severity": dict(sorted(Counter(f.severity for f in report.findings).items())),
            "agents": len(facts.all_agents),
            "components": {noun.replace(" ", "_") + "s": n for n, noun in facts.components.counts()}
            | {"agents": len(facts.all_agents), "skills": len(facts.skills)},
            "registry_rows": len(facts.registry.rows) if facts.registry else 0,
            "consumer_files": len(facts.consumers),
        },
        "findings": findings,
    }


# JSON leaves these raw with ensure_ascii=False; escaped, the output is safe on a terminal.
_RAW = re.compile("[\x7f-\x9f\u2028\u2029]")


def render(report: Report) -> str:
    """The document as `json.dumps(as_dict(report), indent=2)` writes it, each finding
    encoded on its own: the encoding of a large tree's findings at once held half again
    the memory of the run's facts."""
    head = _dumps(_document(report, []))  # ends with the empty `"findings": []` and `}`
    if not report.findings:
        return head + "\n"
    parts = [head[: -len("[]\n}")], "[\n"]
    for f in report.findings:
        if len(parts) > 2:
            parts.append(",\n")
        # two levels deeper in the document; a JSON string never holds a raw newline
        parts.append("    " + _dumps(_finding(f)).replace("\n", "\n    "))
    parts.append("\n  ]\n}\n")
    return "".join(parts)


def _dumps(value: dict[str, Any]) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)

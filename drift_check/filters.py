"""After the rules: suppression comments, per-file ignores and the baseline decide which
findings are reported."""

import json
from typing import Any, NamedTuple

from drift_check.facts import Directive, Facts, Position
from drift_check.rules import Finding, Rule
from drift_check.scanners.files import matches

BASELINE_VERSION = 1


def _covers(codes: tuple[str, ...], code: str) -> str | None:
    """The entry of `codes` (a code or a prefix) that covers `code`, if any."""
    return next((c for c in codes if code.startswith(c)), None)


def suppress(
    findings: list[Finding],
    facts: Facts,
    per_file: dict[str, list[str]],
    rules: tuple[Rule, ...],
    unused_rule: Rule | None,
) -> list[Finding]:
    """Drop the findings a suppression comment or a per-file ignore covers; report each
    comment (or code in it) that covered nothing, when `unused_rule` is selected. A code of
    a rule that did not run is not called unused: it could not have been used."""
    used: set[tuple[Position, str]] = set()
    kept = []
    for f in findings:
        if any(
            matches(f.path, [glob]) and _covers(tuple(c.upper() for c in codes), f.code)
            for glob, codes in per_file.items()
        ):
            continue
        hit = _directive_for(f, facts.directives.get(f.path, ()))
        if hit is None:
            kept.append(f)
        else:
            used.add(hit)
    if unused_rule is not None:
        ran = [r.code for r in rules]
        kept.extend(_unused(facts, used, unused_rule, ran))
    return sorted(kept)


def _directive_for(f: Finding, directives: tuple[Directive, ...]) -> tuple[Position, str] | None:
    for d in directives:
        if d.whole_file or d.position.line in (f.line, f.line - 1):
            entry = _covers(d.codes, f.code)
            if entry is not None:
                return d.position, entry
    return None


def _unused(
    facts: Facts, used: set[tuple[Position, str]], rule: Rule, ran: list[str]
) -> list[Finding]:
    out = []
    for path in sorted(facts.directives):
        for d in facts.directives[path]:
            idle = [
                c
                for c in d.codes
                if (d.position, c) not in used and any(code.startswith(c) for code in ran)
            ]
            if not d.codes:
                idle = ["(no code)"]
            if idle:
                kind = "ignore-file" if d.whole_file else "ignore"
                out.append(
                    Finding(
                        path,
                        d.position.line,
                        d.position.column,
                        rule.code,
                        f"`{kind}[{', '.join(idle)}]` suppresses nothing here; remove it",
                        rule.name,
                        rule.severity,
                    )
                )
    return out


class BaselineEntry(NamedTuple):
    code: str
    path: str
    key: str  # what the finding is about: agent, marker and the text of its line

    def as_dict(self, count: int) -> dict[str, Any]:
        return {"code": self.code, "path": self.path, "key": self.key, "count": count}


def baseline_key(f: Finding, facts: Facts) -> BaselineEntry:
    """Findings are matched by code, path and content, not line number, so edits above a
    finding do not break the baseline."""
    source = facts.sources.get(f.path)
    line = ""
    if source is not None:
        lines = source.text.split("\n")
        if 0 < f.line <= len(lines):
            line = " ".join(lines[f.line - 1].split())
    return BaselineEntry(f.code, f.path, f"{f.agent or ''}|{f.marker or ''}|{line}")


def baseline_text(findings: list[Finding], facts: Facts) -> str:
    counts: dict[BaselineEntry, int] = {}
    for f in findings:
        key = baseline_key(f, facts)
        counts[key] = counts.get(key, 0) + 1
    entries = [key.as_dict(n) for key, n in sorted(counts.items())]
    data = {"version": BASELINE_VERSION, "findings": entries}
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def read_baseline(text: str, where: str) -> dict[BaselineEntry, int]:
    """The entries of a baseline file; ValueError with a plain message when it is not one."""
    try:
        data = json.loads(text)
        if data.get("version") != BASELINE_VERSION:
            raise ValueError(f"unsupported baseline version {data.get('version')!r}")
        return {
            BaselineEntry(str(e["code"]), str(e["path"]), str(e["key"])): int(e.get("count", 1))
            for e in data["findings"]
        }
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{where}: not a drift-check baseline ({exc})") from None


def apply_baseline(
    findings: list[Finding], facts: Facts, baseline: dict[BaselineEntry, int]
) -> tuple[list[Finding], list[BaselineEntry]]:
    """The findings the baseline does not hold, and the baseline entries that no longer
    occur (fixed drift: the baseline can shrink)."""
    left = dict(baseline)
    new = []
    for f in findings:
        key = baseline_key(f, facts)
        if left.get(key, 0) > 0:
            left[key] -= 1
        else:
            new.append(f)
    stale = sorted(k for k, n in left.items() if n > 0 and k in baseline)
    return new, stale

"""The pipeline: config -> scanners -> facts -> rules -> findings."""

from typing import NamedTuple

from drift_check.config import Config
from drift_check.facts import Facts
from drift_check.rules import Finding, Rule, selected
from drift_check.scanners import build_facts, discover_tree


class Report(NamedTuple):
    config: Config
    facts: Facts
    rules: tuple[Rule, ...]
    findings: tuple[Finding, ...]


def run(
    config: Config,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    overlay: dict[str, str] | None = None,
) -> Report:
    """Scan the tree once, run every selected rule over the facts, drop what suppression
    comments and per-file ignores cover, return the findings sorted. `overlay` maps paths to
    texts read instead of the files (fixes checked in memory)."""
    discovered = discover_tree(config, overlay)
    config = discovered.config
    facts = build_facts(config, discovered)
    rules = selected(select or config.select, config.ignore + ignore)
    found: set[Finding] = set()
    for r in rules:
        found.update(r.findings(facts, config.severities.get(r.code)))
    findings = sorted(found)
    if facts.directives or config.per_file_ignores:
        from drift_check.filters import suppress

        unused = next((r for r in rules if r.code == "DC010"), None)
        if unused is not None and config.severities.get("DC010"):
            unused = unused._replace(severity=config.severities["DC010"])
        findings = suppress(findings, facts, config.per_file_ignores, tuple(rules), unused)
    return Report(config, facts, tuple(rules), tuple(findings))

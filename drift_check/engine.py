"""The pipeline: config -> scanners -> facts -> rules -> suppression -> findings.

`scan` reads the tree into facts, `check` runs the rules over them; `run` is the two."""

from time import perf_counter

from drift_check.config import Config
from drift_check.facts import Facts, Suppressions
from drift_check.records import NamedTuple
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
    phases: dict[str, float] | None = None,
) -> Report:
    """Scan the tree once and check the facts (see `scan` and `check`). `overlay` maps
    paths to texts read instead of the files (fixes checked in memory); `phases` adds up
    the seconds each stage took (`--verbose`)."""
    facts = scan(config, overlay, phases)
    findings = check(facts, select, ignore, phases)
    return Report(facts.config, facts, rules_run(facts.config, select, ignore), findings)


def scan(
    config: Config,
    overlay: dict[str, str] | None = None,
    phases: dict[str, float] | None = None,
) -> Facts:
    """Discover the tree's components (choosing the packs, unless the config names them) and
    scan each once into facts; `facts.config` is the config with its packs chosen."""
    clock = _Clock(phases)
    discovered = discover_tree(config, overlay)
    clock.lap("discovery")
    facts = build_facts(discovered.config, discovered)
    clock.lap("scan")
    return facts


def rules_run(
    config: Config, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()
) -> tuple[Rule, ...]:
    """The rules a check runs: the selection given, else the config's, less what either
    ignores."""
    return tuple(selected(select or config.select, config.ignore + ignore))


def check(
    facts: Facts,
    select: tuple[str, ...] = (),
    ignore: tuple[str, ...] = (),
    phases: dict[str, float] | None = None,
) -> tuple[Finding, ...]:
    """Run every selected rule over the facts, drop what suppression comments and per-file
    ignores cover, run the rules that read what the suppression stage left, return the
    findings sorted."""
    clock = _Clock(phases)
    config = facts.config
    rules = rules_run(config, select, ignore)
    found: set[Finding] = set()
    for part in _findings(facts, [r for r in rules if r.reads == "facts"]):
        found.update(part)
    findings = sorted(found)
    clock.lap("rules")
    suppressions = Suppressions()
    if facts.directives or config.per_file_ignores:
        from drift_check.filters import Scope, suppress

        scope = Scope(
            frozenset(r.code for r in rules if r.reads == "facts"),
            frozenset(r.code for r in selected(config.select, config.ignore) if r.reads == "facts"),
        )
        findings, suppressions = suppress(findings, facts, config.per_file_ignores, scope)
    late: set[Finding] = set()
    for r in rules:
        if r.reads == "suppressions":
            late.update(r.findings(suppressions, config.severities.get(r.code)))
    if late:  # they report on the comments, which cannot hide them; the config can
        from drift_check.filters import per_file_ignored

        findings = sorted(
            [*findings, *(f for f in late if not per_file_ignored(f, config.per_file_ignores))]
        )
    clock.lap("suppressions")
    return tuple(findings)


# The rules run in several processes only over the facts of this many files or more: a
# smaller tree's rules cost less than a copy of the process does (about 5 ms, and its
# memory's pages copied as either process writes them).
LEAST_SOURCES_FOR_PARTS = 1000
# The rules measured costliest on the benchmark's trees (docs/performance.md), taken first
# when the rules run in several processes: the one taken last is then a short one.
COSTLY_FIRST = ("DC923", "DC921", "DC920", "DC706", "DC607", "DC603", "DC610", "DC506", "DC701")


def _findings(facts: Facts, rules: list[Rule]) -> list[list[Finding]]:
    """The findings of `rules` over the facts, by unit of work: the rules that share a
    cache are one unit, every other rule its own. A large tree's units run on every core,
    the costliest first."""
    from drift_check.parallel import in_worker, map_units

    severities = facts.config.severities

    def work(unit: list[Rule]) -> list[Finding]:
        found = [f for r in unit for f in r.findings(facts, severities.get(r.code))]
        return [_sendable(f) for f in found] if in_worker() else found

    units: dict[str, list[Rule]] = {}
    for r in rules:
        units.setdefault(r.shares or r.code, []).append(r)
    if len(facts.sources) < LEAST_SOURCES_FOR_PARTS:
        return [work(unit) for unit in units.values()]
    rank = {code: i for i, code in enumerate(COSTLY_FIRST)}
    order = sorted(units.values(), key=lambda u: min(rank.get(r.code, len(rank)) for r in u))
    return map_units(work, order)


def _sendable(finding: Finding) -> Finding:
    """A finding as a worker sends it: a fix's edits worked out (a function that would
    work them out when asked, as most fixes hold, cannot be sent; it gives the same edits
    here, from the same facts)."""
    fix = finding.fix
    if fix is None or not callable(fix.edits):
        return finding
    return finding._replace(fix=fix._replace(edits=fix.resolve()))


class _Clock:
    """Adds the time since the last lap to `phases[name]` (nothing when `phases` is None)."""

    def __init__(self, phases: dict[str, float] | None) -> None:
        self.phases = phases
        self.last = perf_counter()

    def lap(self, name: str) -> None:
        if self.phases is not None:
            now = perf_counter()
            self.phases[name] = self.phases.get(name, 0.0) + now - self.last
            self.last = now

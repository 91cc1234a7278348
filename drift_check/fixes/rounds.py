"""The rounds of `--fix` and `--diff`, in memory, each fix checked before it is kept.

A round plans the fixes that do not overlap, applies them to the texts in memory and runs
the rules again on the edited texts (the repository reads them through an overlay, so
nothing is written). A round that creates no finding is kept whole; one that does is split
in halves until each fix that creates a finding is found, and those are withheld (reported
with the finding they would create). Rounds go on until none changes anything; the fixes
withheld one at a time are then tried once more as one group, since two edits may each
create a finding alone and none together. `--fix` then writes the final texts, `--diff`
prints them.
"""

from collections import Counter
from collections.abc import Callable

from drift_check.engine import Report
from drift_check.facts import Source
from drift_check.filters import baseline_key
from drift_check.fixes.planner import FileChange, Planned, apply, changed, select
from drift_check.records import NamedTuple
from drift_check.rules.base import Finding

ROUNDS = 10

Rerun = Callable[[dict[str, str]], Report]  # the rules run again, on these texts in memory
Targets = Callable[[Report], list[Finding]]  # the findings to fix (not the baselined ones)
Frozen = Callable[[Report], list[Finding]]  # the findings whose key must not change


class Withheld(NamedTuple):
    """A fix not written: it would create `created` (a finding that was not there)."""

    finding: Finding
    description: str
    created: Finding
    key: tuple[str, str, str] = ("", "", "")  # the finding's identity when it was withheld


class Outcome(NamedTuple):
    changes: list[FileChange]  # each changed file: its text before and after every round
    report: Report  # the rules on the final texts
    withheld: list[Withheld]
    refused: frozenset[tuple[str, str, str]]  # the findings whose fixes were withheld

    def without_withheld(self, report: Report) -> Report:
        """`report` with no fix offered on a finding whose fix was withheld: what is left
        there is for a person."""
        findings = tuple(
            f._replace(fix=None) if f.fix is not None and identity(f, report) in self.refused else f
            for f in report.findings
        )
        return report._replace(findings=findings)


def new_findings(
    before: Report, after: Report, changed: set[str], frozen: frozenset[Finding] = frozenset()
) -> list[Finding]:
    """The findings of `after` that `before` does not have. They are matched as the baseline
    matches them (code, path and the text of their line, agent and marker). A fix edits
    lines, and may rename the agent a finding is about: in a file a fix changed, a finding
    left unmatched is still the same one as a finding of its code left unmatched before,
    unless that one is `frozen` (a baselined finding must keep its key, or it would come
    back as new)."""
    left = Counter(baseline_key(f, before.facts) for f in before.findings)
    unmatched = []
    for f in after.findings:
        key = baseline_key(f, after.facts)
        if left[key] > 0:
            left[key] -= 1
        else:
            unmatched.append(f)
    if not unmatched:
        return []
    loose: Counter[tuple[str, str]] = Counter()
    for f in before.findings:
        key = baseline_key(f, before.facts)
        if left[key] > 0 and f.path in changed and f not in frozen:
            left[key] -= 1
            loose[(f.code, f.path)] += 1
    out = []
    for f in unmatched:
        if f.path in changed and loose[(f.code, f.path)] > 0:
            loose[(f.code, f.path)] -= 1
        else:
            out.append(f)
    return out


def run_rounds(
    report: Report, rerun: Rerun, unsafe: bool, targets: Targets, frozen: Frozen = lambda r: []
) -> Outcome:
    """Every round `--fix` runs, in memory: the final texts, the report on them, and the
    fixes withheld because they would create a finding."""
    # the texts of the files fixes touch, edited or not; the others stay on disk, where the
    # reruns read them
    texts: dict[str, str] = {}
    sources = dict(report.facts.sources)  # each file as first read: its bytes and their style
    withheld: list[Withheld] = []
    refused: set[tuple[str, str, str]] = set()  # (code, path, key) of withheld findings' fixes
    # how many findings of a subject there were when a fix of it was applied: while there
    # are as many, its fix left its finding, and is not applied again
    applied: dict[tuple[str, str, str | None, str | None, str], int] = {}
    current = report
    retried: set[frozenset[tuple[str, str, str]]] = set()
    for _ in range(ROUNDS):
        for path, source in current.facts.sources.items():
            sources.setdefault(path, source)  # a file first read in a later round
        found = targets(current)
        count = Counter(_subject(f) for f in found)
        wanted = [
            f
            for f in found
            if f.fix is not None
            and identity(f, current) not in refused
            and count[_subject(f)] < applied.get(_subject(f), len(found) + 1)
        ]
        planned = select(wanted, current.facts, unsafe)
        if not planned:
            # fixes withheld one at a time may be clean together (a marker renamed in the
            # agent and dropped from its row): try them as one group once, so that a second
            # run does not apply what this one withheld
            planned = select(
                [f for f in found if f.fix is not None and identity(f, current) in refused],
                current.facts,
                unsafe,
            )
            group = frozenset(identity(p.finding, current) for p in planned)
            if len(planned) < 2 or group in retried:
                break
            retried.add(group)
            _take(planned, texts, sources)
            edited = apply(planned, texts)
            after = rerun({**texts, **edited})
            if not edited or new_findings(current, after, set(edited), frozenset(frozen(current))):
                break
            refused -= group
            withheld = [w for w in withheld if w.key not in group]
            texts.update(edited)
            current = after
            continue
        _take(planned, texts, sources)
        good, after, bad = _sort_out(planned, current, texts, rerun, frozenset(frozen(current)))
        for p, created in bad:
            key = identity(p.finding, current)
            refused.add(key)
            withheld.append(Withheld(p.finding, p.fix.description, created, key))
        if not good:
            continue  # the fixes that waited behind a withheld one get their turn
        edited = apply(good, texts)
        if not edited:
            break  # fixes that change nothing: the tree is as fixed as it gets
        applied.update((_subject(p.finding), count[_subject(p.finding)]) for p in good)
        texts.update(edited)
        assert after is not None
        current = after
    changes = []
    for path in sorted(texts):
        s = sources[path]
        old = s.text  # read again, if it was let go: unchanged on disk, or SourceChanged
        if texts[path] != old:
            changes.append(changed(s, old, texts[path]))
    return Outcome(changes, current, withheld, frozenset(refused))


def _take(planned: list[Planned], texts: dict[str, str], sources: dict[str, Source]) -> None:
    """Add to `texts` the text of each file `planned` edits that no round has edited yet."""
    for p in planned:
        for path, *_ in p.spans:
            if path not in texts:
                texts[path] = sources[path].text


def _subject(f: Finding) -> tuple[str, str, str | None, str | None, str]:
    return (f.code, f.path, f.agent, f.marker, f.message)


def identity(f: Finding, report: Report) -> tuple[str, str, str]:
    key = baseline_key(f, report.facts)
    return (key.code, key.path, key.key + "|" + f.message)


def _sort_out(
    planned: list[Planned],
    current: Report,
    texts: dict[str, str],
    rerun: Rerun,
    frozen: frozenset[Finding],
) -> tuple[list[Planned], Report | None, list[tuple[Planned, Finding]]]:
    """The fixes of a round that create no finding (with the report on their texts), and
    each one that does, with a finding it creates. One run of the rules when the round is
    clean; halves, then halves of those, when it is not."""

    def trial(group: list[Planned]) -> tuple[Report, list[Finding]]:
        edited = apply(group, texts)
        after = rerun({**texts, **edited})
        return after, new_findings(current, after, set(edited), frozen)

    def split(
        group: list[Planned], created: list[Finding] | None = None
    ) -> tuple[list[Planned], list[tuple[Planned, Finding]]]:
        if created is None:
            created = trial(group)[1]
        if not created:
            return group, []
        if len(group) == 1:
            return [], [(group[0], created[0])]
        half = len(group) // 2
        good_a, bad_a = split(group[:half])
        good_b, bad_b = split(group[half:])
        return good_a + good_b, bad_a + bad_b

    after, created = trial(planned)
    if not created:
        return planned, after, []
    # first suspect the fixes of findings about the same agent or marker as what was
    # created: when the others are clean together, only the suspects are split
    suspects = [p for p in planned if any(_related(p.finding, c) for c in created)]
    others = [p for p in planned if not any(p is s for s in suspects)]
    if suspects and others and not trial(others)[1]:
        good, bad = split(suspects)
        good = others + good
    else:
        good, bad = split(planned, created)
    if good:
        after, created = trial(good)
        if not created:
            return good, after, bad
    # fixes that are clean apart create a finding together: keep them one by one
    together: list[Planned] = []
    result: Report | None = None
    for p in good:
        after, created = trial([*together, p])
        if created:
            bad.append((p, created[0]))
        else:
            together.append(p)
            result = after
    return together, result, bad


def _related(f: Finding, created: Finding) -> bool:
    return (f.marker is not None and f.marker == created.marker) or (
        f.agent is not None and f.agent == created.agent
    )

"""What a rule is: metadata next to its check, and the findings it yields."""

from collections.abc import Callable, Iterator
from typing import Any

from drift_check.facts import Facts, Position, SchemaPointer, Suppressions
from drift_check.fixes.model import Applicability, Edit, Fix
from drift_check.records import NamedTuple

__all__ = [
    "Applicability",
    "Check",
    "Edit",
    "Finding",
    "Fix",
    "Hit",
    "Rule",
    "SuppressionCheck",
    "rule",
]


class Hit(NamedTuple):
    """What a check yields: where, what is wrong and what to do, and its subject."""

    position: Position
    message: str
    agent: str | None = None
    marker: str | None = None
    fix: Fix | None = None
    schema: SchemaPointer | None = None  # the schema side, for a finding about a schema


class Finding(NamedTuple):
    path: str
    line: int
    column: int
    code: str
    message: str
    name: str
    severity: str
    agent: str | None = None
    marker: str | None = None
    fix: Fix | None = None
    schema: SchemaPointer | None = None


Check = Callable[[Facts], Iterator[Hit]]
# a rule that reads what the suppression stage left (DC010), not the facts
SuppressionCheck = Callable[[Suppressions], Iterator[Hit]]
READS = ("facts", "suppressions")


def _cleaned(doc: str) -> str:
    """`doc` without its common indentation (`inspect` is imported only when `explain`,
    `rules`, the docs or a report that describes rules asks: not at a run's start-up)."""
    import inspect

    return inspect.cleandoc(doc)


class Rule(NamedTuple):
    """A rule: its metadata next to its check. The documentation is kept as written and
    cleaned up only when `explain`, `rules` or the docs ask for it."""

    code: str
    name: str
    severity: str
    check: Callable[[Any], Iterator[Hit]]  # a Check, or a SuppressionCheck (see `reads`)
    failing_example: str
    passing_example: str
    blind_spot: bool = False  # beyond GSD's own check-contract-drift
    fix: Applicability | None = None  # what its fixes are, when the rule offers one
    reads: str = "facts"  # or "suppressions": it runs after the suppression stage, on its output
    shares: str = ""  # rules naming one `shares` work out one cache: they run in one process

    @property
    def _doc(self) -> tuple[str, str]:
        summary, _, explanation = _cleaned(self.check.__doc__ or "").partition("\n\n")
        return " ".join(summary.split()), explanation.strip()

    @property
    def summary(self) -> str:
        return self._doc[0]

    @property
    def explanation(self) -> str:
        return self._doc[1]

    @property
    def failing(self) -> str:
        return _cleaned(self.failing_example)

    @property
    def passing(self) -> str:
        return _cleaned(self.passing_example)

    def findings(
        self, given: Facts | Suppressions, severity: str | None = None
    ) -> Iterator[Finding]:
        """The rule's findings over what it reads (`reads`): the facts, or the suppression
        stage's output."""
        for hit in self.check(given):
            yield Finding(
                hit.position.path,
                hit.position.line,
                hit.position.column,
                self.code,
                hit.message,
                self.name,
                severity or self.severity,
                hit.agent,
                hit.marker,
                hit.fix,
                hit.schema,
            )


def rule(
    code: str,
    name: str,
    severity: str = "error",
    *,
    failing: str,
    passing: str,
    blind_spot: bool = False,
    fix: Applicability | str | None = None,
    reads: str = "facts",
    shares: str = "",
) -> Callable[[Callable[[Any], Iterator[Hit]]], Rule]:
    """Declare a rule. The check's docstring is its documentation: the first paragraph is
    the summary, the rest says why it matters and what to do. `reads`: "facts" (the scan's
    model), or "suppressions" (the suppression stage's output: the check then runs after
    every rule that reads facts, on what suppression comments did with their findings).
    `shares`: the name of a cache the check shares with other rules (they run in one
    process when the rules run on several)."""
    if reads not in READS:
        raise ValueError(f"{code}: reads is one of {READS}, not {reads!r}")

    def wrap(check: Callable[[Any], Iterator[Hit]]) -> Rule:
        declared = None if fix is None else Applicability(fix)
        return Rule(
            code, name, severity, check, failing, passing, blind_spot, declared, reads, shares
        )

    return wrap

"""What a rule is: metadata next to its check, and the findings it yields."""

import inspect
from collections.abc import Callable, Iterator
from typing import NamedTuple

from drift_check.facts import Facts, Position, SchemaPointer
from drift_check.fixes.model import Applicability, Edit, Fix

__all__ = ["Applicability", "Check", "Edit", "Finding", "Fix", "Hit", "Rule", "rule"]


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


class Rule(NamedTuple):
    """A rule: its metadata next to its check. The documentation is kept as written and
    cleaned up only when `explain`, `rules` or the docs ask for it."""

    code: str
    name: str
    severity: str
    check: Check
    failing_example: str
    passing_example: str
    blind_spot: bool = False  # beyond GSD's own check-contract-drift
    fix: Applicability | None = None  # what its fixes are, when the rule offers one

    @property
    def _doc(self) -> tuple[str, str]:
        summary, _, explanation = inspect.cleandoc(self.check.__doc__ or "").partition("\n\n")
        return " ".join(summary.split()), explanation.strip()

    @property
    def summary(self) -> str:
        return self._doc[0]

    @property
    def explanation(self) -> str:
        return self._doc[1]

    @property
    def failing(self) -> str:
        return inspect.cleandoc(self.failing_example)

    @property
    def passing(self) -> str:
        return inspect.cleandoc(self.passing_example)

    def findings(self, facts: Facts, severity: str | None = None) -> Iterator[Finding]:
        for hit in self.check(facts):
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
) -> Callable[[Check], Rule]:
    """Declare a rule. The check's docstring is its documentation: the first paragraph is
    the summary, the rest says why it matters and what to do."""

    def wrap(check: Check) -> Rule:
        declared = None if fix is None else Applicability(fix)
        return Rule(code, name, severity, check, failing, passing, blind_spot, declared)

    return wrap

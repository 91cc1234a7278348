"""What a rule is: metadata next to its check, and the findings it yields."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import NamedTuple

from drift_check.facts import Facts, Position


class Hit(NamedTuple):
    """What a check yields: where, what is wrong and what to do, and its subject."""

    position: Position
    message: str
    agent: str | None = None
    marker: str | None = None


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


Check = Callable[[Facts], Iterator[Hit]]


class Rule(NamedTuple):
    code: str
    name: str
    severity: str
    summary: str
    explanation: str
    failing: str
    passing: str
    check: Check
    blind_spot: bool = False  # beyond GSD's own check-contract-drift

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
            )


def rule(
    code: str,
    name: str,
    severity: str = "error",
    *,
    failing: str,
    passing: str,
    blind_spot: bool = False,
) -> Callable[[Check], Rule]:
    """Declare a rule. The check's docstring is its documentation: the first paragraph is
    the summary, the rest says why it matters and what to do."""

    def wrap(check: Check) -> Rule:
        doc = inspect.cleandoc(check.__doc__ or "")
        summary, _, explanation = doc.partition("\n\n")
        summary = " ".join(summary.split())
        return Rule(
            code=code,
            name=name,
            severity=severity,
            summary=summary.strip(),
            explanation=explanation.strip(),
            failing=inspect.cleandoc(failing),
            passing=inspect.cleandoc(passing),
            check=check,
            blind_spot=blind_spot,
        )

    return wrap

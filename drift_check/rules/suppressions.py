"""DC010: suppressions that suppress nothing. The engine reports these once every other rule
has run, since only then is it known which comments were used."""

from collections.abc import Iterator

from drift_check.facts import Facts
from drift_check.rules.base import Hit, rule


@rule(
    "DC010",
    "unused-suppression",
    "warning",
    failing="""
        agents/gsd-planner.md:
            <!-- drift-check: ignore[DC103] kept from before the row was added -->
            (the agent has a row now: nothing is suppressed)
    """,
    passing="""
        the comment is removed once the finding it silenced is fixed
    """,
)
def unused_suppression(facts: Facts) -> Iterator[Hit]:
    """A suppression comment, or a code in it, suppresses no finding.

    A stale suppression hides the next, real finding at that place. Remove the comment (or
    the code from its list). Suppressions are `<!-- drift-check: ignore[CODE, ...] reason -->`
    on the line before a finding or on its line, `ignore-file[CODE]` for a whole file, and
    `# drift-check: ignore[CODE] reason` in Python.
    """
    return iter(())


RULES = (unused_suppression,)

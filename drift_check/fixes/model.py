"""The edit model: what a fix is, how sure it is, and the spans of text it replaces."""

from collections.abc import Callable
from enum import StrEnum

from drift_check.records import NamedTuple


class Applicability(StrEnum):
    """How sure a fix is. `--fix` applies the safe ones, `--unsafe-fixes` adds the unsafe
    ones. A fix is safe or unsafe; `sometimes` is only a rule's declaration, for a rule
    whose fix is safe in some cases and unsafe in others (DC304 drops prose only
    sometimes). Equal to its plain string, so `"safe"` still compares."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    SOMETIMES = "sometimes"


class Edit(NamedTuple):
    """Replace the text between two positions (1-based, the end just after the last
    character) of one file."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    text: str


class Fix(NamedTuple):
    description: str
    applicability: Applicability  # SAFE or UNSAFE, never SOMETIMES
    # the edits, or a function that computes them: only --fix and --diff need them, and
    # some (a new registry row) cost a search the check itself does not
    edits: "tuple[Edit, ...] | Callable[[], tuple[Edit, ...]]"

    def resolve(self) -> tuple[Edit, ...]:
        return self.edits() if callable(self.edits) else self.edits

    def applies(self, unsafe: bool) -> bool:
        """Whether `--fix` applies it (with `--unsafe-fixes` when `unsafe`)."""
        return unsafe or self.applicability == Applicability.SAFE

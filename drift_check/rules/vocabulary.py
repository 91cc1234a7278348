"""DC950-DC959: state vocabularies: the states a field takes, against who sets and who
handles them.

A vocabulary (`Facts.vocabularies`) is one field's states: the list that defines them (a
schema `enum`, a states table, a template's `a | b` alternatives, or what the pack's
`vocabularies` setting names), the copies that restate it, the values producers give the
field, and the handlers that branch on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from drift_check.facts import Facts, Position, StateList, StateName, Vocabulary
from drift_check.rules.base import Hit, rule

_LISTED = 8  # states named in a message before "and N more"


def _at(position: Position) -> str:
    return str(position)


def _names(names: Iterable[str]) -> str:
    names = list(names)
    shown = ", ".join(f"`{n}`" for n in names[:_LISTED])
    return shown + (f" and {len(names) - _LISTED} more" if len(names) > _LISTED else "")


def _first(states: Iterable[StateName]) -> dict[str, StateName]:
    """Each name once, at its first place (in path and line order)."""
    out: dict[str, StateName] = {}
    for state in sorted(states, key=lambda s: s.position):
        out.setdefault(state.name, state)
    return out


def _handled(vocabulary: Vocabulary) -> set[str]:
    return {s.name for h in vocabulary.handlers for s in h.states}


def _source(vocabulary: Vocabulary) -> str:
    assert vocabulary.source is not None
    return f"{vocabulary.source.label} ({_at(vocabulary.source.position)})"


def _where(handler: StateList, here: Position) -> str:
    if handler.position == here:
        return f"{handler.label} here"
    return f"{handler.label} at {_at(handler.position)}"


_CODE_KINDS = frozenset({"python", "typescript"})


@rule(
    "DC950",
    "unhandled-state",
    failing="""
        skills/agent-protocol/examples.md:   "plan_status": "APPROVAL_REQUEST"
        skills/agent-response/SKILL.md:      | `COMPLETE` | ... |  | `BLOCKED` | ... |
                                             (no row for APPROVAL_REQUEST)
    """,
    passing="""
        skills/agent-response/SKILL.md:      | `APPROVAL_REQUEST` | load the approval skill |
    """,
    blind_spot=True,
)
def unhandled_state(facts: Facts) -> Iterator[Hit]:
    """A state producers emit that no handler of the field branches on.

    An agent ends its turn with that state and the orchestrator's state table, list or
    tree has no row for it: the turn falls through at run time. Add a branch for the state
    to the handler (the finding sits on the first one), or stop emitting it. Only states the
    field's source defines are reported here (an undefined one is DC952), and only where the
    field has a handler written as a table, list or tree: comparisons in code (`if status ==
    "done"`, `status in {"passed", "skipped"}`) handle every other state by falling through
    to what follows, on purpose or not, which code alone does not say.
    """
    for vocabulary in facts.vocabularies:
        written = [h for h in vocabulary.handlers if h.kind not in _CODE_KINDS]
        if not written:
            continue
        defined = vocabulary.defined
        handled = _handled(vocabulary)
        here = written[0].position
        where = "; ".join(_where(h, here) for h in vocabulary.handlers)
        for name, state in _first(vocabulary.emitted).items():
            if name in handled or (defined and name not in defined):
                continue
            yield Hit(
                here,
                f"`{vocabulary.field}` state `{name}` is emitted ({_at(state.position)}) but"
                f" no handler branches on it ({where}); add a branch for `{name}`, or stop"
                " emitting it",
                marker=name,
            )


@rule(
    "DC951",
    "unknown-handled-state",
    failing="""
        skills/agent-response/SKILL.md:   |- REVIEW  -> load Skill("orchestrator-approval")
        (no agent emits REVIEW; agent-protocol's states table does not define it)
    """,
    passing="""
        skills/agent-response/SKILL.md:   |- APPROVAL_REQUEST -> Skill("orchestrator-approval")
    """,
    blind_spot=True,
)
def unknown_handled_state(facts: Facts) -> Iterator[Hit]:
    """A handler branches on a state that nothing emits and the field's source does not
    define.

    The branch is dead: usually the state was renamed on the producing side and the handler
    kept the old name, so the new state falls through (DC950 reports that side). Rename the
    branch to a defined state, or remove it. Checked only where the field has a source.
    """
    for vocabulary in facts.vocabularies:
        if vocabulary.source is None:
            continue
        defined = vocabulary.defined
        known = defined | {s.name for s in vocabulary.emitted}
        handled = _handled(vocabulary)
        # a defined state no handler has: the likely new name of a renamed branch
        missing = sorted(defined - handled)
        for handler in vocabulary.handlers:
            for state in handler.states:
                if state.name in known:
                    continue
                hint = (
                    f" (`{missing[0]}` is defined and handled nowhere: renamed?)"
                    if len(missing) == 1
                    else ""
                )
                yield Hit(
                    state.position,
                    f"`{vocabulary.field}` state `{state.name}` is handled here but nothing"
                    f" emits it and {_source(vocabulary)} does not define it{hint}; rename"
                    " the branch to a defined state or remove it",
                    marker=state.name,
                )


@rule(
    "DC952",
    "undefined-state",
    failing="""
        agents/developer.md:   "plan_status": "DONE"
        (agent-protocol's states table: IN_PROGRESS, APPROVAL_REQUEST, COMPLETE, ...)
    """,
    passing="""
        agents/developer.md:   "plan_status": "COMPLETE"
    """,
    blind_spot=True,
)
def undefined_state(facts: Facts) -> Iterator[Hit]:
    """A producer or a copy of the vocabulary uses a state the field's source does not
    define.

    A producer emitting it breaks every consumer that validates against the source; a copy
    (a second schema, a Python set, a TypeScript union) that lists it has drifted from the
    source. Use a defined state, or add the state to the source first. A block that claims
    the source's schema is validated against it by the structured-contract rules (DC925),
    so its values are not reported here again. A template's `a | b` alternatives do not
    judge skills that keep modes of their own: where two or more other skills each give the
    field only states the alternatives lack, and not the same ones (`"intent": "brainstorm"`,
    `"intent": "run"` beside `"create | update | validate"`), those skills are left out.
    """
    validated = {(b.path, b.schema) for b in facts.structured.blocks if b.schema}
    for vocabulary in facts.vocabularies:
        if vocabulary.source is None:
            continue
        defined = vocabulary.defined
        schema = vocabulary.source.position.path
        for state in sorted(vocabulary.emitted, key=lambda s: s.position):
            if (state.position.path, schema) in validated:
                continue
            if state.name not in defined:
                yield Hit(
                    state.position,
                    f"`{vocabulary.field}` is given `{state.name}` here, which"
                    f" {_source(vocabulary)} does not define (it has {_names(sorted(defined))});"
                    " use a defined state or add it there",
                    marker=state.name,
                )
        for copy in vocabulary.copies:
            for state in copy.states:
                if state.name not in defined:
                    yield Hit(
                        state.position,
                        f"{copy.label} lists `{state.name}`, which {_source(vocabulary)} does"
                        f" not define for `{vocabulary.field}`; remove it here or add it there",
                        marker=state.name,
                    )


@rule(
    "DC953",
    "incomplete-state-copy",
    failing="""
        hooks/contract.py:   _VALID_PLAN_STATUSES = {"IN_PROGRESS", "COMPLETE", "BLOCKED"}
        (agent-protocol defines APPROVAL_REQUEST and NEEDS_INPUT too)
    """,
    passing="""
        hooks/contract.py:   _VALID_PLAN_STATUSES = {"IN_PROGRESS", "APPROVAL_REQUEST",
                                                "COMPLETE", "BLOCKED", "NEEDS_INPUT"}
    """,
    blind_spot=True,
)
def incomplete_state_copy(facts: Facts) -> Iterator[Hit]:
    """A copy that claims every state of a field lacks some the source defines.

    A validator built from the copy rejects a valid state, a type built from it cannot
    hold one. A copy claims completeness when it is a second schema `enum` of the field, a
    constant named `VALID_...`, `ALLOWED_...`, `KNOWN_...` or `ALL_...`, an `Enum` class, or
    a list the pack's `vocabularies` setting names under `copies` (subsets such as
    `TERMINAL_STATES` are not checked). Add the missing states to the copy.
    """
    for vocabulary in facts.vocabularies:
        if vocabulary.source is None:
            continue
        for copy in vocabulary.copies:
            if not copy.complete:
                continue
            have = {s.name for s in copy.states}
            missing = [s.name for s in vocabulary.source.states if s.name not in have]
            if missing:
                them = "it" if len(missing) == 1 else "them"
                yield Hit(
                    copy.position,
                    f"{copy.label} lacks {_names(missing)}, which {_source(vocabulary)}"
                    f" defines for `{vocabulary.field}`; add {them}",
                )


RULES = (unhandled_state, unknown_handled_state, undefined_state, incomplete_state_copy)

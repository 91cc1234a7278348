"""State names in code: TypeScript by pattern here, Python with the standard `ast` in
`state_python` (imported where a tree has Python to read).

A list of states in code is either a definition (a tuple, list, set or frozenset constant,
an `Enum` class, an `x not in (...)` test, a TypeScript `as const` array, string-literal
union or `z.enum([...])`) or the branches of a handler (`x == "A"`, `x in ("A", "B")`,
`match` cases; TypeScript `x === "A"` and `case "A":`). Each carries the name it is known
by (the constant, the class, or the field the tested expression reads), which is how it is
matched to a field's vocabulary. Repository code is parsed, never run.
"""

from __future__ import annotations

import re

from drift_check.facts import Position, Source, StateList, StateName
from drift_check.records import NamedTuple
from drift_check.scanners.patterns import lazy

# a state name: a word (any script), then word characters, dots or hyphens
STATE_SHAPE = lazy(r"[^\W\d][\w.-]*\Z")
MAX_STATE_LENGTH = 64
# words that say a constant holds every state (`VALID_STATES`, `ALLOWED_STATUSES`)
COMPLETE_WORDS = frozenset({"valid", "allowed", "known", "all", "supported", "legal", "permitted"})
_WORD_SPLIT = lazy(r"[_\-\s.]+|(?<=[a-z0-9])(?=[A-Z])")


def is_state(text: str) -> bool:
    return len(text) <= MAX_STATE_LENGTH and STATE_SHAPE.match(text) is not None


def singular(word: str) -> str:
    if word.endswith("uses") or word.endswith("sses") or word.endswith("xes"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def name_words(name: str) -> tuple[str, ...]:
    """`VALID_PLAN_STATUSES` -> (valid, plan, status); `EnvelopeState` -> (envelope, state)."""
    return tuple(singular(w.lower()) for w in _WORD_SPLIT.split(name) if w)


def names_field(name: str, field: str) -> bool:
    """Whether a code name is named for the field: its last words are the field's."""
    want = name_words(field)
    have = name_words(name)
    return bool(want) and have[-len(want) :] == want


class CodeList(NamedTuple):
    """States listed together in code, with the name they are known by."""

    name: str  # the constant, class, or field the tested expression reads
    role: str  # "definition" or "branch"
    states: StateList


# TypeScript, by pattern: a declaration of a named list or union of string literals
_TS_STRING = r"""(?:"[^"\\\n]*"|'[^'\\\n]*')"""
_TS_ARRAY = lazy(
    r"\b(?:const|let|var)\s+(\w+)\s*(?::[^=;\n]{0,80})?=\s*\[((?:\s*" + _TS_STRING
    + r"\s*,)*\s*" + _TS_STRING + r"\s*,?\s*)\]\s*(as\s+const\b)?"
)  # fmt: skip
_TS_UNION = lazy(
    r"\b(?:type\s+(\w+)\s*=|(\w+)\??\s*:)\s*\|?((?:\s*" + _TS_STRING + r"\s*\|)+\s*"
    + _TS_STRING + r")(?=\s*[;,\n}])"
)  # fmt: skip
_TS_ZOD = lazy(
    r"\b(?:(?:const|let|var)\s+(\w+)\s*=|(\w+)\s*:)\s*z\.enum\(\s*\[((?:\s*" + _TS_STRING
    + r"\s*,)*\s*" + _TS_STRING + r"\s*,?\s*)\]"
)  # fmt: skip
_TS_LITERAL = lazy(_TS_STRING)
_TS_EQUAL = lazy(r"\b([A-Za-z_$][\w$]*)\s*[!=]==?\s*(" + _TS_STRING + ")")
_TS_SWITCH = lazy(r"\bswitch\s*\(\s*[\w$.]*?([A-Za-z_$][\w$]*)\s*\)\s*\{")
_TS_CASE = lazy(r"\bcase\s+(" + _TS_STRING + r")\s*:")
# What each declaration pattern cannot match without (a pattern that starts at every word
# boundary costs ten times a search for these): a list's `= [` before a string, a union's
# string before a `|`
_TS_ARRAY_HINT = lazy(r"=\s*\[\s*[\"']")
_TS_UNION_HINT = lazy(r"[\"']\s*\|")
_TS_OPERATOR = lazy(r"[!=]=")


def typescript_lists(source: Source) -> list[CodeList]:
    """Definitions and branches of state names in a TypeScript or JavaScript file."""
    text = source.text
    out: list[CodeList] = []

    def states(body: str, start: int) -> tuple[StateName, ...] | None:
        found = []
        for m in _TS_LITERAL.finditer(body):
            value = m.group()[1:-1]
            if not is_state(value):
                return None
            found.append(StateName(value, source.position(start + m.start() + 1)))
        return tuple(found) if len(found) >= 2 else None

    def definition(name: str, m: re.Match[str], group: int, label: str) -> None:
        listed = states(m.group(group), m.start(group))
        if listed is not None:
            complete = bool(set(name_words(name)) & COMPLETE_WORDS)
            named = 1 if m.group(1) == name else 2  # the declaration's name, where it is
            at = source.position(m.start(named))
            out.append(
                CodeList(name, "definition", StateList("typescript", label, at, listed, complete))
            )

    if _TS_ARRAY_HINT.search(text):
        for m in _TS_ARRAY.finditer(text):
            definition(m.group(1), m, 2, f"`{m.group(1)}`")
    if _TS_UNION_HINT.search(text):
        for m in _TS_UNION.finditer(text):
            name = m.group(1) or m.group(2)
            definition(name, m, 3, f"`{name}`")
    if "z.enum(" in text:
        for m in _TS_ZOD.finditer(text):
            name = m.group(1) or m.group(2)
            definition(name, m, 3, f"`{name}`")
    branches: dict[str, list[StateName]] = {}
    first: dict[str, Position] = {}
    for m in _equalities(text):
        value = m.group(2)[1:-1]
        if is_state(value):
            name = m.group(1)
            branches.setdefault(name, []).append(StateName(value, source.position(m.start(2) + 1)))
            first.setdefault(name, source.position(m.start()))
    for case, switch in _cases_by_switch(text):
        value = case.group(1)[1:-1]
        if is_state(value):
            name = switch.group(1)
            branches.setdefault(name, []).append(
                StateName(value, source.position(case.start(1) + 1))
            )
            first.setdefault(name, source.position(switch.start()))
    uses: dict[str, int] = {}
    for m in _TS_LITERAL.finditer(text) if branches else ():
        uses[m.group()[1:-1]] = uses.get(m.group()[1:-1], 0) + 1
    for name, found in branches.items():
        compared: dict[str, int] = {}
        for state in found:
            compared[state.name] = compared.get(state.name, 0) + 1
        # a literal the file also writes outside its comparisons is its own value
        kept = tuple(s for s in found if uses.get(s.name, 0) <= compared[s.name])
        if kept:
            label = f"the comparisons of `{name}`"
            out.append(CodeList(name, "branch", StateList("typescript", label, first[name], kept)))
    return out


def _equalities(text: str) -> list[re.Match[str]]:
    """The matches of `_TS_EQUAL` in `text`, as `finditer` gives them, found from the
    operators: a match holds one, right after its name and blanks, so it can start only in
    the run of name characters before an operator's blanks, and not before the last
    match's end."""
    out: list[re.Match[str]] = []
    end = 0
    match = _TS_EQUAL.match
    for operator in _TS_OPERATOR.finditer(text):
        at = operator.start()
        if at < end:
            continue  # inside the last match's string
        i = at
        while i > end and text[i - 1].isspace():
            i -= 1
        start = i
        while start > end and (text[start - 1] in "_$" or text[start - 1].isalnum()):
            start -= 1
        for j in range(start, i):
            if text[j] in _NAME_START:
                m = match(text, j)
                if m is not None:
                    out.append(m)
                    end = m.end()
                    break
    return out


_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$")


def _cases_by_switch(text: str) -> list[tuple[re.Match[str], re.Match[str]]]:
    """Each `case "X":` with the innermost `switch` whose block holds it, in one sweep
    (a switch whose block never closes holds nothing)."""
    if "switch" not in text:
        return []
    closes = _closing_braces(text)
    switches = [
        (m, closes[m.end() - 1]) for m in _TS_SWITCH.finditer(text) if m.end() - 1 in closes
    ]
    out = []
    open_switches: list[tuple[re.Match[str], int]] = []
    i = 0
    for case in _TS_CASE.finditer(text):
        while i < len(switches) and switches[i][0].end() <= case.start():
            open_switches.append(switches[i])
            i += 1
        while open_switches and open_switches[-1][1] <= case.start():
            open_switches.pop()
        if open_switches:
            out.append((case, open_switches[-1][0]))
    return out


def _closing_braces(text: str) -> dict[int, int]:
    """For each `{`, the offset just after its `}`, in one pass (braces in strings are not
    told apart: one there may end a block early, which only loses cases)."""
    out: dict[int, int] = {}
    opened: list[int] = []
    at = 0
    while True:
        m = _BRACE.search(text, at)
        if m is None:
            return out
        if m.group() == "{":
            opened.append(m.start())
        elif opened:
            out[opened.pop()] = m.end()
        at = m.end()


_BRACE = lazy(r"[{}]")

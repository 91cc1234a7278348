"""State names in code: Python read with the standard `ast`, TypeScript by pattern.

A list of states in code is either a definition (a tuple, list, set or frozenset constant,
an `Enum` class, an `x not in (...)` test, a TypeScript `as const` array, string-literal
union or `z.enum([...])`) or the branches of a handler (`x == "A"`, `x in ("A", "B")`,
`match` cases; TypeScript `x === "A"` and `case "A":`). Each carries the name it is known
by (the constant, the class, or the field the tested expression reads), which is how it is
matched to a field's vocabulary. Repository code is parsed, never run.
"""

from __future__ import annotations

import ast
import re

from drift_check.facts import Position, Source, StateList, StateName
from drift_check.records import NamedTuple
from drift_check.scanners.patterns import lazy
from drift_check.scanners.pystrings import python_tree

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


class _Reader:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.lines = source.text.split("\n")
        self._ascii: dict[int, bool] = {}

    def position(self, node: ast.AST) -> Position:
        """Where a node starts, its column in characters (`ast` counts UTF-8 bytes)."""
        line = getattr(node, "lineno", 1)
        offset: int = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if line not in self._ascii:
            self._ascii[line] = text.isascii()
        if not self._ascii[line]:
            offset = len(text.encode("utf-8")[:offset].decode("utf-8", "replace"))
        return Position(self.source.path, line, offset + 1)

    def state(self, node: ast.AST) -> StateName | None:
        """A string constant that is a state name, positioned at its first character."""
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return None
        if not is_state(node.value):
            return None
        at = self.position(node)
        text = self.lines[at.line - 1] if at.line <= len(self.lines) else ""
        i = at.column - 1
        while i < len(text) and text[i] in "rRuUbBfF":
            i += 1
        while i < len(text) and text[i] in "'\"" and i - (at.column - 1) < 4:
            i += 1
        return StateName(node.value, Position(at.path, at.line, i + 1))

    def states(self, node: ast.AST) -> tuple[StateName, ...] | None:
        """The states of a literal tuple, list or set (or `frozenset({...})`, `set([...])`),
        when every element is one."""
        if isinstance(node, ast.Call) and not node.keywords and len(node.args) == 1:
            func = node.func
            if isinstance(func, ast.Name) and func.id in ("frozenset", "set", "tuple", "list"):
                node = node.args[0]
        if not isinstance(node, (ast.Tuple, ast.List, ast.Set)) or len(node.elts) < 2:
            return None
        found = [self.state(e) for e in node.elts]
        if any(s is None for s in found):
            return None
        return tuple(s for s in found if s is not None)


def _target_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _field_of(node: ast.AST, aliases: dict[str, str]) -> str | None:
    """The field an expression reads: `x["status"]`, `x.get("status")`, `x.status`, a
    name through one assignment (`status = data.get("plan_status")`), or a name of more
    than one word (`plan_status`)."""
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
        return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "get" and node.args:
            key = node.args[0]
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                return key.value
        return None
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        if node.id in aliases:
            return aliases[node.id]
        # a bare name of one word (`mode`, a parameter) is any mode; of more words
        # (`plan_status`) it names its field
        return node.id if len(name_words(node.id)) > 1 else None
    return None


def python_lists(source: Source) -> list[CodeList]:
    """Definitions and branches of state names in a Python file; none when it does not
    parse (repository code may be Python 2, a template, or broken on purpose)."""
    tree = python_tree(source)
    if tree is None:
        return []
    reader = _Reader(source)
    # string constants a branch compares with; any other use of a state name produces it
    compared: set[int] = set()
    constants: list[ast.Constant] = []
    out: list[CodeList] = []
    aliases: dict[str, str] = {}
    branches: dict[str, list[StateName]] = {}
    first: dict[str, Position] = {}

    def branch(name: str | None, states: list[StateName], at: ast.AST) -> None:
        if name and states:
            branches.setdefault(name, []).extend(states)
            first.setdefault(name, reader.position(at))

    for node in ast.walk(tree):
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                constants.append(node)
            continue
        if isinstance(node, ast.Compare):
            for c in node.comparators:
                compared.add(id(c))
                if isinstance(c, (ast.Tuple, ast.List, ast.Set)):
                    compared.update(id(e) for e in c.elts)
        elif isinstance(node, ast.MatchValue):
            compared.add(id(node.value))
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            if value is None:
                continue
            listed = reader.states(value)
            for target in targets:
                name = _target_name(target)
                if name is None:
                    continue
                if listed is not None:
                    words = set(name_words(name))
                    out.append(
                        CodeList(
                            name,
                            "definition",
                            StateList(
                                "python",
                                f"`{name}`",
                                reader.position(target),
                                listed,
                                complete=bool(words & COMPLETE_WORDS),
                            ),
                        )
                    )
                elif isinstance(target, ast.Name):
                    read = _field_of(value, {})
                    if read is not None and not isinstance(value, ast.Name):
                        aliases[target.id] = read
        elif isinstance(node, ast.ClassDef) and _is_enum(node):
            members = []
            for item in node.body:
                if isinstance(item, ast.Assign) and len(item.targets) == 1:
                    state = reader.state(item.value)
                    if state is not None:
                        members.append(state)
            if len(members) >= 2:
                out.append(
                    CodeList(
                        node.name,
                        "definition",
                        StateList(
                            "python",
                            f"`{node.name}`",
                            reader.position(node),
                            tuple(members),
                            complete=True,
                        ),
                    )
                )
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            op, right = node.ops[0], node.comparators[0]
            name = _field_of(node.left, aliases)
            if isinstance(op, (ast.Eq, ast.NotEq)):
                state = reader.state(right)
                branch(name, [state] if state else [], node)
            elif isinstance(op, (ast.In, ast.NotIn)):
                listed = reader.states(right)
                if listed is None or name is None:
                    continue
                if isinstance(op, ast.NotIn):  # a validation: the states allowed
                    out.append(
                        CodeList(
                            name,
                            "definition",
                            StateList(
                                "python",
                                f"the `not in` test of `{name}`",
                                reader.position(node),
                                listed,
                            ),
                        )
                    )
                else:
                    branch(name, list(listed), node)
        elif isinstance(node, ast.Match):
            name = _field_of(node.subject, aliases)
            cases = []
            for case in node.cases:
                pattern = case.pattern
                if isinstance(pattern, ast.MatchValue):
                    state = reader.state(pattern.value)
                    if state is not None:
                        cases.append(state)
            branch(name, cases, node)
    produced = {c.value for c in constants if id(c) not in compared}
    for name, states in branches.items():
        # a state the file itself writes is its own (an internal value), not one it awaits
        kept = tuple(s for s in states if s.name not in produced)
        if kept:
            label = f"the comparisons of `{name}`"
            out.append(CodeList(name, "branch", StateList("python", label, first[name], kept)))
    return out


def _is_enum(node: ast.ClassDef) -> bool:
    for base in node.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name in ("Enum", "StrEnum"):
            return True
    return False


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

"""State names in Python code, read with the standard `ast` (never run): tuple, list, set
and frozenset constants, `Enum` classes and `x not in (...)` tests define states; `x == "A"`,
`x in ("A", "B")` and `match` cases branch on them (see `state_code`)."""

from __future__ import annotations

import ast

from drift_check.facts import Position, Source, StateList, StateName
from drift_check.scanners.pystrings import python_tree
from drift_check.scanners.state_code import COMPLETE_WORDS, CodeList, is_state, name_words


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


# nodes no state list is read from, under almost every expression: not walked
_LEAVES = frozenset(
    kind
    for base in (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
    for kind in base.__subclasses__()
)


def nodes(tree: ast.AST) -> list[ast.AST]:
    """The nodes `ast.walk` gives, in its order (breadth first), but for contexts and
    operators: one loop over a list, not two generators a node (a third of the time)."""
    out = [tree]
    i = 0
    node_type, leaves = ast.AST, _LEAVES
    while i < len(out):
        node = out[i]
        i += 1
        for name in node._fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, node_type) and type(item) not in leaves:
                        out.append(item)
            elif isinstance(value, node_type) and type(value) not in leaves:
                out.append(value)
    return out


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

    def definition(
        name: str, label: str, at: ast.AST, listed: tuple[StateName, ...], complete: bool = False
    ) -> None:
        position = reader.position(at)
        out.append(
            CodeList(name, "definition", StateList("python", label, position, listed, complete))
        )

    def branch(name: str | None, states: list[StateName], at: ast.AST) -> None:
        if name and states:
            branches.setdefault(name, []).extend(states)
            first.setdefault(name, reader.position(at))

    for node in nodes(tree):
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
                    complete = bool(set(name_words(name)) & COMPLETE_WORDS)
                    definition(name, f"`{name}`", target, listed, complete)
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
                definition(node.name, f"`{node.name}`", node, tuple(members), True)
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
                    definition(name, f"the `not in` test of `{name}`", node, listed)
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

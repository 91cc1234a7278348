"""Python and TypeScript code reading the fields of a named block.

Only files that name the block (the literal `"CONTEXT_RESULT"`) are read closely. In such a
file, a variable bound from an expression holding that literal (`result =
parse_block(text, "CONTEXT_RESULT")`) stands for the block, and its reads are the fields:

- Python, with the standard `ast` (columns converted from UTF-8 bytes to characters):
  `result["status"]`, `result["sections"]["local_sources"]`, `result.get("status")`;
- TypeScript and JavaScript, by pattern: a `const`/`let`/`var` bound from a line holding the
  literal, then `result.status`, `result?.status` or `result["status"]` (not a method call).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from drift_check.facts import FieldRead, Position, Source
from drift_check.scanners.pystrings import python_tree
from drift_check.scanners.state_python import nodes

CODE_SUFFIXES = (".py", ".ts", ".tsx", ".js", ".mjs", ".cjs")
_PART = re.compile(r"[A-Za-z_$][\w$]*|\"[^\"\n]+\"|'[^'\n]+'")


def code_reads(sources: Iterable[Source], names: Iterable[str]) -> list[FieldRead]:
    wanted = sorted(set(names))
    out: list[FieldRead] = []
    for source in sources:
        present = [n for n in wanted if n in source.text]
        if not present:
            continue
        if source.path.endswith(".py"):
            out.extend(_python(source, present))
        else:
            out.extend(_script(source, present))
    return out


def _python(source: Source, names: list[str]) -> list[FieldRead]:
    tree = python_tree(source)
    if tree is None:
        return []
    bound: dict[str, str] = {}  # variable -> block name
    for node in nodes(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            literal = next(
                (
                    c.value
                    for c in ast.walk(node.value)
                    if isinstance(c, ast.Constant) and c.value in names
                ),
                None,
            )
            if literal is None:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = literal
    if not bound:
        return []
    lines = source.text.split("\n")
    out: list[FieldRead] = []
    seen: set[int] = set()
    for node in nodes(tree):
        chain = _chain(node)
        if chain is None or id(node) in seen:
            continue
        base, fields, first = chain
        if base not in bound or not fields:
            continue
        for inner in ast.walk(node):
            seen.add(id(inner))  # the shorter chains inside this one
        line = first.lineno
        text = lines[line - 1] if line - 1 < len(lines) else ""
        column = len(text.encode("utf-8")[: first.col_offset].decode("utf-8", "replace")) + 1
        out.append(FieldRead(bound[base], fields, Position(source.path, line, column), "python"))
    return out


def _chain(node: ast.AST) -> tuple[str, tuple[str, ...], ast.AST] | None:
    """`base["a"]["b"]` or `base.get("a")` read from the outside in: (base, fields, the
    base's node)."""
    fields: list[tuple[str, ast.AST]] = []
    current = node
    while True:
        if isinstance(current, ast.Subscript):
            key = current.slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            fields.append((key.value, key))
            current = current.value
        elif (
            isinstance(current, ast.Call)
            and isinstance(current.func, ast.Attribute)
            and current.func.attr == "get"
            and current.args
            and isinstance(current.args[0], ast.Constant)
            and isinstance(current.args[0].value, str)
        ):
            fields.append((current.args[0].value, current.args[0]))
            current = current.func.value
        else:
            break
    if not isinstance(current, ast.Name) or not fields:
        return None
    fields.reverse()
    return current.id, tuple(f for f, _ in fields), current


_BINDING = re.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n;]*)?=(?!=)([^\n;]*)")


def _script(source: Source, names: list[str]) -> list[FieldRead]:
    text = source.text
    bound: dict[str, str] = {}
    for m in _BINDING.finditer(text):
        literal = next((n for n in names if f'"{n}"' in m.group(2) or f"'{n}'" in m.group(2)
                        or f"`{n}`" in m.group(2)), None)  # fmt: skip
        if literal is not None:
            bound[m.group(1)] = literal
    if not bound:
        return []
    out: list[FieldRead] = []
    for variable, name in sorted(bound.items()):
        pattern = re.compile(
            r"(?<![\w$.])"
            + re.escape(variable)
            + r"((?:\??\.[A-Za-z_$][\w$]*|\[\"[^\"\n]+\"\]|\['[^'\n]+'\])+)"
        )
        for m in pattern.finditer(text):
            after = text[m.end() : m.end() + 1]
            fields = tuple(p.group().strip("\"'") for p in _PART.finditer(m.group(1)))
            if after == "(":
                fields = fields[:-1]  # `result.items.map(...)`: a method, not a field
            if fields and fields[-1] == "length":
                fields = fields[:-1]  # an array's or a string's length
            if not fields:
                continue
            out.append(FieldRead(name, fields, source.position(m.start()), "typescript"))
    return out

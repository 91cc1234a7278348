"""What a Python file defines, read with the standard `ast` (never run): the names a
document may cite as `file.py:NAME`, with their lines."""

from __future__ import annotations

import ast

from drift_check.facts import PythonModule, Source
from drift_check.scanners.pystrings import python_tree


def python_module(source: Source) -> PythonModule:
    """What a Python file defines at the top level (and in its classes), with lines."""
    line_count = source.text.count("\n") + (0 if source.text.endswith("\n") else 1)
    tree = python_tree(source)
    if tree is None:
        return PythonModule(source.path, {}, line_count, False)
    symbols: dict[str, int] = {}
    closed: set[str] = set()
    todo: list[tuple[list[ast.stmt], str, int]] = [(tree.body, "", 0)]
    while todo:
        body, prefix, depth = todo.pop()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                symbols.setdefault(prefix + node.name, node.lineno)
                if isinstance(node, ast.ClassDef) and depth < 2:
                    name = prefix + node.name
                    if all(isinstance(b, ast.Name) and b.id == "object" for b in node.bases):
                        closed.add(name)
                    todo.append((node.body, f"{name}.", depth + 1))
                elif depth and prefix:  # a method: its `self.x = ...` are members too
                    for inner in ast.walk(node):
                        for target in _self_targets(inner):
                            symbols.setdefault(prefix + target, getattr(inner, "lineno", 1))
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for name in _assigned(target):
                        symbols.setdefault(prefix + name, node.lineno)
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and depth == 0:
                for alias in node.names:
                    if alias.name != "*":
                        symbols.setdefault(alias.asname or alias.name.split(".")[0], node.lineno)
            else:
                for field in ("body", "orelse", "finalbody"):
                    inner = getattr(node, field, None)
                    if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                        todo.append((inner, prefix, depth))
                for handler in getattr(node, "handlers", ()) or ():
                    todo.append((handler.body, prefix, depth))
    return PythonModule(source.path, symbols, line_count, True, frozenset(closed))


def _self_targets(node: ast.AST) -> list[str]:
    """The `x` of each `self.x = ...` a statement assigns."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    else:
        return []
    return [
        t.attr
        for t in targets
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
    ]


def _assigned(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _assigned(elt)]
    return []

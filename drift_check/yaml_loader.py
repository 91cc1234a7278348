"""Strict, safe YAML loading (ruamel.yaml, imported on first use)."""

from __future__ import annotations

from typing import Any


class YamlError(Exception):
    """Invalid YAML, with the 1-based line and column of the problem inside the text."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


_loader: Any = None


def safe_load(text: str) -> Any:
    """Parse `text` with the safe loader: no tags construct objects, duplicate keys fail."""
    global _loader
    if _loader is None:
        from ruamel.yaml import YAML

        _loader = YAML(typ="safe")  # the C parser (ruamel.yaml.clib) when installed
        _loader.allow_duplicate_keys = False
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return _loader.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(problem, line, col) from None
    except YAMLError as exc:
        raise YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML", 1, 1) from None
    except RecursionError:
        raise YamlError("YAML nesting too deep", 1, 1) from None

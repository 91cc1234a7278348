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


class YamlLimit(YamlError):
    """YAML over a limit (nesting depth, alias count): not parsed at all."""


MAX_DEPTH = 32
MAX_ALIASES = 50

_loader: Any = None
# Whether the cyclic collector is off until the first YAML text is parsed here (the console
# script's setting, `cli.single_run_gc`): see `collect_cycles`.
_collector_waits = False


def collector_waits() -> None:
    """Leave the cyclic collector off until ruamel.yaml first parses a text (the console
    script, which checks one tree and exits)."""
    global _collector_waits
    import gc

    gc.disable()
    _collector_waits = True


def collect_cycles() -> None:
    """Turn the cyclic collector on, if it waits for this: ruamel.yaml's loads and scans
    leave reference cycles behind, and a tree whose frontmatter all goes to it held twice
    the memory without the collector (3,000 skills: 101 against 44 MB). Nothing else of a
    run makes cycles worth collecting, and collecting for nothing took 2 to 5% of a run."""
    global _collector_waits
    if _collector_waits:
        import gc

        _collector_waits = False
        gc.enable()


def _check_limits(loader: Any, text: str, max_depth: int, max_aliases: int) -> None:
    """Walk the parser's events (no objects are built, so an alias bomb costs nothing here)
    and stop at the first one past a limit."""
    from ruamel.yaml.events import (
        AliasEvent,
        CollectionEndEvent,
        CollectionStartEvent,
    )

    depth = aliases = 0
    for event in loader.parse(text):
        over = ""
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > max_depth:
                over = f"nested deeper than {max_depth} levels (max-yaml-depth)"
        elif isinstance(event, CollectionEndEvent):
            depth -= 1
        elif isinstance(event, AliasEvent):
            aliases += 1
            if aliases > max_aliases:
                over = f"more than {max_aliases} aliases (max-yaml-aliases)"
        if over:
            mark = event.start_mark
            raise YamlLimit(f"{over}; not parsed", mark.line + 1, mark.column + 1)


def safe_load(text: str, max_depth: int = MAX_DEPTH, max_aliases: int = MAX_ALIASES) -> Any:
    """Parse `text` with the safe loader: no tags construct objects, duplicate keys fail,
    and text nested deeper or with more aliases than the limits is refused unparsed."""
    global _loader
    collect_cycles()
    if _loader is None:
        from ruamel.yaml import YAML

        _loader = YAML(typ="safe")  # the C parser (ruamel.yaml.clib) when installed
        _loader.allow_duplicate_keys = False
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        _check_limits(_loader, text, max_depth, max_aliases)
        return _loader.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = _place(text, mark.index) if mark else (1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(problem, line, col) from None
    except YAMLError as exc:
        raise YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML", 1, 1) from None
    except RecursionError:
        raise YamlError("YAML nesting too deep", 1, 1) from None
    except (ValueError, OverflowError) as exc:  # a value no date can be, `2025-13-45`
        line, column = _no_date(text)
        raise YamlError(f"a date that does not exist ({exc})", line, column) from None


def _place(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column of a character offset, lines ending at `\n` only: the
    parser's own line counts a NEL, a U+2028 or a U+2029 (YAML line breaks) too."""
    index = max(0, min(index, len(text)))
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)


def _no_date(text: str) -> tuple[int, int]:
    """Where the first date-shaped value that is no date sits in `text` (1-based)."""
    import datetime
    import re

    for m in re.finditer(r"(?<![\w.-])([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?![\w.-])", text):
        try:
            datetime.date(*(int(g) for g in m.groups()))
        except ValueError:
            line = text.count("\n", 0, m.start()) + 1
            return line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
    return 1, 1

"""Consumer files: Markdown that matches marker text, Python hooks whose string literals do,
and the `## TOKEN`s that workflows and commands quote as match instructions."""

from __future__ import annotations

import re
from typing import Any

from drift_check.facts import Consumer, InputProblem, Position, QuotedMarker, Source, StringLiteral
from drift_check.scanners.files import Repo
from drift_check.scanners.markdown import scan

# `## TOKEN` between backticks or quotes. The pattern starts at the `## ` literal, which the
# regex engine finds fast; the opening quote is checked by hand.
_QUOTED = re.compile(r"""## ([^`'"\n]+)[`'"]""")
_DISPATCH = re.compile(r"""subagent_type\s*[=:]\s*["']?([\w.-]+)""")
_STEP = re.compile(r"<step\b")
_QUOTES = frozenset("`'\"")


def quoted_markers(source: Source, agents: set[str], surface: bool) -> list[QuotedMarker]:
    """`## TOKEN` quotes, each with the agent its section dispatches to.

    A section runs from one level-1/2 heading or `<step>` to the next. When the section
    dispatches (`subagent_type=...`) to exactly one known agent, the quotes in it are taken
    as matches on that agent's return; otherwise the agent is unknown (None).
    """
    text = source.text
    quotes = [m for m in _QUOTED.finditer(text) if text[m.start() - 1 : m.start()] in _QUOTES]
    if not quotes:
        return []
    dispatches = [(m.start(), m.group(1)) for m in _DISPATCH.finditer(text) if m.group(1) in agents]
    bounds = [0]
    if dispatches:  # sections matter only to attribute a dispatch
        bounds.extend(h.offset for h in scan(text, max_level=2).headings if not h.in_fence)
        bounds.extend(m.start() for m in _STEP.finditer(text))
        bounds.sort()
    bounds.append(len(text) + 1)
    out: list[QuotedMarker] = []
    section = 0
    line = 1
    last = 0
    block_line = 1
    for m in quotes:
        start = m.start()
        while bounds[section + 1] <= start:
            section += 1
        lo, hi = bounds[section], bounds[section + 1]
        named = {a for off, a in dispatches if lo <= off < hi}
        agent = next(iter(named)) if len(named) == 1 else None
        blank = text.rfind("\n\n", last, start)
        if blank >= 0:
            block_line = line + text.count("\n", last, blank + 2)
        line += text.count("\n", last, start)
        last = start
        column = start - text.rfind("\n", 0, start)
        position = Position(source.path, line, column)
        out.append(QuotedMarker(m.group(1).strip(), position, agent, surface, block_line))
    return out


def python_literals(source: Source, problems: list[InputProblem]) -> tuple[StringLiteral, ...]:
    """Every string literal of a Python file, at its own line and column (libcst)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(source.text)
    except cst.ParserSyntaxError as exc:
        problems.append(
            InputProblem(
                Position(source.path, exc.raw_line, exc.raw_column + 1),
                "unreadable",
                "Python file does not parse; its string literals are not checked",
            )
        )
        return ()
    except RecursionError:
        problems.append(
            InputProblem(Position(source.path, 1, 1), "unreadable", "Python file nests too deeply")
        )
        return ()
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    found: list[StringLiteral] = []

    class Collector(cst.CSTVisitor):
        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            try:
                value = node.evaluated_value
            except (ValueError, SyntaxError):
                return
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            start = positions[node].start
            found.append(StringLiteral(value, Position(source.path, start.line, start.column + 1)))

        def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
            start = positions[node].start
            found.append(
                StringLiteral(node.value, Position(source.path, start.line, start.column + 1))
            )

    wrapper.module.visit(Collector())
    return tuple(found)


def scan_consumers(
    repo: Repo,
    markdown_paths: list[str],
    python_paths: list[str],
    dispatch_paths: set[str],
    agents: set[str],
    problems: list[InputProblem],
) -> tuple[dict[str, Consumer], list[QuotedMarker]]:
    consumers: dict[str, Consumer] = {}
    quoted: list[QuotedMarker] = []
    for path in markdown_paths:
        source = repo.read(path)
        if source is None:
            continue
        surface = path in dispatch_paths
        consumers[path] = Consumer(source, None, surface)
        if surface:
            quoted.extend(quoted_markers(source, agents, surface))
    for path in python_paths:
        source = repo.read(path)
        if source is None:
            continue
        consumers[path] = Consumer(source, python_literals(source, problems), False)
    return consumers, quoted


def settings_globs(settings: dict[str, Any], key: str, core: str) -> list[str]:
    return [g.replace("{core}", core) for g in settings.get(key, [])]

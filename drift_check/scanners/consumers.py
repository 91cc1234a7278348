"""Consumer files: Markdown that matches marker text, Python hooks whose string literals do,
and the `## TOKEN`s that workflows and commands quote as match instructions."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any

from drift_check.facts import (
    Agent,
    Consumer,
    InputProblem,
    Named,
    QuotedMarker,
    ReadGate,
    Registry,
    Source,
    StringLiteral,
)
from drift_check.scanners.files import Repo
from drift_check.scanners.markdown import Cursor, scan
from drift_check.scanners.patterns import lazy
from drift_check.scanners.pystrings import python_literals

# `## TOKEN` between backticks or quotes. The pattern starts at the `## ` literal, which the
# regex engine finds fast; the opening quote is checked by hand, and so are a token and a
# closing quote: a `## ` without them still matches, as no quote, so the engine never
# retries from each `## ` of a run (`## ## ## ...` is scanned once). Every `## ` inside a
# token run ends at the same character, so it is a quote exactly when the first one is; the
# possessive run gives up nothing, since no quote can sit inside it.
_QUOTED = lazy(r"""## ([^`'"\n]*+)(?P<quote>[`'"])?""")
_DISPATCH = lazy(r"""subagent_type\s*[=:]\s*["']?([\w.-]+)""")
_STEP = lazy(r"<step\b")
_QUOTES = frozenset("`'\"")


class Sections:
    """Which agent each part of a workflow dispatches to.

    A section runs from one level-1/2 heading or `<step>` to the next. When a section
    dispatches (`subagent_type=...`) to exactly one known agent, text in it is about that
    agent's return; otherwise the agent is unknown (None).
    """

    def __init__(self, text: str, agents: set[str]) -> None:
        found = [(m.start(), m.group(1)) for m in _DISPATCH.finditer(text)]
        self.dispatches = [(off, a) for off, a in found if a in agents]
        self.text = text
        self.bounds: list[int] = []  # computed on first use: only a dispatch needs them
        self.agents: dict[int, str | None] = {}  # of each section asked about

    def agent_at(self, offset: int) -> str | None:
        if not self.dispatches:
            return None
        if not self.bounds:
            text = self.text
            bounds = [0]
            bounds.extend(h.offset for h in scan(text, max_level=2).headings if not h.in_fence)
            bounds.extend(m.start() for m in _STEP.finditer(text))
            bounds.sort()
            bounds.append(len(text) + 1)
            self.bounds = bounds
        i = bisect.bisect_right(self.bounds, offset) - 1
        if i not in self.agents:  # once per section, not per quote in it
            lo, hi = self.bounds[i], self.bounds[i + 1]
            first = bisect.bisect_left(self.dispatches, (lo, ""))  # dispatches are in order
            last = bisect.bisect_left(self.dispatches, (hi, ""))
            named = {a for _, a in self.dispatches[first:last]}
            self.agents[i] = next(iter(named)) if len(named) == 1 else None
        return self.agents[i]


def quoted_markers(source: Source, sections: Sections, surface: bool) -> list[QuotedMarker]:
    """`## TOKEN` quotes, each with the agent its section dispatches to (see `Sections`)."""
    text = source.text
    quotes = [
        m
        for m in _QUOTED.finditer(text)
        if m.group(1) and m.group("quote") and text[m.start() - 1 : m.start()] in _QUOTES
    ]
    cursor = Cursor(source)
    out: list[QuotedMarker] = []
    line = 1
    last = 0
    block_line = 1
    for m in quotes:
        start = m.start()
        blank = text.rfind("\n\n", last, start)
        if blank >= 0:
            block_line = line + text.count("\n", last, blank + 2)
        line += text.count("\n", last, start)
        last = start
        position = cursor.position(start)
        agent = sections.agent_at(start)
        out.append(QuotedMarker(m.group(1).strip(), position, agent, surface, block_line))
    return out


def dispatches_in(source: Source, sections: Sections | None, agents: set[str]) -> tuple[Named, ...]:
    """The known agents a file dispatches to (`subagent_type=NAME`), each at its name."""
    if "subagent_type" not in source.text:
        return ()
    if sections is None:
        sections = Sections(source.text, agents)
    cursor = Cursor(source)
    text = source.text
    return tuple(
        Named(agent, cursor.position(text.find(agent, offset)))
        for offset, agent in sections.dispatches
    )


def read_gates(source: Source, sections: Sections, tag: str) -> list[ReadGate]:
    """Every occurrence of a read tag, with the agent its section dispatches to."""
    out = []
    text = source.text
    cursor = Cursor(source)
    i = text.find(tag)
    while i >= 0:
        out.append(ReadGate(cursor.position(i), sections.agent_at(i), tag))
        i = text.find(tag, i + len(tag))
    return out


def literal_read_tags(literals: tuple[StringLiteral, ...], tag: str) -> list[ReadGate]:
    """Every occurrence of a read tag in Python string literals, at the literal (the section
    a Python string belongs to is not known)."""
    return [
        ReadGate(lit.position, None, tag) for lit in literals for _ in range(lit.value.count(tag))
    ]


def scan_consumers(
    repo: Repo,
    markdown_paths: list[str],
    python_paths: list[str],
    dispatch_paths: set[str],
    agents: set[str],
    gate_tag: str,
    problems: list[InputProblem],
    legacy_tags: tuple[str, ...] = (),
    python_read: bool = True,
) -> tuple[dict[str, Consumer], list[QuotedMarker], list[ReadGate]]:
    """Consumers, the `## TOKEN`s their dispatch surfaces quote, and the read tags they hold
    (the gate tag in Markdown; the legacy tags in Markdown and Python), each tag's own.
    Without `python_read` a Python consumer is not parsed and has no literals (nothing
    would read them: see `python_literals_read`)."""
    consumers: dict[str, Consumer] = {}
    quoted: list[QuotedMarker] = []
    gates: list[ReadGate] = []
    for path in markdown_paths:
        source = repo.read(path)
        if source is None:
            continue
        surface = path in dispatch_paths
        tags = [t for t in (gate_tag, *legacy_tags) if t and t in source.text]
        sections = Sections(source.text, agents) if surface or tags else None
        consumers[path] = Consumer(source, None, surface, dispatches_in(source, sections, agents))
        if sections is not None:
            if surface:
                quoted.extend(quoted_markers(source, sections, surface))
            for tag in tags:
                gates.extend(read_gates(source, sections, tag))
    for path in python_paths:
        source = repo.read(path)
        if source is None:
            continue
        literals = python_literals(source, problems) if python_read else ()
        consumers[path] = Consumer(source, literals, False)
        for tag in legacy_tags:
            gates.extend(literal_read_tags(literals, tag))
    return consumers, quoted, gates


def python_literals_read(
    registry: Registry | None,
    agents: Iterable[Agent],
    mentions: dict[str, frozenset[str]],
    gate_tag: str,
    legacy_tags: tuple[str, ...],
) -> bool:
    """Whether any rule can read a Python consumer's literals. The marker lookups (DC301 to
    DC304, and the rows DC103 and DC202 would write) search consumers only for what a checked
    agent emits in a fence, and only with a registry; DC401 reads legacy tags only where some
    agent mentions the gate tag. Otherwise a hook's parse would go unused."""
    if registry is not None and any(a.emissions for a in agents):
        return True
    return bool(legacy_tags and gate_tag) and any(gate_tag in m for m in mentions.values())


def settings_globs(settings: dict[str, Any], key: str, core: str) -> list[str]:
    return [g.replace("{core}", core) for g in settings[key]]

"""The immutable model of a repository's contracts.

Scanners build these facts from files; rules read them and never touch the file system.
Every fact that a finding can point at carries a `Position` (1-based line and column).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True, order=True)
class Position:
    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class InputProblem:
    """A file that could not be read or parsed; the rest of the tree is still checked."""

    position: Position
    kind: str  # "unreadable", "registry-missing", "registry-row", "frontmatter", "fence", "include"
    message: str


@dataclass(frozen=True, slots=True)
class DeclaredMarker:
    """One entry of a registry row's `Completion Markers` cell."""

    text: str
    position: Position
    annotation: str | None = None
    unconsumed: bool = False
    unconsumed_reason: str = ""


@dataclass(frozen=True, slots=True)
class CitedPath:
    """A repository path cited in a row's `Consumed by` cell."""

    path: str
    position: Position


@dataclass(frozen=True, slots=True)
class RegistryRow:
    agent: str
    position: Position  # the agent cell
    markers: tuple[DeclaredMarker, ...]
    consumed_by: tuple[CitedPath, ...]
    kind: str | None
    kind_position: Position | None
    line_text: str

    @property
    def all_marker_texts(self) -> tuple[str, ...]:
        return tuple(m.text for m in self.markers)


@dataclass(frozen=True, slots=True)
class Registry:
    path: str
    heading_position: Position
    columns: tuple[str, ...]
    rows: tuple[RegistryRow, ...]

    @property
    def has_consumed_by(self) -> bool:
        return "consumed_by" in self.columns

    @property
    def has_kind(self) -> bool:
        return "kind" in self.columns


@dataclass(frozen=True, slots=True)
class FencedHeading:
    """A heading line inside a fenced block: what an agent emits as a completion marker."""

    text: str
    level: int
    position: Position


@dataclass(frozen=True, slots=True)
class Include:
    """An `@path` include in an agent file; `resolved` is a repository path or None."""

    token: str
    position: Position
    resolved: str | None


@dataclass(frozen=True, slots=True)
class Emission:
    """A fenced heading attributed to an agent, from its own file or an included document."""

    agent: str
    text: str
    position: Position  # where the heading really sits
    via: str | None = None  # the agent's include that brought it in, if any


@dataclass(frozen=True, slots=True)
class Agent:
    name: str
    path: str
    frontmatter: dict[str, Any] | None
    frontmatter_lines: dict[str, int]
    tools: tuple[str, ...] | None
    emissions: tuple[Emission, ...]
    includes: tuple[Include, ...]
    texts: tuple[str, ...]  # the agent's text followed by its included documents' texts

    def emits(self, marker: str) -> bool:
        return any(e.text == marker for e in self.emissions)

    def mentions(self, needle: str) -> bool:
        return any(needle in t for t in self.texts)


@dataclass(frozen=True, slots=True)
class Source:
    """The decoded text of one file, with lazy line/column lookup."""

    path: str
    text: str
    _line_starts: list[int] = field(default_factory=list, compare=False, repr=False)

    def position(self, offset: int) -> Position:
        starts = self._line_starts
        if not starts:
            starts.append(0)
            i = 0
            text = self.text
            while True:
                i = text.find("\n", i)
                if i < 0:
                    break
                i += 1
                starts.append(i)
        line = bisect.bisect_right(starts, offset) - 1
        return Position(self.path, line + 1, offset - starts[line] + 1)

    def find(self, needle: str) -> Position | None:
        i = self.text.find(needle)
        return None if i < 0 else self.position(i)


@dataclass(frozen=True, slots=True)
class StringLiteral:
    value: str
    position: Position


@dataclass(frozen=True, slots=True)
class Consumer:
    """A file whose text can consume markers.

    Markdown consumers match anywhere in their text; Python consumers only in string
    literals (comments and identifiers are not consumptions).
    """

    source: Source
    literals: tuple[StringLiteral, ...] | None = None  # set for Python files
    dispatch_surface: bool = False  # workflows and commands, not agents

    @property
    def path(self) -> str:
        return self.source.path

    def find(self, needle: str) -> Position | None:
        if self.literals is None:
            return self.source.find(needle)
        for lit in self.literals:
            i = lit.value.find(needle)
            if i >= 0:
                return lit.position
        return None

    def find_casefold(self, needle: str) -> Position | None:
        low = needle.lower()
        if self.literals is None:
            i = self.source.text.lower().find(low)
            return None if i < 0 else self.source.position(i)
        for lit in self.literals:
            if low in lit.value.lower():
                return lit.position
        return None


@dataclass(frozen=True, slots=True)
class QuotedMarker:
    """A `## TOKEN` quoted in a consumer (in backticks or quotes): a match instruction."""

    text: str
    position: Position
    dispatched_agent: str | None  # the agent the surrounding text dispatches to, if named
    dispatch_surface: bool = False  # quoted in a workflow or command
    block_line: int = 0  # first line of the paragraph or list the quote sits in


@dataclass(frozen=True, slots=True, eq=False)
class Facts:
    root: str
    preset: str
    registry: Registry | None
    agents: dict[str, Agent]
    consumers: dict[str, Consumer]
    quoted_markers: tuple[QuotedMarker, ...]
    problems: tuple[InputProblem, ...]
    settings: dict[str, Any]
    existing_paths: frozenset[str] = frozenset()

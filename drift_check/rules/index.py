"""Derived lookups over the facts, computed once per run and shared by the rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from drift_check.facts import Agent, Consumer, Facts, Position, RegistryRow

KINDS = ("sentinel-match", "artifact+query", "structured-return")
NON_SENTINEL = ("artifact+query", "structured-return")


@dataclass(frozen=True)
class Index:
    rows: tuple[RegistryRow, ...]
    row_of: dict[str, RegistryRow]  # the first row per agent
    declared: dict[str, set[str]]  # marker -> agents whose rows declare it
    emitters: dict[str, set[str]]  # fenced heading text -> agents that emit it
    shape: re.Pattern[str]
    max_length: int
    _consumers: dict[str, list[tuple[Consumer, Position]]] = field(default_factory=dict)
    _folded: dict[str, bytes] = field(default_factory=dict)

    def checked_rows(self, facts: Facts) -> list[tuple[RegistryRow, Agent]]:
        """Rows whose agent file exists, once per agent: the rows the contract rules check."""
        seen: set[str] = set()
        out = []
        for row in self.rows:
            agent = facts.agents.get(row.agent)
            if agent is not None and row.agent not in seen:
                seen.add(row.agent)
                out.append((row, agent))
        return out

    def marker_shaped(self, text: str) -> bool:
        return len(text) <= self.max_length and bool(self.shape.match(text))

    def _excluded(self, facts: Facts, marker: str, producer: str) -> set[str]:
        """The producer's own file and the files of other agents that emit the marker too
        (a co-producer is not a consumer)."""
        names = set(self.emitters.get(marker, ())) | {producer}
        return {facts.agents[a].path for a in names if a in facts.agents}

    def consumers_of(
        self, facts: Facts, marker: str, producer: str
    ) -> list[tuple[Consumer, Position]]:
        """Files that contain `marker` exactly, with the first match, sorted by path."""
        found = self._consumers.get(marker)
        if found is None:
            found = []
            for _, consumer in sorted(facts.consumers.items()):
                pos = consumer.find(marker)
                if pos is not None:
                    found.append((consumer, pos))
            self._consumers[marker] = found
        excluded = self._excluded(facts, marker, producer)
        return [(c, pos) for c, pos in found if c.path not in excluded]

    def case_only_consumer(self, facts: Facts, marker: str, producer: str) -> Position | None:
        """The first case-insensitive match of `marker` outside the excluded files."""
        excluded = self._excluded(facts, marker, producer)
        folded_marker = marker.lower().encode() if marker.isascii() else None
        for path, consumer in sorted(facts.consumers.items()):
            if path in excluded:
                continue
            if consumer.literals is not None:
                pos = consumer.find_casefold(marker)
            elif folded_marker is not None:
                pos = self._find_ascii_casefold(consumer, folded_marker)
            else:
                pos = consumer.find_casefold(marker)
            if pos is not None:
                return pos
        return None

    def _find_ascii_casefold(self, consumer: Consumer, folded_marker: bytes) -> Position | None:
        # bytes.lower() folds ASCII only, which is all an ASCII marker can match, and costs a
        # fraction of str.lower() on non-ASCII text.
        folded = self._folded.get(consumer.path)
        if folded is None:
            folded = self._folded[consumer.path] = consumer.source.text.encode().lower()
        i = folded.find(folded_marker)
        if i < 0:
            return None
        line_start = folded.rfind(b"\n", 0, i) + 1
        column = len(folded[line_start:i].decode("utf-8", "replace")) + 1
        return Position(consumer.path, folded.count(b"\n", 0, i) + 1, column)


@lru_cache(maxsize=8)
def index(facts: Facts) -> Index:
    rows = facts.registry.rows if facts.registry else ()
    row_of: dict[str, RegistryRow] = {}
    declared: dict[str, set[str]] = {}
    for row in rows:
        row_of.setdefault(row.agent, row)
        for m in row.markers:
            declared.setdefault(m.text, set()).add(row.agent)
    emitters: dict[str, set[str]] = {}
    for agent in facts.agents.values():
        for e in agent.emissions:
            emitters.setdefault(e.text, set()).add(agent.name)
    return Index(
        rows=rows,
        row_of=row_of,
        declared=declared,
        emitters=emitters,
        shape=re.compile(facts.settings.get("marker-shape", r"^[A-Z][A-Z0-9 _:'/-]*$")),
        max_length=int(facts.settings.get("marker-max-length", 60)),
    )


def is_sentinel(row: RegistryRow) -> bool:
    return row.kind is None or row.kind == "sentinel-match"

"""Derived lookups over the facts, computed once per run and shared by the rules."""

from __future__ import annotations

import re
from dataclasses import dataclass
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

    def consumers_of(
        self, facts: Facts, marker: str, producer: str
    ) -> list[tuple[Consumer, Position]]:
        """Files that contain `marker` exactly; never the producer's own file nor the file of
        another agent that emits it too (a co-producer is not a consumer)."""
        excluded = {facts.agents[a].path for a in self.emitters.get(marker, ()) if a in facts.agents}
        if producer in facts.agents:
            excluded.add(facts.agents[producer].path)
        out = []
        for path in sorted(facts.consumers):
            if path in excluded:
                continue
            consumer = facts.consumers[path]
            pos = consumer.find(marker)
            if pos is not None:
                out.append((consumer, pos))
        return out

    def case_only_consumer(self, facts: Facts, marker: str, producer: str) -> Position | None:
        excluded = {facts.agents[a].path for a in self.emitters.get(marker, ()) if a in facts.agents}
        if producer in facts.agents:
            excluded.add(facts.agents[producer].path)
        for path in sorted(facts.consumers):
            if path not in excluded:
                pos = facts.consumers[path].find_casefold(marker)
                if pos is not None:
                    return pos
        return None


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

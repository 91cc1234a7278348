"""Derived lookups over the facts, computed once per run and shared by the rules."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from drift_check.facts import Agent, Consumer, Facts, Position, RegistryRow, Source

KINDS = ("sentinel-match", "artifact+query", "structured-return")
NON_SENTINEL = ("artifact+query", "structured-return")


Occurrences = dict[str, list[tuple[Consumer, Position]]]


@dataclass(frozen=True)
class Index:
    rows: tuple[RegistryRow, ...]
    row_of: dict[str, RegistryRow]  # the first row per agent
    declared: dict[str, set[str]]  # marker -> agents whose rows declare it
    emitters: dict[str, set[str]]  # fenced heading text -> agents that emit it
    shape: re.Pattern[str]
    max_length: int
    _cache: dict[str, Any] = field(default_factory=dict)

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
        """Files that contain the declared `marker` exactly, with the first match, by path."""
        if "exact" not in self._cache:
            self._cache["exact"] = _occurrences(facts, list(self.declared), fold=False)
        excluded = self._excluded(facts, marker, producer)
        exact: Occurrences = self._cache["exact"]
        found = exact.get(marker, [])
        return [(c, pos) for c, pos in found if c.path not in excluded]

    def case_only_consumer(self, facts: Facts, marker: str, producer: str) -> Position | None:
        """The first case-insensitive (ASCII) match of the declared `marker` outside the
        excluded files."""
        excluded = self._excluded(facts, marker, producer)
        if "folded" in self._cache:
            folded: Occurrences = self._cache["folded"]
            found = folded.get(marker, [])
        else:
            # Few markers lack an exact consumer: a search per file is cheapest until the
            # queries add up, then one multi-pattern pass over all files is.
            queries = len(self._cache.get("searched", ())) + 1
            if queries * len(facts.consumers) > _SEARCHES_BEFORE_ONE_PASS:
                self._cache["folded"] = _occurrences(facts, list(self.declared), fold=True)
                return self.case_only_consumer(facts, marker, producer)
            searched: dict[str, list[tuple[Consumer, Position]]] = self._cache.setdefault(
                "searched", {}
            )
            if marker not in searched:
                searched[marker] = _folded_search(facts, marker, self._cache.setdefault("fold", {}))
            found = searched[marker]
        for consumer, pos in found:
            if consumer.path not in excluded:
                return pos
        return None

    def matched_on(self, facts: Facts, agent: str, own: set[str]) -> set[str]:
        """Tokens a workflow or command matches on `agent`'s return: quoted in a section that
        dispatches to it, or in the same paragraph or list as one of its declared markers."""
        if "quotes" not in self._cache:
            dispatched: dict[str, set[str]] = {}
            blocks: dict[tuple[str, int], set[str]] = {}
            for q in facts.quoted_markers:
                if q.dispatch_surface:
                    if q.dispatched_agent is not None:
                        dispatched.setdefault(q.dispatched_agent, set()).add(q.text)
                    blocks.setdefault((q.position.path, q.block_line), set()).add(q.text)
            neighbours: dict[str, set[str]] = {}
            for texts in blocks.values():
                for text in texts:
                    neighbours.setdefault(text, set()).update(texts)
            self._cache["quotes"] = (dispatched, neighbours)
        dispatched, neighbours = self._cache["quotes"]
        out = set(dispatched.get(agent, ()))
        for marker in own:
            out.update(neighbours.get(marker, ()))
        return out


_SEARCHES_BEFORE_ONE_PASS = 5000


def _fold(text: str) -> str:
    """`text` with ASCII letters lowered, as a one-byte-per-character string of its UTF-8
    bytes: much cheaper than str.lower() on non-ASCII text, and enough for markers, which
    differ from their consumers' spelling in ASCII case."""
    return text.encode().lower().decode("latin-1")


def _char_position(source: Source, folded: str, start: int) -> Position:
    return source.position(len(folded[:start].encode("latin-1").decode("utf-8", "replace")))


def _folded_search(
    facts: Facts, marker: str, cache: dict[str, str]
) -> list[tuple[Consumer, Position]]:
    needle = _fold(marker)
    out = []
    for path in sorted(facts.consumers):
        consumer = facts.consumers[path]
        if consumer.literals is not None:
            hit = next((lit for lit in consumer.literals if needle in _fold(lit.value)), None)
            if hit is not None:
                out.append((consumer, hit.position))
            continue
        folded = cache.get(path)
        if folded is None:
            folded = cache[path] = _fold(consumer.source.text)
        i = folded.find(needle)
        if i >= 0:
            out.append((consumer, _char_position(consumer.source, folded, i)))
    return out


def _occurrences(facts: Facts, markers: list[str], fold: bool) -> Occurrences:
    """For each marker, the consumers that contain it and where it first occurs, sorted by
    path: one multi-pattern (Aho-Corasick) pass over every consumer, so the cost grows with
    the text, not with markers times files. With `fold`, ASCII case is ignored."""
    out: Occurrences = {}
    if not markers:
        return out
    import ahocorasick  # type: ignore[import-not-found,import-untyped,unused-ignore]

    automaton = ahocorasick.Automaton()
    for marker in markers:
        automaton.add_word(_fold(marker) if fold else marker, marker)
    automaton.make_automaton()
    for path in sorted(facts.consumers):
        consumer = facts.consumers[path]
        first: dict[str, Position] = {}
        if consumer.literals is None:
            text = _fold(consumer.source.text) if fold else consumer.source.text
            for end, marker in automaton.iter(text):
                if marker not in first:
                    start = end - len(_fold(marker) if fold else marker) + 1
                    first[marker] = (
                        _char_position(consumer.source, text, start)
                        if fold
                        else consumer.source.position(start)
                    )
        else:
            for lit in consumer.literals:
                value = _fold(lit.value) if fold else lit.value
                for _, marker in automaton.iter(value):
                    first.setdefault(marker, lit.position)
        for marker, pos in first.items():
            out.setdefault(marker, []).append((consumer, pos))
    return out


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

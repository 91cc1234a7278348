"""The marker grammar (where a marker can end inside a heading, how near two markers are),
and the marker lookups the contract rules and the graph share, built once by the scan."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cached_property
from typing import Any

from drift_check.facts import (
    Agent,
    Facts,
    MarkerOccurrences,
    Occurrence,
    QuotedMarker,
    Registry,
    RegistryRow,
)

KINDS = ("sentinel-match", "artifact+query", "structured-return")
NON_SENTINEL = ("artifact+query", "structured-return")

# Where a marker can end inside a longer heading: `## ⚠ Source Audit: Unplanned Items Found`
# carries the marker `⚠ Source Audit`. A bare space or letter never ends one, so `PLAN`
# is not in `PLANNING COMPLETE` nor in `PLAN COMPLETE`.
_CUT = re.compile(r":| [-\u2013\u2014(\[]")


def cuts(text: str, limit: int) -> list[str]:
    """The markers `text` may carry: its beginnings, at most `limit` characters long, that
    end just before a separator (`:`, or a space then `-`, an en or em dash, `(` or `[`),
    or just after a `:` that a space follows."""
    out = []
    for m in _CUT.finditer(text, 1, limit + 2):
        i = m.start()
        if i <= limit:
            out.append(text[:i])
        if m.group() == ":" and i < limit and text[i + 1 : i + 2] == " ":
            out.append(text[: i + 1])
    return out


def covers(marker: str, heading: str) -> bool:
    """`heading` is `marker`, or starts with it followed by a separator (see `cuts`)."""
    if heading == marker:
        return True
    if not marker or not heading.startswith(marker):
        return False
    rest = heading[len(marker) :]
    # as in `cuts`, a marker ending in `:` has text before it (a bare `:` is no marker)
    return bool(_CUT.match(rest)) or (
        len(marker) > 1 and marker.endswith(":") and rest.startswith(" ")
    )


# Words that name one outcome of a turn: `## REVIEW DONE` and `## REVIEW COMPLETE` are one
# marker spelled two ways.
_SAME_OUTCOME = (
    frozenset({"done", "complete", "completed", "finished"}),
    frozenset({"failed", "failure"}),
)
_WORD = re.compile(r"[^\W_]+")


def marker_words(text: str) -> list[str]:
    """The words of a marker (runs of letters and digits), case folded: spacing, `_`, `-`
    and other punctuation between them do not count."""
    return _WORD.findall(text.casefold())


def _one_edit(a: str, b: str) -> bool:
    """`a` and `b` differ by one inserted, deleted, replaced or swapped (adjacent) letter."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) != len(b):
        longer, shorter = (a, b) if len(a) > len(b) else (b, a)
        return longer[i + 1 :] == shorter[i:]
    replaced = a[i + 1 :] == b[i + 1 :]
    swapped = a[i + 2 :] == b[i + 2 :] and a[i : i + 2] == b[i : i + 2][::-1]
    return replaced or swapped


def near_miss_tier(quote: list[str], marker: list[str]) -> int | None:
    """How close a marker's words are to a quote's (both from `marker_words`): 0 the same
    words (another case, spacing or punctuation), 1 the same words in another order, 2 two
    or more words of which one is changed by a single letter (`COMPLETE`/`COMPLETED`, a typo
    in a word of four letters or more) or into another word for the same outcome
    (`DONE`/`COMPLETE`); None when it is no near miss."""
    if not quote:
        return None
    if quote == marker:
        return 0
    if len(quote) != len(marker) or len(quote) < 2:
        return None
    if sorted(quote) == sorted(marker):
        return 1
    changed = [(q, m) for q, m in zip(quote, marker, strict=True) if q != m]
    if len(changed) != 1:
        return None
    q, m = changed[0]
    if min(len(q), len(m)) >= 4 and q.isalpha() and m.isalpha() and _one_edit(q, m):
        return 2
    return 2 if any(q in same and m in same for same in _SAME_OUTCOME) else None


class Index:
    """Lookups over the registry, the agents, the quoted markers and the consumer
    occurrences that several rules share: every table is built once, by `build_index`."""

    def __init__(
        self,
        registry: Registry | None,
        agents: dict[str, Agent],
        quoted: tuple[QuotedMarker, ...],
        occurrences: MarkerOccurrences,
        agent_mentions: dict[str, frozenset[str]],
        shape: re.Pattern[str],
        max_length: int,
    ) -> None:
        self.rows = registry.rows if registry else ()
        self.row_of: dict[str, RegistryRow] = {}  # the first row per agent
        self.declared: dict[str, set[str]] = {}  # marker -> agents whose rows declare it
        for row in self.rows:
            self.row_of.setdefault(row.agent, row)
            for m in row.markers:
                self.declared.setdefault(m.text, set()).add(row.agent)
        self.emitters: dict[str, set[str]] = {}  # fenced heading text -> agents that emit it
        for agent in agents.values():
            for e in agent.emissions:
                self.emitters.setdefault(e.text, set()).add(agent.name)
        self.agents = agents
        self.occurrences = occurrences
        self.agent_mentions = agent_mentions
        self.shape = shape
        self.max_length = max_length
        self._declared_limit = max(map(len, self.declared), default=0)
        self._by_lower: dict[str, list[str]] = {}
        for d in sorted(self.declared):
            self._by_lower.setdefault(d.lower(), []).append(d)
        self._declared_cuts = {c for d in self.declared for c in cuts(d, self._declared_limit)}
        self._near: dict[tuple[object, ...], list[_Emitted]] | None = None
        self._containing = {(o.path, t) for t, found in occurrences.exact.items() for o in found}
        self._dispatched, self._neighbours = _quotes(quoted)

    @cached_property
    def _emitted_cuts(self) -> set[str]:
        """The beginnings (`cuts`) of every fenced heading: asked only for a quoted marker."""
        return {c for e in self.emitters for c in cuts(e, self.max_length)}

    @cached_property
    def _emitted_words(self) -> dict[str, list[tuple[str, list[str], list[str]]]]:
        """`_emitted_words` of the agents: asked only for a near miss."""
        return _emitted_words(self.agents.values(), self.max_length)

    def declared_covering(self, text: str) -> list[str]:
        """The declared markers `text` is or carries (see `covers`), longest first."""
        if not self.declared:  # a tree without a registry: every fenced heading asks
            return []
        found = [c for c in cuts(text, self._declared_limit) if c in self.declared]
        if text in self.declared:
            found.append(text)
        return sorted(found, key=len, reverse=True)

    def case_variant(self, text: str) -> tuple[str, list[str]] | None:
        """The part of `text` (all of it, or a beginning as in `cuts`) that differs only by
        case from declared markers, and those markers; None when no part does."""
        if not self.declared:
            return None
        for part in [text, *reversed(cuts(text, self._declared_limit))]:
            found = self._by_lower.get(part.lower())
            if found and part not in self.declared:
                return part, found
        return None

    def names(self, agent: Agent, text: str) -> bool:
        """`agent`'s text, or a document it includes, contains the declared marker or read
        tag `text` anywhere (a fence or not)."""
        return text in self.agent_mentions.get(agent.path, ())

    def emits(self, agent: Agent, marker: str) -> bool:
        """`agent` emits `marker` exactly, or a heading that carries it (see `covers`)."""
        return any(covers(marker, e.text) for e in agent.emissions)

    def quotes_declared(self, text: str) -> bool:
        """A quoted `## text` matches a declared marker: it is one, carries one, or is the
        beginning of one (a caller matching `## ⚠ Source Audit` on `⚠ Source Audit: ...`)."""
        return bool(self.declared_covering(text)) or text in self._declared_cuts

    def quotes_emitted(self, text: str) -> bool:
        """A quoted `## text` matches some agent's fenced heading: it is one, or the
        beginning of one (see `covers`)."""
        return text in self.emitters or text in self._emitted_cuts

    def near_miss(self, text: str, agent: str | None = None) -> tuple[str, list[str]] | None:
        """The one marker some agent emits that a quoted `## text` most likely meant (see
        `near_miss_tier`; a heading's beginning, as in `cuts`, counts), and the files that
        emit it. The agent the quote's section dispatches to is asked first. None when no
        marker is that close, or when two are equally close: a guess is worse than none."""
        by_agent = self._emitted_words
        words = marker_words(text)
        candidates = self._near_candidates(words)
        scopes: list[str | None] = [agent] if agent in by_agent else []
        scopes.append(None)  # every agent
        for scope in scopes:
            best: dict[str, set[str]] = {}
            best_tier = 3
            for name, marker, marker_w, paths in candidates:
                if scope is not None and name != scope:
                    continue
                tier = near_miss_tier(words, marker_w)
                if tier is None or tier > best_tier or marker == text:
                    continue
                if tier < best_tier:
                    best, best_tier = {}, tier
                best.setdefault(marker, set()).update(paths)
            if len(best) == 1:
                ((marker, paths),) = best.items()
                return marker, sorted(paths)
            if best:
                return None
        return None

    def _near_candidates(self, words: list[str]) -> list[_Emitted]:
        """The emitted markers that can be a near miss of `words` (see `near_miss_tier`): the
        same words in any order, or the same words but one at one place. Looked up in tables
        made on the first call, so a tree's quotes times its markers is never walked."""
        if self._near is None:
            self._near = {}
            for name, emitted in sorted(self._emitted_words.items()):
                for marker, marker_w, paths in emitted:
                    entry = (name, marker, marker_w, paths)
                    for key in _near_keys(marker_w):
                        self._near.setdefault(key, []).append(entry)
        seen: set[tuple[str, str]] = set()
        out = []
        for key in _near_keys(words):
            for entry in self._near.get(key, ()):
                if (entry[0], entry[1]) not in seen:
                    seen.add((entry[0], entry[1]))
                    out.append(entry)
        return out

    def checked_rows(self) -> list[tuple[RegistryRow, Agent]]:
        """Rows whose agent file exists, once per agent: the rows the contract rules check."""
        seen: set[str] = set()
        out = []
        for row in self.rows:
            agent = self.agents.get(row.agent)
            if agent is not None and row.agent not in seen:
                seen.add(row.agent)
                out.append((row, agent))
        return out

    def marker_shaped(self, text: str) -> bool:
        return len(text) <= self.max_length and bool(self.shape.match(text))

    def _excluded(self, marker: str, producer: str) -> set[str]:
        """The producer's own file and the files of other agents that emit the marker too
        (a co-producer is not a consumer)."""
        names = set(self.emitters.get(marker, ())) | {producer}
        return {self.agents[a].path for a in names if a in self.agents}

    def consumers_of(self, marker: str, producer: str) -> list[Occurrence]:
        """Files that contain the declared `marker` exactly, with the first match, by path."""
        excluded = self._excluded(marker, producer)
        return [o for o in self.occurrences.exact.get(marker, ()) if o.path not in excluded]

    def case_only_consumer(self, marker: str, producer: str) -> Occurrence | None:
        """The first match of the declared `marker` ignoring (ASCII) case, outside the
        excluded files."""
        excluded = self._excluded(marker, producer)
        found = self.occurrences.folded.get(marker, ())
        return next((o for o in found if o.path not in excluded), None)

    def contains(self, path: str, marker: str) -> bool:
        """The consumer at `path` contains `marker` exactly (in a Python file, in a string)."""
        return (path, marker) in self._containing

    def would_consume(
        self, texts: list[str], producer: str
    ) -> tuple[dict[str, list[str]], set[str]]:
        """For markers not (yet) declared: the files that would consume each, as
        `consumers_of` finds them once it is declared, and those matched only ignoring case
        (declaring them would make a consumer check report them)."""
        paths: dict[str, list[str]] = {}
        case_only: set[str] = set()
        for text in sorted(set(texts)):
            excluded = self._excluded(text, producer)
            exact = self.occurrences.exact.get(text, ())
            paths[text] = [o.path for o in exact if o.path not in excluded]
            folded = self.occurrences.folded.get(text, ())
            if not paths[text] and any(o.path not in excluded for o in folded):
                case_only.add(text)
        return paths, case_only

    def matched_on(self, agent: str, own: set[str]) -> set[str]:
        """Tokens a workflow or command matches on `agent`'s return: quoted in a section that
        dispatches to it, or in the same paragraph or list as one of its declared markers."""
        out = set(self._dispatched.get(agent, ()))
        for marker in own:
            out.update(self._neighbours.get(marker, ()))
        return out


_Emitted = tuple[str, str, list[str], list[str]]  # agent, marker, its words, files


def _near_keys(words: list[str]) -> list[tuple[object, ...]]:
    """Keys that two word lists share when they are a near miss of each other: their sorted
    words, and for each place, the words with that place left out."""
    n = len(words)
    keys: list[tuple[object, ...]] = [("sorted", *sorted(words))]
    keys.extend(("hole", n, i, *words[:i], *words[i + 1 :]) for i in range(n))
    return keys


def _emitted_words(
    agents: Iterable[Agent], max_length: int
) -> dict[str, list[tuple[str, list[str], list[str]]]]:
    """For each agent, what it emits (headings and their beginnings, as in `cuts`) with the
    words of each (`marker_words`) and the files that emit it."""
    emitted: dict[str, dict[str, set[str]]] = {}  # agent -> marker -> files
    for a in agents:
        for e in a.emissions:
            for marker in (e.text, *cuts(e.text, max_length)):
                emitted.setdefault(a.name, {}).setdefault(marker, set()).add(a.path)
    # one list of words per marker and one list per set of files, shared by every agent
    # that emits them (never changed): a large tree's copies of an agent emit the same ones
    words: dict[str, list[str]] = {}
    files: dict[tuple[str, ...], list[str]] = {}
    out: dict[str, list[tuple[str, list[str], list[str]]]] = {}
    for name, found in emitted.items():
        out[name] = []
        for m, paths in sorted(found.items()):
            if m not in words:
                words[m] = marker_words(m)
            key = tuple(sorted(paths))
            if key not in files:
                files[key] = list(key)
            out[name].append((m, words[m], files[key]))
    return out


def _quotes(quoted: Iterable[QuotedMarker]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """The tokens quoted in sections that dispatch to each agent, and for each token the
    tokens quoted in the same paragraph or list (workflows and commands only)."""
    dispatched: dict[str, set[str]] = {}
    blocks: dict[tuple[str, int], set[str]] = {}
    for q in quoted:
        if q.dispatch_surface:
            if q.dispatched_agent is not None:
                dispatched.setdefault(q.dispatched_agent, set()).add(q.text)
            blocks.setdefault((q.position.path, q.block_line), set()).add(q.text)
    neighbours: dict[str, set[str]] = {}
    for texts in blocks.values():
        for text in texts:
            neighbours.setdefault(text, set()).update(texts)
    return dispatched, neighbours


def build_index(
    registry: Registry | None,
    agents: dict[str, Agent],
    quoted: tuple[QuotedMarker, ...],
    occurrences: MarkerOccurrences,
    agent_mentions: dict[str, frozenset[str]],
    settings: dict[str, Any],
) -> Index:
    return Index(
        registry,
        agents,
        quoted,
        occurrences,
        agent_mentions,
        re.compile(settings["marker-shape"]),
        settings["marker-max-length"],
    )


def index(facts: Facts) -> Index:
    """The marker lookups of this run, built by the scan."""
    found = facts.marker_index
    assert isinstance(found, Index), "facts are built by drift_check.scanners.build_facts"
    return found


def is_sentinel(row: RegistryRow) -> bool:
    return row.kind is None or row.kind == "sentinel-match"

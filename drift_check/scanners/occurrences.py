"""Where consumers contain marker texts, and which markers and tags agents' texts name: the
searches the consumer and contract rules answer from, made once at scan time."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from drift_check.facts import (
    Agent,
    Consumer,
    MarkerOccurrences,
    Occurrence,
    Position,
    Registry,
)

if TYPE_CHECKING:
    from drift_check.scanners.files import Repo


def searched_texts(
    registry: Registry | None,
    agents: Iterable[Agent],
    quoted: Iterable[str],
    shape: re.Pattern[str],
    max_length: int,
) -> list[str]:
    """What the rules and the graph ask consumers about: every declared marker, every
    quoted token, and every marker-shaped fenced heading an agent emits (a marker a fix
    would declare; any other heading a fix declares is quoted by some caller)."""
    texts = {m.text for row in registry.rows for m in row.markers} if registry else set()
    texts.update(quoted)
    texts.update(
        e.text
        for a in agents
        for e in a.emissions
        if len(e.text) <= max_length and shape.match(e.text)
    )
    texts.discard("")
    return sorted(texts)


def _fold(text: str) -> bytes:
    """`text` as UTF-8 with ASCII letters lowered: much cheaper than str.lower() on
    non-ASCII text, and enough for markers, whose consumers differ from them in ASCII case."""
    return text.encode().lower()


def find_occurrences(
    consumers: dict[str, Consumer], texts: list[str], repo: Repo | None = None
) -> MarkerOccurrences:
    """For each text, the consumers that contain it exactly, and those that contain it
    ignoring case, each with where it first occurs, sorted by path.

    One multi-pattern (Aho-Corasick) pass over the case-folded text of every consumer, so the
    cost grows with the text, not with texts times files; exact case is checked at each
    hit. The automaton (ahocorasick-rs, Rust) runs over the folded UTF-8 bytes, so hit
    offsets are byte offsets. With the `repo` the consumers were read from, a large tree's
    consumers are searched on every core (`drift_check.parallel`).
    """
    exact: dict[str, list[Occurrence]] = {}
    folded: dict[str, list[Occurrence]] = {}
    if not texts or not consumers:
        return MarkerOccurrences({}, {})
    from ahocorasick_rs import BytesAhoCorasick

    groups: dict[bytes, list[tuple[str, bytes]]] = {}
    for text in texts:
        groups.setdefault(_fold(text), []).append((text, text.encode()))
    keys = list(groups)
    members = [groups[key] for key in keys]
    automaton = BytesAhoCorasick(keys)

    def one(path: str) -> tuple[list[tuple[str, Occurrence]], list[tuple[str, Occurrence]]]:
        """The texts `path` contains exactly, and ignoring case."""
        consumer = consumers[path]
        # where each text is first found: a literal's position, or a byte offset in the file
        first_exact: dict[str, Position | int] = {}
        first_folded: dict[str, tuple[Position | int, str]] = {}
        pieces = (
            [(consumer.source.text, None)]
            if consumer.literals is None
            else [(lit.value, lit.position) for lit in consumer.literals]
        )
        non_ascii = b""  # the file's UTF-8, where byte offsets are not character offsets
        for piece, literal_at in pieces:
            data = piece.encode()
            if literal_at is None and len(data) != len(piece):
                non_ascii = data
            for key, start, end in automaton.find_matches_as_indexes(data.lower(), True):
                for text, raw in members[key]:
                    if text in first_exact:
                        continue  # found exactly, so found ignoring case before or here
                    is_exact = data[start:end] == raw
                    if not is_exact and text in first_folded:
                        continue
                    at = literal_at or start
                    if text not in first_folded:
                        written = data[start:end].decode("utf-8", "replace")
                        first_folded[text] = (at, written)
                    if is_exact:
                        first_exact[text] = at
        offsets = {at for at in first_exact.values() if isinstance(at, int)}
        offsets.update(at for at, _ in first_folded.values() if isinstance(at, int))
        chars = _characters(non_ascii, offsets) if non_ascii else {at: at for at in offsets}
        placed = consumer.source.positions(chars.values()) if chars else {}
        return [
            (text, Occurrence(path, placed[chars[at]] if isinstance(at, int) else at, text))
            for text, at in first_exact.items()
        ], [
            (text, Occurrence(path, placed[chars[at]] if isinstance(at, int) else at, written))
            for text, (at, written) in first_folded.items()
        ]

    paths = sorted(consumers)
    if repo is None:
        found = [one(path) for path in paths]
    else:
        from drift_check.parallel import map_files

        found = map_files(one, paths, repo)
    for path_exact, path_folded in found:
        for text, occurrence in path_exact:
            exact.setdefault(text, []).append(occurrence)
        for text, occurrence in path_folded:
            folded.setdefault(text, []).append(occurrence)
    return MarkerOccurrences(
        {t: tuple(found) for t, found in exact.items()},
        {t: tuple(found) for t, found in folded.items()},
    )


def _characters(data: bytes, offsets: set[int]) -> dict[int, int]:
    """Each byte offset of UTF-8 `data` (each at a character's first byte: a hit of a
    key, which is whole UTF-8 too) as a character offset, decoding each stretch once."""
    out: dict[int, int] = {}
    characters = last = 0
    for offset in sorted(offsets):
        characters += len(data[last:offset].decode("utf-8", "replace"))
        out[offset] = characters
        last = offset
    return out


# Up to this many texts, an agent's texts are searched once per text: `in` skips ahead
# through prose by the text's length where its last characters do not occur (a marker's
# capitals, a tag's `<`), a few times cheaper per character than an automaton's step for
# the GSD corpus's 26 markers and tags, and never much dearer below this count.
FEW_TEXTS = 32


class MentionSearch:
    """Which of `texts` (declared markers, read tags) an agent's file or the documents it
    includes contain, anywhere: asked as each agent is scanned, while its texts are held."""

    def __init__(self, texts: list[str]) -> None:
        self.wanted = [t for t in texts if t]
        self.automaton = None
        if len(self.wanted) > FEW_TEXTS:
            # one multi-pattern pass per text: a search per text and agent grows with agents
            # times markers, both of which grow with the tree
            from ahocorasick_rs import AhoCorasick

            self.automaton = AhoCorasick(self.wanted)

    def __call__(self, agent: Agent) -> frozenset[str]:
        texts = [s.text for s in agent.texts]
        if self.automaton is None:
            return frozenset(t for t in self.wanted if any(t in text for text in texts))
        find = self.automaton.find_matches_as_indexes
        wanted = self.wanted
        return frozenset(wanted[i] for text in texts for i, _, _ in find(text, True))

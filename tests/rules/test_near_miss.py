"""DC305's near-miss lookup: the indexed candidates give what comparing the quote with every
emitted marker gives (the index exists so that quotes times markers is never walked)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drift_check.facts import Agent, Emission, MarkerOccurrences, Position
from drift_check.markers import Index, marker_words, near_miss_tier

WORDS = st.sampled_from(
    [
        "REVIEW",
        "REVEIW",
        "DONE",
        "COMPLETE",
        "COMPLETED",
        "PLAN",
        "PLANS",
        "FAILED",
        "FAILURE",
        "Review",
        "done",
        "A",
        "X1",
    ]
)
MARKER = st.lists(WORDS, min_size=1, max_size=3).flatmap(
    lambda words: st.sampled_from([" ", "_", "-", "  "]).map(lambda sep: sep.join(words))
)
SHAPE = re.compile(r".+")


def _agent(name: str, markers: list[str]) -> Agent:
    emissions = tuple(Emission(name, m, Position(f"agents/{name}.md", 2, 1)) for m in markers)
    return Agent(name, f"agents/{name}.md", None, {}, None, emissions, (), ("",))


def _every_marker(index: Index, text: str, agent: str | None) -> tuple[str, list[str]] | None:
    """The lookup without the index: every emitted marker compared with the quote."""
    words = marker_words(text)
    by_agent = index._emitted_words
    scopes = [[agent]] if agent in by_agent else []
    scopes.append(sorted(by_agent))
    for names in scopes:
        best: dict[str, set[str]] = {}
        best_tier = 3
        for name in names:
            for marker, marker_w, paths in by_agent[name]:
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


@pytest.mark.slow  # a property run: hundreds of generated cases
@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["a", "b", "c"]), st.lists(MARKER, max_size=4), max_size=3),
    st.lists(MARKER, min_size=1, max_size=5),
    st.sampled_from([None, "a", "b", "z"]),
)
def test_indexed_near_miss_is_the_exhaustive_one(
    emitted: dict[str, list[str]], quotes: list[str], dispatched: str | None
) -> None:
    agents = {f"agents/{n}.md": _agent(n, ms) for n, ms in emitted.items()}
    index = Index(None, agents, (), MarkerOccurrences({}, {}), {}, SHAPE, 200)
    for quote in quotes:
        assert index.near_miss(quote, dispatched) == _every_marker(index, quote, dispatched)


def test_a_near_miss_is_found_and_a_tie_is_no_guess() -> None:
    agents = {
        "agents/r.md": _agent("r", ["REVIEW DONE", "PLAN READY"]),
        "agents/s.md": _agent("s", ["REVIEW FAILED"]),
    }
    index = Index(None, agents, (), MarkerOccurrences({}, {}), {}, SHAPE, 200)
    assert index.near_miss("REVIEW COMPLETE") == ("REVIEW DONE", ["agents/r.md"])
    assert index.near_miss("READY PLAN") == ("PLAN READY", ["agents/r.md"])
    assert index.near_miss("REVIEW PASSED") is None
    assert index.near_miss("REVIEW FAILURE", "s") == ("REVIEW FAILED", ["agents/s.md"])

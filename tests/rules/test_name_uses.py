"""Where names occur (`scanners/names.py`): the search (a name at a time, or all of them in
one pass) finds exactly what a whole-word regular expression per name finds, and its cost
does not grow with the number of names."""

from __future__ import annotations

import re
import time
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.facts import Position, Source
from drift_check.scanners import names as names_module
from drift_check.scanners.names import name_uses


def reference(sources: list[Source], names: set[str]) -> dict[str, tuple[Position, ...]]:
    """The definition: each name as a whole word (no word character or hyphen beside it), not
    part of a file name (no `.` before it, no `.` and a word character after it)."""
    found: dict[str, list[Position]] = {}
    for name in sorted(n for n in names if n):
        pattern = re.compile(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])(?!\.[\w-])")
        for source in sources:
            for m in pattern.finditer(source.text):
                found.setdefault(name, []).append(source.position(m.start()))
    return {name: tuple(sorted(found[name])) for name in sorted(found)}


PIECES = st.sampled_from(["a", "b", "ab", "a.a", "a a", "-", "_", " ", "\n", ".", "é", "1", ":"])
TEXT = st.lists(PIECES, max_size=14).map("".join)
NAMES = st.sets(st.lists(PIECES, min_size=1, max_size=3).map("".join), max_size=4)


@pytest.mark.slow
@pytest.mark.parametrize("few", [0, 8], ids=["one-pass", "name-by-name"])
@settings(max_examples=400, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=3), NAMES)
@example(["a.a.a"], {"a.a"})  # a name's uses overlap: the first is taken, as a regex does
@example(["x a-b a_b ab-"], {"a", "ab", "b"})
@example(["a .pdf b.pdf pdf.py pdf. pdf"], {"pdf"})  # a file name's parts are not uses
def test_the_search_finds_what_a_regex_per_name_finds(
    few: int, texts: list[str], names: set[str]
) -> None:
    sources = [Source(f"f{i}.md", text) for i, text in enumerate(texts)]
    with mock.patch.object(names_module, "_FEW_NAMES", few):
        assert name_uses(sources, names) == reference(sources, names)


def test_many_names_cost_no_more_than_a_few() -> None:
    body = "Use the helper agent, then review the diff.\n" * 200  # about 9 KB, no name in it
    sources = [Source(f"plugins/p{i}/agents/a.md", body) for i in range(400)]
    names = {f"agent-{i}-renamed" for i in range(4000)}
    start = time.perf_counter()
    assert name_uses(sources, names) == {}
    assert time.perf_counter() - start < 1.0  # a search per name and file took 4 s here

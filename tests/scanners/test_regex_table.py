"""The regular expressions a run loads instead of compiling (`patterns.preload`) are the ones
Python's compiler makes of their text, and the table holds every pattern a check of the
bundled examples compiles (a pattern changed without `python tools/regex_table.py` run again
fails here)."""

from __future__ import annotations

import contextlib
import io
import re
import sys
from pathlib import Path

import pytest

from drift_check.cli import main
from drift_check.scanners import patterns
from drift_check.scanners import regex_table as table

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from regex_table import entry, from_the_package  # noqa: E402

THIS_PYTHON = tuple(sys.version_info[:2]) == table.PYTHON
needs_this_python = pytest.mark.skipif(
    not THIS_PYTHON, reason=f"the table is compiled for Python {table.PYTHON}"
)


@needs_this_python
def test_each_pattern_is_what_the_compiler_makes_of_its_text() -> None:
    assert table.PATTERNS, "an empty table loads nothing"
    for held in table.PATTERNS:
        assert held == entry(held[0], held[1])


@needs_this_python
def test_a_loaded_pattern_matches_as_the_compiled_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(re, "_cache", {})
    patterns.preload()
    assert len(re._cache) == len({(type(p), p, f) for p, f, *_ in table.PATTERNS})
    samples = ["", "a", "## PLANNING COMPLETE\n", "x/y.md `a` [b](c)", "é\u0130\n\t-", "\0"]
    for pattern, flags, *_ in table.PATTERNS:
        loaded = re.compile(pattern, flags)
        compiled = re._compiler.compile(pattern, flags)  # type: ignore[attr-defined]
        assert (loaded.pattern, loaded.flags, loaded.groups, loaded.groupindex) == (
            compiled.pattern,
            compiled.flags,
            compiled.groups,
            compiled.groupindex,
        )
        for sample in samples:
            text: str | bytes = sample.encode() if isinstance(pattern, bytes) else sample
            assert [m.span() for m in loaded.finditer(text)] == [
                m.span() for m in compiled.finditer(text)
            ]


def test_another_python_loads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(re, "_cache", {})
    monkeypatch.setattr(table, "PYTHON", (2, 7))
    patterns.preload()
    assert re._cache == {}


@needs_this_python
def test_the_table_holds_every_pattern_a_check_of_the_examples_compiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    compiled: set[tuple[str | bytes, int]] = set()
    real = re._compiler.compile  # type: ignore[attr-defined]

    def recorded(pattern, flags=0):  # type: ignore[no-untyped-def]
        if isinstance(pattern, (str, bytes)) and from_the_package():
            compiled.add((pattern, flags))
        return real(pattern, flags)

    monkeypatch.setenv("DRIFT_CHECK_JOBS", "1")
    monkeypatch.setattr(re._compiler, "compile", recorded)  # type: ignore[attr-defined]
    monkeypatch.setattr(re, "_cache", {})
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main([str(ROOT / "examples"), "--format", "json"])
    assert compiled, "the check compiled nothing: the recording missed it"
    held = {(p, f) for p, f, *_ in table.PATTERNS}
    missing = sorted(str(p)[:80] for p, f in compiled - held)
    assert not missing, f"run `python tools/regex_table.py ../shared/corpora/*/`: {missing}"

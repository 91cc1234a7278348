"""Faster paths in the skill, agent and link scanners give what the code they replaced gave.

Each test keeps the replaced code as a plain reference (the slow, obvious form) and checks
that the scanner agrees with it on generated inputs built from the shapes that matter to
it: the reference is the specification, the scanner the optimisation.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.facts import Named, Position, Source
from drift_check.scanners.frontmatter import frontmatter_names, split_entries

pytestmark = pytest.mark.slow  # hypothesis: fast paths against the code they replaced

# --- frontmatter_names: entries found by offsets, not in a list of every line ------------


def reference_frontmatter_names(
    source: Source, value: object, key_lines: dict[str, int], key: str, spaces: bool
) -> tuple[Named, ...]:
    if isinstance(value, str):
        names = split_entries(value, spaces)
    elif isinstance(value, list):
        names = [str(v).strip() for v in value if str(v).strip()]
    else:
        return ()
    lines = source.text.split("\n")
    line = key_lines.get(key, 1)
    column = len(key) + 1
    out = []
    for name in names:
        pos = Position(source.path, key_lines.get(key, 1), 1)
        for n in range(line, min(len(lines), line + 200) + 1):
            i = lines[n - 1].find(name, column if n == line else 0)
            if i >= 0:
                pos = Position(source.path, n, i + 1)
                line, column = n, i + len(name)
                break
        out.append(Named(name, pos))
    return tuple(out)


NAME = st.sampled_from(["Read", "Write", "Bash(git *)", "a", "ab", "b a", "tools", "\n", "é"])
LINE = st.lists(st.sampled_from(["Read", "Write", "Bash(git *)", "a", "b", " ", ",", "-"]))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(LINE.map("".join), max_size=8),
    st.integers(0, 9),
    st.one_of(st.lists(NAME, max_size=4), st.lists(NAME, max_size=4).map(", ".join)),
    st.booleans(),
    st.booleans(),
)
@example(["tools: Read, Write", "  - Read"], 1, ["Read", "Read"], False, False)
@example(["x"], 5, ["x"], False, True)
def test_frontmatter_names_agree(
    lines: list[str], key_line: int, value: object, spaces: bool, final_newline: bool
) -> None:
    text = "\n".join(lines) + ("\n" if final_newline else "")
    source = Source("a.md", text)
    key_lines = {"tools": key_line} if key_line else {}
    got = frontmatter_names(source, {"tools": value}, key_lines, "tools", spaces)
    assert got == reference_frontmatter_names(source, value, key_lines, "tools", spaces)


# --- words saying a file is not bundled: the regex only where a line can match ------------

VERB_WORDS = st.sampled_from(
    [
        *("create", "Creating", "writes", "WRITTEN", "wrote", "generated", "output", "outputs"),
        *("save", "saving", "produce", "emits", "scaffold", "touch", "mkdir", "MKDIR"),
        *("appended", "initialise", "initializes", "render", "export", "dump", "renamed"),
        *("move", "moving", "copy", "copies", "download", "becomes", "your", "YOUR"),
        *("new file", "New File", "will be", "will contain", "the user's", "the project's"),
        *("this repo", "the repository", "the codebase", "THE WORKSPACE", "the   project"),
        *("recreate", "overwrite", "scope", "remove", "savvy", "projects", "reporter", "be"),
        # case folds a lowercased ASCII line never has: long s, Kelvin sign, dotted capital I
        *("\u017fave", "\u017fcaffold", "mKdir", "m\u212adir", "\u0130nitialize", "usER'S"),
        *("coPy", "\u00e9", "\u00df", "\u0130"),
    ]
)
FILLER = st.sampled_from([" ", "  ", ", ", ".", "-", "_", "x", "`a/b.md`", "a/b.md", "'", "9"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(VERB_WORDS, FILLER), max_size=12).map("".join), st.text(max_size=20))
@example("Create `docs/plan.md` in your project", "")
@example("the user's notes.md", "")
@example("then run mkdir", "")
def test_not_bundled_words_agree(line: str, rest: str) -> None:
    from drift_check.scanners.links import _NOT_BUNDLED, _NotBundled

    expected = [(m.start(), m.end()) for m in re.finditer(_NOT_BUNDLED, line, re.I)]
    assert _NotBundled(f"{rest}\n{line}\n{rest}").find(line) == expected

"""Faster paths in the skill, agent and link scanners give what the code they replaced gave.

Each test keeps the replaced code as a plain reference (the slow, obvious form) and checks
that the scanner agrees with it on generated inputs built from the shapes that matter to
it: the reference is the specification, the scanner the optimisation.
"""

from __future__ import annotations

import re
import types

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.facts import Consumer, Named, Position, Source
from drift_check.scanners import occurrences
from drift_check.scanners.frontmatter import frontmatter_names, split_entries
from drift_check.scanners.occurrences import find_occurrences

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


def reference_split_entries(value: str, spaces: bool) -> list[str]:
    """The loop `split_entries` runs where a value has parentheses: every value took it."""
    out: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(value):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and (ch == "," or (spaces and ch in " \t")):
            out.append(value[start:i])
            start = i + 1
    out.append(value[start:])
    return [v.strip() for v in out if v.strip()]


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from("ab,() \t\n\r\x0b\u3000*"), max_size=24), st.booleans())
def test_split_entries_splits_as_the_loop_did(value: str, spaces: bool) -> None:
    assert split_entries(value, spaces) == reference_split_entries(value, spaces)


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
        *("would be", "Would live", "would", "wouldn't be"),
        *("this repo", "the repository", "the codebase", "THE WORKSPACE", "the   project"),
        *("recreate", "overwrite", "scope", "remove", "savvy", "projects", "reporter", "be"),
        # case folds a lowercased ASCII line never has: long s, Kelvin sign, dotted capital I
        *("\u017fave", "\u017fcaffold", "mKdir", "m\u212adir", "\u0130nitialize", "usER'S"),
        *("coPy", "\u00e9", "\u00df", "\u0130", "\u00c9", "\u01c5", "\u03a3", "\u0394x"),
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

    text = rest.replace("\n", " ") + line  # any characters before the words
    expected = [(m.start(), m.end()) for m in re.finditer(_NOT_BUNDLED, text, re.I)]
    words = _NotBundled(f"{rest}\n{text}\n{rest}")
    for _ in range(_NotBundled._WHOLE_AFTER + 1):  # before and after the whole-text search
        assert words.find(text) == expected
        # the line named by its offset: after the whole-text search, by where parts start
        assert words.find(text, len(rest) + 1) == expected


# --- code spans: single backticks paired by a pattern, as the runs pair them --------------

TICK_PIECE = st.sampled_from(["`", "a", " ", "x/y.md", "\\", "é", "[", "]", "\t"])


@settings(max_examples=500, deadline=None)
@given(st.lists(TICK_PIECE, max_size=16).map("".join))
@example("a `b` c `d")
@example("``")
def test_single_tick_spans_agree(line: str) -> None:
    from drift_check.scanners.links import _SINGLE_TICKS, _TICKS, _code_spans

    if "``" in line:  # the runs are read in full there
        return
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
    assert [m.span(1) for m in _SINGLE_TICKS.finditer(line)] == _code_spans(runs)


# --- structured scans: `NAME.field` reads and field tables found from a search ------------

from drift_check.scanners import structured  # noqa: E402
from drift_check.scanners.markdown import scan as markdown_scan  # noqa: E402

_READ_REFERENCE = re.compile(r"\b([A-Z][A-Z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def reference_reads(text: str, names: re.Pattern[str]) -> list[tuple[str, tuple[str, ...], int]]:
    out = []
    for m in _READ_REFERENCE.finditer(text):
        if not names.fullmatch(m.group(1)):
            continue
        fields = tuple(m.group(2)[1:].split("."))
        if fields[-1] in ("md", "json", "yaml", "yml", "txt"):
            continue
        out.append((m.group(1), fields, m.start(1)))
    return out


READ_PIECE = st.sampled_from(
    [
        *("A", "AB_RESULT", "X1", "aB", "_", "é", "É", "1", "md", "json", "field", "Sub"),
        *(".", "..", " ", "\n", "-", "`", "(", "a.b", "_RESULT.", "ß", "\u2028"),
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(READ_PIECE, max_size=24).map("".join), st.booleans())
@example("AB_RESULT.status.x and X1.a.B.c, aB.x É.y A..b _A.b", True)
def test_reads_agree(text: str, any_name: bool) -> None:
    names = re.compile(r"[A-Z][A-Z0-9_]*" if any_name else r"[A-Z][A-Z0-9_]*_RESULT")
    source = Source("a.md", text)
    got = [
        (r.name, r.fields, source.offset(r.position.line, r.position.column))
        for r in structured.field_reads(source, names)
    ]
    assert got == reference_reads(text, names)


TABLE_LINE = st.lists(
    st.sampled_from(["|", " ", "\t", "-", ":", "a", "\r", "\u00a0", "\x0b", "`", "x|y"]),
    max_size=8,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(st.lists(TABLE_LINE, max_size=10))
@example(["| field | type |", "|---|---|", "| `a` | string |"])
@example([" | a |", " |:--| \r", "\u00a0|-|\u00a0"])
def test_table_headers_found(lines: list[str]) -> None:
    text = "\n".join(lines)
    found = set(structured._header_lines(text))
    split = text.split("\n")
    assert found == {i for i in range(len(split) - 1) if structured._is_delimiter(split[i + 1])}
    for i, start in structured._header_starts(text):  # each with where its line starts
        assert text[start:].split("\n", 1)[0] == split[i]


def reference_field_tables(path, lines, markdown, sections, names):  # type: ignore[no-untyped-def]
    """The per-line walk the scanner replaced."""
    out = []
    i = 0
    while i + 1 < len(lines):
        line = lines[i]
        if not line.lstrip().startswith("|") or not structured._is_delimiter(lines[i + 1]):
            i += 1
            continue
        if markdown.in_fence(i + 1):
            i += 1
            continue
        header = [c.text.strip().strip("*`_ ").lower() for c in structured.split_row(line)]
        name_col = next((k for k, h in enumerate(header) if h in structured.NAME_HEADERS), None)
        required_col = next(
            (k for k, h in enumerate(header) if h in structured.REQUIRED_HEADERS), None
        )
        has_type = any(h in structured.TYPE_HEADERS for h in header)
        if name_col is None or not (has_type or required_col is not None):
            i += 2
            continue
        rows = []
        j = i + 2
        while j < len(lines) and lines[j].lstrip().startswith("|"):
            cells = structured.split_row(lines[j])
            if name_col < len(cells):
                row = structured._field_row(path, j + 1, cells, name_col, required_col)
                if row is not None:
                    rows.append(row)
            j += 1
        out.append((i + 1, tuple(rows)))
        i = j
    return out


TABLE_TEXT_LINE = st.sampled_from(
    [
        *("| Field | Type | Required |", "|---|---|---|", "| `a` | string | yes |"),
        *("| b | int | no |", "| name | type |", "|", "| x |", "text", "```", ""),
        *("## RESULT", "X_RESULT:", " |:-| \r", "|-|-|", "| Name | Notes |", "| KEY | Req. |"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(TABLE_TEXT_LINE, max_size=14))
@example(["| Field | Type |", "|---|---|", "| Field | Type |", "|---|---|", "| `a` | x |"])
def test_field_tables_agree_with_the_line_walk(lines: list[str]) -> None:
    text = "\n".join(lines)
    markdown = markdown_scan(text, 0)
    sections = structured._sections(markdown)
    names = re.compile(r"[A-Z][A-Z0-9_]*_RESULT")
    got = structured._field_tables("a.md", text, text.split("\n"), markdown, sections, names)
    want = reference_field_tables("a.md", text.split("\n"), markdown, sections, names)
    assert [(t.position.line, t.rows) for t in got] == want


# --- sibling documents: found with `str.find`, not a regex search per name ----------------


def reference_sibling_links(text: str, name: str) -> list[int]:
    """Where the old regex search (`name(?![\\w-])`, turning away a hit after a name
    character) finds the first mention of `name`, with no links in the text."""
    from drift_check.scanners.links import _name_before

    pattern = re.compile(re.escape(name) + r"(?![\w-])")
    m = pattern.search(text)
    while m is not None:
        if m.start() and _name_before(text[m.start() - 1]):
            m = pattern.search(text, m.start() + 1)
            continue
        return [m.start()]
    return []


SIBLING_PIECE = st.sampled_from(
    [
        *("reference.md", "reference.mdx", "reference.md-", "xreference.md", "/reference.md"),
        *("reference.mdé", "reference.md_", " ", "\n", ".", "é", "reference.md.", "reference."),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(SIBLING_PIECE, max_size=10).map("".join))
@example("reference.mdxreference.md")
def test_sibling_mentions_agree(text: str) -> None:
    from drift_check.scanners.links import find_links

    source = Source("skills/a/SKILL.md", text)
    got = [
        source.offset(link.position.line, link.position.column)
        for link in find_links(source, ["reference.md"])
        if link.target == "reference.md" and link.anchor is None
    ]
    assert got == reference_sibling_links(text, "reference.md")


# --- Source.positions: lines counted in one pass, not looked up in a table ---------------


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "\n", "é", " ", "\r\n", "##", "\u2028"]), max_size=40).map(
        "".join
    ),
    st.lists(st.integers(0, 60), max_size=8),
    st.booleans(),
)
@example("a\nb\n\nc", [0, 1, 2, 3, 4, 5, 6], False)
def test_positions_agree_with_position(text: str, offsets: list[int], tabled: bool) -> None:
    offsets = [o for o in offsets if o <= len(text)]
    source = Source("f.md", text)
    if tabled:
        source.starts  # noqa: B018 (builds the table the lookup then uses)
    expected = {o: Source("f.md", text).position(o) for o in offsets}
    assert source.positions(offsets) == expected


# --- find_occurrences: one automaton pass, offsets placed once per file ------------------


def reference_occurrences(
    consumers: dict[str, Consumer], texts: list[str]
) -> tuple[dict[str, list[tuple[str, Position, str]]], dict[str, list[tuple[str, Position, str]]]]:
    """A find per text and file: exact, then with ASCII letters folded."""
    exact: dict[str, list[tuple[str, Position, str]]] = {}
    folded: dict[str, list[tuple[str, Position, str]]] = {}
    for path in sorted(consumers):
        source = consumers[path].source
        text = source.text
        lowered = "".join(c.lower() if c.isascii() else c for c in text)
        for marker in texts:
            i = text.find(marker)
            if i >= 0:
                exact.setdefault(marker, []).append((path, source.position(i), marker))
            key = "".join(c.lower() if c.isascii() else c for c in marker)
            j = lowered.find(key)
            if j >= 0:
                written = text[j : j + len(marker)]
                folded.setdefault(marker, []).append((path, source.position(j), written))
    return exact, folded


PIECE = st.sampled_from(["## ", "Plan", "PLAN", "plan", " ", "\n", "é", "⚠", "Ünï", "ü", "x"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(PIECE, max_size=30).map("".join), min_size=1, max_size=4),
    st.lists(st.lists(PIECE, min_size=1, max_size=3).map("".join), min_size=1, max_size=5),
)
@example(["⚠ x\n## Plan é PLAN\nplan"], ["Plan", "PLAN", "é PLAN", "⚠"])
def test_occurrences_agree_with_a_find_per_text(files: list[str], texts: list[str]) -> None:
    texts = sorted({t for t in texts if t})
    consumers = {f"f{i}.md": Consumer(Source(f"f{i}.md", text)) for i, text in enumerate(files)}
    found = find_occurrences(consumers, texts)
    exact, folded = reference_occurrences(consumers, texts)
    assert {t: [tuple(o) for o in found] for t, found in found.exact.items()} == exact
    assert {t: [tuple(o) for o in found] for t, found in found.folded.items()} == folded


# --- MentionSearch: a search per text when the texts are few, else one automaton --------

MENTION = st.sampled_from(["PLAN", "PLAN COMPLETE", "<files_to_read>", "Done", "é", "⚠ X", "a"])
PROSE = st.lists(st.sampled_from(["PLAN", " COMPLETE", "<files_to_read", ">", "done", "é", "\n"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(MENTION, max_size=6), st.lists(PROSE.map("".join), max_size=3))
def test_mentions_by_text_agree_with_the_automaton(texts: list[str], documents: list[str]) -> None:
    sources = tuple(Source(f"d{i}.md", d) for i, d in enumerate(documents))
    agent = types.SimpleNamespace(texts=sources)
    by_text = occurrences.MentionSearch(texts)
    assert by_text.automaton is None
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(occurrences, "FEW_TEXTS", 0)
        automaton = occurrences.MentionSearch(texts)
    assert (automaton.automaton is not None) == bool(texts)
    assert by_text(agent) == automaton(agent)  # type: ignore[arg-type]


# --- words of a text: a byte translation and a split, not the word pattern ----------------

WORD_PIECES = st.sampled_from(
    [
        *("skill-a", "a", "Z9", "_", "-", "__x", "-y", "a_b", "9-", " ", "\n", "\t", ".", "/"),
        *("(", "é", "ß", "\u0130", "\u212a", "\u00a0", "\u2028", "\U0001f600", "\ud800"),
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(WORD_PIECES, max_size=16).map("".join))
@example("_skill-a -b- --")
@example("é\u212akill x\ud800y")
def test_words_agree_with_the_pattern(text: str) -> None:
    from drift_check.scanners import words

    expected = {w.encode() for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9_-]*", text)}
    assert words(text) == expected


# --- bundled-file mentions: in order without a sort when only lines found them -----------

MENTION_PIECES = st.sampled_from(
    [
        *("see ", "`scripts/a.py`", "`b.md`", "c.md", "docs/d.md", " and ", ", ", "\n", "\n\n"),
        *("${CLAUDE_SKILL_DIR}/e.sh", "`${CLAUDE_SKILL_DIR}/f.py`", "```\n", "[g](h.md)"),
        *("Create x.md", "Example: y.md", "z/", " in this folder", "a.b", "`", "é.md"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(MENTION_PIECES, max_size=14).map("".join), st.booleans())
@example("`${CLAUDE_SKILL_DIR}/f.py` and `scripts/a.py` c.md", True)
@example("c.md `scripts/a.py` docs/d.md `b.md`", False)
def test_mentions_in_order_of_position(text: str, in_skill: bool) -> None:
    from drift_check.scanners.links import find_mentions

    found = find_mentions(Source("s/SKILL.md", text), in_skill)
    order = [(m.position.line, m.position.column) for m in found]
    assert order == sorted(order)


# --- bundled-file mentions: a path named again the same way is a repeat of its first -----


@settings(max_examples=400, deadline=None)
@given(st.lists(MENTION_PIECES, max_size=16).map("".join), st.booleans())
@example("c.md\nsee c.md\n`c.md` in this folder\nc.md", True)
@example("`${CLAUDE_SKILL_DIR}/f.py`\n`f.py` f.py\n`f.py`", True)
def test_folded_mentions_agree_with_one_each(text: str, in_skill: bool) -> None:
    from drift_check.scanners.links import find_mentions, fold, unfold

    source = Source("s/SKILL.md", text)
    each = find_mentions(source, in_skill, fold=False)
    folded = find_mentions(source, in_skill)
    assert unfold(folded) == each
    assert fold(each) == folded


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                *("Creat", "WRIT", "wrote ", "sav", "cop", "scope", "will ", "wil", "new file"),
                *("You", "repository", "user's", "İ", "\n", " ", "a.md", "emits", "projec"),
                "project",
            ]
        )
    ).map("".join)
)
def test_a_text_is_narrowed_to_the_not_bundled_parts_its_lowercase_holds(text: str) -> None:
    """The parts of the not-bundled words a text holds are found in one pass (an
    automaton), and are those a search for each part finds."""
    from drift_check.scanners.links import _NOT_BUNDLED_PARTS, _NotBundled

    whole = text.lower()
    expected = tuple(part for part in _NOT_BUNDLED_PARTS if part in whole)
    assert _NotBundled(text, many=True).parts == expected


# --- Repo.glob: the globs' regular expressions joined into one, one call a file ------------


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from(["a", "b", ".", "/", "*", "**", "**/", "?", "*a*a*a*"]), max_size=6
        )
        .map("".join)
        .filter(bool),
        max_size=4,
    ),
    st.lists(
        st.lists(st.sampled_from(["a", "b", ".md", "/", "ab", "a.b"]), max_size=8).map("".join)
    ),
)
def test_joined_globs_agree_with_each_glob(globs: list[str], paths: list[str]) -> None:
    from drift_check.scanners.files import _patterns, glob_pattern

    joined = _patterns(tuple(globs))
    for path in paths:
        expected = any(glob_pattern(g).match(path) for g in globs)
        assert any(p.match(path) for p in joined) == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "ab", "b.c", "a-b"]), min_size=2, max_size=4),
    st.lists(
        st.lists(st.sampled_from(["a", "ab", "b.c", "a-b", "x", "/", "\n", ".md"]), max_size=8)
        .map("".join)
        .filter(bool)
    ),
)
def test_folder_globs_test_a_substring_first_and_agree_with_their_pattern(
    names: list[str], paths: list[str]
) -> None:
    """Globs that are all `**/NAME/**` (the test-fixture folders discovery skips) are
    matched by a substring test before their joined pattern, with the same answers."""
    from drift_check.scanners.files import _InFolders, _patterns, glob_pattern

    globs = tuple(f"**/{name}/**" for name in names)
    (joined,) = _patterns(globs)
    assert isinstance(joined, _InFolders)
    for path in paths:
        expected = any(glob_pattern(g).match(path) for g in globs)
        assert bool(joined.match(path)) == expected


# --- skill-name mentions: each name looked for only until DC901 has its answer ------------

WORD = r"[A-Za-z0-9][A-Za-z0-9_-]*"
FOLDERS = st.sampled_from(["skills/a", "skills/b", "x/skills/a", "skills/a-b", "skills/é"])
DOC_WORDS = st.sampled_from(["a", "b", "a-b", "é", " ", "\n", "_a", "see a.", "b/c"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(FOLDERS, min_size=1, max_size=4, unique=True),
    st.lists(
        st.tuples(
            st.sampled_from(["README.md", "skills/a/SKILL.md", "skills/b/r.md", "x/skills/a/x.md"]),
            st.lists(DOC_WORDS, max_size=6).map("".join),
        ),
        max_size=6,
        unique_by=lambda pair: pair[0],
    ),
)
def test_bounded_mentions_answer_what_the_full_search_does(
    folders: list[str], documents: list[tuple[str, str]]
) -> None:
    from drift_check.scanners import _mentions

    texts = dict(sorted(documents))
    repo = types.SimpleNamespace(
        glob=lambda globs: list(texts),
        read=lambda path: Source(path, texts[path]),
    )
    skills = [types.SimpleNamespace(name=f.rsplit("/", 1)[1], directory=f) for f in folders]
    bounded = _mentions(repo, skills)  # type: ignore[arg-type]
    for skill in skills:  # the full search: every file, as the word pattern splits it
        full = [p for p, text in texts.items() if skill.name in re.findall(WORD, text)]
        elsewhere = [p for p in full if not p.startswith(skill.directory + "/")]
        found = bounded.get(skill.name, frozenset())
        assert found <= set(full)
        assert bool(elsewhere) == any(not p.startswith(skill.directory + "/") for p in found)


# --- resolve: a plain file name beside a normal folder joined without normpath -------------

PATH_PIECES = st.sampled_from(["a", "b.md", "/", ".", "..", "%2e", "%2F", "x y", "\\", "é"])


@settings(max_examples=500, deadline=None)
@given(
    st.lists(PATH_PIECES, max_size=6).map("".join), st.lists(PATH_PIECES, max_size=4).map("".join)
)
@example("skills/a/SKILL.md", "reference.md")
@example("/SKILL.md", "x.md")
@example("a//SKILL.md", "x.md")
def test_resolve_agrees_with_normpath(source_path: str, target: str) -> None:
    import posixpath

    from drift_check.scanners.links import resolve, unquote

    if not target:
        expected: str | None = source_path
    else:
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(source_path), unquote(target)))
        expected = None if joined == ".." or joined.startswith("../") else joined
    assert resolve(source_path, target) == expected


# --- a SKILL.md's lines (`all`): newlines counted, not the text split ----------------------


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "\n", "\r", "---", " ", "\u2028"]), max_size=10).map("".join))
def test_all_lines_counted_as_split(text: str) -> None:
    from drift_check.scanners.skills import count_lines

    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    assert count_lines(text, "all") == len(lines)


# --- "in this folder" after a file name: the pattern only where an `h` is ----------------

HERE_PIECES = st.sampled_from(
    [
        *(" in this folder", " IN THIS DIRECTORY", "), from this skill", " under This skill's"),
        *(" ", "\u0127", "\u0130", "\u212a", "th", "is", "inside", "x", ".", "directory"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(HERE_PIECES, max_size=6).map("".join))
def test_here_needs_an_h(after: str) -> None:
    from drift_check.scanners.links import _here

    after = after[:40]
    assert (_here().match(after) is not None) <= ("h" in after or "H" in after)


# --- bundled-file mentions: plain prose lines read in the scan loop, the rest by line -----


def reference_mentions(source: Source, in_skill: bool, fold: bool) -> list:
    """`find_mentions` reading every line that holds a separator with `_line_mentions`."""
    from drift_check.scanners import links
    from drift_check.scanners.frontmatter import line_start
    from drift_check.scanners.markdown import scan

    text = source.text
    markdown = scan(text, 0)
    out = [m for m in links.find_mentions(source, in_skill, fold=False) if m.kind != "text"]
    number, done = 1, 0
    words = links._NotBundled(text)
    seen: dict | None = {} if fold else None
    placed = len(out)
    candidate = links._SEPARATOR.search(text, line_start(text, links._body_start(text)))
    while candidate is not None:
        at = candidate.start()
        before = text[at - 1 : at]
        if not (before.isalnum() or before in ("_", "-")) or not before:
            candidate = links._SEPARATOR.search(text, at + 1)
            continue
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        number += text.count("\n", done, start)
        done = start
        if not markdown.in_fence(number):
            first = text.rfind(" ", start, at) + 1 or start
            line = text[start:end]
            out.extend(
                links._line_mentions(source, line, start, number, words, first - start, seen)
            )
        candidate = links._SEPARATOR.search(text, end)
    return links.placed_in_order(out, bool(placed), seen)


LINE_PIECES = st.sampled_from(
    [
        *("reference.md", "docs/a.md", "scripts/x.py", "a.b", "x/", "é/ü.md", "v1.2", "1.", "."),
        *(" ", "  ", "\t", "(see ", ")", ". ", ", ", "-", "_", "/", "e.g.", "github.com/a/b"),
        *("`", "`c.md`", "``d/e.md``", "[", "]", "[f](g.md)", "[h]: i.md", "](", '"', "\u201c"),
        *("\u201d", "'", "Example: ", "- **Examples**: ", "EXAMPLE:", "eXample", "xample"),
        *("Create ", "writes ", "your ", "will be", "would live", "the project's", "mkdir "),
        *("recreate ", "\u0130nitialize ", "m\u212adir ", "\u017fave ", "\u0131", "in this folder"),
        *(" IN THIS SKILL", "h", "H", "${CLAUDE_SKILL_DIR}/k.sh", "$CLAUDE_PLUGIN_ROOT/l.md"),
        *("XXX.md", "a.local.md", "../up.md", "./here.md", "~/home.md", "\u00e9", "\u03a3"),
        *("`scripts/run`", "`a&/&b`", "@a.b", "x@y.z", "`x.md y`", "?", "\u2014", "`\u2014/?`"),
        # what a run of name characters and separators starts after, and holds, beyond a path
        *(":", "%", "+", "\\", "$", "a.b..c.d", "x\u2014y.md", "?z.md", "a.b/", "docs//e.md"),
    ]
)
LINE = st.lists(LINE_PIECES, max_size=10).map("".join)
BLOCK = st.one_of(
    LINE,
    LINE.map(lambda line: f"```\n{line}\n```"),
    LINE.map(lambda line: f"~~~md\n{line}"),  # never closed
    LINE.map(lambda line: f"---\nname: x\n---\n{line}"),
)


@settings(max_examples=1500, deadline=None)
@given(st.lists(BLOCK, max_size=8).map("\n".join), st.booleans(), st.booleans())
@example("see reference.md\n`reference.md`, reference.md\nreference.md in this folder", True, True)
@example("---\na: b.md\n---\nx.md\n```\ny.md\n```\nCreate z.md here, w.md", True, True)
@example('"a/b.md" \u201cc/d.md\u201d e.g. f.md\nExample: g.md, h.md\n[i](j.md) k.md', False, True)
@example("\u0130 a.md\nm\u212adir b/c.md\nd.md", True, False)
@example("\u017fave reference.md\n\u0131 a.md", True, True)  # long s: "save" to the pattern
def test_mentions_agree_with_reading_each_line(text: str, in_skill: bool, fold: bool) -> None:
    from drift_check.scanners.links import find_mentions

    source = Source("s/SKILL.md", text)
    assert find_mentions(source, in_skill, fold=fold) == reference_mentions(source, in_skill, fold)


# --- TypeScript state lists: comparisons found from their operators, declarations only
# --- where what they need is in the text ------------------------------------------------

TS_PARTS = [
    *"ab$_9 =!'\"\n\té\u00a0x.\\;|[]:,",
    *("==", "===", "!==", "!=", "'done'", '"a b"', "status", "$x", "9a", "é1", "type S = "),
    *("const s = [", "z.enum([", " as const", "? :", "'a' | 'b'", "['x', 'y']", "s: "),
]
TS_TEXT = st.lists(st.sampled_from(TS_PARTS), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(TS_TEXT)
@example("a === 'x'")
@example("9$x == 'y'")
@example("a == 'b == c' === 'd'")
@example('x$y\u00a0!== "z"')
def test_equalities_agree_with_the_pattern(text: str) -> None:
    from drift_check.scanners import state_code

    want = [(m.span(), m.groups()) for m in state_code._TS_EQUAL.finditer(text)]
    assert [(m.span(), m.groups()) for m in state_code._equalities(text)] == want


@settings(max_examples=400, deadline=None)
@given(TS_TEXT)
@example("type S = 'a' | 'b';")
@example("const s = ['x', 'y'] as const")
def test_declarations_are_looked_for_only_where_their_hint_is(text: str) -> None:
    from drift_check.scanners import state_code

    if state_code._TS_ARRAY.search(text):
        assert state_code._TS_ARRAY_HINT.search(text)
    if state_code._TS_UNION.search(text):
        assert state_code._TS_UNION_HINT.search(text)
    if state_code._TS_ZOD.search(text):
        assert "z.enum(" in text


# --- Python trees: the state scans' walk gives `ast.walk`'s nodes in its order ------------

WALKED = """
import os
from x import (a as b, c)
global_count = 0
def f(x: int = 1, *args, k=None, **kw) -> str:
    global global_count
    y = [i for i in range(3) if i % 2 == 0]
    match x:
        case {"status": "done"} | ["a", *rest] if not rest:
            return "done"
        case Point(x=0, y=_):
            pass
    return f"{x!r:>10}" if x and not y else -x
class C(Base, metaclass=M):
    status: str = "open"
    async def g(self):
        async with a as (b, c):
            await b[1:2, ::3]
        try:
            del self.x
        except* (E, F) as e:
            raise
"""


@pytest.mark.parametrize(
    "path",
    [
        "drift_check/scanners/vocabulary.py",
        "drift_check/scanners/state_python.py",
        "drift_check/cli.py",
        "",
    ],
)
def test_python_nodes_are_ast_walks_but_contexts_and_operators(path: str) -> None:
    import ast
    from pathlib import Path

    from drift_check.scanners.state_python import _LEAVES, nodes

    root = Path(__file__).resolve().parents[2]
    tree = ast.parse((root / path).read_text(encoding="utf-8") if path else WALKED)
    walked = [n for n in ast.walk(tree) if type(n) not in _LEAVES]
    assert [id(n) for n in nodes(tree)] == [id(n) for n in walked]
    assert len(walked) < sum(1 for _ in ast.walk(tree))  # some were left out


# --- the longest line: found a window at a time, as a walk over every line finds it -------


def reference_first_long_line(text: str, longest: int) -> int | None:
    for number, line in enumerate(text.split("\n"), 1):
        if len(line) > longest:
            return number
    return None


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(0, 12), max_size=30).map(lambda ns: "\n".join("x" * n for n in ns)),
    st.integers(1, 10),
)
@example("", 1)
@example("abc", 2)
@example("ab\n", 2)
@example("ab\nabc\nx", 2)
def test_first_long_line_agrees_with_every_line(text: str, longest: int) -> None:
    from drift_check.scanners.files import first_long_line

    assert first_long_line(text, longest) == reference_first_long_line(text, longest)


# --- a text let go: its lines near the top found by counting, as the table finds them ----


class _Again:
    """A store that gives the text back, as the files' store reads it again."""

    def __init__(self, text: str) -> None:
        self.text = text

    def reread(self, source: Source) -> str:
        return self.text


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["a", "\n", "bc", "\n\n", "é", ""]), max_size=40).map("".join))
@example("")
@example("a\n")
def test_lines_found_by_counting_are_the_tables(text: str) -> None:
    """Without a table of line starts (a text let go, or one not built yet), the lines near
    the top are found by counting: the same as `split`, as the table gives them."""
    lines = text.split("\n")
    fresh = Source("a.md", text)
    gone = Source("a.md", text, store=_Again(text))
    gone.release()
    tabled = Source("a.md", text)
    assert len(tabled.starts) == len(lines)  # built: the table answers
    assert not gone.held
    assert gone.line_count == fresh.line_count == len(lines)
    for line in range(-1, len(lines) + 3):
        want = lines[line - 1] if 0 < line <= len(lines) else ""
        assert gone.line_text(line) == fresh.line_text(line) == tabled.line_text(line) == want

"""The line-scan fast path for frontmatter returns exactly what the strict YAML parser does.

`simple_yaml(body)` may give up (None) on anything; whenever it answers, `safe_load(body)`
must succeed and give the same mapping. Bodies are generated from `key: value` lines with
values from a broad alphabet, comments, `key:` + `  - item` lists, quoted values and
duplicate keys.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.facts import Source
from drift_check.scanners.frontmatter import read_frontmatter, simple_yaml
from drift_check.yaml_loader import YamlError, safe_load

pytestmark = pytest.mark.slow  # hypothesis against ruamel.yaml

# Keys YAML reads as booleans or null: `true: x` is {True: "x"}, not {"true": "x"}.
NON_STRING_KEYS = ["true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL"]
# Characters the strict parser rejects (control characters) or reads as line breaks.
NOT_PRINTABLE = ["\x01", "\x08", "\x0b", "\x1b", "\x7f", "\x80", "\x9f", "\ufffe", "\uffff"]
YAML_LINE_BREAKS = ["\r", "\x85", "\u2028", "\u2029"]

CHARS = [
    *"abcXYZ_019 :#\"'[]{}&*!|>%@`,-?~\\/().=+<;$^",
    "\t",
    *"é⚠中\u00a0\ufeff\U0001f600",
    *NOT_PRINTABLE,
    *YAML_LINE_BREAKS,
]
ATOMS = [
    "true",
    "false",
    "null",
    "Null",
    "yes",
    "no",
    "on",
    "~",
    "1",
    "0x1F",
    "0o7",
    "1.5",
    "1e3",
    ".inf",
    ".NaN",
    "2024-01-01",
    "2024-02-29",
    "2023-02-29",
    "0000-01-01",
    "2025-1-6",
    "20",
    "0",
    "007",
    "1_000",
    "-3",
    "12:30",
    "-",
    "- ",
    " #",
    "#",
    ": ",
    ":",
    "::",
    "&a",
    "*a",
    "!tag",
    "!!str",
    "|",
    ">",
    "%",
    "@",
    "`",
    "[a, b]",
    "{a: b}",
    "'",
    '"',
    "''",
    "\\n",
    "  ",
    "\t",
    "Read, Write",
    "Plans a phase.",
    "(x)",
    "/path",
    "_u",
    "<version>",
    "<<",
    '\\"',
    "\\\\",
]
VALUE = st.lists(
    st.one_of(st.sampled_from(ATOMS), st.text(alphabet=st.sampled_from(CHARS), max_size=6)),
    max_size=5,
).map("".join)
QUOTED = st.one_of(
    VALUE.map(lambda v: f'"{v}"'),
    VALUE.map(lambda v: f"'{v}'"),
    st.text(alphabet=st.sampled_from(list("ab #:,'\t")), max_size=6).map(lambda v: f'"{v}"'),
    st.text(alphabet=st.sampled_from(list('ab #:,"\\\t')), max_size=6).map(lambda v: f"'{v}'"),
)
KEY = st.one_of(
    # a small pool, so duplicate keys are common
    st.sampled_from(["name", "description", "tools", "model", "skills", "allowed-tools"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,8}", fullmatch=True).filter(
        lambda k: k not in NON_STRING_KEYS
    ),
    st.sampled_from(["yes", "no", "on", "off", "y", "n", "~", "1", "0x1", "-a", "a b", "k "]),
)
SEP = st.sampled_from([": ", ": ", ":  ", ":\t", ":", " : "])
TRAILING = st.sampled_from(["", "", " ", "  ", "\t", " # comment", " #", "#x"])


@st.composite
def key_value(draw: st.DrawFn) -> list[str]:
    key = draw(KEY)
    sep = draw(SEP)
    value = draw(st.one_of(VALUE, VALUE, QUOTED))
    return [draw(st.sampled_from(["", "", " "])) + key + sep + value + draw(TRAILING)]


@st.composite
def list_block(draw: st.DrawFn) -> list[str]:
    lines = [draw(KEY) + ":" + draw(st.sampled_from(["", "", " ", " # c"]))]
    for _ in range(draw(st.integers(0, 3))):
        prefix = draw(st.sampled_from(["  - ", "  - ", "  - ", "- ", "    - ", "  -", "\t- "]))
        lines.append(prefix + draw(st.one_of(VALUE, QUOTED)) + draw(TRAILING))
    return lines


COMMENT = st.sampled_from(["# a comment", "#", "  # indented", "#: x", "# key: value"]).map(
    lambda c: [c]
)
BLANK = st.sampled_from(["", " ", "  ", "\t"]).map(lambda b: [b])
OTHER = st.sampled_from(["---", "...", "key: |", "  folded", "nested:", "  inner: x"]).map(
    lambda o: [o]
)


@st.composite
def bodies(draw: st.DrawFn) -> str:
    blocks = draw(
        st.lists(
            st.one_of(key_value(), key_value(), key_value(), list_block(), COMMENT, BLANK, OTHER),
            max_size=7,
        )
    )
    body = "\n".join(line for block in blocks for line in block)
    return body + draw(st.sampled_from(["\n", "\n", ""]))


# Near-simple bodies: the shapes the fast path answers, with one odd character here and
# there, so that most examples reach the comparison instead of falling back to the parser.
SIMPLE_KEY = st.one_of(
    st.sampled_from(["name", "description", "tools", "model", "skills", "x"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,6}", fullmatch=True).filter(
        lambda k: k not in NON_STRING_KEYS
    ),
)
NEAR_PLAIN = st.tuples(
    st.sampled_from(
        [
            *"aZ_/(",
            "true",
            "null",
            "yes",
            "nullx",
            "Truex",
            "on",
            "-",
            "--",
            "-a",
            "-1",
            "-.",
            "- ",
            "./",
            "../",
            ".",
            ".5",
            "...",
            *("é", "⚠ ", "🪲 Debugger", "中", "\u00a0", "\ufeff", "❓", "\u2028", "\ufffd"),
        ]
    ),
    st.text(alphabet=st.sampled_from(CHARS), max_size=6),
    st.sampled_from(["", "", "", *ATOMS]),
    st.text(alphabet=st.sampled_from(list("abc .,()") + CHARS), max_size=6),
).map("".join)
# Integers and dates, and what only looks like them (`007`, `2025-1-6`, `2025-13-01`).
NEAR_NUMBER = st.tuples(
    st.from_regex(r"[0-9]{1,5}", fullmatch=True),
    st.sampled_from(["", "", "", "-", ".", "_", ":", "e", "-0", "-1", "/", "/1", " / ", "/ #"]),
    st.from_regex(r"[0-9]{0,2}", fullmatch=True),
    st.sampled_from(["", "", "", "-0", "-1", "-3", "T", " ", "x", ".0", ".1.2", ".", ".0-b"]),
    st.from_regex(r"[0-9]{0,2}", fullmatch=True),
).map("".join)
DATE = st.dates().map(lambda d: d.isoformat())
NEAR_VALUE = st.one_of(NEAR_PLAIN, NEAR_PLAIN, QUOTED, NEAR_NUMBER, DATE)


@st.composite
def near_simple_line(draw: st.DrawFn) -> list[str]:
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(COMMENT)
    if choice == 1:
        return [""]
    if choice == 2:
        items = draw(st.lists(NEAR_VALUE, max_size=3))
        return [draw(SIMPLE_KEY) + ":", *("  - " + item for item in items)]
    if choice == 4:  # a mapping under a key (`metadata:`), with its near misses
        indent = draw(st.sampled_from(["  ", "  ", "    ", " ", "\t"]))
        entries = []
        for _ in range(draw(st.integers(1, 3))):
            shift = draw(st.sampled_from(["", "", "", "", " ", "  - ", "#"]))
            entries.append(indent + shift + draw(SIMPLE_KEY) + draw(SEP) + draw(NEAR_VALUE))
            if draw(st.integers(0, 5)) == 0:
                entries.append(draw(st.sampled_from(["", "# c", indent + "# c", indent + "  x"])))
        return [draw(SIMPLE_KEY) + ":", *entries]
    if choice == 3:  # a plain value continued on more-indented lines (or a comment's)
        indent = st.sampled_from([" ", "  ", "     ", ""])
        text = st.one_of(NEAR_VALUE, st.sampled_from(["# c", "#x", "- item", "k: v"]))
        rest = draw(st.lists(st.tuples(indent, text).map("".join), max_size=3))
        return [draw(SIMPLE_KEY) + ": " + draw(NEAR_VALUE), *rest]
    return [draw(SIMPLE_KEY) + ": " + draw(NEAR_VALUE) + draw(st.sampled_from(["", "", " "]))]


FLOW_ITEM = st.sampled_from(
    [
        *("a", "phase", "b-c", "d/e", "x.y", "_u", "true", "1", "'q'", "a b", ""),
        *("optional description", "--repair", "name | description", "-x", "a  b", "a |b"),
        *("<x>", "(a)", "--", "- a", "-1", "a #b", "a:b", "a: b", "a ", "x y z", "a |", ">a"),
        *("|a", "-", "-.", "<<", "a (b) <c>", "a [b]", "a {b}", "true x", "null", "a\tb"),
    ]
)
BLOCK_LINE = st.one_of(
    st.sampled_from(["", " ", "x: y", "# not a comment", "- item", "\tx", "a  b", "  more"]),
    NEAR_PLAIN,
)


@st.composite
def flow_or_block(draw: st.DrawFn) -> list[str]:
    """`key: [a, b]` and `key: |` blocks, with their near misses."""
    key = draw(SIMPLE_KEY)
    if draw(st.booleans()):
        items = draw(st.lists(FLOW_ITEM, max_size=3))
        sep = draw(st.sampled_from([", ", ",", " , "]))
        return [f"{key}: [{sep.join(items)}]" + draw(st.sampled_from(["", "", " ", "x"]))]
    head = f"{key}: " + draw(st.sampled_from(["|", "|", "|-", "|+", "|2", ">", ">", ">-", ">+"]))
    indent = draw(st.sampled_from(["  ", "  ", "    ", " "]))
    lines = [
        (indent + draw(st.sampled_from(["", "", " ", "  "])) if draw(st.booleans()) else "")
        + draw(BLOCK_LINE)
        for _ in range(draw(st.integers(0, 4)))
    ]
    return [head, *lines]


@st.composite
def near_simple_bodies(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(st.one_of(near_simple_line(), flow_or_block()), min_size=1, max_size=5))
    return "\n".join(line for block in blocks for line in block) + "\n"


def assert_same_as_strict(body: str) -> None:
    fast = simple_yaml(body)
    if fast is None:
        return  # the fast path gave up: the strict parser decides
    try:
        strict = safe_load(body)
    except YamlError as exc:
        raise AssertionError(
            f"simple_yaml accepted {body!r} as {fast!r}, the strict parser rejects it:"
            f" {exc.message} (line {exc.line}, column {exc.column})"
        ) from None
    if strict is None:
        strict = {}  # an empty or comments-only body
    assert fast == strict
    assert list(fast.items()) == list(strict.items())  # key order, too


@settings(max_examples=300, deadline=None)
@given(st.one_of(bodies(), near_simple_bodies()))
@example("name: gsd-planner\ndescription: Plans a phase.\ntools: Read, Write\n")
@example("tools:\n  - Read\n  - Write\n")
@example("description: 'it''s'\n")
@example('description: "a \\" b"\n')
@example("name: x\nname: y\n")
@example("description: a: b\n")
@example("argument-hint: x\nnotes: |\n  Example: /gsd:x 12\n\n  more\nrequires: [phase]\n")
@example("a:\nb: [x]\n")
@example("model: null\n")
@example("key: yes\n")
@example("# only a comment\n")
@example("argument-hint: --type security to check\nflag: -x\n")
def test_simple_yaml_agrees_with_strict_parser(body: str) -> None:
    assert_same_as_strict(body)


@pytest.mark.parametrize(
    "body",
    [
        "name: gsd-planner\ndescription: Plans a phase.\n",
        "tools:\n  - Read\n  - Write\n",
        "description: 'Plans: a phase'\n",
        'description: "Plans # a phase"\n',
        "# comment\nname: x\n\n",
        "description: a#b (c) [d] {e}\n",
        "name: yes\n",
        "user-invocable: false\ndisable-model-invocation: TRUE\nx: tRue\n",
        "flags:\n  - True\n  - off\n",
        "maxTurns: 20\ncreated: 2025-12-16\nconfidence: 7/10\n",
        "tools:\nname: x\n",  # an empty key is null
        "dates:\n  - 2024-02-29\n  - 0\n",
        "description: >-\n  Use when a b.\n  More: c\nname: x\n",
        "description: >\n  one\n  two\n",
        "argument-hint: --type security to check vulnerabilities\n",  # a real skill's
        "flags:\n  - -v\n  - --dry-run\n",
        "argument-hint: ./src/index.ts [--compile]\nup: ../x\n",
        "allowed-tools: Bash(git log *), Bash(git diff *),\n   Read, Grep,\n   Glob\nx: y\n",
        "argument-hint: [optional description]\nx: [--repair]\ny: [name | description]\n",
        "name: x\nmetadata:\n  lifecycle: shim\n  version: '1.0'\nz: y\n",
        "description: 'a user''s view'\nversion: 1.0.0\n",
        "description: 🪲 Debugger - traces runtime bugs\n",
    ],
)
def test_fast_path_answers_common_frontmatter(body: str) -> None:
    """The fast path must actually answer the common cases (or it proves nothing)."""
    assert simple_yaml(body) is not None
    assert_same_as_strict(body)


@pytest.mark.parametrize(
    "body",
    [
        "description: a: b\n",  # `: ` inside a plain value
        "description: a #b\n",  # a comment, the value is `a`
        "model: null\n",
        "count: 3.5\n",
        "count: 007\n",
        "count: -3\n",
        "count: -.5\n",
        "flag: - x\n",
        "count: .5\n",
        "count: .inf\n",
        "tools: Read\n  - Write\n",  # a plain value goes on: `Read - Write`
        "tools: Read\n\n  Write\n",  # a blank line inside a plain value
        "tools: Read\n  x: y\n",
        "created: 2025-13-01\n",  # no such month: the parser says so
        "created: 2025-12-16 10:00\n",
        "name: x\nname: y\n",
        "tools: [Read, 'Write']\n",
        "argument-hint: [--diagnose] [issue description]\n",  # a sequence, then more: invalid
        "argument-hint: [a, b] # c\n",
        "description: >\n  folded\n\n  paragraph\n",
        "description: >\n  folded\n    more indented\n",
        "description: &a x\n",
        "description: !!str x\n",
        'description: "a\\tb"\n',
        "description:\tx\n",
        "  name: x\n",
        "meta:\n  key:\n    deeper: v\n",
        "meta:\n  key: v\n    more\n",  # the value goes on
        "meta:\n  key: v\n  key: w\n",
        "meta:\n  key: v\n   other: w\n",
        "meta:\n  - a\n  key: v\n",
        "version: 1.0\n",
    ],
)
def test_fast_path_declines_what_it_cannot_read(body: str) -> None:
    assert simple_yaml(body) is None


TRICKY = [
    pytest.param(f"{key}: x\n", id=f"key-{key}") for key in ("true", "null", "False", "NULL")
] + [
    pytest.param(f"description: a{ch}b\n", id=f"value-{ord(ch):#06x}")
    for ch in [*NOT_PRINTABLE, *YAML_LINE_BREAKS]
]
TRICKY += [
    pytest.param(f'description: "a{ch}b"\n', id=f"quoted-{ord(ch):#06x}") for ch in ["\x01", "\x85"]
]
TRICKY += [
    pytest.param("tools:\n  - Re\x85ad\n", id="list-item-0x85"),
    pytest.param("k" * 1025 + ": v\n", id="key-longer-than-1024"),
]


@pytest.mark.parametrize("body", TRICKY)
def test_fast_path_leaves_tricky_input_to_the_parser(body: str) -> None:
    """Bool/null keys (`true: x` is {True: 'x'}), control characters (rejected), U+0085,
    U+2028, U+2029 and CR (line breaks in YAML), implicit keys over 1024 characters."""
    assert simple_yaml(body) is None
    assert_same_as_strict(body)


def _problem(text: str):  # type: ignore[no-untyped-def]
    return read_frontmatter(Source("agents/a.md", text)).problem


def test_invalid_yaml_is_reported_at_its_exact_line_and_column() -> None:
    fm = read_frontmatter(Source("agents/a.md", "---\nname: a\ndescription: a: b\n---\nbody\n"))
    assert fm.data is None
    assert fm.problem is not None
    assert fm.problem.kind == "frontmatter"
    # the second `: ` on the third line of the file: "description: a" is 14 characters
    assert tuple(fm.problem.position) == ("agents/a.md", 3, 15)
    assert fm.key_lines == {"name": 2, "description": 3}


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("---\nname: a\nname: b\n---\n", 3, 1),  # the duplicate key
        ("---\nname: a\n\n\ntools: [Read\n---\n", 6, 1),  # the flow list runs into the end
        ("---\nname: a\ndescription: x\n - y: z\n---\n", 4, 5),  # the `:` of `y: z`
        ("---\nname: a\ntools: Read, Write\n  extra: y\n---\n", 4, 8),
        ("---\nname: a\ndescription: `x`\n---\n", 3, 14),  # a backtick cannot start a value
        ("---\nname: a\n\tdescription: x\n---\n", 3, 1),  # a tab cannot indent
        ("---\nname: 'a\n---\n", 3, 1),
    ],
)
def test_invalid_yaml_positions(text: str, line: int, column: int) -> None:
    problem = _problem(text)
    assert problem is not None
    assert (problem.position.line, problem.position.column) == (line, column)
    assert problem.position.line <= text.count("\n")  # inside the file


def test_unclosed_frontmatter_is_reported_on_line_one() -> None:
    problem = _problem("---\nname: a\ndescription: b\n")
    assert problem is not None
    assert (problem.position.line, problem.position.column) == (1, 1)


def test_frontmatter_that_is_not_a_mapping() -> None:
    problem = _problem("---\n- a\n- b\n---\n")
    assert problem is not None and problem.kind == "frontmatter"


def test_valid_frontmatter_read_by_both_paths() -> None:
    fast = read_frontmatter(Source("a.md", "---\nname: a\ntools:\n  - Read\n---\n"))
    slow = read_frontmatter(Source("a.md", "---\nname: a\ntools: [Read]\n---\n"))
    assert fast.problem is None and slow.problem is None
    assert fast.data == slow.data == {"name": "a", "tools": ["Read"]}


# --- the strict parser's error for a `: ` in a plain value, given without it ---------------

COLON_VALUE = st.tuples(
    st.sampled_from([*"aZ_/(<", "true", "Use when", "a b", "é", "中文", "x"]),
    st.text(alphabet=st.sampled_from([*"ab .,()'\"[]{}#-:\t", "é"]), max_size=6),
    st.sampled_from([": ", ":", ":  ", ": x", " #: ", ":\t", ": # c"]),
    st.text(alphabet=st.sampled_from([*"ab .:'#", "\x01", "\x85"]), max_size=5),
).map("".join)


@st.composite
def bodies_with_a_colon(draw: st.DrawFn) -> str:
    before = draw(st.lists(st.one_of(near_simple_line(), flow_or_block()), max_size=3))
    after = draw(st.lists(st.one_of(near_simple_line(), flow_or_block()), max_size=2))
    line = [draw(SIMPLE_KEY) + ": " + draw(COLON_VALUE)]
    tail = draw(st.sampled_from(["", "", "\x01\n", "\r\n", "  more: x\n"]))
    blocks = [*before, line, *after]
    return "\n".join(ln for block in blocks for ln in block) + "\n" + tail


@settings(max_examples=400, deadline=None)
@given(bodies_with_a_colon())
@example("name: x\ndescription: Use when: the user asks\n")
@example("description: a: b\nname: x\n\x01\n")
@example("tools:\n  - a\nd: q: r\n")
def test_colon_error_without_the_parser_is_the_parsers(body: str) -> None:
    """Where the fast path reports the `: ` error itself, the strict parser reports the
    same error at the same place; elsewhere it is left to the parser."""
    assert_read_as_strictly(Source("agents/a.md", f"---\n{body}---\n"))


def assert_read_as_strictly(source: Source) -> None:
    """`read_frontmatter` gives what it gives with the line scan turned off (every body
    then goes to the strict parser): the same data, or the same problem at the same place."""
    import drift_check.scanners.frontmatter as fm

    fast = read_frontmatter(source)
    real = fm._line_scan
    try:
        fm._line_scan = lambda body: (None, None)  # type: ignore[assignment]
        strict = read_frontmatter(source)
    finally:
        fm._line_scan = real
    assert fast == strict


def test_colon_error_is_answered_without_the_parser() -> None:
    """The common invalid description is answered by the fast path (or it proves nothing)."""
    from drift_check.scanners.frontmatter import _line_scan

    body = "name: x\ndescription: Use when: the user asks\n"
    assert _line_scan(body) == (None, (1, 21, "mapping values are not allowed in this context"))
    problem = _problem(f"---\n{body}---\n")
    assert problem is not None
    assert tuple(problem.position) == ("agents/a.md", 3, 22)


# --- and for a list of plain words that goes on (`argument-hint: [name] [--all]`) --------

LIST_THEN = st.tuples(
    st.sampled_from(["[a]", "[--x]", "[pr-number]", "[a b, c]", "[]", "[a|b]", "[<f>]", "['q']"]),
    st.sampled_from(["", " ", " ", "  ", "\t"]),
    st.sampled_from([*"[abZ09(<-|>%@`#:,?!&*'\"{]", "é", "  ", ""]),
    st.text(alphabet=st.sampled_from([*"ab []:#'\"-|"]), max_size=6),
).map("".join)


@st.composite
def bodies_with_a_list_that_goes_on(draw: st.DrawFn) -> str:
    before = draw(st.lists(st.one_of(near_simple_line(), flow_or_block()), max_size=3))
    after = draw(st.lists(st.one_of(near_simple_line(), flow_or_block()), max_size=2))
    line = [draw(SIMPLE_KEY) + ": " + draw(LIST_THEN)]
    tail = draw(st.sampled_from(["", "", "\x01\n", "\r\n", "  more: x\n", "  'open\n"]))
    blocks = [*before, line, *after]
    return "\n".join(ln for block in blocks for ln in block) + "\n" + tail


@settings(max_examples=400, deadline=None)
@given(bodies_with_a_list_that_goes_on())
@example("name: x\nargument-hint: [pr-number] [priority] [assignee]\ntools: Read\n")
@example("argument-hint: [a] b\n  more\n")
@example("argument-hint: [a] 'open\n")
def test_list_error_without_the_parser_is_the_parsers(body: str) -> None:
    """Where the fast path reports a list that goes on itself, the strict parser reports
    the same error at the same place; elsewhere it is left to the parser."""
    assert_read_as_strictly(Source("commands/c.md", f"---\n{body}---\n"))


def test_list_error_is_answered_without_the_parser() -> None:
    from drift_check.scanners.frontmatter import _line_scan

    body = "name: x\nargument-hint: [pr-number] [priority]\n"
    assert _line_scan(body) == (None, (1, 27, "did not find expected key"))
    problem = _problem(f"---\n{body}---\n")
    assert problem is not None
    assert tuple(problem.position) == ("agents/a.md", 3, 28)


FOLDED_LINE = st.one_of(
    st.lists(st.sampled_from(["Use", "when", "a", "b:", "x/y", "#1", "'q'", "é", "-"]), min_size=1)
    .map(" ".join)
    .map(lambda words: words + " " * (words.endswith("-") and 1)),
    st.sampled_from(["", " more", "  deeper", "end "]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([">", ">-", "|", "|-"]),
    st.sampled_from(["  ", "    ", " "]),
    st.lists(FOLDED_LINE, min_size=1, max_size=4),
    st.sampled_from(["", "name: x\n", "\n", "\nname: x\n"]),
)
@example(">-", "  ", ["Live-smoke a pack: checks.", "Use when verifying."], "name: x\n")
def test_block_scalars_agree_with_strict_parser(
    head: str, indent: str, lines: list[str], after: str
) -> None:
    """`>` and `>-` blocks (and `|`, `|-`) of plain text lines, as real descriptions are
    written, with blank, more-indented and space-ended lines now and then."""
    body = f"description: {head}\n" + "".join(f"{indent}{ln}\n" for ln in lines) + after
    assert_same_as_strict(body)

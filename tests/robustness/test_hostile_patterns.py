"""No regular expression backtracks catastrophically: every pattern that runs on repository
text gets a 100,000-character input made to make it backtrack, through the public scanner
function that uses it, and must finish within `LIMIT` seconds.

A linear scan of 100,000 characters takes milliseconds; the patterns these inputs were
written against took seconds (quadratic) or would not have finished (exponential), so the
bound separates the two with a wide margin on any machine. Each input is a long run of what
a pattern repeats, with a tail that makes the match fail late:

- markers and headings (`scanners/markdown.py`): container markers whose blanks can be
  split several ways (`- - - ... x`, `> > > ... x`), headings whose closing-`#` pattern meets
  a long run of blanks, runs of `#`, backticks and tildes;
- table rows and cells (`scanners/registry.py`): separators, pipes, escaped pipes,
  parentheses, backticks, hashes and commas in marker cells, path-like tokens;
- suppression comments (`scanners/directives.py`), links, anchors, placeholders and
  mentions of bundled files (`scanners/links.py`), memory-file imports (`scanners/memory.py`),
  quoted markers, dispatches and read tags (`scanners/consumers.py`), includes and read
  mentions (`scanners/agents.py`), restated lists, tables and trees (`scanners/restated.py`),
  and the frontmatter fast path (`scanners/frontmatter.py`);
- JSON manifests (`scanners/json_parser.py`: blanks, numbers, strings and escapes, many
  members, nesting) and the script a hook command runs (`scanners/manifests.py`);
- structured blocks (`scanners/structured.py`): `NAME:` template lines, deep and wide
  template bodies, colons before blanks, placeholders and menus, `NAME.field` reads, skill
  paths and schema file names, field tables.

Many matches in one file are covered too: a position computed from the top of the file for
each match made such files quadratic as well.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drift_check.facts import Source
from drift_check.scanners.agents import find_includes, find_read_mentions
from drift_check.scanners.consumers import Sections, quoted_markers, read_gates
from drift_check.scanners.directives import find_directives
from drift_check.scanners.files import (
    _REGEX,
    Repo,
    _tokens,
    _WildcardMatcher,
    build_output,
    glob_pattern,
)
from drift_check.scanners.frontmatter import read_frontmatter, simple_yaml
from drift_check.scanners.json_parser import JsonSyntaxError, parse_json
from drift_check.scanners.links import find_links, find_mentions, heading_anchors, slugs
from drift_check.scanners.manifests import script_word
from drift_check.scanners.markdown import heading_text, scan
from drift_check.scanners.memory import find_imports
from drift_check.scanners.registry import (
    Cell,
    cited_paths,
    parse_marker_cell,
    parse_registry,
)
from drift_check.scanners.restated import (
    find_matrix,
    find_tree,
    find_unassigned,
    matrix_not_found,
)
from drift_check.scanners.structured import scan_structured
from drift_check.settings import check

pytestmark = pytest.mark.slow  # every pattern against crafted inputs

SIZE = 100_000
# seconds: a linear scan of SIZE characters takes well under one here, a backtracking or
# quadratic one minutes to hours; the margin keeps a loaded machine (CI beside other work,
# where a 0.2 s case once took 1.1 s) from failing a linear one
LIMIT = 5.0
HEADING = "## Agent Registry"
HEADER = "| Agent | Role | Completion Markers | Consumed by | Kind |"
MANY_KEYS = "".join(f"k{i}: v\n" for i in range(SIZE // 6))


def fill(unit: str, head: str = "", tail: str = "") -> str:
    """`head`, then `unit` repeated, then `tail`: at least SIZE characters in all."""
    room = max(0, SIZE - len(head) - len(tail))
    return head + unit * -(-room // len(unit)) + tail


# Each runner feeds the text to one public scanner function; `repo` holds `a.md`, `x.md`.
Runner = Callable[[str, Repo], object]


def registry(row: str) -> str:
    return f"# Contracts\n\n{HEADING}\n\n{HEADER}\n|---|---|---|---|---|\n{row}\n"


def run_scan(text: str, repo: Repo) -> object:
    return scan(text), scan(text, max_level=2), scan(text, max_level=0)


def run_registry(text: str, repo: Repo) -> object:
    return parse_registry(Source("contracts.md", text), HEADING)


def run_marker_cell(text: str, repo: Repo) -> object:
    return parse_marker_cell(Cell(text, 1), "contracts.md", 1)


def run_cited(text: str, repo: Repo) -> object:
    return cited_paths(Cell(text, 1), "contracts.md", 1)


def run_directives(text: str, repo: Repo) -> object:
    return find_directives(Source("a.md", text))


def run_py_directives(text: str, repo: Repo) -> object:
    return find_directives(Source("hook.py", text))


def run_links(text: str, repo: Repo) -> object:
    return find_links(Source("docs/a.md", text), ["reference.md", "x.md"])


def run_slugs(text: str, repo: Repo) -> object:
    return slugs(text)


def run_anchors(text: str, repo: Repo) -> object:
    return heading_anchors(Source("docs/a.md", text))


def run_mentions(text: str, repo: Repo) -> object:
    return find_mentions(Source("skills/a/SKILL.md", text), True, 2)


def run_imports(text: str, repo: Repo) -> object:
    return find_imports(Source("CLAUDE.md", text))


def run_quoted(text: str, repo: Repo) -> object:
    sections = Sections(text, {"gsd-a", "gsd-b"})
    return quoted_markers(Source("w.md", text), sections, True)


def run_gates(text: str, repo: Repo) -> object:
    sections = Sections(text, {"gsd-a"})
    return read_gates(Source("w.md", text), sections, "<files_to_read>")


def run_includes(text: str, repo: Repo) -> object:
    return find_includes(Source("agents/a.md", text), repo, ["~/.claude/"])


def run_read_mentions(text: str, repo: Repo) -> object:
    return find_read_mentions(Source("agents/a.md", text), repo, ["~/.claude/"])


def run_unassigned(text: str, repo: Repo) -> object:
    return find_unassigned(Source("README.md", text), ["not in any agent frontmatter"])


def run_matrix(text: str, repo: Repo) -> object:
    spec = {"agent-column": "Agent", "frontmatter-columns": ["Skills"], "on-demand-columns": []}
    return find_matrix(Source("README.md", text), spec)


def run_matrix_by_shape(text: str, repo: Repo) -> object:
    source = Source("README.md", text)
    spec = check({"skill-matrix": {}})["skill-matrix"]
    return find_matrix(source, spec) or matrix_not_found(source, spec)


def run_tree(text: str, repo: Repo) -> object:
    return find_tree(Source("README.md", text), "skills")


def run_frontmatter(text: str, repo: Repo) -> object:
    return read_frontmatter(Source("agents/a.md", text))


def run_simple_yaml(text: str, repo: Repo) -> object:
    return simple_yaml(text)


def run_json(text: str, repo: Repo) -> object:
    # at the default depth limit, as manifests are read (tests/scanners/test_json_parser.py times
    # nesting without the limit)
    try:
        return parse_json(text, "plugin.json")
    except JsonSyntaxError as exc:
        return exc


def run_script_word(text: str, repo: Repo) -> object:
    return script_word(text)


def run_build_output(text: str, repo: Repo) -> object:
    return build_output("src/a.js", text)


def run_heading_text(text: str, repo: Repo) -> object:
    return heading_text(text)


def run_structured(text: str, repo: Repo) -> None:
    from drift_check.settings import resolve

    scan_structured(Source("a.md", text), scan(text), resolve([]), True)


CASES = [
    # --- markers, headings and fences: the candidate-line pattern of scan() ----------------
    pytest.param(run_scan, fill("-    ", "\n", "x"), id="scan: list markers, 4 blanks apart"),
    pytest.param(run_scan, fill("-\t ", "\n", "x"), id="scan: list markers, tab+blank apart"),
    pytest.param(run_scan, fill("> ", "\n", "x"), id="scan: block quotes, no fence"),
    pytest.param(run_scan, fill(">  ", "\n", "x"), id="scan: block quotes, 2 blanks apart"),
    pytest.param(run_scan, fill("1.    ", "\n", "x"), id="scan: ordered markers"),
    pytest.param(run_scan, fill(" - > * 1) ", "\n", "#x"), id="scan: mixed containers"),
    pytest.param(run_scan, fill("- ", "", "## DONE"), id="scan: list markers, then a heading"),
    pytest.param(run_scan, fill(" ", "\n", "x"), id="scan: blanks before no run"),
    pytest.param(run_scan, fill("1", "\n", ". x"), id="scan: a long number"),
    pytest.param(run_scan, "#" * SIZE, id="scan: one line of #"),
    pytest.param(run_scan, "`" * SIZE, id="scan: one line of backticks"),
    pytest.param(run_scan, "~" * SIZE, id="scan: one line of tildes"),
    pytest.param(run_scan, fill("\n#"), id="scan: empty headings"),
    pytest.param(run_scan, fill("```\n"), id="scan: fence lines"),
    pytest.param(run_scan, fill("- ```\n> ~~~\n"), id="scan: fences on container lines"),
    pytest.param(run_scan, fill("A ", "## ", "\x00"), id="scan: heading of words, NUL"),
    pytest.param(run_scan, fill(" ", "# a", "b#"), id="scan: heading, blanks, no closing #s"),
    pytest.param(run_scan, fill(" \t", "## A", "b#"), id="scan: heading, blanks+tabs, no #s"),
    pytest.param(run_scan, fill("# ", "# a ", "x#"), id="scan: heading of '# ' pairs"),
    pytest.param(run_scan, fill("#", "# a ", "b #"), id="scan: heading, long # run inside"),
    pytest.param(run_heading_text, fill(" ", "a", "b#"), id="heading_text: blanks, no #s"),
    # --- the registry table: rows, separators, cells -----------------------------------------
    pytest.param(run_registry, registry(fill("-|", "|", "x")), id="registry: separator-like row"),
    pytest.param(
        run_registry,
        f"{HEADING}\n\n{HEADER}\n" + fill("|:-:", "", "x") + "\n",
        id="registry: separator of aligned columns, failing",
    ),
    pytest.param(
        run_registry,
        f"{HEADING}\n\n{HEADER}\n" + fill(" - |", "|", " x") + "\n",
        id="registry: separator with blanks, failing",
    ),
    pytest.param(run_registry, registry("|" * SIZE), id="registry: a row of pipes"),
    pytest.param(run_registry, registry(fill("\\|", "| a | b | ")), id="registry: escaped pipes"),
    pytest.param(run_registry, registry(fill("(", "| a | b | ")), id="registry: open parens"),
    pytest.param(run_registry, registry(fill("`", "| a | b | ")), id="registry: backticks"),
    pytest.param(
        run_registry, fill("| a | b | `## A` | c | d |\n", registry("")), id="registry: many rows"
    ),
    pytest.param(run_registry, fill("| Agent ", HEADING + "\n\n"), id="registry: wide header"),
    pytest.param(run_marker_cell, fill("DC1,", "`## "), id="marker cell: one open backtick"),
    pytest.param(run_marker_cell, fill("`## A` (x), "), id="marker cell: many entries"),
    pytest.param(run_marker_cell, "(" * SIZE, id="marker cell: open parens"),
    pytest.param(run_marker_cell, ")" * SIZE, id="marker cell: close parens"),
    pytest.param(run_marker_cell, "#" * SIZE, id="marker cell: hashes"),
    pytest.param(run_marker_cell, fill("# ", "", "x"), id="marker cell: '# ' pairs"),
    pytest.param(run_marker_cell, fill("A ", "## ", "(x"), id="marker cell: unclosed annotation"),
    pytest.param(run_marker_cell, fill(")", "A (", ""), id="marker cell: nested annotation"),
    pytest.param(run_cited, fill(".", "`a", "`"), id="consumed-by: dots, no extension"),
    pytest.param(run_cited, fill("a/", "`", "x.mdx`"), id="consumed-by: long path, no .md"),
    pytest.param(run_cited, fill("`a.md` "), id="consumed-by: many paths"),
    pytest.param(run_cited, "`" * SIZE, id="consumed-by: backticks"),
    # --- suppression comments ----------------------------------------------------------------
    pytest.param(
        run_directives,
        fill(" ", "<!-- drift-check: ignore[DC1] ", "x"),
        id="directive: blanks in an unclosed reason",
    ),
    pytest.param(
        run_directives,
        fill(" \t", "<!-- drift-check: ignore[DC1] a", "- ->"),
        id="directive: blanks, then an almost-close",
    ),
    pytest.param(
        run_directives, fill("DC1,", "<!-- drift-check: ignore["), id="directive: unclosed codes"
    ),
    pytest.param(
        run_directives, fill("<!-- drift-check: ignore["), id="directive: heads, no ] on the line"
    ),
    pytest.param(
        run_directives,
        fill("<!-- drift-check: ignore[DC1]"),
        id="directive: heads, no --> on the line",
    ),
    pytest.param(
        run_directives, fill("<!-- drift-check: ignore[DC1] -->"), id="directive: many on a line"
    ),
    pytest.param(
        run_directives,
        fill("<!-- drift-check: ignore[DC1] ok -->\n"),
        id="directive: one per line",
    ),
    pytest.param(
        run_directives,
        fill("```\n```\n", "", "<!-- drift-check: ignore[DC1] -->\n" * 1500),
        id="directive: after many fences",
    ),
    pytest.param(
        run_directives,
        fill("`", "<!-- drift-check: ignore[DC1] -->"),
        id="directive: backticks after",
    ),
    pytest.param(
        run_directives, fill("-->", "<!-- drift-check: ignore[] "), id="directive: many closes"
    ),
    pytest.param(
        run_py_directives,
        fill("DC1,", "# drift-check: ignore[", "] " + " " * 1000 + "x"),
        id="python directive: long codes, blanks",
    ),
    pytest.param(
        run_py_directives,
        fill("# drift-check: ignore[DC1] x\n"),
        id="python directive: one per line",
    ),
    pytest.param(
        run_directives, fill("<!-- drift-check: ignore "), id="directive: bare heads, no -->"
    ),
    pytest.param(
        run_directives, fill("<!-- drift-check: disable -->"), id="directive: bare, many on a line"
    ),
    pytest.param(
        run_directives, fill("a-", "<!-- drift-check: "), id="directive: a long word of hyphens"
    ),
    pytest.param(
        run_directives,
        fill("# drift-check: ignore[DC1] x\n", "---\n", "---\n"),
        id="frontmatter directive: one per line",
    ),
    pytest.param(
        run_directives,
        fill(" # drift-check: ignore[DC1]", "---\nk: v", "\n---\n"),
        id="frontmatter directive: many in one comment",
    ),
    pytest.param(
        run_directives,
        fill(" # drift-check: ignore[DC1]", "---\nk: '", "'\n---\n"),
        id="frontmatter directive: many in a quoted scalar",
    ),
    # --- links, definitions and anchors ------------------------------------------------------
    pytest.param(run_links, fill("]("), id="links: ]( repeated, no )"),
    pytest.param(run_links, fill("](<"), id="links: ](< repeated"),
    pytest.param(run_links, fill(" ", "](a", "x"), id="links: blanks before no title"),
    pytest.param(run_links, fill("](a '"), id="links: unclosed titles"),
    pytest.param(run_links, fill("[a](b) "), id="links: many on one line"),
    pytest.param(run_links, fill("[x.md](x.md)\n"), id="links: sibling named inside links"),
    pytest.param(run_links, fill("ax.md"), id="links: sibling name inside longer names"),
    pytest.param(run_links, fill("x.x.x.md"), id="links: sibling name overlapping itself"),
    pytest.param(run_links, fill("[a]: b\n"), id="links: many definitions"),
    pytest.param(run_links, fill("a", "["), id="links: definition without ]"),
    pytest.param(run_links, fill("```\n[a](b)\n```\n"), id="links: fenced links"),
    pytest.param(run_links, fill("`[a](b) "), id="links: code spans"),
    pytest.param(run_slugs, fill("[", "# "), id="anchors: heading of ["),
    pytest.param(run_slugs, fill("[a](", "# "), id="anchors: heading of [a]( without )"),
    pytest.param(run_slugs, fill("![a](b)", "# "), id="anchors: heading of image links"),
    pytest.param(run_slugs, fill("# a\n"), id="anchors: many repeated headings"),
    pytest.param(run_anchors, fill("```\n# a\n```\n"), id="anchors: many fenced headings"),
    pytest.param(run_links, fill("[<a>](<b>) "), id="links: many placeholder slots on a line"),
    pytest.param(run_links, fill("a", "[", "](url)"), id="links: a label as long as the line"),
    # --- mentions of bundled files ------------------------------------------------------------
    pytest.param(run_mentions, "`" * SIZE, id="mentions: one run of backticks"),
    pytest.param(run_mentions, fill("`a/b` "), id="mentions: many code spans on a line"),
    pytest.param(run_mentions, fill("a/b.md "), id="mentions: many prose paths on a line"),
    pytest.param(
        run_mentions,
        "".join("`" * i + "a/b " for i in range(1, 445)),
        id="mentions: backtick runs of every length",
    ),
    pytest.param(run_mentions, fill("a/"), id="mentions: one long path"),
    pytest.param(run_mentions, fill("a."), id="mentions: one long dotted name"),
    pytest.param(run_mentions, fill("["), id="mentions: open brackets"),
    pytest.param(run_mentions, fill("[a](b) "), id="mentions: many links"),
    pytest.param(run_mentions, fill("create ", "", "`a/b.md`"), id="mentions: far creation verb"),
    pytest.param(run_mentions, fill("`a/b` create "), id="mentions: paths and verbs"),
    pytest.param(run_mentions, fill("${CLAUDE_SKILL_DIR}/a "), id="mentions: many variables"),
    pytest.param(run_mentions, fill("$CLAUDE_PLUGIN_ROOT/"), id="mentions: variables, no path"),
    pytest.param(
        run_mentions, fill("LICENSE.txt ", "---\nlicense: ", "\n---\n"), id="mentions: license"
    ),
    pytest.param(run_mentions, fill("a/b.md\n"), id="mentions: one path per line"),
    # --- memory-file imports ------------------------------------------------------------------
    pytest.param(run_imports, "@" * SIZE, id="imports: @ repeated"),
    pytest.param(run_imports, fill("@a.md "), id="imports: many"),
    pytest.param(run_imports, fill("`@a.md` "), id="imports: many in code spans"),
    pytest.param(run_imports, fill("a", "@"), id="imports: one long word"),
    pytest.param(run_imports, fill("!", "@a.md"), id="imports: trailing punctuation"),
    # --- quoted markers, dispatches, read tags -----------------------------------------------
    pytest.param(run_quoted, fill("## "), id="quoted: ## repeated, no quote"),
    pytest.param(run_quoted, fill("A", "`## "), id="quoted: one long token, no quote"),
    pytest.param(run_quoted, fill("`## A` "), id="quoted: many on one line"),
    pytest.param(run_quoted, fill("subagent_type=gsd-a `## X`\n"), id="quoted: many dispatches"),
    pytest.param(
        run_quoted, fill("## S\nsubagent_type=gsd-a `## X`\n"), id="quoted: many sections"
    ),
    pytest.param(run_quoted, fill(" ", "subagent_type", "`## X`"), id="quoted: dispatch blanks"),
    pytest.param(run_gates, fill("<files_to_read>\n", "subagent_type=gsd-a\n"), id="read tags"),
    # --- includes and read mentions ----------------------------------------------------------
    pytest.param(run_includes, fill(".", "@a", "x"), id="include: dots, then more"),
    pytest.param(run_includes, fill("!?:.", "@a.md"), id="include: trailing punctuation"),
    pytest.param(run_includes, fill("@a.md "), id="include: many"),
    pytest.param(run_includes, "@" * SIZE, id="include: @ repeated"),
    pytest.param(run_read_mentions, fill("Read `a.md` "), id="read mention: many"),
    pytest.param(run_read_mentions, fill("a", "Read `"), id="read mention: no closing backtick"),
    pytest.param(run_read_mentions, fill(" ", "Read", "`a.md`"), id="read mention: far verb"),
    # --- restated lists, tables and trees ----------------------------------------------------
    pytest.param(
        run_unassigned,
        fill(" ", "not in any agent frontmatter\n- ", "x"),
        id="unassigned: blank list item",
    ),
    pytest.param(
        run_unassigned,
        fill("a", "not in any agent frontmatter\n- `"),
        id="unassigned: unclosed backtick",
    ),
    pytest.param(
        run_unassigned,
        fill("- `skill` ok\n", "not in any agent frontmatter\n"),
        id="unassigned: long list",
    ),
    pytest.param(
        run_unassigned,
        fill("- `x` not in any agent frontmatter\n", "Not in any agent frontmatter:\n"),
        id="unassigned: every item introduces a list",
    ),
    pytest.param(
        run_matrix,
        fill("x, ", "| Agent | Skills |\n|---|---|\n| a | "),
        id="matrix: long skills cell",
    ),
    pytest.param(
        run_matrix_by_shape,
        fill("a" + " " * 50 + "b, ", "| Agent | Core | On demand |\n|---|---|---|\n| a | ", " |\n"),
        id="matrix: entries with long runs of blanks",
    ),
    pytest.param(
        run_matrix_by_shape,
        fill("skills not in ", "| Agent ", " x |\n|---|\n"),
        id="matrix: a long header cell of column words",
    ),
    pytest.param(
        run_matrix_by_shape,
        fill("| Agent | Skills |\n|---|---|\n\n"),
        id="matrix: many tables, none of the shape",
    ),
    pytest.param(
        run_matrix_by_shape,
        fill("(", "| Agent | Core | On demand |\n|---|---|---|\n| a | b ", "x) |\n"),
        id="matrix: an annotation that never closes",
    ),
    pytest.param(run_tree, fill("├── ", "```\nskills/\n", "\n```\n"), id="tree: marks repeated"),
    pytest.param(run_tree, fill("    ├── a\n", "```\nskills/\n", "```\n"), id="tree: many entries"),
    # --- the frontmatter fast path ----------------------------------------------------------
    pytest.param(run_frontmatter, fill("a #", "---\nname: ", "\n---\n"), id="frontmatter: ' #'"),
    pytest.param(run_frontmatter, fill("-", "---\n", "\n---\n"), id="frontmatter: dashes"),
    pytest.param(run_simple_yaml, MANY_KEYS, id="frontmatter fast path: many keys"),
    pytest.param(
        run_frontmatter, fill("  - x\n", "---\nk:\n", "---\n"), id="frontmatter: long list"
    ),
    pytest.param(run_simple_yaml, fill("'", "k: '", ""), id="frontmatter: quotes"),
    pytest.param(
        run_frontmatter,
        fill(" ", "---\na", "\n---\n"),
        id="frontmatter: key line of blanks, no colon",
    ),
    pytest.param(
        run_frontmatter,
        "---\n" + MANY_KEYS + "---\n",
        id="frontmatter: many keys",
    ),
    # --- JSON manifests and hook commands -----------------------------------------------------
    pytest.param(run_json, fill(" \n\t\r", "", "x"), id="json: blanks, then junk"),
    pytest.param(run_json, fill("1", "[-", "e+x]"), id="json: a long number, bad exponent"),
    pytest.param(run_json, fill("0", "[0.", "ex"), id="json: a long fraction"),
    pytest.param(run_json, fill("\\u00e9\\n", '"', ""), id="json: escapes, never closed"),
    pytest.param(run_json, fill("\\ud800", '"', "\\u12"), id="json: lone surrogates"),
    pytest.param(run_json, fill("a", '"', "\t"), id="json: long string, control character"),
    pytest.param(run_json, fill('"k":1,', "{", "}"), id="json: members, trailing comma"),
    pytest.param(run_json, fill("[", "", "1" + "]" * 10), id="json: deep arrays, unclosed"),
    pytest.param(run_json, fill('{"a":', "", "1"), id="json: deep objects"),
    pytest.param(run_json, fill("[1,", "", "]"), id="json: deep lists of items"),
    pytest.param(run_json, fill("\n", "{", '"a":}'), id="json: many lines before an error"),
    pytest.param(run_structured, fill("A_RESULT:\n"), id="structured: template names"),
    pytest.param(
        run_structured, fill("  a: <b | c>\n", "X_RESULT:\n"), id="structured: wide template"
    ),
    pytest.param(run_structured, fill(" ", "X_RESULT:\n", "a:"), id="structured: deep indent"),
    pytest.param(run_structured, fill(":", "", " \tx"), id="structured: colons, blanks"),
    pytest.param(run_structured, fill("a | ", "X_RESULT:\n  k: ", "<"), id="structured: menu"),
    pytest.param(run_structured, fill("<a", "X_RESULT:\n  k: ", ""), id="structured: open <"),
    pytest.param(run_structured, fill("{{a", "X_RESULT:\n  k: ", "}"), id="structured: open {{"),
    pytest.param(run_structured, fill("A.a", "", "."), id="structured: NAME.field reads"),
    pytest.param(
        run_structured, fill("a/", "```\nACTION: x\n", "SKILL.md"), id="structured: paths"
    ),
    pytest.param(
        run_structured,
        fill(".schema.json", "x", "\n| Field | Type |\n|---|---|\n| `a` | b |\n"),
        id="structured: schema names",
    ),
    pytest.param(
        run_structured,
        fill("| `a.b[]` | c | yes |\n", "| Key | Type | Required |\n|-|-|-|\n"),
        id="structured: field table rows",
    ),
    pytest.param(run_structured, fill("  - \n", "X_RESULT:\n"), id="structured: empty items"),
    pytest.param(run_script_word, fill("a ", "bash ", "'"), id="hook command: many words"),
    pytest.param(run_script_word, fill("\\'", "'", ""), id="hook command: quotes"),
    pytest.param(run_script_word, fill("&&", "x ", ""), id="hook command: operators"),
    pytest.param(
        run_script_word, fill("a", "${CLAUDE_PLUGIN_ROOT}/", ""), id="hook command: long path"
    ),
    pytest.param(run_build_output, fill("// c\r\n", "", "var x"), id="bundle: comment lines"),
    pytest.param(run_build_output, fill(" \t\r\n", "#!/bin/node\n", "x"), id="bundle: blanks"),
]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    root: Path = tmp_path_factory.mktemp("repo")
    (root / "a.md").write_text("# A\n", encoding="utf-8")
    (root / "x.md").write_text("# X\n", encoding="utf-8")
    return Repo(str(root))


@pytest.mark.parametrize(("run", "text"), CASES)
def test_finishes_within_the_limit(run: Runner, text: str, repo: Repo) -> None:
    assert len(text) >= SIZE
    run(text[:200], repo)  # warm up: imports and compiled patterns are not what is measured
    start = time.perf_counter()
    run(text, repo)
    elapsed = time.perf_counter() - start
    assert elapsed < LIMIT, f"{elapsed:.2f} s"


# --- globs from config ---------------------------------------------------------------------
# A glob with many stars would backtrack polynomially as a regex; such globs run as an
# automaton instead, which must agree with the regex translation on every glob and path.

GLOB_PARTS = st.sampled_from(["a", "b", ".", "/", "*", "**", "**/", "?"])
PATH_PARTS = st.sampled_from(["a", "b", ".", "/", "ab", "a.b"])


@settings(max_examples=500, deadline=None)
@given(
    st.lists(GLOB_PARTS, max_size=8).map("".join), st.lists(PATH_PARTS, max_size=10).map("".join)
)
def test_glob_automaton_agrees_with_the_regex(glob: str, path: str) -> None:
    tokens = _tokens(glob)
    regex = re.compile("".join(_REGEX.get(k) or re.escape(v) for k, v in tokens) + r"\Z")
    assert _WildcardMatcher(tokens).match(path) == bool(regex.match(path))


@pytest.mark.parametrize("glob", ["*a*a*a*a*b", "**a**a**a**b", "**/*a*a*a*/**/*b"])
def test_a_glob_with_many_stars_finishes_within_the_limit(glob: str) -> None:
    path = "a" * 4000 + "/" + "a" * 255  # longer than any real path
    assert isinstance(glob_pattern(glob), _WildcardMatcher)
    start = time.perf_counter()
    assert not glob_pattern(glob).match(path)
    assert time.perf_counter() - start < LIMIT


def test_shipped_globs_stay_regular_expressions() -> None:
    from drift_check.settings import BY_NAME

    defaults = [*BY_NAME["memory-files"].default, *BY_NAME["discovery-skip"].default]
    shipped = ["{core}/workflows/**/*.md", *defaults]
    for glob in ("agents/*.md", "skills/*/SKILL.md", "hooks/**", *shipped):
        assert isinstance(glob_pattern(glob), re.Pattern)


@pytest.mark.parametrize("glob", ["**/.claude/rules/**/*.md", "**/fixtures/**"])
def test_folder_globs_cost_the_depth_not_the_length(glob: str) -> None:
    path = "/".join(["a" * 200] * 20) + "/x.txt"  # deep and long, and no match
    start = time.perf_counter()
    assert not glob_pattern(glob).match(path)
    assert time.perf_counter() - start < LIMIT

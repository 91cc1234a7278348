"""DC0xx: input the scanners could not read or parse. The rest of the tree is still checked."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Facts
from drift_check.fixes.edits import quote_plain_value
from drift_check.rules.base import Hit, rule


def _problems(facts: Facts, kind: str) -> Iterator[Hit]:
    for p in facts.problems:
        if p.kind == kind:
            yield Hit(p.position, p.message)


@rule(
    "DC001",
    "unreadable-file",
    failing="""
        agents/logo.md      (binary bytes, or Latin-1 text, or a symlink to /etc/passwd)
    """,
    passing="""
        agents/logo.md      (UTF-8 text inside the repository)
    """,
)
def unreadable_file(facts: Facts) -> Iterator[Hit]:
    """A file drift-check should read is binary, not UTF-8, too large, unreadable, or a symlink
    that leaves the repository.

    Its contracts cannot be checked, so any drift in it goes unseen. drift-check reads UTF-8
    (with or without a BOM) and never follows a link out of the root. Convert the file to
    UTF-8, or move it out of the scanned folders. A `.js`, `.cjs` or `.mjs` file over the
    size or line limits is a bundle or a minified build output, skipped without a finding.
    """
    yield from _problems(facts, "unreadable")


@rule(
    "DC002",
    "registry-not-found",
    failing="""
        gsd-core/references/agent-contracts.md   (no `## Agent Registry` heading)
    """,
    passing="""
        ## Agent Registry

        | Agent | Role | Completion Markers |
        |-------|------|--------------------|
        | gsd-planner | Planning | `## PLANNING COMPLETE` |
    """,
)
def registry_not_found(facts: Facts) -> Iterator[Hit]:
    """The contracts registry file, its heading, or the table under it is missing.

    Without the registry nothing says which agent emits which marker, so every contract rule
    is blind. Create the table under the configured heading, or point `registry` and
    `registry-heading` at the real one.
    """
    yield from _problems(facts, "registry-missing")


@rule(
    "DC003",
    "registry-row-malformed",
    failing="""
        | Agent | Role | Completion Markers |
        |-------|------|--------------------|
        | gsd-planner | Planning | `## PLANNING COMPLETE` | extra |
    """,
    passing="""
        | Agent | Role | Completion Markers |
        |-------|------|--------------------|
        | gsd-planner | Planning | `## PLANNING COMPLETE` |
    """,
)
def registry_row_malformed(facts: Facts) -> Iterator[Hit]:
    """A registry row has the wrong number of cells, an empty Agent cell, or the header lacks
    the Agent or Completion Markers column.

    A malformed row is skipped, so its agent looks undocumented and its markers undeclared.
    Usually an unescaped `|` outside backticks split a cell: wrap it in backticks or escape
    it as `\\|`.
    """
    yield from _problems(facts, "registry-row")


@rule(
    "DC004",
    "invalid-frontmatter",
    fix="unsafe",
    failing="""
        ---
        name: gsd-planner
        description: Plans phases: reads the roadmap
        ---
    """,
    passing="""
        ---
        name: gsd-planner
        description: "Plans phases: reads the roadmap"
        ---
    """,
)
def invalid_frontmatter(facts: Facts) -> Iterator[Hit]:
    """An agent's or a skill's frontmatter is not valid YAML under a strict parser, or not a
    mapping.

    Claude Code and other loaders parse frontmatter strictly; an unquoted `: ` inside a value,
    a value that starts as a YAML list and goes on (`argument-hint: [name] | --all`) or a
    duplicate key breaks the whole frontmatter at load time: Claude Code then loads the
    file with none of its keys (no description, no `tools`, no `model`), and other hosts
    drop it. The finding points at the exact line and column of the YAML error. Quote the
    value or remove the duplicate. The fix quotes a value written on one line after a
    top-level key, and any other such value the parser stops at after it, where the
    frontmatter then loads (not where the text runs on below the key, as in a description
    followed by `<example>` lines); it is unsafe, as the keys the host ignored (`tools`,
    `model`) take effect once the frontmatter loads.
    """
    for p in facts.problems:
        if p.kind != "frontmatter":
            continue
        fix = None
        if p.message.startswith("frontmatter is not valid YAML") and "duplicate" not in p.message:
            fix = quote_plain_value(facts, *p.position)
        yield Hit(p.position, p.message, fix=fix)


@rule(
    "DC005",
    "unterminated-fence",
    failing="""
        ```markdown
        ## PLANNING COMPLETE
        (file ends without a closing fence)
    """,
    passing="""
        ```markdown
        ## PLANNING COMPLETE
        ```
    """,
)
def unterminated_fence(facts: Facts) -> Iterator[Hit]:
    """A code fence in a Markdown file drift-check reads (an agent or a document it
    includes, a skill, a memory file, a workflow or command, a document a link points into)
    is opened and never closed.

    Everything after the opener renders as code: in an agent, prose headings look like
    emitted markers and real return templates cannot be told apart; anywhere, the headings
    after it lose their anchors and its links stop being links. Close the fence with a run
    of the same character at least as long as the opener. The usual cause is a fence nested
    in another with the same run (```` ```bash ```` inside ```` ```markdown ````): the inner
    closer ends the outer block, and the outer closer opens a new one; the message says so
    when the open fence is a bare run. Fence the outer block with a longer run (````).
    """
    yield from _problems(facts, "fence")


@rule(
    "DC006",
    "unresolved-include",
    failing="""
        @~/.claude/gsd-core/references/planner-guidance.md   (no such file in the repository)
    """,
    passing="""
        @~/.claude/gsd-core/references/planner-guidance.md
        (gsd-core/references/planner-guidance.md exists)
    """,
)
def unresolved_include(facts: Facts) -> Iterator[Hit]:
    """An agent `@`-includes a reference document that does not exist in the repository.

    The include is injected at run time; a missing file means the agent runs without the
    instructions (and return templates) it relies on. Fix the path, or remove the include.
    """
    yield from _problems(facts, "include")


@rule(
    "DC007",
    "invalid-json",
    failing="""
        .claude-plugin/plugin.json:
            {
              "name": "code-review",
              "version": "1.0.0",
            }
    """,
    passing="""
        {
          "name": "code-review",
          "version": "1.0.0"
        }
    """,
)
def invalid_json(facts: Facts) -> Iterator[Hit]:
    """A manifest (plugin.json, marketplace.json, a hooks file, `.claude/settings*.json`,
    `.mcp.json`) is not valid JSON.

    Claude Code parses these strictly: a trailing comma, a comment or a single-quoted
    string makes it skip the whole file, so the plugin, marketplace, hooks or MCP servers
    in it are gone. The finding points at the exact place the parser stopped and says what
    it expected there.
    """
    for p in facts.problems:
        if p.kind == "json":
            yield Hit(p.position, f"manifest is not valid JSON: {p.message}")


@rule(
    "DC008",
    "config-matches-nothing",
    failing="""
        .drift-check.yaml:   agents: ["prompts/*.md"]      (there is no prompts/ folder)
    """,
    passing="""
        .drift-check.yaml:   agents: ["prompt-library/*.md"]
    """,
    blind_spot=True,
)
def config_matches_nothing(facts: Facts) -> Iterator[Hit]:
    """A pattern in the config names no file, or the configured preset finds none of its
    components.

    The run would pass having checked nothing that the config asked for: a moved folder or a
    typo in a glob turns the check off in silence. Fix the pattern (globs are relative to
    the repository root; `**` crosses folders), or remove it and let discovery find the
    files.
    """
    yield from _problems(facts, "config-unmatched")


RULES = (
    unreadable_file,
    registry_not_found,
    registry_row_malformed,
    invalid_frontmatter,
    unterminated_fence,
    unresolved_include,
    invalid_json,
    config_matches_nothing,
)

"""Agent files: frontmatter, fenced headings (emissions) and `@`-includes."""

from __future__ import annotations

from typing import Any

from drift_check.facts import (
    Agent,
    Emission,
    Include,
    InputProblem,
    Link,
    Mention,
    Position,
    Source,
)
from drift_check.scanners.files import Repo, matches
from drift_check.scanners.frontmatter import frontmatter_names, read_frontmatter, split_entries
from drift_check.scanners.markdown import (
    Cursor,
    HeadingLine,
    MarkdownScan,
    scan,
    unclosed_fence_problem,
)
from drift_check.scanners.patterns import lazy

_INCLUDE = lazy(r"@([~$\w.][^\s`'\"()<>\[\]{}|,;*]*)")
# Punctuation that ends a sentence, not a path: stripped from the end of an include token
# with `str.rstrip`, linear in a run of dots (`@a.....x`), where a `[.:!?]+$` search is not.
_TRAILING_PROSE = ".:!?"


def tools_of(frontmatter: dict[str, Any] | None) -> tuple[str, ...] | None:
    """`tools:` as a comma string or a list; None when absent (all tools granted)."""
    if not frontmatter or "tools" not in frontmatter:
        return None
    value = frontmatter["tools"]
    if isinstance(value, str):
        return tuple(split_entries(value))
    if isinstance(value, list):
        return tuple(str(t).strip() for t in value if str(t).strip())
    return ()


def _in_shown_document(markdown: MarkdownScan, line: int) -> bool:
    """Whether 1-based `line` lies in a fence showing a Markdown document (```` ```markdown ````,
    ```` ```md ````): a template the agent fills in, whose `@`-lines are that document's."""
    fence = markdown.fence_at(line)
    return fence is not None and fence.info.split(" ", 1)[0].lower() in ("markdown", "md")


def find_includes(source: Source, repo: Repo, prefixes: list[str]) -> list[Include]:
    out: list[Include] = []
    text = source.text
    cursor = Cursor(source)
    for m in _INCLUDE.finditer(text):
        before = text[m.start() - 1 : m.start()]
        if before and (before.isalnum() or before in "_@/"):
            continue  # an e-mail address or a path segment, not an include
        token = m.group(1).rstrip(_TRAILING_PROSE)
        if not token.endswith(".md"):
            continue
        target = token
        for prefix in prefixes:
            if target.startswith(prefix):
                target = target[len(prefix) :]
                break
        resolved = repo.resolve(target)
        if resolved is not None and not repo.exists(resolved):
            resolved = None
        out.append(Include(token, cursor.position(m.start()), resolved))
    return out


_BACKTICKED_DOC = lazy(r"`([^`\s]+\.md)`")
_READ_VERB = lazy(r"\b[Rr]ead\b[^`\n]{0,24}$")


def _strip_prefix(token: str, prefixes: list[str]) -> str:
    for prefix in prefixes:
        if token.startswith(prefix):
            return token[len(prefix) :]
    return token


def find_read_mentions(source: Source, repo: Repo, prefixes: list[str]) -> list[Include]:
    """``Read `path/to/doc.md` `` instructions: documents the agent is told to read."""
    out = []
    text = source.text
    cursor = Cursor(source)
    # Backticked paths first (a literal the regex engine finds fast), then the verb before.
    for m in _BACKTICKED_DOC.finditer(text):
        if not _READ_VERB.search(text, max(0, m.start() - 40), m.start()):
            continue
        target = repo.resolve(_strip_prefix(m.group(1), prefixes))
        if target is not None and repo.exists(target):
            out.append(Include(m.group(1), cursor.position(m.start()), target, True))
    return out


class HeadingCache:
    """Fenced headings of shared reference documents, scanned once however many agents
    include them."""

    def __init__(self) -> None:
        self.by_path: dict[str, list[tuple[str, Position, int]]] = {}


def scan_agent(
    path: str,
    repo: Repo,
    settings: dict[str, Any],
    problems: list[InputProblem],
    cache: HeadingCache | None = None,
) -> Agent | None:
    source = repo.read(path)
    if source is None:
        return None
    cache = cache or HeadingCache()
    name = path.rsplit("/", 1)[-1][: -len(".md")]
    frontmatter, key_lines, problem = read_frontmatter(
        source, repo.limits.max_yaml_depth, repo.limits.max_yaml_aliases
    )
    if problem is not None:
        problems.append(problem)
    prefixes = settings["include-prefixes"]
    follow = settings["include-follow"]
    # once, for the fences, the headings in them, links and mentions alike
    markdown = scan(source.text, fenced_only=True)
    emissions = [
        Emission(name, text, pos, None, column)
        for text, pos, column in _fenced(source, problems, cache, markdown)
    ]
    texts = [source]
    includes = find_includes(source, repo, prefixes)
    if settings["follow-read-mentions"]:
        includes += find_read_mentions(source, repo, prefixes)
    followed: set[str] = set()
    for inc in includes:
        if _in_shown_document(markdown, inc.position.line):
            continue  # the include of a document the agent writes, not the agent's own
        target = inc.resolved
        if target is None:
            if matches(_strip_prefix(inc.token, prefixes), follow):
                problems.append(
                    InputProblem(
                        inc.position,
                        "include",
                        f"`@{inc.token}` does not resolve to a file in the repository;"
                        " fix the path or remove the include",
                    )
                )
            continue
        if target in followed or target == path or not matches(target, follow):
            continue
        followed.add(target)
        included = repo.read(target)
        if included is None:
            continue
        texts.append(included)
        via = f"Read `{inc.token}`" if inc.read_mention else f"@{inc.token}"
        emissions.extend(
            Emission(name, text, pos, via, column)
            for text, pos, column in _fenced(included, problems, cache)
        )
    return Agent(
        name=name,
        path=path,
        frontmatter=frontmatter,
        frontmatter_lines=key_lines,
        tools=tools_of(frontmatter),
        emissions=tuple(emissions),
        includes=tuple(includes),
        texts=tuple(texts),
        skills=frontmatter_names(source, frontmatter, key_lines, "skills"),
        tool_names=frontmatter_names(source, frontmatter, key_lines, "tools") or (),
        links=_links(source, settings, markdown),
        disallowed_tool_names=(
            frontmatter_names(source, frontmatter, key_lines, "disallowedTools") or ()
        ),
        path_mentions=_mentions(source, settings, markdown),
    )


def _fenced(
    source: Source,
    problems: list[InputProblem],
    cache: HeadingCache,
    markdown: MarkdownScan | None = None,
) -> list[tuple[str, Position, int]]:
    """The headings inside fenced blocks of `source` (whose scan the caller may have), each
    with the column its text starts at; an unclosed fence is reported once."""
    found = cache.by_path.get(source.path)
    if found is not None:
        return found
    md = markdown or scan(source.text, fenced_only=True)
    problem = unclosed_fence_problem(source.path, md, markers=True, text=source.text)
    if problem is not None:
        problems.append(problem)
    found = [
        (h.text, Position(source.path, h.line, h.column), _text_column(source, h))
        for h in md.headings
        if h.in_fence
    ]
    cache.by_path[source.path] = found
    return found


def _text_column(source: Source, heading: HeadingLine) -> int:
    """Where a heading's text starts on its line (after the `#` run); 0 if not found."""
    text, start = source.text, heading.offset
    end = text.find("\n", start) % (len(text) + 1)
    i = text.find(heading.text, start + heading.column - 1, end)
    return i - start + 1 if i >= 0 else 0


def _links(source: Source, settings: dict[str, Any], markdown: MarkdownScan) -> tuple[Link, ...]:
    if not settings["agent-links"]:
        return ()
    from drift_check.scanners.links import find_links

    return tuple(find_links(source, settings["sibling-docs"], markdown))


def _mentions(
    source: Source, settings: dict[str, Any], markdown: MarkdownScan
) -> tuple[Mention, ...]:
    if not settings["agent-links"]:
        return ()
    from drift_check.scanners.links import find_mentions

    return tuple(find_mentions(source, False, markdown=markdown))

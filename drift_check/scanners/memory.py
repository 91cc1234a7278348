"""Memory files (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`, ...): their links and `@` imports."""

from __future__ import annotations

import re
from functools import lru_cache

from drift_check.facts import InputProblem, MemoryFile, MemoryImport, Source
from drift_check.scanners.files import Repo
from drift_check.scanners.links import find_links, resolve
from drift_check.scanners.markdown import Cursor, MarkdownScan, scan, unclosed_fence_problem

# `@path` at the start of a line or after a blank, as Claude Code and Gemini CLI read it;
# the path runs to the next blank. The blank before it is looked at by `find_imports` (a
# pattern that starts with a look-behind is tried at every character of the text, one that
# starts with `@` only where one is): a run that follows no blank holds no import either,
# as each `@` inside it follows a character of the run.
_IMPORT = re.compile(r"@([^\s`]++)")
_TRAILING_PROSE = ".,;:!?)]}'\""
# What makes `@word` an import rather than a handle, a package scope or a decorator: a
# `./` or `../` start, or the extension of a file a memory file would import.
_FILE_EXTENSION = (
    r"\.(?:md|mdx|mdc|markdown|txt|rst|adoc|json|jsonc|yaml|yml|toml|ini|cfg|conf|xml|csv|"
    r"sh|bash|zsh|py|js|mjs|cjs|ts|tsx|jsx|go|rs|rb|java|kt|swift|c|h|cc|cpp|hpp|cs|php|"
    r"sql|html|css|scss)\Z"
)
_TEMPLATED = re.compile(r"[{}<>$*?\[\]]")


def find_imports(source: Source, markdown: MarkdownScan | None = None) -> list[MemoryImport]:
    """The `@path` imports of a memory file, outside code spans and fenced blocks (the hosts
    leave those as text); `resolved` is None for `~/...` and absolute paths."""
    out: list[MemoryImport] = []
    text = source.text
    cursor = Cursor(source)
    for m in _IMPORT.finditer(text):
        if m.start() and not text[m.start() - 1].isspace():
            continue
        token = m.group(1).rstrip(_TRAILING_PROSE)
        path = token.partition("#")[0]
        if not path or _TEMPLATED.search(path):
            continue
        if not (path.startswith(("./", "../", "~/", "/")) or _file_extension().search(path)):
            continue
        if cursor.in_code_span(m.start()):
            continue
        position = cursor.position(m.start())
        markdown = markdown or scan(text, 0)
        if markdown.in_fence(position.line):
            continue
        outside = path.startswith(("~", "/"))
        out.append(MemoryImport(token, None if outside else resolve(source.path, path), position))
    return out


@lru_cache(maxsize=1)
def _file_extension() -> re.Pattern[str]:
    """`_FILE_EXTENSION`, compiled on first use (case-insensitive: a millisecond)."""
    return re.compile(_FILE_EXTENSION, re.I)


def scan_memory(path: str, repo: Repo, problems: list[InputProblem]) -> MemoryFile | None:
    source = repo.read(path)
    if source is None:
        return None
    markdown = scan(source.text, 0)  # the fences: headings are not facts here
    fence = unclosed_fence_problem(path, markdown, markers=False, text=source.text)
    if fence is not None:
        problems.append(fence)
    links = find_links(source, [], markdown)
    return MemoryFile(path, tuple(links), tuple(find_imports(source, markdown)))

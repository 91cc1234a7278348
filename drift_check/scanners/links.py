"""Relative Markdown links, sibling-document mentions and heading anchors."""

from __future__ import annotations

import posixpath
import re
from functools import lru_cache

from drift_check.facts import Link, Source
from drift_check.scanners.markdown import scan

# `](target)` or `](target "title")`: the `](` literal is what the regex engine looks for.
_LINK = re.compile(r"\]\(<?([^)\s>]*)>?(?:\s+[\"'][^\"']*[\"'])?\)")
# A link reference definition: `[label]: target` at the start of a line.
_DEFINITION = re.compile(r"^[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?([^\s>]+)>?", re.M)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_INLINE_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


def _fenced_lines(text: str) -> list[tuple[int, int]]:
    spans = []
    for f in scan(text).fences:
        spans.append((f.open_line, f.close_line or 1 << 30))
    return spans


def _in_code(text: str, offset: int, line: int, spans: list[tuple[int, int]]) -> bool:
    if any(lo <= line <= hi for lo, hi in spans):
        return True
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("`", line_start, offset) % 2 == 1  # inside an inline code span


def unquote(text: str) -> str:
    """Percent-decoding, imported only when a `%` needs it (urllib costs a few ms)."""
    if "%" not in text:
        return text
    from urllib.parse import unquote as decode

    return decode(text)


def resolve(source_path: str, target: str) -> str | None:
    """The repository path `target` points at from `source_path`; None outside the root."""
    if not target:
        return source_path
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source_path), unquote(target)))
    return None if joined == ".." or joined.startswith("../") else joined


def find_links(source: Source, siblings: list[str]) -> list[Link]:
    """Relative links of `source` (outside code), and bare mentions of its sibling documents
    (`reference.md`, `examples.md`), which must sit in the same folder."""
    text = source.text
    out: list[Link] = []
    spans: list[tuple[int, int]] | None = None
    link_ranges: list[tuple[int, int]] = []
    found = [(m, m.start()) for m in _LINK.finditer(text)]
    found += [(m, m.start()) for m in _DEFINITION.finditer(text)]
    for m, _ in sorted(found, key=lambda pair: pair[1]):
        raw = m.group(1)
        if _SCHEME.match(raw) or raw.startswith(("/", "{", "$")):
            continue
        pos = source.position(m.start(1))
        if spans is None:
            spans = _fenced_lines(text)
        if _in_code(text, m.start(), pos.line, spans):
            continue
        link_ranges.append((m.start(), m.end()))
        target, _, anchor = raw.partition("#")
        out.append(Link(target, unquote(anchor) or None, resolve(source.path, target), pos))
    for name in siblings:
        # The first mention outside a link is enough: the document exists or it does not.
        for m in _sibling_pattern(name).finditer(text):
            if any(lo <= m.start() < hi for lo, hi in link_ranges):
                continue  # the link itself is checked
            pos = source.position(m.start())
            out.append(Link(name, None, resolve(source.path, name), pos))
            break
    out.sort(key=lambda link: (link.position.line, link.position.column))
    return out


@lru_cache(maxsize=16)
def _sibling_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w/.-])" + re.escape(name) + r"(?![\w-])")


def slugs(text: str) -> frozenset[str]:
    """GitHub-style anchors of every heading outside fences: lowercased, punctuation
    dropped, spaces to hyphens; a repeated heading gets -1, -2, ..."""
    seen: dict[str, int] = {}
    out = set()
    for h in scan(text).headings:
        if h.in_fence:
            continue
        rendered = _INLINE_LINK.sub(r"\1", h.text).replace("`", "")
        slug = _SLUG_DROP.sub("", rendered.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return frozenset(out)

"""Relative Markdown links, sibling-document mentions and heading anchors."""

from __future__ import annotations

import bisect
import posixpath
import re
from functools import lru_cache

from drift_check.facts import Link, Source
from drift_check.scanners.markdown import Cursor, MarkdownScan, scan

# `](target)` or `](target "title")`: the `](` literal is what the regex engine looks for.
# Where no `)` (or title) follows the target, the pattern still matches, to the end of the
# target, without the `close` group: not a link. Every `](` inside that target would fail the
# same way (its target ends at the same character), and as a failing pattern the engine tried
# each of them, scanning on to that same end: quadratic on `](](](...`. The possessive `<?+`
# and `*+` give up nothing a link could need: a target never ends before `)`, a blank or `>`.
_LINK = re.compile(r"\]\(<?+([^)\s>]*+)(?P<close>>?+(?:\s+[\"'][^\"']*[\"'])?\))?")
# A link reference definition: `[label]: target` at the start of a line.
_DEFINITION = re.compile(r"^[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?([^\s>]+)>?", re.M)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# `[text](target)` in a heading, rendered as its text. As with `_LINK`, a `[` that starts no
# link still matches (without the `target` group), to its `]`, or to the end when no `)`
# follows: every later `[` would fail too, and was rescanned to the end (quadratic on `[[[`).
_INLINE_LINK = re.compile(r"!?\[([^\]]*+)(?:(?P<target>\]\([^)]*+\))|\]\([^)]*+)?")
_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


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
    markdown: MarkdownScan | None = None
    link_ranges: list[tuple[int, int]] = []
    found = [(m, m.start()) for m in _LINK.finditer(text) if m.group("close") is not None]
    found += [(m, m.start()) for m in _DEFINITION.finditer(text)]
    cursor = Cursor(source)
    for m, start in sorted(found, key=lambda pair: pair[1]):
        raw = m.group(1)
        if _SCHEME.match(raw) or raw.startswith(("/", "{", "$")):
            continue
        in_span = cursor.in_code_span(start)  # inside an inline code span
        pos = cursor.position(m.start(1))
        if markdown is None:
            markdown = scan(text)
        if in_span or markdown.in_fence(pos.line):
            continue
        link_ranges.append((m.start(), m.end()))
        target, _, anchor = raw.partition("#")
        out.append(Link(target, unquote(anchor) or None, resolve(source.path, target), pos))
    # A definition can hold a `](target)` link: ranges may nest, so each is checked against
    # the furthest end of the ranges that start at or before it.
    link_ranges.sort()
    starts = [lo for lo, _ in link_ranges]
    reach: list[int] = []
    for _, hi in link_ranges:
        reach.append(max(hi, reach[-1]) if reach else hi)
    for name in siblings:
        # The first mention outside a link is enough: the document exists or it does not.
        for m in _sibling_pattern(name).finditer(text):
            i = bisect.bisect_right(starts, m.start()) - 1
            if i >= 0 and m.start() < reach[i]:
                continue  # the link itself is checked
            pos = source.position(m.start())
            out.append(Link(name, None, resolve(source.path, name), pos))
            break
    out.sort(key=lambda link: (link.position.line, link.position.column))
    return out


def _link_text(m: re.Match[str]) -> str:
    return m.group(1) if m.group("target") is not None else m.group(0)


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
        rendered = _INLINE_LINK.sub(_link_text, h.text).replace("`", "")
        slug = _SLUG_DROP.sub("", rendered.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return frozenset(out)

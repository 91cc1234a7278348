"""Relative Markdown links, sibling-document mentions, mentions of bundled files and heading
anchors."""

from __future__ import annotations

import bisect
import posixpath
import re
from functools import lru_cache
from typing import Any

from drift_check.facts import FencedHeading, Link, Mention, Position, Source
from drift_check.scanners.frontmatter import line_start
from drift_check.scanners.markdown import Cursor, MarkdownScan, scan
from drift_check.scanners.patterns import lazy

# `](target)` or `](target "title")`: the `](` literal is what the regex engine looks for.
# Where no `)` (or title) follows the target, the pattern still matches, to the end of the
# target, without the `close` group: not a link. Every `](` inside that target would fail the
# same way (its target ends at the same character), so a failing pattern would make the
# engine try each of them, scanning on to that same end: quadratic on `](](](...`. The
# possessive `<?+` and `*+` give up nothing a link could need: a target never ends before
# `)`, a blank or `>`.
_LINK = lazy(r"\]\(<?+([^)\s>]*+)(?P<close>>?+(?:\s+[\"'][^\"']*[\"'])?\))?")
# A link reference definition: `[label]: target` at the start of a line.
_DEFINITION = lazy(r"^[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?([^\s>]+)>?", re.M)
_SCHEME = lazy(r"[A-Za-z][A-Za-z0-9+.-]*:")
# `[text](target)` in a heading, rendered as its text. As with `_LINK`, a `[` that starts no
# link still matches (without the `target` group), to its `]`, or to the end when no `)`
# follows: every later `[` would fail too, each rescanning to the end (quadratic on `[[[`).
_INLINE_LINK = lazy(r"!?\[([^\]]*+)(?:(?P<target>\]\([^)]*+\))|\]\([^)]*+)?")
_SLUG_DROP = lazy(r"[^\w\- ]", re.UNICODE)
# A target a template asks the reader to fill in: words such as `url`, `link`, `path` in a
# name with no extension (`thumbnail_url`, `rel-path-to-target`), or a date or `XXX` slot.
_PLACEHOLDER_WORDS = frozenset({"url", "uri", "link", "href", "path", "placeholder", "todo", "tbd"})
_NAME_WORDS = lazy(r"[_\-]+|(?<=[a-z])(?=[A-Z])")
_SLOT = lazy(r"YYYY|XXX|NNN|\bpath/to/")
_LABEL_LOOKBACK = 200
_QUOTE_LOOKBACK = 400
_LABEL_SLOT = lazy(r"\s*(?:<[^<>\n]*>|\{[^{}\n]*\})\s*")


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
    target = unquote(target)
    folder = posixpath.dirname(source_path)
    if "/" not in target and target not in (".", "..") and _normal(folder):
        joined = f"{folder}/{target}" if folder else target  # what normpath would give
    else:
        joined = posixpath.normpath(posixpath.join(folder, target))
    return None if joined == ".." or joined.startswith("../") else joined


def _normal(folder: str) -> bool:
    """A folder `posixpath.normpath` leaves as it is (a file of the tree's: the usual case)."""
    if not folder:
        return True
    inside = f"/{folder}/"
    return "//" not in inside and "/./" not in inside and "/../" not in inside


def find_links(
    source: Source, siblings: list[str], markdown: MarkdownScan | None = None
) -> list[Link]:
    """Relative links of `source` (outside code), and bare mentions of its sibling documents
    (`reference.md`, `examples.md`), which must sit in the same folder. `markdown`: the
    fences of `source`, when the caller has them."""
    text = source.text
    out: list[Link] = []
    link_ranges: list[tuple[int, int]] = []
    found = [(m, m.start()) for m in _LINK.finditer(text) if m.group("close") is not None]
    if "]:" in text:  # every definition has one; the line-anchored pattern is slow to scan
        found += [(m, m.start()) for m in _DEFINITION.finditer(text)]
    cursor = Cursor(source)
    for m, start in sorted(found, key=lambda pair: pair[1]):
        raw = m.group(1)
        if _SCHEME.match(raw) or raw.startswith(("/", "{", "$")):
            continue
        in_span = cursor.in_code_span(start)  # inside an inline code span
        pos = cursor.position(m.start(1))
        if markdown is None:
            markdown = scan(text, max_level=0)  # fences only
        if in_span or markdown.in_fence(pos.line):
            continue
        # the whole link, its text too: `[examples.md](references/examples.md)` names the
        # file its target names
        label = text.rfind("[", text.rfind("\n", 0, start) + 1, start)
        link_ranges.append((start if label < 0 else label, m.end()))
        if _placeholder(text, m, raw) or _quoted(text, start):
            continue
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
        start = text.find(name)
        while start >= 0:
            end = start + len(name)
            if _name_after(text[end : end + 1]) or (start and _name_before(text[start - 1])):
                start = text.find(name, start + 1)  # part of a longer name or path
                continue
            i = bisect.bisect_right(starts, start) - 1
            if i >= 0 and start < reach[i]:
                start = text.find(name, end)  # the link itself is checked
                continue
            position = cursor.position(start)
            if markdown is None:
                markdown = scan(text, max_level=0)
            if markdown.in_fence(position.line):
                start = text.find(name, end)  # a fence shows a layout, often another's
                continue
            folder = _section_folder(text, start)  # `### references/` lists that folder
            target = f"{folder}/{name}" if folder else name
            out.append(Link(name, None, resolve(source.path, target), position))
            break
    out.sort(key=lambda link: (link.position.line, link.position.column))
    return out


_FOLDER_HEADING = lazy(r"#{1,6}[ \t]+`?+((?:[\w.-]+/)+)`?+[ \t]*+\Z")


def _section_folder(text: str, at: int) -> str | None:
    """The folder the heading above `at` names, when that heading is only a folder path
    (`### references/`): the file names listed under it are that folder's."""
    heading = text.rfind("\n#", 0, at) + 1
    if not heading:
        return None
    end = text.find("\n", heading)
    m = _FOLDER_HEADING.match(text, heading, len(text) if end < 0 else end)
    return m.group(1).rstrip("/") if m else None


def _placeholder(text: str, m: re.Match[str], raw: str) -> bool:
    """A link target a template asks the reader to fill in (`[link](<url>)`,
    `[thumbnail](thumbnail_url)`, `[<Link>](...)`, `path/to/file.md`), not a broken link."""
    target = raw.partition("#")[0]
    if _SLOT.search(target):
        return True
    if text.startswith("](", m.start()) and text[m.start() - 1 : m.start()] in (">", "}"):
        # A slot is short: looking back a bounded way keeps a line of links linear.
        lookback = max(0, m.start() - _LABEL_LOOKBACK)
        line_start = text.rfind("\n", lookback, m.start()) + 1 or lookback
        label_start = text.rfind("[", line_start, m.start())
        if label_start >= 0 and _LABEL_SLOT.fullmatch(text, label_start + 1, m.start()):
            return True  # the link text is itself a slot: `[<Link>](...)`, `[{title}](...)`
    if "/" in target or "." in target or not target:
        return False  # a folder, a file with an extension, or the file itself
    if text.startswith("](<", m.start()):
        return True  # `<url>`: a real path in angle brackets has a folder or an extension
    return any(w.lower() in _PLACEHOLDER_WORDS for w in _NAME_WORDS.split(target))


def _quoted(text: str, start: int) -> bool:
    """Whether the link at `start` sits in a quotation opened earlier in its paragraph: text
    the reader is to write into another file ("Add: "Read our [guide](GUIDE.md)""), whose
    links resolve there, not here. (Looking back a bounded way keeps many links linear.)"""
    lookback = max(0, start - _QUOTE_LOOKBACK)
    paragraph = text.rfind("\n\n", lookback, start)
    window = text[lookback if paragraph < 0 else paragraph : start]
    return window.count('"') % 2 == 1 or window.count("\u201c") > window.count("\u201d")


def _link_text(m: re.Match[str]) -> str:
    return m.group(1) if m.group("target") is not None else m.group(0)


def _name_after(ch: str) -> bool:
    """A sibling document's name ends before a character that cannot continue it."""
    return ch == "-" or ch.isalnum() or ch == "_"


def _name_before(ch: str) -> bool:
    return ch in "/.-" or ch.isalnum() or ch == "_"


def slugs(text: str) -> frozenset[str]:
    """GitHub-style anchors of every heading outside fences: lowercased, punctuation
    dropped, spaces to hyphens; a repeated heading gets -1, -2, ..."""
    return heading_anchors(Source("", text))[0]


def _slug(heading: str) -> str:
    rendered = _INLINE_LINK.sub(_link_text, heading).replace("`", "")
    return _SLUG_DROP.sub("", rendered.lower()).replace(" ", "-")


def heading_anchors(
    source: Source, markdown: MarkdownScan | None = None
) -> tuple[frozenset[str], dict[str, FencedHeading]]:
    """The anchors of `source` (see `slugs`), and the slugs of headings inside fenced blocks,
    which have none: a link to one is told why it fails (and which fence, if never closed).
    `markdown`: the scan of `source`, when the caller has it."""
    seen: dict[str, int] = {}
    out = set()
    fenced: dict[str, FencedHeading] = {}
    markdown = markdown or scan(source.text)
    for h in markdown.headings:
        slug = _slug(h.text)
        if h.in_fence:
            fence = markdown.fence_at(h.line)
            if fence is not None and slug not in fenced:
                opener = Position(source.path, fence.open_line, fence.column)
                fenced[slug] = FencedHeading(h.text, h.line, opener, fence.close_line is not None)
            continue
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return frozenset(out), fenced


# `${CLAUDE_SKILL_DIR}/path` or `$CLAUDE_PLUGIN_ROOT/path`: the path ends where a shell word
# or a Markdown construct would. What follows it decides whether it was templated.
_VARIABLE = lazy(
    r"\$(?:\{(CLAUDE_SKILL_DIR|CLAUDE_PLUGIN_ROOT)\}|(CLAUDE_SKILL_DIR|CLAUDE_PLUGIN_ROOT)(?!\w))"
    r"/([^\s`'\"()\[\]{}<>;|&,\\*?$]*+)(.?)"
)
_VARIABLE_KIND = {"CLAUDE_SKILL_DIR": "skill-dir", "CLAUDE_PLUGIN_ROOT": "plugin-root"}
_TICKS = lazy(r"`+")
_SINGLE_TICKS = lazy(r"`([^`]*+)`")
_SEPARATOR = lazy(r"[./](?=[\w-])")
# A Markdown link or reference definition: its target is checked as a link (DC701), and its
# text is only what the reader sees.
# (A label holds no `[`: each failed try then stops at the next `[`, and a line of them is
# scanned once, not once per `[`.)
_LINK_SPAN = lazy(r"!?\[[^\[\]\n]*+\]\([^)\n]*+\)|^[ ]{0,3}\[[^\[\]\n]++\]:.*+")
# A path-shaped word of prose: names joined by `/` or `.` (a bare word is no path), not inside
# a longer word, URL or variable. A full stop that ends the sentence is not taken.
_PROSE_PATH = lazy(r"(?<![\w/.@$~:\\%+-])\.?[\w-]++(?:[./][\w-]++)++/?+")
_EXTENSION = lazy(r"\.[A-Za-z][A-Za-z0-9]{0,7}\Z")
# A line that starts with an "Example:" label (a list item, bold or not) up to the path: the
# path shows what such a file could be (a guide to writing skills), not a file of this one.
_EXAMPLE_LABEL = lazy(r"[ \t]*+(?:[-*+][ \t]++)?+[*_]*+(?:for )?examples?[*_]*+[ \t]*+:", re.I)
# Characters and runs that make a path a pattern or a slot to fill, not a file.
_TEMPLATED = lazy(r"[{}<>$*?\[\]%|=()@:;,!#'\"\\~^+]|\.\.\.|…|YYYY|XXX|NNN")
# Words near a path saying the bundle does not ship it: the reader creates it, a tool writes
# it, or it is the user's project's. Compiled on first use, as `_here` (each costs about a
# millisecond to compile, more than a small tree's scan needs them).
_NOT_BUNDLED = (
    r"\b(?:creat\w*|writ(?:e|es|ing|ten)|wrote|generat\w*|outputs?|adds|"
    r"sav(?:e|es|ed|ing)|produc\w*|emit\w*|scaffold\w*|touch|mkdir|append\w*|initiali[sz]\w*|"
    r"render\w*|export\w*|dump\w*|renam\w*|mov(?:e|es|ed|ing)|cop(?:y|ies|ied|ying)|"
    r"download\w*|becomes?|new file|w(?:ill|ould) (?:be|contain|hold|live)|"
    r"your|the user's|(?:the|this) (?:project|repo|repository|codebase|workspace)(?:'s)?)\b"
)
# The lowercase text every match of `_NOT_BUNDLED` contains: a line with none has no match.
_NOT_BUNDLED_PARTS = (
    *("creat", "writ", "wrote", "generat", "output", "adds", "sav", "produc", "emit"),
    *("scaffold",),
    *("touch", "mkdir", "append", "initiali", "render", "export", "dump", "renam", "mov"),
    *("cop", "download", "become", "your", "new file", "will ", "would ", "user's", "project"),
    *("repo", "codebase", "workspace"),
)


@lru_cache(maxsize=2)
def _not_bundled(ignore_case: bool) -> re.Pattern[str]:
    """`_NOT_BUNDLED`, case-insensitive, or as it matches a lowercased ASCII line (the same
    matches at the same offsets)."""
    return re.compile(_NOT_BUNDLED, re.I if ignore_case else 0)


@lru_cache(maxsize=1)
def _here() -> re.Pattern[str]:
    """Words right after a file name saying it sits beside the text that names it."""
    return re.compile(
        r"\W{0,3}(?:in|from|inside|under) this (?:skill's )?(?:directory|folder|skill)\b", re.I
    )


def find_mentions(
    source: Source,
    in_skill: bool,
    license_line: int = 0,
    markdown: MarkdownScan | None = None,
    fold: bool = True,
) -> list[Mention]:
    """Paths `source` names: after `${CLAUDE_SKILL_DIR}/` (in a skill) or
    `${CLAUDE_PLUGIN_ROOT}/`, anywhere but in a fence showing a Markdown document; in code
    spans, bold or prose outside fences, unless the line says the path is to be created; and
    file names in a skill's `license:` line (`license:` on 1-based `license_line`). With
    `fold`, a path of the text named again the same way is a repeat of its first mention
    (`Mention.repeats`); `unfold` gives each its own."""
    text = source.text
    out: list[Mention] = []
    markdown = markdown or scan(text, 0)
    body = _body_start(text)
    cursor = Cursor(source)
    for m in _VARIABLE.finditer(text):
        kind = _VARIABLE_KIND[m.group(1) or m.group(2)]
        path = m.group(3).rstrip(".:")
        if (kind == "skill-dir" and not in_skill) or m.group(4) in ("{", "$", "*", "?", "["):
            continue
        if not path.strip("/") or _TEMPLATED.search(path):
            continue
        pos = cursor.position(m.start())
        fence = markdown.fence_at(pos.line)
        if fence is not None and fence.info.split(" ", 1)[0].lower() in ("markdown", "md"):
            continue  # a document shown as an example, with its own folder
        out.append(Mention(path.rstrip("/"), kind, pos))
    if license_line:
        at = line_start(text, license_line)
        line = text[at : text.find("\n", at) % (len(text) + 1)]
        out.extend(_license_mentions(source, line, license_line))
    seen: dict[tuple[str, bool, bool], list[tuple[int, int]]] | None = {} if fold else None
    placed = len(out)  # the mentions found above, each line's after them in its order
    out += _text_mentions(source, markdown, body, seen)
    return placed_in_order(out, bool(placed), seen)


def placed_in_order(
    out: list[Mention],
    placed: bool,
    seen: dict[tuple[str, bool, bool], list[tuple[int, int]]] | None,
) -> list[Mention]:
    """The mentions of a text by position (when some were `placed` before its lines'),
    each first text mention given the repeats `seen` holds for it."""
    if placed:
        out.sort(key=lambda mention: (mention.position.line, mention.position.column))
    if seen and any(seen.values()):
        for i, m in enumerate(out):
            repeats = seen[m.path, m.bare, m.here] if m.kind == "text" else None
            if repeats:
                out[i] = m._replace(repeats=tuple(repeats))
    return out


def unfold(mentions: list[Mention]) -> list[Mention]:
    """The mentions with each repeat its own (in the order of their positions; at one
    position, a variable's or the license's first)."""
    if not any(m.repeats for m in mentions):
        return mentions
    out = list(mentions)
    for m in mentions:
        for line, column in m.repeats:
            out.append(m._replace(position=m.position._replace(line=line, column=column)))
    out = [m._replace(repeats=()) for m in out]
    out.sort(key=lambda m: (m.position.line, m.position.column, m.kind == "text"))
    return out


def fold(mentions: list[Mention]) -> list[Mention]:
    """The mentions of one text (in order) with each text mention named again the same way
    made a repeat of its first (`find_mentions` folds as it finds them)."""
    first: dict[tuple[str, bool, bool], int] = {}
    out: list[Mention] = []
    repeats: dict[int, list[tuple[int, int]]] = {}
    for m in mentions:
        if m.kind != "text":
            out.append(m)
            continue
        i = first.get((m.path, m.bare, m.here))
        if i is None:
            first[m.path, m.bare, m.here] = len(out)
            out.append(m)
        else:
            repeats.setdefault(i, []).append((m.position.line, m.position.column))
    for i, found in repeats.items():
        out[i] = out[i]._replace(repeats=tuple(found))
    return out


def _body_start(text: str) -> int:
    """The first line after the frontmatter (1 when there is none)."""
    if not text.startswith("---\n"):
        return 1
    end = text.find("\n---", 3)
    return 1 if end < 0 else text.count("\n", 0, end) + 3


# Each character of a text as a byte of its class: `w` a name character (`[\w-]` in ASCII, and
# `?`, which stands for any character beyond ASCII), `.` a separator (`.`, `/`), a blank any
# other. Every separator with a name character on each side is a `w.w` of the classes: found
# by a plain search (a few of them have not, beyond ASCII).
_CLASSES = bytes(
    ord("w") if chr(c).isalnum() or chr(c) in "_-?" else ord(".") if chr(c) in "./" else 32
    for c in range(256)
)


def _text_mentions(
    source: Source,
    markdown: MarkdownScan,
    first: int,
    seen: dict[tuple[str, bool, bool], list[tuple[int, int]]] | None,
) -> list[Mention]:
    """The mentions in the lines from 1-based line `first` on, outside fences. A line of
    plain prose (no code span, link, quotation, `Example:` label or word saying a file is
    not bundled) names the paths `_PROSE_PATH` finds in it that are shaped like a file of the
    bundle, found here from its separators; `_line_mentions` reads any other line."""
    text = source.text
    start = line_start(text, first)
    encoded = text.encode("ascii", "replace")
    classes = encoded.translate(_CLASSES)
    # A text naming paths on more lines than a search of one line for the words saying a file
    # is not bundled costs (about 14,000 instructions) is searched whole for their parts
    # (about 80 a character), and for the lines holding what `_marked` looks for.
    many = classes.count(b"w.w") * 170 > len(text)
    words = _NotBundled(text, many)
    marked = _marked_lines(encoded, start, text.isascii()) if many else None
    fences = markdown.fences
    # the last line a fence holds (a fence never closed holds every line after it)
    last_fenced = (fences[-1].close_line or 1 << 62) if fences else 0
    size = len(text) + 1  # a search that fails (-1) ends there modulo this: at the text's end
    out: list[Mention] = []
    # the line of the last separator: its start, its end (its newline's offset), its 1-based
    # number; at first the line before offset `start` (before the text: a newline at -1)
    line, end, number = -1, start - 1, first - 1
    plain = False  # that line is read here
    checked = False  # that line's words saying a file is not bundled were looked for
    at = classes.find(b"w.w", start) + 1  # a separator, or 0
    while at:
        if at > end:  # a new line: past the last one's newline and any after it
            newlines = 1 + text.count("\n", end + 1, at)
            number += newlines
            line = end + 1 if newlines == 1 else text.rfind("\n", 0, at) + 1
            end = text.find("\n", at) % size
            fence = markdown.fence_at(number) if number <= last_fenced else None
            if fence is not None:  # its lines name no path: on after its closing line
                if fence.close_line is None:
                    break
                number, end = fence.close_line, fence.close_end
                at = classes.find(b"w.w", end) + 1
                continue
            plain = True
            if _marked(text[line:end]) if marked is None else line in marked:
                out += _marked_mentions(source, line, number, words, seen)
                plain = False
            checked = False
        if not plain:
            at = classes.find(b"w.w", end) + 1
            continue
        # The run of name characters and separators around this one holds its paths (none
        # spans a blank) and ends the paths it holds (none ends before one of its characters).
        run = classes.rfind(b" ", 0, at) + 1
        run_end = classes.find(b" ", at) % size
        at = classes.find(b"w.w", run_end) + 1
        # offsets in the run's text are one past the text's: it starts with the character before
        for offset, path, bare, after in _run_paths(
            text[run - 1 : run_end] if run else "\n" + text[:run_end]
        ):
            if not checked:
                checked = True
                # (with `many`, a line beyond ASCII is marked: none folds to a part)
                if (words.parts or not many) and words.find(text[line:end], line):
                    out += _marked_mentions(source, line, number, words, seen)
                    plain = False
                    break
            here = False
            if bare:  # "in this folder": only `h` and `H` match the pattern's `h` (case folded)
                after += run - 1  # in the text
                follows = text[after : after + 40 if after + 40 < end else end]
                here = ("h" in follows or "H" in follows) and _is_here(follows)
            column = run + offset - line
            if seen is not None:
                repeats = seen.get((path, bare, here))
                if repeats is not None:
                    repeats.append((number, column))
                    continue
                seen[path, bare, here] = []
            out.append(Mention(path, "text", Position(source.path, number, column), bare, here))
    return out


@lru_cache(maxsize=4096)
def _run_paths(run: str) -> tuple[tuple[int, str, bool, int], ...]:
    """The prose paths shaped like a file of the bundle in a run of name characters and
    separators (after `run[0]`, the character before the run: a newline at the start of a
    text), each with its offset in `run`, its text without a final `/`, whether it is a bare
    name, and the offset in `run` where its match ends. A tree names the same few files on
    many lines: remembered."""
    out = []
    for m in _PROSE_PATH.finditer(run, 1):
        path = m.group()
        if _path_shaped(path, False):
            path = path.rstrip("/")
            out.append((m.start(), path, "/" not in path, m.end()))
    return tuple(out)


def _marked_lines(encoded: bytes, start: int, ascii: bool) -> set[int]:
    """The starts of the lines from offset `start` on that `_marked` would take (`encoded`: the
    text, each character one byte, `?` beyond ASCII; with one, the lines holding a `?`)."""
    found = set()
    for mark in (b"`", b"[", b'"', b"xample", b"XAMPLE") + (() if ascii else (b"?",)):
        at = encoded.find(mark, start)
        while at >= 0:
            found.add(encoded.rfind(b"\n", 0, at) + 1)
            after = encoded.find(b"\n", at)
            at = encoded.find(mark, after) if after >= 0 else -1
    return found


def _marked(line: str) -> bool:
    """Whether `line` holds what `_line_mentions` reads beyond prose paths: a code span, a
    link, a quotation or an `Example:` label."""
    return (
        "`" in line
        or "[" in line
        or '"' in line
        or "\u201c" in line
        or "xample" in line
        or "XAMPLE" in line
    )


def _marked_mentions(
    source: Source,
    start: int,
    number: int,
    words: _NotBundled,
    seen: dict[tuple[str, bool, bool], list[tuple[int, int]]] | None,
) -> list[Mention]:
    """`_line_mentions` of the line at offset `start` (1-based `number`), when it holds a
    separator with a name character before it and one after (`a/b`, `a.b`)."""
    text = source.text
    end = text.find("\n", start) % (len(text) + 1)
    m = _SEPARATOR.search(text, start, end)
    while m is not None:
        at = m.start()
        if at > start and (text[at - 1].isalnum() or text[at - 1] in "_-"):
            # no path of the line starts before the blank in front of this separator
            first = text.rfind(" ", start, at) + 1 or start
            return _line_mentions(
                source, text[start:end], start, number, words, first - start, seen
            )
        m = _SEPARATOR.search(text, at + 1, end)
    return []


def _line_mentions(
    source: Source,
    line: str,
    offset: int,
    number: int,
    words: _NotBundled,
    first: int,
    seen: dict[tuple[str, bool, bool], list[tuple[int, int]]] | None,
) -> list[Mention]:
    """The mentions on `line` (at `offset` in the text), whose prose can name no path
    before offset `first`; a mention `seen` holds is added to its repeats there instead."""
    text = _LINK_SPAN.sub(_blank, line) if "[" in line else line
    found: list[tuple[int, str, bool]] = []  # column offset, token, in code
    if "`" in text:
        if "``" in text:
            spans = _code_spans([(m.start(), m.end()) for m in _TICKS.finditer(text)])
        else:  # single backticks: each two make a span, a last one alone is text
            spans = [m.span(1) for m in _SINGLE_TICKS.finditer(text)]
        prose: list[str] = []  # the line with its code spans blanked, in pieces
        done = 0
        for lo, hi in spans:
            content = text[lo:hi]
            token = content.strip()
            if token and " " not in token and "\t" not in token:
                found.append((lo + content.index(token), token, True))
            prose += [text[done:lo], " " * (hi - lo)]
            done = hi
        prose.append(text[done:])
        text = "".join(prose)
    # the caller found a separator on the line: only a changed text may have lost it
    if text is line or _SEPARATOR.search(text):
        spans = len(found)
        found += [(m.start(), m.group(0), False) for m in _PROSE_PATH.finditer(text, first)]
        if spans and len(found) > spans:
            found.sort()  # by column: the code spans' paths and the prose's interleave
    out = []
    verbs: list[tuple[int, int]] | None = None  # where the line says "create", "your", ...
    example: int | None = None  # where the paths a leading `Example:` label introduces start
    quotes = '"' in line or "\u201c" in line
    for at, path, in_code in found:
        if not _shaped(path, in_code):
            continue
        if example is None:  # most lines hold no label: a substring test spares the pattern
            label = _EXAMPLE_LABEL.match(line) if "xample" in line or "XAMPLE" in line else None
            example = label.end() if label else len(line) + 1
        if at >= example:
            continue  # `- **Examples**: scripts/rotate.py, ...`: what such files could be
        end = at + len(path)
        if quotes and not in_code and _quoted_speech(line, at):
            continue  # `("applies to Tasks 1 and 2, so tests/x.py is in scope")`: a quotation
        if verbs is None:
            verbs = words.find(line, offset)
        if verbs and (_near(verbs, at, end) or _supposed(line, verbs, end)):
            continue
        path = path.rstrip("/")
        bare = "/" not in path
        # "in this folder": only `h` and `H` match the pattern's `h` (case folded)
        after = line[end : end + 40] if bare else ""
        here = ("h" in after or "H" in after) and _is_here(after)
        if seen is not None:
            repeats = seen.get((path, bare, here))
            if repeats is not None:
                repeats.append((number, at + 1))
                continue
            seen[path, bare, here] = []
        out.append(Mention(path, "text", Position(source.path, number, at + 1), bare, here))
    return out


@lru_cache(maxsize=4096)
def _shaped(path: str, in_code: bool) -> bool:
    """`_path_shaped`, remembered: a tree names the same few files on many lines."""
    return _path_shaped(path, in_code)


@lru_cache(maxsize=4096)
def _is_here(after: str) -> bool:
    """Whether the 40 characters after a file name say it sits beside its text."""
    return _here().match(after) is not None


class _NotBundled:
    """Where `_NOT_BUNDLED` matches in the lines of one text. Most lines have no such word:
    a line holding none of the parts of its words is passed over without the (slow) regex,
    and a line without the characters that fold to ASCII is searched lowercased, without the
    (slower) case-insensitive pattern. A text asked about many lines is first searched
    whole for the parts it holds at all, and its lines only for those: a long text with a
    few paths does not pay for that search, a text naming a path on every line pays once."""

    _WHOLE_AFTER = 8  # lines asked about before the whole text is searched

    def __init__(self, text: str, many: bool = False) -> None:
        """`many`: the text will be asked about many lines, and is searched whole now."""
        self.text = text
        self.asked = self._WHOLE_AFTER if many else 0
        self.parts: tuple[str, ...] = _NOT_BUNDLED_PARTS
        # where the parts start in the text, once it is searched whole (sorted)
        self.starts: list[int] | None = None
        if many:
            self._narrow()

    def _narrow(self) -> None:
        # a part a line's lowercase holds is in the text's (parts hold no newline); every
        # occurrence of every part is found in one pass, overlapping ones too
        lower = self.text.lower()
        hits = _parts_automaton()(lower, True)
        found = {i for i, _, _ in hits}
        self.parts = tuple(part for i, part in enumerate(_NOT_BUNDLED_PARTS) if i in found)
        if len(lower) == len(self.text):  # each character lowercased in its place
            self.starts = sorted(start for _, start, _ in hits)

    def find(self, line: str, at: int = -1) -> list[tuple[int, int]]:
        """The matches in `line`; `at`: where it starts in the text, if it is one of its
        lines (a part is then looked for among those the whole text holds)."""
        if not line.isascii() and any(ch in line for ch in _FOLDS_TO_ASCII):
            return [(m.start(), m.end()) for m in _not_bundled(True).finditer(line)]
        self.asked += 1
        if self.asked == self._WHOLE_AFTER:
            self._narrow()
        if not self.parts:
            return []
        starts = self.starts
        if starts is not None and at >= 0:
            i = bisect.bisect_left(starts, at)
            if i == len(starts) or starts[i] >= at + len(line):
                return []
            return [(m.start(), m.end()) for m in _not_bundled(False).finditer(line.lower())]
        lower = line.lower()  # as long as `line`: only U+0130, a folding one, grows
        for part in self.parts:  # a loop, not `any(...)`: a line's most frequent case
            if part in lower:
                return [(m.start(), m.end()) for m in _not_bundled(False).finditer(lower)]
        return []


@lru_cache(maxsize=1)
def _parts_automaton() -> Any:
    """An Aho-Corasick automaton of `_NOT_BUNDLED_PARTS`: a text is searched for all of
    them at once (one search a part cost about a tenth of a skills tree's run)."""
    from ahocorasick_rs import AhoCorasick

    return AhoCorasick(_NOT_BUNDLED_PARTS).find_matches_as_indexes


# The characters beyond ASCII that a case-insensitive pattern matches to ASCII letters
# (dotted and dotless I, long s, the Kelvin sign): without them, what such a pattern of
# ASCII words matches in a line is ASCII text, found in the lowercased line too.
_FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _quoted_speech(line: str, at: int) -> bool:
    """Whether a prose path sits inside a quotation that opened before it on its line (an
    odd number of straight double quotes, or more opening curly ones than closing): the
    words of a plan or a user, naming their project's files."""
    before = line[:at]
    return before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d")


def _near(verbs: list[tuple[int, int]], start: int, end: int) -> bool:
    """A word of `_NOT_BUNDLED` ends in the 80 characters before a path, or starts in the 30
    after it."""
    i = bisect.bisect_left(verbs, (start - 80, 0))
    if i < len(verbs) and verbs[i][0] < start and verbs[i][1] <= start:
        return True
    j = bisect.bisect_left(verbs, (end, 0))
    return j < len(verbs) and verbs[j][0] < end + 30


_SENTENCE_END = lazy(r"[.!?](?:\s|\Z)")


def _supposed(line: str, verbs: list[tuple[int, int]], end: int) -> bool:
    """The sentence naming a path says later that it will or would be there (`A
    `references/schema.md` file documenting the table schemas would be helpful`)."""
    stop = _SENTENCE_END.search(line, end)
    limit = stop.start() if stop else len(line)
    return any(end <= a < limit and line[a : a + 4].lower() in ("will", "woul") for a, _ in verbs)


def _code_spans(runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The contents (start, end) of the code spans a line's backtick runs make: a run opens a
    span closed by the next run of the same length; a run with none is literal text."""
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for i in range(len(runs) - 1, -1, -1):
        length = runs[i][1] - runs[i][0]
        following[i] = last.get(length)
        last[length] = i
    out = []
    i = 0
    while i < len(runs):
        j = following[i]
        if j is None:
            i += 1
            continue
        out.append((runs[i][1], runs[j][0]))
        i = j + 1
    return out


def _path_shaped(path: str, in_code: bool) -> bool:
    """A relative path of the bundle: folders and a name (in prose, a name with an
    extension or a folder with its `/`), or a file name with an extension."""
    if in_code:
        if _TEMPLATED.search(path):
            return False
    elif "XXX" in path or "NNN" in path or "YYYY" in path:
        return False  # the only slots of `_TEMPLATED` a prose path (`[\w./-]`) can hold
    if path.startswith(("/", "-", "~", "./", "../")):
        return False
    if ".local." in path:
        return False  # `CLAUDE.local.md`, `x.local.md`: a person's own file, never shipped
    segments = path.rstrip("/").split("/")
    if "" in segments or "." in segments or ".." in segments:
        return False
    if len(segments) == 1:  # a file name, not an extension (`.json`) or a suffix (`.local.md`)
        return not path.startswith(".") and _EXTENSION.search(path) is not None
    if "." in segments[0][1:]:
        return False  # a host name: `github.com/...`
    return in_code or path.endswith("/") or _EXTENSION.search(path) is not None


def _license_mentions(source: Source, line: str, number: int) -> list[Mention]:
    """File names in a `license:` value (`Complete terms in LICENSE.txt`)."""
    out = []
    for m in _PROSE_PATH.finditer(line, line.find(":") + 1):
        path = m.group(0).rstrip(".")
        if "/" not in path and _EXTENSION.search(path) and not _TEMPLATED.search(path):
            out.append(Mention(path, "license", Position(source.path, number, m.start() + 1), True))
    return out

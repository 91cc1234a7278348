"""Names that text relies on: skills loaded by name, the agents or commands said to spawn
an agent, and citations of Python code (`path.py::NAME`, `path.py:LINE`).

Only Markdown is read for them (prompts and docs); a cited Python file is read with the
standard `ast` for what it defines. Records of the past (a changelog, a file named with its
date) are not read for citations: what they cite was true when they were written. A
citation counts only when its path resolves to a file of the tree from the citing
document's folder or one of the folders above it (paths in examples and templates name
files of other projects, and are left alone).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from drift_check.facts import Citation, NameReference, Position, PythonModule, Source
from drift_check.scanners.files import Repo
from drift_check.scanners.patterns import lazy

# `Skill("x")`, `Skill('x')`, `Skill(skill="x", args=...)`, also with escaped quotes
_SKILL_CALL = lazy(
    r"""\bSkill\(\s*(?:(?:skill|name|command)\s*[=:]\s*)?\\?(["'])([^"'\\\n]{1,200})\\?\1"""
)
_LOAD_FROM = lazy(
    r"(?i)\bload(?:s|ing)?\s+(?:the\s+)?skill\s+(?:from|at)\s*:?\s*`?"
    r"(?:[\w./-]*/)?skills/([\w.-]+)/SKILL\.md"
)
# one search for what `skill_references` looks at (`Skill(`, `kill from`, `kill at`): a
# search from its literal `kill`, cheaper than a search of the whole text for each
_SKILL_NEEDLES = lazy(r"kill(?:\(| from| at)")
_NAME = lazy(r"[\w][\w:.-]*\Z")
# words a document writes for "any skill's name" (`Skill("name")`, `Skill("my-skill")`),
# compared without case, hyphens or underscores; a name in capitals is a slot too, as
# skill names are lower case
_SLOT_WORDS = frozenset(
    {"name", "skill", "skillname", "myskill", "yourskill", "someskill", "exampleskill", "x"}
)
_SPAWN = lazy(r"(?i)\b(?:spawned|dispatched)\s+by\b[ \t]*(:?)[ \t]*")
_KIND = r"(?:workflow|agent|sub-?agent|skill|command|orchestrator)s?\b"
_SPAWNER = lazy(
    r"`/?([^`\s]{1,100})`"  # `name`, `/command`
    r"|/(\w[\w:-]{0,99}+)(?!/|\.\w)"  # /command, not /a/path nor /file.md
    r"|([a-z0-9]+(?:-[a-z0-9]+)+)(?=[ \t]+" + _KIND + ")"  # kebab-name workflow
)
_JOIN = lazy(r"(?i)[ \t]*(?:,|\bor\b|\band\b)[ \t]*(?:the[ \t]+)?")
_ITEM = lazy(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")

_PY_PATH = r"(?<![\w./@-])((?:[\w.-]+/)*[\w-][\w.-]*\.py)"
_SYMBOL_CITATION = lazy(
    _PY_PATH + r"::([A-Za-z_]\w*(?:(?:::|\.)[A-Za-z_]\w*)*)(?:\[[^\]\n]{0,200}\])?"
)
_LINE_CITATION = lazy(_PY_PATH + r":(\d{1,7})(?:-(\d{1,7}))?(?![\w:])")
_IDENT = r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(\))?"
_DASHES = "\u2014\u2013-"  # em dash, en dash, hyphen
_BEFORE = lazy(
    r"`" + _IDENT + r"`[ \t]*(?:[(,:" + _DASHES + r"]|\bin\b|\bat\b)?[ \t]*[`(]?[ \t]*\Z"
)
_AFTER = lazy(r"\A`?\)?[ \t]*[,:" + _DASHES + r"]?[ \t]*\(?`" + _IDENT + r"`")


def find_references(
    repo: Repo, settings: dict[str, Any], files: list[str]
) -> tuple[tuple[NameReference, ...], tuple[Citation, ...], dict[str, PythonModule]]:
    """Every skill and spawner named in the tree's Markdown, every citation of a Python
    file of the tree, and what the cited files define. `files`: the tree's files less
    those `discovery-skip` names."""
    from drift_check.parallel import map_files

    paths = reference_paths(files)
    found = map_files(named_in(repo), paths, repo, light=True)
    return gather_references(repo, found)


def reference_paths(files: list[str]) -> list[str]:
    """The files `find_references` reads: the Markdown files of `files`."""
    return [p for p in files if p.endswith(".md")]


FoundIn = tuple[list[NameReference], list[Citation]] | None


def named_in(repo: Repo) -> Callable[[str], FoundIn]:
    """The names and citations of one file of `reference_paths` (None when it holds
    neither): the per-file part of `find_references`, for any process to do."""
    existing = repo.existing()
    return lambda path: _named(repo, path, existing)


def gather_references(
    repo: Repo, found: Iterable[FoundIn]
) -> tuple[tuple[NameReference, ...], tuple[Citation, ...], dict[str, PythonModule]]:
    """`find_references` from what `named_in` found in each file, in the files' order:
    the cited Python files read, and each citation given what its lines hold."""
    hits = [f for f in found if f]
    references = [r for named, _ in hits for r in named]
    citations = [c for _, cited in hits for c in cited]
    modules: dict[str, PythonModule] = {}
    if citations:  # read with `ast`, imported only where a Python file is cited
        from drift_check.scanners.python_symbols import python_module
    for target in sorted({c.target for c in citations}):
        source = repo.read(target)
        if source is not None:
            modules[target] = python_module(source)
    kept = []
    for citation in citations:
        if citation.target not in modules:
            continue
        source = repo.read(citation.target)
        if citation.expects and source is not None:
            held = cited_lines(source, citation.line, citation.end_line)
            citation = citation._replace(holds=_names(held, citation.expects))
        kept.append(citation)
    return tuple(references), tuple(kept), modules


def _named(
    repo: Repo, path: str, existing: frozenset[str]
) -> tuple[list[NameReference], list[Citation]] | None:
    """The names and citations of one Markdown file; None when it holds neither."""
    source = repo.read(path)
    if source is None:
        return None
    text = source.text
    references: list[NameReference] = []
    citations: list[Citation] = []
    if _SKILL_NEEDLES.search(text):
        references.extend(skill_references(source))
    if "pawned" in text or "ispatched" in text:
        references.extend(spawner_references(source))
    if ".py:" in text and not _record(path):
        citations.extend(python_citations(source, existing, repo))
    return (references, citations) if references or citations else None


# a document that records what was true when it was written: a changelog, release notes,
# or a file named with its date (`checklist-20260925-sync.md`, `2026-09-25-review.md`)
_RECORD = lazy(
    r"(?i)(?:changelog|changes|history|release[-_ ]?notes)\b"
    r"|(?<![0-9])20[0-9]{2}-?(?:0[1-9]|1[0-2])-?(?:0[1-9]|[12][0-9]|3[01])(?![0-9])"
)


def _record(path: str) -> bool:
    """Whether a document is a record of the past, whose citations stay as they were."""
    return _RECORD.search(path.rsplit("/", 1)[-1]) is not None


def skill_references(source: Source) -> list[NameReference]:
    out = []
    at = source.position
    for m in _matches(_SKILL_CALL, source.text, "Skill("):
        name = m.group(2).strip().split()[0] if m.group(2).strip() else ""
        if _NAME.match(name) and not _slot(name):
            out.append(NameReference(name, "skill", _call(source.text, m), at(m.start(2))))
    for m in _matches(_LOAD_FROM, source.text, "kill from", "kill at"):
        out.append(NameReference(m.group(1), "skill", m.group(0), at(m.start(1))))
    return out


def _slot(name: str) -> bool:
    """A word standing for any skill's name, or a name cut short (`kit:...`)."""
    if name.isupper() or "..." in name or "\u2026" in name:
        return True
    return name.replace("-", "").replace("_", "").lower() in _SLOT_WORDS


def _call(text: str, m: re.Match[str]) -> str:
    """The whole `Skill(...)` call when it closes on its line, else what matched."""
    close = text.find(")", m.end(), m.end() + 200)
    newline = text.find("\n", m.end())
    if close >= 0 and (newline < 0 or close < newline):
        return text[m.start() : close + 1]
    return m.group(0)


def spawner_references(source: Source) -> list[NameReference]:
    """Names after "spawned by" / "dispatched by": in backticks, a `/command`, or a
    kebab-case name followed by what it is (`diagnose-issues` workflow); after a colon at
    the end of a line, the first name of each item of the list that follows."""
    text = source.text
    out: list[NameReference] = []
    at = source.position
    for m in _matches(_SPAWN, text, "pawned", "ispatched"):
        start = m.end()
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        if m.group(1) and not text[start:line_end].strip():
            out.extend(_listed_spawners(text, line_end + 1, at))
            continue
        out.extend(_spawner_chain(text, start, line_end, at))
    return out


def _spawner_chain(
    text: str, start: int, end: int, at: Callable[[int], Position]
) -> list[NameReference]:
    out = []
    while start < end:
        m = _SPAWNER.match(text, start, end)
        if m is None:
            break
        group = next(g for g in (1, 2, 3) if m.group(g))
        name = m.group(group).rstrip("()")
        if group == 1 and "/" in name.lstrip("/"):
            name = ""  # a path, not a name
        if name and _NAME.match(name):
            out.append(NameReference(name, "spawner", m.group(0), at(m.start(group))))
        joined = _JOIN.match(text, m.end(), end)
        if joined is None or joined.end() == m.end():
            break
        start = joined.end()
    return out


def _listed_spawners(text: str, start: int, at: Callable[[int], Position]) -> list[NameReference]:
    """The first name of each item of the list after "spawned by:" (blank lines allowed
    before it and between items)."""
    out: list[NameReference] = []
    seen_item = False
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end]
        if not line.strip():
            start = end + 1
            continue
        item = _ITEM.match(line)
        if item is None:
            if seen_item and line[:1] in (" ", "\t"):
                start = end + 1
                continue  # an item's continuation line
            break
        seen_item = True
        out.extend(_spawner_chain(text, start + item.end(), end, at)[:1])
        start = end + 1
    return out


def _resolve(repo: Repo, document: str, written: str, existing: frozenset[str]) -> str | None:
    """The file a citation names: from the document's folder, then each folder above it;
    None for a bare file name that more than one file of the tree has (the nearest one
    above need not be the one meant)."""
    if "/" not in written and _file_names(existing)[written] > 1:
        return None
    folder = document.rsplit("/", 1)[0] if "/" in document else ""
    while True:
        candidate = repo.resolve(f"{folder}/{written}" if folder else written)
        if candidate is not None and candidate in existing:
            return candidate
        if not folder:
            return None
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""


@lru_cache(maxsize=1)
def _file_names(existing: frozenset[str]) -> Counter[str]:
    """How many files of the tree have each file name."""
    return Counter(p.rsplit("/", 1)[-1] for p in existing)


def python_citations(source: Source, existing: frozenset[str], repo: Repo) -> list[Citation]:
    out = []
    text = source.text
    at = source.position
    for m in _matches(_SYMBOL_CITATION, text, ".py::"):
        target = _resolve(repo, source.path, m.group(1), existing)
        if target is None:
            continue
        symbol = m.group(2).replace("::", ".")
        out.append(Citation(m.group(0), target, at(m.start()), symbol=symbol))
    for m in _matches(_LINE_CITATION, text, ".py:"):
        target = _resolve(repo, source.path, m.group(1), existing)
        if target is None:
            continue
        line = int(m.group(2))
        end_line = int(m.group(3)) if m.group(3) else line
        out.append(
            Citation(
                m.group(0),
                target,
                at(m.start()),
                line=line,
                end_line=max(line, end_line),
                expects=_expected(text, m.start(), m.end(), target),
            )
        )
    return out


def _matches(pattern: re.Pattern[str], text: str, *needles: str) -> list[re.Match[str]]:
    """The pattern's matches on the lines that hold one of `needles`, in order (a pattern
    that may start anywhere costs too much run over a whole text)."""
    lines: set[tuple[int, int]] = set()
    for needle in needles:
        at = text.find(needle)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            lines.add((start, end))
            at = text.find(needle, end)
    return [m for start, end in sorted(lines) for m in pattern.finditer(text, start, end)]


def _expected(text: str, start: int, end: int, target: str) -> str:
    """The identifier written next to a `path.py:LINE` citation on its line: just before
    it (`` `load()` (hooks/x.py:12) ``) or just after (`` hooks/x.py:12 (`load`) ``)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    before = _BEFORE.search(text[max(line_start, start - 120) : start])
    after = _AFTER.match(text[end : min(line_end, end + 120)])
    found = before or after
    if found is None:
        return ""
    name = found.group(1)
    stem = target.rsplit("/", 1)[-1][: -len(".py")]
    return "" if name in (stem, target) else name


def _names(text: str, expected: str) -> bool:
    """`text` holds the last part of the dotted name `expected`, as a whole word."""
    name = expected.rsplit(".", 1)[-1]
    return re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", text) is not None


def cited_lines(source: Source, first: int, last: int) -> str:
    """The text of lines `first`..`last` (1-based) of a file."""
    lines = source.text.split("\n")
    return "\n".join(lines[first - 1 : last])

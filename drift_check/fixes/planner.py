"""Planning one round: the fixes that apply, without overlaps, as new texts of files."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import TYPE_CHECKING

from drift_check.facts import Facts, Source
from drift_check.fixes.model import Fix
from drift_check.records import NamedTuple

if TYPE_CHECKING:
    from drift_check.rules.base import Finding


class FileChange(NamedTuple):
    path: str
    old: str
    new: str
    newline: str = "\n"  # the file's own line endings and byte-order mark, which a write
    bom: bool = False  # keeps and a diff shows (see `Source`)
    endings: tuple[str, ...] | None = None


class Planned(NamedTuple):
    """A finding's fix, resolved to text offsets: (path, start, end, replacement) each."""

    finding: Finding
    fix: Fix
    spans: tuple[tuple[str, int, int, str], ...]


def _offset(source: Source, line: int, column: int) -> int:
    """The text offset of a 1-based (line, column), never past the end of the text."""
    return min(source.offset(line, column), len(source.text))


def select(findings: list[Finding], facts: Facts, unsafe: bool) -> list[Planned]:
    """The fixes of one round, in the findings' order: those that apply (safe ones, unsafe
    ones too when `unsafe`), each resolved to spans; a fix whose edits overlap an earlier
    one's waits for the next round, and one that edits a file not read is dropped."""
    taken: dict[str, list[tuple[int, int]]] = {}
    out = []
    for f in findings:
        fix = f.fix
        if fix is None or not fix.applies(unsafe):
            continue
        spans = []
        for e in fix.resolve():
            source = facts.sources.get(e.path)
            if source is None:
                break
            start = _offset(source, e.line, e.column)
            end = _offset(source, e.end_line, e.end_column)
            spans.append((e.path, start, end, e.text))
        else:
            if any(_overlaps(taken.get(p, []), s, t) for p, s, t, _ in spans):
                continue
            for path, start, end, _ in spans:
                taken.setdefault(path, []).append((start, end))
            out.append(Planned(f, fix, tuple(spans)))
    return out


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Two edits overlap when they change a common character; insertions at one point (rows
    added after a table's last row) do not."""
    return any(start < e and s < end for s, e in spans)


def apply(planned: list[Planned], texts: dict[str, str]) -> dict[str, str]:
    """The new text of every file `planned` changes (`texts` holds the current ones), the
    files it leaves as they were left out."""
    by_path: dict[str, list[tuple[int, int, str, int]]] = {}
    for n, p in enumerate(planned):
        for path, start, end, text in p.spans:
            by_path.setdefault(path, []).append((start, end, text, n))
    out = {}
    for path in sorted(by_path):
        text = texts[path]
        # last first, so offsets stay valid; insertions at one point keep the findings' order
        new = text
        for start, end, replacement, _ in sorted(
            by_path[path], key=lambda e: (e[0], e[1], e[3]), reverse=True
        ):
            new = new[:start] + replacement + new[end:]
        if new != text:
            out[path] = new
    return out


def plan(findings: list[Finding], facts: Facts, unsafe: bool) -> list[FileChange]:
    """One round, unchecked: the new text of every file the applicable fixes touch."""
    planned = select(findings, facts, unsafe)
    texts = {path: facts.sources[path].text for p in planned for path, *_ in p.spans}
    return [
        changed(facts.sources[path], texts[path], new)
        for path, new in apply(planned, texts).items()
    ]


def changed(source: Source, old: str, new: str) -> FileChange:
    """The change of `source` from `old` to `new`, in the file's own style."""
    return FileChange(source.path, old, new, source.newline, source.bom, source.endings)


def as_written(change: FileChange) -> tuple[str, str]:
    """The old and new texts with the file's own line endings (the byte-order mark aside):
    what is on disk, and what a write puts there. Where the file's lines end alike, every
    line of the new text ends so; where they differ, each line the change leaves as it was
    keeps its ending, a line the change rewrites keeps the ending of the line it replaces,
    and a new line takes the file's commonest."""
    old, new, newline = change.old, change.new, change.newline
    if change.endings is None:
        if newline == "\n":
            return old, new
        return old.replace("\n", newline), new.replace("\n", newline)
    old_lines, new_lines = old.split("\n"), new.split("\n")
    kept = change.endings  # one for each old line but the last
    ends = [newline] * (len(new_lines) - 1)
    # the lines before the first edit and after the last pair off as they are; the ones
    # between are matched (a fix edits a few places, so that stretch is short)
    first, last = 0, min(len(old_lines), len(new_lines))
    while first < last and old_lines[first] == new_lines[first]:
        first += 1
    tail = 0
    while tail < last - first and old_lines[-1 - tail] == new_lines[-1 - tail]:
        tail += 1
    pairs = [(i, i) for i in range(first)]
    pairs += [(len(old_lines) - 1 - k, len(new_lines) - 1 - k) for k in range(tail)]
    matcher = difflib.SequenceMatcher(
        None,
        old_lines[first : len(old_lines) - tail],
        new_lines[first : len(new_lines) - tail],
        autojunk=False,
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("equal", "replace"):  # line for line
            pairs += zip(range(first + i1, first + i2), range(first + j1, first + j2), strict=False)
    for i, j in pairs:
        if i < len(kept) and j < len(ends):
            ends[j] = kept[i]
    for j in range(len(ends) - 1):
        if ends[j] == "\r" and not new_lines[j + 1] and ends[j + 1] == "\n":
            ends[j + 1] = "\r"  # `\r` then `\n` would read as one `\r\n`: a line lost
    return _joined(old_lines, kept), _joined(new_lines, ends)


def _joined(lines: list[str], ends: Sequence[str]) -> str:
    return "".join(line + end for line, end in zip(lines[:-1], ends, strict=True)) + lines[-1]


def unified_diff(change: FileChange) -> str:
    """The change as `git apply` reads it, in the file's bytes: its line endings and
    byte-order mark, and a last line without a newline marked so."""
    old, new = as_written(change)
    if change.bom:
        old, new = "\ufeff" + old, "\ufeff" + new
    out = []
    for n, line in enumerate(
        difflib.unified_diff(
            _lines(old),
            _lines(new),
            fromfile=f"a/{change.path}",
            tofile=f"b/{change.path}",
        )
    ):
        # the two file lines, then hunks (a removed `---` line reads `----`: not a header)
        if n < 2 or line.startswith("@@") or line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    """The lines as git splits them: at `\n` only (not at U+2028 or a form feed)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])

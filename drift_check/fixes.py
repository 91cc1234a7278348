"""Applying fixes: the edits findings carry, checked for overlap, written atomically.

A write keeps the file's line endings, byte-order mark, final newline and permissions, goes
to a temporary file in the same folder and is renamed over the original, so an interrupted
run leaves every file either old or new. Nothing outside the repository root is written,
a symlink is never written through, and neither is a read-only file (replacing it by a
rename would succeed, but its mode says it must not change). A file that changed since it
was read is left alone, unless it already holds the fixed text (another run fixed it).
"""

import contextlib
import difflib
import os
import re
import tempfile
from typing import NamedTuple

from drift_check.facts import Facts, Source
from drift_check.rules.base import Finding


class FileChange(NamedTuple):
    path: str
    old: str
    new: str


def _offset(source: Source, line: int, column: int, starts_of: dict[str, list[int]]) -> int:
    """The text offset of a 1-based (line, column); each file's line starts are found once
    per plan."""
    starts = starts_of.get(source.path)
    if starts is None:
        starts = starts_of[source.path] = [0, *(m.end() for m in re.finditer("\n", source.text))]
    if line > len(starts):
        return len(source.text)
    return min(starts[line - 1] + column - 1, len(source.text))


def plan(findings: list[Finding], facts: Facts, unsafe: bool) -> list[FileChange]:
    """The new text of every file the applicable fixes touch. A fix whose edits overlap an
    earlier fix's is left for the next round."""
    by_path: dict[str, list[tuple[int, int, str, int]]] = {}
    starts_of: dict[str, list[int]] = {}
    for n, f in enumerate(findings):
        fix = f.fix
        if fix is None or (fix.applicability == "unsafe" and not unsafe):
            continue
        spans = []
        for e in fix.resolve():
            source = facts.sources.get(e.path)
            if source is None:
                break
            start = _offset(source, e.line, e.column, starts_of)
            end = _offset(source, e.end_line, e.end_column, starts_of)
            spans.append((e.path, start, end, e.text))
        else:
            taken = [(p, s, t) for p, s, t, _ in spans]
            if any(_overlaps(by_path.get(p, []), s, t) for p, s, t in taken):
                continue
            for path, start, end, text in spans:
                by_path.setdefault(path, []).append((start, end, text, n))
    changes = []
    for path in sorted(by_path):
        text = facts.sources[path].text
        # last first, so offsets stay valid; insertions at one point keep the findings' order
        edits = sorted(by_path[path], key=lambda e: (e[0], e[1], e[3]), reverse=True)
        new = text
        for start, end, replacement, _ in edits:
            new = new[:start] + replacement + new[end:]
        if new != text:
            changes.append(FileChange(path, text, new))
    return changes


def _overlaps(spans: list[tuple[int, int, str, int]], start: int, end: int) -> bool:
    """Two edits overlap when they change a common character; insertions at one point (rows
    added after a table's last row) do not."""
    return any(start < e and s < end for s, e, _, _ in spans)


def unified_diff(change: FileChange) -> str:
    return "".join(
        difflib.unified_diff(
            change.old.splitlines(keepends=True),
            change.new.splitlines(keepends=True),
            fromfile=f"a/{change.path}",
            tofile=f"b/{change.path}",
        )
    )


class WriteError(Exception):
    """A fix could not be written; the file is left as it was."""


def write(root: str, change: FileChange) -> None:
    """Write `change` atomically, in the file's own line endings, BOM and permissions."""
    real_root = os.path.realpath(root)
    path = os.path.join(real_root, change.path)
    if os.path.islink(path) or not os.path.realpath(path).startswith(real_root + os.sep):
        raise WriteError(f"{change.path}: a link or outside the repository; not written")
    try:
        with open(path, "rb") as fh:
            current = fh.read()
            mode = os.fstat(fh.fileno()).st_mode & 0o7777
    except OSError as exc:
        raise WriteError(f"{change.path}: cannot read it again: {exc.strerror}") from None
    bom = current.startswith(b"\xef\xbb\xbf")
    body = current[3:] if bom else current
    text = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n").decode("utf-8", "replace")
    if text != change.old:
        if text == change.new:
            return  # already fixed, by a run at the same time
        raise WriteError(f"{change.path}: changed since it was read; not written")
    if not os.access(path, os.W_OK):
        raise WriteError(f"{change.path}: read-only; not written")
    newline = b"\r\n" if b"\r\n" in body and body.count(b"\r\n") == body.count(b"\n") else b"\n"
    data = change.new.encode("utf-8").replace(b"\n", newline)
    if bom:
        data = b"\xef\xbb\xbf" + data
    folder = os.path.dirname(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".drift-check-", dir=folder)
    except OSError as exc:
        raise WriteError(f"{change.path}: cannot write next to it: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:  # an interrupt too: the temporary file never stays behind
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise WriteError(f"{change.path}: not written: {exc.strerror or exc}") from None
        raise

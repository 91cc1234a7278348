"""Writing a fixed file: atomically, in its own line endings, BOM and permissions.

A write keeps the file's line endings (each line's, where they differ: see
`planner.as_written`), byte-order mark, final newline and permissions, goes
to a temporary file in the same folder and is renamed over the original, so an interrupted
run leaves every file either old or new. Nothing outside the repository root is written,
a symlink is never written through, and neither is a read-only file (replacing it by a
rename would succeed, but its mode says it must not change). A file that changed since it
was read is left alone, unless it already holds the fixed text (another run fixed it).
"""

import contextlib
import os
import tempfile

from drift_check.fixes.planner import FileChange, as_written


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
    old, new = as_written(change)
    if body != old.encode("utf-8"):
        if body == new.encode("utf-8"):
            return  # already fixed, by a run at the same time
        raise WriteError(f"{change.path}: changed since it was read; not written")
    if not os.access(path, os.W_OK):
        raise WriteError(f"{change.path}: read-only; not written")
    data = new.encode("utf-8")
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

"""What a worker sends (`drift_check.parallel`): its results pickled into a memory file,
the sources it read reduced to what this process needs of them, and a loader that makes
nothing but the package's records from it. Imported once a worker runs: a tree scanned in
one process never loads pickle."""

from __future__ import annotations

import copyreg
import io
import os
import pickle
from typing import IO, TYPE_CHECKING, Any

from drift_check.facts import Source

if TYPE_CHECKING:
    from drift_check.scanners.files import Repo


def _reduce_source(source: Source) -> tuple[Any, tuple[Any, ...]]:
    """A source as a worker sends it: its path, style and digest, and its text while the
    worker holds it (sent, it costs less than reading the file again)."""
    if source.rereadable:
        text = source.text if source.held else None
        return _source, (
            source.path,
            source.newline,
            source.bom,
            source.digest,
            text,
            source.endings,
        )
    return Source, (
        source.path,
        source.text,
        source.newline,
        source.bom,
        source.digest,
        None,
        source.endings,
    )


def _reduce_source_without_text(source: Source) -> tuple[Any, tuple[Any, ...]]:
    """A source as a worker sends it when the tree is too large to hold every text: without
    its text, which this process reads again if it needs it."""
    if source.rereadable:
        return _source, (
            source.path,
            source.newline,
            source.bom,
            source.digest,
            None,
            source.endings,
        )
    return _reduce_source(source)


def _source(
    path: str,
    newline: str,
    bom: bool,
    digest: int,
    text: str | None,
    endings: tuple[str, ...] | None,
) -> Source:
    raise AssertionError("sources are made by `Receiver`, for its repository")


def pickler(stream: IO[bytes], texts: bool = True) -> pickle.Pickler:
    """A pickler whose values, dumped one after another into `stream`, share one memo: an
    object sent again (a source two batches read) is a reference to its first copy. With
    `texts`, a source the worker holds is sent with its text (each batch's sources are
    held when it is sent: a large tree's would all be sent, and stay in memory here)."""
    pickler = pickle.Pickler(stream, pickle.HIGHEST_PROTOCOL)
    reduce = _reduce_source if texts else _reduce_source_without_text
    pickler.dispatch_table = {**copyreg.dispatch_table, Source: reduce}
    return pickler


class Receiver(pickle.Unpickler):
    """Loads what a worker sent: its sources become the repository's (see `Repo.received`).

    What it loads was written by a worker of this run into a memory file only the two
    processes hold (docs/security.md), and it still makes nothing but the package's own
    record classes, sources and dates: any other name refuses the load (the batches are
    then worked here)."""

    def __init__(self, data: bytes | Written, repo: Repo | None) -> None:
        super().__init__(io.BytesIO(data) if isinstance(data, bytes) else data)
        self.repo = repo

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == "_source" and self.repo is not None:
            return self.repo.received
        if module == "datetime" or module.startswith("drift_check."):
            found = super().find_class(module, name)
            if isinstance(found, type):
                return found
        raise pickle.UnpicklingError(f"a worker sent {module}.{name}, which is not a record")


class Written:
    """A worker's memory file as a file to load from, from where the last load ended."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.at = 0

    def read(self, size: int = -1) -> bytes:
        if size < 0:
            size = os.fstat(self.fd).st_size - self.at
        data = os.pread(self.fd, size, self.at)
        self.at += len(data)
        return data

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readline(self) -> bytes:
        line = b""
        while not line.endswith(b"\n") and (more := self.read(1)):
            line += more
        return line

"""Every core for the per-file scans of a large tree.

A scan of many files is cut into parts: a forked copy of this process scans each part but
the first, which this process scans meanwhile, and sends back what it found and what it
read (each file's digest, not its text, and the problems reading it met). The results come
back in the order of the files, the repository learns what the workers read, and the facts
are the ones a single process builds.

This process does all of it for a short list, where `os.fork` is missing (Windows) or unsafe
(macOS), when the repository has texts standing in for files (`--fix` checking its edits),
with `DRIFT_CHECK_JOBS=1`, and for any part whose worker fails.
"""

from __future__ import annotations

import copyreg
import io
import os
import pickle
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from drift_check.facts import Source

if TYPE_CHECKING:
    from drift_check.scanners.files import Reads, Repo

T = TypeVar("T")
R = TypeVar("R")

# Files a part must hold before a worker pays: forking a process and sending its results
# back costs about what scanning forty small files does.
LEAST_PER_PART = 64
MAX_JOBS = 8
JOBS_VARIABLE = "DRIFT_CHECK_JOBS"


def jobs() -> int:
    """How many processes may scan: the cores this process may run on (at most `MAX_JOBS`),
    or `DRIFT_CHECK_JOBS` when set to a positive number."""
    given = os.environ.get(JOBS_VARIABLE, "")
    if given.isdigit() and int(given) > 0:
        return min(int(given), MAX_JOBS)
    if not hasattr(os, "fork") or sys.platform != "linux":
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_JOBS))


def map_files(work: Callable[[T], R], items: Sequence[T], repo: Repo) -> list[R]:
    """`[work(item) for item in items]`, with every core when there are at least
    `LEAST_PER_PART` items for each: the items are dealt out in turn (neighbours are often
    alike in cost, so each part gets its share of every kind), and each part but the first
    is worked by a forked process. `work` reads files only through `repo` and returns
    values that pickle; what else it changes is lost in a worker."""
    parts = min(jobs(), len(items) // max(1, LEAST_PER_PART))
    if parts < 2 or repo.overlay or not hasattr(os, "fork"):
        return [work(item) for item in items]
    workers = [_start(work, items[k::parts], repo) for k in range(1, parts)]
    out: list[R | None] = [None] * len(items)
    try:
        out[::parts] = [work(item) for item in items[::parts]]
    except BaseException:
        _abandon(workers)
        raise
    for k, worker in enumerate(workers, 1):
        found = _finish(worker, repo)
        if found is None:  # no worker, or it failed: this process works the part itself
            out[k::parts] = [work(item) for item in items[k::parts]]
            continue
        results, reads = found
        repo.learn(reads)
        out[k::parts] = results
    return out  # type: ignore[return-value]


def _reduce_source(source: Source) -> tuple[Any, tuple[Any, ...]]:
    """A source as a worker sends it: its path, style and digest; the text only of one that
    cannot read it again (made from a text)."""
    if source.rereadable:
        return _source, (source.path, source.newline, source.bom, source.digest)
    return Source, (source.path, source.text, source.newline, source.bom, source.digest)


def _source(path: str, newline: str, bom: bool, digest: int) -> Source:
    raise AssertionError("sources are made by `_Receiver`, for its repository")


def _dumps(value: object) -> bytes:
    out = io.BytesIO()
    pickler = pickle.Pickler(out, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, Source: _reduce_source}
    pickler.dump(value)
    return out.getvalue()


class _Receiver(pickle.Unpickler):
    """Loads what a worker sent: its sources become the repository's (see `Repo.received`)."""

    def __init__(self, data: bytes, repo: Repo) -> None:
        super().__init__(io.BytesIO(data))
        self.repo = repo

    def find_class(self, module: str, name: str) -> Any:
        if module == __name__ and name == "_source":
            return self.repo.received
        return super().find_class(module, name)


def _start(work: Callable[[T], R], chunk: Sequence[T], repo: Repo) -> tuple[int, int] | None:
    """Fork a worker for `chunk`: (its pid, the pipe's reading end), or None."""
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid:
        os.close(write_end)
        return pid, read_end
    # the worker: never returns, never runs the parent's exit handlers or flushes its buffers
    status = 1
    try:
        os.close(read_end)
        mark = repo.mark()
        results = [work(item) for item in chunk]
        data = _dumps((results, repo.reads_since(mark)))
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
        status = 0
    except BaseException:  # the parent works the part again
        status = 1
    finally:
        os._exit(status)


def _abandon(workers: list[tuple[int, int] | None]) -> None:
    """Stop workers whose results will not be read (this process failed meanwhile: a
    worker left to write into a full pipe would wait for ever in `--watch`)."""
    for worker in workers:
        if worker is not None:
            pid, read_end = worker
            os.close(read_end)
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass


def _finish(worker: tuple[int, int] | None, repo: Repo) -> tuple[list[Any], Reads] | None:
    """What a worker sent, once it has exited cleanly; None if it did not."""
    if worker is None:
        return None
    pid, read_end = worker
    pieces = []
    try:
        while piece := os.read(read_end, 1 << 20):
            pieces.append(piece)
    except OSError:
        pieces = []
    finally:
        os.close(read_end)
    try:
        _, status = os.waitpid(pid, 0)
    except OSError:
        return None
    if status != 0 or not pieces:
        return None
    try:
        return _Receiver(b"".join(pieces), repo).load()  # type: ignore[no-any-return]
    except Exception:  # a worker cut short: the parent works it again
        return None

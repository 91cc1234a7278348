"""Every core for the per-file scans of a large tree, and for its rules.

The files of a scan are cut into small batches, and this process and forked copies of it
take the next batch not taken yet until none is left, so that they finish about together
whatever each batch costs (`map_files`; `map_units` does the same for a few costly units of
work, one at a time: the rules' units). A worker writes each batch's results as soon as it
has them (sending them costs about a quarter of making them, and is shared out with the
batches that way), with what the batch read (each file's digest and the problems reading
it met); this process loads what is written so far between its own batches (loading it all
at the end kept the other core idle meanwhile).
The results come back in the order of the files, the repository learns what the workers
read, and the facts are the ones a single process builds. `share` starts a copy on a list of
batches while this process does other work first (the vocabularies, then the names' search,
beside the structured scan); the copy holds a core until its results are taken.

This process does all of it for a short list, where `os.fork` is missing (Windows) or unsafe
(macOS), when the repository has texts standing in for files (`--fix` checking its edits),
with `DRIFT_CHECK_JOBS=1`, and for any batch whose worker fails. A failed worker is silent:
the output is the same, only slower; a new stage should check that its workers' results
come back (`tests/scanners/test_parallel.py` makes a worker take every unit).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from drift_check.scanners.files import Reads, Repo
    from drift_check.wire import Receiver

T = TypeVar("T")
R = TypeVar("R")

# Files a part must hold before a worker pays: forking a process and sending its results
# back costs about what scanning forty small files does.
LEAST_PER_PART = 64
# The same for light work, a few searches of each text: a worker pays for a thousand files.
LEAST_PER_LIGHT_PART = 1024
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


def map_files(
    work: Callable[[T], R], items: Sequence[T], repo: Repo, light: bool = False
) -> list[R]:
    """`[work(item) for item in items]`, with every core when there are at least
    `LEAST_PER_PART` items for each (`LEAST_PER_LIGHT_PART` for `light` work). `work` reads
    files only through `repo` and returns values that pickle; what else it changes is lost
    in a worker."""
    least = LEAST_PER_LIGHT_PART if light else LEAST_PER_PART
    parts = min(_free(), len(items) // max(1, least))
    # batches small enough for the last ones to even out the parts, few enough for their
    # numbers to fit in a pipe written before anybody reads it
    size = max(1, min(BATCH, len(items) // (max(1, parts) * 8)), -(-len(items) // MAX_BATCHES))
    return _map(work, items, repo, parts, size)


def map_units(work: Callable[[T], R], units: Sequence[T], repo: Repo | None = None) -> list[R]:
    """`[work(unit) for unit in units]` for a few costly units of work (the rules' families
    over the facts), each process taking the next unit not taken yet: list the costliest
    first. `work` returns values that pickle (records); it reads no file, or only through
    `repo`."""
    return _map(work, units, repo, min(_free(), len(units)), 1)


def _map(
    work: Callable[[T], R], items: Sequence[T], repo: Repo | None, parts: int, size: int
) -> list[R]:
    """`[work(item) for item in items]` in `parts` processes taking batches of `size`."""
    if parts < 2 or (repo is not None and repo.overlay) or not hasattr(os, "fork"):
        return [work(item) for item in items]
    batches = [items[i : i + size] for i in range(0, len(items), size)]
    try:
        take, give = os.pipe()
    except OSError:
        return [work(item) for item in items]
    if not _hand_out(give, len(batches)):
        os.close(take)
        return [work(item) for item in items]
    workers: list[_Worker | None] = []
    done: dict[int, list[R]] = {}
    try:
        workers = [_start(work, batches, take, repo) for _ in range(1, parts)]
        for b in _claims(take):
            done[b] = [work(item) for item in batches[b]]
            for worker in workers:
                if worker is not None:
                    worker.load_written(repo)
    except BaseException:
        _abandon(workers)
        raise
    finally:
        os.close(take)
    for worker in workers:
        found = _finish(worker, repo)
        if found is None and worker is not None:
            counts["redone"] += 1
        if found is not None:  # else this process works the batches the worker took
            theirs, reads = found
            done.update(theirs)
            if repo is not None:
                repo.learn(reads)
    out: list[R] = []
    for b, batch in enumerate(batches):
        out += done[b] if b in done else [work(item) for item in batch]
    return out


class Shared:
    """Batches of work that a forked copy of this process takes, from the first on, while
    this process does other work (see `share`): `work_here()` works the batches not taken
    yet here, `finish()` gives every batch's results, in order."""

    def __init__(
        self,
        work: Callable[[Any], Any],
        batches: list[Sequence[Any]],
        repo: Repo,
        take: int | None,
        worker: _Worker | None,
    ) -> None:
        self._work = work
        self._batches = batches
        self._repo = repo
        self._take = take
        self._worker = worker
        self._done: dict[int, list[Any]] = {}

    def work_here(self) -> None:
        """Take the batches left, one at a time, and work them here (the copy goes on with
        those it took); then this process may do other work while the copy ends."""
        take, self._take = self._take, None
        if take is None:
            return
        worker = self._worker
        try:
            for b in _claims(take):
                self._done[b] = [self._work(item) for item in self._batches[b]]
                if worker is not None:
                    worker.load_written(self._repo)
        except BaseException:
            self.abandon()
            raise
        finally:
            os.close(take)

    def finish(self) -> list[list[Any]]:
        global _busy
        self.work_here()
        worker, self._worker = self._worker, None
        done = self._done
        if worker is not None:
            _busy -= 1
            found = _finish(worker, self._repo)
            if found is None:  # this process works the batches the worker took, below
                counts["redone"] += 1
            else:
                theirs, reads = found
                done.update(theirs)
                self._repo.learn(reads)
        return [
            done[b] if b in done else [self._work(item) for item in batch]
            for b, batch in enumerate(self._batches)
        ]

    def abandon(self) -> None:
        """Stop the copy: the results will not be asked for."""
        global _busy
        worker, self._worker = self._worker, None
        take, self._take = self._take, None
        if take is not None:
            os.close(take)
        if worker is not None:
            _busy -= 1
            _abandon([worker])


def share(work: Callable[[Any], Any], batches: list[Sequence[Any]], repo: Repo) -> Shared:
    """Start a forked copy of this process on `batches` of items, `work(item)` each, the
    first batch first, when a core is free for it; this process works the batches left
    when it calls `finish()` (after other work of its own), so that the two end about
    together whatever each side costs. Otherwise every batch is worked in `finish()`. The
    terms of the other stages: `work` reads files only through `repo` and returns values
    that pickle (what else it changes is lost); the copy holds a core until `finish()`,
    and the scans this process runs meanwhile take one core fewer. Without a free core (or
    `fork`), or with texts standing in for files, every batch is worked in `finish()`."""
    global _busy
    if _free() < 2 or repo.overlay or not hasattr(os, "fork"):
        return Shared(work, batches, repo, None, None)
    try:
        take, give = os.pipe()
    except OSError:
        return Shared(work, batches, repo, None, None)
    if not _hand_out(give, len(batches)):
        os.close(take)
        return Shared(work, batches, repo, None, None)
    worker = _start(work, batches, take, repo, texts=False)
    if worker is not None:
        _busy += 1
    return Shared(work, batches, repo, take, worker)


_busy = 0  # copies started by `share` and not finished: each holds a core


def _free() -> int:
    """The processes a scan may use now: `jobs()` less those `share` holds; one in
    a worker (which never starts workers of its own)."""
    return 1 if _in_worker else max(1, jobs() - _busy)


_in_worker = False  # this process is a worker
# workers started in this run, and those whose results were not taken (their work was done
# here again: the same output, later); `--verbose` says both
counts = {"started": 0, "redone": 0}


def in_worker() -> bool:
    """Whether this process is a worker (what it returns is sent to the process that
    started it)."""
    return _in_worker


BATCH = 16  # files a batch holds at most (fewer for a short list)
MAX_BATCHES = 16384  # two bytes each: what a pipe holds before it is read


def _hand_out(give: int, count: int) -> bool:
    """Write the numbers of `count` batches into a pipe nobody reads yet, and close it;
    False if the pipe holds fewer (a user over the kernel's pipe quota gets a pipe of one
    page: the write must not wait for a reader that will never come)."""
    tokens = b"".join(b.to_bytes(2, "big") for b in range(count))
    try:
        os.set_blocking(give, False)
        return os.write(give, tokens) == len(tokens)
    except OSError:
        return False
    finally:
        os.close(give)


def _claims(take: int) -> Iterator[int]:
    """The numbers of the batches this process takes, one at a time, until none is left
    (reading two bytes from a pipe is one atomic step: no batch is taken twice)."""
    while token := os.read(take, 2):
        yield int.from_bytes(token, "big")


# The number a worker sends what it read under, between its batches' results
READ_SO_FAR = -1


def _merged(parts: list[Reads]) -> Reads:
    """The reads a worker sent in parts, as one (`Repo.reads_since` its start)."""
    from drift_check.scanners.files import Reads

    if len(parts) == 1:
        return parts[0]
    return Reads(
        tuple(f for part in parts for f in part.files),
        tuple(p for part in parts for p in part.problems),
        frozenset().union(*(part.naming_tool for part in parts)),
    )


class _Worker:
    """A forked worker: its pid, the memory file it writes its results to, a pipe where it
    says how far its results are written whole, and the batches' results loaded from it so
    far (this process loads them between its own batches, while the worker works on)."""

    def __init__(self, pid: int, out: int, progress: int) -> None:
        self.pid = pid
        self.out = out
        self.progress = progress
        from drift_check.wire import Written  # pickle: imported once a worker runs

        self.written = Written(out)
        self.receiver: Receiver | None = None
        self.done: dict[int, list[Any]] = {}
        self.reads: list[Reads] = []  # what it read, in the parts sent so far
        self.failed = False

    def load_written(self, repo: Repo | None) -> None:
        """Load the results the worker has written whole since the last look (without
        waiting for it); a worker whose results cannot be loaded is left to `_finish`."""
        if self.failed:
            return
        try:
            said = os.read(self.progress, 1 << 16)
        except OSError:  # nothing new
            return
        whole = len(said) - len(said) % 8
        if not whole:
            return
        reach = int.from_bytes(said[whole - 8 : whole], "big")
        try:
            from drift_check.wire import Receiver

            receiver = self.receiver = self.receiver or Receiver(self.written, repo)
            while self.written.at < reach:
                number, found = receiver.load()
                if number == READ_SO_FAR:
                    self.reads.append(found)
                else:
                    self.done[number] = found
        except Exception:
            self.failed = True

    def close(self) -> None:
        for fd in (self.out, self.progress):
            with contextlib.suppress(OSError):
                os.close(fd)


def _start(
    work: Callable[[T], R],
    batches: list[Sequence[T]],
    take: int,
    repo: Repo | None,
    texts: bool = True,
) -> _Worker | None:
    """Fork a worker that takes batches from `take`, or None. Without `texts`, the files it
    read come back without their texts, even on a tree small enough to hold them all: a
    copy started beside this process's own scan reads what this one reads too, and a text
    sent again cost more than the rare file read again (`share`)."""
    try:
        out = os.memfd_create("drift-check-worker", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        return None
    try:
        said, say = os.pipe()
    except OSError:
        os.close(out)
        return None
    try:
        pid = os.fork()
    except OSError:
        for fd in (out, said, say):
            os.close(fd)
        return None
    if pid:
        counts["started"] += 1
        os.close(say)
        os.set_blocking(said, False)
        return _Worker(pid, out, said)
    # the worker: never returns, never runs the parent's exit handlers or flushes its buffers
    global _in_worker
    _in_worker = True
    status = 1
    try:
        os.close(said)
        os.set_blocking(say, False)
        mark = repo.mark() if repo is not None else None
        with open(out, "wb", closefd=False) as stream:
            from drift_check.wire import pickler as make_pickler

            pickler = make_pickler(stream, texts and repo is not None and repo.texts.hold_all)
            for b in _claims(take):
                pickler.dump((b, [work(item) for item in batches[b]]))
                if repo is not None and mark is not None and repo.mark() != mark:
                    # what the batch read, sent with it: the parent loads it while it works,
                    # not all at the end, when it waits for this worker
                    pickler.dump((READ_SO_FAR, repo.reads_since(mark)))
                    mark = repo.mark()
                stream.flush()
                _say(say, stream.tell())
            pickler.dump((None, repo.reads_since(mark) if repo is not None else None))
        status = 0
    except BaseException:  # the parent works the batches again
        status = 1
    finally:
        os._exit(status)


def _say(say: int, reach: int) -> None:
    """Tell the parent the results are written whole up to offset `reach` (a hint: when
    the pipe is full, the parent learns it from a later one, or loads them at the end)."""
    with contextlib.suppress(OSError):
        os.write(say, reach.to_bytes(8, "big"))


def _abandon(workers: list[_Worker | None]) -> None:
    """Stop workers whose results will not be read (this process failed meanwhile: a
    worker left to write into a full pipe would wait for ever in `--watch`)."""
    for worker in workers:
        if worker is not None:
            worker.close()
            try:
                import signal  # only ever needed here

                os.kill(worker.pid, signal.SIGKILL)
                os.waitpid(worker.pid, 0)
            except OSError:
                pass


def _finish(worker: _Worker | None, repo: Repo | None) -> tuple[dict[int, list[Any]], Reads] | None:
    """What a worker sent, once it has exited cleanly; None if it did not."""
    if worker is None:
        return None
    try:
        _, status = os.waitpid(worker.pid, 0)
        if status != 0 or worker.failed:
            return None
        from drift_check.wire import Receiver

        receiver = worker.receiver or Receiver(worker.written, repo)
        done = worker.done
        while True:  # each batch's results and what it read, then (None) what is left
            number, found = receiver.load()
            if number is None:
                return done, _merged([*worker.reads, found]) if worker.reads else found
            if number == READ_SO_FAR:
                worker.reads.append(found)
            else:
                done[number] = found
    except Exception:  # a worker cut short: the parent works its batches again
        return None
    finally:
        worker.close()

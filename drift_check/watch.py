"""`--watch`: check once, then again after every change under the root, until Ctrl-C.

File events come from `watchfiles` (Rust's notify underneath), imported only here; its
default filter already skips `.git`, `.venv`, `node_modules`, caches and editor swap files.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable

import click

CLEAR = "\x1b[2J\x1b[H"
# How long the watcher waits for a change before it hands back an empty batch: the first
# check starts after one such wait, and an idle watch wakes this often.
IDLE_MS = 300


def watch(root: str, check: Callable[[], object], ignored: Iterable[str] = ()) -> int:
    """Run `check`, then run it again after each batch of changes under `root` (a file in
    `ignored`, such as the report drift-check itself writes, does not count). Every run
    starts with a cleared screen on a terminal and a separator line otherwise. Ctrl-C ends
    the watch with exit code 0."""
    import watchfiles

    skip = {os.path.realpath(p) for p in ignored}
    default = watchfiles.DefaultFilter()

    def wanted(change: watchfiles.Change, path: str) -> bool:
        return os.path.realpath(path) not in skip and default(change, path)

    def rerun(why: str) -> None:
        if sys.stdout.isatty():
            click.echo(CLEAR, nl=False)
        click.echo(f"drift-check: {why}", err=True)
        check()

    events = watchfiles.watch(
        os.path.realpath(root), watch_filter=wanted, yield_on_timeout=True, rust_timeout=IDLE_MS
    )
    try:
        # The watcher is set up before the first check, so that a change saved while that
        # check runs is seen (changes wait in the watcher until they are asked for).
        next(events)
        rerun(f"watching {root} for changes (Ctrl-C to stop)")
        for changes in events:
            if not changes:
                continue
            n = len({path for _, path in changes})
            rerun(f"{n} file{'s' if n != 1 else ''} changed; checking again (Ctrl-C to stop)")
    except KeyboardInterrupt:
        pass
    return 0

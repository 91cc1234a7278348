"""Scanning with every core (drift_check/parallel.py): forked workers give the facts one
process gives, and the repository knows what they read."""

from __future__ import annotations

import io
import os
import pickle
import re
import sys
import time
from pathlib import Path

import pytest

from drift_check import engine, parallel, scanners, wire
from drift_check.facts import Position
from drift_check.scanners.files import Repo
from tests.conftest import SHARED, tree_files, write_tree

pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or sys.platform != "linux", reason="workers are forked on Linux"
)


@pytest.fixture
def two_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes, and a worker for as little as one file."""
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    monkeypatch.setattr(parallel, "LEAST_PER_PART", 1)


def _slowly(work, pause: float = 0.05):  # type: ignore[no-untyped-def]
    """`work`, taking long enough for every process to take some of the items."""

    def slow(item):  # type: ignore[no-untyped-def]
        time.sleep(pause)
        return work(item)

    return slow


@pytest.mark.parametrize("budget", [None, 1])
def test_a_worker_reads_some_and_the_repository_learns_it(
    tmp_path: Path, two_jobs: None, budget: int | None
) -> None:
    """A worker of a small tree (all its texts held) sends the texts it read; a tree
    whose texts are held within a budget (one character here) gets none, and reads them
    here again when asked for, checked against their digest."""
    write_tree(tmp_path, {f"f{i}.md": f"text {i}\n" for i in range(6)})
    (tmp_path / "bin.md").write_bytes(b"\0\1\2")
    paths = [*(f"f{i}.md" for i in range(6)), "bin.md"]
    repo = Repo(str(tmp_path), budget=budget)
    repo.files()  # as discovery does: the tree's size says whether all its texts are held
    parent = os.getpid()

    def one(path: str) -> tuple[int, str | None]:
        source = repo.read(path)
        return os.getpid(), None if source is None else source.text.upper()

    found = parallel.map_files(_slowly(one), paths, repo)
    assert [text for _, text in found] == [*(f"TEXT {i}\n" for i in range(6)), None]
    by = {path: pid for path, (pid, _) in zip(paths, found, strict=True)}
    assert parent in by.values() and len(set(by.values())) == 2
    sources = repo.sources()
    assert sorted(sources) == [f"f{i}.md" for i in range(6)]
    theirs = [source for path, source in sources.items() if by[path] != parent]
    if budget is None:
        assert all(source.held for source in theirs)
    else:
        assert not any(source.held for source in theirs)
    assert all(source.text == f"text {path[1]}\n" for path, source in sources.items())
    assert [(p.position.path, p.message) for p in repo.problems] == [
        ("bin.md", "file contains NUL bytes (binary?); skipped")
    ]


def test_a_file_both_read_keeps_one_source_and_one_problem(tmp_path: Path, two_jobs: None) -> None:
    write_tree(tmp_path, {"a.md": "a\n", "shared.md": "s\n"})
    (tmp_path / "bad.md").write_bytes(b"\xff\n")
    repo = Repo(str(tmp_path))

    def one(path: str) -> tuple[int, tuple[str, ...]]:
        texts = tuple(s.text for p in (path, "shared.md", "bad.md") if (s := repo.read(p)))
        return os.getpid(), texts

    found = parallel.map_files(_slowly(one), ["a.md", "b"] * 4, repo)
    assert [texts for _, texts in found] == [("a\n", "s\n"), ("s\n",)] * 4
    assert len({pid for pid, _ in found}) == 2  # both read shared.md, bad.md and b
    assert sorted(p.position.path for p in repo.problems) == ["b", "bad.md"]
    assert repo.read("shared.md") is repo.sources()["shared.md"]


def test_a_worker_that_fails_leaves_its_part_to_this_process(
    tmp_path: Path, two_jobs: None
) -> None:
    parent = os.getpid()

    def one(item: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("a worker's failure")
        return item * 2

    assert parallel.map_files(one, list(range(5)), Repo(str(tmp_path))) == [0, 2, 4, 6, 8]


def test_one_job_or_a_short_list_stays_in_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = Repo(str(tmp_path))
    # the shipped thresholds, also under -p tests.force_parallel (which sets both to 1: two
    # items of 5 ms were too few for a worker to start before this process took both, and
    # a light list of 128 became long enough for a worker)
    monkeypatch.setattr(parallel, "LEAST_PER_PART", 64)
    monkeypatch.setattr(parallel, "LEAST_PER_LIGHT_PART", 1024)
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")
    assert set(parallel.map_files(lambda _: os.getpid(), list(range(500)), repo)) == {os.getpid()}
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    items = list(range(parallel.LEAST_PER_PART * 2 - 1))
    assert set(parallel.map_files(lambda _: os.getpid(), items, repo)) == {os.getpid()}
    pids = parallel.map_files(_slowly(lambda _: os.getpid(), 0.005), [*items, 0], repo)
    assert len(set(pids)) == 2
    light = [*items, 0]  # light work: a worker pays only for a longer list
    assert set(parallel.map_files(lambda _: os.getpid(), light, repo, light=True)) == {os.getpid()}


def test_jobs_come_from_the_cores_or_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "3")
    assert parallel.jobs() == 3
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "99")
    assert parallel.jobs() == parallel.MAX_JOBS
    for ignored in ("0", "two", ""):
        monkeypatch.setenv(parallel.JOBS_VARIABLE, ignored)
        assert parallel.jobs() == min(len(os.sched_getaffinity(0)), parallel.MAX_JOBS)


PLUGIN = {
    ".claude-plugin/marketplace.json": (
        '{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./plugins/p"}]}'
    ),
    "plugins/p/.claude-plugin/plugin.json": '{"name": "p"}',
    "plugins/p/agents/shared/voice.md": "## SHARED DONE\n",
}


def _tree(tmp_path: Path) -> Path:
    files = dict(PLUGIN)
    for i in range(12):
        files[f"plugins/p/agents/a{i}.md"] = (
            f"---\nname: a{i % 10}\ndescription: Does {i}.\ntools: Read, LS\n---\n"
            f"@plugins/p/agents/shared/voice.md\n"
            f"See [the guide](../skills/s{i}/SKILL.md#{'use' if i % 2 else 'gone'}).\n"
        )
        files[f"plugins/p/skills/s{i}/SKILL.md"] = (
            f"---\nname: s{i}\ndescription: Use when {i}: now\n---\n# Use\n\n"
            f"Run `scripts/run{i}.sh` and read reference.md.\n"
            f"Then [the steps](../s3/reference.md#{'ref' if i % 3 else 'gone'}).\n"
        )
        files[f"plugins/p/commands/c{i}.md"] = (
            f"---\nallowed-tools: [Bash, MultiEdit]\nargument-hint: [n]\n---\nDo {i}.\n"
        )
    files["plugins/p/skills/s3/reference.md"] = "# Ref\n"
    write_tree(tmp_path, files)
    (tmp_path / "plugins/p/commands/c5.md").write_bytes(b"\xfe\xff broken\n")
    # lines that end differently: a worker sends each line's ending with the source
    mixed = b"---\r\nallowed-tools: [Bash, MultiEdit]\nargument-hint: [n]\r\n---\nDo 11.\r\n"
    (tmp_path / "plugins/p/commands/c11.md").write_bytes(mixed)
    return tmp_path


def test_a_tree_checked_by_workers_gives_the_same_report(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    tree = str(_tree(tmp_path))
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")
    alone = cli(tree, "--format", "json")
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "3")
    monkeypatch.setattr(parallel, "LEAST_PER_PART", 2)
    monkeypatch.setattr(engine, "LEAST_SOURCES_FOR_PARTS", 1)  # the rules on 3 too
    forked = cli(tree, "--format", "json")
    codes = {f["code"] for f in alone.json()["findings"]}
    assert codes == {"DC001", "DC004", "DC606", "DC607", "DC611", "DC702", "DC703"}
    assert forked.code == alone.code == 1
    assert forked.out == alone.out
    assert forked.err == alone.err


def test_fixes_after_a_scan_by_workers_are_the_same(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    alone_tree = _tree(tmp_path / "alone")
    forked_tree = _tree(tmp_path / "forked")
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")
    monkeypatch.chdir(alone_tree)
    alone = cli(".", "--fix", "--unsafe-fixes", "--format", "json")
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    monkeypatch.setattr(parallel, "LEAST_PER_PART", 2)
    monkeypatch.chdir(forked_tree)
    forked = cli(".", "--fix", "--unsafe-fixes", "--format", "json")
    assert forked.out == alone.out and forked.code == alone.code
    written = {p.relative_to(alone_tree): p.read_bytes() for p in alone_tree.rglob("*.md")}
    assert written == {
        p.relative_to(forked_tree): p.read_bytes() for p in forked_tree.rglob("*.md")
    }
    command = b'---\r\nallowed-tools: [Bash, Edit]\nargument-hint: "[n]"\r\n---\nDo 11.\r\n'
    assert written[Path("plugins/p/commands/c11.md")] == command  # fixed by what a worker read
    assert b"description: 'Use when 10: now'" in written[Path("plugins/p/skills/s10/SKILL.md")]


def test_this_process_failing_stops_its_workers(
    tmp_path: Path, two_jobs: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    parent = os.getpid()
    started: list[int] = []

    def one(item: int) -> int:
        if os.getpid() == parent:
            raise KeyError(item)
        time.sleep(0.2)  # this process takes a batch and fails meanwhile
        return item

    real_start = parallel._start

    def start(*args, **options):  # type: ignore[no-untyped-def]
        worker = real_start(*args, **options)
        started.append(worker.pid)
        return worker

    monkeypatch.setattr(parallel, "_start", start)
    with pytest.raises(KeyError):
        parallel.map_files(one, [1, 2, 3, 4], Repo(str(tmp_path)))
    assert len(started) == 1
    with pytest.raises(ChildProcessError):  # reaped: no longer a child of this process
        os.waitpid(started[0], os.WNOHANG)


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(
    "tree",
    [
        pytest.param(EXAMPLES, id="examples"),
        pytest.param(
            SHARED / "corpora" / "gsd-build-bdcaab2",
            id="gsd-corpus",
            marks=[
                pytest.mark.slow,
                pytest.mark.skipif(not (SHARED / "corpora").is_dir(), reason="no ../shared"),
            ],
        ),
    ],
)
def test_contracts_found_by_workers_are_the_same(
    tree: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """A registry's markers searched for in consumers split between processes (and the
    agents, skills and commands read by them) give the report one process gives."""
    monkeypatch.chdir(tree)
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")
    alone = cli(".", "--format", "json")
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    monkeypatch.setattr(parallel, "LEAST_PER_PART", 1)
    forked = cli(".", "--format", "json")
    assert {f["code"] for f in alone.json()["findings"]} & {"DC301", "DC302", "DC303"}
    assert (forked.code, forked.out, forked.err) == (alone.code, alone.out, alone.err)


def test_a_worker_that_fails_after_sending_some_batches_leaves_them_all_here(
    tmp_path: Path, two_jobs: None
) -> None:
    """A worker writes each batch's results as it goes: one that dies later has all of its
    batches worked again here, the ones it sent too."""
    parent = os.getpid()
    calls = [0]

    def one(item: int) -> tuple[int, int]:
        if os.getpid() != parent:
            calls[0] += 1
            if calls[0] > 2:  # batches of one item: two sent, then the failure
                raise RuntimeError("a worker's failure")
        return item, os.getpid()

    found = parallel.map_files(_slowly(one, 0.01), list(range(40)), Repo(str(tmp_path)))
    assert found == [(item, parent) for item in range(40)]


def _taking_turns(folder: Path):  # type: ignore[no-untyped-def]
    """A step for each item of a map whose worker must have written two batches whole
    before this process works its first (so that this process has some to load early),
    and must wait from its third on until this process has (on a busy machine it could
    otherwise take every batch first). Marker files in `folder` say how far each is."""
    parent = os.getpid()
    worked = [0]  # the worker's own count (a copy of this list)
    went = folder / "parent-went"

    def turn(item: int) -> None:
        deadline = time.monotonic() + 10
        if os.getpid() != parent:
            (folder / f"done-{item}").touch()
            worked[0] += 1
            while worked[0] > 2 and not went.exists() and time.monotonic() < deadline:
                time.sleep(0.005)
        else:
            while len(list(folder.glob("done-*"))) < 2 and time.monotonic() < deadline:
                time.sleep(0.005)
            went.touch()

    return turn


def test_a_workers_batches_and_reads_are_loaded_here_while_it_works(
    tmp_path: Path, two_jobs: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This process loads the batches a worker has written whole, and what each of them
    read, between its own batches, not all at the end (when it would wait for the worker);
    the results come back in order, and the repository learns the reads as one, with the
    problems the worker met."""
    parent = os.getpid()
    monkeypatch.setattr(parallel, "BATCH", 1)
    write_tree(tmp_path, {f"f{i}.md": f"{i}\n" for i in range(40)})
    (tmp_path / "f7.md").write_bytes(b"\xff\n")  # not UTF-8: a problem, wherever it is read
    repo = Repo(str(tmp_path))
    repo.files()
    turn = _taking_turns(tmp_path)

    def one(item: int) -> tuple[int, int]:
        repo.read(f"f{item}.md")
        turn(item)
        return item, os.getpid()

    loaded_before_the_end: list[tuple[int, int]] = []
    finish = parallel._finish

    def recorded(worker, repo):  # type: ignore[no-untyped-def]
        loaded_before_the_end.append((len(worker.done), len(worker.reads)))
        return finish(worker, repo)

    monkeypatch.setattr(parallel, "_finish", recorded)
    found = parallel.map_files(one, list(range(40)), repo)
    assert [item for item, _ in found] == list(range(40))
    assert {pid for _, pid in found} - {parent}  # the worker took some
    assert loaded_before_the_end and min(loaded_before_the_end[0]) > 0
    assert sorted(repo.sources()) == sorted(f"f{i}.md" for i in range(40) if i != 7)
    assert [p.position.path for p in repo.problems] == ["f7.md"]


def test_a_tree_walked_by_two_processes_is_the_tree_one_walks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The top folders are walked here, the folders below them by whichever process takes
    them: the same files, ignored files, links, problems and choice to hold every text."""
    files: dict[str, str] = {".gitignore": "build/\n*.log\n", "README.md": "# r\n"}
    for i in range(12):
        files[f"plugins/p{i}/agents/a.md"] = f"a{i}\n"
        files[f"plugins/p{i}/build/out.md"] = "ignored\n"
        files[f"plugins/p{i}/skills/s/SKILL.md"] = "s\n" * i
        files[f"plugins/p{i}/notes.log"] = "ignored too\n"
        files[f"plugins/p{i}/.gitignore"] = "secret.md\n"
        files[f"plugins/p{i}/secret.md"] = "ignored here\n"
        files[f"plugins/p{i}/node_modules/x.md"] = "skipped\n"
    write_tree(tmp_path, files)
    (tmp_path / "plugins/p3/agents/link.md").symlink_to(tmp_path / "README.md")
    (tmp_path / "plugins/p4/agents/out.md").symlink_to("/etc/hostname")

    def walked(jobs: str, least: int) -> tuple[object, ...]:
        monkeypatch.setenv(parallel.JOBS_VARIABLE, jobs)
        monkeypatch.setattr(files_module, "LEAST_FOLDERS_TO_SHARE", least)
        repo = Repo(str(tmp_path), exclude=("plugins/p1/**",))
        return (
            repo.files(),
            sorted(repo.existing()),
            sorted(repo._links),
            sorted(repo._outside_links),
            sorted(repo.problems),
            repo.texts.hold_all,
        )

    from drift_check.scanners import files as files_module

    monkeypatch.setattr(parallel, "LEAST_PER_PART", 1)
    alone = walked("1", 1 << 30)
    shared = walked("2", 4)
    assert shared == alone
    assert "plugins/p3/agents/link.md" in alone[0] and "plugins/p0/build/out.md" not in alone[1]
    assert not [f for f in alone[0] if f.startswith("plugins/p1/")]  # excluded
    assert alone[3] == [("plugins/p4/agents/out.md", False)]
    monkeypatch.setattr(files_module, "TEXT_HOLD_ALL", 40)  # the texts now pass it
    assert walked("2", 4)[5] is walked("1", 1 << 30)[5] is False


def test_read_parts_merge_in_order() -> None:
    from drift_check.facts import InputProblem, Position
    from drift_check.scanners.files import Reads

    problem = InputProblem(Position("b.md", 1, 1), "read", "not UTF-8")
    parts = [
        Reads((("a.md", None),), (), frozenset({"a.md"})),
        Reads((("b.md", None), ("c.md", None)), (problem,), frozenset()),
        Reads((), (), frozenset({"c.md"})),
    ]
    merged = parallel._merged(parts)
    assert [path for path, _ in merged.files] == ["a.md", "b.md", "c.md"]
    assert merged.problems == (problem,)
    assert merged.naming_tool == {"a.md", "c.md"}


# names and citations for the by-name scans, beside each structured tree's own drift
NAMED = {
    "docs/handoff.md": (
        '# Hand-off\n\nLoad `Skill("no-such-skill")` first.\n\n'
        "This step is spawned by `ghost-orchestrator`.\n\n"
        "See tools/load.py::missing_loader and tools/load.py:2 (`load`).\n"
    ),
    "tools/load.py": "import json\n\n\ndef load(path):\n    return json.loads(path)\n",
}


@pytest.mark.parametrize("base", ["gaia-states", "contract-skills", "envelope"])
@pytest.mark.parametrize("apart", ["after the file scans", "from the start"])
def test_structured_and_by_name_scans_by_workers_are_the_same(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch, base: str, apart: str
) -> None:  # type: ignore[no-untyped-def]
    """Blocks, vocabularies, names and citations found where workers took some of the
    Markdown files, or where a copy made the by-name scans while this process scanned the
    files (a small tree's way), give the report one process gives."""
    write_tree(tmp_path, tree_files(base, NAMED))  # type: ignore[arg-type]
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")
    alone = cli(str(tmp_path), "--format", "json")
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    if apart == "after the file scans":  # a large tree's way
        monkeypatch.setattr(parallel, "LEAST_PER_PART", 1)
        monkeypatch.setattr(parallel, "LEAST_PER_LIGHT_PART", 1)
        monkeypatch.setattr(engine, "LEAST_SOURCES_FOR_PARTS", 1)
        monkeypatch.setattr(scanners, "LEAST_FILES_FOR_BACKGROUND", 1)
    else:
        monkeypatch.setattr(scanners, "LEAST_FILES_FOR_BACKGROUND", 1000)
        monkeypatch.setattr(scanners, "LEAST_MARKDOWN_FOR_EARLY", 1)
        monkeypatch.setattr(scanners, "LEAST_SCANS_FOR_EARLY", 0)
    started = parallel.counts["started"]
    forked = cli(str(tmp_path), "--format", "json")
    assert parallel.counts["started"] > started
    codes = {f["code"] for f in alone.json()["findings"]}
    assert {"DC960", "DC961", "DC962"} <= codes and any(c.startswith("DC95") for c in codes)
    assert (forked.code, forked.out, forked.err) == (alone.code, alone.out, alone.err)


def _shares(monkeypatch: pytest.MonkeyPatch, seen: list[str]) -> None:
    """Record in `seen` each copy `parallel.share` is asked for, with its first batch."""
    share = parallel.share

    def sharing(work, batches, repo):  # type: ignore[no-untyped-def]
        seen.append(f"share from {batches[0]}")
        return share(work, batches, repo)

    monkeypatch.setattr(parallel, "share", sharing)


@pytest.mark.parametrize(
    ("least_files", "per_part", "scan", "shared"),
    [  # a small tree's copy starts before its file scans, a large tree's after them, but
        # where its files to scan are too few for a worker
        (1000, 64, "_scan_files", "share from ['vocabularies']"),
        (1, 1, "_scan_consumers", "share from [None]"),
        (1, 64, "_scan_files", "share from ['vocabularies']"),
    ],
)
def test_the_by_name_copy_runs_beside_this_processs_scans_and_stops_on_a_failure(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    least_files: int,
    per_part: int,
    scan: str,
    shared: str,
) -> None:
    """The copy that makes the by-name scans is started before the scan named here, which
    then runs on one core, and is stopped when a scan fails: no core stays held by it."""
    from drift_check.config import load_config

    write_tree(tmp_path, tree_files("gaia-states", NAMED))  # type: ignore[arg-type]
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    monkeypatch.setattr(scanners, "LEAST_FILES_FOR_BACKGROUND", least_files)
    monkeypatch.setattr(parallel, "LEAST_PER_PART", per_part)
    monkeypatch.setattr(scanners, "LEAST_MARKDOWN_FOR_EARLY", 1)
    monkeypatch.setattr(scanners, "LEAST_SCANS_FOR_EARLY", 0)
    seen: list[str] = []
    _shares(monkeypatch, seen)
    scanned = getattr(scanners, scan)

    def scanning(*args):  # type: ignore[no-untyped-def]
        seen.append(f"{scan} on {parallel._free()} core")
        return scanned(*args)

    monkeypatch.setattr(scanners, scan, scanning)
    facts = engine.scan(load_config(str(tmp_path)))
    assert seen == [shared, f"{scan} on 1 core"]
    assert facts.vocabularies and facts.name_references
    assert parallel._busy == 0  # the copy's core is given back

    def failing(*args):  # type: ignore[no-untyped-def]
        raise RuntimeError("a scan failed")

    monkeypatch.setattr(scanners, scan, failing)
    with pytest.raises(RuntimeError):
        engine.scan(load_config(str(tmp_path)))
    assert parallel._busy == 0 and parallel._free() == 2


@pytest.mark.parametrize(
    ("more_bytes", "more_scans", "early"), [(0, 0, True), (1, 0, False), (0, 1, False)]
)
def test_the_copy_starts_before_the_file_scans_only_for_markdown_and_scans_enough(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, more_bytes: int, more_scans: int, early: bool
) -> None:
    """The by-name scans start in a copy before the file scans where the tree's Markdown
    takes `LEAST_MARKDOWN_FOR_EARLY` bytes or more and this process has
    `LEAST_SCANS_FOR_EARLY` agents, skills and commands or more to scan meanwhile."""
    from drift_check.config import load_config

    files = {f"docs/d{i}.md": "x" * 1000 + "\n" for i in range(4)}
    files |= {f"agents/a{i}.md": f"---\nname: a{i}\ndescription: A.\n---\n" for i in range(2)}
    files["commands/c.md"] = "---\ndescription: C.\n---\n"
    write_tree(tmp_path, files)
    size = sum(len(text) for path, text in files.items() if path.endswith(".md"))
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    monkeypatch.setattr(scanners, "LEAST_FILES_FOR_BACKGROUND", 1000)
    monkeypatch.setattr(scanners, "LEAST_MARKDOWN_FOR_EARLY", size + more_bytes)
    monkeypatch.setattr(scanners, "LEAST_SCANS_FOR_EARLY", 3 + more_scans)
    seen: list[str] = []
    _shares(monkeypatch, seen)
    engine.scan(load_config(str(tmp_path)))
    assert seen == (["share from ['vocabularies']"] if early else [])


@pytest.mark.parametrize("base", ["envelope", "contract-skills", "skills-package"])
def test_a_tree_without_markdown_searches_by_name_only_where_something_can_be_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str
) -> None:
    """Without Markdown, a tree's schemas still define vocabularies (the by-name scans
    run); a tree with neither Markdown nor schemas skips them."""
    from drift_check.config import load_config
    from drift_check.scanners import vocabulary

    files = {k: v for k, v in tree_files(base, None).items() if not k.endswith(".md")}
    write_tree(tmp_path, files)  # type: ignore[arg-type]
    assert engine.scan(load_config(str(tmp_path))).vocabularies
    plain = tmp_path / "plain"
    write_tree(plain, {"hooks/x.py": "X = 1\n", "data.json": "{}\n", "notes.txt": "x\n"})

    def refused(*args):  # type: ignore[no-untyped-def]
        raise AssertionError("searched a tree where nothing can be named")

    monkeypatch.setattr(vocabulary, "find_vocabularies", refused)
    assert engine.scan(load_config(str(plain))).vocabularies == ()


@pytest.mark.parametrize("base", ["gaia-states", "contract-skills", "envelope", "claude-code"])
def test_the_files_scanned_for_blocks_are_those_the_component_scans_read_at_any_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base: str
) -> None:
    """Without a schema for it, a JSON block is scanned only in files a component scan
    read: a document that only the name-uses search reads (it reads every Markdown file)
    adds none, whether the tree is scanned as a small one, with the by-name copy started
    early, or as a large one."""
    from drift_check.config import load_config

    extra = {
        "notes/aside.md": '# Aside\n\n```json:contract\n{"status": "ok",}\n```\n',
        # a skill named unlike its folder: the name-uses search then reads every document
        "skills/odd-folder/SKILL.md": "---\nname: odd-name\ndescription: Odd one.\n---\n\n# Odd\n",
    }
    write_tree(tmp_path, tree_files(base, {**NAMED, **extra}))  # type: ignore[arg-type]
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    found = []
    for least_files, least_markdown in ((1000, 1 << 40), (1000, 1), (1, 1 << 40)):
        monkeypatch.setattr(scanners, "LEAST_FILES_FOR_BACKGROUND", least_files)
        monkeypatch.setattr(scanners, "LEAST_MARKDOWN_FOR_EARLY", least_markdown)
        monkeypatch.setattr(scanners, "LEAST_SCANS_FOR_EARLY", 0)
        facts = engine.scan(load_config(str(tmp_path)))
        found.append(sorted(b.path for b in facts.structured.blocks))
    assert found[0] == found[1] == found[2]


def test_results_naming_anything_but_records_are_refused(tmp_path: Path) -> None:
    """The loader of a worker's results makes the package's records and dates only."""
    repo = Repo(str(tmp_path))
    position = Position("a.md", 1, 2)
    out = io.BytesIO()
    wire.pickler(out).dump(([position], None))
    assert wire.Receiver(out.getvalue(), repo).load() == ([position], None)
    for hostile in (os.system, print, parallel.map_files):
        with pytest.raises(pickle.UnpicklingError):
            wire.Receiver(pickle.dumps(hostile), repo).load()


def test_batch_numbers_that_do_not_fit_the_pipe_leave_the_work_here(tmp_path: Path) -> None:
    """A pipe of one page (a user over the kernel's pipe quota) takes 2,048 numbers: more
    would wait for ever for a reader, so this process works alone."""
    import fcntl

    take, give = os.pipe()
    fcntl.fcntl(give, fcntl.F_SETPIPE_SZ, 4096)
    try:
        assert not parallel._hand_out(give, 4000)
    finally:
        os.close(take)
    take, give = os.pipe()
    try:
        assert parallel._hand_out(give, 3)
        assert os.read(take, 100) == b"\0\0\0\1\0\2"
    finally:
        os.close(take)


def test_units_are_shared_out_and_come_back_in_order(two_jobs: None) -> None:
    found = parallel.map_units(_slowly(lambda unit: (unit, os.getpid())), list(range(6)))
    assert [unit for unit, _ in found] == list(range(6))
    assert len({pid for _, pid in found}) == 2  # each process took some


def test_rules_sharing_a_cache_are_one_unit_the_costliest_first(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, tree_files("contract-skills", NAMED))  # type: ignore[arg-type]
    units: list[list[str]] = []

    def recorded(work, given):  # type: ignore[no-untyped-def]
        units.extend([r.code for r in unit] for unit in given)
        return [work(unit) for unit in given]

    monkeypatch.setattr(parallel, "map_units", recorded)
    monkeypatch.setattr(engine, "LEAST_SOURCES_FOR_PARTS", 1)
    assert cli(str(tmp_path), "--format", "json").code == 1
    assert ["DC923", "DC924", "DC925"] in units
    assert units[0] == ["DC923", "DC924", "DC925"]
    assert units[1] == ["DC920", "DC921"]  # one jsonschema-rs import, one portability each
    assert units[2] == ["DC706"]
    assert sum(len(u) for u in units) == len({c for u in units for c in u})  # each rule once


def test_a_shared_copy_holds_a_core_and_a_file_read_here_meanwhile_stays_this_ones(
    tmp_path: Path, two_jobs: None
) -> None:
    """While the copy works, this process's scans take one core fewer; a file both read
    keeps this process's source, and the problems the copy met are learned."""
    write_tree(tmp_path, {"a.md": "a\n", "b.md": "b\n"})
    (tmp_path / "bad.md").write_bytes(b"\xff\n")
    repo = Repo(str(tmp_path))
    repo.files()

    def work(_: None) -> tuple[int, list[str]]:
        texts = [s.text for p in ("a.md", "b.md", "bad.md") if (s := repo.read(p))]
        return os.getpid(), texts

    shared = parallel.share(work, [[None]], repo)
    assert set(parallel.map_files(lambda _: os.getpid(), list(range(50)), repo)) == {os.getpid()}
    mine = repo.read("a.md")
    [[(_, texts)]] = shared.finish()
    assert texts == ["a\n", "b\n"]
    assert sorted(repo.sources()) == ["a.md", "b.md"] and repo.sources()["a.md"] is mine
    assert [p.position.path for p in repo.problems] == ["bad.md"]
    assert len(set(parallel.map_files(_slowly(lambda _: os.getpid()), list(range(8)), repo))) == 2


def test_an_abandoned_shared_copy_is_stopped(tmp_path: Path, two_jobs: None) -> None:
    shared = parallel.share(lambda _: time.sleep(30), [[None]], Repo(str(tmp_path)))
    assert shared._worker is not None
    pid = shared._worker.pid
    shared.abandon()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # stopped and reaped
    assert parallel._free() == 2


def test_shared_batches_are_worked_on_both_sides_and_come_back_in_order(
    tmp_path: Path, two_jobs: None
) -> None:
    """The copy takes the first batch (its own work), this process the batches left when
    it is ready; the results come back in order, and the repository learns what the copy
    read, without its text (this process reads it again if it must)."""
    write_tree(tmp_path, {"x.md": "x\n", **{f"{i}.md": f"{i}\n" for i in range(4)}})
    marker = tmp_path / "copy-started"
    repo = Repo(str(tmp_path))
    repo.files()
    parent = os.getpid()

    def work(item: str | None) -> tuple[str, bool]:
        if item is None:
            marker.write_text("")
            source = repo.read("x.md")
            return (source.text if source else "", os.getpid() == parent)
        source = repo.read(item)
        return (source.text if source else "", os.getpid() == parent)

    shared = parallel.share(work, [[None], ["0.md", "1.md"], ["2.md"], ["3.md"]], repo)
    assert parallel._free() == 1  # the copy holds a core
    for _ in range(500):
        if marker.exists():
            break
        time.sleep(0.01)
    shared.work_here()
    results = shared.finish()
    assert parallel._free() == 2
    assert results[0] == [("x\n", False)]
    assert [text for batch in results[1:] for text, _ in batch] == ["0\n", "1\n", "2\n", "3\n"]
    copied = repo.sources()["x.md"]
    assert not copied.held and copied.text == "x\n"


def test_shared_batches_a_failed_copy_took_are_worked_here(tmp_path: Path, two_jobs: None) -> None:
    parent = os.getpid()

    def work(item: int) -> int:
        if os.getpid() != parent:
            raise RuntimeError("the copy's failure")
        return item * 2

    shared = parallel.share(work, [[1], [2, 3]], Repo(str(tmp_path)))
    assert shared.finish() == [[2], [4, 6]]
    assert parallel._free() == 2


def test_shared_batches_without_a_free_core_are_all_worked_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")
    pids: list[int] = []
    repo = Repo(str(tmp_path))
    shared = parallel.share(lambda i: pids.append(os.getpid()) or i, [[1], [2]], repo)
    assert pids == []
    assert shared.finish() == [[1], [2]] and set(pids) == {os.getpid()}


def test_rules_run_by_a_worker_send_their_fixes(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """A fix whose edits are worked out when asked (a function, which cannot be sent) comes
    back from a worker with its edits worked out there: the worker's units are not redone
    here, and `--diff` shows what one process shows."""
    tree = str(_tree(tmp_path))
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")
    alone = cli(tree, "--diff", "--unsafe-fixes")
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    monkeypatch.setattr(engine, "LEAST_SOURCES_FOR_PARTS", 1)
    finished: list[object] = []
    finish = parallel._finish

    def recorded(worker, repo):  # type: ignore[no-untyped-def]
        found = finish(worker, repo)
        finished.append(found)
        return found

    monkeypatch.setattr(parallel, "_finish", recorded)
    parent, claims = os.getpid(), parallel._claims
    # the worker takes every unit (and batch): this process takes none
    monkeypatch.setattr(
        parallel, "_claims", lambda take: claims(take) if os.getpid() != parent else iter(())
    )
    forked = cli(tree, "--diff", "--unsafe-fixes")
    assert "+description: 'Use when 10: now'" in alone.out
    assert (forked.code, forked.out) == (alone.code, alone.out)
    assert finished and None not in finished  # every worker's results were taken


def test_verbose_says_how_many_workers_ran_and_were_redone(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    tree = str(_tree(tmp_path))
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    monkeypatch.setattr(parallel, "LEAST_PER_PART", 2)
    ran = cli(tree, "--verbose")
    assert re.search(r"^drift-check: workers: [1-9]\d* started, 0 redone here$", ran.err, re.M)
    parent, start = os.getpid(), parallel._start

    def failing(work, batches, take, repo, **options):  # type: ignore[no-untyped-def]
        def fail(item):  # type: ignore[no-untyped-def]
            if os.getpid() != parent:
                raise RuntimeError("a worker's failure")
            return work(item)

        return start(fail, batches, take, repo, **options)

    monkeypatch.setattr(parallel, "_start", failing)
    again = cli(tree, "--verbose")
    counts = re.search(r"^drift-check: workers: (\d+) started, (\d+) redone here$", again.err, re.M)
    # every worker that took work failed and was redone; one that found every batch taken
    # (a short list, as under -p tests.force_parallel) failed at nothing and is not
    assert counts is not None and 0 < int(counts.group(2)) <= int(counts.group(1))
    assert again.out == ran.out
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")
    assert "workers:" not in cli(tree, "--verbose").err  # none started


def test_the_validators_blocks_claim_are_made_while_a_copy_finds_the_vocabularies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the vocabularies are found in a forked copy, this process makes the
    jsonschema-rs validators of the schemas that blocks claim meanwhile, once each: the
    facts' checker holds them (and no other) before any rule asks."""
    from drift_check.config import load_config

    unclaimed = {"docs/unclaimed.schema.json": '{"type": "object", "required": ["id"]}\n'}
    write_tree(tmp_path, tree_files("contract-skills", unclaimed))  # type: ignore[arg-type]
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    monkeypatch.setattr(scanners, "LEAST_FILES_FOR_BACKGROUND", 1)
    facts = engine.scan(load_config(str(tmp_path)))
    claimed = {b.schema for b in facts.structured.blocks if b.value is not None}
    assert facts.contracts is not None and claimed and None not in claimed
    assert set(facts.structured.schemas) - claimed  # a schema no block claims: not made
    made = facts.contracts._quick
    assert {path for path, _ in made} == claimed and all(pointer == "" for _, pointer in made)
    assert all(made[path, ""] is not None for path in claimed)
    # what the rules ask next is the validator made: none is compiled again
    path = sorted(claimed)[0]
    assert facts.contracts._quick_validator(path) is made[path, ""]

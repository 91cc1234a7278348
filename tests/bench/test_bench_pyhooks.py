"""The benchmark's Gaia-style hooks tree holds what the generator says, its hooks are real
Python whose strings consume the markers, and without the registry nothing parses them.

Not a timing test: the benchmark itself is `bench/run.py --suite python`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.bench import bench_module, digest


def test_twelve_hooks_hold_what_the_generator_says(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    pyhooks = bench_module("pyhooks")
    root = tmp_path / "t"
    made = pyhooks.generate_hooks_tree(root, 12, seed=1)
    hooks = sorted(root.glob("hooks/**/*.py"))
    assert made.hook_files == len(hooks) == 12
    assert sum(1 for p in root.rglob("*") if p.is_file()) == made.files
    texts = [h.read_text(encoding="utf-8") for h in hooks]
    assert sum(t.count("\n") for t in texts) == made.python_lines
    for text in texts:
        ast.parse(text)  # Python 3.11's syntax: no 3.12 f-string, so no fallback is timed
    lines = [line for t in texts for line in t.split("\n")]
    assert sum(not line.isascii() for line in lines) > len(lines) // 10

    data = cli(str(root), "-q", "--format", "json").json()
    assert data["summary"]["consumer_files"] == 12 + 8  # the hooks and the agents
    codes = {f["code"] for f in data["findings"]}
    assert {"DC301", "DC302"} <= codes
    (case_only,) = (f for f in data["findings"] if f["code"] == "DC302")
    assert "(at hooks/" in case_only["message"]  # found in a hook's literal

    again = tmp_path / "again"
    pyhooks.generate_hooks_tree(again, 12, seed=1)
    assert digest(again) == digest(root)


def test_without_the_registry_no_hook_is_parsed(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "t"
    bench_module("pyhooks").generate_hooks_tree(root, 12, seed=1, registry=False)

    def parse(*args: object) -> None:
        raise AssertionError("a hook was parsed")

    monkeypatch.setattr("drift_check.scanners.consumers.python_literals", parse)
    run = cli(str(root), "-q", "--format", "json")
    assert run.code == 0, run.err
    assert run.json()["summary"]["consumer_files"] == 12 + 8

"""The benchmark's marketplace generator writes what it claims, and discovery finds it all.

Not a timing test: the benchmark itself is `bench/run.py --suite marketplace`.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.bench import bench_module, digest


def test_three_plugins_hold_what_the_generator_says(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    marketplace = bench_module("marketplace")
    root = tmp_path / "m"
    counts = marketplace.generate_marketplace(root, 3, seed=1)
    assert (counts.plugins, counts.agents, counts.skills, counts.commands) == (3, 30, 30, 30)
    assert counts.hook_files == 1

    # counted again from the disk, not from the generator's own bookkeeping
    listed = json.loads((root / ".claude-plugin/marketplace.json").read_text(encoding="utf-8"))
    sources = [p["source"] for p in listed["plugins"]]
    assert len(sources) == 3 and all(
        (root / s / ".claude-plugin/plugin.json").is_file() for s in sources
    )
    assert len(list(root.glob("*/agents/*.md"))) == 30
    assert len(list(root.glob("*/skills/*/SKILL.md"))) == 30
    assert len(list(root.glob("*/commands/*.md"))) == 30
    hooks = list(root.glob("*/hooks/hooks.json"))
    assert len(hooks) == 1
    command = json.loads(hooks[0].read_text(encoding="utf-8"))["hooks"]["PreToolUse"][0]
    script = command["hooks"][0]["command"].split("${CLAUDE_PLUGIN_ROOT}/", 1)[1]
    assert (hooks[0].parent.parent / script).is_file()
    assert sum(1 for p in root.rglob("*") if p.is_file()) == counts.files

    found = cli(str(root), "-q", "--format", "json").json()["summary"]["components"]
    assert found == {
        "plugins": 3,
        "agents": 30,
        "skills": 30,
        "commands": 30,
        "hook_files": 1,
        "MCP_files": 0,
        "memory_files": 0,
    }


def test_the_same_seed_writes_the_same_bytes(tmp_path: Path) -> None:
    marketplace = bench_module("marketplace")
    marketplace.generate_marketplace(tmp_path / "a", 2, seed=7)
    marketplace.generate_marketplace(tmp_path / "b", 2, seed=7)
    marketplace.generate_marketplace(tmp_path / "c", 2, seed=8)
    assert digest(tmp_path / "a") == digest(tmp_path / "b") != digest(tmp_path / "c")

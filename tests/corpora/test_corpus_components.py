"""Zero config on the real corpora in ../shared/corpora (skipped when absent): discovery
finds every agent, skill, command, hook file and manifest, checked against counts made
here another way: from the manifests themselves, and by walking the folders."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import SHARED

CORPORA = SHARED / "corpora"
LAURIGATES = CORPORA / "laurigates-claude-plugins-d687dc39"
VOLTAGENT = CORPORA / "voltagent-subagents-c9e51ec"
SUPERPOWERS = CORPORA / "superpowers-44c9b2d6"

pytestmark = [
    pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared corpora not present"),
    pytest.mark.slow,  # the real corpora
]


def _walk(root: Path) -> list[str]:
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        rel = os.path.relpath(folder, root).replace(os.sep, "/")
        out += [f if rel == "." else f"{rel}/{f}" for f in files]
    return out


def _components(cli, root: Path) -> dict[str, int]:  # type: ignore[no-untyped-def]
    run = cli(str(root), "--format", "json", "-q")
    assert run.code in (0, 1), run.err
    return dict(run.json()["summary"]["components"])


def test_the_marketplace_of_top_level_plugin_folders(cli) -> None:  # type: ignore[no-untyped-def]
    market = json.loads((LAURIGATES / ".claude-plugin/marketplace.json").read_text())
    sources = [p["source"].removeprefix("./") for p in market["plugins"]]
    files = _walk(LAURIGATES)
    agents = [f for f in files if f.split("/")[0] in sources and f.split("/")[1:2] == ["agents"]]
    # every SKILL.md, less the broken-on-purpose ones of a test fixture marketplace
    skills = [f for f in files if f.endswith("/SKILL.md") and "/fixtures/" not in f]
    hooks = []
    for source in sources:
        manifest = json.loads((LAURIGATES / source / ".claude-plugin/plugin.json").read_text())
        if isinstance(manifest.get("hooks"), str):
            hooks.append(manifest["hooks"])
    settings = json.loads((LAURIGATES / ".claude/settings.json").read_text())
    memory = [f for f in files if f.endswith("CLAUDE.md") and "/templates/" not in f]
    memory += [f for f in files if f.startswith(".claude/rules/") and f.endswith(".md")]
    assert _components(cli, LAURIGATES) == {
        "plugins": len(sources),
        "agents": len(agents),
        "skills": len(skills),
        "commands": 0,
        "hook_files": len(hooks) + ("hooks" in settings),
        "MCP_files": 1,
        "memory_files": len(memory),
    }
    assert (len(sources), len(agents), len(skills)) == (44, 21, 421)


def test_the_marketplace_whose_manifests_list_their_agents(cli) -> None:  # type: ignore[no-untyped-def]
    market = json.loads((VOLTAGENT / ".claude-plugin/marketplace.json").read_text())
    listed = 0
    for plugin in market["plugins"]:
        manifest = VOLTAGENT / plugin["source"] / ".claude-plugin/plugin.json"
        listed += len(json.loads(manifest.read_text())["agents"])
    assert _components(cli, VOLTAGENT) == {
        "plugins": len(market["plugins"]),
        "agents": listed,
        "skills": 0,
        "commands": 0,
        "hook_files": 0,
        "MCP_files": 0,
        "memory_files": 1,
    }
    assert listed == 157


def test_the_skills_plugin_published_for_several_hosts(cli) -> None:  # type: ignore[no-untyped-def]
    files = _walk(SUPERPOWERS)
    skills = [f for f in files if f.startswith("skills/") and f.endswith("/SKILL.md")]
    assert _components(cli, SUPERPOWERS) == {
        "plugins": 1,
        "agents": 0,
        "skills": len(skills),
        "commands": 0,
        "hook_files": 1,  # hooks/hooks.json; hooks-cursor.json is Cursor's
        "MCP_files": 0,
        "memory_files": 3,  # CLAUDE.md, AGENTS.md, GEMINI.md
    }
    assert len(skills) == 14

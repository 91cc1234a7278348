"""Manifests found by name (scanners/manifests.py): the plugin model discovery builds on, the
script a hook command runs, suppressing findings in JSON files, and the real corpora.

The rules' own cases are data in tests/fixtures/rules/DC007.yaml and DC110-DC121.yaml.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from drift_check.discovery import DISCOVERY_SKIP
from drift_check.facts import Manifests, Position
from drift_check.scanners.files import SKIPPED_DIRS, Repo
from drift_check.scanners.manifests import scan_manifests, script_word
from tests.conftest import SHARED, write_tree

MARKETPLACE = {
    ".claude-plugin/marketplace.json": json.dumps(
        {
            "name": "tools",
            "owner": {"name": "Dev"},
            "metadata": {"pluginRoot": "./plugins"},
            "plugins": [
                {"name": "fmt", "source": "./categories/fmt"},
                {"name": "lint", "source": "lint", "agents": ["./reviewer.md"]},
                {"name": "remote", "source": {"source": "github", "repo": "o/remote"}},
            ],
        },
        indent=2,
    ),
    "categories/fmt/.claude-plugin/plugin.json": json.dumps(
        {"name": "fmt", "agents": ["./a.md", "./b.md"], "hooks": "./hooks.json"}, indent=2
    ),
    "categories/fmt/hooks.json": json.dumps(
        {
            "hooks": {
                "Stop": [
                    {
                        "hooks": [
                            {"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/stop.sh"}
                        ]
                    }
                ]
            }
        }
    ),
    "plugins/lint/hooks/hooks.json": '{"hooks": {}}',
    "plugins/lint/reviewer.md": "# reviewer\n",
    "app/.claude/settings.json": json.dumps(
        {
            "hooks": {
                "SessionStart": [
                    {"hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/s.sh"}]}
                ]
            }
        }
    ),
    "app/.mcp.json": '{"mcpServers": {}}',
    "node_modules/x/.claude-plugin/plugin.json": '{"name": "vendored"}',
}


def _scan(root: Path, skip: tuple[str, ...] = ()) -> tuple[Manifests, list[object]]:
    problems: list[object] = []
    return scan_manifests(Repo(str(root)), problems, skip), problems  # type: ignore[arg-type]


def test_the_plugin_model_discovery_reads(tmp_path: Path) -> None:
    manifests, problems = _scan(write_tree(tmp_path, MARKETPLACE))
    assert problems == []
    plugins = {p.root: p for p in manifests.plugins}
    # roots: where a manifest is, and where a relative source points (pluginRoot applied);
    # skipped folders are never read
    assert sorted(plugins) == ["categories/fmt", "plugins/lint"]
    fmt = plugins["categories/fmt"]
    assert fmt.manifest == "categories/fmt/.claude-plugin/plugin.json"
    assert fmt.name is not None and fmt.name.name == "fmt"
    assert [(c.key, c.written, c.resolved, c.position.line) for c in fmt.components] == [
        ("agents", "./a.md", "categories/fmt/a.md", 4),
        ("agents", "./b.md", "categories/fmt/b.md", 5),
        ("hooks", "./hooks.json", "categories/fmt/hooks.json", 7),
    ]
    assert plugins["plugins/lint"].manifest is None
    (market,) = manifests.marketplaces
    assert market.root == ""
    entries = [(e.name.name if e.name else None, e.source_kind, e.root) for e in market.entries]
    assert entries == [
        ("fmt", "path", "categories/fmt"),
        ("lint", "path", "plugins/lint"),
        ("remote", "object", None),
    ]
    lint = market.entries[1]
    assert [(c.key, c.resolved) for c in lint.components] == [
        ("agents", "plugins/lint/reviewer.md")
    ]
    assert lint.source == ("lint", Position(".claude-plugin/marketplace.json", 16, 17))
    hooks = {h.path: h for h in manifests.hooks}
    assert sorted(hooks) == [
        "app/.claude/settings.json",
        "categories/fmt/hooks.json",
        "plugins/lint/hooks/hooks.json",
    ]
    (stop,) = hooks["categories/fmt/hooks.json"].commands
    assert (stop.event, stop.written, stop.script) == (
        "Stop",
        "${CLAUDE_PLUGIN_ROOT}/stop.sh",
        "categories/fmt/stop.sh",
    )
    (start,) = hooks["app/.claude/settings.json"].commands
    assert start.script == "app/s.sh" and hooks["app/.claude/settings.json"].project_dir == "app"
    assert manifests.mcp_files == ("app/.mcp.json",)
    assert manifests.settings_files == ("app/.claude/settings.json",)


@pytest.mark.parametrize(
    ("command", "word"),
    [
        ("${CLAUDE_PLUGIN_ROOT}/hooks/x.sh", "${CLAUDE_PLUGIN_ROOT}/hooks/x.sh"),
        (
            '"${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd" session-start',
            "${CLAUDE_PLUGIN_ROOT}/hooks/run-hook.cmd",
        ),
        ('bash "$CLAUDE_PROJECT_DIR/scripts/a b.sh"', "$CLAUDE_PROJECT_DIR/scripts/a b.sh"),
        ('node "$CLAUDE_PROJECT_DIR"/.claude/hooks/x.js', "$CLAUDE_PROJECT_DIR/.claude/hooks/x.js"),
        ("FOO=1 python3 -u $CLAUDE_PLUGIN_ROOT/x.py 2>/dev/null", "$CLAUDE_PLUGIN_ROOT/x.py"),
        ("/usr/bin/env -S python3.12 ${CLAUDE_PLUGIN_ROOT}/x.py", "${CLAUDE_PLUGIN_ROOT}/x.py"),
        ("uv run ${CLAUDE_PLUGIN_ROOT}/x.py", "${CLAUDE_PLUGIN_ROOT}/x.py"),
        ("${CLAUDE_PLUGIN_ROOT}/x.sh; echo done", "${CLAUDE_PLUGIN_ROOT}/x.sh"),
        ("${CLAUDE_PLUGIN_ROOT}/x.sh>out", "${CLAUDE_PLUGIN_ROOT}/x.sh"),
        ("echo hello", None),
        ("npx prettier --write ${CLAUDE_PLUGIN_ROOT}", None),
        ("bash -c '${CLAUDE_PLUGIN_ROOT}/x.sh'", None),
        ("python3 -m tool ${CLAUDE_PLUGIN_ROOT}/x.py", None),
        ("${CLAUDE_PLUGIN_ROOT}/hooks/$NAME.sh", None),
        ("${CLAUDE_PLUGIN_ROOT}/hooks/*.sh", None),
        ("$CLAUDE_PLUGIN_ROOTS/x.sh", None),
        ("~/.claude/hooks/x.sh", None),
        ("test -f x && bash ${CLAUDE_PLUGIN_ROOT}/y.sh", None),
        ("bash 'unbalanced ${CLAUDE_PLUGIN_ROOT}", None),
        ("bash ${CLAUDE_PLUGIN_ROOT}/" + "a" * 8200, None),  # longer than any real command
    ],
)
def test_the_script_a_command_runs(command: str, word: str | None) -> None:
    assert script_word(command) == word


def test_json_findings_are_silenced_by_per_file_ignores_not_by_comments(
    tmp_path: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    # JSON has no comments: a directive written in a string is text, and suppresses nothing
    root = write_tree(
        tmp_path,
        {
            ".claude-plugin/plugin.json": '{"x": "<!-- drift-check: ignore[DC110] -->"}\n',
            "examples/broken/.mcp.json": '{"servers": {}}\n',
        },
    )
    run = cli(str(root), "--format", "json", "-q", "--select", "DC1,DC010")
    found = [(f["code"], f["path"]) for f in run.json()["findings"]]
    assert found == [
        ("DC110", ".claude-plugin/plugin.json"),
        ("DC120", "examples/broken/.mcp.json"),
    ]
    ignores = '  "examples/**": [DC120]\n  ".claude-plugin/plugin.json": [DC110]\n'
    (root / ".drift-check.yaml").write_text(
        f"preset: claude-code\nper-file-ignores:\n{ignores}", encoding="utf-8"
    )
    run = cli(str(root), "--format", "json", "-q", "--select", "DC1,DC010")
    assert run.json()["findings"] == [] and run.code == 0


def test_a_baseline_records_json_findings_by_content(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    hooks = '{"hooks": {\n  "sessionStart": [],\n  "Stop": []\n}}\n'
    root = write_tree(
        tmp_path, {".claude-plugin/plugin.json": '{"name": "fmt"}\n', "hooks/hooks.json": hooks}
    )
    baseline = tmp_path / "baseline.json"
    assert cli(str(root), "--baseline-write", str(baseline), "-q").code == 0
    assert '"code": "DC118"' in baseline.read_text(encoding="utf-8")
    assert cli(str(root), "--baseline", str(baseline), "-q").code == 0
    # lines added above the recorded finding do not break the baseline; a new one is reported
    (root / "hooks/hooks.json").write_text(
        '{"description": "x",\n"hooks": {\n  "sessionStart": [],\n  "stop": []\n}}\n',
        encoding="utf-8",
    )
    run = cli(str(root), "--baseline", str(baseline), "--format", "json", "-q")
    assert [(f["code"], f["line"]) for f in run.json()["findings"]] == [("DC118", 4)]


FIXTURE_FOLDERS = frozenset({"fixtures", "__fixtures__", "testdata", "test-fixtures"})
CORPORA = [
    "laurigates-claude-plugins-d687dc39",
    "voltagent-subagents-c9e51ec",
    "superpowers-44c9b2d6",
]
# what the manifest rules report there, each read by hand (docs/corpus-review.md)
CORPUS_FINDINGS = {
    # its adapters' test fixture (a marketplace without `owner`) is in a folder discovery
    # skips (`discovery-skip`), so it is neither a component nor reported
    "laurigates-claude-plugins-d687dc39": [],
    "voltagent-subagents-c9e51ec": [],
    "superpowers-44c9b2d6": [],
}


def _independent_count(root: Path) -> dict[str, int]:
    """Manifests and hooks counted with os.walk and json.load, not with drift-check."""
    counts = {"plugin.json": 0, "marketplace.json": 0, "command hooks": 0, ".mcp.json": 0}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and d not in FIXTURE_FOLDERS]
        rel = Path(folder).relative_to(root)
        if rel.name == ".claude-plugin":
            counts["plugin.json"] += "plugin.json" in files
            counts["marketplace.json"] += "marketplace.json" in files
        counts[".mcp.json"] += ".mcp.json" in files
    hook_files = [root / ".claude/settings.json", root / ".claude/settings.local.json"]
    for manifest in root.glob("**/.claude-plugin/plugin.json"):
        if FIXTURE_FOLDERS.intersection(manifest.parts):
            continue
        data = json.loads(manifest.read_text(encoding="utf-8"))
        plugin = manifest.parent.parent
        hooks = data.get("hooks")
        if isinstance(hooks, str):
            hook_files.append(plugin / hooks)
        elif isinstance(hooks, dict):
            counts["command hooks"] += _commands(hooks.get("hooks", hooks))
        elif (plugin / "hooks/hooks.json").is_file():
            hook_files.append(plugin / "hooks/hooks.json")
    for path in hook_files:
        data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        counts["command hooks"] += _commands(data.get("hooks", {}))
    return counts


def _commands(events: dict) -> int:  # type: ignore[type-arg]
    return sum(
        hook.get("type") == "command"
        for groups in events.values()
        for group in groups
        for hook in group.get("hooks", [])
    )


@pytest.mark.slow
@pytest.mark.parametrize("corpus", CORPORA)
def test_real_corpora(corpus: str, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = SHARED / "corpora" / corpus
    if not root.is_dir():
        pytest.skip("../shared corpora not present")
    manifests, problems = _scan(root, DISCOVERY_SKIP)
    counts = _independent_count(root)
    assert problems == []
    assert sum(p.manifest is not None for p in manifests.plugins) == counts["plugin.json"]
    assert len(manifests.marketplaces) == counts["marketplace.json"]
    assert sum(len(h.commands) for h in manifests.hooks) == counts["command hooks"]
    assert len(manifests.mcp_files) == counts[".mcp.json"]
    config = tmp_path / "cc.yaml"
    config.write_text("preset: claude-code\n", encoding="utf-8")
    run = cli(
        str(root), "--config", str(config), "--format", "json", "-q", "--select", "DC007,DC11,DC12"
    )
    found = [(f["code"], f"{f['path']}:{f['line']}:{f['column']}") for f in run.json()["findings"]]
    assert found == CORPUS_FINDINGS[corpus]

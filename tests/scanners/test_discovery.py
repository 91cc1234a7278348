"""Discovery: each component found by its own convention (drift_check/discovery.py)."""

from __future__ import annotations

import os
from pathlib import Path

from drift_check.discovery import discover
from drift_check.scanners.files import Repo
from tests.conftest import write_tree

AGENT = "---\nname: {0}\ndescription: Does {0}.\n---\n"
SKILL = "---\nname: {0}\ndescription: Use when {0}.\n---\n"


def _found(tmp_path: Path, files: dict[str, str]):  # type: ignore[no-untyped-def]
    write_tree(tmp_path, files)
    return discover(Repo(str(tmp_path)), ("**/fixtures/**",))


def test_a_skill_folder_linked_into_claude_skills_is_checked_once(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(tmp_path, {"skills/deploy/SKILL.md": SKILL.format("Deploy")})
    (tmp_path / ".claude/skills").mkdir(parents=True)
    os.symlink("../../skills/deploy", tmp_path / ".claude/skills/deploy")
    run = cli(str(tmp_path), "--format", "json", "--select", "DC502")
    assert run.json()["summary"]["components"]["skills"] == 1
    assert [f["path"] for f in run.json()["findings"]] == ["skills/deploy/SKILL.md"]


def test_plugin_manifests_say_where_the_parts_are(tmp_path: Path) -> None:
    found = _found(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": """{"name": "m", "owner": {"name": "o"},
                "metadata": {"pluginRoot": "./packages"},
                "plugins": [
                  {"name": "one", "source": "one"},
                  {"name": "gone", "source": "./gone"},
                  {"name": "remote", "source": {"source": "github", "repo": "o/r"}},
                  {"name": "outside", "source": "../../etc"}]}""",
            "packages/one/.claude-plugin/plugin.json": """{"name": "one",
                "agents": "./team/", "commands": ["./cmds/run.md"]}""",
            "packages/one/team/lead.md": AGENT.format("lead"),
            "packages/one/team/README.md": "# The team\n",
            "packages/one/cmds/run.md": "Run it.\n",
            "packages/one/agents/helper.md": AGENT.format("helper"),
            "packages/one/agents/shared/voice.md": "Speak plainly.\n",
            "packages/one/agents/review/deep.md": AGENT.format("deep"),
        },
    )
    assert [(p.root, p.name and p.name.name) for p in found.plugins] == [("packages/one", "one")]
    assert found.agents == (
        "packages/one/agents/helper.md",
        "packages/one/agents/review/deep.md",
        "packages/one/team/lead.md",
    )
    assert found.commands == ("packages/one/cmds/run.md",)


def test_agents_folders_count_only_where_claude_code_loads_them(tmp_path: Path) -> None:
    found = _found(
        tmp_path,
        {
            "agents/a.md": AGENT.format("a"),
            ".claude/agents/team/b.md": AGENT.format("b"),
            "web/.claude/agents/c.md": AGENT.format("c"),
            "docs/agents/d.md": AGENT.format("d"),  # not a plugin, not .claude: prose
            "tests/fixtures/agents/e.md": AGENT.format("e"),
        },
    )
    assert found.agents == (".claude/agents/team/b.md", "agents/a.md", "web/.claude/agents/c.md")
    assert found.claude_folders == (".claude", "web/.claude")


def test_skills_at_any_depth_with_their_host_copies(tmp_path: Path) -> None:
    found = _found(
        tmp_path,
        {
            "src/kit/skills/q/review/SKILL.md": SKILL.format("review"),
            "src/kit/skills/q/review/SKILL.codex.md": SKILL.format("review"),
            "plugins/p/skills/lint/SKILL.md": SKILL.format("lint"),
            "tests/fixtures/bad/SKILL.md": "no frontmatter\n",
        },
    )
    assert found.skills == ("plugins/p/skills/lint/SKILL.md", "src/kit/skills/q/review/SKILL.md")
    assert found.skill_variants == (
        ("src/kit/skills/q/review/SKILL.codex.md", "src/kit/skills/q/review/SKILL.md"),
    )


def test_hooks_mcp_and_memory_files(tmp_path: Path) -> None:
    found = _found(
        tmp_path,
        {
            "p/.claude-plugin/plugin.json": '{"name": "p", "hooks": "./config/hooks.json"}',
            "p/config/hooks.json": '{"hooks": {}}',
            "q/.claude-plugin/plugin.json": '{"name": "q"}',
            "q/hooks/hooks.json": '{"hooks": {}}',
            # a catalogue's snippet to merge into settings, and another host's hooks file
            "catalogue/hooks/git/lint.json": '{"description": "Lint", "hooks": {"Stop": []}}',
            "hooks/hooks-cursor.json": '{"version": 1, "hooks": {"sessionStart": []}}',
            "web/hooks/data.json": '{"name": "useData"}',
            # a Codex plugin's hooks use Claude Code's event names: they are Codex's
            "codex/.codex-plugin/plugin.json": '{"name": "c"}',
            "codex/components/lsp/hooks/hooks.json": '{"hooks": {"Stop": []}}',
            ".claude/settings.json": '{"hooks": {"Stop": []}}',
            ".claude/settings.local.json": '{"permissions": {}}',
            ".mcp.json": '{"mcpServers": {}}',
            "CLAUDE.md": "# Notes\n",
            "web/AGENTS.md": "# Notes\n",
            "templates/new-project/CLAUDE.md": "# {{name}}\n",
        },
    )
    assert found.hook_files == (
        ".claude/settings.json",
        "catalogue/hooks/git/lint.json",
        "p/config/hooks.json",
        "q/hooks/hooks.json",
    )
    assert found.mcp_files == (".mcp.json",)
    assert found.memory_files == ("CLAUDE.md", "web/AGENTS.md")


def test_a_claude_folder_kept_under_another_name_is_a_kit(tmp_path: Path) -> None:
    found = _found(
        tmp_path,
        {
            "pkg/agents/a.md": AGENT.format("a"),
            "pkg/agents/notes.md": "Shared notes.\n",
            "pkg/commands/go.md": "Go.\n",
            "src/pkg/agents/a.md": AGENT.format("a"),
            "src/pkg/commands/go.md": "Go.\n",
            # another host's agents, named by their files: not a Claude Code kit
            "hosts/opencode/agents/b.md": "---\ndescription: B.\nmode: subagent\n---\n",
            "hosts/opencode/commands/go.md": "Go.\n",
            # agents with no commands or skills beside them: prose about agents
            "docs/agents/c.md": AGENT.format("c"),
            # agents beside skills, as an installer copies them
            "legal/agents/l.md": AGENT.format("l"),
            "legal/skills/cite/SKILL.md": SKILL.format("cite"),
            # another project's plugin, vendored among a skill's references
            "skills/front/SKILL.md": SKILL.format("front"),
            "skills/front/refs/vendor/agents/v.md": AGENT.format("v"),
            "skills/front/refs/vendor/skills/y/SKILL.md": SKILL.format("y"),
        },
    )
    assert found.agents == ("legal/agents/l.md", "pkg/agents/a.md", "src/pkg/agents/a.md")
    assert found.commands == ("pkg/commands/go.md", "src/pkg/commands/go.md")
    assert found.kits == ("legal", "pkg", "src/pkg")


def test_two_kits_are_two_scopes_for_agent_names(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_tree(
        tmp_path,
        {
            "pkg/agents/a.md": AGENT.format("a"),
            "pkg/agents/b.md": AGENT.format("a"),
            "pkg/commands/go.md": "Go.\n",
            "src/pkg/agents/a.md": AGENT.format("a"),
            "src/pkg/commands/go.md": "Go.\n",
        },
    )
    run = cli(str(tmp_path), "--format", "json", "--select", "DC606")
    assert [(f["path"], f["message"]) for f in run.json()["findings"]] == [
        (
            "pkg/agents/b.md",
            "agent name `a` is also the name of `pkg/agents/a.md` in the same `pkg/`;"
            " Claude Code loads only one of them: rename one",
        )
    ]


def test_json_with_comments_in_a_web_apps_hooks_folder_is_no_hook_file_and_no_problem(
    tmp_path: Path,
) -> None:
    write_tree(
        tmp_path,
        {
            "web/src/hooks/tsconfig.json": '{\n  // comments\n  "extends": "../tsconfig.json"\n}\n',
            "web/src/hooks/state.json": '{"hooks": ["useState"], // a list\n}\n',
        },
    )
    problems: list = []  # type: ignore[type-arg]
    found = discover(Repo(str(tmp_path)), ("**/fixtures/**",), problems)
    assert found.hook_files == ()
    assert problems == []

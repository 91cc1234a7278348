"""The pre-commit manifest and the project's own hook config are valid, the project's
examples match their recorded baseline, the hook, installed from this checkout with
`pre-commit try-repo`, fails on drift and passes on a clean tree, and the hook, installed
with `pre-commit install` in a new repository, blocks a commit that drifts with the findings
of the committed files only. The tests that install hooks are marked `slow`."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from identify.identify import ALL_TAGS, tags_from_filename
from ruamel.yaml import YAML

from tests.conftest import tree_files, write_tree

ROOT = Path(__file__).resolve().parents[2]


def _pre_commit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_manifest_and_config_validate() -> None:
    manifest = _pre_commit("validate-manifest", ".pre-commit-hooks.yaml")
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr
    config = _pre_commit("validate-config", ".pre-commit-config.yaml")
    assert config.returncode == 0, config.stdout + config.stderr


def test_examples_match_their_baseline(cli) -> None:  # type: ignore[no-untyped-def]
    run = cli(str(ROOT / "examples"), "--baseline", str(ROOT / "examples-baseline.json"))
    assert run.code == 0, run.out + run.err
    assert "no longer occurs" not in run.err


# pip's signs that it could not reach a package index: its retry warnings ("Retrying ...
# after connection broken by 'NameResolutionError(...)'") and the errors behind them.
_OFFLINE = re.compile(
    r"connection broken by|Failed to establish a new connection"
    r"|Temporary failure in name resolution|Network is unreachable"
)
# Variables with which git, run from inside a git hook, points at another repository.
_GIT_LOCATION = {
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
}


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment to run `pre-commit try-repo` against this checkout in: skips when
    there is no git or the checkout is not a git repository (an sdist). PRE_COMMIT_HOME is
    private to the module: try-repo builds the hook's environment in a store of its own
    each run, but pre-commit still writes its error log there, not in the user's cache."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: pre-commit try-repo needs it")
    if not (ROOT / ".git").exists():
        pytest.skip(f"{ROOT} is not a git checkout: pre-commit try-repo clones one")
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION}
    env["PRE_COMMIT_HOME"] = str(tmp_path_factory.mktemp("pre-commit-home"))
    return env


def _try_repo(target: Path, files: dict[str, str | bytes], env: dict[str, str]) -> tuple[int, str]:
    """Write the tree in a new git repository, stage it (pre-commit sees only tracked
    files; nothing needs committing), and run this checkout's `drift-check` hook on it
    with `pre-commit try-repo`, which installs the hook's environment with pip. The exit
    code and the output (stdout and stderr together)."""
    write_tree(target, files)
    subprocess.run(["git", "init", "-q"], cwd=target, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=target, env=env, check=True)
    hook = ["try-repo", str(ROOT), "drift-check", "--all-files", "--color", "never"]
    run = subprocess.run(
        [sys.executable, "-m", "pre_commit", *hook],
        cwd=target,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    # pre-commit exits 3 on an error of its own, here a failed install of the environment.
    if run.returncode == 3 and _OFFLINE.search(run.stdout):
        pytest.skip("pip could not reach a package index to install the hook's environment")
    return run.returncode, run.stdout


@pytest.mark.slow
def test_hook_fails_on_drift(tmp_path: Path, hook_env: dict[str, str]) -> None:
    """The clean gsd tree with one drift planted: the executor's completion marker renamed,
    so the registry's `## PLAN COMPLETE` is never emitted (DC201) and the agent emits an
    undeclared one (DC202)."""
    files = tree_files("gsd", None)
    agent = "agents/gsd-executor.md"
    content = files[agent]
    assert isinstance(content, str) and "## PLAN COMPLETE" in content
    files[agent] = content.replace("## PLAN COMPLETE", "## PLAN FINISHED")
    code, out = _try_repo(tmp_path, files, hook_env)
    assert code == 1, out
    assert re.search(r"^drift-check\.+Failed$", out, re.MULTILINE), out
    registry = re.escape("gsd-core/references/agent-contracts.md")
    assert re.search(rf"^{registry}:\d+:\d+: DC201 ", out, re.MULTILINE), out
    assert re.search(rf"^{re.escape(agent)}:\d+:\d+: DC202 ", out, re.MULTILINE), out


@pytest.mark.slow
def test_hook_passes_on_a_clean_tree(tmp_path: Path, hook_env: dict[str, str]) -> None:
    code, out = _try_repo(tmp_path, tree_files("gsd", None), hook_env)
    assert code == 0, out
    # Passed, not "(no files to check)Skipped", which exits 0 too.
    assert re.search(r"^drift-check\.+Passed$", out, re.MULTILINE), out


def test_own_rule_packs_hook(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The dogfood hook on rules/: its entry, on every pack file, passes."""
    config = (ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    assert re.search(r"id: drift-check-packs\n.*\n\s+entry: drift-check packs\n", config)
    monkeypatch.chdir(ROOT)
    packs = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "rules").glob("*.yaml"))
    run = cli("packs", *packs)
    assert run.code == 0, run.err
    assert [line.split(":")[0] for line in run.out.splitlines()] == packs


def _shipped_hooks() -> dict[str, dict[str, object]]:
    hooks = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return {hook["id"]: hook for hook in hooks}


# a file of each kind drift-check reads: memory files, agents, skills, commands, workflows
# (Markdown); frontmatter, its own config and rule packs (YAML); manifests, hooks and MCP
# files (JSON); Python consumers; pyproject.toml's [tool.drift-check]
READ = (
    "CLAUDE.md",
    "skills/a/SKILL.md",
    ".drift-check.yaml",
    "rules/pack.yml",
    ".claude-plugin/plugin.json",
    "hooks/hooks.json",
    ".mcp.json",
    "hooks/route.py",
    "pyproject.toml",
)


def test_shipped_hooks_pass_the_files_drift_check_reads() -> None:
    """pre-commit passes the staged files, filtered by identify's tags to the kinds
    drift-check reads, all in one run (require_serial: no parallel batches, each of which
    would analyse the whole project)."""
    hooks = _shipped_hooks()
    assert set(hooks) == {"drift-check", "drift-check-fix"}
    for hook in hooks.values():
        assert hook["pass_filenames"] is True
        assert hook["require_serial"] is True
        assert "types" not in hook and "files" not in hook
        types_or = hook["types_or"]
        assert isinstance(types_or, list)
        assert set(types_or) == {"markdown", "yaml", "json", "python", "toml"}
        assert set(types_or) <= ALL_TAGS
        for path in READ:
            assert set(types_or) & tags_from_filename(path), path
        assert not set(types_or) & tags_from_filename("logo.png")


@pytest.fixture
def commit_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment in which git commits without the user's config (no hooksPath, no
    signing) and pre-commit keeps its store in a temporary folder."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: a commit needs it")
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION}
    env.update(
        PRE_COMMIT_HOME=str(tmp_path_factory.mktemp("pre-commit-home")),
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="drift-check tests",
        GIT_AUTHOR_EMAIL="tests@example.invalid",
        GIT_COMMITTER_NAME="drift-check tests",
        GIT_COMMITTER_EMAIL="tests@example.invalid",
    )
    return env


def _installed_repository(root: Path, files: dict[str, str | bytes], env: dict[str, str]) -> Path:
    """A new git repository holding `files` and a `.pre-commit-config.yaml` whose one hook is
    the shipped `drift-check` hook run as `language: system` by this environment's
    `drift-check` (offline: pre-commit installs nothing), with `pre-commit install` run."""
    script = shutil.which("drift-check", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("no drift-check console script beside this Python: install the package")
    hook = {**_shipped_hooks()["drift-check"], "entry": shlex.quote(script)}
    hook["language"] = "system"
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    write_tree(root, {**files, ".pre-commit-config.yaml": json.dumps(config, indent=2) + "\n"})
    subprocess.run(["git", "init", "-q"], cwd=root, env=env, check=True)
    install = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    return root


def _commit(root: Path, paths: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Stage `paths` and commit them through the installed hook: git's exit code, and the
    hook's output (stdout and stderr together)."""
    subprocess.run(["git", "add", "--", *paths], cwd=root, env=env, check=True)
    run = subprocess.run(
        ["git", "commit", "-q", "-m", "change"],
        cwd=root,
        env={**env, "PRE_COMMIT_COLOR": "never"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    return run.returncode, run.stdout


def _commits(root: Path, env: dict[str, str]) -> int:
    run = subprocess.run(
        ["git", "rev-list", "--count", "--all"], cwd=root, env=env, capture_output=True, text=True
    )
    return int(run.stdout.strip() or 0)


@pytest.mark.slow
def test_installed_hook_blocks_a_drifting_commit(
    tmp_path: Path, commit_env: dict[str, str]
) -> None:
    """A clean commit passes. Then the executor's marker is renamed and only its file is
    committed: the commit is blocked with the agent's DC202; the other side of that drift,
    DC201 in the registry, which is not committed, is not reported (CI on the whole tree
    reports it)."""
    root = _installed_repository(tmp_path, tree_files("gsd", None), commit_env)
    code, out = _commit(root, ["."], commit_env)
    assert code == 0, out
    assert re.search(r"^drift-check\.+Passed$", out, re.MULTILINE), out
    agent = root / "agents" / "gsd-executor.md"
    agent.write_text(
        agent.read_text(encoding="utf-8").replace("## PLAN COMPLETE", "## PLAN FINISHED"),
        encoding="utf-8",
    )
    code, out = _commit(root, ["agents/gsd-executor.md"], commit_env)
    assert code == 1, out
    assert re.search(r"^drift-check\.+Failed$", out, re.MULTILINE), out
    findings = re.findall(r"^(\S+?):\d+:\d+: (DC\d+) ", out, re.MULTILINE)
    assert findings == [("agents/gsd-executor.md", "DC202")], out
    assert _commits(root, commit_env) == 1  # the drifting commit was not made


@pytest.mark.slow
def test_installed_hook_passes_where_there_is_nothing_to_check(
    tmp_path: Path, commit_env: dict[str, str]
) -> None:
    files = {"README.md": "# A library\n", "src/lib.py": "X = 1\n"}
    root = _installed_repository(tmp_path, files, commit_env)
    code, out = _commit(root, ["."], commit_env)
    assert code == 0, out
    assert re.search(r"^drift-check\.+Passed$", out, re.MULTILINE), out
    assert _commits(root, commit_env) == 1

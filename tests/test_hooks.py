"""The pre-commit manifest and the project's own hook config are valid, the project's
examples match their recorded baseline, and the hook, installed from this checkout with
`pre-commit try-repo`, fails on drift and passes on a clean tree."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import tree_files, write_tree

ROOT = Path(__file__).resolve().parents[1]


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

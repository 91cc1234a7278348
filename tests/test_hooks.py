"""The pre-commit manifest and the project's own hook config are valid, and the project's
examples match their recorded baseline."""

import subprocess
import sys
from pathlib import Path

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

"""The GitHub Action: its YAML is valid and complete, drift-check is installed into an
environment of its own (the caller's Python is left alone), and its check step
(action/run.sh) runs drift-check once, giving annotations (or a SARIF log), the finding
count from the run's JSON report as an output, and drift-check's exit code."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.conftest import tree_files, write_tree

pytestmark = pytest.mark.slow  # the action's steps in subprocesses, a venv built

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent  # the test environment's drift-check and python


def _action() -> dict:  # type: ignore[type-arg]
    return YAML(typ="safe").load((ROOT / "action.yml").read_text())


def test_action_yaml() -> None:
    action = _action()
    inputs = {"path", "config", "format", "sarif-file", "args", "summary", "version"}
    assert set(action["inputs"]) == inputs
    assert action["runs"]["steps"][-1]["env"]["INPUT_SUMMARY"] == "${{ inputs.summary }}"
    assert action["outputs"]["findings"]["value"] == "${{ steps.check.outputs.findings }}"
    assert action["outputs"]["sarif-file"]["value"] == "${{ steps.check.outputs.sarif-file }}"
    assert action["runs"]["using"] == "composite"
    setup, install, check = action["runs"]["steps"]
    assert check["id"] == "check"
    assert check["env"]["INPUT_ARGS"] == "${{ inputs.args }}"
    assert check["env"]["DRIFT_CHECK_BIN"] == "${{ steps.install.outputs.bin }}"
    assert check["run"] == 'bash "$GITHUB_ACTION_PATH/action/run.sh"'
    # setup-python must not put its Python first on the caller's PATH for later steps
    assert setup["uses"].startswith("actions/setup-python@")
    assert setup["with"]["update-environment"] is False
    assert install["env"]["PYTHON"] == f"${{{{ steps.{setup['id']}.outputs.python-path }}}}"
    assert "GITHUB_PATH" not in install["run"] and "GITHUB_ENV" not in install["run"]


def _counting_bin(tmp_path: Path) -> Path:
    """A folder like the action's environment's: `python`, and a `drift-check` that logs
    each call before running the real one."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "python").symlink_to(sys.executable)
    script = folder / "drift-check"
    script.write_text(
        f'#!/usr/bin/env bash\necho run >> "{tmp_path / "calls"}"\n'
        f'exec "{BIN / "drift-check"}" "$@"\n'
    )
    script.chmod(0o755)
    return folder


def _run_step(
    tmp_path: Path,
    root: Path,
    fmt: str = "github",
    args: str = "",
    cwd: Path | None = None,
    summary: str = "true",
) -> tuple[subprocess.CompletedProcess[str], str, int]:
    """action/run.sh as the check step runs it; its outputs and how often it ran drift-check.
    PATH holds no drift-check: the step must call the one of its own environment."""
    output = tmp_path / f"github_output_{root.name}"
    output.unlink(missing_ok=True)
    calls = tmp_path / "calls"
    calls.unlink(missing_ok=True)
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(tmp_path / f"step_summary_{root.name}"),
        "INPUT_SUMMARY": summary,
        "PATH": "/usr/bin:/bin",
        "DRIFT_CHECK_BIN": str(
            _counting_bin(tmp_path) if not (tmp_path / "bin").exists() else tmp_path / "bin"
        ),
        "RUNNER_TEMP": str(tmp_path),
        "INPUT_PATH": str(root),
        "INPUT_FORMAT": fmt,
        "INPUT_ARGS": args,
        "INPUT_SARIF_FILE": str(tmp_path / "out.sarif"),
        "GITHUB_OUTPUT": str(output),
    }
    proc = subprocess.run(
        ["bash", str(ROOT / "action/run.sh")],
        env=env,
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    runs = len(calls.read_text().splitlines()) if calls.exists() else 0
    leftovers = [p.name for p in tmp_path.glob("drift-check-report.*")]
    assert not leftovers, "the step leaves its JSON report behind"
    return proc, output.read_text() if output.exists() else "", runs


def _drift(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "drift", tree_files("gsd", {"agents/gsd-orphan.md": "# o\n"}))


def test_check_step_on_drift_and_on_a_clean_tree(tmp_path: Path) -> None:
    proc, outputs, runs = _run_step(tmp_path, _drift(tmp_path))
    assert proc.returncode == 1
    assert proc.stdout.startswith("::error file=")
    assert outputs == "findings=1\n"
    assert runs == 1
    clean = write_tree(tmp_path / "clean", tree_files("gsd", None))
    proc, outputs, runs = _run_step(tmp_path, clean)
    assert proc.returncode == 0
    assert outputs == "findings=0\n"
    assert runs == 1


def test_check_step_writes_a_sarif_log_and_still_fails_on_drift(tmp_path: Path) -> None:
    proc, outputs, runs = _run_step(tmp_path, _drift(tmp_path), "sarif")
    assert proc.returncode == 1
    assert sorted(outputs.splitlines()) == ["findings=1", f"sarif-file={tmp_path / 'out.sarif'}"]
    log = json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["DC103"]
    assert runs == 1


def test_check_step_counts_findings_whatever_the_arguments_print(tmp_path: Path) -> None:
    """`--statistics` prints a table, not findings; the count is still the real one."""
    proc, outputs, runs = _run_step(
        tmp_path, Path("examples"), fmt="text", args="--statistics -q", cwd=ROOT
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0] == "2  DC305  quoted-marker-undeclared"
    assert outputs == "findings=15\n"
    assert runs == 1


def test_check_step_passes_extra_arguments(tmp_path: Path) -> None:
    drift = _drift(tmp_path)
    baseline = tmp_path / "baseline.json"
    proc, outputs, _ = _run_step(tmp_path, drift, args=f"--baseline-write {baseline}")
    assert proc.returncode == 0 and baseline.exists()
    assert outputs == "findings=1\n"  # what the baseline recorded
    proc, outputs, runs = _run_step(tmp_path, drift, args=f"--baseline {baseline}  -q")
    assert proc.returncode == 0, proc.stderr
    assert outputs == "findings=0\n"  # the count honours the arguments too
    assert runs == 1


def test_check_step_on_an_error_fails_without_a_count(tmp_path: Path) -> None:
    proc, outputs, runs = _run_step(tmp_path, _drift(tmp_path), args="--select DC999")
    assert proc.returncode == 2
    assert proc.stderr.startswith("drift-check: ")
    assert outputs == ""
    assert runs == 1


def test_install_step_uses_an_environment_of_its_own(tmp_path: Path) -> None:
    """The install step's script, run for real: drift-check lands in a virtual environment
    under RUNNER_TEMP, built from setup-python's interpreter, and the check step runs it
    with no drift-check on PATH."""
    install = _action()["runs"]["steps"][1]
    output = tmp_path / "github_output"
    env = {
        **os.environ,
        "PATH": "/usr/bin:/bin",
        "PYTHON": sys.executable,
        "VERSION": "",
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_ACTION_PATH": str(ROOT),
        "GITHUB_OUTPUT": str(output),
    }
    proc = subprocess.run(
        ["bash", "-e", "-c", install["run"]], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    (line,) = output.read_text().splitlines()
    bin_dir = Path(line.removeprefix("bin="))
    assert bin_dir.parent.parent == tmp_path and (bin_dir / "drift-check").exists()
    env = {
        **env,
        "DRIFT_CHECK_BIN": str(bin_dir),
        "INPUT_PATH": "examples",
        "INPUT_FORMAT": "github",
        "INPUT_ARGS": "-q",
    }
    output.unlink()
    proc = subprocess.run(
        ["bash", str(ROOT / "action/run.sh")], env=env, capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 1, proc.stderr
    assert len(proc.stdout.splitlines()) == 15
    assert output.read_text() == "findings=15\n"


def test_check_step_adds_the_findings_to_the_job_summary(tmp_path: Path) -> None:
    drift = _drift(tmp_path)
    written = tmp_path / "step_summary_drift"
    written.write_text("## an earlier step\n", encoding="utf-8")
    proc, _, runs = _run_step(tmp_path, drift)
    assert proc.returncode == 1 and runs == 1
    text = written.read_text(encoding="utf-8")
    assert text.startswith("## an earlier step\n## drift-check: 1 finding\n")  # appended
    assert "| DC103 | agent-without-row | error | 1 |" in text
    assert "**DC103** agent `gsd-orphan` has no row" in text
    written.unlink()
    proc, _, _ = _run_step(tmp_path, drift, summary="false")
    assert proc.returncode == 1 and not written.exists()

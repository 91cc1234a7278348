"""The GitHub Action: its YAML is valid and complete, and its check step (action/run.sh)
gives annotations, the finding count as an output and drift-check's exit code."""

import json
import os
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from tests.conftest import tree_files, write_tree

ROOT = Path(__file__).resolve().parents[1]


def test_action_yaml() -> None:
    action = YAML(typ="safe").load((ROOT / "action.yml").read_text())
    inputs = {"path", "config", "format", "sarif-file", "args", "summary", "version"}
    assert set(action["inputs"]) == inputs
    assert action["runs"]["steps"][-1]["env"]["INPUT_ARGS"] == "${{ inputs.args }}"
    assert action["outputs"]["findings"]["value"] == "${{ steps.check.outputs.findings }}"
    assert action["outputs"]["sarif-file"]["value"] == "${{ steps.check.outputs.sarif-file }}"
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    assert steps[-1]["id"] == "check"
    assert steps[-1]["run"] == 'bash "$GITHUB_ACTION_PATH/action/run.sh"'


def _run_step(
    tmp_path: Path, root: Path, fmt: str = "github", args: str = "", summary: str = "true"
) -> tuple[subprocess.CompletedProcess[str], str]:
    output = tmp_path / f"github_output_{root.name}"
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(tmp_path / f"step_summary_{root.name}"),
        "INPUT_SUMMARY": summary,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "INPUT_PATH": str(root),
        "INPUT_FORMAT": fmt,
        "INPUT_ARGS": args,
        "INPUT_SARIF_FILE": str(tmp_path / "out.sarif"),
        "GITHUB_OUTPUT": str(output),
    }
    proc = subprocess.run(
        ["bash", str(ROOT / "action/run.sh")], env=env, capture_output=True, text=True
    )
    return proc, output.read_text() if output.exists() else ""


def test_check_step_on_drift_and_on_a_clean_tree(tmp_path: Path) -> None:
    drift = write_tree(tmp_path / "drift", tree_files("gsd", {"agents/gsd-orphan.md": "# o\n"}))
    proc, outputs = _run_step(tmp_path, drift)
    assert proc.returncode == 1
    assert proc.stdout.startswith("::error file=")
    assert outputs == "findings=1\n"
    clean = write_tree(tmp_path / "clean", tree_files("gsd", None))
    proc, outputs = _run_step(tmp_path, clean)
    assert proc.returncode == 0
    assert outputs == "findings=0\n"


def test_check_step_writes_a_sarif_log_and_still_fails_on_drift(tmp_path: Path) -> None:
    drift = write_tree(tmp_path / "drift", tree_files("gsd", {"agents/gsd-orphan.md": "# o\n"}))
    proc, outputs = _run_step(tmp_path, drift, "sarif")
    assert proc.returncode == 1
    assert sorted(outputs.splitlines()) == ["findings=1", f"sarif-file={tmp_path / 'out.sarif'}"]
    log = json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["DC103"]


def test_check_step_passes_extra_arguments(tmp_path: Path) -> None:
    drift = write_tree(tmp_path / "drift", tree_files("gsd", {"agents/gsd-orphan.md": "# o\n"}))
    baseline = tmp_path / "baseline.json"
    proc, _ = _run_step(tmp_path, drift, args=f"--baseline-write {baseline}")
    assert proc.returncode == 0 and baseline.exists()
    (tmp_path / "github_output_drift").unlink()
    proc, outputs = _run_step(tmp_path, drift, args=f"--baseline {baseline}  -q")
    assert proc.returncode == 0, proc.stderr
    assert outputs == "findings=0\n"  # the count honours the arguments too


def test_check_step_adds_the_findings_to_the_job_summary(tmp_path: Path) -> None:
    drift = write_tree(tmp_path / "drift", tree_files("gsd", {"agents/gsd-orphan.md": "# o\n"}))
    written = tmp_path / "step_summary_drift"
    written.write_text("## an earlier step\n", encoding="utf-8")
    proc, _ = _run_step(tmp_path, drift)
    assert proc.returncode == 1
    text = written.read_text(encoding="utf-8")
    assert text.startswith("## an earlier step\n## drift-check: 1 finding\n")  # appended
    assert "| DC103 | agent-without-row | error | 1 |" in text
    assert "**DC103** agent `gsd-orphan` has no row" in text
    written.unlink()
    proc, _ = _run_step(tmp_path, drift, summary="false")
    assert proc.returncode == 1 and not written.exists()

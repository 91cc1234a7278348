"""Whole trees made by hypothesis from the pieces agent repositories are made of (registry
rows, frontmatter, fenced return templates, workflows that quote and dispatch, skills,
suppressions) with random text mixed in: a check never fails with an internal error, and
`--fix` (and `--fix --unsafe-fixes`) never makes more findings of any code, so no new code
either, and leaves a tree on which a second `--fix` changes nothing."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from drift_check.cli import main
from tests.conftest import write_tree

pytestmark = pytest.mark.slow  # 60 random trees checked and fixed

REGISTRY = "gsd-core/references/agent-contracts.md"

NAMES = st.sampled_from(["gsd-planner", "gsd-executor", "gsd-checker", "gsd-x", "a|b", "1.5"])
MARKERS = st.sampled_from(
    ["PLANNING COMPLETE", "PLAN COMPLETE", "Planning Complete", "CHECKPOINT REACHED", "DONE"]
)
NOISE = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)
KINDS = st.sampled_from(["sentinel-match", "artifact+query", "structured-return", "sentinel", ""])


@st.composite
def registry(draw: st.DrawFn) -> str:
    rows = []
    for _ in range(draw(st.integers(0, 5))):
        markers = draw(st.lists(MARKERS, max_size=3))
        cell = ", ".join(f"`## {m}`" for m in markers) or "No marker"
        if draw(st.booleans()):
            cell += draw(st.sampled_from([" (unconsumed)", " (unconsumed: why)", " (", "`"]))
        consumers = draw(
            st.lists(st.sampled_from(["gsd-core/workflows/plan.md", "hooks/route.py", "x.md"]))
        )
        cited = ", ".join(f"`{c}`" for c in consumers)
        role = draw(st.one_of(st.just("Role"), NOISE)).replace("\n", " ")
        name = draw(NAMES)
        rows.append(f"| {name} | {role} | {cell} | {cited} | {draw(KINDS)} |")
    if draw(st.booleans()):
        rows.append(draw(NOISE).replace("\n", " "))
    table = "\n".join(rows)
    return (
        "# Contracts\n\n## Agent Registry\n\n"
        "| Agent | Role | Completion Markers | Consumed by | Kind |\n"
        f"|---|---|---|---|---|\n{table}\n"
    )


@st.composite
def agent(draw: st.DrawFn, name: str) -> str:
    head = f"name: {draw(st.sampled_from([name, 'other', '1.5', 'true', '']))}\n"
    head += draw(st.sampled_from(["description: Does things.\n", "description: a: b\n", ""]))
    head += draw(st.sampled_from(["tools: Read, Write\n", "tools: [Read]\n", "skills: [s]\n", ""]))
    body = "".join(
        draw(
            st.lists(
                st.one_of(
                    MARKERS.map(lambda m: f"\n```markdown\n## {m}\n```\n"),
                    NOISE,
                    st.just("\n```\nunclosed\n"),
                    st.just("\n<!-- drift-check: ignore[DC202] on purpose -->\n"),
                    st.just("\n@~/.claude/gsd-core/references/missing.md\n"),
                ),
                max_size=5,
            )
        )
    )
    return f"---\n{head}---\n{body}" if draw(st.booleans()) else body


@st.composite
def trees(draw: st.DrawFn) -> dict[str, str]:
    files = {REGISTRY: draw(registry())}
    for name in draw(st.lists(NAMES, max_size=4, unique=True)):
        if "|" not in name:
            files[f"agents/{name}.md"] = draw(agent(name))
    quotes = draw(st.lists(MARKERS, max_size=4))
    flow = "".join(f"- On `## {m}`: go on.\n" for m in quotes)
    files["gsd-core/workflows/plan.md"] = (
        '# Plan\n\nTask(subagent_type="gsd-planner")\n\n' + flow + draw(NOISE)
    )
    files["hooks/route.py"] = f"NEXT = {{{', '.join(repr(f'## {m}') for m in quotes)}}}\n"
    if draw(st.booleans()):
        files["skills/s/SKILL.md"] = f"---\nname: {draw(st.sampled_from(['s', 'S', 't']))}\n---\n"
    return files


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


# derandomized: the suite's 60 examples are the same on every run (CI never meets a new one
# by chance); explore with more examples and a random seed locally
@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(trees())
@example(  # a marker declared twice: removing both takes two rounds
    {
        REGISTRY: "# Contracts\n\n## Agent Registry\n\n"
        "| Agent | Role | Completion Markers | Consumed by | Kind |\n|---|---|---|---|---|\n"
        "| gsd-planner | Role | `## PLANNING COMPLETE`, `## PLANNING COMPLETE` |  |"
        " sentinel-match |\n",
        "agents/gsd-planner.md": "",
        "gsd-core/workflows/plan.md": '# Plan\n\nTask(subagent_type="gsd-planner")\n\n',
        "hooks/route.py": "NEXT = {}\n",
    }
)
def test_random_trees_check_and_fix_cleanly(files: dict[str, str]) -> None:
    root = Path(tempfile.mkdtemp(prefix="drift-fuzz-"))
    try:
        write_tree(root, files)
        code, out, err = _run(str(root), "--format", "json", "-q")
        assert code in (0, 1), err
        assert "internal error" not in err
        found = [
            (f["path"], f["line"], f["column"], f["code"]) for f in json.loads(out)["findings"]
        ]
        assert found == sorted(found)  # deterministic order: path, line, column, code
        assert _run(str(root), "--format", "json", "-q")[1] == out
        counts = Counter(f[3] for f in found)
        for unsafe in ((), ("--unsafe-fixes",)):
            code, fixed_out, err = _run(str(root), "--fix", *unsafe, "--format", "json", "-q")
            assert code in (0, 1), err
            assert "internal error" not in err
            assert err.endswith(", 0 new\n"), err
            after = Counter(f["code"] for f in json.loads(fixed_out)["findings"])
            grown = {c: (counts[c], n) for c, n in after.items() if n > counts[c]}
            assert not grown, f"--fix {' '.join(unsafe)} made findings of these codes: {grown}"
        before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        code, _, err = _run(str(root), "--fix", "--unsafe-fixes", "-q")
        assert "internal error" not in err
        after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        assert after == before, "a second --fix changed the tree"
    finally:
        shutil.rmtree(root)


def test_a_second_fix_changes_nothing_with_a_duplicate_row() -> None:
    files = {
        REGISTRY: "# Contracts\n\n## Agent Registry\n\n"
        "| Agent | Role | Completion Markers | Consumed by | Kind |\n|---|---|---|---|---|\n"
        "| gsd-planner | Role | `## PLAN COMPLETE`, `## Planning Complete` |  | sentinel-match |\n"
        "| gsd-planner | Role | No marker |  | sentinel-match |\n",
        "agents/gsd-planner.md": "\n```markdown\n## PLANNING COMPLETE\n```\n",
        "gsd-core/workflows/plan.md": '# Plan\n\nTask(subagent_type="gsd-planner")\n\n',
        "hooks/route.py": "NEXT = {}\n",
    }
    root = Path(tempfile.mkdtemp(prefix="drift-fuzz-"))
    try:
        write_tree(root, files)
        _run(str(root), "--fix", "--unsafe-fixes", "-q")
        before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        _run(str(root), "--fix", "--unsafe-fixes", "-q")
        after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
        assert after == before
    finally:
        shutil.rmtree(root)

"""Real trees, damaged the way edits damage them: a file cut short or deleted, a line
dropped, swapped or doubled, a stray fence, `\\r`, U+2028 or invalid byte, one word put in
another's place, a JSON member renamed or retyped, a frontmatter key changed. On each: the
check ends without an internal error (a broken config may stop it with one line), `--diff`
writes nothing and shows exactly the bytes `--fix --unsafe-fixes` then writes, the fix makes
no more findings of any code, and a second `--fix` changes nothing.

The trees are `examples/`, the fixture trees, and the corpora in `../shared` when present.
Each case is one seed of `random.Random`: the same damage on every run.
"""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import SHARED, git_diff, tree_files, write_tree

pytestmark = pytest.mark.slow  # each case checks a tree five times

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FIXTURE_TREES = ["gsd", "gaia-drift", "gaia-states", "envelope", "contract-skills", "claude-code"]
CORPORA = ["gsd-build-bdcaab2", "superpowers-44c9b2d6", "voltagent-subagents-c9e51ec"]

SNIPPETS = [
    "---",
    "```",
    "```json",
    "~~~",
    "| a | b |\n|---|---|",
    "{",
    '"',
    ": ",
    "\r",
    "\r\n",
    "\u2028",
    "\ufeff",
    "## PLANNING COMPLETE",
    "RESULT_X_RESULT:\n  status: <a | b>",
    "@./missing.md",
    "[x](#nope)",
    "`scripts/none.sh`",
    'Skill("nope")',
    "<!-- drift-check: ignore[DC101] -->",
    "x" * 3000,
]
FRONTMATTER_LINES = [
    "name: renamed-x",
    "tools: Read, MultiEdit, Task, mcp__srv__t",
    "skills:\n  - nope\n  - plug:skill",
    "description: Use when: things happen",
    "version: 1.0",
    "allowed-tools: [Bash, LS]",
    "argument-hint: [x]",
    "name: Bad_Name",
]
JSON_VALUES: list[object] = [1, "x", [], {}, None, "./nope", "../out", "${CLAUDE_PLUGIN_ROOT}/x.sh"]


def _text_files(root: Path) -> list[Path]:
    suffixes = (".md", ".json", ".py", ".yaml", ".yml", ".sh")
    return sorted(
        p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and p.suffix in suffixes
    )


def _damage_json(text: str, rnd: random.Random) -> str | None:
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    places: list[tuple[object, dict | list, object]] = []

    def walk(node: object) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)  # type: ignore[arg-type]
        for key, value in list(items):
            places.append((value, node, key))  # type: ignore[arg-type]
            if isinstance(value, (dict, list)):
                walk(value)

    if not isinstance(doc, (dict, list)):
        return None
    walk(doc)
    if not places:
        return None
    _, holder, key = rnd.choice(places)
    how = rnd.randrange(3)
    if how == 0:
        holder.pop(key)  # type: ignore[call-overload]
    elif how == 1 and isinstance(holder, dict):
        holder[f"{key}{rnd.choice(['s', '_x', 'Name'])}"] = holder.pop(key)
    else:
        holder[key] = rnd.choice(JSON_VALUES)  # type: ignore[index]
    return json.dumps(doc, indent=rnd.choice([2, None]), ensure_ascii=False)


def damage(root: Path, rnd: random.Random) -> list[str]:
    """Damage one to four files of the tree; what was done, for the failure message."""
    done: list[str] = []
    for _ in range(rnd.randint(1, 4)):
        files = _text_files(root)
        if not files:
            break
        path = rnd.choice(files)
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        text = data.decode("utf-8", "replace")
        lines = text.split("\n")
        how = rnd.randrange(9)
        if how == 0:
            path.write_bytes(data[: rnd.randint(0, len(data))])
            done.append(f"cut {rel} short")
        elif how == 1:
            path.unlink()
            done.append(f"deleted {rel}")
        elif how == 2:
            at = rnd.randint(0, len(data))
            path.write_bytes(data[:at] + rnd.choice([b"\xff", b"\xc3", b"\x00"]) + data[at:])
            done.append(f"a bad byte into {rel} at {at}")
        elif how == 3:
            i = rnd.randrange(len(lines))
            snippet = rnd.choice(SNIPPETS)
            column = rnd.randint(0, len(lines[i]))
            lines[i] = lines[i][:column] + snippet + lines[i][column:]
            path.write_text("\n".join(lines), encoding="utf-8")
            done.append(f"{snippet[:20]!r} into {rel}:{i + 1}:{column + 1}")
        elif how == 4 and len(lines) > 2:
            i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            if rnd.random() < 0.5:
                del lines[i]
            else:
                lines.insert(j, lines[i])
            path.write_text("\n".join(lines), encoding="utf-8")
            done.append(f"lines {i + 1} and {j + 1} of {rel} moved")
        elif how == 5:
            words = sorted({w for w in text.split() if len(w) > 3})
            if len(words) > 1:
                old, new = rnd.sample(words, 2)
                at = text.find(old)
                path.write_text(text[:at] + new + text[at + len(old) :], encoding="utf-8")
                done.append(f"{old[:20]!r} became {new[:20]!r} in {rel}")
        elif how == 6 and path.suffix == ".json":
            damaged = _damage_json(text, rnd)
            if damaged is not None:
                path.write_text(damaged, encoding="utf-8")
                done.append(f"a member of {rel} renamed, dropped or retyped")
        elif how == 7 and text.startswith("---\n") and "\n---" in text[3:]:
            end = text.index("\n---", 3)
            head = text[4:end].split("\n")
            line = rnd.choice(FRONTMATTER_LINES)
            head.insert(rnd.randint(0, len(head)), line)
            path.write_text("---\n" + "\n".join(head) + text[end:], encoding="utf-8")
            done.append(f"{line[:20]!r} into the frontmatter of {rel}")
        elif how == 8 and lines:
            ending = rnd.choice(["\r\n", "\r"])
            i = rnd.randrange(len(lines))
            path.write_text("\n".join(lines[:i]) + ending + "\n".join(lines[i:]), encoding="utf-8")
            done.append(f"a {ending!r} ending at {rel}:{i}")
    return done


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink()
    }


def _cases() -> list[object]:
    out = [pytest.param("examples", seed, id=f"examples-{seed}") for seed in range(8)]
    out += [
        pytest.param(f"fixture:{name}", seed, id=f"{name}-{seed}")
        for name in FIXTURE_TREES
        for seed in range(3)
    ]
    out += [
        pytest.param(f"corpus:{name}", seed, id=f"{name.split('-')[0]}-{seed}")
        for name in CORPORA
        for seed in range(2)
    ]
    return out


def _tree(kind: str, into: Path) -> Path:
    if kind == "examples":
        shutil.copytree(EXAMPLES, into, symlinks=True)
    elif kind.startswith("fixture:"):
        write_tree(into, tree_files(kind.split(":", 1)[1], None))
    else:
        corpus = SHARED / "corpora" / kind.split(":", 1)[1]
        if not corpus.is_dir():
            pytest.skip(f"{corpus} is not here (../shared is beside the project in CI)")
        shutil.copytree(corpus, into, symlinks=True)
    return into


@pytest.mark.parametrize(("kind", "seed"), _cases())
def test_a_damaged_tree_is_checked_and_fixed_cleanly(
    kind: str,
    seed: int,
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    root = _tree(kind, tmp_path / "tree")
    done = damage(root, random.Random(f"{kind}/{seed}"))
    where = f"after: {'; '.join(done)}"
    run = cli(str(root), "--format", "json", "-q")
    assert "internal error" not in run.err, f"{where}\n{run.err}"
    if run.code == 2:  # a config or pack the damage broke: one line that names it
        assert run.err.count("\n") == 1 and ".yaml" in run.err, f"{where}\n{run.err}"
        return
    before = Counter(f["code"] for f in run.json()["findings"])
    files = _snapshot(root)
    diff = cli(str(root), "--diff", "--unsafe-fixes", "-q")
    assert "internal error" not in diff.err, f"{where}\n{diff.err}"
    assert _snapshot(root) == files, f"--diff wrote files {where}"
    fix = cli(str(root), "--fix", "--unsafe-fixes", "-q")
    assert fix.code in (0, 1), f"{where}\n{fix.err}"
    fixed = _snapshot(root)
    assert diff.out == git_diff(files, fixed), where
    after = cli(str(root), "--format", "json", "-q")
    grown = {
        code: (before[code], n)
        for code, n in Counter(f["code"] for f in after.json()["findings"]).items()
        if n > before[code]
    }
    assert not grown, f"--fix made findings of these codes {where}: {grown}"
    cli(str(root), "--fix", "--unsafe-fixes", "-q")
    assert _snapshot(root) == fixed, f"a second --fix changed the tree {where}"

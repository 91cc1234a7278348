"""Hostile input for the state-vocabulary and name-reference scanners: patterns that must not
backtrack (a 100,000-character input made to, finished within the same limit, as in
tests/robustness/test_hostile_patterns.py), code that does not parse, a huge enum, and state
names in other scripts."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from drift_check.facts import SchemaFile, Source
from drift_check.scanners.files import Repo
from drift_check.scanners.json_parser import JsonSyntaxError, parse_plain
from drift_check.scanners.python_symbols import python_module
from drift_check.scanners.references import skill_references, spawner_references
from drift_check.scanners.state_code import typescript_lists
from drift_check.scanners.state_python import python_lists
from drift_check.scanners.vocabulary import read_markdown, schema_definitions
from tests.conftest import tree_files, write_tree
from tests.robustness.test_hostile_patterns import LIMIT, SIZE, fill

pytestmark = pytest.mark.slow  # large generated hostile trees


def run_markdown(text: str) -> object:
    return read_markdown(Source("skills/a/SKILL.md", text))


def run_schema(text: str) -> object:
    source = Source("a.schema.json", text)
    try:
        plain = parse_plain(source)
    except JsonSyntaxError as exc:  # the warm-up's cut text
        return exc
    return schema_definitions(SchemaFile(source.path, source, plain, "", "", (), ""))


def run_python(text: str) -> object:
    return python_lists(Source("hooks/a.py", text)), python_module(Source("hooks/a.py", text))


def run_typescript(text: str) -> object:
    return typescript_lists(Source("src/a.ts", text))


def run_references(text: str) -> object:
    source = Source("agents/a.md", text)
    return skill_references(source), spawner_references(source)


CASES = [
    pytest.param(run_markdown, fill("|---|---|\n", "| Status | Action |\n"), id="table separators"),
    pytest.param(
        run_markdown,
        fill("| `A` | go |\n", "| Status | Action |\n|---|---|\n", "|x"),
        id="many rows",
    ),
    pytest.param(run_markdown, fill("- `A` → go\n"), id="arrow items"),
    pytest.param(run_markdown, fill("- `" + "A" * 50, "", " →"), id="an unclosed backtick item"),
    pytest.param(run_markdown, fill("-" * 40 + ">", "- x "), id="arrows without items"),
    pytest.param(run_markdown, fill("  |- A -> go\n", "```\n", "```\n"), id="an arrow tree"),
    pytest.param(run_markdown, fill("|-" * 30 + "\n", "```\n", "```\n"), id="tree glyphs only"),
    pytest.param(
        run_markdown, fill(" A |", '```json\n{"state": "', '"}\n```\n'), id="long alternatives"
    ),
    pytest.param(run_markdown, fill("  k: a | b\n", "X_RESULT:\n"), id="a long template"),
    pytest.param(run_markdown, fill('"k": "v", ', "```json\n{", "\n```\n"), id="loose pairs"),
    pytest.param(
        run_markdown,
        fill("<" * 10 + " | ", '```json\n{"a": "', '"}\n```\n'),
        id="placeholder marks",
    ),
    pytest.param(
        run_schema,
        '{"properties": {'
        + ",".join(f'"p{i}": {{"enum": ["a", "b"]}}' for i in range(2000))
        + "}}",
        id="many enums",
    ),
    pytest.param(
        run_python, "S = (" + ", ".join(f'"s{i}"' for i in range(6000)) + ")\n", id="a huge tuple"
    ),
    pytest.param(run_python, fill("x == 'A' or ", "if ", "x\n    pass\n"), id="many comparisons"),
    pytest.param(run_typescript, fill('"a" | ', "type T = ", "\n"), id="an unterminated union"),
    pytest.param(run_typescript, fill('"a", ', "const X = [", "\n"), id="an unclosed array"),
    pytest.param(
        run_typescript, fill('"a", ', "const X = z.enum([", "\n"), id="an unclosed z.enum"
    ),
    pytest.param(run_typescript, fill("switch (s) { case 'A': ", "", "\n"), id="nested switches"),
    pytest.param(run_references, fill('Skill("' + "a" * 40, "", "\n"), id="unclosed Skill calls"),
    pytest.param(run_references, fill("spawned by `a`, ", "", "\n"), id="a long spawner chain"),
    pytest.param(run_references, fill("- `/a` x\n", "Spawned by:\n\n"), id="a long spawner list"),
    pytest.param(run_references, fill("spawned by ", "", "x"), id="spawned by, many times"),
]


@pytest.mark.parametrize(("run", "text"), CASES)
def test_finishes_within_the_limit(run, text: str) -> None:  # type: ignore[no-untyped-def]
    assert len(text) >= SIZE or run in (run_schema, run_python)
    run(text[:200])  # warm up
    start = time.perf_counter()
    run(text)
    elapsed = time.perf_counter() - start
    assert elapsed < LIMIT, f"{elapsed:.2f} s"


def test_citations_in_a_long_line_finish(tmp_path: Path) -> None:
    write_tree(tmp_path, {"hooks/a.py": "def f():\n    pass\n"})
    from drift_check.scanners.references import python_citations

    repo = Repo(str(tmp_path))
    text = fill("hooks/a.py:1 `f` ", "", "\n") + fill("a/" * 20 + "b.py::", "", "x\n")
    start = time.perf_counter()
    found = python_citations(Source("docs/a.md", text), repo.existing(), repo)
    assert time.perf_counter() - start < LIMIT
    assert found  # the real ones are still found


def test_python_that_does_not_parse_or_nests_too_deep_gives_nothing() -> None:
    assert python_lists(Source("a.py", "def f(:\n")) == []
    deep = "x = " + "(" * 5000 + ")" * 5000 + "\n"
    assert python_lists(Source("a.py", deep)) == []
    assert not python_module(Source("a.py", "def f(:\n")).parsed
    assert python_lists(Source("a.py", "print 'py2'\n")) == []


def test_a_huge_enum_is_one_vocabulary_and_a_short_message(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    states = [f"S{i}" for i in range(20000)]
    write_tree(
        tmp_path,
        tree_files(
            "states",
            {
                "skills/big/SKILL.md": "---\nname: big\ndescription: Use when big.\n---\n\n"
                '```json\n{"job": "", "phase": "S0 | S1", "note": ""}\n```\n',
                "schemas/big.schema.json": json.dumps(
                    {"properties": {"job": {}, "phase": {"enum": states}, "note": {}}}, indent=1
                ),
                "hooks/phases.py": "ALL_PHASES = ('S0', 'S1')\n",
            },
        ),
    )
    start = time.perf_counter()
    run = cli(str(tmp_path), "--format", "json", "-q", "--select", "DC95")
    assert time.perf_counter() - start < 20
    [finding] = run.json()["findings"]
    assert finding["code"] == "DC953"
    assert "`S2`, `S3`" in finding["message"]
    assert "and 19990 more" in finding["message"]
    assert len(finding["message"]) < 400


def test_state_names_in_other_scripts_keep_their_columns(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Columns count characters, not the UTF-8 bytes `ast` counts: `ÉTAT_INCONNU` starts at
    column 21 of a line whose `É`s take two bytes each; the Enum lacks `ÉCHOUÉ`."""
    write_tree(
        tmp_path,
        {
            "skills/rapport/SKILL.md": "---\nname: rapport\n"
            "description: Use when reporting.\n---\n\n"
            '```json\n{"rapport": "", "état": "PRÊT | BLOQUÉ | ÉCHOUÉ", "résumé": ""}\n```\n',
            "hooks/états.py": "from enum import Enum\n\n\nclass État(Enum):\n"
            '    PRÊT = "PRÊT"\n    BLOQUÉ = "BLOQUÉ"\n    ÉTAT_INCONNU = "ÉTAT_INCONNU"\n',
        },
    )
    run = cli(str(tmp_path), "--format", "json", "-q", "--select", "DC95")
    found = {(f["code"], f["path"], f["line"], f["column"]) for f in run.json()["findings"]}
    assert found == {
        ("DC952", "hooks/états.py", 7, 21),
        ("DC953", "hooks/états.py", 4, 1),
    }

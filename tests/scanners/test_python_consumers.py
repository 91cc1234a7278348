"""Python hooks consume a marker only through string literals: read with the standard `ast`
and the literal scanner (drift_check/scanners/pystrings.py), each literal where it is
written. tests/scanners/test_python_literals_property.py checks the same on generated sources."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from drift_check.facts import Consumer, InputProblem, Position, Source
from drift_check.scanners import consumers as consumers_scanner
from drift_check.scanners.pystrings import python_literals
from tests.conftest import FIXTURES, load_yaml, tree_files, write_tree

HOOK = '''\
"""Docstring mentioning ## PLAN COMPLETE is a literal too."""
# ## PLANNING COMPLETE in a comment is not a consumption
ROUTES = {"## CHECKPOINT REACHED": "ask"}
name = "x"
message = f"got ## ROADMAP CREATED from {name}"
raw = b"## RAW BYTES"
joined = ("## SPLIT " "MARKER")
'''


def _literals(text: str) -> tuple[list[tuple[str, Position]], list[InputProblem]]:
    problems: list[InputProblem] = []
    found = python_literals(Source("hooks/route.py", text), problems)
    return [(lit.value, lit.position) for lit in found], problems


def _found(text: str) -> list[tuple[str, int, int]]:
    literals, problems = _literals(text)
    assert problems == []
    return [(value, p.line, p.column) for value, p in literals]


def test_string_literals_with_their_positions() -> None:
    literals, problems = _literals(HOOK)
    assert problems == []
    values = dict(literals)
    assert values["## CHECKPOINT REACHED"] == Position("hooks/route.py", 3, 11)
    assert values["got ## ROADMAP CREATED from "] == Position("hooks/route.py", 5, 13)
    assert values["## RAW BYTES"] == Position("hooks/route.py", 6, 7)
    assert "## SPLIT " in values and "MARKER" in values
    assert not any("PLANNING COMPLETE" in v for v, _ in literals)


def test_consumer_matches_literals_only() -> None:
    problems: list[InputProblem] = []
    source = Source("hooks/route.py", HOOK)
    consumer = Consumer(source, python_literals(source, problems))
    assert consumer.find("CHECKPOINT REACHED") == Position("hooks/route.py", 3, 11)
    assert consumer.find("PLANNING COMPLETE") is None  # only in a comment
    assert consumer.find("PLAN COMPLETE") == Position("hooks/route.py", 1, 1)


# What libcst reported for each (drift-check read Python with it before): the value of a
# plain string, an f-string's text parts as written, at the column in characters.
CASES = [
    pytest.param('x = ("a"\n     "b")', [("a", 1, 6), ("b", 2, 6)], id="concatenated over lines"),
    pytest.param('x = "a\\\nb"', [("ab", 1, 5)], id="a line continuation inside"),
    pytest.param('é = "after"; ü = "z"', [("after", 1, 5), ("z", 1, 18)], id="non-ASCII code"),
    pytest.param(
        'x = f"é{y}ü{z!r}ß"', [("é", 1, 7), ("ü", 1, 11), ("ß", 1, 17)], id="non-ASCII f-string"
    ),
    pytest.param('x = f"a{{b}}c{x}d"', [("a{{b}}c", 1, 7), ("d", 1, 17)], id="doubled braces"),
    pytest.param('x = f"\\N{DASH}{x}"', [("\\N{DASH}", 1, 7)], id="named escape, as written"),
    pytest.param('x = rf"\\N{x}"', [("\\N", 1, 8)], id="raw: a field after the backslash"),
    pytest.param(
        'x = f"{x!r:>{w}} {x = !r:>{w}}"',
        [(">", 1, 12), (" ", 1, 17), (">", 1, 26)],
        id="conversions, debug and specs",
    ),
    pytest.param(
        "x = f'''{y:{'>' if z else '<'}10}'''",
        [(">", 1, 13), ("<", 1, 27), ("10", 1, 31)],
        id="strings in a nested field",
    ),
    pytest.param('x = f"""a{\n  x\n}b"""', [("a", 1, 9), ("b", 3, 2)], id="a field over lines"),
    pytest.param(
        'x = f"{x}" "plain" f"{y}tail"', [("plain", 1, 12), ("tail", 1, 25)], id="mixed pieces"
    ),
    pytest.param(
        'x = b"\\xc3\\xa9" rb"\\x00"', [("é", 1, 5), ("\\x00", 1, 17)], id="bytes as UTF-8"
    ),
    pytest.param('x = "\\u00e9\\N{BULLET}"', [("é•", 1, 5)], id="escapes applied"),
    pytest.param(
        "x = f\"{ {'a': 1}['a'] }\"", [("a", 1, 10), ("a", 1, 18)], id="a dict in a field"
    ),
    pytest.param('x = f"{a!=b}{x:=5}"', [("=5", 1, 16)], id="!= is no conversion"),
    pytest.param(
        'match x:\n    case "m" if y == f"g{z}":\n        pass',
        [("m", 2, 10), ("g", 2, 24)],
        id="match case",
    ),
    pytest.param('x = 1 if"x"else"y"', [("x", 1, 9), ("y", 1, 16)], id="keywords, no prefix"),
    # Python 3.12's f-strings (the enclosing quote inside a field, backslashes, comments),
    # read as libcst read them on 3.11 too
    pytest.param('x = f"{d["k"]!r:{"w"}}"', [("k", 1, 10), ("w", 1, 18)], id="3.12: quotes"),
    pytest.param("x = f\"{'\\n'.join(y)}\"", [("\n", 1, 8)], id="3.12: a backslash"),
    pytest.param('x = f"""{\n  x  # "c"\n}z"""', [("z", 3, 2)], id="3.12: a comment"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_literals_as_written(text: str, expected: list[tuple[str, int, int]]) -> None:
    assert _found(text) == expected


def test_syntax_error_is_a_problem_not_an_exception() -> None:
    literals, problems = _literals('x = "## A"\ndef broken(:\n')
    assert literals == []
    (problem,) = problems
    assert problem.position.path == "hooks/route.py"
    assert problem.position.line == 2
    assert "does not parse" in problem.message


def test_a_newer_fstring_in_a_file_that_does_not_parse_is_the_files_error() -> None:
    literals, problems = _literals('x = f"{d["k"]}"\ndef broken(:\n')
    assert literals == []
    (problem,) = problems
    assert problem.position.line == (2 if sys.version_info >= (3, 12) else 1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("x = " + "(" * 300 + ")" * 300, "does not parse", id="too many parentheses"),
        pytest.param("x = " + "-" * 100_000 + "1", "nests too deeply", id="100,000 minus signs"),
    ],
)
def test_hostile_nesting_is_a_problem(text: str, message: str) -> None:
    literals, problems = _literals(text)
    assert literals == []
    (problem,) = problems
    assert message in problem.message


def test_invalid_escapes_warn_nobody() -> None:
    """Python warns of `"\\d"` when it parses a file: the file's business, never a warning
    (or, with warnings as errors, a failure) of drift-check's."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _found('x = "\\d" "\\q"\ny = f"{x}\\d"\n') == [
            ("\\d", 1, 5),
            ("\\q", 1, 10),
            ("\\d", 2, 10),
        ]


@pytest.mark.slow
def test_a_plain_check_never_imports_libcst(tmp_path: Path) -> None:
    """libcst took 0.2 s to import and most of a run on hook-heavy trees; the check reads
    Python with the standard `ast`."""
    root = write_tree(tmp_path, tree_files("gsd", None))
    assert (root / "hooks/route.py").is_file()
    script = (
        "import sys\nfrom drift_check.cli import main\n"
        f"main([{str(root)!r}, '-q', '--format', 'json'])\n"
        "sys.stderr.write(str(sorted(m for m in sys.modules if 'libcst' in m)))\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.stderr.endswith("[]"), run.stderr


def _python_cases() -> list[object]:
    """Every rule case whose tree holds a Python file."""
    out = []
    for path in sorted((FIXTURES / "rules").glob("*.yaml")):
        data = load_yaml(path)
        for case in data["cases"]:
            files = tree_files(case.get("base"), case.get("files"))
            if any(p.endswith(".py") for p in files):
                out.append(pytest.param(files, id=f"{data['rule']}: {case['name']}"))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("files", _python_cases())
def test_hooks_are_parsed_only_where_a_rule_reads_them(
    files: dict[str, str | bytes], tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    """Where no rule can read a hook's literals the hooks are not parsed, and every rule
    reports what it reports with them parsed; only a hook that does not parse goes
    unreported there (DC001 says its strings are not checked: nothing would check them)."""
    root = str(write_tree(tmp_path, files))
    decided: list[bool] = []

    def spy(*args: object) -> bool:
        decided.append(consumers_scanner.python_literals_read(*args))  # type: ignore[arg-type]
        return decided[-1]

    monkeypatch.setattr("drift_check.scanners.python_literals_read", spy)
    plain = cli(root, "--format", "json", "-q").json()["findings"]
    if all(decided):
        return  # parsed: nothing skipped
    monkeypatch.setattr("drift_check.scanners.python_literals_read", lambda *args: True)
    parsed = cli(root, "--format", "json", "-q").json()["findings"]
    unparsed = [
        f for f in parsed if f["code"] == "DC001" and "Python file does not parse" in f["message"]
    ]
    assert plain == [f for f in parsed if f not in unparsed]

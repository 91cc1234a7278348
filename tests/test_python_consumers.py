"""Python hooks consume a marker only through string literals, found with libcst."""

from __future__ import annotations

from drift_check.facts import Consumer, InputProblem, Position, Source
from drift_check.scanners.consumers import python_literals

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


def test_syntax_error_is_a_problem_not_an_exception() -> None:
    literals, problems = _literals('x = "## A"\ndef broken(:\n')
    assert literals == []
    (problem,) = problems
    assert problem.position.path == "hooks/route.py"
    assert problem.position.line == 2
    assert "does not parse" in problem.message

"""What Python warns of while drift-check parses a repository's Python file (an invalid
escape: a SyntaxWarning printed to stderr from Python 3.12, a DeprecationWarning before) is
the file's business: no scanner that parses Python lets it out."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

from drift_check.facts import Source
from drift_check.scanners.code_reads import code_reads
from drift_check.scanners.pystrings import python_literals
from drift_check.scanners.python_symbols import python_module
from drift_check.scanners.state_python import python_lists

HOOK = """\
import re

STATES = ("READY", "DONE")
PATTERN = "\\d+ items"


def route(text):
    result = read_block(text, "CONTEXT_RESULT")
    if result["plan_status"] == "READY":
        return PATTERN
"""

SCANS: dict[str, Callable[[Source], Any]] = {
    "python_module": python_module,
    "python_lists": python_lists,
    "code_reads": lambda source: code_reads([source], ["CONTEXT_RESULT"]),
    "python_literals": lambda source: python_literals(source, []),
}


@pytest.mark.parametrize("scan", sorted(SCANS))
def test_an_invalid_escape_warns_nobody(scan: str) -> None:
    source = Source("hooks/route.py", HOOK, "\n", False, 0, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = SCANS[scan](source)
    assert [str(w.message) for w in caught] == []
    assert found  # the file parsed: each scan found what it looks for

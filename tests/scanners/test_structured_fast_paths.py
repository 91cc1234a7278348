"""Faster paths in the structured-contract scanners and the text model give what the code
they replaced gave.

As in `test_fast_paths.py`: each test keeps the replaced code as a plain reference and
checks the optimisation against it on generated inputs built from the shapes that matter.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from drift_check.facts import Source
from drift_check.scanners import schemas, structured

pytestmark = pytest.mark.slow  # hypothesis: fast paths against the code they replaced

# --- a template value's comment: the character walk only where a `#` is -----------------


def reference_without_comment(text: str) -> str:
    quote = ""
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'" and (i == 0 or text[i - 1] in " \t:[,"):
            quote = c
        elif c == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


VALUE = st.lists(
    st.sampled_from(["a", " ", "\t", "#", '"', "'", ":", "[", ",", "<x>", "\r", "\u00a0"]),
    max_size=12,
).map("".join)


@settings(max_examples=600, deadline=None)
@given(VALUE)
@example("success | error  # the status")
@example("'a # b' # c")
@example("a \t ")
def test_without_comment_agrees(text: str) -> None:
    assert structured._without_comment(text) == reference_without_comment(text)


# --- line starts: summed line lengths, not a search for every newline -------------------


def reference_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["a", "\n", "\r", "é", "\u2028", " ", "\r\n"]), max_size=20))
@example([])
@example(["\n"])
def test_line_starts_agree(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert list(Source("a.md", text).starts) == reference_starts(text)


# --- schema keys: a walk for `$ref` / `if` only where the text may write one -------------


def keys_of(node: Any) -> set[str]:
    found: set[str] = set()
    todo = [node]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            found.update(node)
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return found


KEY = st.sampled_from(["$ref", "if", "then", "ref", "$re", "i", "f", "\u00e9", '"if"', "$ref\\"])
DOCUMENT = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), KEY),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEY, inner, max_size=3)),
    max_leaves=12,
)


@settings(max_examples=600, deadline=None)
@given(DOCUMENT, st.booleans(), st.sampled_from([None, 2]))
@example({"if": {"$ref": "#/x"}}, True, None)
@example({"a\u00e9": 1}, True, None)
def test_may_hold_key_never_misses_a_key(document: Any, ascii_only: bool, indent: Any) -> None:
    text = json.dumps(document, ensure_ascii=ascii_only, indent=indent)
    held = keys_of(json.loads(text))
    for key in ("$ref", "if"):
        if key in held:
            assert schemas._may_hold_key(text, key)


def test_may_hold_key_sees_an_escaped_key() -> None:
    text = '{"\\u0024ref": "#/x", "\\u0069f": {}}'
    assert {"$ref", "if"} <= keys_of(json.loads(text))
    assert schemas._may_hold_key(text, "$ref") and schemas._may_hold_key(text, "if")

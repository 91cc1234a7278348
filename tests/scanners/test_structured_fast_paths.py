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

from drift_check import validation
from drift_check.facts import SchemaFile, Source, escape_pointer
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


# --- schema walks: only objects and arrays are visited -----------------------------------


def reference_local_refs(plain: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    todo: list[tuple[str, Any]] = [("", plain)]
    while todo:
        pointer, node = todo.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                child = f"{pointer}/{escape_pointer(key)}"
                if key == "$ref" and isinstance(value, str):
                    if value.startswith("#"):
                        out.append((child, value))
                elif key not in ("enum", "const", "examples", "default"):
                    todo.append((child, value))
        elif isinstance(node, list):
            todo.extend((f"{pointer}/{i}", item) for i, item in enumerate(node))
    return sorted(out)


def reference_vacuous_ifs(schema: SchemaFile) -> list[Any]:
    declared_at: dict[str, str] = {}
    conditions: list[tuple[str, Any, str, dict[str, Any]]] = []
    todo: list[tuple[str, Any, str, Any]] = [("", schema.plain, "", None)]
    while todo:
        pointer, node, parent_pointer, parent = todo.pop()
        if isinstance(node, list):
            todo.extend(
                (f"{pointer}/{i}", item, parent_pointer, parent) for i, item in enumerate(node)
            )
            continue
        if not isinstance(node, dict):
            continue
        condition = node.get("if")
        if isinstance(condition, dict):
            in_branch = pointer.rsplit("/", 2)[-2:-1] in (["allOf"], ["anyOf"], ["oneOf"])
            level_pointer, level = (
                (parent_pointer, parent) if in_branch and parent is not None else (pointer, node)
            )
            conditions.append((level_pointer, level, f"{pointer}/if", condition))
        for key, value in node.items():
            child = f"{pointer}/{escape_pointer(key)}"
            if key == "properties" and isinstance(value, dict) and "/if" not in child:
                for prop in value:
                    declared_at.setdefault(prop, child)
            if key in ("enum", "const", "examples", "default"):
                continue
            todo.append((child, value, pointer, node))
    out = []
    for level_pointer, level, if_pointer, condition in conditions:
        keys = validation._level_keys(schema, level)
        tested = condition.get("properties")
        if keys is None or not isinstance(tested, dict):
            continue
        required = condition.get("required")
        required_keys = (
            {v for v in required if isinstance(v, str)} if isinstance(required, list) else set()
        )
        closed = any(
            level.get(k) is False for k in ("additionalProperties", "unevaluatedProperties")
        )
        for key in tested:
            elsewhere = declared_at.get(key, "")
            if key in keys or not (closed or elsewhere):
                continue
            at = f"{if_pointer}/properties/{escape_pointer(key)}"
            position = schema.position(at, key=True)
            out.append(
                validation.VacuousIf(position, level_pointer, key, key in required_keys, elsewhere)
            )
    return sorted(out)


SCHEMA_KEY = st.sampled_from(
    [
        *("$ref", "if", "then", "properties", "allOf", "anyOf", "required", "enum", "const"),
        *("additionalProperties", "a", "b", "a/b", "~"),
    ]
)
SCHEMA = st.recursive(
    st.one_of(st.booleans(), st.just("#/properties/a"), st.just("#"), st.just("a"), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(SCHEMA_KEY, inner, max_size=4)
    ),
    max_leaves=24,
)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(SCHEMA_KEY, SCHEMA, max_size=5))
@example(
    {
        "properties": {"a": {}},
        "additionalProperties": False,
        "allOf": [{"if": {"properties": {"b": {"const": 1}}, "required": ["b"]}}],
        "then": {"$ref": "#/properties/a"},
    }
)
def test_schema_walks_agree(document: dict[str, Any]) -> None:
    text = json.dumps(document, indent=1)
    schema = SchemaFile("s.schema.json", Source("s.schema.json", text), document, "", "", (), "")
    assert validation._local_refs(schema) == reference_local_refs(document)
    assert validation.vacuous_ifs(schema) == reference_vacuous_ifs(schema)


def reference_examples(document: Any) -> tuple[Any, ...]:
    out: list[Any] = []
    todo: list[tuple[str, Any]] = [("", document)]
    while todo:
        pointer, node = todo.pop()
        if isinstance(node, list):
            todo.extend((f"{pointer}/{i}", item) for i, item in reversed(list(enumerate(node))))
            continue
        if not isinstance(node, dict):
            continue
        below = []
        for key, value in node.items():
            if key == "examples" and isinstance(value, list):
                out.extend(
                    schemas.SchemaExample(pointer, "examples", i, v) for i, v in enumerate(value)
                )
            elif key == "default":
                out.append(schemas.SchemaExample(pointer, "default", 0, value))
            elif key not in ("enum", "const", "examples") and isinstance(value, (dict, list)):
                below.append((f"{pointer}/{escape_pointer(key)}", value))
        todo.extend(reversed(below))
    return tuple(out)


EXAMPLE_KEY = st.sampled_from(["examples", "default", "enum", "const", "properties", "a/b", "~x"])
EXAMPLE_DOCUMENT = st.recursive(
    st.one_of(st.integers(0, 3), st.just("x"), st.none()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(EXAMPLE_KEY, inner, max_size=4)
    ),
    max_leaves=24,
)


@settings(max_examples=500, deadline=None)
@given(EXAMPLE_DOCUMENT)
@example({"properties": {"a/b": {"examples": [1], "default": 2}}, "items": [{}, {"default": 3}]})
def test_schema_examples_agree(document: Any) -> None:
    assert schemas._examples(document) == reference_examples(document)


# --- what a text may hold: the cheap looks never skip what the full scan finds ------------

STRUCTURED_PIECES = st.sampled_from(
    [
        *("```json\n", "``` JSON\n", "~~~json:contract\n", "````yaml\n", "```\n", "> ```json\n"),
        *('{"a": 1}\n', "    ```json\n", "`", "~~~", "text ", ".", "\n", "|"),
        *("| name | type |\n", "| Field | Required? |\n", "|---|---|\n", "| x | y |\n"),
        *("| `a.b` | string |\n", "CONTEXT_RESULT:\n", "  status: ok\n", "ACTION: run\n"),
        *("CONTEXT_RESULT.status ", "X_REQUEST.a.b ", "SKILL.md ", "A.b ", "# H\n"),
    ]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(STRUCTURED_PIECES, max_size=14).map("".join), st.booleans())
@example("A.b | name | type |\n|---|---|\n| x | y |\n", True)
@example("text\n| Field | Required? |\n|---|---|\n| `a.b` | yes |\n", True)
@example("> ``` JSON\n{}\n> ```\nCONTEXT_RESULT.status\n", True)
@example("CONTEXT_RESULT.status and SKILL.md\n", True)
@example("``` JSON:contract\n{}\n```\n", False)
def test_worth_scanning_never_skips_what_the_scan_finds(text: str, full: bool) -> None:
    """A text said to hold nothing gives no block, table or read; one said to hold reads
    only gives no block or table, and the reads the scan gives."""
    from drift_check.scanners.markdown import scan
    from drift_check.settings import resolve

    config = resolve([])
    names = re.compile(config["structured-template-names"])
    source = Source("a.md", text)
    found = structured.scan_structured(source, scan(text), config, full)
    what = structured.worth_scanning(text, config, names, full)
    if what == structured.NOTHING:
        assert not (found.blocks or found.tables or found.reads)
    elif what == structured.READS:
        assert not (found.blocks or found.tables)
        assert structured.field_reads(source, names) == found.reads

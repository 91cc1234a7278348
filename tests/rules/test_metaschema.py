"""The meta-schema check, one subschema at a time (drift_check/metaschema.py), finds
what jsonschema's own recursive check finds, on every dialect, for valid schemas, for schemas
broken in every keyword at every kind of place, for generated ones, and for the schemas of
the corpora when they are present: the same places with the same messages, except where the
meta-schema offers alternatives (`items` before 2020-12: a schema or a list of them), where
jsonschema names the subschema ("not valid under any of the given schemas") and the split
check names the keyword inside it that is wrong."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import exceptions

from drift_check.metaschema import MetaChecker
from tests.conftest import SHARED

DIALECTS = [
    jsonschema.Draft202012Validator,
    jsonschema.Draft201909Validator,
    jsonschema.Draft7Validator,
    jsonschema.Draft6Validator,
    jsonschema.Draft4Validator,
]
CHECKER = MetaChecker()

BASE = {
    "type": "object",
    "title": "Result",
    "required": ["status"],
    "properties": {
        "status": {"type": "string", "enum": ["ok", "failed"], "description": "outcome"},
        "counts": {
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 0}},
            "additionalProperties": False,
        },
        "items": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
        "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
    "patternProperties": {"^x-": {"type": "string"}},
    "dependencies": {"status": ["counts"], "counts": {"required": ["items"]}},
    "definitions": {"name": {"type": "string", "minLength": 1}},
    "$defs": {"code": {"type": "integer"}},
    "if": {"properties": {"status": {"const": "failed"}}},
    "then": {"required": ["counts"]},
    "not": {"required": ["never"]},
    "examples": [{"status": "ok"}],
}
# values no meta-schema accepts at the place they are put
BREAKS = [
    ("type", "text"),
    ("required", "status"),
    ("minimum", "zero"),
    ("minLength", -1),
    ("enum", 5),
    ("pattern", "(unclosed"),
    ("additionalProperties", 5),
    ("items", 5),
    ("allOf", []),
    ("properties", 5),
    ("title", 5),
    ("uniqueItems", "yes"),
]
PLACES = [(), ("properties", "status"), ("properties", "counts", "properties", "n"),
          ("properties", "items", "items"), ("definitions", "name"), ("$defs", "code"),
          ("properties", "either", "anyOf", 0), ("then",), ("dependencies", "counts")]  # fmt: skip


def full(cls, schema) -> list[tuple[tuple, str]]:  # type: ignore[no-untyped-def]
    meta = cls(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)
    found = []
    for error in meta.iter_errors(schema):
        best = exceptions.best_match([error])
        message = "(alternatives)" if best.validator in ("anyOf", "oneOf") else best.message
        found.append((tuple(best.absolute_path), message))
    return sorted(set(found), key=repr)


def agree(cls, schema) -> None:  # type: ignore[no-untyped-def]
    """Equal, but an `(alternatives)` error of jsonschema's may be found as errors inside
    the subschema it names."""
    mine, theirs = split(cls, schema), full(cls, schema)
    exact = [e for e in theirs if e[1] != "(alternatives)"]
    loose = [e[0] for e in theirs if e[1] == "(alternatives)"]
    inside = [e for e in mine if any(e[0][: len(p)] == p for p in loose)]
    assert sorted(set(mine) - set(inside), key=repr) == exact
    for place in loose:
        assert any(e[0][: len(place)] == place for e in inside), place


def split(cls, schema) -> list[tuple[tuple, str]]:  # type: ignore[no-untyped-def]
    found = []
    for at, error in CHECKER.problems(cls, schema):
        best = exceptions.best_match([error])
        found.append(((*at, *best.absolute_path), best.message))
    return sorted(set(found), key=repr)


def _put(schema: dict, place: tuple, key: str, value: object) -> dict:
    out = copy.deepcopy(schema)
    node = out
    for step in place:
        node = node[step]
    node[key] = value
    return out


@pytest.mark.parametrize("cls", DIALECTS, ids=lambda c: c.__name__)
def test_a_valid_schema_is_valid_both_ways(cls) -> None:  # type: ignore[no-untyped-def]
    assert full(cls, BASE) == split(cls, BASE) == []


@pytest.mark.slow
@pytest.mark.parametrize("cls", DIALECTS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("place", PLACES, ids=lambda p: "/".join(map(str, p)) or "root")
@pytest.mark.parametrize(("key", "value"), BREAKS, ids=lambda b: str(b))
def test_each_break_is_found_where_jsonschema_finds_it(cls, place, key, value) -> None:  # type: ignore[no-untyped-def]
    agree(cls, _put(BASE, place, key, value))


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["string", "x", "^a", ""]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "properties",
                    "items",
                    "required",
                    "enum",
                    "minimum",
                    "allOf",
                    "anyOf",
                    "not",
                    "additionalProperties",
                    "$ref",
                    "title",
                    "a",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@pytest.mark.slow  # a property run: hundreds of generated cases
@settings(max_examples=150, deadline=None, derandomize=True)
@given(document=_json, cls=st.sampled_from(DIALECTS))
def test_generated_schemas_agree(document, cls) -> None:  # type: ignore[no-untyped-def]
    agree(cls, document)


def _corpus_schemas() -> list[Path]:
    return sorted((SHARED / "corpora").glob("**/*.schema.json")) if SHARED.exists() else []


@pytest.mark.parametrize("path", _corpus_schemas(), ids=lambda p: p.name)
def test_corpus_schemas_agree(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    agree(jsonschema.validators.validator_for(schema), schema)

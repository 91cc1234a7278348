"""jsonschema-rs's yes (drift_check/quick.py) is taken only where jsonschema says yes too:
on the places where the two engines are known to part, on generated schemas and instances,
and against the meta-schemas; and the structured rules find the same with and without
jsonschema-rs."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drift_check import parallel, quick
from tests.conftest import FIXTURES, load_yaml, tree_files, write_tree
from tests.rules.test_metaschema import BASE, BREAKS, DIALECTS, PLACES, _corpus_schemas, _put, full

needs_rust = pytest.mark.skipif(quick.rust() is None, reason="jsonschema-rs is not installed")


def _python_errors(schema: Any, instance: Any) -> list[Any]:
    cls = jsonschema.validators.validator_for(schema)
    return list(cls(schema).iter_errors(instance))


def _trusted(schema: Any, instance: Any) -> bool:
    return quick.valid(quick.compiled(schema), instance)


# jsonschema finds an error where jsonschema-rs, asked plainly, would say yes or cannot say
PARTING = [
    ({"multipleOf": 0.1}, 0.3),  # floats divided: 2.9999999999999996
    ({"pattern": "^\\s*$"}, "\ufeff"),  # a space to ECMA's `\s`, not to Python's
    ({"pattern": "^\\S+$"}, "a\x1cb"),  # a space to Python's `\s`, not to ECMA's
    ({"maximum": 5}, math.inf),
    ({"maximum": 2**64}, 2**64 + 1),  # past what a double holds
    ({"maximum": 2**53}, 2**53 + 1),
]


@needs_rust
@pytest.mark.parametrize(("schema", "instance"), PARTING, ids=repr)
def test_where_the_engines_part_the_yes_is_not_taken(schema: Any, instance: Any) -> None:
    assert _python_errors(schema, instance)
    assert not _trusted(schema, instance)


def test_what_an_instance_may_hold() -> None:
    assert quick._portable_instance({'a"b': ['c\\d"\x00', 1, 0.5, None, True]}, True)
    assert not quick._portable_instance(["a\n"], True)
    assert not quick._portable_instance({"é": 1}, True)
    assert quick._portable_instance(["é", 2**40, 0.5], False)
    assert not quick._portable_instance([2**53], False)
    assert not quick._portable_instance([math.nan], False)


@needs_rust
@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "other.schema.json"},  # another file: jsonschema's registry has it
        {"$schema": "http://json-schema.org/draft-03/schema#", "type": "string"},
        {"pattern": "\\p{L}"},  # not Python's: jsonschema refuses the schema
        {"pattern": "[[:alpha:]]"},  # a nested set to Python's warning
        {"multipleOf": 0.5},
    ],
    ids=repr,
)
def test_schemas_the_engines_may_read_apart_are_not_compiled(schema: Any) -> None:
    assert quick.compiled(schema) is None


@needs_rust
def test_a_plain_yes_is_taken() -> None:
    schema = {
        "type": "object",
        "required": ["status"],
        "properties": {"status": {"enum": ["ok"]}, "version": {"pattern": "^\\d+\\.\\d+$"}},
        "additionalProperties": False,
    }
    assert _trusted(schema, {"status": "ok", "version": "1.0"})
    assert not _trusted(schema, {"status": "failed"})
    placeholder = "\x00drift-check: any value\x00"  # validation.py's sentinel
    assert _trusted({"type": "string", "pattern": "^[^/]"}, placeholder)


_texts = st.sampled_from(["ok", "", "a b", "1.0", "x\n", "\ufeff", "\u0663", "é", "A_1", "\x00"])
_numbers = st.sampled_from([0, 1, -1, 1.0, 0.3, 2.5, 2**53 + 1, math.inf, 10**20])
_leaf = st.none() | st.booleans() | _numbers | _texts
# a schema's own values: finite, as the JSON parser of schema files gives them
_schema_leaf = st.none() | st.booleans() | _numbers.filter(math.isfinite) | _texts
_instances = st.recursive(
    _leaf,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_texts, inner, max_size=3),
    max_leaves=8,
)
_keywords: Any = st.deferred(
    lambda: st.fixed_dictionaries(
        {},
        optional={
            "type": st.sampled_from(["string", "integer", "number", "object", "array", "null"]),
            "pattern": st.sampled_from(["^\\s*$", "^\\S+$", "^\\w+$", "^\\d", "a$", "^.$", "é"]),
            "enum": st.lists(_schema_leaf, min_size=1, max_size=3),
            "const": _schema_leaf,
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 3),
            "minimum": _numbers.filter(math.isfinite),
            "maximum": _numbers.filter(math.isfinite),
            "multipleOf": st.sampled_from([1, 2, 0.1, 0.5]),
            "required": st.lists(_texts, max_size=2, unique=True),
            "properties": st.dictionaries(_texts, _keywords, max_size=2),
            "patternProperties": st.dictionaries(
                st.sampled_from(["^a", "\\s", "^\\w+$"]), _keywords, max_size=1
            ),
            "additionalProperties": st.booleans(),
            "items": _keywords,
            "uniqueItems": st.booleans(),
            "anyOf": st.lists(_keywords, min_size=1, max_size=2),
            "not": _keywords,
            "if": _keywords,
            "then": _keywords,
        },
    ),
)


@needs_rust
@pytest.mark.slow  # a property run: hundreds of generated cases
@settings(max_examples=200, deadline=None, derandomize=True)
@given(schema=_keywords, instance=_instances)
def test_a_yes_on_generated_cases_is_jsonschemas(schema: Any, instance: Any) -> None:
    if _trusted(schema, instance):
        TAKEN.append(schema)
        assert _python_errors(schema, instance) == []


TAKEN: list[Any] = []


def _error_paths(schema: Any, instance: Any) -> set[tuple[Any, ...]]:
    return {tuple(e.absolute_path) for e in _python_errors(schema, instance)}


@needs_rust
@pytest.mark.slow  # a property run: hundreds of generated cases
@settings(max_examples=300, deadline=None, derandomize=True)
@given(schema=_keywords, instance=_instances)
def test_error_locations_on_generated_cases_are_jsonschemas(schema: Any, instance: Any) -> None:
    found = quick.error_paths(quick.compiled(schema), instance)
    if found is not None:
        assert found == _error_paths(schema, instance)


def _subschema_errors(root: Any, pointer: str, instance: Any) -> list[Any]:
    """jsonschema's errors for an instance of the subschema at `pointer`, its references
    resolved in `root` (as `Contracts.validator` has them)."""
    node = root
    for token in pointer.split("/")[1:]:
        node = node[token.replace("~1", "/").replace("~0", "~")]
    cls = jsonschema.validators.validator_for(root)
    return list(cls(root).evolve(schema=node).iter_errors(instance))


@needs_rust
@pytest.mark.slow  # a property run: hundreds of generated cases
@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    part=_keywords,
    defined=_keywords,
    name=st.sampled_from(["a", "a/b", "c~d"]),
    instance=_instances,
)
def test_a_yes_at_a_subschema_is_jsonschemas(
    part: Any, defined: Any, name: str, instance: Any
) -> None:
    # the subschema refers to another of the document: resolved where jsonschema does
    root = {
        "$defs": {"d": defined},
        "properties": {name: {"allOf": [part, {"$ref": "#/$defs/d"}]}},
    }
    pointer = "/properties/" + name.replace("~", "~0").replace("/", "~1")
    if quick.valid(quick.compiled_at(root, "s/a b.json", pointer), instance):
        TAKEN_AT.append(root)
        assert _subschema_errors(root, pointer, instance) == []


TAKEN_AT: list[Any] = []


_REFERRING = {"properties": {"a": {"$ref": "#/$defs/i"}}, "$defs": {"i": {"type": "integer"}}}
_DRAFT4 = {
    "$schema": "http://json-schema.org/draft-04/schema#",
    "properties": {"a": {"$ref": "#/definitions/i"}},
    "definitions": {"i": {"type": "integer"}},
}


@pytest.mark.parametrize(
    ("root", "pointer", "instance", "yes"),
    [
        (_REFERRING, "/properties/a", 3, True),
        (_REFERRING, "/properties/a", "x", False),
        ({"$id": "https://example.com/s.json", **_REFERRING}, "/properties/a", 4, True),
        ({"$id": "https://example.com/s.json", **_REFERRING}, "/properties/a", "x", False),
        (_DRAFT4, "/properties/a", 2, True),
        ({"properties": {"a b": {"minLength": 2}}}, "/properties/a b", "xy", True),
        ({"properties": {"é": {"minLength": 2}}}, "/properties/é", "x", False),
        ({"properties": {"a/b": {"minLength": 2}}}, "/properties/a~1b", "xy", True),
        ({"properties": {"a/b": {"minLength": 2}}}, "/properties/a~1b", "x", False),
        ({"properties": {"a": {"type": "string"}}}, "/properties/nowhere", "x", False),
        ({"properties": {"a": {"multipleOf": 0.1}}}, "/properties/a", 0.3, False),
    ],
    ids=repr,
)
@needs_rust
def test_a_subschemas_yes(root: Any, pointer: str, instance: Any, yes: bool) -> None:
    assert quick.valid(quick.compiled_at(root, "s/a b.json", pointer), instance) is yes
    if yes:
        assert _subschema_errors(root, pointer, instance) == []


@needs_rust
@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        (
            {"properties": {"a": {"type": "integer"}}, "additionalProperties": False},
            {"a": "x", "b": 1},
        ),
        ({"required": ["a", "c"], "properties": {"a": {"type": "integer"}}}, {"a": "x"}),
        ({"propertyNames": {"maxLength": 1}}, {"abc": "x"}),
        ({"if": {"required": ["s"]}, "then": {"required": ["d"]}}, {"s": "error"}),
        ({"properties": {"l": {"items": {"type": "integer"}, "minItems": 3}}}, {"l": ["a", 2]}),
        ({"prefixItems": [{"type": "integer"}], "contains": {"type": "null"}}, ["a", 2]),
        ({"additionalProperties": {"type": "integer"}, "maxProperties": 1}, {"q": "a", "r": 2}),
        (
            {"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"a": {"minProperties": 3}}},
            {"a": 1},
        ),
        ({"properties": {"a": {"oneOf": [{"type": "string"}, {"minLength": 1}]}}}, {"a": "x"}),
        ({"properties": {"a": {"not": {"type": "string"}, "const": {"k": 1}}}}, {"a": {"k": "v"}}),
        ({"unevaluatedProperties": False, "properties": {"a": {}}}, {"a": 1, "b": 2}),
        (
            {"$defs": {"i": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/i"}}},
            {"a": "x"},
        ),
        ({"properties": {"a": {"uniqueItems": True, "enum": [[1]]}}}, {"a": ["x", "x"]}),
    ],
    ids=repr,
)
def test_each_keyword_fails_where_jsonschema_says(schema: Any, instance: Any) -> None:
    found = quick.error_paths(quick.compiled(schema), instance)
    assert found  # each case fails somewhere
    assert found == _error_paths(schema, instance)


@needs_rust
def test_error_locations_are_not_taken_where_the_engines_part() -> None:
    for schema, instance in PARTING:
        assert quick.error_paths(quick.compiled(schema), instance) is None


@needs_rust
@pytest.mark.slow
def test_the_generated_cases_took_yeses() -> None:
    if not TAKEN:  # run alone: the property's own run (just above, in a whole run) is not
        test_a_yes_on_generated_cases_is_jsonschemas()
    assert len(TAKEN) > 50  # the property above is not vacuous
    if not TAKEN_AT:
        test_a_yes_at_a_subschema_is_jsonschemas()
    assert len(TAKEN_AT) > 50


def _meta_cases() -> list[tuple[Any, Any]]:
    cases = [(cls, BASE) for cls in DIALECTS]
    for cls in DIALECTS:
        for place in PLACES:
            cases.extend((cls, _put(BASE, place, key, value)) for key, value in BREAKS)
    for path in _corpus_schemas():
        schema = json.loads(path.read_text(encoding="utf-8"))
        cases.append((jsonschema.validators.validator_for(schema), schema))
    return cases


@needs_rust
def test_a_meta_schema_yes_is_jsonschemas() -> None:
    taken = 0
    for cls, schema in _meta_cases():
        if quick.meta_valid(cls, schema):
            taken += 1
            assert full(cls, schema) == [], (cls.__name__, schema)
    assert taken >= len(DIALECTS)  # the valid base at least
    assert not quick.meta_valid(jsonschema.Draft202012Validator, {"pattern": "(unclosed"})


@needs_rust
def test_a_meta_schema_yes_without_jsonschema_is_jsonschemas() -> None:
    taken = 0
    for _, schema in _meta_cases():
        if quick.meta_valid_alone(schema):
            taken += 1
            cls = jsonschema.validators.validator_for(schema)
            assert full(cls, schema) == [], (cls.__name__, schema)
    assert taken >= len(DIALECTS)  # the valid base at least
    assert not quick.meta_valid_alone({"pattern": "(unclosed"})
    assert not quick.meta_valid_alone({"$schema": "https://example.com/own", "type": "string"})
    assert quick.meta_valid_alone(True)


def test_the_dialects_read_alike_are_jsonschemas() -> None:
    for uri in quick._DIALECT_URIS:
        cls = jsonschema.validators.validator_for({"$schema": uri})
        assert cls.ID_OF(cls.META_SCHEMA).rstrip("#") == uri.rstrip("#")
    assert jsonschema.validators.validator_for({}) is jsonschema.Draft202012Validator


def test_the_formats_asserted_are_told_without_jsonschema() -> None:
    plain = all(importlib.util.find_spec(name) is None for name in quick._URI_CHECKERS)
    for uri in quick._DIALECT_URIS:
        cls = jsonschema.validators.validator_for({"$schema": uri})
        assert (quick._formats_asserted(cls) <= {"regex"}) is plain


def _structured_cases() -> list[Any]:
    out = []
    for path in sorted((FIXTURES / "rules").glob("DC92*.yaml")):
        data = load_yaml(path)
        out.extend(
            pytest.param(case, id=f"{data['rule']}: {case['name']}") for case in data["cases"]
        )
    return out


@pytest.mark.parametrize("case", _structured_cases())
def test_the_findings_are_the_same_without_jsonschema_rs(
    case: dict[str, Any], tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path, tree_files(case.get("base"), case.get("files")))
    with_rust = cli(str(tmp_path), "--format", "json", "-q")
    monkeypatch.setattr(quick, "_module", None)  # as when it cannot be imported
    without = cli(str(tmp_path), "--format", "json", "-q")
    assert without.code == with_rust.code
    assert without.json()["findings"] == with_rust.json()["findings"]


PLACEHOLDER_TREE = {
    "skills/tally/SKILL.md": """\
---
name: tally
description: Use when a job needs its items counted.
---

```
TALLY_RESULT:
  status: ok | failed
  count:  <how many>
  mode:   <fast | slow>
```

```
TALLY_RESULT:
  status: ok | broken
  count:  <how many>
```
""",
    "skills/tally/output-contract.schema.json": """\
{
  "title": "Tally: Output Contract (TALLY_RESULT)",
  "type": "object",
  "required": ["status", "count"],
  "properties": {
    "status": {"enum": ["ok", "failed"]},
    "count": {"type": "integer", "minimum": 0},
    "mode": {"enum": ["fast", "slow"]},
    "reason": {"type": "string"}
  },
  "additionalProperties": false,
  "if": {"properties": {"status": {"const": "failed"}}},
  "then": {"required": ["reason"]}
}
""",
}


@needs_rust
def test_placeholders_failing_alone_are_not_asked_of_jsonschema(
    tmp_path: Path, cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`<how many>` where the schema wants an integer fails in jsonschema-rs at the
    placeholder alone; `failed` makes `reason` required in one run only (not common to the
    runs: no finding); `broken` is outside the enum. The findings are jsonschema's."""
    from drift_check.validation import Contracts

    write_tree(tmp_path, PLACEHOLDER_TREE)
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")  # validations counted in this process
    asked: list[Any] = []
    errors_of = Contracts._errors_of

    def counted(self: Contracts, path: str, pointer: str, instance: Any) -> list[Any]:
        asked.append(instance)
        return errors_of(self, path, pointer, instance)

    monkeypatch.setattr(Contracts, "_errors_of", counted)
    with_rust = cli(str(tmp_path), "--format", "json", "-q")
    found = [(f["code"], f["line"]) for f in with_rust.json()["findings"]]
    assert found == [("DC925", 15)]
    assert len(asked) == 1  # the run with `broken` alone
    asked.clear()
    monkeypatch.setattr(quick, "_module", None)
    without = cli(str(tmp_path), "--format", "json", "-q")
    assert len(asked) == 4  # each run of each template
    assert without.json()["findings"] == with_rust.json()["findings"]

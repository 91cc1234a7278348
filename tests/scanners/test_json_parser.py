"""The JSON parser with positions (scanners/json_parser.py) against the standard `json`.

On valid JSON it gives the values `json.loads` gives, and every node's position is where
that value (or key) is written: decoding the text from there yields it again. On invalid
JSON it stops where `json.loads` stops, and says what it expected. The one difference is
deliberate: a trailing comma is reported at the comma (Python 3.13's `json` does the same;
older versions point at the bracket after it).
"""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from drift_check.facts import JsonValue, Source
from drift_check.scanners.json_parser import (
    JsonSyntaxError,
    Locator,
    member_values,
    parse_json,
    source_offset,
)

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=24,
)
LAYOUTS = st.fixed_dictionaries(
    {
        "indent": st.sampled_from([None, 0, 1, 2, "\t"]),
        "ensure_ascii": st.booleans(),
        "separators": st.sampled_from([None, (",", ":"), (" , ", " : ")]),
    }
)
# what an edit may insert: JSON's punctuation, blanks, digits, letters of the literals, and
# quotes, comments and escapes people get wrong (no `N` or `I`: json.loads takes NaN and
# Infinity, which are not JSON)
NOISE = st.sampled_from(list("{}[]:,\"\\ \n\t\r0123456789-+.eEtrufalsn/'xu*"))


def _nodes(value: JsonValue) -> list[tuple[JsonValue | None, str | None, object]]:
    """Every node of the tree as (node, key, key position): keys are listed too."""
    out: list[tuple[JsonValue | None, str | None, object]] = []
    todo = [value]
    while todo:
        node = todo.pop()
        out.append((node, None, None))
        if node.kind == "array":
            todo.extend(node.value)
        elif node.kind == "object":
            for member in node.value:
                out.append((None, member.key, member.key_position))
                todo.append(member.value)
    return out


def _error_offset(text: str) -> int | None:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        return exc.pos
    return None


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(VALUES, LAYOUTS)
def test_valid_json_gives_the_values_json_loads_gives_at_their_positions(value, layout) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps(value, **layout)
    doc = parse_json(text, "x.json")
    assert doc.plain() == json.loads(text)
    lines = Source("x.json", text)
    decoder = json.JSONDecoder()
    for node, key, key_position in _nodes(doc):
        if node is not None:
            offset = lines.offset(node.position.line, node.position.column)
            assert decoder.raw_decode(text, offset)[0] == node.plain()
        else:
            offset = lines.offset(*key_position[1:])  # type: ignore[index]
            assert decoder.raw_decode(text, offset)[0] == key


@settings(max_examples=600, deadline=None)
@given(
    VALUES, LAYOUTS, st.lists(st.tuples(st.integers(0, 10_000), NOISE, st.booleans()), max_size=3)
)
@pytest.mark.slow
def test_invalid_json_fails_where_json_loads_fails(value, layout, edits) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps(value, **layout)
    for where, char, insert in edits:
        i = where % (len(text) + 1)
        text = text[:i] + char + text[i + (0 if insert else 1) :]
    assume("NaN" not in text and "Infinity" not in text)
    expected = _error_offset(text)
    try:
        got: JsonValue | JsonSyntaxError = parse_json(text, "x.json")
    except JsonSyntaxError as exc:
        got = exc
    if expected is None:
        assert isinstance(got, JsonValue)
        assert got.plain() == json.loads(text)
        return
    assert isinstance(got, JsonSyntaxError)
    if got.offset != expected:  # a trailing comma: reported at the comma
        assert got.message.startswith("trailing comma")
        assert text[got.offset] == "," and text[expected] in "]}"
        assert text[got.offset + 1 : expected].strip(" \t\n\r") == ""
    assert got.position.line == text.count("\n", 0, got.offset) + 1


@pytest.mark.parametrize(
    ("text", "offset", "message"),
    [
        ('{"a": 1,}', 7, "trailing comma before `}`; remove it"),
        ("[1, 2, ]", 5, "trailing comma before `]`; remove it"),
        ('{"a": 1 "b": 2}', 8, "expected `,` or `}` after this member"),
        ("[1 2]", 3, "expected `,` or `]` after this item"),
        ('{"a" 1}', 5, "expected `:` after the key `a`"),
        ("{a: 1}", 1, "expected a key in double quotes"),
        ("{'a': 1}", 1, "expected a key in double quotes (JSON has no single quotes)"),
        ('{// c\n"a": 1}', 1, "expected a key in double quotes (JSON has no comments)"),
        ('["a", /* c */ 1]', 6, "expected a value (an object, array, string, number, true,"),
        ("", 0, "expected a value"),
        ('"abc', 0, 'string is never closed; add the closing `"`'),
        ('{"a": "b\n"}', 8, "string is not closed on its line"),
        ('"a\tb"', 2, "control character U+0009 in a string; write it as an escape"),
        ('"a\\x"', 2, "invalid escape `\\x`; JSON knows"),
        ('"\\u12g4"', 2, "`\\u` must be followed by four hex digits"),
        ("01", 1, "unexpected text after the JSON value; remove it"),
        ("NaN", 0, "expected a value"),
        ("[-Infinity]", 1, "expected a value"),
    ],
)
def test_errors_say_what_was_expected_where(text: str, offset: int, message: str) -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        parse_json(text, "x.json")
    assert caught.value.offset == offset
    assert caught.value.message.startswith(message)


def test_positions_count_characters_not_bytes_and_keys_keep_theirs() -> None:
    doc = parse_json('{\n  "é": "ü",\n  "k": [true, null]\n}\n', "m.json")
    first, second = doc.value
    assert (first.key_position.line, first.key_position.column) == (2, 3)
    assert (first.value.position.line, first.value.position.column) == (2, 8)
    assert [(v.kind, v.position.column) for v in second.value.value] == [
        ("boolean", 9),
        ("null", 15),
    ]


def test_a_repeated_key_keeps_both_members_and_reads_as_the_last() -> None:
    doc = parse_json('{"name": "a", "name": "b"}', "m.json")
    assert [m.value.value for m in doc.value] == ["a", "b"]
    assert doc.text("name") == "b" and doc.plain() == {"name": "b"}


@pytest.mark.parametrize(
    ("text", "offset"),
    [("[" * 65 + "]" * 65, 64), ('{"a":' * 70 + "1" + "}" * 70, 5 * 64)],
)
def test_nesting_past_the_limit_is_refused_where_it_starts(text: str, offset: int) -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        parse_json(text, "x.json")
    assert caught.value.offset == offset
    assert "max-json-depth" in caught.value.message
    parse_json(text, "x.json", max_depth=100)  # the limit is a parameter


@pytest.mark.slow
def test_depth_costs_no_recursion_and_time_stays_linear() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    start = time.perf_counter()
    doc = parse_json(deep, "x.json", max_depth=10**6)
    assert doc.plain() is not None  # `plain` walks without recursion too
    assert time.perf_counter() - start < 10.0  # quadratic would take hours


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20), st.booleans(), st.integers(0, 25))
def test_source_offset_maps_a_character_to_where_it_is_written(
    value: str, ascii_only: bool, index: int
) -> None:
    text = '{"k": ' + json.dumps(value, ensure_ascii=ascii_only) + "}"
    quote = text.index('"', 5)
    index = min(index, len(value))
    offset = source_offset(text, quote, index)
    assert json.loads('"' + text[quote + 1 : offset] + '"') == value[:index]


# keys that are often `enum`, so that a document has several, nested and inside strings
KEYED = st.recursive(
    SCALARS | st.sampled_from(["enum", '"enum":', "x enum", "\\"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["enum", "a", "en/um", "~", "é"]), inner, max_size=4)
    ),
    max_leaves=24,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(KEYED, LAYOUTS)
def test_member_values_are_where_the_locator_finds_them(value, layout) -> None:  # type: ignore[no-untyped-def]
    text = json.dumps(value, **layout)
    document = json.loads(text)
    found = member_values(text, document, "enum")
    if found is None:  # only an escaped key can hide from the text search here
        assert "\\u" in text
        return
    locator = Locator(text)
    pointers = _holders(document, "")
    assert len(found) == text.count('"enum":') + text.count('"enum" :')
    for holder, offset in found.items():
        pointer = pointers[holder]
        assert locator.find(f"{pointer}/enum") is not None
        assert locator.find(f"{pointer}/enum")[0] == offset  # type: ignore[index]


def _holders(node: object, pointer: str, out: dict[int, str] | None = None) -> dict[int, str]:
    """id -> JSON pointer of every object of a document."""
    out = {} if out is None else out
    if isinstance(node, dict):
        out[id(node)] = pointer
        for k, v in node.items():
            _holders(v, f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}", out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _holders(v, f"{pointer}/{i}", out)
    return out


def test_member_values_give_up_on_a_repeated_key() -> None:
    text = '{"enum": [1], "p": {"enum": ["a"], "enum": ["b"]}}'
    assert member_values(text, json.loads(text), "enum") is None
    text = '{"enum": [1], "p": {"\\u0065num": ["a"]}}'
    assert member_values(text, json.loads(text), "enum") is None
    text = '{"enum": [1], "p": {"q": "enum", "enum": ["a"]}}'
    document = json.loads(text)
    found = member_values(text, document, "enum")
    assert found == {id(document): text.index("[1]"), id(document["p"]): text.index('["a"]')}

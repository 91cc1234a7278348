"""A yes-only pre-check of validation with jsonschema-rs, where its yes means no finding.

jsonschema (Python) stays the validator of record: it produces every error and where it is.
Most instances (a schema's examples, most blocks) and most schemas (against their
meta-schema) have no error at all, and jsonschema-rs, compiled once per schema, says so in
microseconds where jsonschema takes a tenth of a millisecond or more. Its yes is taken only
where it cannot differ from jsonschema's: the schema compiles without fetching anything (a
`$ref` outside the document falls back), its regular expressions mean the same to Python's
`re` (they compile there without a warning), it has no fractional `multipleOf` (floats divide
differently), and the instance holds finite numbers, integers that a double holds and, where
the schema has patterns, only printable ASCII text (the two engines' `\\s`, `\\w`, `$`
differ beyond it). Its no, an
error while compiling or validating, or a missing module sends the question to jsonschema.
`tests/rules/test_quick.py` checks the yes against jsonschema on every schema and instance
at hand.
"""

from __future__ import annotations

import re
from typing import Any

from drift_check.records import NamedTuple

_UNSET: Any = object()
_module: Any = _UNSET  # jsonschema_rs, None when it cannot be imported
_regex_ok: dict[str, bool] = {}
_INF = float("inf")
_EXACT = 2**53  # integers a double holds exactly
_meta: dict[Any, Any] = {}  # jsonschema's validator class -> jsonschema-rs's for its META_SCHEMA


def rust() -> Any:
    """The jsonschema_rs module, None when it is not installed (or does not load)."""
    global _module
    if _module is _UNSET:
        try:
            import jsonschema_rs
        except ImportError:
            jsonschema_rs = None
        _module = jsonschema_rs
    return _module


def _refuse(uri: str) -> Any:
    raise OSError(f"not fetched: {uri}")  # a reference outside the document: jsonschema decides


class Quick(NamedTuple):
    """jsonschema-rs's validator of a schema, and whether the schema has patterns (where
    the two engines may read the instance's text differently)."""

    validator: Any
    patterns: bool


def compiled(document: Any, portable: Portable | None = None) -> Quick | None:
    """jsonschema-rs's validator of a schema document, None where its yes could differ
    from jsonschema's (see the module's docstring). `portable`: `portable_schema` of the
    document, when known."""
    return compiled_at(document, "", "", portable)


def compiled_at(
    document: Any, path: str, pointer: str, portable: Portable | None = None
) -> Quick | None:
    """`compiled` of the subschema at JSON pointer `pointer` (`/properties/a`; the whole
    document for "") of the schema document at `path`; None also where there is no such
    subschema. Its `$ref`s resolve in the document, as jsonschema resolves them when it
    validates an instance against the subschema; the document's `$schema` says the
    dialect."""
    module = rust()
    if module is None or not isinstance(document, dict):
        return None
    portable = portable or portable_schema(document)
    if not (portable.regexes_agree and portable.multiples_exact):
        return None
    try:
        if not pointer:
            validator = module.validator_for(document, validate_formats=False, retriever=_refuse)
        else:
            uri, reference = _reference(document, path, pointer)
            validator = module.validator_for(
                reference,
                validate_formats=False,
                retriever=_refuse,
                registry=module.Registry([(uri, document)]),
            )
    except Exception:  # any refusal (an unknown `$schema`, a reference, a pattern) falls back
        return None
    return Quick(validator, portable.patterns)


def _reference(document: dict[str, Any], path: str, pointer: str) -> tuple[str, dict[str, Any]]:
    """The `file:///` URI the document at `path` is registered under, and a schema that is a
    `$ref` to its subschema at `pointer`, in the document's dialect."""
    from urllib.parse import quote

    uri = "file:///" + quote(path)
    reference: dict[str, Any] = {"$ref": f"{uri}#{quote(pointer)}"}
    if isinstance(document.get("$schema"), str):
        reference["$schema"] = document["$schema"]
    return uri, reference


def valid(quick: Quick | None, instance: Any) -> bool:
    """Whether jsonschema-rs says yes to an instance it can be trusted with (False: ask
    jsonschema). Whether it can be is looked at only after a yes."""
    if quick is None:
        return False
    try:
        if not quick.validator.is_valid(instance):
            return False
    except Exception:
        return False
    return _portable_instance(instance, quick.patterns)


def error_paths(quick: Quick | None, instance: Any) -> set[tuple[Any, ...]] | None:
    """The instance locations where jsonschema-rs, trusted with the instance (as for
    `valid`), finds errors; None: ask jsonschema. Both validators report each keyword an
    instance fails at the location the keyword applies to (its object for `required`,
    `additionalProperties` or `propertyNames`, the value for `anyOf`, `not`, `enum`, ...):
    jsonschema's errors sit at these locations too."""
    if quick is None:
        return None
    try:
        found = {tuple(error.instance_path) for error in quick.validator.iter_errors(instance)}
    except Exception:
        return None
    return found if _portable_instance(instance, quick.patterns) else None


def meta_valid(cls: Any, document: Any, portable: Portable | None = None) -> bool:
    """Whether jsonschema-rs finds a schema valid against the meta-schema of jsonschema's
    dialect class `cls`, where jsonschema's own check (with its format checker) could not
    find anything else: the only format it asserts there is `regex`, and every pattern of
    the document compiles in Python (`portable` as for `compiled`)."""
    module = rust()
    if module is None or not isinstance(document, dict):
        return False
    validator = _meta.get(cls, _UNSET)
    if validator is _UNSET:
        validator = None
        if _formats_asserted(cls) <= {"regex"}:
            try:
                validator = module.validator_for(
                    cls.META_SCHEMA, validate_formats=False, retriever=_refuse
                )
            except Exception:
                validator = None
        _meta[cls] = validator
    if validator is None or not (portable or portable_schema(document)).regexes_agree:
        return False
    try:
        return bool(validator.is_valid(document))
    except Exception:
        return False


# The `$schema` values that jsonschema and jsonschema-rs read as one dialect, each with the
# meta-schema both bundle (a schema without `$schema` is of the latest, 2020-12, to both).
_DIALECT_URIS = frozenset(
    uri + end
    for uri in (
        "http://json-schema.org/draft-04/schema",
        "http://json-schema.org/draft-06/schema",
        "http://json-schema.org/draft-07/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    )
    for end in ("", "#")
)
# The packages with which jsonschema's format checker asserts `uri` and `uri-reference`, the
# formats beside `regex` that the meta-schemas of those dialects name.
_URI_CHECKERS = ("rfc3987", "rfc3986_validator")
_plain_formats: bool | None = None


def meta_valid_alone(document: Any, portable: Portable | None = None) -> bool:
    """`meta_valid` without importing jsonschema (most schemas are valid, and its import is a
    tenth of a small tree's run): jsonschema-rs's yes to a schema of a dialect both read
    alike, where jsonschema's check could find nothing else either (no package that makes
    it assert a URI format is installed, and every pattern compiles in Python)."""
    global _plain_formats
    module = rust()
    if module is None:
        return False
    if isinstance(document, dict):
        named = document.get("$schema")
        if named is not None and named not in _DIALECT_URIS:
            return False  # another dialect (or none jsonschema-rs knows: it would fetch it)
    elif not isinstance(document, bool):
        return False
    if _plain_formats is None:
        from importlib.util import find_spec

        _plain_formats = all(find_spec(name) is None for name in _URI_CHECKERS)
    if not _plain_formats or not (portable or portable_schema(document)).regexes_agree:
        return False
    try:
        return bool(module.meta.is_valid(document))
    except Exception:
        return False


def _formats_asserted(cls: Any) -> set[str]:
    """The formats the dialect's meta-schemas name that jsonschema's format checker
    asserts (which depends on the packages installed beside it)."""
    from jsonschema_specifications import REGISTRY

    names: set[str] = set()
    documents = [cls.META_SCHEMA]
    vocabularies = cls.META_SCHEMA.get("allOf", [])
    for entry in vocabularies if isinstance(vocabularies, list) else []:
        ref = entry.get("$ref") if isinstance(entry, dict) else None
        if isinstance(ref, str):
            try:
                base = cls.META_SCHEMA.get("$id", "")
                from urllib.parse import urljoin

                documents.append(REGISTRY.contents(urljoin(base, ref)))
            except Exception:
                return {"unknown"}
    todo = list(documents)
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            value = node.get("format")
            if isinstance(value, str):
                names.add(value)
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    checker = getattr(cls, "FORMAT_CHECKER", None)
    return names & set(getattr(checker, "checkers", ()))


class Portable(NamedTuple):
    """What a schema holds that the two engines could read differently."""

    patterns: bool  # it has a `pattern` or `patternProperties`
    regexes_agree: bool  # each compiles in Python's `re` without a warning
    multiples_exact: bool  # each `multipleOf` is an integer a double holds


def portable_schema(document: Any, text: str | None = None) -> Portable:
    """`Portable` of a schema document (not walked when its text, if given, names no
    pattern and no `multipleOf` and escapes nothing)."""
    if text is not None and not any(w in text for w in ('"pattern', '"multipleOf', "\\u")):
        return Portable(False, True, True)
    patterns = False
    agree = multiples = True
    todo = [document]
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "pattern" and isinstance(value, str):
                    patterns = True
                    agree = agree and _regex_agrees(value)
                elif key == "patternProperties" and isinstance(value, dict):
                    patterns = True
                    agree = agree and all(_regex_agrees(p) for p in value)
                elif key == "multipleOf" and not _exact_int(value):
                    multiples = False
                if isinstance(value, (dict, list)):
                    todo.append(value)
        elif isinstance(node, list):
            todo.extend(v for v in node if isinstance(v, (dict, list)))
    return Portable(patterns, agree, multiples)


def _regex_agrees(pattern: str) -> bool:
    """Whether Python's `re` compiles a pattern without a warning (a `FutureWarning` marks
    syntax, nested sets and set operations, that other engines read differently)."""
    found = _regex_ok.get(pattern)
    if found is None:
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                # a flag no other caller passes: compiled afresh, so its warnings are seen
                re.compile(pattern, re.UNICODE)
                found = not caught
            except (re.error, RecursionError, OverflowError, ValueError):
                found = False
        _regex_ok[pattern] = found
    return found


def _exact_int(value: Any) -> bool:
    return type(value) is int and -_EXACT < value < _EXACT


def _portable_instance(instance: Any, texts: bool) -> bool:
    """Whether an instance holds finite numbers, integers a double holds exactly, and
    (`texts`: where a pattern may read them) only printable ASCII text, keys too (NUL, which
    no class of either engine holds, stands in our placeholders)."""
    strings: list[Any] = []  # every text and key, looked at together
    todo = [instance]
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind is str:
            strings.append(node)
        elif kind is dict:
            strings.extend(node)
            todo.extend(node.values())
        elif kind is list:
            todo.extend(node)
        elif kind is int:
            if not -_EXACT < node < _EXACT:
                return False
        elif kind is float:
            if node != node or node in (_INF, -_INF):
                return False
        elif node is not None and kind is not bool:
            return False
    if not texts:
        return True
    try:
        return _printable("".join(strings))
    except TypeError:  # a key that is not a text
        return False


def _printable(text: str) -> bool:
    """Only printable ASCII and NUL (`[\\x00 -~]*`)."""
    return text.isascii() and (text.isprintable() or text.replace("\x00", "").isprintable())

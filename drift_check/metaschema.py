"""Checking schemas against their meta-schema, one subschema at a time.

jsonschema checks a schema against the official meta-schema in one recursive pass, and
spends most of it resolving `$dynamicRef` and `$ref` at every subschema: 6 to 30 ms a schema
here, too slow for a tree of a thousand. The same check, split: the official meta-schema
with each of its recursion points (`$dynamicRef: "#meta"`, `$recursiveRef`, `"$ref": "#"`)
replaced by "an object or a boolean" and every other `$ref` written in place (a *shallow*
meta-schema), applied by jsonschema to each subschema of the schema on its own. The
subschemas are found where the meta-schema itself recurses (read from it, not listed
here), so the union of the shallow checks is the full check. Many subschemas look alike
(`{"type": "string", "description": ...}`), and the shallow check reads only a subschema's
own keywords, so it is memoised on them, with the texts of `title`, `description`,
`$comment` and the values of `examples`, `default` and `const` left out (the meta-schema only
asks for their types). Where a dialect's shallow meta-schema asks nothing of a subschema but
its type and each keyword's value on its own (2020-12, 2019-09, 7 and 6; not 4, whose
`dependencies` tie keywords together), the memo is per keyword: a schema with its own `$id`
or `enum` costs the check of that keyword alone. `tests/rules/test_metaschema.py` compares
the result with jsonschema's own check on every schema at hand.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urljoin

from drift_check.records import NamedTuple

_RECURSION = ("$dynamicRef", "$recursiveRef")
_DROPPED = frozenset(
    {"$id", "id", "$schema", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary", "$defs",
     "definitions", "$comment", "title", "description", "default"}
)  # fmt: skip
_FREE_TEXTS = frozenset({"title", "description", "$comment"})
_VALUES = frozenset({"default", "const"})  # any value: the check sees None
_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas"})
Pattern = tuple[
    str, ...
]  # where a keyword's value holds subschemas: () itself, "*" values, "[]" items


class Meta(NamedTuple):
    """A dialect's shallow meta-schema, validator and where its keywords hold subschemas."""

    validator: Any
    recursion: dict[str, frozenset[Pattern]]  # keyword -> patterns
    optional: frozenset[str]  # keywords whose value may also be a non-schema (`dependencies`)
    # when the shallow meta-schema asks of a subschema only its type and, keyword by
    # keyword, each keyword's value (no `dependencies` between keywords): what it asks of
    # each keyword's value, in its order; None otherwise
    by_keyword: dict[str, list[Any]] | None = None


class MetaChecker:
    """The meta-schema check of every schema of a run, memoised across them."""

    def __init__(self) -> None:
        self._metas: dict[Any, Meta] = {}
        self._memo: dict[tuple[Any, ...], list[Any]] = {}
        self._keyword_validators: dict[tuple[Any, str], Any] = {}

    def problems(self, cls: Any, document: Any) -> list[Any]:
        """jsonschema's errors for `document`, each with its `absolute_path` from the
        document's root (the errors `cls(cls.META_SCHEMA).iter_errors` finds)."""
        meta = self._meta(cls)
        out = []
        for path, node in _subschemas(document, meta):
            if meta.by_keyword is not None and isinstance(node, dict):
                errors = self._by_keyword(cls, meta, node)
            else:
                key = (cls, _dumps(_shown(node, meta)))
                errors = self._memo.get(key)
                if errors is None:
                    errors = list(meta.validator.iter_errors(node))
                    self._memo[key] = errors
            for error in errors:
                out.append((path, error))
        return out

    def _by_keyword(self, cls: Any, meta: Meta, node: dict[str, Any]) -> list[Any]:
        """The errors of a subschema as the union of its keywords' own, each memoised (two
        subschemas that differ in one `$id` or `enum` share the check of the rest)."""
        assert meta.by_keyword is not None
        out = []
        for keyword, value in node.items():
            asked = meta.by_keyword.get(keyword)
            if not asked:
                continue
            if type(value) is str and keyword not in _VALUES and keyword not in meta.recursion:
                # most keyword values: `_memo_key(_shown_value(...))` without the calls
                shown = "" if keyword in _FREE_TEXTS else value
                key = (cls, keyword, (str, shown))
            else:
                key = (cls, keyword, _memo_key(_shown_value(keyword, value, meta)))
            errors = self._memo.get(key)
            if errors is None:
                validator = self._keyword_validators.get((cls, keyword))
                if validator is None:
                    only = asked[0] if len(asked) == 1 else {"allOf": asked}
                    validator = meta.validator.evolve(schema={"properties": {keyword: only}})
                    self._keyword_validators[(cls, keyword)] = validator
                # the keyword alone, as the full check sees it: same errors, same paths
                errors = list(validator.iter_errors({keyword: value}))
                self._memo[key] = errors
            out.extend(errors)
        return out

    def _meta(self, cls: Any) -> Meta:
        found = self._metas.get(cls)
        if found is None:
            found = _build(cls)
            self._metas[cls] = found
        return found


def _build(cls: Any) -> Meta:
    from jsonschema_specifications import REGISTRY

    root = cls.META_SCHEMA
    base = root.get("$id") or root.get("id") or ""
    kind = root.get("type", ["object", "boolean"])
    stub = {"type": kind}

    def document(uri: str) -> Any:
        uri = uri.rstrip("#")
        if uri == base.rstrip("#"):
            return root
        return REGISTRY.contents(uri)

    def resolve(ref: str, at: str) -> tuple[Any, str]:
        full = urljoin(at, ref)
        uri, _, fragment = full.partition("#")
        node = document(uri)
        for token in fragment.split("/")[1:] if fragment else ():
            node = node[token.replace("~1", "/").replace("~0", "~")]
        return node, uri

    def recursion_point(node: Any) -> bool:
        return isinstance(node, dict) and (
            any(k in node for k in _RECURSION) or node.get("$ref") == "#"
        )

    def cut(node: Any, at: str, depth: int = 0) -> Any:
        if depth > 50:
            raise RecursionError("meta-schema nests too deep")
        if isinstance(node, list):
            return [cut(item, at, depth + 1) for item in node]
        if not isinstance(node, dict):
            return node
        if recursion_point(node):
            return dict(stub)
        at = urljoin(at, node.get("$id", "")) if isinstance(node.get("$id"), str) else at
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED or key == "$ref":
                continue
            if key in _MAPS and isinstance(value, dict):
                out[key] = {name: cut(sub, at, depth + 1) for name, sub in value.items()}
            elif key in ("enum", "const", "required", "type", "format", "pattern"):
                out[key] = value
            else:
                out[key] = cut(value, at, depth + 1)
        ref = node.get("$ref")
        if isinstance(ref, str):
            target, uri = resolve(ref, at)
            inlined = cut(target, uri, depth + 1)
            out = {"allOf": [inlined, out]} if out else inlined
        return out

    def paths(node: Any, at: str, depth: int = 0) -> tuple[frozenset[Pattern], bool]:
        """Where a meta-schema node recurses, and whether only in some branch of an
        `anyOf`/`oneOf` (the value may be something else)."""
        if depth > 20 or not isinstance(node, dict):
            return frozenset(), False
        if recursion_point(node):
            return frozenset({()}), False
        found: set[Pattern] = set()
        partial = False
        ref = node.get("$ref")
        if isinstance(ref, str):
            target, uri = resolve(ref, at)
            sub, part = paths(target, uri, depth + 1)
            found |= sub
            partial |= part
        extra = node.get("additionalProperties")
        sub, part = paths(extra, at, depth + 1)
        found |= {("*", *p) for p in sub}
        partial |= part
        items = node.get("items")
        sub, part = paths(items, at, depth + 1)
        found |= {("[]", *p) for p in sub}
        partial |= part
        for keyword in ("anyOf", "oneOf", "allOf"):
            for branch in node.get(keyword, ()) if isinstance(node.get(keyword), list) else ():
                sub, part = paths(branch, at, depth + 1)
                found |= sub
                partial |= part or (keyword != "allOf" and bool(sub))
        return frozenset(found), partial

    recursion: dict[str, frozenset[Pattern]] = {}
    optional: set[str] = set()

    def keywords(node: Any, at: str, depth: int = 0) -> None:
        if depth > 10 or not isinstance(node, dict):
            return
        for key, sub in (node.get("properties") or {}).items():
            found, partial = paths(sub, at, 0)
            if found:
                recursion[key] = recursion.get(key, frozenset()) | found
                if partial:
                    optional.add(key)
        for branch in node.get("allOf", ()) if isinstance(node.get("allOf"), list) else ():
            if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
                target, uri = resolve(branch["$ref"], at)
                keywords(target, uri, depth + 1)

    keywords(root, base)
    shallow = cut(root, base)
    validator = cls(shallow, format_checker=cls.FORMAT_CHECKER)
    return Meta(validator, recursion, frozenset(optional), _keyword_wise(shallow))


def _keyword_wise(shallow: Any) -> dict[str, list[Any]] | None:
    """What a shallow meta-schema asks of each keyword's value, when it holds only
    `properties` (a constraint per keyword), `allOf`s of the same, and the subschema's
    `type` (an object passes it); None otherwise."""
    asked: dict[str, list[Any]] = {}

    def gather(node: Any) -> bool:
        # in the order the full check meets them: the meta-schema's keywords as written
        if not isinstance(node, dict) or not set(node) <= {"type", "properties", "allOf"}:
            return False
        kind = node.get("type", "object")
        if "object" not in ([kind] if isinstance(kind, str) else kind):
            return False
        for keyword, value in node.items():
            if keyword == "properties":
                for name, constraint in value.items():
                    asked.setdefault(name, []).append(constraint)
            elif keyword == "allOf" and not all(gather(branch) for branch in value):
                return False
        return True

    return asked if gather(shallow) else None


def _subschemas(document: Any, meta: Meta) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, subschema) of every subschema, the document first, where the meta-schema
    recurses into them; only objects are checked (a boolean schema has no keyword, and a
    value of another type is already an error of its parent's check)."""
    out: list[tuple[tuple[Any, ...], Any]] = []
    todo: list[tuple[tuple[Any, ...], Any]] = [((), document)]
    while todo:
        path, node = todo.pop()
        if not isinstance(node, dict):
            if not out and not path:
                out.append((path, node))  # the document itself: its type is checked
            continue
        out.append((path, node))
        for key, value in node.items():
            patterns = meta.recursion.get(key)
            if not patterns:
                continue
            for pattern in patterns:
                todo.extend(_follow((*path, key), value, pattern))
    return out


def _follow(
    path: tuple[Any, ...], value: Any, pattern: Pattern
) -> list[tuple[tuple[Any, ...], Any]]:
    if not pattern:
        return [(path, value)] if isinstance(value, dict) else []
    head, rest = pattern[0], pattern[1:]
    out: list[tuple[tuple[Any, ...], Any]] = []
    if head == "*" and isinstance(value, dict):
        for name, sub in value.items():
            out.extend(_follow((*path, name), sub, rest))
    elif head == "[]" and isinstance(value, list):
        for i, sub in enumerate(value):
            out.extend(_follow((*path, i), sub, rest))
    return out


_SCALARS = (str, int, float, bool, type(None))


def _memo_key(shown: Any) -> Any:
    """`_dumps` of a keyword's value, or for a scalar or a list of scalars (most values)
    the value itself with its type: `1`, `1.0` and `true` are not the same to the check."""
    if isinstance(shown, _SCALARS):
        return (type(shown), shown)
    if isinstance(shown, list) and all(isinstance(v, _SCALARS) for v in shown):
        return (list, *((type(v), v) for v in shown))
    return _dumps(shown)


def _dumps(shown: Any) -> str:
    return json.dumps(shown, sort_keys=True, default=str)


def _shown(node: Any, meta: Meta) -> Any:
    """The subschema as its shallow check sees it: subschema positions stubbed by their
    type, and the free texts and values (`title`, `description`, `$comment`, `examples`,
    `default`, `const`) reduced to their types."""
    if not isinstance(node, dict):
        return node
    return {key: _shown_value(key, value, meta) for key, value in node.items()}


def _shown_value(key: str, value: Any, meta: Meta) -> Any:
    """One keyword's value as the shallow check sees it (see `_shown`)."""
    patterns = meta.recursion.get(key)
    if patterns:
        return _stub(value, patterns)
    if key in _FREE_TEXTS and isinstance(value, str):
        return ""
    if key == "examples" and isinstance(value, list):
        return []
    if key in _VALUES:
        return None
    return value


def _stub(value: Any, patterns: frozenset[Pattern]) -> Any:
    if isinstance(value, dict):
        if any(p and p[0] == "*" for p in patterns):
            return {
                k: _stub(v, frozenset(p[1:] for p in patterns if p and p[0] == "*"))
                for k, v in value.items()
            }
        return {} if () in patterns else value
    if isinstance(value, list):
        if any(p and p[0] == "[]" for p in patterns):
            inner = frozenset(p[1:] for p in patterns if p and p[0] == "[]")
            return [_stub(v, inner) for v in value]
        return value
    return value

"""Validating blocks and examples against their schemas with jsonschema (and `referencing`).

jsonschema is imported only when a rule validates something. `Contracts`, a field of the
facts, builds each schema's validator once per run, on first use, and remembers what it
answered (its answers depend only on the facts). A block's value becomes a plain instance; what the
block writes as a placeholder (`<id>`, `{{VAR}}`, a string holding one) stands for any value
of any kind, so no error is taken at its place; a blank (`""`, `[]` in a template) is any
value of its own kind; a bare template scalar (`version: 1.0`) may also be read as a string.
`a | b` alternatives are checked one by one: the block is validated once per alternative
index, and an error away from the alternatives counts only when every run has it (an `if`
on a menu value is not the template's fault).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from drift_check import quick
from drift_check.facts import (
    MISSING,
    BlockValue,
    Facts,
    Position,
    SchemaExample,
    SchemaFile,
    SchemaPointer,
    StructuredBlock,
    chained_pointer,
    escape_pointer,
    plain_at,
)
from drift_check.records import NamedTuple

Path = tuple[Any, ...]
_SENTINEL = "\x00drift-check: any value\x00"
_REFUSED: list[Any] = []  # the schema could not be applied
# what jsonschema and referencing raise on a schema its meta-schema rejects (`"$id": false`,
# `"properties": "text"`, `"minLength": "5"`): each keyword assumes the types it allows
_BROKEN_SCHEMA = (AttributeError, TypeError, ValueError, KeyError, IndexError)
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")
# keywords whose failure a bare template scalar may dodge by being read as text
_TEXTUAL = frozenset({"type", "enum", "const", "pattern", "format", "minLength", "maxLength"})


class Violation(NamedTuple):
    """One thing a block or example does that its schema does not allow."""

    kind: str  # "required", "additional" or "value"
    position: Position  # where the block says it (the object, the key, the value)
    subject: str  # the key missing or not allowed, or the value as written
    message: str  # jsonschema's words for a value error
    schema: SchemaPointer


class Contracts:
    """The tree's schemas as jsonschema validators, built once; where each subschema is
    written, to name the schema side of a finding."""

    def __init__(self, schemas: dict[str, SchemaFile]) -> None:
        self.schemas = {p: s for p, s in schemas.items() if s.valid}
        self.plain: dict[str, Any] = {p: s.plain for p, s in self.schemas.items()}
        self._where: dict[int, tuple[str, str]] | None = None
        self._where_by_path: dict[str, dict[int, tuple[str, str]]] = {}
        self._crawled: set[str] = set()  # schemas whose subschemas a crawl registers
        self._root: Any = None  # jsonschema's, built on first use
        self._validators: dict[str, Any] = {}
        self._errors: dict[tuple[str, str, str], list[Any]] = {}  # by schema and instance
        # jsonschema-rs's validator of each schema (pointer "") and subschema, or None
        self._quick: dict[tuple[str, str], Any] = {}
        self._portable: dict[str, quick.Portable] = {}
        self._lookups: dict[tuple[str, tuple[str, ...]], Lookup] = {}
        self._roots: dict[str, Levels] = {}  # each schema's top level, expanded
        self._blocks: dict[tuple[str, Position], list[Violation]] = {}
        self._meta: Any = None

    def _built(self) -> Any:
        """The validator that holds every schema (jsonschema imported here, once)."""
        if self._root is not None:
            return self._root
        from urllib.parse import quote, urljoin

        from jsonschema import validators
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        direct: dict[str, Any] = {}  # resources whose crawl would find nothing below the root
        crawled = []
        for path, schema in sorted(self.schemas.items()):
            uri = f"file:///{quote(path)}"
            # a schema its meta-schema rejects (an `$id` that is no string, a subschema
            # that is neither an object nor a boolean) can break the registry for every
            # schema: it is left out, and what is checked against it is refused (DC920
            # reports it)
            try:
                resource = Resource.from_contents(schema.plain, default_specification=DRAFT202012)
                pairs = [(uri, resource)]
                if schema.identifier:
                    pairs.append((schema.identifier, resource))
                if schema.subresources:
                    Registry().with_resources(pairs).crawl()
                    crawled.extend(pairs)
                    self._crawled.add(path)
                    continue
                identifier = resource.id()  # what a crawl would register the root under
            except _BROKEN_SCHEMA:
                continue
            if identifier is not None:
                pairs.append((urljoin(uri, identifier), resource))
            direct.update(pairs)
        # a crawl creates a resource for every subschema: done only where it finds an
        # `$id` below the root or an anchor (a reference it missed would crawl anyway)
        registry = Registry(resources=direct).with_resources(crawled).crawl()
        # one validator holds the registry (building one combines it with the dialects'
        # meta-schemas, linear in its size); each schema is reached from it by `$ref`, so its
        # own `$id`, `$schema` and relative references apply
        self._root = validators.Draft202012Validator({}, registry=registry)
        return self._root

    @property
    def meta(self) -> Any:
        """The meta-schema checker (`drift_check.metaschema.MetaChecker`), made on first use."""
        if self._meta is None:
            from drift_check.metaschema import MetaChecker

            self._meta = MetaChecker()
        return self._meta

    def block_violations(self, block: StructuredBlock) -> list[Violation]:
        """What a block paired with a schema does that the schema does not allow, worked out
        once per block (several rules report its kinds)."""
        assert block.schema is not None and block.value is not None
        key = (block.path, block.position)
        found = self._blocks.get(key)
        if found is None:
            upper = upper_keys(self, block.schema, block.value)
            found = self.violations(block.schema, block.value, upper_keys=upper)
            if found and not block.placed:
                # whether a value violates its schema does not depend on where its nodes
                # are written: they are placed only to report
                value = block.placed_value()
                assert value is not None
                found = self.violations(block.schema, value, upper_keys=upper)
            self._blocks[key] = found
        return found

    @property
    def where(self) -> dict[int, tuple[str, str]]:
        """id(subschema) -> (path, pointer) of every object and array of the schemas, found
        on first use (only a finding or a field lookup names a subschema)."""
        if self._where is None:
            where: dict[int, tuple[str, str]] = {}
            for path in self.plain:
                where.update(self._where_in(path))
            self._where = where
        return self._where

    def _where_in(self, path: str) -> dict[int, tuple[str, str]]:
        """`where` for the one schema at `path`."""
        found = self._where_by_path.get(path)
        if found is None:
            found = self._where_by_path[path] = {}
            todo: list[tuple[Any, str]] = [(self.plain[path], "")]
            while todo:
                node, pointer = todo.pop()
                if isinstance(node, dict):
                    found[id(node)] = (path, pointer)
                    todo.extend((v, f"{pointer}/{escape_pointer(k)}") for k, v in node.items())
                elif isinstance(node, list):
                    found[id(node)] = (path, pointer)
                    todo.extend((v, f"{pointer}/{i}") for i, v in enumerate(node))
        return found

    def _site(self, subschema: Any, near: str | None) -> tuple[str, str] | None:
        """(path, pointer) of a subschema, looked for in the schema at `near` first."""
        if near is not None and near in self.plain:
            found = self._where_in(near).get(id(subschema))
            if found is not None:
                return found
        return self.where.get(id(subschema))

    def validator(self, path: str, pointer: str = "") -> Any:
        """The validator of the schema at `path` (of its subschema at `pointer`), built
        once."""
        key = f"{path}#{pointer}"
        found = self._validators.get(key)
        self._built()  # which schemas were crawled
        if found is None and pointer and path not in self._crawled:
            # no `$id` below the root: the resolver a lookup of the pointer would end with
            # is the document's own, so the subschema is the document's validator evolved
            try:
                subschema = self.subschema(path, pointer)
            except (KeyError, IndexError, ValueError, TypeError):
                subschema = _REFUSED
            if subschema is not _REFUSED:
                found = self._validators[key] = self.validator(path).evolve(schema=subschema)
        if found is None:
            from urllib.parse import quote

            from referencing.exceptions import Unresolvable

            ref = f"file:///{quote(path)}#{quote(pointer)}"
            try:
                # the reference resolved once, not at every validation (what `$ref` would do)
                root = self._built()
                resolved = root._resolver.lookup(ref)
                found = root.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            except (Unresolvable, AttributeError, TypeError):
                found = self._built().evolve(schema={"$ref": ref})  # jsonschema resolves it
            self._validators[key] = found
        return found

    def subschema(self, path: str, pointer: str) -> Any:
        node: Any = self.plain[path]
        for token in pointer.split("/")[1:] if pointer else ():
            key = token.replace("~1", "/").replace("~0", "~")
            node = node[int(key)] if isinstance(node, list) else node[key]
        return node

    def pointer(
        self, subschema: Any, keyword: str, near: str | None = None
    ) -> SchemaPointer | None:
        """Where `keyword` of a subschema is written (`near`: the schema it is likely in)."""
        found = self._site(subschema, near)
        if found is None:
            return None
        path, pointer = found
        full = f"{pointer}/{escape_pointer(keyword)}" if keyword else pointer
        schema = self.schemas[path]
        position = schema.position(full) or schema.position(pointer) or Position(path, 1, 1)
        return SchemaPointer(path, full, position)

    def violations(
        self, path: str, value: BlockValue, pointer: str = "", upper_keys: bool = False
    ) -> list[Violation]:
        """What `value` does that the schema at `path` (its subschema at `pointer`) does
        not allow. `upper_keys`: the block writes the schema's lower-case keys in upper case
        (`JOB_NAME:` for `job_name`)."""
        if value.kind == "placeholder":
            return []  # any value: every error would sit at the placeholder, which excuses it
        menus = _menus(value)
        runs = max((len(m.value) for m in menus.values()), default=1)
        common: dict[tuple[Any, ...], _Pending] | None = None
        chosen: list[_Pending] = []
        for run in range(runs):
            nodes: dict[Path, BlockValue] = {}
            instance = _instance(value, run, nodes, upper_keys)
            found: dict[tuple[Any, ...], _Pending] = {}
            # once no error is common to the runs so far, only those at a menu still count
            counted = menus if common == {} else None
            if self._nothing_counts(path, pointer, instance, nodes, counted):
                errors = []
            else:
                errors = self._errors_of(path, pointer, instance)
            if errors is _REFUSED:
                return []
            # built by jsonschema's run that found the errors (none: jsonschema-rs's yes)
            validator = self.validator(path, pointer) if errors else None
            for error in errors:
                if _excused(error, nodes, validator):
                    continue
                at = tuple(error.absolute_path)
                for violation in _explain(error, at, nodes):
                    if at in menus:
                        chosen.append(violation)
                    else:
                        found[(violation.kind, violation.subject, violation.site)] = violation
            common = found if common is None else {k: v for k, v in common.items() if k in found}
        # the schema side is placed only for what is kept (a subschema unknown to `where`
        # places nothing, in every run alike)
        out = []
        for v in [*(common or {}).values(), *chosen]:
            schema = self.pointer(v.site.node, v.site.keyword, path)
            if schema is not None:
                out.append(Violation(v.kind, v.position, v.subject, v.message, schema))
        unique = {(v.kind, v.position, v.subject, v.schema.pointer): v for v in out}
        return sorted(unique.values(), key=lambda v: (v.position.line, v.position.column))

    def _errors_of(self, path: str, pointer: str, instance: Any) -> list[Any]:
        """jsonschema's errors for an instance (`_REFUSED`: the schema cannot be applied)."""
        if quick.valid(self._quick_validator(path, pointer), instance):
            return []  # jsonschema would find nothing either
        # a template written twice (a skill and its orchestrator's prompt) is one instance
        key = (path, pointer, json.dumps(instance))
        errors = self._errors.get(key)
        if errors is None:
            from jsonschema.exceptions import UnknownType
            from referencing.exceptions import Unresolvable

            try:
                errors = list(self.validator(path, pointer).iter_errors(instance))
            except (Unresolvable, UnknownType, RecursionError, re.error, *_BROKEN_SCHEMA):
                # a `$ref` outside the tree, a pattern Python cannot compile, a schema its
                # meta-schema rejects (DC920 says so): nothing to say about the block
                errors = _REFUSED
            self._errors[key] = errors
        return errors

    def _nothing_counts(
        self,
        path: str,
        pointer: str,
        instance: Any,
        nodes: dict[Path, BlockValue],
        counted: dict[Path, BlockValue] | None,
    ) -> bool:
        """Whether jsonschema-rs, where it can be trusted, finds no error that would count:
        none but at placeholders (which excuse any value; most templates have some: `<id>`
        where the schema wants an integer) and, with `counted`, none at its paths."""
        if pointer:
            return False
        found = quick.error_paths(self._quick_validator(path), instance)
        if found is None:
            return False
        return all(
            (at in nodes and nodes[at].kind == "placeholder")
            or (counted is not None and at not in counted)
            for at in found
        )

    def _quick_validator(self, path: str, pointer: str = "") -> Any:
        """jsonschema-rs's validator of the schema at `path` (of its subschema at `pointer`),
        compiled once (None: none)."""
        found = self._quick.get((path, pointer), _REFUSED)
        if found is _REFUSED:
            found = self._quick[path, pointer] = quick.compiled_at(
                self.plain[path], path, pointer, self.portable(path)
            )
        return found

    def prepare(self, paths: Iterable[str | None]) -> None:
        """Work out now what the rules would ask first of the schemas at `paths` (None and
        unknown paths are passed over): each one's portability and jsonschema-rs validator
        (a large tree's scan has the time while another process finds its vocabularies, and
        the rules' processes inherit them)."""
        for path in dict.fromkeys(paths):
            if path is not None and path in self.plain:
                self._quick_validator(path)

    def portable(self, path: str) -> quick.Portable:
        """`quick.portable_schema` of the schema at `path`, worked out once."""
        found = self._portable.get(path)
        if found is None:
            found = self._portable[path] = quick.portable_schema(
                self.plain[path], self.schemas[path].source.text
            )
        return found

    def example_fails(self, path: str, example: SchemaExample) -> bool:
        """Whether a schema's own example (or `default`) breaks the subschema it sits in:
        `violations` of its value, without building that value's nodes when it holds no
        menu (`a | b`) and jsonschema finds no error in it."""
        instance = _example_instance(example.value)
        if instance is _MENU:
            return bool(self.violations(path, _shape(path, example.value), example.pointer))
        if instance is _SENTINEL:
            return False  # a placeholder as a whole: any value
        errors = self._errors_of(path, example.pointer, instance)
        if errors is _REFUSED or not errors:
            return False
        return bool(self.violations(path, _shape(path, example.value), example.pointer))

    def lookup(self, path: str, fields: tuple[str, ...]) -> Lookup:
        """Follow `fields` (`"[]"` for an array's items) down the schema at `path`, through
        `$ref`, `allOf`/`anyOf`/`oneOf`, `then`/`else` and array `items`; a key is matched
        exactly, else case-insensitively (`JOB_NAME` for `job_name`). Each is worked out
        once: tables, readers and dispatches of one contract look up the same fields."""
        found = self._lookups.get((path, fields))
        if found is None:
            found = self._lookups[(path, fields)] = self._lookup(path, fields)
        return found

    def _lookup(self, path: str, fields: tuple[str, ...]) -> Lookup:
        levels = self._roots.get(path)
        if levels is None:
            levels = self._roots[path] = self._expand([self.plain[path]], path)
        result = Lookup("open", "", None)
        for key in fields:
            if key == "[]" or key.isdigit():
                levels = self._expand(_items(levels), path)
                if not levels:
                    return Lookup("open", key, None)
                continue
            if not any(isinstance(lv.get("properties"), dict) for lv, _ in levels):
                items = _items(levels)
                if items:  # `errors.phase`: a field of the array's items
                    levels = self._expand(items, path)
            result, levels = self._step(levels, key, path)
            if result.state != "found":
                return result
        return result

    def _step(self, levels: Levels, key: str, near: str) -> tuple[Lookup, Levels]:
        found: list[Any] = []
        required: bool | None = None
        required_at: _Site | None = None
        declares = closed = False
        low = key.lower()
        for level, base in levels:
            properties = level.get("properties")
            if isinstance(properties, dict):
                declares = True
                match = properties.get(key)
                if match is None:
                    match = next((v for k, v in properties.items() if k.lower() == low), None)
                if isinstance(match, (dict, bool)):
                    found.append(match)
                    listed = level.get("required", [])
                    named = isinstance(listed, list) and any(str(r).lower() == low for r in listed)
                    if base:
                        required = bool(required) or named
                        if required_at is None or named:
                            keyword = "required" if "required" in level else "properties"
                            required_at = _Site(level, keyword)
            patterns = level.get("patternProperties")
            if isinstance(patterns, dict) and patterns:
                declares = True
                found.extend(v for p, v in patterns.items() if _search(p, key))
            extra = level.get("additionalProperties", level.get("unevaluatedProperties"))
            if isinstance(extra, dict) or extra is True:
                found.append(extra)
            closed = closed or extra is False
        if not found:
            if not declares:
                return Lookup("open", key, None), []
            level = next(lv for lv, _ in levels if isinstance(lv.get("properties"), dict))
            return Lookup("missing", key, _Site(level, "properties"), checker=self, near=near), []
        if any(f is True or (isinstance(f, dict) and not f) for f in found) and not any(
            isinstance(f, dict) and f for f in found
        ):
            # any value below
            return Lookup("found", key, None, required, required_at, self, near), []
        first = next(f for f in found if isinstance(f, dict))
        here = Lookup("found", key, _Site(first, ""), required, required_at, self, near)
        return here, self._expand([f for f in found if isinstance(f, dict)], near)

    def _expand(self, roots: list[Any], near: str) -> Levels:
        """The subschemas that describe the same level as `roots`: theirs, their `$ref`
        targets and their `allOf` branches (their `required` counts), and their `anyOf`,
        `oneOf`, `then`, `else` branches (conditional: it does not)."""
        out: Levels = []
        seen: set[int] = set()
        todo = [(r, True) for r in roots if isinstance(r, dict)]
        while todo:
            node, base = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            out.append((node, base))
            ref = node.get("$ref")
            if isinstance(ref, str):
                target = self.resolve(node, ref, near)
                if isinstance(target, dict):
                    todo.append((target, base))
            for keyword, counts in (("allOf", True), ("anyOf", False), ("oneOf", False)):
                branches = node.get(keyword)
                if isinstance(branches, list):
                    todo.extend((b, base and counts) for b in branches if isinstance(b, dict))
            for keyword in ("then", "else"):
                branch = node.get(keyword)
                if isinstance(branch, dict):
                    todo.append((branch, False))
        return out

    def resolve(self, node: Any, ref: str, near: str | None = None) -> Any:
        """The target of a `$ref` written in `node`: a pointer in the same file, or a schema
        of the tree by path (relative to the file) or by `$id`, with its fragment."""
        import posixpath

        where = self._site(node, near)
        if where is None:
            return None
        path = where[0]
        target_path, _, fragment = ref.partition("#")
        if target_path:
            by_id = {s.identifier: p for p, s in self.schemas.items() if s.identifier}
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(path), target_path))
            if target_path in by_id:
                path = by_id[target_path]
            elif joined in self.plain:
                path = joined
            else:
                return None
        if fragment and not fragment.startswith("/"):
            return None  # an `$anchor`: not followed
        try:
            return self.subschema(path, fragment)
        except (KeyError, IndexError, ValueError, TypeError):
            return None


class _Site:
    """A keyword of a subschema, before `Contracts.pointer` finds where it is written: equal
    to another when it is the same keyword of the same subschema object."""

    __slots__ = ("keyword", "node")

    def __init__(self, node: Any, keyword: str) -> None:
        self.node = node
        self.keyword = keyword

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _Site) and self.node is other.node and self.keyword == other.keyword
        )

    def __hash__(self) -> int:
        return hash((id(self.node), self.keyword))


class _Pending(NamedTuple):
    """A `Violation` whose schema side is not placed yet."""

    kind: str
    position: Position
    subject: str
    message: str
    site: _Site


def _explain(error: Any, at: Path, nodes: dict[Path, BlockValue]) -> Iterator[_Pending]:
    """The violations an error stands for."""
    node = nodes.get(at)
    here = node.position if node is not None else None
    if error.validator == "required" and isinstance(error.instance, dict):
        schema = _Site(error.schema, "required")
        missing = [k for k in error.validator_value if k not in error.instance]
        for key in missing:
            if here is not None:
                yield _Pending("required", here, key, error.message, schema)
        return
    if error.validator in ("additionalProperties", "unevaluatedProperties") and isinstance(
        error.instance, dict
    ):
        schema = _Site(error.schema, error.validator)
        for key in _extra_keys(error):
            member = nodes.get((*at, key))
            where = nodes.get(at)
            position = _key_position(where, key) if where is not None else None
            if position is None and member is not None:
                position = member.position
            if position is not None:
                yield _Pending("additional", position, key, error.message, schema)
        return
    schema = _Site(error.schema, str(error.validator))
    if here is None:
        return
    shown = _shown(node) if node is not None else repr(error.instance)
    yield _Pending("value", here, shown, error.message, schema)


def _extra_keys(error: Any) -> list[str]:
    if error.validator == "additionalProperties" and error.validator_value is False:
        declared = error.schema.get("properties", {})
        patterns = list(error.schema.get("patternProperties", {}))
        out = []
        for key in error.instance:
            if key in declared:
                continue
            if any(_search(p, key) for p in patterns):
                continue
            out.append(key)
        return out
    return [m.group(1) for m in _QUOTED.finditer(error.message.split("(", 1)[-1])]


def _search(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:
        return True


def _key_position(node: BlockValue, key: str) -> Position | None:
    member = node.member(key)
    if member is None:  # written in upper case (`JOB_NAME:` for `job_name`)
        member = next((m for m in node.value if m.key.lower() == key), None)
    return None if member is None else member.key_position


def _shown(node: BlockValue) -> str:
    if node.kind == "string":
        return node.value
    if node.kind == "null":
        return "null"
    if node.kind == "boolean":
        return "true" if node.value else "false"
    if node.kind in ("object", "array"):
        return node.kind
    return str(node.value)


def _menus(value: BlockValue) -> dict[Path, BlockValue]:
    """The alternatives nodes of a value, by instance path."""
    out: dict[Path, BlockValue] = {}
    todo: list[tuple[Path, BlockValue]] = [((), value)]
    while todo:
        path, node = todo.pop()
        if node.kind == "alternatives":
            out[path] = node
        elif node.kind == "object":
            todo.extend(((*path, m.key), m.value) for m in node.value)
        elif node.kind == "array":
            todo.extend(((*path, i), item) for i, item in enumerate(node.value))
    return out


def _instance(value: BlockValue, run: int, nodes: dict[Path, BlockValue], upper: bool) -> Any:
    """The plain instance of a block value for one run (each menu at its `run`-th
    alternative), filling `nodes` with the value written at each instance path."""

    def leaf(node: BlockValue, path: Path) -> Any:
        if node.kind == "alternatives":
            options = node.value
            if run < len(options):
                nodes[path] = options[run]
                return options[run].value
            nodes[path] = BlockValue("placeholder", "", node.position)
            return _SENTINEL
        nodes[path] = node
        return _SENTINEL if node.kind == "placeholder" else node.value

    if value.kind not in ("object", "array"):
        return leaf(value, ())
    root: Any = {} if value.kind == "object" else []
    nodes[()] = value
    todo: list[tuple[BlockValue, Any, Path]] = [(value, root, ())]
    while todo:
        node, out, path = todo.pop()
        if node.kind == "object":
            pairs: list[tuple[Any, BlockValue]] = [
                (m.key.lower() if upper else m.key, m.value) for m in node.value
            ]
        else:
            pairs = list(enumerate(node.value))
        for key, child in pairs:
            child_path = (*path, key)
            if child.kind in ("object", "array"):
                built: Any = {} if child.kind == "object" else []
                nodes[child_path] = child
                todo.append((child, built, child_path))
            else:
                built = leaf(child, child_path)
            if node.kind == "object":
                out[key] = built
            else:
                out.append(built)
    return root


_MENU = object()  # `_example_instance`'s answer for a value holding an `a | b` menu


def _example_instance(value: Any) -> Any:
    """The instance `_instance` makes of an example as `json.loads` gives it (no menu: every
    run is the same), each placeholder the sentinel; `_MENU` when it holds a menu. A string
    with none of `|<{[` and no ellipsis is a literal whatever `classify_string` says."""
    from drift_check.scanners.structured import ELLIPSIS, classify_string

    def leaf(text: str) -> Any:
        if not any(c in text for c in "|<{[") and text.strip() not in ELLIPSIS:
            return text
        kind = classify_string(text, _NOWHERE, False).kind
        if kind == "alternatives":
            return _MENU
        return _SENTINEL if kind == "placeholder" else text

    if isinstance(value, str):
        return leaf(value)
    if not isinstance(value, (dict, list)):
        return value
    root: Any = {} if isinstance(value, dict) else []
    todo: list[tuple[Any, Any]] = [(value, root)]
    while todo:
        node, out = todo.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in pairs:
            if isinstance(child, str):
                built = leaf(child)
                if built is _MENU:
                    return _MENU
            elif isinstance(child, (dict, list)):
                built = {} if isinstance(child, dict) else []
                todo.append((child, built))
            else:
                built = child
            if isinstance(out, dict):
                out[key] = built
            else:
                out.append(built)
    return root


def _shape(path: str, value: Any) -> BlockValue:
    from drift_check.scanners.structured import plain_block_value

    return plain_block_value(value, Position(path, 1, 1))


_NOWHERE = Position("", 1, 1)


def _excused(error: Any, nodes: dict[Path, BlockValue], validator: Any) -> bool:
    """Whether an error is only a placeholder, a blank or a bare scalar being what the
    template means."""
    at = tuple(error.absolute_path)
    node = nodes.get(at)
    if node is not None:
        if node.kind == "placeholder":
            return True
        if node.blank and error.validator != "type":
            return True
        if node.loose and error.validator in _TEXTUAL:
            text = _shown(node)
            if error.validator == "type" and "string" in _types(error.validator_value):
                return True
            probe = validator.evolve(schema={error.validator: error.validator_value})
            if probe.is_valid(text):
                return True
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict[Any, list[Any]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        count = len(error.validator_value)
        if len(branches) < count:
            return True  # some branch had no error at all (oneOf: more than one matched)
        return any(all(_excused(s, nodes, validator) for s in subs) for subs in branches.values())
    return error.validator in ("oneOf", "not", "if", "contains") and _holds_placeholder(at, nodes)


def _types(value: Any) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def _holds_placeholder(at: Path, nodes: dict[Path, BlockValue]) -> bool:
    n = len(at)
    return any(p[:n] == at and v.kind == "placeholder" for p, v in nodes.items())


class Lookup:
    """Where a field path leads in a schema: `found` (with whether its level requires it,
    when that is unconditional), `missing` (the level that should declare `key` does not) or
    `open` (the schema does not say: no `properties` there, or any key is allowed). The
    schema sides (`level`, `required_at`) are placed when first read: most lookups find
    what they look for and name no schema side."""

    __slots__ = ("_checker", "_level", "_near", "_required_at", "key", "required", "state")

    def __init__(
        self,
        state: str,
        key: str,
        level: _Site | None = None,
        required: bool | None = None,
        required_at: _Site | None = None,  # the level's `required` (or its properties)
        checker: Contracts | None = None,
        near: str | None = None,
    ) -> None:
        self.state = state
        self.key = key
        self.required = required
        self._level: Any = level
        self._required_at: Any = required_at
        self._checker = checker
        self._near = near

    def _placed(self, site: Any) -> SchemaPointer | None:
        if not isinstance(site, _Site):
            return site  # type: ignore[no-any-return]
        assert self._checker is not None
        return self._checker.pointer(site.node, site.keyword, self._near)

    @property
    def level(self) -> SchemaPointer | None:
        self._level = self._placed(self._level)
        return self._level  # type: ignore[no-any-return]

    @property
    def required_at(self) -> SchemaPointer | None:
        self._required_at = self._placed(self._required_at)
        return self._required_at  # type: ignore[no-any-return]


Levels = list[tuple[Any, bool]]  # subschemas of one level; bool: its `required` counts


def _items(levels: Levels) -> list[Any]:
    out = []
    for level, _ in levels:
        items = level.get("items")
        if isinstance(items, dict):
            out.append(items)
        prefix = level.get("prefixItems")
        if isinstance(prefix, list):
            out.extend(p for p in prefix if isinstance(p, dict))
    return out


def contracts(facts: Facts) -> Contracts:
    """The run's validators: the scan's (see `Facts.contracts`), or, for facts made without
    schemas, an empty set of them."""
    return facts.contracts or Contracts(facts.structured.schemas)


def upper_keys(checker: Contracts, path: str, value: BlockValue) -> bool:
    """Whether a block writes in upper case (`JOB_NAME:`) the keys its schema writes in
    lower case (`job_name`)."""
    if value.kind != "object" or not value.value:
        return False
    if not all(m.key.isupper() for m in value.value):
        return False
    document = checker.plain[path]
    properties = document.get("properties") if isinstance(document, dict) else None
    if not isinstance(properties, dict) or not properties:
        return False
    return not any(k.isupper() for k in properties)


def meta_problems(facts: Facts, path: str) -> list[tuple[str, str]]:
    """(pointer, message) for each place the schema at `path` breaks its meta-schema, and
    each local `$ref` that points at nothing."""
    checker = contracts(facts)
    document = checker.plain[path]
    schema = checker.schemas[path]
    out: list[tuple[str, str]] = []
    if quick.meta_valid_alone(document, checker.portable(path)):
        pass  # jsonschema's check would find nothing either
    elif isinstance(document, (dict, bool)):
        from jsonschema import exceptions, validators

        # a `$schema` that is no string names no dialect: the default one says what is wrong
        named = isinstance(document, dict) and isinstance(document.get("$schema", ""), str)
        cls = validators.validator_for(document if named else {})
        meta = checker.meta
        dialect = cls.META_SCHEMA.get("$schema", cls.__name__)
        seen: set[str] = set()
        # jsonschema-rs's yes: jsonschema's check would find nothing either
        problems = (
            []
            if quick.meta_valid(cls, document, checker.portable(path))
            else meta.problems(cls, document)
        )
        for at, error in problems:
            best = exceptions.best_match([error])
            where = (*at, *best.absolute_path)
            pointer = "".join(f"/{escape_pointer(str(p))}" for p in where)
            if pointer in seen:
                continue
            seen.add(pointer)
            out.append(
                (
                    pointer,
                    f"schema breaks its meta-schema ({dialect}) at `#{pointer}`:"
                    f" {best.message}; fix the schema",
                )
            )
    else:
        out.append(("", "schema is not a JSON object (nor `true`/`false`); fix the schema"))
    for pointer, ref in _local_refs(schema):
        fragment = ref[1:]
        if fragment.startswith("/") and plain_at(schema.plain, fragment) is MISSING:
            out.append(
                (
                    pointer,
                    f"`$ref` `{ref}` points at nothing in this schema; fix the pointer or"
                    " restore the definition",
                )
            )
    return out


def _local_refs(schema: SchemaFile) -> list[tuple[str, str]]:
    """(pointer of the `$ref` value, the reference) for each `"$ref": "#..."`."""
    if not schema.refs:
        return []
    out: list[tuple[str, str]] = []
    todo: list[tuple[str, Any]] = [("", schema.plain)]
    while todo:
        pointer, node = todo.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str):
                    if value.startswith("#"):
                        out.append((f"{pointer}/{escape_pointer(key)}", value))
                elif key not in ("enum", "const", "examples", "default") and isinstance(
                    value, (dict, list)
                ):
                    todo.append((f"{pointer}/{escape_pointer(key)}", value))
        elif isinstance(node, list):
            todo.extend(
                (f"{pointer}/{i}", item)
                for i, item in enumerate(node)
                if isinstance(item, (dict, list))
            )
    return sorted(out)


class VacuousIf(NamedTuple):
    position: Position  # the key inside the `if`'s `properties`
    level: str  # pointer of the schema whose `if` it is
    key: str
    never: bool  # the `if` also requires the key: it never holds
    elsewhere: str  # pointer of a `properties` that declares the key, "" for none


def vacuous_ifs(schema: SchemaFile) -> list[VacuousIf]:
    """Each `if` that tests a property its level does not have (see DC922)."""
    if not schema.valid or not schema.conditions:
        return []
    declared_at: dict[str, str] = {}  # key -> first `properties` pointer declaring it
    # (level pointer, level, the `if`'s pointer, the `if`)
    conditions: list[tuple[str, Any, str, dict[str, Any]]] = []
    # each object or array met: (its parent's index here, its key or index); a pointer is
    # spelt only for an `if`'s level and a `properties`
    chain: list[tuple[int, str | int]] = [(-1, "")]
    # (the node's index in `chain`, the node, its parent object's index, the parent object)
    todo: list[tuple[int, Any, int, Any]] = [(0, schema.plain, 0, None)]
    while todo:
        at, node, parent_at, parent = todo.pop()
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, (dict, list)):
                    chain.append((at, i))
                    todo.append((len(chain) - 1, item, parent_at, parent))
            continue
        if not isinstance(node, dict):
            continue  # a boolean schema
        pointer = None
        condition = node.get("if")
        if isinstance(condition, dict):
            pointer = chained_pointer(chain, at)
            # an `if` inside `allOf` entries tests the level holding the `allOf`
            in_branch = pointer.rsplit("/", 2)[-2:-1] in (["allOf"], ["anyOf"], ["oneOf"])
            level_pointer, level = (
                (chained_pointer(chain, parent_at), parent)
                if in_branch and parent is not None
                else (pointer, node)
            )
            conditions.append((level_pointer, level, f"{pointer}/if", condition))
        for key, value in node.items():
            if key in ("enum", "const", "examples", "default"):
                continue
            if not isinstance(value, (dict, list)):
                continue  # nothing below it
            if key == "properties" and isinstance(value, dict):
                pointer = chained_pointer(chain, at) if pointer is None else pointer
                child = f"{pointer}/properties"
                if "/if" not in child:
                    for prop in value:
                        declared_at.setdefault(prop, child)
            chain.append((at, key))
            todo.append((len(chain) - 1, value, at, node))
    out = []
    for level_pointer, level, if_pointer, condition in conditions:
        keys = _level_keys(schema, level)
        if keys is None:
            continue
        tested = condition.get("properties")
        if not isinstance(tested, dict):
            continue
        required = condition.get("required")
        required_keys = (
            {v for v in required if isinstance(v, str)} if isinstance(required, list) else set()
        )
        closed = any(
            level.get(k) is False for k in ("additionalProperties", "unevaluatedProperties")
        )
        for key in tested:
            if key in keys:
                continue
            elsewhere = declared_at.get(key, "")
            if not (closed or elsewhere):
                continue
            at = f"{if_pointer}/properties/{escape_pointer(key)}"
            position = schema.position(at, key=True)
            assert position is not None
            out.append(VacuousIf(position, level_pointer, key, key in required_keys, elsewhere))
    return sorted(out)


def _level_keys(schema: SchemaFile, level: dict[str, Any]) -> set[str] | None:
    """The property names a level declares (its own, its `allOf`/`anyOf`/`oneOf` branches',
    local `$ref` targets'); None when it declares none or has `patternProperties`."""
    keys: set[str] = set()
    todo: list[Any] = [level]
    seen: set[int] = set()
    while todo:
        node = todo.pop()
        if id(node) in seen or not isinstance(node, dict):
            continue
        seen.add(id(node))
        if "patternProperties" in node:
            return None
        properties = node.get("properties")
        if isinstance(properties, dict):
            keys.update(properties)
        for keyword in ("allOf", "anyOf", "oneOf"):
            branches = node.get(keyword)
            if isinstance(branches, list):
                todo.extend(branches)
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/"):
            target = plain_at(schema.plain, ref[1:])
            if target is not MISSING:
                todo.append(target)
    return keys or None

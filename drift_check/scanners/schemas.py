"""JSON Schema files, who owns them, and which schema each structured block claims.

A schema is found by `structured-schemas` (`**/*.schema.json`) or named in `schema-pairs`.
Its owner is the skill folder it sits in (directly, or in a `schemas/`, `contracts/` or
`assets/contracts/` folder of the skill: keryx ships `input-contract.schema.json` and
`output-contract.schema.json` beside SKILL.md), else the agent whose file stem starts its
name, else the plugin root whose `schemas/` folder holds it. Its role (input or output) comes
from its file name (`input`, `request`, `dispatch`; `output`, `result`, `response`), else
from the first word of its title that says so.

Pairing never guesses. A block claims a schema:

1. by `schema-pairs` (a template name, an info string with an optional ` in GLOB`, or
   `dispatch in GLOB`, mapped to a schema file);
2. by a `"$schema"` key naming a schema of the tree (its path from the block's file or from
   the root, or its `$id`);
3. a template by its name, when exactly one schema's title or description names it
   (keryx: "Output Contract (CONTEXT_RESULT)");
4. a template by its owner: the skill holding it has exactly one output schema (input, for a
   `_REQUEST`) and exactly one template name of that kind; a contract block
   (`contract-info-strings`) when its skill has exactly one output schema;
5. a dispatch template by the skill it names (`skills/context-collector/SKILL.md`), when that
   skill has exactly one input schema.

A name claimed by one schema is that schema wherever the template appears, and consumers
reading `NAME.field` read that schema. Field tables take the schema of the blocks in their
section, else of the block or schema file their section names.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from typing import Any

from drift_check.facts import (
    FieldTable,
    InputProblem,
    Position,
    SchemaExample,
    SchemaFile,
    StructuredBlock,
    chained_pointer,
)
from drift_check.scanners.files import Repo, glob_pattern
from drift_check.scanners.json_parser import JsonSyntaxError, Locator, parse_plain

_INPUT_WORDS = ("input", "request", "dispatch")
_OUTPUT_WORDS = ("output", "result", "response")
_SCHEMA_FOLDERS = ("schemas", "contracts")
_WORD = re.compile(r"\b[A-Z][A-Z0-9_]+\b")


def scan_schemas(
    repo: Repo,
    paths: Iterable[str],
    skill_dirs: frozenset[str],
    agent_paths: Iterable[str],
    plugin_roots: frozenset[str],
    settings: dict[str, Any],
    problems: list[InputProblem],
) -> dict[str, SchemaFile]:
    """Every schema file, parsed (positions are looked up later, where a finding needs
    one), with its owner, role and declared names."""
    names = re.compile(settings["structured-template-names"])
    agents: dict[str, str] = {}  # folder/stem -> agent path
    for agent in agent_paths:
        agents[agent[: -len(".md")]] = agent
    out: dict[str, SchemaFile] = {}
    for path in sorted(set(paths)):
        source = repo.read(path)
        if source is None:
            continue
        owner = _owner(path, skill_dirs, agents, plugin_roots)
        try:
            document = parse_plain(source, repo.limits.max_json_depth)
        except JsonSyntaxError as error:
            problems.append(
                InputProblem(error.position, "schema-json", f"not valid JSON: {error.message}")
            )
            out[path] = SchemaFile(path, source, None, owner, "", (), "", valid=False)
            continue
        locator = Locator(source.text)
        title = _text(document, "title")
        declared = {
            w
            for field in (title, _text(document, "description"))
            for w in _WORD.findall(field)
            if names.fullmatch(w)
        }
        out[path] = SchemaFile(
            path,
            source,
            document,
            owner,
            _role(path, title),
            tuple(sorted(declared)),
            _text(document, "$id"),
            _examples(document),
            locator=locator,
            subresources=_subresources(source.text, document),
            refs=_may_hold_key(source.text, "$ref"),
            conditions=_may_hold_key(source.text, "if"),
        )
    return out


_ANCHORS = ('"$anchor"', '"$dynamicAnchor"', '"$recursiveAnchor"')


def _subresources(text: str, document: Any) -> bool:
    """Whether crawling the schema (`referencing`'s `Registry.crawl`) would register
    something besides the root and the root's `$id`: an anchor, an `$id` below the root, an
    `id` where a draft-04 or older dialect reads it. Read from the text, erring towards yes:
    a `\\u` escape could spell any of them."""
    if "\\u" in text or any(a in text for a in _ANCHORS):
        return True
    root = document.get("$id") if isinstance(document, dict) else None
    if text.count('"$id"') > (1 if isinstance(root, str) else 0):
        return True
    if isinstance(root, str) and root.startswith("#"):
        return True  # a draft 6-7 anchor
    return '"id"' in text and ("draft-04" in text or "draft-03" in text)


def _may_hold_key(text: str, key: str) -> bool:
    """Whether a JSON text may have `key` as a member name: written as it is in quotes, or
    spelt with a `\\u` escape."""
    return f'"{key}"' in text or "\\u" in text


def _text(document: Any, key: str) -> str:
    value = document.get(key) if isinstance(document, dict) else None
    return value if isinstance(value, str) else ""


def _owner(
    path: str, skill_dirs: frozenset[str], agents: dict[str, str], plugin_roots: frozenset[str]
) -> str:
    folder = posixpath.dirname(path)
    if folder in skill_dirs:
        return folder
    parent = posixpath.dirname(folder)
    base = posixpath.basename(folder)
    if base in _SCHEMA_FOLDERS and parent in skill_dirs:
        return parent
    if base == "contracts" and posixpath.basename(parent) == "assets":
        grand = posixpath.dirname(parent)
        if grand in skill_dirs:
            return grand
    stem = posixpath.basename(path).split(".", 1)[0]
    for where in (folder, parent):
        agent = agents.get(posixpath.join(where, stem) if where else stem)
        if agent is not None:
            return agent
    if base == "schemas" and parent in plugin_roots:
        return parent
    return ""


def _role(path: str, title: str) -> str:
    name = posixpath.basename(path).lower()
    for words, role in ((_INPUT_WORDS, "input"), (_OUTPUT_WORDS, "output")):
        if any(w in name for w in words):
            return role
    for word in re.findall(r"[a-z]+", title.lower()):
        if word in _INPUT_WORDS:
            return "input"
        if word in _OUTPUT_WORDS:
            return "output"
    return ""


def _examples(document: Any) -> tuple[SchemaExample, ...]:
    """Every `examples` entry and `default` of a subschema, with the subschema's pointer:
    a node's before its subschemas'. Values inside `enum`, `const`, `examples` and
    `default` are data, not subschemas."""
    out: list[SchemaExample] = []
    # each object or array met, as (its parent's index here, its key or index): a pointer
    # is spelt only for the few that hold an `examples` or a `default`
    chain: list[tuple[int, str | int]] = [(-1, "")]
    todo: list[tuple[int, Any]] = [(0, document)]
    while todo:
        at, node = todo.pop()
        if isinstance(node, list):
            for i in range(len(node) - 1, -1, -1):
                if isinstance(node[i], (dict, list)):
                    chain.append((at, i))
                    todo.append((len(chain) - 1, node[i]))
            continue
        if not isinstance(node, dict):
            continue
        below = []
        pointer = None
        for key, value in node.items():
            if key == "examples" and isinstance(value, list):
                pointer = chained_pointer(chain, at) if pointer is None else pointer
                out.extend(SchemaExample(pointer, "examples", i, v) for i, v in enumerate(value))
            elif key == "default":
                pointer = chained_pointer(chain, at) if pointer is None else pointer
                out.append(SchemaExample(pointer, "default", 0, value))
            elif key not in ("enum", "const", "examples") and isinstance(value, (dict, list)):
                chain.append((at, key))
                below.append((len(chain) - 1, value))
        todo.extend(reversed(below))
    return tuple(out)


def owner_of(path: str, skill_dirs: frozenset[str]) -> str:
    """The skill folder holding a file, at any depth; "" for none."""
    folder = posixpath.dirname(path)
    while folder:
        if folder in skill_dirs:
            return folder
        folder = posixpath.dirname(folder)
    return ""


def pair(
    blocks: list[StructuredBlock],
    tables: list[FieldTable],
    schemas: dict[str, SchemaFile],
    skill_dirs: frozenset[str],
    settings: dict[str, Any],
) -> tuple[list[StructuredBlock], list[FieldTable], dict[str, str]]:
    """Each block and table with the schema it claims (see the module docstring), and the
    template names whose schema is known."""
    usable = {p: s for p, s in schemas.items() if s.valid}
    configured = _configured(settings["schema-pairs"], usable)
    by_id = {s.identifier: p for p, s in usable.items() if s.identifier}
    owned: dict[str, list[SchemaFile]] = {}
    for schema in usable.values():
        if schema.owner:
            owned.setdefault(schema.owner, []).append(schema)
    contract_infos = {i.lower() for i in settings["contract-info-strings"]}
    names = _name_schemas(blocks, usable, owned, configured, skill_dirs)
    skills_by_name: dict[str, list[str]] = {}
    for folder in skill_dirs:
        skills_by_name.setdefault(posixpath.basename(folder), []).append(folder)
    out = []
    for block in blocks:
        schema, claim = None, ""
        selector = next((s for s in configured if s.matches(block)), None)
        if selector is not None:
            schema, claim = selector.schema, "config"
        elif block.kind == "template" and block.name in names:
            schema, claim = names[block.name]
        elif block.kind == "json" and block.value is not None:
            schema = _dollar_schema(block, usable, by_id)
            claim = "$schema" if schema else ""
            if schema is None and block.info in contract_infos:
                only = _only(owned.get(owner_of(block.path, skill_dirs), []), "output")
                schema, claim = (only, "owner") if only else (None, "")
        elif block.kind == "dispatch" and len(block.skills_named) == 1:
            folders = skills_by_name.get(block.skills_named[0], [])
            if len(folders) == 1:
                only = _only(owned.get(folders[0], []), "input")
                schema, claim = (only, "named") if only else (None, "")
        out.append(block._replace(schema=schema, claim=claim) if schema else block)
    in_section: dict[tuple[str, int], set[str]] = {}
    for block in out:
        if block.schema:
            in_section.setdefault((block.path, block.section), set()).add(block.schema)
    paired_tables = [_table_schema(t, in_section, names, usable, skill_dirs) for t in tables]
    return out, paired_tables, {name: schema for name, (schema, _) in names.items()}


class _Selector:
    """One `schema-pairs` entry: what it selects, and the schema."""

    def __init__(self, key: str, schema: str) -> None:
        self.schema = schema
        what, _, glob = key.partition(" in ")
        self.what = what.strip()
        self.glob = glob_pattern(glob.strip()) if glob.strip() else None

    def matches(self, block: StructuredBlock) -> bool:
        if self.glob is not None and not self.glob.match(block.path):
            return False
        if block.kind == "template":
            return self.what == block.name
        if block.kind == "dispatch":
            return self.what == "dispatch"
        return self.what.lower() == block.info


def _configured(pairs: dict[str, str], usable: dict[str, SchemaFile]) -> list[_Selector]:
    return [_Selector(key, path) for key, path in sorted(pairs.items()) if path in usable]


def _only(schemas: list[SchemaFile], role: str) -> str | None:
    found = [s.path for s in schemas if s.role == role]
    return found[0] if len(found) == 1 else None


def _name_schemas(
    blocks: list[StructuredBlock],
    usable: dict[str, SchemaFile],
    owned: dict[str, list[SchemaFile]],
    configured: list[_Selector],
    skill_dirs: frozenset[str],
) -> dict[str, tuple[str, str]]:
    """Template name -> (schema, how), for names whose schema is knowable."""
    out: dict[str, tuple[str, str]] = {}
    for selector in configured:
        if selector.glob is None and selector.what.isupper():
            out.setdefault(selector.what, (selector.schema, "config"))
    declaring: dict[str, set[str]] = {}
    for schema in usable.values():
        for name in schema.names:
            declaring.setdefault(name, set()).add(schema.path)
    for name, paths in declaring.items():
        if len(paths) == 1 and name not in out:
            out[name] = (next(iter(paths)), "declared")
    # by owner: a skill with one schema of a role and one template name of that kind
    by_skill: dict[tuple[str, str], set[str]] = {}
    for block in blocks:
        if block.kind == "template":
            role = "input" if block.name.endswith("_REQUEST") else "output"
            skill = owner_of(block.path, skill_dirs)
            if skill:
                by_skill.setdefault((skill, role), set()).add(block.name)
    claims: dict[str, set[str]] = {}
    for (skill, role), found in by_skill.items():
        only = _only(owned.get(skill, []), role)
        if only is not None and len(found) == 1:
            claims.setdefault(next(iter(found)), set()).add(only)
    for name, paths in claims.items():
        if len(paths) == 1 and name not in out:
            out[name] = (next(iter(paths)), "owner")
    return out


def _dollar_schema(
    block: StructuredBlock, usable: dict[str, SchemaFile], by_id: dict[str, str]
) -> str | None:
    """The schema a JSON block's `"$schema"` names, when it is one of the tree's."""
    assert block.value is not None
    member = block.value.member("$schema")
    if member is None or member.value.kind != "string":
        return None
    written = member.value.value
    if written in by_id:
        return by_id[written]
    if "://" in written:
        return None
    here = posixpath.normpath(posixpath.join(posixpath.dirname(block.path), written))
    for candidate in (here, posixpath.normpath(written.lstrip("/"))):
        if candidate in usable:
            return candidate
    return None


def _table_schema(
    table: FieldTable,
    in_section: dict[tuple[str, int], set[str]],
    names: dict[str, tuple[str, str]],
    usable: dict[str, SchemaFile],
    skill_dirs: frozenset[str],
) -> FieldTable:
    found = set(in_section.get((table.path, table.section), ()))
    if not found:
        for mention in table.mentions:
            if mention in names:
                found.add(names[mention][0])
            elif mention.endswith(".schema.json"):
                same = [p for p in usable if posixpath.basename(p) == mention]
                skill = owner_of(table.path, skill_dirs)
                near = [p for p in same if skill and usable[p].owner == skill]
                chosen = near or same
                if len(chosen) == 1:
                    found.add(chosen[0])
    if len(found) == 1:
        return table._replace(schema=next(iter(found)))
    return table


def schema_position(schema: SchemaFile, pointer: str) -> Position:
    """Where the node at `pointer` is written (the file's start when it is not there)."""
    return schema.position(pointer) or Position(schema.path, 1, 1)

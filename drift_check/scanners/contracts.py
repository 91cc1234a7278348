"""Structured contracts of a tree: its schema files, the structured blocks and field tables
of its Markdown, who reads their fields, and which schema each claims."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from drift_check.facts import (
    EMPTY_STRUCTURED,
    FieldRead,
    FieldTable,
    InputProblem,
    SchemaFile,
    Structured,
    StructuredBlock,
)
from drift_check.scanners.files import Repo, build_output, matches


def find_schemas(
    repo: Repo,
    settings: dict[str, Any],
    skill_dirs: frozenset[str],
    agent_paths: Iterable[str],
    plugin_roots: frozenset[str],
    problems: list[InputProblem],
) -> dict[str, SchemaFile]:
    """The tree's JSON Schemas, by path (the files `structured-schemas` and `schema-pairs`
    name, less those `discovery-skip` names), each with its owner."""
    skip = tuple(settings["discovery-skip"])
    configured = [p for p in settings["schema-pairs"].values() if repo.exists(p)]
    schema_paths = [
        p
        for p in {*repo.glob(settings["structured-schemas"]), *configured}
        if not (skip and matches(p, skip))
    ]
    if not schema_paths:
        return {}
    from drift_check.scanners.schemas import scan_schemas

    return scan_schemas(
        repo, schema_paths, skill_dirs, agent_paths, plugin_roots, settings, problems
    )


def structured_paths(
    repo: Repo,
    settings: dict[str, Any],
    skill_dirs: frozenset[str],
    schemas: dict[str, SchemaFile],
    kept: list[str],
) -> list[str]:
    """The Markdown files `build_structured` looks at: with `schemas`, every document of a
    skill or schema folder and those `schema-pairs` name, and the files already read; with
    none (and none configured), only the files already read. `kept`: the tree's files that
    `discovery-skip` leaves."""
    markdown = {p for p in repo.sources() if p.endswith(".md")}
    if schemas:
        # every skill's documents: templates and examples sit beside SKILL.md
        folders = {s.owner for s in schemas.values() if s.owner and not s.owner.endswith(".md")}
        folders.update(p.rsplit("/", 1)[0] for p in schemas if "/" in p)
        folders.update(skill_dirs)
        prefixes = tuple(f + "/" for f in folders)
        markdown.update(p for p in repo.files() if p.endswith(".md") and p.startswith(prefixes))
        globs = [k.partition(" in ")[2].strip() for k in settings["schema-pairs"]]
        markdown.update(p for p in repo.glob([g for g in globs if g]) if p.endswith(".md"))
    return sorted(markdown.intersection(kept))  # each read or found is a file of the tree


def structured_looks(
    repo: Repo, settings: dict[str, Any], schemas: dict[str, SchemaFile], paths: list[str]
) -> dict[str, int]:
    """What each of `paths` may hold that `build_structured` scans (`worth_scanning`),
    for those that may hold anything: the cheap look, for any process to make."""
    from drift_check.scanners.structured import NOTHING

    look = _look(repo, settings, bool(schemas))
    return {path: what for path in paths if (what := look(path)) != NOTHING}


def _look(repo: Repo, settings: dict[str, Any], full: bool) -> Callable[[str], int]:
    """`worth_scanning` of a file, by its path (NOTHING for a file that cannot be read)."""
    from drift_check.scanners.structured import NOTHING, worth_scanning

    names = re.compile(settings["structured-template-names"])

    def look(path: str) -> int:
        source = repo.read(path)
        if source is None:
            return NOTHING
        return worth_scanning(source.text, settings, names, full)

    return look


def build_structured(
    repo: Repo,
    settings: dict[str, Any],
    skill_dirs: frozenset[str],
    schemas: dict[str, SchemaFile],
    kept: list[str],
    paths: list[str],
    looked: dict[str, int] | None = None,
) -> Structured:
    """The structured blocks, field tables and field reads of `paths` (`structured_paths`,
    chosen before other scans read more files), paired with the tree's `schemas`
    (`find_schemas`); with none, for the rules that read blocks without a schema.
    `looked`: `structured_looks` of files that include them all, made by another process."""
    if not paths:
        return EMPTY_STRUCTURED
    from drift_check.parallel import map_files
    from drift_check.scanners.markdown import scan
    from drift_check.scanners.structured import ALL, NOTHING, field_reads, scan_structured

    names = re.compile(settings["structured-template-names"])
    if looked is not None:
        worthy = [(p, looked[p]) for p in paths if p in looked]
    else:
        # the cheap look at every file on every core; the few worth it are scanned here, as
        # their blocks cost more to send between processes than to find
        looks = map_files(_look(repo, settings, bool(schemas)), paths, repo, light=True)
        worthy = [(p, what) for p, what in zip(paths, looks, strict=True) if what != NOTHING]
    blocks: list[StructuredBlock] = []
    tables: list[FieldTable] = []
    reads: list[FieldRead] = []
    may_pair = _may_pair(settings) if schemas else None
    for path, what in worthy:
        source = repo.read(path)
        if source is None:
            continue
        if what != ALL:  # a text that can hold no block or table: its reads alone
            reads.extend(field_reads(source, names))
            continue
        found = scan_structured(source, scan(source.text), settings, bool(schemas), may_pair)
        blocks.extend(found.blocks)
        tables.extend(found.tables)
        reads.extend(found.reads)
    if not schemas:
        return Structured({}, tuple(blocks), (), ())
    from drift_check.scanners.schemas import pair

    paired, paired_tables, by_name = pair(blocks, tables, schemas, skill_dirs, settings)
    if by_name:
        from drift_check.scanners.code_reads import CODE_SUFFIXES, code_reads

        code = [p for p in kept if p.endswith(CODE_SUFFIXES) and not build_output(p)]
        read = (repo.read(p) for p in code)
        sources = [s for s in read if s is not None and not build_output(s.path, s.text)]
        reads.extend(code_reads(sources, by_name))
    return Structured(schemas, tuple(paired), tuple(paired_tables), tuple(reads), by_name)


def _may_pair(settings: dict[str, Any]) -> Any:
    """Whether a JSON block may claim a schema (scanners/schemas.py `pair`): a contract
    block, a block with a `$schema` key, or one whose info string a `schema-pairs` entry
    selects. Most `json` blocks are API payloads that claim nothing."""
    contract = {i.lower() for i in settings["contract-info-strings"]}
    selected = {k.partition(" in ")[0].strip().lower() for k in settings["schema-pairs"]}
    infos = contract | selected

    def may_pair(path: str, info: str, value: Any) -> bool:
        return info in infos or (isinstance(value, dict) and "$schema" in value)

    return may_pair

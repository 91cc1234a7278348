"""What `--show-files`, `--show-settings`, `--show-fixes` and `--verbose` print: the run's
inputs and resolved configuration, formatted; nothing here decides what is checked."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from drift_check.config import Config
from drift_check.facts import Facts
from drift_check.reporters.escape import escape
from drift_check.rules.base import Finding, Rule
from drift_check.settings import SETTINGS, origins


def file_kinds(facts: Facts) -> dict[str, str]:
    """Every file the run read, with the kind of component it was found as (the first that
    fits, in this order); a file read only because another one names it (an included
    reference, a link's target) is `referenced`."""
    components = facts.components
    manifests = facts.manifests
    settings_matrix = facts.settings["skill-matrix"] or {}
    kinds: list[tuple[str, Iterable[str]]] = [
        ("registry", [facts.registry.path] if facts.registry else []),
        ("agent", (a.path for a in facts.all_agents)),
        ("skill", facts.skills),
        ("skill host copy", (v.path for v in facts.skill_variants)),
        ("command", facts.commands),
        ("marketplace", (m.path for m in manifests.marketplaces)),
        ("plugin manifest", (p.manifest for p in manifests.plugins if p.manifest)),
        ("hooks", (h.path for h in manifests.hooks)),
        ("MCP config", manifests.mcp_files),
        ("Claude settings", manifests.settings_files),
        ("memory file", facts.memory_files or components.memory_files),
        ("skill matrix", [facts.matrix.path] if facts.matrix else settings_matrix.get("file", [])),
        ("skill tree", [facts.tree.path] if facts.tree else []),
        ("consumer", facts.consumers),
    ]
    read = set(facts.sources)
    out: dict[str, str] = {}
    for kind, paths in kinds:
        if isinstance(paths, str):
            paths = [paths]
        for path in paths:
            if path in read:
                out.setdefault(path, kind)
    for path in read:
        out.setdefault(path, "referenced")
    return dict(sorted(out.items()))


def files_text(facts: Facts) -> str:
    """`--show-files`: one line per file read, `path  kind`, sorted by path."""
    kinds = file_kinds(facts)
    width = max((len(p) for p in kinds), default=0)
    return "".join(escape(f"{path:<{width}}  {kind}") + "\n" for path, kind in kinds.items())


def _json(value: Any) -> str:
    if isinstance(value, tuple):
        value = list(value)
    return json.dumps(value, ensure_ascii=False)


def settings_text(
    config: Config,
    rules: list[Rule],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
) -> str:
    """`--show-settings`: the root, the config file, the packs and why, the selection and
    the rules it gives, then every setting with its value and where that comes from
    (`default`, `pack NAME`, the config file or the command line), one per line."""
    shown_file = os.path.relpath(config.config_file, config.root) if config.config_file else None
    origin = config.key_origins.get
    pack = f"pack {config.preset}" if config.preset else "default"
    extended = len(config.extend_select)
    own_select = config.select[: len(config.select) - extended] if extended else config.select
    rows: list[tuple[str, Any, str]] = [
        ("root", os.path.abspath(config.root), "the folder checked"),
        ("config-file", shown_file, "found at the root" if shown_file else "none found"),
        ("packs", config.preset.split("+") if config.preset else [], config.reason or "none"),
        ("select", select or own_select, "command line" if select else origin("select", pack)),
        ("extend-select", config.extend_select, origin("extend-select", "default")),
        ("ignore", (*config.ignore, *ignore), _joined(origin("ignore", ""), bool(ignore))),
        ("severity", config.severities, origin("severity", "default")),
        ("per-file-ignores", config.per_file_ignores, origin("per-file-ignores", "default")),
        ("rules", [r.code for r in rules], f"{len(rules)} selected"),
    ]
    where = origins(config.layers)
    rows += [(s.name, config.settings[s.name], where[s.name]) for s in SETTINGS]
    width = max(len(name) for name, _, _ in rows)
    return "".join(
        escape(f"{name:<{width}} = {_json(value)}  # {origin}") + "\n"
        for name, value, origin in rows
    )


def _joined(from_file: str, command_line: bool) -> str:
    parts = [p for p in (from_file, "command line" if command_line else "") if p]
    return ", ".join(parts) or "default"


def fixes_text(findings: Iterable[Finding], applied: bool, cwd_path: Any) -> str:
    """`--show-fixes`: with `--fix` (`applied`), each finding a fix removed; without it,
    each finding that has a fix, with its applicability. One line each, sorted."""
    lines = []
    for f in sorted(findings):
        if f.fix is None:
            continue
        how = "" if applied else f" [{f.fix.applicability}]"
        where = f"{cwd_path(f.path)}:{f.line}:{f.column}:"
        lines.append(escape(f"{where} {f.code}{how} {f.fix.description}"))
    if applied:
        head = f"Fixed {len(lines)} finding{'s' if len(lines) != 1 else ''}:"
    else:
        head = f"{len(lines)} fix{'es' if len(lines) != 1 else ''} available:"
    return "\n".join([head, *lines]) + "\n"

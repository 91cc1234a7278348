"""Configuration: a rule pack (preset), then the user's `[tool.drift-check]` or
`.drift-check.yaml` on top of it. With no config the layout is auto-detected.
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING, Any, AnyStr

from drift_check import settings as schema
from drift_check.records import NamedTuple
from drift_check.yaml_loader import YamlError, safe_load

if TYPE_CHECKING:
    from drift_check.discovery import Components
    from drift_check.scanners.files import Repo


def load_yaml_document(text: str) -> Any:
    """YAML, read with the JSON parser when the document is in YAML's JSON-compatible
    subset (the shipped packs are), so that no YAML library is imported for them."""
    if text.lstrip().startswith("{"):
        import json

        try:
            return json.loads(text)
        except ValueError:
            pass  # flow-style YAML that is not JSON
    return safe_load(text)


# detection order: the more specific layout first
PACK_ORDER = (
    "gsd", "contracts", "gaia", "gdskills", "envelope", "claude-code", "agent-skills",
)  # fmt: skip

# keys of a config file besides the settings (and their `extend-` forms)
CONFIG_KEYS = {"preset", "select", "extend-select", "ignore", "severity", "per-file-ignores"}
SEVERITIES = ("error", "warning", "info")
PACK_KEYS = {"name", "extends", "summary", "notes", "detect", "settings", "rules"}


class ConfigError(Exception):
    """A configuration problem: reported as one line, exit code 2."""


class Pack(NamedTuple):
    name: str
    summary: str
    detect: tuple[str, ...]
    settings: dict[str, Any]
    rules: tuple[str, ...]
    source: str
    # each pack file's own settings, lowest first, labelled for `--show-settings`
    layers: tuple[tuple[str, dict[str, Any]], ...] = ()


class CommandLine(NamedTuple):
    """What the command line sets on top of the config file: a preset, settings (checked
    like a config file's) and codes added to the selection."""

    preset: str | None = None
    settings: dict[str, Any] = {}  # noqa: RUF012 (a NamedTuple default, never mutated)
    extend_select: tuple[str, ...] = ()


COMMAND_LINE = "command line"


class Config(NamedTuple):
    root: str
    preset: str  # "" until discovery has chosen the packs (see `resolve`)
    reason: str  # why this preset: a config file, or what discovery found
    config_file: str | None
    settings: dict[str, Any]  # the pack's settings under the user's overrides
    select: tuple[str, ...]
    ignore: tuple[str, ...] = ()
    severities: dict[str, str] = {}  # noqa: RUF012 (a NamedTuple default, never mutated)
    per_file_ignores: dict[str, list[str]] = {}  # noqa: RUF012 (glob -> codes or prefixes)
    overrides: dict[str, Any] = {}  # noqa: RUF012 (the settings the user's config sets)
    extend_select: tuple[str, ...] = ()  # added to the packs' rules once they are chosen
    key_lines: dict[str, int] = {}  # noqa: RUF012 (line of each key in the config file)
    preset_set: bool = False  # the user's config names the preset
    # the settings layers over the defaults, lowest first, each with where it comes from
    # (`pack NAME`, the config file, the command line): `settings` is their resolution
    layers: tuple[tuple[str, dict[str, Any]], ...] = ()
    # where `preset`, `select`, `extend-select`, `ignore`, `severity` and `per-file-ignores`
    # come from, when the config file or the command line sets them
    key_origins: dict[str, str] = {}  # noqa: RUF012 (a NamedTuple default, never mutated)


def packs_dir() -> str:
    """Packs ship in the wheel as `drift_check/packs`; a source checkout has `rules/`."""
    here = os.path.dirname(os.path.abspath(__file__))
    shipped = os.path.join(here, "packs")
    return shipped if os.path.isdir(shipped) else os.path.join(os.path.dirname(here), "rules")


def known_presets() -> list[str]:
    return sorted(n[: -len(".yaml")] for n in os.listdir(packs_dir()) if n.endswith(".yaml"))


CONFIG_MAX_BYTES = 1024 * 1024  # a config or pack file is a page or two


def _read_bounded(fh: IO[AnyStr], path: str) -> AnyStr:
    """A config file's content; a file larger than any config could be is refused unread
    past the limit (a pull request can add one)."""
    data = fh.read(CONFIG_MAX_BYTES + 1)
    if len(data) > CONFIG_MAX_BYTES:
        raise ConfigError(f"{path}: larger than {CONFIG_MAX_BYTES} bytes; not a config file")
    return data


_SHIPPED: dict[str, tuple[str, dict[str, Any]]] = {}


def _read_pack(name_or_path: str, root: str) -> tuple[str, dict[str, Any]]:
    """A pack file's path and its checked contents. A shipped pack is read once per process
    (discovery probes each one; a watch run or the tests resolve many trees); the result is
    shared, so nothing may change it."""
    if not name_or_path.endswith((".yaml", ".yml")):
        if name_or_path not in _SHIPPED:
            _SHIPPED[name_or_path] = _read_pack_file(name_or_path, root)
        return _SHIPPED[name_or_path]
    return _read_pack_file(name_or_path, root)


def _read_pack_file(name_or_path: str, root: str) -> tuple[str, dict[str, Any]]:
    if name_or_path.endswith((".yaml", ".yml")):
        path = os.path.realpath(os.path.join(root, name_or_path))
        if not _inside(root, path):
            raise ConfigError(f"{name_or_path}: a rule pack must be inside the repository")
        if os.path.exists(path) and not os.path.isfile(path):
            raise ConfigError(f"{name_or_path}: a rule pack must be a regular file")
    else:
        path = os.path.join(packs_dir(), f"{name_or_path}.yaml")
    try:
        with open(path, encoding="utf-8") as fh:
            data = load_yaml_document(_read_bounded(fh, path))
    except FileNotFoundError:
        if name_or_path.endswith((".yaml", ".yml")):
            raise ConfigError(f"{name_or_path}: no such rule pack file") from None
        known = ", ".join(known_presets())
        raise ConfigError(f"unknown preset {name_or_path!r}; known presets: {known}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read rule pack: {exc}") from None
    except YamlError as exc:
        raise ConfigError(f"{path}:{exc.line}:{exc.column}: {exc.message}") from None
    if not isinstance(data, dict) or "name" not in data:
        raise ConfigError(f"{path}: a rule pack is a mapping with at least `name`")
    unknown = sorted(set(data) - PACK_KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key `{unknown[0]}` in rule pack")
    if not isinstance(data.get("settings") or {}, dict):
        raise ConfigError(f"{path}: `settings` must be a mapping")
    data["settings"] = _checked_settings(data.get("settings") or {}, path, "settings.")
    if "rules" in data:
        data["rules"] = _codes(data["rules"], path, "`rules`")
    return path, data


def _parents(data: dict[str, Any]) -> list[str]:
    parents = data.get("extends") or []
    return [str(p) for p in ([parents] if isinstance(parents, str) else parents)]


def _linearize(
    name: str, root: str, files: dict[str, tuple[str, dict[str, Any]]], _seen: tuple[str, ...] = ()
) -> list[str]:
    """The pack and its ancestors, most specific first, each once (C3, as Python orders a
    class's bases): a setting comes from the first of them that sets it, so a pack shared by
    two parents cannot undo what one parent changed."""
    if name in _seen:
        raise ConfigError(f"rule pack {name!r} extends itself ({' -> '.join((*_seen, name))})")
    if name not in files:
        files[name] = _read_pack(name, root)
    parents = _parents(files[name][1])
    for parent in parents:  # a missing parent is reported at the pack that names it
        if parent.endswith((".yaml", ".yml")):
            if not os.path.isfile(os.path.join(root, parent)):
                raise ConfigError(f"{files[name][0]}: `extends` {parent!r}: no such rule pack file")
        elif parent not in known_presets():
            known = ", ".join(known_presets())
            raise ConfigError(
                f"{files[name][0]}: `extends` names unknown preset {parent!r};"
                f" known presets: {known}"
            )
    sequences = [_linearize(p, root, files, (*_seen, name)) for p in parents] + [parents]
    order = [name]
    while any(sequences):
        for seq in sequences:
            head = seq[0] if seq else None
            if head is not None and not any(head in other[1:] for other in sequences):
                break
        else:
            raise ConfigError(f"rule pack {name!r}: its `extends` cannot be ordered")
        order.append(head)
        sequences = [[p for p in seq if p != head] for seq in sequences]
    return order


def load_pack(name_or_path: str | list[str], root: str) -> Pack:
    """A pack with everything it extends; a list of presets is their composite (the packs
    discovery chose for a tree that holds several systems), ordered as `extends` orders.
    Shipped packs are put together once per process (they are shared: nothing may change
    them); a pack file of the user's is read again each time."""
    key = tuple(name_or_path) if isinstance(name_or_path, list) else (name_or_path,)
    shipped = not any(n.endswith((".yaml", ".yml")) for n in key)
    if shipped and key in _LOADED:
        return _LOADED[key]
    pack = _load_pack(name_or_path, root)
    if shipped:
        _LOADED[key] = pack
    return pack


_LOADED: dict[tuple[str, ...], Pack] = {}


def _load_pack(name_or_path: str | list[str], root: str) -> Pack:
    files: dict[str, tuple[str, dict[str, Any]]] = {}
    if isinstance(name_or_path, list):
        names = name_or_path
        name_or_path = "+".join(names)
        files[name_or_path] = (
            "<discovered>",
            {"name": name_or_path, "extends": names, "settings": {}},
        )
    order = _linearize(name_or_path, root, files)
    settings = schema.resolve(files[pack][1]["settings"] for pack in reversed(order))
    rules = next((files[p][1]["rules"] for p in order if files[p][1].get("rules")), ("DC",))
    path, data = files[name_or_path]
    return Pack(
        name=str(data["name"]),
        summary=str(data.get("summary", "")),
        detect=tuple(data.get("detect") or ()),
        settings=settings,
        rules=rules,
        source=path,
        layers=tuple(
            (f"pack {files[p][1]['name']}", files[p][1]["settings"])
            for p in reversed(order)
            if files[p][1]["settings"]
        ),
    )


def _checked_settings(values: dict[str, Any], where: str, prefix: str = "") -> dict[str, Any]:
    try:
        return schema.check(values, prefix)
    except schema.SettingError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _inside(root: str, path: str) -> bool:
    real_root = os.path.realpath(root)
    return os.path.realpath(path).startswith(real_root + os.sep)


def _repository_file(root: str, path: str) -> bool:
    """A regular file inside the root (never a FIFO that would block, nor a link that
    leaves the root: a config file in a pull request is as untrusted as the rest)."""
    if not os.path.isfile(path):
        return False
    if not _inside(root, path):
        raise ConfigError(f"{path}: symlink points outside the repository; not read")
    return True


def find_user_config(root: str) -> tuple[str, dict[str, Any]] | None:
    """The config file at `root` and its contents: `.drift-check.yaml` (or `.yml`) wins over
    `[tool.drift-check]` in pyproject.toml, as ruff.toml wins over pyproject.toml."""
    for name in (".drift-check.yaml", ".drift-check.yml"):
        path = os.path.join(root, name)
        if _repository_file(root, path):
            return path, _read_yaml_config(path)
    pyproject = os.path.join(root, "pyproject.toml")
    if _repository_file(root, pyproject):
        table = _read_pyproject(pyproject)
        if table is not None:
            return pyproject, table
    return None


def _read_pyproject(path: str) -> dict[str, Any] | None:
    import tomllib

    try:
        with open(path, "rb") as fh:
            data = tomllib.loads(_read_bounded(fh, path).decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    table = data.get("tool", {}).get("drift-check")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.drift-check] must be a table")
    return table


def _read_yaml_config(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = safe_load(_read_bounded(fh, path))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except YamlError as exc:
        raise ConfigError(f"{path}:{exc.line}:{exc.column}: {exc.message}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of keys")
    return data


def _detect_entries(name: str, root: str) -> tuple[Any, ...]:
    """A shipped pack's own `detect` entries (what it extends does not add to them)."""
    return tuple(_read_pack(name, root)[1].get("detect") or ())


def _probe(repo: Repo, probe: Any) -> str | None:
    """What a `detect` entry found, or None. An entry is a path or glob that must exist, a
    list of entries that must all hold, or `{file, contains}` for a file holding a phrase."""
    if isinstance(probe, list):
        found = [_probe(repo, p) for p in probe]
        return " and ".join(f for f in found if f) if all(found) else None
    if isinstance(probe, dict):
        path = str(probe.get("file", ""))
        source = repo.read(path) if path in repo.files() else None
        if source is None:
            return None
        phrase = str(probe.get("contains", ""))
        return f"{path} ({phrase!r})" if phrase.lower() in source.text.lower() else None
    probe = str(probe)
    if "*" in probe:
        hits = repo.glob([probe])
        return hits[0] if hits else None
    return probe if probe in repo.files() else None


# packs detected by their own `detect` entries, the more specific first
PROBED_PACKS = ("gsd", "contracts", "gaia", "gdskills", "envelope")
# what makes discovery choose the other packs (`detect_systems`), for the docs
DISCOVERED_BY = {
    "claude-code": "a marketplace, a plugin manifest, a `.claude/` folder or a kit with agents,"
    " skills or commands, hook files; or, where no registry claims them, the tree's agents or"
    " commands",
    "agent-skills": "skills, and none of the above",
}


def detect_systems(repo: Repo, components: Components) -> list[tuple[str, str]]:
    """The packs that fit the tree, each with what showed it: a contracts registry or a
    Gaia matrix by the packs' `detect` entries; Claude Code by its manifests, `.claude`
    folders, commands, or (where no registry claims them) agents; a skills tree otherwise."""
    found = []
    for name in PROBED_PACKS:
        hit = next(filter(None, (_probe(repo, p) for p in _detect_entries(name, repo.root))), None)
        if hit:
            found.append((name, hit))
    registry = any(name in ("gsd", "contracts") for name, _ in found)
    in_claude = [
        p
        for p in components.agents + components.skills + components.commands
        if any(p.startswith(c + "/") for c in components.claude_folders + components.kits)
    ]
    # a registry's system claims the tree's own agents/ and commands/ folders
    unclaimed = () if registry else components.commands + components.agents
    claude = (
        next(iter(components.marketplaces), None)
        or next((p.manifest for p in components.plugins if p.manifest), None)
        or next(iter(in_claude), None)
        or next(iter(unclaimed), None)
        or next(iter(components.hook_files), None)
    )
    if claude:
        found.append(("claude-code", claude))
    elif components.skills:
        hit = next(
            filter(None, (_probe(repo, p) for p in _detect_entries("agent-skills", repo.root))),
            None,
        )
        found.append(("agent-skills", hit or components.skills[0]))
    # a pack another found pack extends adds nothing (gaia already is claude-code)
    ancestors = {a for name, _ in found for a in _linearize(name, repo.root, {})[1:]}
    return [(name, hit) for name, hit in found if name not in ancestors]


def resolve(config: Config, repo: Repo, components: Components) -> Config:
    """The config with its packs chosen from what discovery found, when the user set no
    `preset`. With nothing found it keeps the defaults, and the run says there was nothing
    to check."""
    if config.preset:
        return config
    systems = detect_systems(repo, components)
    if not systems:
        pack = load_pack("base", config.root)
        reason = "no agents, skills, commands, manifests or contract registry found"
    elif len(systems) == 1:
        pack = load_pack(systems[0][0], config.root)
        reason = f"preset {systems[0][0]!r} detected from {systems[0][1]}"
    else:
        pack = load_pack([name for name, _ in systems], config.root)
        reason = (
            "presets " + " and ".join(f"{n!r} (from {hit})" for n, hit in systems) + " detected"
        )
    layers = (*pack.layers, *config.layers)  # the config's layers hold the user's settings
    return config._replace(
        preset=pack.name if systems else "",
        reason=reason,
        settings=schema.resolve(layer for _, layer in layers),
        select=(config.select or pack.rules) + config.extend_select,
        layers=layers,
    )


def detect(root: str) -> tuple[str, str] | None:
    """The packs discovery would choose for the tree at `root`, and what showed them."""
    from drift_check.discovery import discover
    from drift_check.scanners.files import Repo

    repo = Repo(root)
    systems = detect_systems(repo, discover(repo, schema.default("discovery-skip")))
    if not systems:
        return None
    return "+".join(n for n, _ in systems), " and ".join(hit for _, hit in systems)


def load_config(
    root: str, config_file: str | None = None, command_line: CommandLine | None = None
) -> Config:
    """The user's config (`config_file`, or the one found at `root`) and the command line's
    settings over it, checked whole; the packs are loaded when a preset is named, and chosen
    by discovery otherwise (`resolve`)."""
    if not os.path.isdir(root):
        raise ConfigError(f"{root}: not a directory")
    command_line = command_line or CommandLine()
    if config_file is not None:
        if config_file.endswith(".toml"):
            table = _read_pyproject(config_file)
            if table is None:
                raise ConfigError(f"{config_file}: no [tool.drift-check] table")
        else:
            table = _read_yaml_config(config_file)
        found: tuple[str, dict[str, Any]] | None = (config_file, table)
    else:
        found = find_user_config(root)
    user: dict[str, Any] = {}
    where = None
    key_lines: dict[str, int] = {}
    if found is not None:
        where, user = found
        key_lines = _key_lines(where, set(user))
        for key in user:
            if key not in CONFIG_KEYS and key not in schema.KEYS:
                raise ConfigError(f"{_at(where, key_lines, key)}: unknown key `{key}`")

    def at(key: str) -> str:
        return _at(where or "config", key_lines, key)

    overrides: dict[str, Any] = {}  # the whole config is checked before any pack is read
    for key, value in user.items():
        if key in schema.KEYS:
            overrides.update(_checked_settings({key: value}, at(key)))
    select = _codes(user.get("select"), at("select"), "`select`")
    extend_select = _codes(user.get("extend-select"), at("extend-select"), "`extend-select`")
    ignore = _codes(user.get("ignore"), at("ignore"), "`ignore`")
    severities = _severities(user.get("severity"), at("severity"))
    per_file_ignores = _per_file_ignores(user.get("per-file-ignores"), at("per-file-ignores"))
    extend_select += command_line.extend_select
    from_command_line = _checked_settings(command_line.settings, COMMAND_LINE)
    layers: tuple[tuple[str, dict[str, Any]], ...] = tuple(
        (label, layer)
        for label, layer in (
            (f"config {_shown(where, root)}", overrides),
            (COMMAND_LINE, from_command_line),
        )
        if layer
    )
    key_origins = {key: f"config {_shown(where, root)}" for key in CONFIG_KEYS if key in user}
    if command_line.extend_select:
        key_origins["extend-select"] = ", ".join(
            o for o in (key_origins.get("extend-select"), COMMAND_LINE) if o
        )
    if command_line.preset is not None:
        key_origins["preset"] = COMMAND_LINE
        preset = command_line.preset
        reason = f"preset {preset!r} set on the command line"
    elif "preset" in user:
        preset = str(user["preset"])
        reason = f"preset {preset!r} set in {_shown(where, root)}"
    else:
        preset = ""  # chosen by discovery: see `resolve`
    try:
        pack = load_pack(preset, root) if preset else None
    except ConfigError as exc:
        if command_line.preset is None:
            raise
        raise ConfigError(f"--preset: {exc}") from None
    if pack is not None:
        layers = (*pack.layers, *layers)
    return Config(
        root=root,
        preset=pack.name if pack else "",
        reason=reason if pack else "",
        config_file=where,
        settings=schema.resolve(layer for _, layer in layers),
        select=(select or pack.rules) + extend_select if pack else select,
        ignore=ignore,
        severities=severities,
        per_file_ignores=per_file_ignores,
        overrides=overrides,
        extend_select=extend_select,
        key_lines=key_lines,
        preset_set=pack is not None and command_line.preset is None,
        layers=layers,
        key_origins=key_origins,
    )


def _shown(path: str | None, root: str) -> str:
    """A config file's path as messages show it: relative to the root when inside it."""
    if path is None:
        return ""
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def _at(where: str, key_lines: dict[str, int], key: str) -> str:
    """`file:line` of a key of the user's config, or the file alone."""
    line = key_lines.get(key)
    return f"{where}:{line}" if line else where


def _key_lines(path: str, keys: set[str]) -> dict[str, int]:
    """The line each top-level key of the user's config sits on, for findings and errors
    about it: the first line that starts with the key, in YAML, or in pyproject.toml's
    `[tool.drift-check]` table (a `[tool.drift-check.KEY]` table's header line)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = _read_bounded(fh, path)
    except (OSError, UnicodeDecodeError, ConfigError):
        return {}
    toml = path.endswith(".toml")
    inside = not toml
    out: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if toml and stripped.startswith("["):
            header = stripped.strip("[] ").replace('"', "")
            inside = header == "tool.drift-check"
            sub = header.removeprefix("tool.drift-check.")
            if sub != header and sub in keys:
                out.setdefault(sub, number)
            continue
        if not inside:
            continue
        stripped = stripped.lstrip("\"'")
        for key in keys:
            if (
                key not in out
                and stripped.startswith(key)
                and stripped[len(key) :].lstrip("\"'").lstrip().startswith(("=", ":"))
            ):
                out[key] = number
    return out


def _severities(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or any(v not in SEVERITIES for v in value.values()):
        raise ConfigError(f"{where}: `severity` maps rule codes to one of {', '.join(SEVERITIES)}")
    return {
        code: str(level)
        for key, level in value.items()
        for code in _codes(str(key), where, "`severity`", whole=True)
    }


def _per_file_ignores(value: Any, where: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(c, str) for c in v)
        for k, v in value.items()
    ):
        raise ConfigError(f"{where}: `per-file-ignores` maps globs to lists of rule codes")
    return {k: list(_codes(v, where, f"`per-file-ignores` {k!r}")) for k, v in value.items()}


def _codes(value: Any, where: str, label: str, whole: bool = False) -> tuple[str, ...]:
    """Rule codes or prefixes (`whole`: codes only) from the config key `label`, checked as on
    the command line."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {label} must be a list of rule codes or prefixes")
    from drift_check.rules import parse_codes

    try:
        return parse_codes(value, whole)
    except ValueError as exc:
        raise ConfigError(f"{where}: {label}: {exc}") from None

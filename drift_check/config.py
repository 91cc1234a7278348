"""Configuration: a rule pack (preset), then the user's `[tool.drift-check]` or
`.drift-check.yaml` on top of it. With no config the layout is auto-detected.
"""

import os
from typing import IO, Any, AnyStr, NamedTuple

from drift_check.yaml_loader import YamlError, safe_load


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
PACK_ORDER = ("gsd", "contracts", "gaia", "claude-code", "agent-skills")

# setting name -> expected type ("str", "int", "list")
SETTING_TYPES: dict[str, str] = {
    "registry": "list",
    "registry-heading": "str",
    "agents": "list",
    "agents-exclude": "list",
    "exclude": "list",
    "consumers": "list",
    "dispatch-surfaces": "list",
    "python-consumers": "list",
    "include-prefixes": "list",
    "include-follow": "list",
    "follow-read-mentions": "bool",
    "marker-shape": "str",
    "marker-max-length": "int",
    "non-agent-tokens": "list",
    "legacy-read-tags": "list",
    "read-gate-tag": "str",
    "write-tools": "list",
    "max-file-bytes": "int",
    "max-line-length": "int",
    "max-yaml-depth": "int",
    "max-yaml-aliases": "int",
    "skills": "list",
    "skill-allowed-keys": "list",
    "skill-name-max": "int",
    "skill-description-max": "int",
    "skill-compatibility-max": "int",
    "skill-line-limit": "int",
    "skill-injected-line-limit": "int?",
    "skill-line-count": "str",
    "skill-token-limit": "int?",
    "chars-per-token": "int",
    "sibling-docs": "list",
    "agent-links": "bool",
    "agent-required-keys": "list",
    "agent-skills-prefix": "list",
    "known-tools": "list",
    "skill-matrix": "dict?",
    "unassigned-phrases": "list",
    "skill-tree-file": "str?",
}
CONFIG_KEYS = {"preset", "select", "ignore", "severity", "per-file-ignores", *SETTING_TYPES}
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


class Config(NamedTuple):
    root: str
    preset: str
    reason: str  # why this preset: a config file, or what detection found
    config_file: str | None
    settings: dict[str, Any]
    select: tuple[str, ...]
    ignore: tuple[str, ...] = ()
    severities: dict[str, str] = {}  # noqa: RUF012 (a NamedTuple default, never mutated)
    per_file_ignores: dict[str, list[str]] = {}  # noqa: RUF012 (glob -> codes or prefixes)


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


def _read_pack(name_or_path: str, root: str) -> tuple[str, dict[str, Any]]:
    """A pack file's path and its checked contents."""
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
    _check_settings(data.get("settings") or {}, path, "settings.")
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


def load_pack(name_or_path: str, root: str) -> Pack:
    files: dict[str, tuple[str, dict[str, Any]]] = {}
    order = _linearize(name_or_path, root, files)
    settings: dict[str, Any] = {}
    for pack in reversed(order):
        settings.update(files[pack][1].get("settings") or {})
    rules = next(
        (tuple(map(str, files[p][1]["rules"])) for p in order if "rules" in files[p][1]), ()
    )
    path, data = files[name_or_path]
    return Pack(
        name=str(data["name"]),
        summary=str(data.get("summary", "")),
        detect=tuple(data.get("detect") or ()),
        settings=settings,
        rules=rules,
        source=path,
    )


def _check_settings(values: dict[str, Any], where: str, prefix: str = "") -> None:
    for key, value in values.items():
        kind = SETTING_TYPES.get(key)
        if kind is None:
            raise ConfigError(f"{where}: unknown key `{prefix}{key}`")
        optional = kind.endswith("?")
        kind = kind.rstrip("?")
        ok = (optional and value is None) or {
            "str": isinstance(value, str),
            "int": isinstance(value, int) and not isinstance(value, bool) and value >= 0,
            "bool": isinstance(value, bool),
            "list": (isinstance(value, list) and all(isinstance(v, str) for v in value))
            or (key == "registry" and isinstance(value, str)),
            "dict": isinstance(value, dict),
        }[kind]
        if not ok:
            want = {
                "str": "a string",
                "int": "a whole number, 0 or more",
                "bool": "true or false",
                "list": "a list of strings",
                "dict": "a mapping",
            }[kind]
            raise ConfigError(f"{where}: `{prefix}{key}` must be {want}{' or null' * optional}")


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
    pyproject = os.path.join(root, "pyproject.toml")
    if _repository_file(root, pyproject):
        table = _read_pyproject(pyproject)
        if table is not None:
            return pyproject, table
    for name in (".drift-check.yaml", ".drift-check.yml"):
        path = os.path.join(root, name)
        if _repository_file(root, path):
            return path, _read_yaml_config(path)
    return None


def _read_pyproject(path: str) -> dict[str, Any] | None:
    import tomllib

    try:
        with open(path, "rb") as fh:
            data = tomllib.loads(_read_bounded(fh, path).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    table = data.get("tool", {}).get("drift-check")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.drift-check] must be a table")
    return table


def _read_yaml_config(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as fh:
            data = safe_load(_read_bounded(fh, path))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except YamlError as exc:
        raise ConfigError(f"{path}:{exc.line}:{exc.column}: {exc.message}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of keys")
    return data


def _probe(root: str, probe: Any) -> str | None:
    """What a `detect` entry found, or None. An entry is a path or glob that must exist, a
    list of entries that must all hold, or `{file, contains}` for a file holding a phrase."""
    if isinstance(probe, list):
        found = [_probe(root, p) for p in probe]
        return " and ".join(f for f in found if f) if all(found) else None
    if isinstance(probe, dict):
        path = os.path.join(root, str(probe.get("file", "")))
        if not os.path.isfile(path) or not _inside(root, path):
            return None
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read(1_000_000)
        except OSError:
            return None
        phrase = str(probe.get("contains", ""))
        return f"{probe['file']} ({phrase!r})" if phrase.lower() in text.lower() else None
    probe = str(probe)
    if "*" in probe:
        import glob

        hits = sorted(glob.glob(os.path.join(glob.escape(root), probe)))
        return os.path.relpath(hits[0], root).replace(os.sep, "/") if hits else None
    return probe if os.path.isfile(os.path.join(root, probe)) else None


def detect(root: str) -> tuple[str, str] | None:
    """The first pack whose layout is present, and what showed it."""
    for name in PACK_ORDER:
        pack = load_pack(name, root)
        for probe in pack.detect:
            found = _probe(root, probe)
            if found:
                return name, found
    return None


def load_config(root: str, config_file: str | None = None) -> Config:
    if not os.path.isdir(root):
        raise ConfigError(f"{root}: not a directory")
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
    if found is not None:
        where, user = found
        for key in user:
            if key not in CONFIG_KEYS:
                raise ConfigError(f"{where}: unknown key `{key}`")
    if "preset" in user:
        preset = str(user["preset"])
        reason = f"preset {preset!r} set in {os.path.relpath(where or '', root)}"
    else:
        detected = detect(root)
        if detected is None:
            raise ConfigError(
                f"{root}: no known layout found (no contracts registry, agents or skills"
                " where the presets look); set `preset` in .drift-check.yaml"
            )
        preset = detected[0]
        reason = f"preset {preset!r} detected from {detected[1]}"
    pack = load_pack(preset, root)
    settings = dict(pack.settings)
    overrides = {k: v for k, v in user.items() if k in SETTING_TYPES}
    _check_settings(overrides, where or "config")
    settings.update(overrides)
    if isinstance(settings.get("registry"), str):
        settings["registry"] = [settings["registry"]]
    severities = user.get("severity") or {}
    if not isinstance(severities, dict) or any(v not in SEVERITIES for v in severities.values()):
        raise ConfigError(f"{where}: `severity` maps rule codes to one of {', '.join(SEVERITIES)}")
    return Config(
        root=root,
        preset=pack.name,
        reason=reason,
        config_file=where,
        settings=settings,
        select=_codes(user.get("select"), where, "select") or pack.rules or ("DC",),
        ignore=_codes(user.get("ignore"), where, "ignore"),
        severities={str(k): str(v) for k, v in severities.items()},
        per_file_ignores=_per_file_ignores(user.get("per-file-ignores"), where),
    )


def _per_file_ignores(value: Any, where: str | None) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(c, str) for c in v)
        for k, v in value.items()
    ):
        raise ConfigError(f"{where}: `per-file-ignores` maps globs to lists of rule codes")
    return {str(k): [str(c) for c in v] for k, v in value.items()}


def _codes(value: Any, where: str | None, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of rule codes or prefixes")
    return tuple(value)

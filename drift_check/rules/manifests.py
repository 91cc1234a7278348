"""DC110-DC139: the roster as manifests declare it: plugins (`.claude-plugin/plugin.json`),
marketplaces (`.claude-plugin/marketplace.json`), hooks (a plugin's hooks files, hooks
inline in a manifest, `.claude/settings*.json`) and MCP servers (`.mcp.json`).

JSON has no comments, so a finding in a JSON file is silenced with `per-file-ignores` in
the config or recorded in a baseline, never with a comment in the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from drift_check.facts import (
    COMPONENT_KEYS,
    INLINE_COMPONENT_KEYS,
    Facts,
    HookConfig,
    JsonValue,
)
from drift_check.rules.base import Hit, rule

_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_KINDS = {
    "object": "an object",
    "array": "a list",
    "string": "a string",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


def _exists(facts: Facts, path: str) -> bool:
    return path == "" or path in facts.existing_paths or path in facts.existing_dirs


def _plugin_documents(facts: Facts) -> Iterator[tuple[str, JsonValue]]:
    """(root, document) of every plugin.json that parsed."""
    for plugin in facts.manifests.plugins:
        doc = facts.manifests.documents.get(plugin.manifest or "")
        if doc is not None:
            yield plugin.root, doc


@rule(
    "DC110",
    "plugin-manifest-invalid",
    failing="""
        .claude-plugin/plugin.json:
            {"version": "1.0.0", "description": "Code review helpers"}
    """,
    passing="""
        .claude-plugin/plugin.json:
            {"name": "code-review", "version": "1.0.0", "description": "Code review helpers"}
    """,
)
def plugin_manifest_invalid(facts: Facts) -> Iterator[Hit]:
    """A plugin's `.claude-plugin/plugin.json` is not a JSON object, or its `name` is
    missing, not a string, or empty.

    `name` is the one required field: Claude Code identifies the plugin by it and
    namespaces its commands and skills with it (`/name:command`); a manifest without it
    fails `claude plugin validate`. Add the plugin's kebab-case name.
    """
    for root, doc in _plugin_documents(facts):
        folder = root.rsplit("/", 1)[-1] or "my-plugin"
        if doc.kind != "object":
            yield Hit(
                doc.position,
                f"plugin.json must be a JSON object, not {_KINDS[doc.kind]};"
                f' write {{"name": "{folder}", ...}}',
            )
            continue
        name = doc.get("name")
        if name is None:
            yield Hit(
                doc.position,
                f'plugin.json has no `name`; add "name": "{folder}" (the kebab-case name'
                " Claude Code knows the plugin by)",
            )
        elif name.kind != "string":
            yield Hit(name.position, f"`name` must be a string, not {_KINDS[name.kind]}")
        elif not name.value.strip():
            yield Hit(name.position, f'`name` is empty; write the plugin\'s name, e.g. "{folder}"')


@rule(
    "DC111",
    "plugin-name-not-kebab-case",
    "warning",
    failing="""
        .claude-plugin/plugin.json:
            {"name": "Code Review"}
    """,
    passing="""
        .claude-plugin/plugin.json:
            {"name": "code-review"}
    """,
)
def plugin_name_not_kebab_case(facts: Facts) -> Iterator[Hit]:
    """A plugin's `name` is not kebab-case (lowercase letters and digits in words joined by
    single hyphens).

    The name prefixes every command and skill the plugin adds (`/code-review:run`), and
    `claude plugin validate` warns about any other shape. Rename it (and the marketplace
    entry that lists it).
    """
    for plugin in facts.manifests.plugins:
        name = plugin.name
        if name is not None and name.name.strip() and not _KEBAB.fullmatch(name.name):
            shaped = "-".join(re.findall(r"[a-z0-9]+", name.name.lower())) or "my-plugin"
            yield Hit(
                name.position,
                f"plugin name `{name.name}` is not kebab-case; rename it, e.g. `{shaped}`",
            )


@rule(
    "DC112",
    "component-path-missing",
    failing="""
        categories/01-core/.claude-plugin/plugin.json:
            {"name": "core", "agents": ["./api-designer.md", "./api-reviewer.md"]}
        (categories/01-core/api-reviewer.md does not exist)
    """,
    passing="""
        {"name": "core", "agents": ["./api-designer.md"]}
    """,
)
def component_path_missing(facts: Facts) -> Iterator[Hit]:
    """A path a plugin manifest (or a marketplace entry) declares for agents, skills,
    commands, hooks, MCP or LSP servers or output styles names nothing in the plugin.

    Paths resolve against the plugin's root (the folder holding `.claude-plugin/`). A
    missing file is a component the plugin silently lacks once installed; Claude Code
    reports the path only when it loads the plugin. Fix the path, or add the file.
    """
    declared = [(p.root, p.components) for p in facts.manifests.plugins]
    declared += [
        (e.root, e.components)
        for m in facts.manifests.marketplaces
        for e in m.entries
        if e.root is not None
    ]
    for root, components in declared:
        for c in components:
            if c.resolved is not None and not _exists(facts, c.resolved):
                where = f"plugin `{root}`" if root else "the plugin at the tree's root"
                yield Hit(
                    c.position,
                    f"`{c.key}` names `{c.written}`, which is not in {where}"
                    f" (`{c.resolved}` does not exist); fix the path or add the file",
                )


@rule(
    "DC113",
    "component-path-invalid",
    failing="""
        .claude-plugin/plugin.json:
            {"name": "core", "agents": "agents/reviewer.md", "skills": "./../shared/skills"}
    """,
    passing="""
        {"name": "core", "agents": "./agents/reviewer.md", "skills": "./skills"}
    """,
)
def component_path_invalid(facts: Facts) -> Iterator[Hit]:
    """A component key of a plugin manifest (or a marketplace entry) is not a `./` path
    inside the plugin, or a list of them.

    Claude Code reads `agents`, `skills`, `commands`, `outputStyles` (and `hooks`,
    `mcpServers`, `lspServers`, which may also hold inline objects) as paths relative to the
    plugin root that start with `./`; an installed plugin is a copy of its folder, so a path
    that leaves it points at nothing. Write `./` and a path inside the plugin.
    """
    holders: list[JsonValue] = [doc for _, doc in _plugin_documents(facts)]
    for market in facts.manifests.marketplaces:
        doc = facts.manifests.documents.get(market.path)
        plugins = doc.get("plugins") if doc is not None else None
        if plugins is not None and plugins.kind == "array":
            holders.extend(item for item in plugins.value if item.kind == "object")
    for holder in holders:
        if holder.kind != "object":
            continue
        for member in holder.value:
            if member.key not in COMPONENT_KEYS:
                continue
            value = member.value
            if value.kind == "object" and member.key in INLINE_COMPONENT_KEYS:
                continue
            items = value.value if value.kind == "array" else (value,)
            for item in items:
                inline = item.kind == "object" and member.key in INLINE_COMPONENT_KEYS
                if item.kind != "string" and not inline:
                    inline = " or an inline object" if member.key in INLINE_COMPONENT_KEYS else ""
                    yield Hit(
                        item.position,
                        f"`{member.key}` must be a `./` path, a list of them{inline};"
                        f" not {_KINDS[item.kind]}",
                    )
    components = [c for p in facts.manifests.plugins for c in p.components]
    components += [c for m in facts.manifests.marketplaces for e in m.entries for c in e.components]
    for c in components:
        if c.problem == "prefix" and c.written.startswith(("/", "~")):
            yield Hit(
                c.position,
                f"`{c.key}` path `{c.written}` is absolute; write a `./` path inside the plugin",
            )
        elif c.problem == "prefix":
            fixed = "./" if c.written in (".", "") else f"./{c.written}"
            yield Hit(
                c.position,
                f"`{c.key}` path `{c.written}` must start with `./` (Claude Code refuses the"
                f" manifest: `{c.key}: Invalid input`); write `{fixed}`",
            )
        elif c.problem == "outside":
            yield Hit(
                c.position,
                f"`{c.key}` path `{c.written}` leaves the plugin's folder, which is all an"
                " installed plugin has; move the file into the plugin",
            )


@rule(
    "DC114",
    "marketplace-invalid",
    failing="""
        .claude-plugin/marketplace.json:
            {"name": "tools", "plugins": [{"name": "formatter"}]}
    """,
    passing="""
        {"name": "tools", "owner": {"name": "Dev Team"},
         "plugins": [{"name": "formatter", "source": "./plugins/formatter"}]}
    """,
)
def marketplace_invalid(facts: Facts) -> Iterator[Hit]:
    """A `.claude-plugin/marketplace.json` is not an object with `name`, `owner` and a
    `plugins` list, or a plugin entry lacks its `name` or `source`.

    Claude Code refuses to add a marketplace without these, and an entry without a source
    cannot be installed. Add what is missing.
    """
    for market in facts.manifests.marketplaces:
        doc = facts.manifests.documents[market.path]
        if doc.kind != "object":
            yield Hit(
                doc.position,
                f"marketplace.json must be a JSON object, not {_KINDS[doc.kind]}",
            )
            continue
        yield from _required(doc, "name", "string", "the marketplace's kebab-case name")
        yield from _required(doc, "owner", "object", 'the maintainer, e.g. {"name": "..."}')
        yield from _required(doc, "plugins", "array", "the list of plugin entries")
        plugins = doc.get("plugins")
        for item in plugins.value if plugins is not None and plugins.kind == "array" else ():
            if item.kind != "object":
                yield Hit(item.position, f"a plugin entry is an object, not {_KINDS[item.kind]}")
                continue
            yield from _required(item, "name", "string", "the plugin's name", "plugin entry")
            source = item.get("source")
            if source is None:
                yield Hit(
                    item.position,
                    "plugin entry has no `source`; add the plugin's folder as"
                    ' "./path" or a source object (github, url, ...)',
                )
            elif source.kind not in ("string", "object"):
                yield Hit(
                    source.position,
                    f"`source` must be a `./` path or a source object, not {_KINDS[source.kind]}",
                )


def _required(
    holder: JsonValue, key: str, kind: str, what: str, where: str = "marketplace.json"
) -> Iterator[Hit]:
    value = holder.get(key)
    if value is None:
        yield Hit(holder.position, f"{where} has no `{key}`; add {what}")
    elif value.kind != kind:
        yield Hit(value.position, f"`{key}` must be {_KINDS[kind]}, not {_KINDS[value.kind]}")


@rule(
    "DC115",
    "marketplace-source-missing",
    failing="""
        .claude-plugin/marketplace.json:
            {"plugins": [{"name": "formatter", "source": "./plugins/format"}]}
        (the plugin is in plugins/formatter/)
    """,
    passing="""
        {"plugins": [{"name": "formatter", "source": "./plugins/formatter"}]}
    """,
)
def marketplace_source_missing(facts: Facts) -> Iterator[Hit]:
    """A marketplace entry's relative `source` names no folder of the tree, or climbs out
    of the marketplace with `..`.

    A `./` source resolves against the marketplace root (the folder holding
    `.claude-plugin/`), whatever `metadata.pluginRoot` says; only a bare name resolves
    under `metadata.pluginRoot`. `claude plugin validate` passes such a source, and
    installing the plugin fails with "Source path does not exist". Fix the path.
    """
    for market in facts.manifests.marketplaces:
        for entry in market.entries:
            source = entry.source
            if source is None:
                continue
            if entry.source_kind == "outside":
                yield Hit(
                    source.position,
                    f"source `{source.name}` climbs out of the marketplace with `..`;"
                    " a relative source must stay inside the marketplace's folder",
                )
            elif entry.source_kind == "path" and entry.root is not None:
                if entry.root in facts.existing_paths:
                    yield Hit(
                        source.position,
                        f"source `{source.name}` names the file `{entry.root}`; a source"
                        " is the plugin's folder",
                    )
                elif not _exists(facts, entry.root):
                    hint = "fix the path"
                    under = market.plugin_root
                    if under is not None and source.name.startswith("./"):
                        beside = f"{under}/{source.name[2:]}" if under else source.name[2:]
                        if _exists(facts, beside):
                            hint = (
                                "`metadata.pluginRoot` applies only to bare names: write"
                                f" `{source.name[2:]}` or `./{beside}`"
                            )
                    yield Hit(
                        source.position,
                        f"source `{source.name}` names `{entry.root}`, which is not a folder"
                        f" of the tree; {hint}",
                    )


@rule(
    "DC116",
    "marketplace-name-mismatch",
    failing="""
        .claude-plugin/marketplace.json:
            {"name": "formatter", "source": "./plugins/formatter"}
        plugins/formatter/.claude-plugin/plugin.json:
            {"name": "code-formatter"}
    """,
    passing="""
        .claude-plugin/marketplace.json:
            {"name": "code-formatter", "source": "./plugins/formatter"}
    """,
)
def marketplace_name_mismatch(facts: Facts) -> Iterator[Hit]:
    """A marketplace entry names its plugin differently from the plugin's own
    `plugin.json`.

    Users install `entry-name@marketplace`, while the plugin registers its commands and
    skills under its manifest's name; with two names the `/plugin` screens cannot find the
    installed plugin and users see a name they never installed. Use one name in both.
    """
    by_root = {p.root: p for p in facts.manifests.plugins}
    for market in facts.manifests.marketplaces:
        for entry in market.entries:
            plugin = by_root.get(entry.root) if entry.root is not None else None
            if plugin is None or plugin.name is None or entry.name is None or not entry.strict:
                continue
            if entry.name.name != plugin.name.name:
                yield Hit(
                    entry.name.position,
                    f"marketplace lists `{entry.name.name}`, but {plugin.manifest} names the"
                    f" plugin `{plugin.name.name}` (line {plugin.name.position.line});"
                    " use one name in both",
                )


@rule(
    "DC117",
    "hooks-invalid",
    failing="""
        hooks/hooks.json:
            {"hooks": {"PostToolUse": {"matcher": "Write", "command": "./format.sh"}}}
    """,
    passing="""
        {"hooks": {"PostToolUse": [{"matcher": "Write",
            "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/format.sh"}]}]}}
    """,
)
def hooks_invalid(facts: Facts) -> Iterator[Hit]:
    """Hooks do not have the shape Claude Code reads: a `hooks` object mapping event names
    to lists of matcher groups, each with a `hooks` list of hooks that have a `type` (and a
    `command` for command hooks).

    Claude Code refuses a hooks file of another shape ("Hook load failed") and the hooks in
    it never run. The finding points at the value of the wrong shape.
    """
    for config in facts.manifests.hooks:
        yield from _hook_shape(config)


def _hook_shape(config: HookConfig) -> Iterator[Hit]:
    if config.hooks is None:
        doc = config.document
        shape = (
            "has no `hooks` key"
            if doc.kind == "object"
            else f"is {_KINDS[doc.kind]}, not an object with a `hooks` key"
        )
        yield Hit(
            doc.position,
            f'hooks file {shape}; write {{"hooks": {{"EventName": [matcher groups]}}}}',
        )
        return
    if config.hooks.kind != "object":
        yield Hit(
            config.hooks.position,
            f"`hooks` must map event names to lists of matcher groups, not"
            f" {_KINDS[config.hooks.kind]}",
        )
        return
    for event in config.hooks.value:
        groups = event.value
        if groups.kind != "array":
            yield Hit(
                groups.position,
                f"`{event.key}` must be a list of matcher groups"
                ' ([{"matcher": ..., "hooks": [...]}]), not ' + _KINDS[groups.kind],
            )
            continue
        for group in groups.value:
            if group.kind != "object":
                yield Hit(group.position, "a matcher group is an object with a `hooks` list")
                continue
            handlers = group.get("hooks")
            if handlers is None or handlers.kind != "array":
                where = group.position if handlers is None else handlers.position
                yield Hit(where, f"this `{event.key}` matcher group needs a `hooks` list")
                continue
            for handler in handlers.value:
                yield from _handler_shape(event.key, handler)


def _handler_shape(event: str, handler: JsonValue) -> Iterator[Hit]:
    if handler.kind != "object":
        yield Hit(handler.position, f"a `{event}` hook is an object with a `type`")
        return
    kind = handler.get("type")
    if kind is None or kind.kind != "string":
        yield Hit(
            handler.position if kind is None else kind.position,
            f"this `{event}` hook needs a `type` (`command`, `prompt`, `agent`, `http`, ...)",
        )
    elif kind.value == "command":
        command = handler.get("command")
        if command is None or command.kind != "string" or not command.value.strip():
            yield Hit(
                handler.position if command is None else command.position,
                f"this `{event}` command hook needs a `command` string",
            )


@rule(
    "DC118",
    "unknown-hook-event",
    failing="""
        hooks/hooks.json:
            {"hooks": {"sessionStart": [...], "PreToolCall": [...]}}
    """,
    passing="""
        {"hooks": {"SessionStart": [...], "PreToolUse": [...]}}
    """,
)
def unknown_hook_event(facts: Facts) -> Iterator[Hit]:
    """A hooks configuration names an event Claude Code does not have.

    Event names are case-sensitive (`SessionStart`, not `sessionStart`); hooks under an
    unknown event never run. Use one of the events in `hook-events` (Claude Code's list as
    of this release); if Claude Code added an event, add it with `extend-hook-events` in the config.
    """
    known = list(facts.settings["hook-events"])
    folded = {name.lower(): name for name in known}
    for config in facts.manifests.hooks:
        if config.hooks is None or config.hooks.kind != "object":
            continue
        for event in config.hooks.value:
            if event.key in known:
                continue
            near = folded.get(event.key.lower())
            advice = (
                f"did you mean `{near}`? (event names are case-sensitive)"
                if near
                else "use one of Claude Code's events (`hook-events`)"
            )
            yield Hit(event.key_position, f"unknown hook event `{event.key}`; {advice}")


@rule(
    "DC119",
    "hook-script-missing",
    failing="""
        hooks/hooks.json:
            "command": "bash ${CLAUDE_PLUGIN_ROOT}/hooks/format.sh"
        (the plugin has no hooks/format.sh)
    """,
    passing="""
        "command": "bash ${CLAUDE_PLUGIN_ROOT}/scripts/format.sh"   (the script exists)
    """,
)
def hook_script_missing(facts: Facts) -> Iterator[Hit]:
    """A command hook runs a script that is not in the tree.

    The script is found where the command names a path through `${CLAUDE_PLUGIN_ROOT}` (in
    a plugin's hooks: the plugin's folder) or `$CLAUDE_PROJECT_DIR` (in
    `.claude/settings*.json`: the folder holding `.claude/`), directly or after an
    interpreter (`bash`, `python3`, `node`, ...), quoted or not. Commands that run a
    program (`echo`, `npx foo`) or a path the shell would expand further are not checked.
    The hook fails each time its event fires. Fix the path, or add the script.
    """
    for config in facts.manifests.hooks:
        for command in config.commands:
            script = command.script
            if script is None or script in facts.existing_paths:
                continue
            what = "a folder, not a script" if script in facts.existing_dirs else "not in the tree"
            yield Hit(
                command.position,
                f"`{command.event}` hook runs `{command.written}`: `{script}` is {what};"
                " fix the path or add the script",
            )


@rule(
    "DC120",
    "mcp-config-invalid",
    failing="""
        .mcp.json:
            {"github": {"command": "github-mcp-server", "args": ["stdio"]}}
    """,
    passing="""
        .mcp.json:
            {"mcpServers": {"github": {"command": "github-mcp-server", "args": ["stdio"]}}}
    """,
)
def mcp_config_invalid(facts: Facts) -> Iterator[Hit]:
    """A `.mcp.json` is not an object with an `mcpServers` object.

    Claude Code reads a project's (or a plugin's) MCP servers only from under
    `mcpServers`; servers written at the top level are silently not registered. Wrap them
    in `{"mcpServers": {...}}`.
    """
    for path in facts.manifests.mcp_files:
        doc = facts.manifests.documents.get(path)
        if doc is None:
            continue
        if doc.kind != "object":
            yield Hit(doc.position, f".mcp.json must be a JSON object, not {_KINDS[doc.kind]}")
            continue
        servers = doc.get("mcpServers")
        if servers is None:
            yield Hit(
                doc.position,
                '.mcp.json has no `mcpServers`; put the servers under {"mcpServers": {...}}'
                " (servers at the top level are not registered)",
            )
        elif servers.kind != "object":
            yield Hit(
                servers.position,
                f"`mcpServers` must map server names to their settings, not {_KINDS[servers.kind]}",
            )


@rule(
    "DC121",
    "standard-hooks-file-declared",
    failing="""
        .claude-plugin/plugin.json:
            {"name": "fmt", "hooks": "./hooks/hooks.json"}
    """,
    passing="""
        {"name": "fmt"}     (hooks/hooks.json is loaded without being named)
    """,
)
def standard_hooks_file_declared(facts: Facts) -> Iterator[Hit]:
    """A plugin manifest's `hooks` names the plugin's `hooks/hooks.json`, which Claude Code
    loads by itself.

    The second load fails ("Duplicate hooks file detected ... manifest.hooks should only
    reference additional hook files") and the plugin's hooks do not load. Remove the `hooks`
    key, or keep it for additional hook files only.
    """
    declared = [(p.root, p.components) for p in facts.manifests.plugins]
    declared += [
        (e.root, e.components)
        for m in facts.manifests.marketplaces
        for e in m.entries
        if e.root is not None
    ]
    for root, components in declared:
        standard = f"{root}/hooks/hooks.json" if root else "hooks/hooks.json"
        for c in components:
            if c.key == "hooks" and c.resolved == standard and standard in facts.existing_paths:
                yield Hit(
                    c.position,
                    f"`hooks` names `{c.written}`, the standard hooks file Claude Code loads by"
                    " itself; loading it twice fails and the plugin's hooks do not load:"
                    " remove this entry",
                )


RULES = (
    plugin_manifest_invalid,
    plugin_name_not_kebab_case,
    component_path_missing,
    component_path_invalid,
    marketplace_invalid,
    marketplace_source_missing,
    marketplace_name_mismatch,
    hooks_invalid,
    unknown_hook_event,
    hook_script_missing,
    mcp_config_invalid,
    standard_hooks_file_declared,
)

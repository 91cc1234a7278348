"""Manifests, found by name anywhere in the tree, read as JSON with positions.

- `.claude-plugin/plugin.json`: a plugin root (the folder holding `.claude-plugin/`), its
  `name` and the component paths it declares;
- `.claude-plugin/marketplace.json`: a marketplace root and its plugin entries, whose
  relative `source` names more plugin roots (a plugin needs no manifest);
- hooks: a plugin root's `hooks/hooks.json`, the files a manifest's `hooks` names, hooks
  inline in a manifest, the `hooks` of `.claude/settings.json` and
  `.claude/settings.local.json`, and snippets: other JSON files in a `hooks/` folder
  whose `hooks` object names Claude Code's events;
- `.mcp.json`.

Nothing here runs or expands a command: a hook's command is split as a shell would split
its words, only to find the script it names.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable

from drift_check.facts import (
    COMPONENT_KEYS,
    ComponentPath,
    HookCommand,
    HookConfig,
    InputProblem,
    JsonValue,
    Manifests,
    Marketplace,
    MarketplaceEntry,
    Named,
    Plugin,
    Position,
    Source,
)
from drift_check.scanners.files import Repo, matches
from drift_check.scanners.patterns import lazy
from drift_check.settings import default

PLUGIN_MANIFEST = ".claude-plugin/plugin.json"
MARKETPLACE = ".claude-plugin/marketplace.json"
SETTINGS = (".claude/settings.json", ".claude/settings.local.json")
MCP = ".mcp.json"
DEFAULT_HOOKS = "hooks/hooks.json"
# programs that run the file named by their first word that is not an option
# fmt: off
INTERPRETERS = frozenset({
    "sh", "bash", "zsh", "dash", "ksh", "fish", "python", "python3", "node", "nodejs", "deno",
    "bun", "tsx", "ts-node", "ruby", "perl", "php", "pwsh", "powershell", "uv",
})
# fmt: on
# options after which the next word is code or a module, not a file
_CODE_OPTIONS = frozenset({"-c", "-e", "-m", "-p", "--eval", "--print", "-Command", "-command"})
_SUBCOMMANDS = frozenset({"run"})  # `uv run x.py`, `deno run x.ts`, `bun run x.ts`
_LONGEST_COMMAND = 8192  # characters; a longer command is not split
_WORDS_BEFORE_SCRIPT = 16  # assignments, `env`, an interpreter and its options
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")"})
_ASSIGNMENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*=")
_ROOTS = {
    "CLAUDE_PLUGIN_ROOT": "plugin",
    "CLAUDE_PROJECT_DIR": "project",
}
_VARIABLE = lazy(
    r"\$(?:\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PROJECT_DIR)\}|(CLAUDE_PLUGIN_ROOT|CLAUDE_PROJECT_DIR)\b)"
)
_UNSURE = lazy(r"[$`*?\[{~]")  # anything a shell would expand after the variable
_VERSIONED = lazy(r"python[23](?:\.[0-9]+)?|ruby[0-9.]*|perl[0-9.]*")
_GLOB = lazy(r"[*?\[]")
_EVENTS = frozenset(default("hook-events"))
_SCHEME = lazy(r"[A-Za-z][A-Za-z0-9+.-]*:")  # a URL or `github:owner/repo`


def _hook_snippet(path: str) -> bool:
    """A JSON file in a `hooks/` folder (a catalogue's `hooks/git/pre-commit-lint.json`):
    a hooks configuration when it holds a `hooks` object of Claude Code's events, as a
    settings file does (`_claude_events`)."""
    return path.endswith(".json") and ("/hooks/" in path or path.startswith("hooks/"))


def _other_hosts_plugins(files: list[str]) -> list[str]:
    """The roots of other hosts' plugins (a `.codex-plugin/plugin.json` beside them): their
    hook files use Claude Code's event names with the host's own variables."""
    out = []
    for path in files:
        if path.endswith("-plugin/plugin.json"):
            folder, _, manifest_dir = path[: -len("/plugin.json")].rpartition("/")
            if manifest_dir.startswith(".") and manifest_dir != ".claude-plugin":
                out.append(folder)
    return out


def _under(path: str, folders: list[str]) -> bool:
    return any(f == "" or path.startswith(f + "/") for f in folders)


def _claude_events(hooks: JsonValue) -> bool:
    """Whether a `hooks` object names one of Claude Code's events as it spells them: other
    hosts' hook files (Cursor's `hooks-cursor.json`: `sessionStart`) are theirs."""
    return any(event.key in _EVENTS for event in hooks.value)


def scan_manifests(repo: Repo, problems: list[InputProblem], skip: Iterable[str] = ()) -> Manifests:
    """Every manifest of the tree outside `skip` (discovery's test-fixture folders); a file
    that is not valid JSON is an InputProblem ("json") at the place the parser stopped, and
    is otherwise left out."""
    reader = _Reader(repo, problems)
    skip = tuple(skip)
    # every manifest is a JSON file: the tree's others need no look
    files = [f for f in repo.files() if f.endswith(".json") and not (skip and matches(f, skip))]
    plugins: dict[str, Plugin] = {}
    hooks: list[HookConfig] = []
    for path in files:
        if _named(path, PLUGIN_MANIFEST):
            root = _parent(_parent(path))
            doc = reader.document(path)
            if doc is None:
                plugins[root] = Plugin(root, path, None, ())
                continue
            components = _components(doc, root)
            plugins[root] = Plugin(root, path, _named_value(doc, "name"), components)
            hooks.extend(reader.declared_hooks(path, doc, doc, root, components))
    marketplaces = []
    for path in files:
        if not _named(path, MARKETPLACE):
            continue
        doc = reader.document(path)
        if doc is None:
            continue
        market, objects = _marketplace(doc, path, _parent(_parent(path)))
        marketplaces.append(market)
        for entry, item in zip(market.entries, objects, strict=True):
            if entry.root is None:
                continue
            if entry.root not in plugins and (entry.root == "" or entry.root in reader.folders):
                plugins[entry.root] = Plugin(entry.root, None, None, ())
            hooks.extend(reader.declared_hooks(path, doc, item, entry.root, entry.components))
    declared = {h.path for h in hooks}
    for root in sorted(plugins):
        default = _join(root, DEFAULT_HOOKS)
        if default in declared or not repo.exists(default):
            continue
        doc = reader.document(default)
        if doc is not None:
            hooks.append(reader.hook_config(default, doc, _get(doc, "hooks"), root, None))
    settings = []
    for path in files:
        if any(_named(path, name) for name in SETTINGS):
            settings.append(path)
            doc = reader.document(path)
            value = _get(doc, "hooks") if doc is not None else None
            if doc is not None and value is not None:
                project = _parent(_parent(path))
                hooks.append(reader.hook_config(path, doc, value, None, project))
    taken = {h.path for h in hooks}
    others = _other_hosts_plugins(files)
    for path in files:
        if _hook_snippet(path) and path not in taken and not _under(path, others):
            # any JSON may sit in a `hooks/` folder (a web app's, with comments): only one
            # that parses and holds Claude Code's events is a hook file
            source = repo.read(path)
            if source is None or '"hooks"' not in source.text:
                continue
            doc = reader.document(path, quiet=True)
            value = _get(doc, "hooks") if doc is not None else None
            if value is not None and value.kind == "object" and _claude_events(value):
                hooks.append(reader.hook_config(path, doc, value, None, None))
    mcp = [p for p in files if _named(p, MCP)]
    for path in mcp:
        reader.document(path)
    return Manifests(
        documents=reader.documents,
        plugins=tuple(plugins[root] for root in sorted(plugins)),
        marketplaces=tuple(marketplaces),
        hooks=tuple(sorted(hooks, key=lambda h: (h.path, h.document.position))),
        mcp_files=tuple(mcp),
        settings_files=tuple(settings),
    )


class _Reader:
    """Reads and parses each manifest once, and knows the tree's folders."""

    def __init__(self, repo: Repo, problems: list[InputProblem]) -> None:
        self.repo = repo
        self.problems = problems
        self.documents: dict[str, JsonValue] = {}
        self.sources: dict[str, Source] = {}
        self.failed: set[str] = set()
        self._folders: frozenset[str] | None = None

    @property
    def folders(self) -> frozenset[str]:
        """Every folder holding a file of the tree, at any depth."""
        if self._folders is None:
            out: set[str] = set()
            for path in self.repo.existing():
                i = path.rfind("/")
                while i > 0 and path[:i] not in out:
                    out.add(path[:i])
                    i = path.rfind("/", 0, i)
            self._folders = frozenset(out)
        return self._folders

    def document(self, path: str, quiet: bool = False) -> JsonValue | None:
        """The JSON document of `path`; one that is not valid JSON is a problem, unless
        `quiet` (a file that is a manifest only if it parses as one)."""
        if path in self.documents or path in self.failed:
            return self.documents.get(path)
        source = self.repo.read(path)
        if source is None:
            self.failed.add(path)
            return None
        from drift_check.scanners.json_parser import JsonSyntaxError, parse_source

        try:
            doc = parse_source(source, self.repo.limits.max_json_depth)
        except JsonSyntaxError as exc:
            self.failed.add(path)
            if not quiet:
                self.problems.append(InputProblem(exc.position, "json", exc.message))
            return None
        self.documents[path] = doc
        self.sources[path] = source
        return doc

    def declared_hooks(
        self,
        path: str,
        doc: JsonValue,
        holder: JsonValue,
        root: str,
        components: tuple[ComponentPath, ...],
    ) -> list[HookConfig]:
        """The hooks a manifest (or a marketplace entry, `holder`) declares: inline, or in
        the files it names."""
        out = []
        declared = _get(holder, "hooks")
        inline = [declared] if declared is not None and declared.kind == "object" else []
        if declared is not None and declared.kind == "array":  # paths and objects, mixed
            inline = [item for item in declared.value if item.kind == "object"]
        for config in inline:
            # inline hooks are the event mapping, or a hooks file's `{"hooks": {...}}`
            wrapped = config.get("hooks")
            value = wrapped if wrapped is not None and wrapped.kind == "object" else config
            out.append(self.hook_config(path, doc, value, root, None))
        for component in components:
            target = component.resolved
            if component.key != "hooks" or target is None or not self.repo.exists(target):
                continue  # DC112 reports a missing file
            hooks_doc = self.document(target) if target.endswith(".json") else None
            if hooks_doc is not None:
                out.append(
                    self.hook_config(target, hooks_doc, _get(hooks_doc, "hooks"), root, None)
                )
        return out

    def hook_config(
        self,
        path: str,
        doc: JsonValue,
        hooks: JsonValue | None,
        plugin_root: str | None,
        project_dir: str | None,
    ) -> HookConfig:
        commands = []
        events = hooks.value if hooks is not None and hooks.kind == "object" else ()
        for event in events:
            groups = event.value.value if event.value.kind == "array" else ()
            for group in groups:
                handlers = _get(group, "hooks")
                for handler in handlers.value if handlers and handlers.kind == "array" else ():
                    command = _get(handler, "command")
                    if _get_text(handler, "type") != "command" or command is None:
                        continue
                    if command.kind == "string":
                        base = {"plugin": plugin_root, "project": project_dir}
                        commands.append(self.command(path, event.key, command, base))
        return HookConfig(path, doc, hooks, plugin_root, project_dir, tuple(commands))

    def command(
        self, path: str, event: str, command: JsonValue, bases: dict[str, str | None]
    ) -> HookCommand:
        text: str = command.value
        word = script_word(text)
        if word is None:
            return HookCommand(event, text, command.position, None, "")
        m = _VARIABLE.match(word)
        assert m is not None  # script_word returns only words that start with one
        base = bases[_ROOTS[m.group(1) or m.group(2)]]
        rest = word[m.end() :]
        script = None
        if base is not None and rest.startswith("/") and rest.strip("/"):
            script = _normal(_join(base, rest.lstrip("/")))
        index = text.find(word)
        if index < 0:  # the shell took quotes out of the word
            found = _VARIABLE.search(text)
            index = found.start() if found else 0
        return HookCommand(event, text, self.inside(path, command.position, index), script, word)

    def inside(self, path: str, quote: Position, index: int) -> Position:
        """The position of the `index`-th character of the string at `quote`."""
        source = self.sources[path]
        offset = source.offset(quote.line, quote.column)
        from drift_check.scanners.json_parser import source_offset

        return source.position(source_offset(source.text, offset, index))


def script_word(command: str) -> str | None:
    """The script a command runs, as a shell word that starts with `${CLAUDE_PLUGIN_ROOT}`
    or `$CLAUDE_PROJECT_DIR` and has nothing else to expand; None for any other command
    (`echo`, `npx foo`, a path the shell would expand further, unbalanced quotes before
    the script, a command longer than 8192 characters)."""
    if len(command) > _LONGEST_COMMAND:
        return None  # no hook command is this long; shlex reads a character at a time
    if "CLAUDE_PLUGIN_ROOT" not in command and "CLAUDE_PROJECT_DIR" not in command:
        return None
    import shlex  # a tree without hook commands never needs it

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        # the words up to the script: the rest of a long command is never split
        words = list(itertools.islice(lexer, _WORDS_BEFORE_SCRIPT))
    except ValueError:
        return None
    i = 0
    while i < len(words) and _ASSIGNMENT.match(words[i]):
        i += 1
    if i < len(words) and os.path.basename(words[i]) == "env":
        i += 1
        while i < len(words) and (_ASSIGNMENT.match(words[i]) or words[i].startswith("-")):
            i += 1
    if i >= len(words) or words[i] in _OPERATORS:
        return None
    first = words[i]
    if _interpreter(first):
        i += 1
        while i < len(words) and (words[i].startswith("-") or words[i] in _SUBCOMMANDS):
            if words[i] in _CODE_OPTIONS:
                return None
            i += 1
        if i >= len(words):
            return None
        first = words[i]
    m = _VARIABLE.match(first)
    if m is None or _UNSURE.search(first, m.end()):
        return None
    return first


def _interpreter(word: str) -> bool:
    name = os.path.basename(word)
    return name in INTERPRETERS or bool(_VERSIONED.fullmatch(name))


def _components(doc: JsonValue, root: str | None) -> tuple[ComponentPath, ...]:
    """The string paths of the component keys of a manifest or a marketplace entry; `root`
    is None for an entry whose plugin is fetched from elsewhere."""
    if doc.kind != "object":
        return ()
    out = []
    for member in doc.value:
        if member.key not in COMPONENT_KEYS:
            continue
        value = member.value
        for item in value.value if value.kind == "array" else (value,):
            if item.kind != "string":
                continue
            written = item.value
            resolved = None if root is None else resolve_component(root, written)
            problem = ""
            if not written.startswith("./"):
                problem = "prefix"
            elif root is not None and resolved is None and not _GLOB.search(written):
                problem = "outside"
            out.append(ComponentPath(member.key, written, resolved, item.position, problem))
    return tuple(out)


def resolve_component(root: str, written: str) -> str | None:
    """A `./` path that stays inside the plugin `root`, as a repository path; None for any
    other (no `./`, leaving the root, or a glob, which is never checked)."""
    if not written.startswith("./") or _GLOB.search(written):
        return None
    norm = _normal(_join(root, written[2:]))
    if norm is None:
        return None
    return norm if root == "" or norm == root or norm.startswith(root + "/") else None


def _marketplace(doc: JsonValue, path: str, root: str) -> tuple[Marketplace, list[JsonValue]]:
    """The marketplace, and the JSON object of each of its entries."""
    entries, objects = [], []
    base = _get_text(_get(doc, "metadata"), "pluginRoot")
    plugins = _get(doc, "plugins")
    for item in plugins.value if plugins is not None and plugins.kind == "array" else ():
        if item.kind != "object":
            continue
        source = item.get("source")
        kind, written, plugin_root = "other", None, None
        if source is not None and source.kind == "object":
            kind = "object"
        elif source is not None and source.kind == "string":
            written = Named(source.value, source.position)
            plugin_root, kind = _source_root(root, source.value, base)
        strict = item.get("strict")
        entries.append(
            MarketplaceEntry(
                position=item.position,
                name=_named_value(item, "name"),
                source=written,
                source_kind=kind,
                root=plugin_root,
                components=_components(item, plugin_root),
                strict=not (strict is not None and strict.value is False),
            )
        )
        objects.append(item)
    folder = _plugin_root_folder(root, base)
    return Marketplace(path, root, tuple(entries), folder), objects


def _source_root(root: str, source: str, plugin_root: str | None) -> tuple[str | None, str]:
    """The plugin root a string source names, and the source's kind: "path" (inside the
    tree), "outside" (has a `..` or leaves the tree) or "other" (not a relative path). A
    `./` source is relative to the marketplace root, whatever `metadata.pluginRoot` says;
    with `metadata.pluginRoot`, a bare name is relative to that folder."""
    base = _plugin_root_folder(root, plugin_root)
    if ".." in source.split("/") and (source.startswith("./") or base is not None):
        return None, "outside"  # `claude plugin validate` refuses any `..`
    if source.startswith("./"):
        candidate = _join(root, source[2:])
    elif base is not None and not _SCHEME.match(source):
        candidate = _join(base, source)
    else:
        return None, "other"
    resolved = _normal(candidate)
    return (None, "outside") if resolved is None else (resolved, "path")


def _plugin_root_folder(root: str, plugin_root: str | None) -> str | None:
    """`metadata.pluginRoot` as a repository path (None when unset or leaving the tree)."""
    if not plugin_root:
        return None
    return _normal(_join(root, plugin_root[2:] if plugin_root.startswith("./") else plugin_root))


def _normal(path: str) -> str | None:
    """A repository path normalised ("" for the root); None when it leaves the tree."""
    norm = os.path.normpath(path or ".").replace(os.sep, "/")
    if norm.startswith("../") or norm == ".." or os.path.isabs(norm):
        return None
    return "" if norm == "." else norm


def _get(value: JsonValue | None, key: str) -> JsonValue | None:
    return value.get(key) if value is not None else None


def _get_text(value: JsonValue | None, key: str) -> str | None:
    return value.text(key) if value is not None else None


def _named_value(doc: JsonValue, key: str) -> Named | None:
    value = doc.get(key)
    if value is None or value.kind != "string":
        return None
    return Named(value.value, value.position)


def _named(path: str, name: str) -> bool:
    return path == name or path.endswith("/" + name)


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _join(folder: str, rest: str) -> str:
    if not folder:
        return rest
    return f"{folder}/{rest}" if rest else folder

"""Discovery: the components of a tree, each found by its own convention.

A tree is a set of components, not one layout: skills (any `SKILL.md`), agents (the
`agents/` folder of a plugin root, of a `.claude/` folder or of the tree, subfolders
included), commands, plugin and marketplace manifests, hook files, MCP files and memory
files. A marketplace's `source` paths and a plugin manifest's declared component paths say
where a plugin's parts are, wherever they sit. One tree may hold several systems at once (a
GSD core, a plugin marketplace, a skills folder): `systems` names the rule packs that fit
what was found, and the evidence for each.

Discovery reads only what it must to decide (manifests, and the first bytes of a Markdown
file in an agents subfolder, which is an agent only when it has frontmatter); everything it
reads is read through the `Repo`, once.
"""

from __future__ import annotations

import bisect
import posixpath
from collections.abc import Iterable
from typing import Any, NamedTuple

from drift_check.scanners.files import Repo, matches

PLUGIN_MANIFEST = ".claude-plugin/plugin.json"
MARKETPLACE_MANIFEST = ".claude-plugin/marketplace.json"
# where memory files are (the `memory-files` setting): instructions a host loads at start-up
MEMORY_GLOBS = (
    "**/CLAUDE.md",
    "**/CLAUDE.local.md",
    "**/AGENTS.md",
    "**/GEMINI.md",
    "**/.claude/rules/**/*.md",
)
# documents that sit beside agents or commands without being one
INDEX_DOCUMENTS = frozenset(
    {"readme.md", "contributing.md", "license.md", "claude.md", "agents.md"}
)


def is_index_document(path: str) -> bool:
    return path.rsplit("/", 1)[-1].lower() in INDEX_DOCUMENTS


# folders whose contents are never components: test fixtures broken on purpose (the
# `discovery-skip` setting); memory files are also not read in templates of other projects
DISCOVERY_SKIP = ("**/fixtures/**", "**/__fixtures__/**", "**/testdata/**", "**/test-fixtures/**")
TEMPLATE_FOLDERS = ("**/templates/**", "**/template/**")
SETTINGS_FILES = (".claude/settings.json", ".claude/settings.local.json")
# declared component keys of a plugin manifest (and of a marketplace entry that is not strict)
COMPONENT_KEYS = ("agents", "skills", "commands", "hooks", "mcpServers")


class Plugin(NamedTuple):
    root: str  # the plugin's folder, "" for the tree itself
    name: str | None  # from its manifest, else from the marketplace entry
    manifest: str | None  # its `.claude-plugin/plugin.json`, if it has one
    marketplace: str | None  # the marketplace that lists it, if one does


class Components(NamedTuple):
    plugins: tuple[Plugin, ...]
    marketplaces: tuple[str, ...]
    agents: tuple[str, ...]
    skills: tuple[str, ...]
    skill_variants: tuple[tuple[str, str], ...]  # (host copy `SKILL.<host>.md`, its SKILL.md)
    commands: tuple[str, ...]
    hook_files: tuple[str, ...]
    mcp_files: tuple[str, ...]
    memory_files: tuple[str, ...]
    claude_folders: tuple[str, ...]  # every `.claude` folder holding agents, skills or commands
    # (agent file, manifest, line of its `agents` key): beside listed agents, not listed
    undeclared_agents: tuple[tuple[str, str, int], ...] = ()

    def counts(self) -> list[tuple[int, str]]:
        """What was found, for the banner and the JSON summary."""
        return [
            (len(self.plugins), "plugin"),
            (len(self.agents), "agent"),
            (len(self.skills), "skill"),
            (len(self.commands), "command"),
            (len(self.hook_files), "hook file"),
            (len(self.mcp_files), "MCP file"),
            (len(self.memory_files), "memory file"),
        ]

    @property
    def empty(self) -> bool:
        return not any(n for n, _ in self.counts()) and not self.marketplaces


def discover(
    repo: Repo, skip: Iterable[str] = (), memory: Iterable[str] = MEMORY_GLOBS
) -> Components:
    """Every component of the tree; files matching `skip` (test fixtures, by default) are
    never components, though they still exist for links and citations. `memory`: globs of
    memory files."""
    skip = tuple(skip)
    memory_globs = tuple(memory)
    files = [f for f in repo.files() if not (skip and matches(f, skip))]
    file_set = frozenset(files)
    folders = _folders(files)
    marketplaces = [f for f in files if _is(f, MARKETPLACE_MANIFEST)]
    plugins: dict[str, Plugin] = {}
    declared: dict[str, list[str]] = {key: [] for key in COMPONENT_KEYS}
    listed: list[tuple[str, list[str]]] = []  # (manifest, the agent files it lists)
    for path in sorted(f for f in files if _is(f, PLUGIN_MANIFEST)):
        root = _parent(_parent(path))
        data = _json(repo, path)
        name = data.get("name") if isinstance(data.get("name"), str) else None
        plugins[root] = Plugin(root, name, path, None)
        before = len(declared["agents"])
        _declare(data, root, declared)
        listed.append((path, [a for a in declared["agents"][before:] if a.endswith(".md")]))
    for path in marketplaces:
        data = _json(repo, path)
        base = _parent(_parent(path))
        metadata = data.get("metadata")
        prefix = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
        if isinstance(prefix, str):
            base = _join(base, prefix) or base
        entries = data.get("plugins")
        for entry in entries if isinstance(entries, list) else ():
            if not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
                continue  # a remote source (github, url, npm) has nothing in this tree
            root = _join(base, entry["source"])
            if root is None or (root and root not in folders):
                continue  # a missing source is a manifest finding, not a plugin
            name = entry.get("name") if isinstance(entry.get("name"), str) else None
            known = plugins.get(root)
            plugins[root] = Plugin(
                root, known.name if known and known.name else name, known and known.manifest, path
            )
            _declare(entry, root, declared)
    roots = frozenset(plugins)
    agents, commands, skills, variants, claude = set(), set(), [], [], set()
    for path in files:
        name = path.rsplit("/", 1)[-1]
        if name == "SKILL.md":
            skills.append(path)
            continue
        if name.startswith("SKILL.") and name.endswith(".md"):
            main = path[: -len(name)] + "SKILL.md"
            if main in file_set:
                variants.append((path, main))
            continue
        if not name.endswith(".md") or name.lower() in INDEX_DOCUMENTS:
            continue
        for kind, found in (("agents", agents), ("commands", commands)):
            owner, rest = _component_folder(path, kind, roots)
            if owner is None:
                continue
            if owner.endswith(".claude") or owner == ".claude":
                claude.add(owner)
            # in a subfolder, only a file with frontmatter is an agent (the others are
            # documents the agents share); a command may be any Markdown file
            if kind == "agents" and "/" in rest and not _has_frontmatter(repo, path):
                continue
            found.add(path)
    for path in skills:
        owner = _owner_of(path, ".claude/skills/")
        if owner is not None:
            claude.add(owner)
    for key, found in (("agents", agents), ("commands", commands)):
        for target in declared[key]:
            found.update(_markdown_under(target, files, file_set))
    undeclared = []
    markdown_in: dict[str, list[str]] = {}
    if any(agent_files for _, agent_files in listed):
        for path in files:
            if path.endswith(".md") and path.rsplit("/", 1)[-1].lower() not in INDEX_DOCUMENTS:
                markdown_in.setdefault(_parent(path), []).append(path)
    for manifest, agent_files in listed:
        for folder in sorted({_parent(a) for a in agent_files}):
            for path in markdown_in.get(folder, ()):
                if path not in agents and _has_frontmatter(repo, path):
                    line = _key_line(repo, manifest, '"agents"')
                    undeclared.append((path, manifest, line))
    hooks = {f for f in files if _in_plugin_hooks(f, roots)}
    hooks.update(t for t in declared["hooks"] if t in file_set and t.endswith(".json"))
    hooks.update(f for f in files if _is(f, *SETTINGS_FILES) and _mentions(repo, f, '"hooks"'))
    mcp = {f for f in files if f.rsplit("/", 1)[-1] == ".mcp.json"}
    mcp.update(t for t in declared["mcpServers"] if t in file_set and t.endswith(".json"))
    memory_files = [
        f for f in files if matches(f, memory_globs) and not matches(f, TEMPLATE_FOLDERS)
    ]
    return Components(
        plugins=tuple(plugins[r] for r in sorted(plugins)),
        marketplaces=tuple(marketplaces),
        agents=tuple(sorted(agents)),
        skills=tuple(skills),
        skill_variants=tuple(variants),
        commands=tuple(sorted(commands)),
        hook_files=tuple(sorted(hooks)),
        mcp_files=tuple(sorted(mcp)),
        memory_files=tuple(memory_files),
        claude_folders=tuple(sorted(claude)),
        undeclared_agents=tuple(sorted(undeclared)),
    )


def _is(path: str, *suffixes: str) -> bool:
    return any(path == s or path.endswith("/" + s) for s in suffixes)


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _join(base: str, relative: str) -> str | None:
    """A manifest's relative path from `base`, as a repository path; None when it is not a
    relative path or leaves the tree."""
    if "://" in relative or relative.startswith(("/", "~", "$")):
        return None
    joined = posixpath.normpath(posixpath.join(base, relative)) if relative else base
    if joined == ".":
        return ""
    if joined == ".." or joined.startswith("../"):
        return None
    return joined


def _folders(paths: Iterable[str]) -> frozenset[str]:
    """Every folder that holds one of `paths`, at any depth."""
    out: set[str] = set()
    for path in paths:
        i = path.rfind("/")
        while i > 0 and path[:i] not in out:
            out.add(path[:i])
            i = path.rfind("/", 0, i)
    return frozenset(out)


def _json(repo: Repo, path: str) -> dict[str, Any]:
    """A manifest's top-level object; anything else is {} here (the manifest rules report
    why it cannot be read). Read by the manifests' own parser: `json.loads` recurses, and a
    deeply nested manifest made it raise RecursionError."""
    from drift_check.scanners.json_parser import JsonSyntaxError, parse_json

    source = repo.read(path)
    if source is None:
        return {}
    try:
        data = parse_json(source.text, path, repo.limits.max_json_depth).plain()
    except JsonSyntaxError:
        return {}
    return data if isinstance(data, dict) else {}


def _declare(data: dict[str, Any], root: str, declared: dict[str, list[str]]) -> None:
    """The component paths a manifest declares (a string or a list of strings each),
    resolved against the plugin root."""
    for key in COMPONENT_KEYS:
        value = data.get(key)
        for item in [value] if isinstance(value, str) else value if isinstance(value, list) else ():
            if isinstance(item, str):
                target = _join(root, item)
                if target is not None:
                    declared[key].append(target)


def _component_folder(path: str, kind: str, roots: frozenset[str]) -> tuple[str | None, str]:
    """For a file under a `kind/` folder of a plugin root, of a `.claude` folder or of the
    tree: that owner folder and the path below `kind/`."""
    start = 0
    while True:
        i = path.find(kind + "/", start)
        if i < 0:
            return None, ""
        if i == 0 or path[i - 1] == "/":
            owner = path[: i - 1] if i else ""
            if owner == "" or owner in roots or owner.rsplit("/", 1)[-1] == ".claude":
                return owner, path[i + len(kind) + 1 :]
        start = i + 1


def _owner_of(path: str, marker: str) -> str | None:
    i = path.find(marker)
    if i < 0 or (i and path[i - 1] != "/"):
        return None
    return path[: i + len(".claude")]


def _markdown_under(target: str, files: list[str], file_set: frozenset[str]) -> list[str]:
    if target in file_set:
        return [target] if target.endswith(".md") else []
    prefix = target + "/" if target else ""
    out = []
    for f in files[bisect.bisect_left(files, prefix) :]:  # files are sorted
        if not f.startswith(prefix):
            break
        if f.endswith(".md") and f.rsplit("/", 1)[-1].lower() not in INDEX_DOCUMENTS:
            out.append(f)
    return out


def _in_plugin_hooks(path: str, roots: frozenset[str]) -> bool:
    if not path.endswith("hooks/hooks.json"):
        return False
    root = path[: -len("hooks/hooks.json")].rstrip("/")
    return root in roots or root == ""


def _has_frontmatter(repo: Repo, path: str) -> bool:
    source = repo.read(path)
    return source is not None and source.text.startswith("---\n")


def _key_line(repo: Repo, path: str, needle: str) -> int:
    source = repo.read(path)
    i = source.text.find(needle) if source is not None else -1
    return 1 if source is None or i < 0 else source.text.count("\n", 0, i) + 1


def _mentions(repo: Repo, path: str, needle: str) -> bool:
    source = repo.read(path)
    return source is not None and needle in source.text

"""Discovery: the components of a tree, each found by its own convention.

A tree is a set of components, not one layout: skills (any `SKILL.md`), agents (the
`agents/` folder of a plugin root, of a `.claude/` folder, of a kit (a `.claude/` folder
under another name) or of the tree, subfolders included), commands, plugin and marketplace
manifests, hook files, MCP files and memory files. A marketplace's `source` paths and a
plugin manifest's declared component paths say where a plugin's parts are, wherever they
sit. One tree may hold several systems at once (a
GSD core, a plugin marketplace, a skills folder): `systems` names the rule packs that fit
what was found, and the evidence for each.

Discovery reads only what it must to decide (manifests, and the first bytes of a Markdown
file in an agents subfolder, which is an agent only when it has frontmatter); everything it
reads is read through the `Repo`, once.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from drift_check.facts import COMPONENT_KEYS, EMPTY_MANIFESTS, InputProblem, Manifests, Plugin
from drift_check.records import NamedTuple
from drift_check.scanners.files import Repo, matches
from drift_check.settings import default

# where memory files are (the `memory-files` setting, declared with its default in
# drift_check/settings.py): instructions a host loads at start-up
MEMORY_GLOBS = default("memory-files")
# documents that sit beside agents or commands without being one
INDEX_DOCUMENTS = frozenset(
    {"readme.md", "contributing.md", "license.md", "claude.md", "agents.md"}
)


def is_index_document(path: str) -> bool:
    return path.rsplit("/", 1)[-1].lower() in INDEX_DOCUMENTS


# folders whose contents are never components: test fixtures broken on purpose (the
# `discovery-skip` setting, declared with its default in drift_check/settings.py); memory
# files are also not read in templates of other projects
DISCOVERY_SKIP = default("discovery-skip")
TEMPLATE_FOLDERS = ("**/templates/**", "**/template/**")


class Components(NamedTuple):
    plugins: tuple[Plugin, ...]  # every plugin root, with its manifest's declared paths
    marketplaces: tuple[str, ...]
    agents: tuple[str, ...]
    skills: tuple[str, ...]
    skill_variants: tuple[tuple[str, str], ...]  # (host copy `SKILL.<host>.md`, its SKILL.md)
    commands: tuple[str, ...]
    hook_files: tuple[str, ...]
    mcp_files: tuple[str, ...]
    memory_files: tuple[str, ...]
    claude_folders: tuple[str, ...]  # every `.claude` folder holding agents, skills or commands
    # folders shaped like a `.claude` folder under another name (`_kit_folders`) with agents
    kits: tuple[str, ...] = ()
    # (agent file, manifest, line of its `agents` key): beside listed agents, not listed
    undeclared_agents: tuple[tuple[str, str, int], ...] = ()
    manifests: Manifests = EMPTY_MANIFESTS  # the manifests, read with positions

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
    repo: Repo,
    skip: Iterable[str] = (),
    problems: list[InputProblem] | None = None,
    memory: Iterable[str] = MEMORY_GLOBS,
) -> Components:
    """Every component of the tree; files matching `skip` (test fixtures, by default) are
    never components, though they still exist for links and citations; `memory`: globs of
    memory files. The manifests are
    read once, with positions (`scan_manifests`); a manifest that cannot be read is a
    problem in `problems`, and its plugin has no declared parts."""
    from drift_check.scanners.manifests import scan_manifests

    skip = tuple(skip)
    memory_globs = tuple(memory)
    files = [f for f in repo.files() if not (skip and matches(f, skip))]
    file_set = frozenset(files)
    manifests = scan_manifests(repo, problems if problems is not None else [], skip)
    plugins = {p.root: p for p in manifests.plugins}
    declared: dict[str, list[str]] = {key: [] for key in COMPONENT_KEYS}
    listed: list[tuple[str, list[str]]] = []  # (manifest, the agent files it lists)
    for plugin in manifests.plugins:
        for component in plugin.components:
            if component.key in declared and component.resolved is not None:
                declared[component.key].append(component.resolved)
        if plugin.manifest is not None:
            agent_files = [
                c.resolved
                for c in plugin.components
                if c.key == "agents" and c.resolved and c.resolved.endswith(".md")
            ]
            listed.append((plugin.manifest, agent_files))
    for market in manifests.marketplaces:
        for entry in market.entries:
            for component in entry.components:
                if component.key in declared and component.resolved is not None:
                    declared[component.key].append(component.resolved)
    roots = frozenset(plugins)
    kits = _kit_folders(files, roots)
    owners = roots | kits
    agents, commands, skills, variants, claude = set(), set(), [], [], set()
    kit_commands: list[tuple[str, str]] = []  # (kit folder, command file)
    kits_with_agents: set[str] = set()
    for path in files:
        name = path.rsplit("/", 1)[-1]
        if name == "SKILL.md":
            # outside the folders skills are kept in, a SKILL.md with no frontmatter is some
            # other host's document (a web bundle's instructions), not an Agent Skill
            if _skill_folder(path, declared["skills"]) or _has_frontmatter(repo, path):
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
            owner, rest = _component_folder(path, kind, owners)
            if owner is None:
                continue
            if owner.endswith(".claude") or owner == ".claude":
                claude.add(owner)
            if owner in kits:
                # a kit's commands count once it has an agent (it is a Claude Code folder
                # then), and only a Claude Code agent (frontmatter with a `name`) is one
                if kind == "commands":
                    kit_commands.append((owner, path))
                elif _named_agent(repo, path):
                    found.add(path)
                    kits_with_agents.add(owner)
                continue
            # in a subfolder, only a file with frontmatter is an agent (the others are
            # documents the agents share); a command may be any Markdown file
            if kind == "agents" and "/" in rest and not _has_frontmatter(repo, path):
                continue
            found.add(path)
    commands.update(path for kit, path in kit_commands if kit in kits_with_agents)
    kept = set(skills)
    variants = [(variant, main) for variant, main in variants if main in kept]
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
    # hooks inline in a plugin.json are part of that manifest, not a hook file
    manifest_files = {p.manifest for p in manifests.plugins}
    hooks = {h.path for h in manifests.hooks if h.path not in manifest_files}
    mcp = set(manifests.mcp_files)
    mcp.update(t for t in declared["mcpServers"] if t in file_set and t.endswith(".json"))
    memory_files = [
        f for f in files if matches(f, memory_globs) and not matches(f, TEMPLATE_FOLDERS)
    ]
    return Components(
        plugins=manifests.plugins,
        marketplaces=tuple(m.path for m in manifests.marketplaces),
        agents=tuple(sorted(agents)),
        skills=tuple(skills),
        skill_variants=tuple(variants),
        commands=tuple(sorted(commands)),
        hook_files=tuple(sorted(hooks)),
        mcp_files=tuple(sorted(mcp)),
        memory_files=tuple(memory_files),
        claude_folders=tuple(sorted(claude)),
        kits=tuple(sorted(kits_with_agents)),
        undeclared_agents=tuple(sorted(undeclared)),
        manifests=manifests,
    )


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


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


def _kit_folders(files: list[str], roots: frozenset[str]) -> frozenset[str]:
    """Folders that hold an `agents/` folder and a `commands/` or `skills/` one, other than
    the tree, a plugin root, a `.claude` folder or a folder inside a skill: what an installer
    copies into a project's `.claude/` (`cc_sessions/`, `templates/claude-code-agent/`),
    checked where it is kept. (A skill's folder may vendor another project's agents among
    its references: they are documents of that skill.) `files` are sorted."""
    candidates = set()
    for path in files:
        if "/agents/" in path:
            i = path.find("/agents/")
            while i > 0:
                candidates.add(path[:i])
                i = path.find("/agents/", i + 1)
    kits = set()
    skill_dirs: set[str] | None = None
    for folder in candidates:
        if folder in roots or folder.rsplit("/", 1)[-1] == ".claude":
            continue
        if not (_holds(files, folder + "/commands/") or _holds(files, folder + "/skills/")):
            continue
        if skill_dirs is None:
            skill_dirs = {p[: -len("/SKILL.md")] for p in files if p.endswith("/SKILL.md")}
        if not _inside(folder, skill_dirs):
            kits.add(folder)
    return frozenset(kits)


def _holds(files: list[str], prefix: str) -> bool:
    """Whether a path of the sorted `files` starts with `prefix`."""
    i = bisect.bisect_left(files, prefix)
    return i < len(files) and files[i].startswith(prefix)


def _inside(folder: str, dirs: set[str]) -> bool:
    """Whether `folder` is one of `dirs` or lies inside one."""
    while folder:
        if folder in dirs:
            return True
        folder = folder.rpartition("/")[0]
    return False


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


def _skill_folder(path: str, declared: list[str]) -> bool:
    """Whether a SKILL.md sits where skills are kept: the tree's root, a folder named for them
    on its path (`skills/`, `.claude/skills/`, `core-skills/`), or a skill path a manifest
    declares."""
    folders = path.split("/")[:-1]
    if not folders or any("skill" in folder.lower() for folder in folders):
        return True  # the tree's own SKILL.md makes it a skill
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in declared)


def _has_frontmatter(repo: Repo, path: str) -> bool:
    source = repo.read(path)
    return source is not None and source.text.startswith("---\n")


def _named_agent(repo: Repo, path: str) -> bool:
    """Whether the file's frontmatter gives a `name`, as a Claude Code agent's must (other
    hosts' agents, OpenCode's among them, are named by their files)."""
    source = repo.read(path)
    if source is None or not source.text.startswith("---\n"):
        return False
    end = source.text.find("\n---", 3)
    return "\nname:" in source.text[3 : end + 1 if end > 0 else 0]


def _key_line(repo: Repo, path: str, needle: str) -> int:
    source = repo.read(path)
    i = source.text.find(needle) if source is not None else -1
    return 1 if source is None or i < 0 else source.text.count("\n", 0, i) + 1

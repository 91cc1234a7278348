"""Scanners: read the repository once and build the immutable `Facts`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from drift_check.config import Config
from drift_check.facts import (
    NOWHERE,
    Agent,
    Citation,
    Command,
    Consumer,
    Directive,
    Facts,
    FencedHeading,
    InputProblem,
    Link,
    MarkerOccurrences,
    MemoryFile,
    NameReference,
    Position,
    PythonModule,
    QuotedMarker,
    ReadGate,
    Registry,
    SchemaFile,
    Skill,
    SkillMatrix,
    SkillTree,
    SkillVariant,
    Structured,
    UnassignedList,
    UndeclaredAgent,
    Vocabulary,
)
from drift_check.markers import build_index
from drift_check.records import NamedTuple
from drift_check.scanners.agents import HeadingCache, scan_agent
from drift_check.scanners.consumers import python_literals_read, scan_consumers, settings_globs
from drift_check.scanners.files import Limits, Repo, glob_pattern, matches
from drift_check.scanners.markdown import MarkdownScan, forget, scan
from drift_check.scanners.registry import parse_registry

T = TypeVar("T")

if TYPE_CHECKING:  # discovery imports the scanners' file layer: no import cycle at start-up
    from drift_check.discovery import Components
    from drift_check.parallel import Shared
    from drift_check.validation import Contracts


class Discovered(NamedTuple):
    config: Config  # with its packs chosen
    repo: Repo
    components: Components
    problems: list[InputProblem]  # manifests discovery could not read


class FileScan(Generic[T]):
    """A scan of one kind of file: the files, the work on one, and what the results of all
    of them make (`_scan_files` runs several such scans as one)."""

    def __init__(
        self, paths: list[str], one: Callable[[str], Any], done: Callable[[list[Any]], T]
    ) -> None:
        self.paths = paths
        self.one = one
        self.done = done


def _scan_files(repo: Repo, *scans: FileScan[Any]) -> list[Any]:
    """What each scan makes, its files read in one pass over all of them (split between
    processes by `drift_check.parallel`: one worker for every kind of file)."""
    items = [(i, path) for i, kind in enumerate(scans) for path in kind.paths]
    if not items:
        return [kind.done([]) for kind in scans]
    from drift_check.parallel import map_files

    results = map_files(lambda item: scans[item[0]].one(item[1]), items, repo)
    out, at = [], 0
    for kind in scans:
        out.append(kind.done(results[at : at + len(kind.paths)]))
        at += len(kind.paths)
    return out


def discover_tree(config: Config, overlay: dict[str, str] | None = None) -> Discovered:
    """Walk the tree once, find its components, and choose the packs that fit them
    (unless the config names one). `overlay` holds texts read instead of the files'."""
    from drift_check.config import resolve
    from drift_check.discovery import discover

    early = config.settings
    repo = Repo(config.root, Limits.from_settings(early), early["exclude"], overlay=overlay)
    problems: list[InputProblem] = []
    components = discover(repo, early["discovery-skip"], problems, early["memory-files"])
    return Discovered(resolve(config, repo, components), repo, components, problems)


def build_facts(config: Config, discovered: Discovered | None = None) -> Facts:
    """Scan each component of the tree once into the facts the rules read: one builder per
    component, each returning its facts and the problems it met."""
    config, repo, components, found_problems = discovered or discover_tree(config)
    settings = config.settings
    problems: list[InputProblem] = list(found_problems)
    contracts = _scan_registry(config, repo)
    problems += contracts.problems
    core = contracts.core
    agent_plan = _scan_agents(repo, settings, components, contracts.registry, core)
    skill_plan = _scan_skills(repo, settings, components, core)
    command_plan = _scan_commands(
        repo, settings, components, agent_plan.paths, skill_plan.paths, core
    )
    start = _start_structured(repo, settings, components, agent_plan.paths, skill_plan.paths)
    with start:  # a copy may scan by name from here: stopped if a scan below fails
        agents, skills, (commands, found) = _scan_files(repo, agent_plan, skill_plan, command_plan)
        start.after_files(repo, settings)
        problems += agents.problems
        consumers = _scan_consumers(repo, settings, components, contracts.registry, agents, core)
        problems += consumers.problems
        problems += skills.problems
        problems += _unmatched(config, repo, core, components, bool(agents.all or skills.skills))
        problems += found
        restated, found = _restated(repo, settings, _config_key(config, "skill-matrix"))
        problems += found
        memory_files, found = _memory_files(repo, components.memory_files)
        problems += found
        targets = _scan_link_targets(repo, agents, skills, memory_files)
        checked = {*skills.skills, *memory_files, *(a.path for a in agents.all), *agents.followed}
        checked.update(commands)  # their fences were looked at where they were read
        problems = _unclosed_fences(repo, problems, checked, targets.scanned)
        reference_reads = _reference_reads(
            repo, agents.all, set(consumers.consumers), tuple(settings["legacy-read-tags"])
        )
        problems += repo.problems
        read_before = len(repo.problems)  # files first read by the scans below report too
        # only DC901 reads them, and only where a skill matrix wires skills (it reads every
        # Markdown file of the tree: most of the time of a large marketplace)
        wired = bool(skills.skills and settings["skill-matrix"])
        mentions = _mentions(repo, skills.skills.values()) if wired else {}
        # the agents whose `name` DC602 would rewrite (the same scope as the rule): where an agent
        # is known by its name alone, only a registry's; their old names are all worth looking up
        if settings["agent-name-matches-file"]:
            renamed: Iterable[Agent] = agents.all
        else:
            renamed = agents.agents.values() if contracts.registry is not None else ()
        structured, by_name, validators, name_uses, found = _scan_structured(
            repo, settings, start, _name_uses(repo, renamed, skills.skills.values())
        )
    problems += found
    problems += repo.problems[read_before:]
    directives = _directives(repo)
    forget()  # the scans kept for the scanners: the facts hold what the rules need
    repo.release()  # and the texts: a fix or a report that needs one reads it again
    facts = Facts(
        root=config.root,
        preset=config.preset,
        reason=config.reason,
        components=components,
        registry=contracts.registry,
        agents=agents.agents,
        consumers=consumers.consumers,
        quoted_markers=consumers.quoted,
        problems=tuple(problems),
        settings=settings,
        existing_paths=repo.existing(),
        existing_dirs=_folders(repo.existing()),
        agent_names=agents.names,
        read_gates=consumers.read_gates,
        skills=skills.skills,
        all_agents=agents.all,
        frontmatter_errors=frozenset(p.position.path for p in problems if p.kind == "frontmatter"),
        skill_dirs=frozenset(p.rsplit("/", 1)[0] for p in skills.paths),
        anchors=targets.anchors,
        matrix=restated[0],
        unassigned=restated[1],
        tree=restated[2],
        mentions=mentions,
        directives=directives,
        sources=repo.sources(),
        config=config,
        skill_variants=skills.variants,
        undeclared_agents=tuple(
            UndeclaredAgent(path, manifest, line)
            for path, manifest, line in components.undeclared_agents
        ),
        skill_names=skills.names,
        commands=commands,
        legacy_reads=consumers.legacy_reads,
        manifests=components.manifests,  # read by discovery, whatever the preset
        memory_files=memory_files,
        fenced_headings=targets.fenced_headings,
        name_uses=name_uses,
        reference_reads=reference_reads,
        structured=structured,
        vocabularies=by_name.vocabularies,
        name_references=by_name.references,
        citations=by_name.citations,
        python_modules=by_name.modules,
        occurrences=consumers.occurrences,
        agent_mentions=consumers.agent_mentions,
        registry_path=contracts.path,
        core=core,
        contracts=validators,
        marker_index=build_index(
            contracts.registry,
            agents.agents,
            consumers.quoted,
            consumers.occurrences,
            consumers.agent_mentions,
            settings,
        ),
    )
    return facts


class RegistryScan(NamedTuple):
    registry: Registry | None
    path: str | None  # the registry file found
    core: str  # `{core}`: its top folder (see `_core_folder`)
    problems: list[InputProblem]


def _scan_registry(config: Config, repo: Repo) -> RegistryScan:
    """The registry file the pack names, parsed; a missing one is a problem where a registry
    is asked for."""
    settings = config.settings
    path = next((p for p in settings["registry"] if repo.exists(p)), None)
    core = _core_folder(repo, path, settings["registry"])
    if path is None and settings["registry"]:
        missing = InputProblem(
            _registry_asked_at(config),
            "registry-missing",
            "contracts registry file not found (looked for "
            + ", ".join(settings["registry"])
            + "); create it or set `registry` in the config",
        )
        return RegistryScan(None, None, core, [missing])
    source = repo.read(path) if path is not None else None
    if source is None:
        return RegistryScan(None, path, core, [])
    registry, problems = parse_registry(source, settings["registry-heading"])
    return RegistryScan(registry, path, core, list(problems))


class AgentScan(NamedTuple):
    agents: dict[str, Agent]  # by name; the first file of a name (the contract rules' view)
    all: tuple[Agent, ...]  # every agent file read
    paths: list[str]  # every agent file found, readable or not
    names: frozenset[str]  # the stems of the agent files the contract rules see
    followed: frozenset[str]  # the documents whose fences the scan read (agents' includes)
    problems: list[InputProblem]
    # agent file -> the declared markers and read tags its text or its included documents name
    mentions: dict[str, frozenset[str]]


def _scan_agents(
    repo: Repo,
    settings: dict[str, Any],
    components: Components,
    registry: Registry | None,
    core: str,
) -> FileScan[AgentScan]:
    """Agent files: the pack's `agents` globs and the agents discovery found."""
    from drift_check.discovery import is_index_document

    excluded = settings_globs(settings, "agents-exclude", core)
    globbed = [
        p
        for p in repo.glob(settings_globs(settings, "agents", core))
        if not matches(p, excluded) and not is_index_document(p)
    ]
    paths = sorted(set(globbed).union(p for p in components.agents if not matches(p, excluded)))
    # with a registry, the contract rules see the agents of its system (the pack's `agents`
    # globs); a plugin's agents beside it are checked as agents, not as rows
    contract_scope = frozenset(globbed) if settings["registry"] else None
    agent_settings = {
        **settings,
        "include-follow": settings_globs(settings, "include-follow", core),
    }
    from drift_check.scanners.occurrences import MentionSearch

    cache = HeadingCache()
    declared = {m.text for row in registry.rows for m in row.markers} if registry else set()
    tags = {t for t in (settings["read-gate-tag"], *settings["legacy-read-tags"]) if t}
    search = MentionSearch(sorted(declared | tags))

    def one(path: str) -> tuple[Agent | None, list[InputProblem], frozenset[str], list[str]]:
        found: list[InputProblem] = []
        followed = len(cache.by_path)
        agent = scan_agent(path, repo, agent_settings, found, cache)
        named = search(agent) if agent is not None else frozenset()  # while its texts are held
        return agent, found, named, list(cache.by_path)[followed:]

    def done(
        results: list[tuple[Agent | None, list[InputProblem], frozenset[str], list[str]]],
    ) -> AgentScan:
        agents: dict[str, Agent] = {}
        all_agents: list[Agent] = []
        problems: list[InputProblem] = []
        mentions: dict[str, frozenset[str]] = {}
        followed = set(cache.by_path)  # and those of the includes a worker followed
        for path, (agent, found, named, includes) in zip(paths, results, strict=True):
            problems += found
            followed.update(includes)
            if agent is None:
                continue
            if named:
                mentions[agent.path] = named
            if contract_scope is None or path in contract_scope:
                agents.setdefault(agent.name, agent)  # the contract rules see the first of a name
            all_agents.append(agent)
        names = frozenset(
            p.rsplit("/", 1)[-1][: -len(".md")]
            for p in paths
            if contract_scope is None or p in contract_scope
        )
        return AgentScan(
            agents, tuple(all_agents), paths, names, frozenset(followed), problems, mentions
        )

    return FileScan(paths, one, done)


class ConsumerScan(NamedTuple):
    consumers: dict[str, Consumer]
    quoted: tuple[QuotedMarker, ...]
    read_gates: dict[str, tuple[ReadGate, ...]]  # the read-gate tag, by path
    legacy_reads: dict[str, tuple[ReadGate, ...]]  # retired read tags, by path
    occurrences: MarkerOccurrences
    agent_mentions: dict[str, frozenset[str]]
    problems: list[InputProblem]


def _scan_consumers(
    repo: Repo,
    settings: dict[str, Any],
    components: Components,
    registry: Registry | None,
    agents: AgentScan,
    core: str,
) -> ConsumerScan:
    """Files that can consume markers (workflows, commands, agents, hooks, the files rows
    cite), the `## TOKEN`s they quote, their read tags, and where they contain markers."""
    markdown = set(repo.glob(settings_globs(settings, "consumers", core)))
    markdown.update(agents.paths)
    markdown.update(components.commands)
    python_globs = settings_globs(settings, "python-consumers", core)
    python = {p for p in repo.glob(python_globs) if p.endswith(".py")}
    if registry is not None:
        for row in registry.rows:
            for cited in row.consumed_by:
                if repo.exists(cited.path):
                    (python if cited.path.endswith(".py") else markdown).add(cited.path)
    dispatch = set(repo.glob(settings_globs(settings, "dispatch-surfaces", core)))
    gate_tag = settings["read-gate-tag"]
    legacy_tags = tuple(settings["legacy-read-tags"])
    problems: list[InputProblem] = []
    consumers, quoted, gates = scan_consumers(
        repo,
        sorted(markdown),
        sorted(python),
        dispatch,
        set(agents.agents),
        gate_tag,
        problems,
        legacy_tags,
        python_literals_read(
            registry, agents.agents.values(), agents.mentions, gate_tag, legacy_tags
        ),
    )
    occurrences = _occurrences(repo, registry, agents.all, consumers, quoted, settings)
    gates_by_path: dict[str, list[ReadGate]] = {}
    legacy_by_path: dict[str, list[ReadGate]] = {}
    for gate in gates:
        by_path = gates_by_path if gate.tag == gate_tag else legacy_by_path
        by_path.setdefault(gate.position.path, []).append(gate)
    return ConsumerScan(
        consumers,
        tuple(quoted),
        {path: tuple(g) for path, g in gates_by_path.items()},
        {path: tuple(g) for path, g in legacy_by_path.items()},
        occurrences,
        agents.mentions,
        problems,
    )


class SkillScan(NamedTuple):
    skills: dict[str, Skill]  # by path: two folders may hold skills of one name
    paths: list[str]  # every SKILL.md found, readable or not
    variants: tuple[SkillVariant, ...]
    names: frozenset[str]  # folder names and frontmatter names
    problems: list[InputProblem]
    # the Markdown files the skills' links point into with an anchor, scanned beside them
    targets: dict[str, LinkTarget | None]


def _scan_skills(
    repo: Repo, settings: dict[str, Any], components: Components, core: str
) -> FileScan[SkillScan]:
    """SKILL.md files (the pack's `skills` globs and discovery's) and their host copies."""
    paths = sorted(
        set(repo.glob(settings_globs(settings, "skills", core))).union(components.skills)
    )
    from drift_check.scanners.skills import SkillFiles, is_template, scan_skill

    others = SkillFiles(repo, paths)

    scanned: set[str] = set()  # the link targets this process has scanned

    def one(path: str) -> tuple[Skill | None, list[InputProblem], dict[str, LinkTarget | None]]:
        found: list[InputProblem] = []
        skill = scan_skill(path, repo, settings, found, others)
        if skill is None or is_template(skill):
            return skill, found, {}
        # a large tree's link targets are scanned in the worker that read the link
        targets = {t: _link_target(repo, t) for t in _anchored(skill.links) if t not in scanned}
        scanned.update(targets)
        return skill, found, targets

    def done(
        results: list[tuple[Skill | None, list[InputProblem], dict[str, LinkTarget | None]]],
    ) -> SkillScan:
        skills: dict[str, Skill] = {}
        problems: list[InputProblem] = []
        targets: dict[str, LinkTarget | None] = {}
        for path, (skill, found, scanned_here) in zip(paths, results, strict=True):
            problems += found
            for target, scanned_target in scanned_here.items():
                targets.setdefault(target, scanned_target)
            if skill is not None and not is_template(skill):
                skills[path] = skill
        variants = _variants(repo, components, problems)
        names = frozenset(s.name for s in skills.values()).union(
            s.frontmatter["name"]
            for s in skills.values()
            if s.frontmatter and isinstance(s.frontmatter.get("name"), str)
        )
        return SkillScan(skills, paths, variants, names, problems, targets)

    return FileScan(paths, one, done)


def _scan_commands(
    repo: Repo,
    settings: dict[str, Any],
    components: Components,
    agent_paths: list[str],
    skill_paths: list[str],
    core: str,
) -> FileScan[tuple[dict[str, Command], list[InputProblem]]]:
    """Slash command files; a file already read as an agent or a skill is not a command."""
    found = set(repo.glob(settings_globs(settings, "commands", core))).union(components.commands)
    return _commands(repo, sorted(found), {*agent_paths, *skill_paths})


class LinkTargets(NamedTuple):
    anchors: dict[str, frozenset[str]]  # path -> heading slugs
    fenced_headings: dict[str, dict[str, FencedHeading]]
    scanned: dict[str, MarkdownScan]  # the targets' fences (no headings), for the fence check


class LinkTarget(NamedTuple):
    """A Markdown file a link points into with an anchor, scanned."""

    scanned: MarkdownScan  # its fences (no headings: those are `anchors`)
    anchors: frozenset[str]
    fenced_headings: dict[str, FencedHeading]


def _anchored(links: Iterable[Link]) -> Iterator[str]:
    """The Markdown files `links` point into with an anchor."""
    for link in links:
        target = link.resolved
        if link.anchor and target and target.endswith(".md"):
            yield target


def _link_target(repo: Repo, path: str) -> LinkTarget | None:
    source = repo.read(path) if repo.exists(path) else None
    if source is None:
        return None
    from drift_check.scanners.links import heading_anchors

    scanned = scan(source.text)
    # the fences alone are kept: the headings are the anchors now, and a worker's scans are
    # sent to this process
    fences = MarkdownScan((), scanned.fences, scanned.fence_opens)
    return LinkTarget(fences, *heading_anchors(source, scanned))


def _scan_link_targets(
    repo: Repo,
    agents: AgentScan,
    skills: SkillScan,
    memory_files: dict[str, MemoryFile],
) -> LinkTargets:
    """The headings of the Markdown files that links with an anchor point into (those of
    the skills' links were scanned with the skills)."""
    links = [link for a in agents.agents.values() for link in a.links]
    links += [link for s in skills.skills.values() for link in s.links]
    links += [link for m in memory_files.values() for link in m.links]
    out = LinkTargets({}, {}, {})
    for target in _anchored(links):
        if target not in out.anchors:
            found = (
                skills.targets.get(target)
                if target in skills.targets
                else _link_target(repo, target)
            )
            if found is not None:
                out.scanned[target] = found.scanned
                out.anchors[target] = found.anchors
                out.fenced_headings[target] = found.fenced_headings
    return out


def _contracts(structured: Structured) -> Contracts | None:
    """The validators of the tree's schemas, for the rules to build on first use; none
    without schemas (nothing to import then)."""
    if not structured.schemas:
        return None
    from drift_check.validation import Contracts

    return Contracts(structured.schemas)


def _not_skipped(repo: Repo, settings: dict[str, Any]) -> list[str]:
    """The tree's files less those `discovery-skip` names, matched once for the structured
    and by-name scans (a skip glob costs some thousand instructions a path)."""
    skip = tuple(settings["discovery-skip"])
    return [f for f in repo.files() if not matches(f, skip)] if skip else repo.files()


# A tree of this many files or more has its vocabularies found by a copy of this process
# while this one scans its structured contracts and the names documents give: a smaller
# tree's cost less than the copy does.
LEAST_FILES_FOR_BACKGROUND = 1000
# A tree whose file scans run on one core (a smaller tree, or one with fewer agents, skills
# and commands than a worker takes: oh-my-claude-sisyphus, 5,400 files, 83 of them to scan)
# with this many bytes of Markdown or more has its by-name scans (vocabularies, then names
# and citations) made by a copy of this process from the start, while this one scans its
# agents, skills and commands. The copy costs this process about 3 to 5 ms (its start, and
# its pages copied as this one writes them): worth it from about 0.3 MB of Markdown (a tree
# of agents with 0.58 MB gains 2 ms, one with 0.08 MB loses 3; a tree with scripts beside
# its prompts gains most, as they hold vocabularies).
LEAST_MARKDOWN_FOR_EARLY = 500_000
# ... and where this process has agents, skills and commands enough to scan meanwhile: with
# fewer (superpowers' 14 skills, 7 ms) it only waits for the copy, 1 ms later than alone.
LEAST_SCANS_FOR_EARLY = 32


class StructuredStart:
    """The part of the structured and by-name scans that needs nothing the file scans
    find, begun before them (`_start_structured`); `_scan_structured` ends it. Used as a
    context: leaving it on an error stops the copy it may have started."""

    def __init__(
        self,
        kept: list[str],
        skill_dirs: frozenset[str],
        schemas: dict[str, SchemaFile],
        early: Shared | None,
        problems: list[InputProblem],
    ) -> None:
        self.kept = kept
        self.skill_dirs = skill_dirs
        self.schemas = schemas
        self.early = early  # the by-name scans, under way in a copy
        self.problems = problems
        self.shared: Shared | None = None  # a large tree's (`after_files`)

    def after_files(self, repo: Repo, settings: dict[str, Any]) -> None:
        """On a large tree, start the copy that finds the vocabularies and then takes
        batches of the names' search (see `_scan_structured`) as soon as the file scans,
        which use every core, are done: it works while this process scans the consumers."""
        kept, schemas = self.kept, self.schemas
        if self.early is not None or len(kept) < LEAST_FILES_FOR_BACKGROUND:
            return  # the copy started before the file scans, or none is worth it
        if not _nameable(settings, schemas, kept):
            return
        from drift_check.parallel import MAX_BATCHES, share
        from drift_check.scanners.references import named_in, reference_paths
        from drift_check.scanners.vocabulary import find_vocabularies

        paths = reference_paths(kept)
        named = named_in(repo)

        def unit(item: str | None) -> Any:  # the vocabularies first, then a file's names
            if item is None:
                return find_vocabularies(repo, settings, schemas.values(), kept)
            return named(item)

        size = max(REFERENCE_BATCH, -(-len(paths) // (MAX_BATCHES - 1)))
        batches = [[None], *(paths[i : i + size] for i in range(0, len(paths), size))]
        self.shared = share(unit, batches, repo)

    def __enter__(self) -> StructuredStart:
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if error is not None:
            for shared in (self.early, self.shared):
                if shared is not None:
                    shared.abandon()


def _start_structured(
    repo: Repo,
    settings: dict[str, Any],
    components: Components,
    agent_paths: list[str],
    skill_paths: list[str],
) -> StructuredStart:
    """Find the tree's schemas; on a small tree with enough Markdown, start a copy of this
    process on the by-name scans and on the structured scan's cheap look at every Markdown
    file (`parallel.share`), which need only the schemas: the file scans that come next run
    on one core on such a tree."""
    from drift_check.scanners.contracts import find_schemas

    kept = _not_skipped(repo, settings)
    problems: list[InputProblem] = []
    skill_dirs = frozenset(p.rsplit("/", 1)[0] for p in skill_paths)
    plugin_roots = frozenset(p.root for p in components.plugins)
    schemas = find_schemas(repo, settings, skill_dirs, agent_paths, plugin_roots, problems)
    early = None
    markdown = [f for f in kept if f.endswith(".md")]
    from drift_check.parallel import LEAST_PER_PART, share

    scans = len(agent_paths) + len(skill_paths) + len(components.commands)
    # a large tree's file scans take both cores, unless they are too few for a worker; the
    # sizes are looked at (a `stat` a file) only where there are files enough to make the
    # bytes at an average far above a prompt file's (32 KB)
    one_core = len(kept) < LEAST_FILES_FOR_BACKGROUND or scans < 2 * LEAST_PER_PART
    if one_core and (
        scans >= LEAST_SCANS_FOR_EARLY
        and len(markdown) << 15 >= LEAST_MARKDOWN_FOR_EARLY
        and repo.bytes_at_least(markdown, LEAST_MARKDOWN_FOR_EARLY)
    ):

        def unit(item: str) -> Any:  # the vocabularies and the looks first, then the names
            if item == "vocabularies":
                from drift_check.scanners.contracts import structured_looks
                from drift_check.scanners.vocabulary import find_vocabularies

                found = find_vocabularies(repo, settings, schemas.values(), kept)
                return found, structured_looks(repo, settings, schemas, markdown)
            from drift_check.scanners.references import find_references

            return find_references(repo, settings, kept)

        early = share(unit, [["vocabularies"], ["references"]], repo)
    return StructuredStart(kept, skill_dirs, schemas, early, problems)


def _scan_structured(
    repo: Repo, settings: dict[str, Any], start: StructuredStart, beside: Callable[[], T]
) -> tuple[Structured, ByName, Contracts | None, T, list[InputProblem]]:
    """Structured contracts: schemas, the blocks and tables that claim them, their readers;
    and the contracts by name: state vocabularies, and the skills, agents and code symbols
    documents name (in the files `kept`, those `discovery-skip` leaves; files they cannot
    read are the repository's problems); and what `beside()` gives, a scan that needs none
    of them (the name uses). The scans need only the schemas in common. On a small tree the
    by-name scans may be under way in a copy since `start`. On a large tree a copy of this
    process, started when the file scans end (`StructuredStart.after_files`), finds the
    vocabularies while this one scans the consumers and the blocks and makes the validators
    of the schemas blocks claim (`Contracts.prepare`, which the rules' processes inherit);
    then both search the Markdown files for names, in batches, each from the moment its own
    work is done (`parallel.share`: which side is longer depends on the tree), and this one
    calls `beside()` while the copy ends."""
    from drift_check.scanners.contracts import build_structured, structured_paths

    kept, skill_dirs, schemas, problems = (
        start.kept,
        start.skill_dirs,
        start.schemas,
        start.problems,
    )
    # the files are chosen from those the component scans read, before the name uses are
    # searched (which read every Markdown file) and a copy's reads are learned
    paths = structured_paths(repo, settings, skill_dirs, schemas, kept)
    if start.early is not None:  # the by-name scans' modules are the copy's to import
        aside = beside()
        # the copy looked at every Markdown file for what it may hold
        ((found, looked),), (references,) = start.early.finish()
        structured = build_structured(repo, settings, skill_dirs, schemas, kept, paths, looked)
        return structured, ByName(found, *references), _contracts(structured), aside, problems
    if len(kept) < LEAST_FILES_FOR_BACKGROUND or not _nameable(settings, schemas, kept):
        aside = beside()
        structured = build_structured(repo, settings, skill_dirs, schemas, kept, paths)
        by_name = _by_name(repo, settings, schemas, kept)
        return structured, by_name, _contracts(structured), aside, problems
    from drift_check.scanners.references import gather_references

    shared = start.shared  # stopped by `start` if anything here fails
    assert shared is not None, "a large tree's copy starts after the file scans"
    structured = build_structured(repo, settings, skill_dirs, schemas, kept, paths)
    validators = _contracts(structured)
    if validators is not None:
        validators.prepare(b.schema for b in structured.blocks if b.value is not None)
    shared.work_here()
    aside = beside()  # while the copy ends, if it is the longer side
    (found,), *by_file = shared.finish()
    references = gather_references(repo, (f for batch in by_file for f in batch))
    return structured, ByName(found, *references), validators, aside, problems


def _by_name(
    repo: Repo, settings: dict[str, Any], schemas: dict[str, SchemaFile], kept: list[str]
) -> ByName:
    """The by-name scans, in this process: none in a tree where nothing can name a skill or
    define a vocabulary (see `_nameable`)."""
    if not _nameable(settings, schemas, kept):
        return ByName((), (), (), {})
    from drift_check.scanners.references import find_references
    from drift_check.scanners.vocabulary import find_vocabularies

    found = find_vocabularies(repo, settings, schemas.values(), kept)
    return ByName(found, *find_references(repo, settings, kept))


def _nameable(settings: dict[str, Any], schemas: dict[str, SchemaFile], kept: list[str]) -> bool:
    """Whether anything of the tree can name a skill or define a vocabulary: its Markdown,
    its schemas, or a vocabulary configured."""
    return bool(schemas or settings["vocabularies"] or any(f.endswith(".md") for f in kept))


# The files a batch of the references' search holds, where a copy of the process shares it
# (`_scan_structured`): the one that ends its own work first takes the next batch.
REFERENCE_BATCH = 32


def _occurrences(
    repo: Repo,
    registry: Registry | None,
    agents: list[Agent],
    consumers: dict[str, Consumer],
    quoted: list[QuotedMarker],
    settings: dict[str, Any],
) -> MarkerOccurrences:
    """Where consumers contain the tree's markers."""
    from drift_check.scanners.occurrences import find_occurrences, searched_texts

    quotes = (q.text for q in quoted)
    shape = re.compile(settings["marker-shape"])
    texts = searched_texts(registry, agents, quotes, shape, settings["marker-max-length"])
    return find_occurrences(consumers, texts, repo)


class ByName(NamedTuple):
    vocabularies: tuple[Vocabulary, ...]
    references: tuple[NameReference, ...]
    citations: tuple[Citation, ...]
    modules: dict[str, PythonModule]


def _name_uses(
    repo: Repo, agents: Iterable[Agent], skills: Iterable[Skill]
) -> Callable[[], dict[str, tuple[Position, ...]]]:
    """Where the names a `name:` fix would replace occur in the files read so far and the
    Markdown files (a README's `/plugin:name` is a use too): the files are chosen now, the
    search is made when the function returned is called (on a large tree, after the
    structured scan, while another process still finds the vocabularies)."""
    from drift_check.scanners.names import name_uses, renamable_names

    names = renamable_names(agents, skills)
    if not names:
        return dict
    paths = sorted({*repo.sources(), *repo.glob(["**/*.md"])})

    def search() -> dict[str, tuple[Position, ...]]:
        read = (repo.read(path) for path in paths)
        return name_uses([s for s in read if s is not None], names)

    return search


def _reference_reads(
    repo: Repo, agents: Iterable[Agent], consumers: set[str], tags: tuple[str, ...]
) -> dict[str, tuple[ReadGate, ...]]:
    """Retired read tags in the documents agents include or Read (those the agent scanner
    followed and read), other than consumers (whose tags are `legacy_reads`)."""
    if not tags:
        return {}
    from drift_check.scanners.consumers import Sections, read_gates

    out: dict[str, tuple[ReadGate, ...]] = {}
    read = repo.sources()
    documents = {i.resolved for a in agents for i in a.includes if i.resolved in read}
    for path in sorted(documents - consumers):
        source = read[path]
        found = [
            g
            for tag in tags
            if tag in source.text
            for g in read_gates(source, Sections(source.text, set()), tag)
        ]
        if found:
            out[path] = tuple(found)
    return out


def _variants(
    repo: Repo, components: Components, problems: list[InputProblem]
) -> tuple[SkillVariant, ...]:
    """Host copies of skills (`SKILL.<host>.md`), with their frontmatter."""
    if not components.skill_variants:
        return ()
    from drift_check.scanners.frontmatter import read_frontmatter

    out = []
    for path, main in components.skill_variants:
        source = repo.read(path)
        if source is None:
            continue
        data, lines, problem = read_frontmatter(
            source, repo.limits.max_yaml_depth, repo.limits.max_yaml_aliases
        )
        if problem is not None:
            problems.append(problem)
        out.append(SkillVariant(path, main, data, lines))
    return tuple(out)


# settings whose patterns name components: one that matches nothing is a mistake
COMPONENT_GLOBS = (
    "agents",
    "skills",
    "commands",
    "memory-files",
    "consumers",
    "python-consumers",
    "dispatch-surfaces",
)


def _unmatched(
    config: Config, repo: Repo, core: str, components: Components, found: bool
) -> list[InputProblem]:
    """What the user's config names that the tree does not have: a component pattern that
    matches no file, or a preset forced on a tree with none of its components. Either would
    otherwise pass having checked nothing."""
    if config.config_file is None:
        return []
    import os

    where = os.path.relpath(config.config_file, config.root).replace(os.sep, "/")
    out = []
    existing = repo.existing()
    keys = {*COMPONENT_GLOBS, *(f"extend-{key}" for key in COMPONENT_GLOBS)}
    for key in sorted(set(config.overrides) & keys):
        for glob in settings_globs(config.overrides, key, core):
            pattern = glob_pattern(glob)
            if not any(pattern.match(f) for f in existing):
                out.append(
                    InputProblem(
                        Position(where, config.key_lines.get(key, 1), 1),
                        "config-unmatched",
                        f"`{key}` pattern `{glob}` matches no file in the tree; fix the"
                        " pattern or remove it",
                    )
                )
    if config.preset_set and not found and components.empty and not config.settings["registry"]:
        out.append(
            InputProblem(
                Position(where, config.key_lines.get("preset", 1), 1),
                "config-unmatched",
                f"preset {config.preset!r} is set, but the tree has none of its components"
                " (agents, skills, commands, manifests); check the path, the preset or the"
                " patterns",
            )
        )
    return out


def _commands(
    repo: Repo, candidates: list[str], scanned: set[str]
) -> FileScan[tuple[dict[str, Command], list[InputProblem]]]:
    """Command files by path; a file already read as an agent or a skill is not a command."""
    paths = [p for p in candidates if p.endswith(".md") and p not in scanned]
    from drift_check.scanners.commands import scan_command
    from drift_check.scanners.markdown import unclosed_fence_problem

    def one(path: str) -> tuple[Command | None, list[InputProblem]]:
        met: list[InputProblem] = []
        command = scan_command(path, repo, met)
        source = repo.read(path) if command is not None else None
        if source is not None and _may_fence(source.text):  # here, by any worker
            fence = unclosed_fence_problem(
                path, scan(source.text, 0), markers=False, text=source.text
            )
            if fence is not None:
                met.append(fence)
        return command, met

    def done(
        results: list[tuple[Command | None, list[InputProblem]]],
    ) -> tuple[dict[str, Command], list[InputProblem]]:
        commands: dict[str, Command] = {}
        problems: list[InputProblem] = []
        for command, met in results:
            problems += met
            if command is not None:
                commands[command.path] = command
        return commands, problems

    return FileScan(paths, one, done)


def _memory_files(
    repo: Repo, paths: tuple[str, ...]
) -> tuple[dict[str, MemoryFile], list[InputProblem]]:
    """The memory files discovery found (`memory-files`) with their links and `@` imports."""
    problems: list[InputProblem] = []
    if not paths:
        return {}, problems
    from drift_check.scanners.memory import scan_memory

    found = {path: scan_memory(path, repo, problems) for path in paths}
    return {path: memory for path, memory in found.items() if memory is not None}, problems


def _unclosed_fences(
    repo: Repo,
    problems: list[InputProblem],
    checked: set[str],
    scanned: dict[str, MarkdownScan],
) -> list[InputProblem]:
    """`problems` with one unclosed-fence problem per file, and one for every other
    Markdown file read so far (workflows, commands, registry, linked documents, with the
    scans already made of some); agents, their includes, skills and memory files are
    `checked` by their own scanners."""
    from drift_check.scanners.markdown import unclosed_fence_problem

    kept, seen = [], set()  # a file two scanners read (a skill an agent includes) once
    for problem in problems:
        if problem.kind == "fence":
            if problem.position.path in seen:
                continue
            seen.add(problem.position.path)
        kept.append(problem)
    for path, source in sorted(repo.sources().items()):
        if path.endswith(".md") and path not in checked and _may_fence(source.text):
            markdown = scanned.get(path) or scan(source.text, 0)
            problem = unclosed_fence_problem(path, markdown, markers=False, text=source.text)
            if problem is not None:
                kept.append(problem)
    return kept


def _may_fence(text: str) -> bool:
    """Whether a text can hold a fence at all (the full line scan is the costly part)."""
    return "```" in text or "~~~" in text


def _core_folder(repo: Repo, found: str | None, candidates: list[str]) -> str:
    """`{core}`: the top folder of the registry file; without one, the first candidate's top
    folder that exists, so its workflows are still checked."""
    if found is not None:
        return found.split("/", 1)[0] if "/" in found else ""
    folders = [c.split("/", 1)[0] for c in candidates if "/" in c]
    files = repo.files()
    return next((f for f in folders if any(p.startswith(f + "/") for p in files)), "")


def _registry_asked_at(config: Config) -> Position:
    """Where the user asks for a registry that is not there: the config's `registry` line,
    else its `preset` line (the pack names the files); nowhere when neither does (the
    preset came from the command line). Never the missing file itself."""
    for key in ("registry", "extend-registry"):
        found = _config_key(config, key)
        if found is not None:
            return found
    if config.preset_set and config.config_file is not None:
        import os

        where = os.path.relpath(config.config_file, config.root).replace(os.sep, "/")
        return Position(where, config.key_lines.get("preset", 1), 1)
    return NOWHERE


def _config_key(config: Config, key: str) -> Position | None:
    """Where the user's config sets `key`, if it does."""
    if config.config_file is None or key not in config.overrides:
        return None
    import os

    where = os.path.relpath(config.config_file, config.root).replace(os.sep, "/")
    return Position(where, config.key_lines.get(key, 1), 1)


def _restated(
    repo: Repo, settings: dict[str, Any], matrix_key: Position | None
) -> tuple[
    tuple[SkillMatrix | None, tuple[UnassignedList, ...], SkillTree | None], list[InputProblem]
]:
    """The skill matrix, the "not in any agent frontmatter" lists and the skills tree, from
    the files the pack names. A matrix that is configured but not there is a problem; where
    the file itself is missing, only when the user's config names it (at `matrix_key`): a
    pack's default file may simply not be in this tree."""
    matrix = None
    spec = settings["skill-matrix"]
    phrases = settings["unassigned-phrases"]
    tree_file = settings["skill-tree-file"]
    if not (spec or phrases or tree_file):
        return (None, (), None), []
    from drift_check.scanners.restated import (
        find_matrix,
        find_tree,
        find_unassigned,
        matrix_not_found,
    )

    problems: list[InputProblem] = []
    unassigned: list[UnassignedList] = []
    matrix_file = spec["file"] if spec else None
    if matrix_file is not None and repo.exists(matrix_file):
        source = repo.read(matrix_file)
        if source is not None:
            matrix = find_matrix(source, spec)
            if matrix is None:
                problems.append(matrix_not_found(source, spec))
    elif matrix_file is not None and matrix_key is not None:
        problems.append(
            InputProblem(
                matrix_key,
                "matrix-missing",
                f"`skill-matrix` names {matrix_file}, which does not exist; fix"
                " `skill-matrix.file`, or remove the setting",
            )
        )
    tree = None
    for path in sorted(f for f in {matrix_file, tree_file} if f and repo.exists(f)):
        source = repo.read(path)
        if source is None:
            continue
        if phrases:
            unassigned.extend(find_unassigned(source, phrases))
        if path == tree_file:
            roots = {g.split("/", 1)[0] for g in settings["skills"] if "/" in g}
            for root in sorted(roots):
                tree = tree or find_tree(source, root)
    return (matrix, tuple(unassigned), tree), problems


def _mentions(repo: Repo, skills: Iterable[Skill]) -> dict[str, frozenset[str]]:
    """For each skill name, Markdown files whose text names it (a whole word), as far as
    DC901 asks: whether a file outside the skill's folder does. A name is looked for until
    one such file is found for each folder of a skill of that name (a catalogue that names
    every skill early in the walk spares the other files the search); every file is still
    read, so that a file no other scan reads reports its problems as before."""
    outside: dict[bytes, list[str]] = {}  # a name -> its skills' folders no file has passed
    for skill in skills:
        if skill.name.isascii():  # words are ASCII
            outside.setdefault(skill.name.encode(), []).append(skill.directory + "/")
    wanted = set(outside)  # a set, so that an intersection walks the smaller side
    found: dict[str, set[str]] = {}
    for path in repo.glob(["**/*.md"]):
        source = repo.read(path)
        if source is None or not wanted:
            continue
        for word in words(source.text).intersection(wanted):
            found.setdefault(word.decode(), set()).add(path)
            folders = [f for f in outside[word] if path.startswith(f)]
            if folders:
                outside[word] = folders
            else:
                wanted.discard(word)  # a file outside each of its folders names it
    return {name: frozenset(paths) for name, paths in found.items()}


# `bytes.translate` table: the bytes a word holds (ASCII letters, digits, `_`, `-`) kept,
# every other byte a blank (a character beyond ASCII is bytes of 0x80 and up in UTF-8).
_WORD_BYTES = bytes(
    b if chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_-") else 32 for b in range(256)
)


def words(text: str) -> set[bytes]:
    """The words of `text` as `[A-Za-z0-9][A-Za-z0-9_-]*` finds them, ASCII-encoded: each
    run of word characters from its first letter or digit. A translation and a split in C
    (a few instructions a character) instead of the pattern (tens)."""
    runs = set(text.encode("utf-8", "surrogatepass").translate(_WORD_BYTES).split())
    odd = [run for run in runs if run[0] in b"_-"]  # the word starts after them
    if odd:
        runs.difference_update(odd)
        runs.update(run.lstrip(b"_-") for run in odd)
        runs.discard(b"")
    return runs


def _folders(paths: Iterable[str]) -> frozenset[str]:
    """Every folder that holds one of `paths`, at any depth."""
    out: set[str] = set()
    for path in paths:
        i = path.rfind("/")
        while i > 0 and path[:i] not in out:
            out.add(path[:i])
            i = path.rfind("/", 0, i)
    return frozenset(out)


def _directives(repo: Repo) -> dict[str, tuple[Directive, ...]]:
    """Suppression comments of every file read (only files that name drift-check)."""
    named = {p: s for p, s in repo.sources().items() if p in repo.naming_tool}
    if not named:
        return {}
    from drift_check.scanners.directives import find_directives

    out = {}
    for path, source in named.items():
        found = find_directives(source)
        if found:
            out[path] = tuple(found)
    return out

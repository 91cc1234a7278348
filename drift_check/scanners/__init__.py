"""Scanners: read the repository once and build the immutable `Facts`."""

from __future__ import annotations

from drift_check.config import Config
from drift_check.facts import Agent, Facts, InputProblem, Position, ReadGate
from drift_check.scanners.agents import HeadingCache, scan_agent
from drift_check.scanners.consumers import scan_consumers, settings_globs
from drift_check.scanners.files import DEFAULT_MAX_BYTES, Repo, matches
from drift_check.scanners.registry import parse_registry


def build_facts(config: Config) -> Facts:
    settings = config.settings
    repo = Repo(config.root, settings.get("max-file-bytes", DEFAULT_MAX_BYTES))
    problems: list[InputProblem] = []
    registry_path = next((p for p in settings["registry"] if repo.exists(p)), None)
    registry = None
    core = _core_folder(repo, registry_path, settings["registry"])
    if registry_path is None:
        problems.append(
            InputProblem(
                Position(settings["registry"][0], 1, 1),
                "registry-missing",
                "contracts registry file not found (looked for "
                + ", ".join(settings["registry"])
                + "); create it or set `registry` in the config",
            )
        )
    else:
        source = repo.read(registry_path)
        if source is not None:
            registry, registry_problems = parse_registry(source, settings["registry-heading"])
            problems.extend(registry_problems)

    def globs(key: str) -> list[str]:
        return settings_globs(settings, key, core)

    agent_paths = [p for p in repo.glob(globs("agents")) if not matches(p, globs("agents-exclude"))]
    agents: dict[str, Agent] = {}
    agent_settings = {**settings, "include-follow": globs("include-follow")}
    cache = HeadingCache()
    for path in agent_paths:
        agent = scan_agent(path, repo, agent_settings, problems, cache)
        if agent is not None:
            agents[agent.name] = agent

    markdown = set(repo.glob(globs("consumers")))
    python = {p for p in repo.glob(globs("python-consumers")) if p.endswith(".py")}
    if registry is not None:
        for row in registry.rows:
            for cited in row.consumed_by:
                if repo.exists(cited.path):
                    (python if cited.path.endswith(".py") else markdown).add(cited.path)
    dispatch = set(repo.glob(globs("dispatch-surfaces")))
    consumers, quoted, gates = scan_consumers(
        repo,
        sorted(markdown),
        sorted(python),
        dispatch,
        set(agents),
        settings.get("read-gate-tag", ""),
        problems,
    )
    gates_by_path: dict[str, list[ReadGate]] = {}
    for gate in gates:
        gates_by_path.setdefault(gate.position.path, []).append(gate)
    problems.extend(repo.problems)
    return Facts(
        root=config.root,
        preset=config.preset,
        registry=registry,
        agents=agents,
        consumers=consumers,
        quoted_markers=tuple(quoted),
        problems=tuple(problems),
        settings={**settings, "core": core, "registry-path": registry_path},
        existing_paths=frozenset(repo.files()),
        agent_names=frozenset(p.rsplit("/", 1)[-1][: -len(".md")] for p in agent_paths),
        read_gates={path: tuple(g) for path, g in gates_by_path.items()},
    )


def _core_folder(repo: Repo, found: str | None, candidates: list[str]) -> str:
    """`{core}`: the top folder of the registry file; without one, the first candidate's top
    folder that exists, so its workflows are still checked."""
    if found is not None:
        return found.split("/", 1)[0] if "/" in found else ""
    folders = [c.split("/", 1)[0] for c in candidates if "/" in c]
    files = repo.files()
    return next((f for f in folders if any(p.startswith(f + "/") for p in files)), "")

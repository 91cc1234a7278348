"""Agent files: frontmatter, fenced headings (emissions) and `@`-includes."""

from __future__ import annotations

import re
from typing import Any

from drift_check.facts import Agent, Emission, Include, InputProblem, Position, Source
from drift_check.scanners.files import Repo, matches
from drift_check.scanners.markdown import scan
from drift_check.yaml_loader import YamlError, safe_load

_INCLUDE = re.compile(r"(?<![\w@/])@([~$\w.][^\s`'\"()<>\[\]{}|,;]*?\.md)(?![\w.-]*\w)")
_FRONTMATTER_KEY = re.compile(r"^([A-Za-z0-9_-]+)[ \t]*:", re.M)


def read_frontmatter(
    source: Source,
) -> tuple[dict[str, Any] | None, dict[str, int], InputProblem | None]:
    """The YAML mapping between the leading `---` lines, the line of each top-level key,
    and a problem if it is not valid YAML (at the exact line and column of the error)."""
    text = source.text
    if not text.startswith("---\n"):
        return None, {}, None
    end = text.find("\n---", 3)
    while end >= 0 and text[end + 4 : end + 5] not in ("", "\n", " ", "\t"):
        end = text.find("\n---", end + 4)
    if end < 0:
        return None, {}, InputProblem(
            Position(source.path, 1, 1),
            "frontmatter",
            "frontmatter opened with `---` is never closed; add the closing `---` line",
        )
    body = text[4 : end + 1]
    key_lines = {m.group(1): body.count("\n", 0, m.start()) + 2 for m in _FRONTMATTER_KEY.finditer(body)}
    try:
        data = safe_load(body)
    except YamlError as exc:
        return None, key_lines, InputProblem(
            Position(source.path, exc.line + 1, exc.column),
            "frontmatter",
            f"frontmatter is not valid YAML: {exc.message}; quote values that contain `: `",
        )
    if data is None:
        return {}, key_lines, None
    if not isinstance(data, dict):
        return None, key_lines, InputProblem(
            Position(source.path, 2, 1),
            "frontmatter",
            "frontmatter must be a YAML mapping of keys to values",
        )
    return data, key_lines, None


def tools_of(frontmatter: dict[str, Any] | None) -> tuple[str, ...] | None:
    """`tools:` as a comma string or a list; None when absent (all tools granted)."""
    if not frontmatter or "tools" not in frontmatter:
        return None
    value = frontmatter["tools"]
    if isinstance(value, str):
        return tuple(t.strip() for t in value.split(",") if t.strip())
    if isinstance(value, list):
        return tuple(str(t).strip() for t in value if str(t).strip())
    return ()


def find_includes(source: Source, repo: Repo, prefixes: list[str]) -> list[Include]:
    out: list[Include] = []
    for m in _INCLUDE.finditer(source.text):
        token = m.group(1)
        target = token
        for prefix in prefixes:
            if target.startswith(prefix):
                target = target[len(prefix) :]
                break
        resolved = repo.resolve(target)
        if resolved is not None and not repo.exists(resolved):
            resolved = None
        out.append(Include(token, source.position(m.start()), resolved))
    return out


def scan_agent(
    path: str,
    repo: Repo,
    settings: dict[str, Any],
    problems: list[InputProblem],
) -> Agent | None:
    source = repo.read(path)
    if source is None:
        return None
    name = path.rsplit("/", 1)[-1][: -len(".md")]
    frontmatter, key_lines, problem = read_frontmatter(source)
    if problem is not None:
        problems.append(problem)
    emissions = _emissions(name, source, None, problems)
    texts = [source.text]
    includes = find_includes(source, repo, settings["include-prefixes"])
    followed: set[str] = set()
    follow = settings["include-follow"]
    for inc in includes:
        target = inc.resolved
        if target is None:
            stripped = inc.token
            for prefix in settings["include-prefixes"]:
                if stripped.startswith(prefix):
                    stripped = stripped[len(prefix) :]
                    break
            if matches(stripped, follow):
                problems.append(
                    InputProblem(
                        inc.position,
                        "include",
                        f"`@{inc.token}` does not resolve to a file in the repository;"
                        " fix the path or remove the include",
                    )
                )
            continue
        if target in followed or target == path or not matches(target, follow):
            continue
        followed.add(target)
        included = repo.read(target)
        if included is None:
            continue
        texts.append(included.text)
        emissions.extend(_emissions(name, included, inc.token, problems))
    return Agent(
        name=name,
        path=path,
        frontmatter=frontmatter,
        frontmatter_lines=key_lines,
        tools=tools_of(frontmatter),
        emissions=tuple(emissions),
        includes=tuple(includes),
        texts=tuple(texts),
    )


def _emissions(
    agent: str, source: Source, via: str | None, problems: list[InputProblem]
) -> list[Emission]:
    md = scan(source.text)
    open_fence = md.unclosed
    if open_fence is not None and via is None:
        problems.append(
            InputProblem(
                Position(source.path, open_fence.open_line, 1),
                "fence",
                f"code fence opened here is never closed; headings after line"
                f" {open_fence.open_line} cannot be told apart from emitted markers."
                f" Close it with {open_fence.char * open_fence.length}",
            )
        )
    return [
        Emission(agent, h.text, Position(source.path, h.line, h.column), via)
        for h in md.headings
        if h.in_fence
    ]

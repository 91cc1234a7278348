"""Skills (`skills/<name>/SKILL.md`) and the names agents' frontmatter gives to skills and tools."""

from __future__ import annotations

from typing import Any

from drift_check.facts import Mention, Named, Skill, Source
from drift_check.scanners.files import Repo
from drift_check.scanners.frontmatter import frontmatter_names, read_frontmatter
from drift_check.scanners.links import find_links, find_mentions, fold, unfold
from drift_check.scanners.markdown import scan, unclosed_fence_problem
from drift_check.scanners.patterns import lazy


def count_lines(text: str, rule: str) -> int:
    """Lines of a SKILL.md: `all` of them, the `body` after the frontmatter, or the
    `non-blank` lines of the body."""
    if rule == "all":  # the final newline ends the last line; it does not start another
        return text.count("\n") + 1 - (not text or text.endswith("\n"))
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    body = lines
    if lines and lines[0] == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
        if end is not None:
            body = lines[end + 1 :]
    if rule == "non-blank":
        return sum(1 for line in body if line.strip())
    return len(body)


def scan_skill(
    path: str,
    repo: Repo,
    settings: dict[str, Any],
    problems: list[Any],
    others: SkillFiles | None = None,
) -> Skill | None:
    """A SKILL.md's facts. `others`: the files of the tree's skill folders, for paths a line
    gives another skill (`See axiom-design (skills/hig.md)`)."""
    source = repo.read(path)
    if source is None:
        return None
    directory = path.rsplit("/", 1)[0]
    frontmatter, key_lines, problem = read_frontmatter(
        source, repo.limits.max_yaml_depth, repo.limits.max_yaml_aliases
    )
    if problem is not None:
        problems.append(problem)
    text = source.text
    markdown = scan(text, 0)  # the fences: a skill's headings are not facts
    fence = unclosed_fence_problem(path, markdown, markers=False, text=text)
    if fence is not None:
        problems.append(fence)
    siblings = settings["sibling-docs"]
    mentions = find_mentions(source, True, key_lines.get("license", 0), markdown)
    if others and "/" in path:
        mentions = _not_elsewhere(mentions, source, directory, others, repo)
    return Skill(
        name=directory.rsplit("/", 1)[-1],
        path=path,
        directory=directory,
        has_frontmatter=text.startswith("---\n"),
        frontmatter=frontmatter,
        frontmatter_lines=key_lines,
        line_count=count_lines(text, settings["skill-line-count"]),
        token_estimate=-(-len(text) // max(1, settings["chars-per-token"])),
        links=tuple(find_links(source, siblings, markdown)),
        path_mentions=tuple(mentions),
        allowed_tools=tool_list(source, frontmatter, key_lines, "allowed-tools"),
        disallowed_tools=tool_list(source, frontmatter, key_lines, "disallowed-tools"),
    )


_WORD = lazy(r"[\w-]+")


class SkillFiles:
    """The files of the tree's skill folders by their paths there (`skills/hig.md`), each
    with the folders that hold it: where a path one skill names may be another's. Listed on
    the first question (most trees never ask: their skills' paths are their own)."""

    def __init__(self, repo: Repo, skill_paths: list[str]) -> None:
        self.repo = repo
        self.folders = {p.rpartition("/")[0] for p in skill_paths if "/" in p}
        self._by_path: dict[str, list[str]] | None = None

    def holding(self, path: str) -> list[str]:
        if self._by_path is None:
            self._by_path = {}
            for file in self.repo.files() if len(self.folders) > 1 else ():
                folder = file.rpartition("/")[0]
                while folder and folder not in self.folders:
                    folder = folder.rpartition("/")[0]
                if folder:
                    self._by_path.setdefault(file[len(folder) + 1 :], []).append(folder)
        return self._by_path.get(path, [])


_SLOT = lazy(r"\{\{[^{}]*\}\}|<[^<>]+>|\$\{[^{}]+\}")


def is_template(skill: Skill) -> bool:
    """A SKILL.md whose `name` is a slot to fill (`{{ NAME }}`, `<skill-name>`, `${NAME}`):
    a template a tool copies into new skills, not a skill; its slots are not errors."""
    name = (skill.frontmatter or {}).get("name")
    return isinstance(name, str) and _SLOT.fullmatch(name.strip()) is not None


def _not_elsewhere(
    mentions: list[Mention],
    source: Source,
    directory: str,
    others: SkillFiles,
    repo: Repo,
) -> list[Mention]:
    """The mentions but those of another skill's files: a path its skill's folder lacks, on
    a line naming another skill of the tree whose folder has it, or right after such a line
    (a sentence wrapped there), as a catalogue's skills point to each other: `HIG
    compliance: see axiom-design (skills/hig.md)`, `plugin:other-skill ->` then
    `references/x.md` on the next line."""
    holders: dict[str, set[str]] = {}  # an absent path -> the names of skills that have it
    for path in {m.path for m in mentions if m.kind == "text"}:
        if not repo.exists(f"{directory}/{path}"):
            names = {f.rpartition("/")[2] for f in others.holding(path) if f != directory}
            if names:
                holders[path] = names
    if not holders:
        return mentions
    kept = []
    for mention in unfold(mentions):  # each line judged
        names = holders.get(mention.path)
        line = mention.position.line
        if names and any(
            not names.isdisjoint(_WORD.findall(source.line_text(n)))
            for n in (line, line - 1)
            if n >= 1
        ):
            continue
        kept.append(mention)
    return fold(kept)


def tool_list(
    source: Source, frontmatter: dict[str, Any] | None, key_lines: dict[str, int], key: str
) -> tuple[Named, ...]:
    """A skill's or command's `allowed-tools` or `disallowed-tools`: a YAML list, or a string
    separated by commas or blanks."""
    return frontmatter_names(source, frontmatter, key_lines, key, spaces=True) or ()

"""DC7xx: links, imports and mentions of files from skills, agents and memory files resolve
inside the repository."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from drift_check.facts import Facts, Link, Mention, Position
from drift_check.rules.base import Hit, rule


def _links(facts: Facts) -> Iterator[tuple[Link, str]]:
    """Every link with the path of the file it sits in: skills, agents, then memory files."""
    for path in sorted(facts.skills):
        for link in facts.skills[path].links:
            yield link, path
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        for link in agent.links:
            yield link, agent.path
    for path in sorted(facts.memory_files):
        for link in facts.memory_files[path].links:
            yield link, path


def _exists(facts: Facts, path: str) -> bool:
    return path in facts.existing_paths or path in facts.existing_dirs


class _Cases:
    """The tree's files and folders by their lower-case path, gathered on the first
    question (most runs ask none): one per check."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts
        self.folded: dict[str, str] | None = None

    def other(self, path: str) -> str | None:
        """The file or folder whose path differs from `path` only by case, if there is one."""
        if self.folded is None:
            self.folded = {}
            for known in sorted(self.facts.existing_paths | self.facts.existing_dirs):
                self.folded.setdefault(known.lower(), known)
        found = self.folded.get(path.lower())
        return found if found != path else None


_CASE_ONLY = "the names differ only by case, which works on macOS and Windows but not on Linux"


def _is_mention(link: Link, facts: Facts) -> bool:
    return link.target in facts.settings["sibling-docs"] and link.anchor is None


@rule(
    "DC701",
    "broken-link",
    failing="""
        skills/deploy/SKILL.md:   See [the checklist](checklist.md).
        (there is no skills/deploy/checklist.md)
    """,
    passing="""
        skills/deploy/SKILL.md:   See [the checklist](reference.md#checklist).
    """,
)
def broken_link(facts: Facts) -> Iterator[Hit]:
    """A relative Markdown link in a SKILL.md, agent or memory file points at no file or
    folder.

    Agents follow these links to load detail on demand; a broken one leaves them without it.
    Fix the path (it is relative to the file the link is in). A path that differs from a
    real file only by case is reported as such: it resolves on macOS and Windows, not on
    Linux. Targets a template asks the reader to fill in (`[link](<url>)`,
    `[thumbnail](thumbnail_url)`, `path/to/file.md`, `YYYY-MM-DD`) are not links.
    Memory files are the pack's `memory-files` (`CLAUDE.md`, `AGENTS.md`, ...).
    """
    cases = _Cases(facts)
    for link, path in _links(facts):
        if _is_mention(link, facts) or link.resolved is None or link.resolved == path:
            continue
        if link.resolved in facts.existing_paths or _is_dir(facts, link.resolved):
            continue
        cased = cases.other(link.resolved.rstrip("/"))
        if cased is not None:
            yield Hit(
                link.position,
                f"link to `{link.target}` resolves to `{link.resolved}`, but the file is"
                f" `{cased}`: {_CASE_ONLY}; match the case",
            )
            continue
        yield Hit(
            link.position,
            f"link to `{link.target}` resolves to `{link.resolved}`, which does not exist;"
            " fix the path",
        )


def _is_dir(facts: Facts, path: str) -> bool:
    return path.rstrip("/") in facts.existing_dirs


@rule(
    "DC702",
    "broken-anchor",
    failing="""
        skills/deploy/SKILL.md:   [rollback](reference.md#roll-back)
        (reference.md has the heading ## Rollback)
    """,
    passing="""
        skills/deploy/SKILL.md:   [rollback](reference.md#rollback)
    """,
)
def broken_anchor(facts: Facts) -> Iterator[Hit]:
    """A link's `#anchor` names no heading of the Markdown file it points at.

    Anchors are GitHub's heading slugs: lowercase, punctuation dropped, spaces as hyphens. A
    renamed heading breaks every anchor to it. Fix the anchor. A heading inside a fenced
    block has no anchor: the message says so. When the heading is swallowed by a fence that
    is never closed, the finding points at that fence (once, however many links break), as
    closing it is the fix. An anchor that differs from a heading's only in its hyphens is
    told the one to use: a heading that starts with an emoji (`## 🚀 Deploy`) has the anchor
    `#-deploy`, as the emoji goes and its blank stays.
    """
    swallowed: dict[Position, list[tuple[Link, str, str]]] = {}
    for link, path in _links(facts):
        target = link.resolved
        if link.anchor is None or target is None or target not in facts.anchors:
            continue
        anchor = link.anchor.lower()
        if anchor in facts.anchors[target]:
            continue
        fenced = facts.fenced_headings.get(target, {}).get(anchor)
        where = f" (in {path})" if target != path else ""
        if fenced is not None and not fenced.fence_closed:
            swallowed.setdefault(fenced.fence, []).append((link, path, fenced.text))
        elif fenced is not None:
            yield Hit(
                link.position,
                f"`#{link.anchor}` names the heading `{fenced.text}` of `{target}`, but it sits"
                f" in the fenced block opened at line {fenced.fence.line}, which gives it no"
                f" anchor; link to a heading outside the block{where}",
            )
        else:
            meant = _hyphens_apart(anchor, facts.anchors[target])
            if meant is not None:
                yield Hit(
                    link.position,
                    f"`#{link.anchor}` is not an anchor of `{target}`: the heading it means has"
                    f" the anchor `#{meant}` (an emoji or symbol dropped from a heading leaves"
                    f" its blank, which becomes a hyphen); use `#{meant}`{where}",
                )
                continue
            yield Hit(
                link.position,
                f"`#{link.anchor}` is not a heading of `{target}`; fix the anchor{where}",
            )
    for fence, broken in sorted(swallowed.items()):
        link, path, heading = broken[0]
        more = f" (and {len(broken) - 1} more)" if len(broken) > 1 else ""
        yield Hit(
            fence,
            f"the code fence opened here is never closed, so it swallows the heading `{heading}`"
            f" that `#{link.anchor}` in {link.position} links to{more}; close the fence",
        )


def _hyphens_apart(anchor: str, anchors: frozenset[str]) -> str | None:
    """The one anchor that differs from `anchor` only in its hyphens (`-deploy` for
    `deploy`, from `## 🚀 Deploy`; `a--b` for `a-b`), if there is exactly one."""
    bare = "-".join(part for part in anchor.split("-") if part)
    found = [a for a in anchors if "-".join(part for part in a.split("-") if part) == bare]
    return found[0] if len(found) == 1 and bare else None


@rule(
    "DC703",
    "missing-sibling-document",
    failing="""
        skills/deploy/SKILL.md:   For every flag, see reference.md.
        (there is no skills/deploy/reference.md)
    """,
    passing="""
        skills/deploy/reference.md exists
    """,
)
def missing_sibling_document(facts: Facts) -> Iterator[Hit]:
    """A SKILL.md or agent mentions a sibling document (`reference.md`, `examples.md`) that is
    not in its folder.

    Skills keep detail in these documents and tell the agent to read them on demand; the
    agent finds nothing. Write the document, or drop the mention. The names are the pack's
    `sibling-docs`.
    """
    for link, _path in _links(facts):
        if not _is_mention(link, facts) or link.resolved is None:
            continue
        if link.resolved not in facts.existing_paths:
            yield Hit(
                link.position,
                f"mentions `{link.target}`, but `{link.resolved}` does not exist; write it or"
                " drop the mention",
            )


@rule(
    "DC704",
    "unresolved-memory-import",
    failing="""
        CLAUDE.md:   @docs/style-guide.md
        (there is no docs/style-guide.md)
    """,
    passing="""
        CLAUDE.md:   @docs/style.md        (docs/style.md exists)
                     @~/.claude/my-prefs.md  (outside the repository: not checked)
    """,
)
def unresolved_memory_import(facts: Facts) -> Iterator[Hit]:
    """An `@path` import in a memory file (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`,
    `.claude/rules/*.md`, ...) names no file.

    Claude Code and Gemini CLI replace `@path` with the file's text when they load the memory
    file, relative to the file that imports it; a missing file is skipped without a word, so
    the instructions it held are silently gone. Fix the path or remove the import. Imports
    in code spans and fenced blocks are text, as for the hosts; `~/...` and absolute imports
    are outside the repository and not checked. A word after `@` is read as an import when it
    starts with `./` or `../` or ends in a file extension (so `@username` and `@types/node`
    are not). Memory files are the pack's `memory-files`.
    """
    cases = _Cases(facts)
    for path in sorted(facts.memory_files):
        for imported in facts.memory_files[path].imports:
            target = imported.resolved
            if target is None or _exists(facts, target):
                continue
            cased = cases.other(target)
            if cased is not None:
                yield Hit(
                    imported.position,
                    f"`@{imported.token}` imports `{target}`, but the file is `{cased}`:"
                    f" {_CASE_ONLY}; match the case",
                )
                continue
            yield Hit(
                imported.position,
                f"`@{imported.token}` imports `{target}`, which does not exist (the import is"
                " skipped silently); fix the path or remove the import",
            )


def _join(base: str, path: str) -> str | None:
    """`path` under the folder `base`; None when it climbs out of the repository."""
    joined = posixpath.normpath(posixpath.join(base, path)) if base else posixpath.normpath(path)
    return None if joined == ".." or joined.startswith("../") else joined


def _plugin_root(path: str, facts: Facts) -> str | None:
    """The nearest folder above `path` that holds `.claude-plugin/plugin.json`."""
    parts = path.split("/")[:-1]
    for i in range(len(parts), -1, -1):
        base = "/".join(parts[:i])
        if _join(base, ".claude-plugin/plugin.json") in facts.existing_paths:
            return base
    return None


def _agent_root(path: str, facts: Facts) -> str | None:
    """Where an agent's paths start: its plugin root, else the folder holding its `agents/`
    folder (`.claude/`), unless that is the tree root: an agent of the repository itself
    names the user's files as readily as its own, and they cannot be told apart."""
    root = _plugin_root(path, facts)
    if root is not None:
        return root
    parts = path.split("/")[:-1]
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] == "agents":
            return "/".join(parts[:i])
    return None


def _bundles(facts: Facts) -> Iterator[tuple[Mention, str, str, str | None]]:
    """Each mention with the folder plain paths start from, what that folder is called, and
    the plugin root (for `${CLAUDE_PLUGIN_ROOT}`)."""
    for path in sorted(facts.skills):
        skill = facts.skills[path]
        if not skill.path_mentions:
            continue
        plugin = _plugin_root(path, facts)
        for mention in skill.path_mentions:
            yield mention, skill.directory, "the skill's folder", plugin
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        if not agent.path_mentions:
            continue
        plugin = _plugin_root(agent.path, facts)
        base = _agent_root(agent.path, facts)
        if base is None:
            continue
        where = "the plugin's folder" if plugin is not None else f"`{base}/`"
        for mention in agent.path_mentions:
            yield mention, base, where, plugin


_VARIABLES = {"skill-dir": "${CLAUDE_SKILL_DIR}", "plugin-root": "${CLAUDE_PLUGIN_ROOT}"}


@rule(
    "DC706",
    "missing-bundled-file",
    failing="""
        skills/pdf/SKILL.md:   Fill the form with `scripts/fill_form.py`; see FORMS.md.
        (skills/pdf/scripts/ holds only extract.py, and the guide is skills/pdf/forms.md)
    """,
    passing="""
        skills/pdf/SKILL.md:   Fill the form with `scripts/extract.py`; see forms.md.
                               Write the result to `scripts/out.json`.   (to be created)
    """,
)
def missing_bundled_file(facts: Facts) -> Iterator[Hit]:
    """A SKILL.md or agent names a file of its own bundle that is not there.

    A skill ships its scripts, references and assets beside its SKILL.md, and tells the
    agent to run or read them (``Run `scripts/check.sh` ``, `${CLAUDE_SKILL_DIR}/run.sh`,
    `license: Complete terms in LICENSE.txt`); a plugin's agents name files from the plugin's
    folder (`${CLAUDE_PLUGIN_ROOT}/hooks/x.sh`). When the file is missing, or named with the
    wrong case (`FORMS.md` for `forms.md`: found on macOS, missing on Linux), the agent fails
    at run time. Add the file or fix the path.

    Paths after `${CLAUDE_SKILL_DIR}/` and `${CLAUDE_PLUGIN_ROOT}/` are checked wherever they
    are written, except in a fenced Markdown document shown as an example. A path written in
    plain text (code, bold or prose) could as well name a file of the user's project, so it
    is checked only where it must mean the bundle: its first folder is a folder of the skill
    (or, for an agent, of the plugin), a file name the text places "in this directory", or a
    file whose name differs only by case from one beside it. Templated paths (`{lang}/x`,
    `<name>.md`, `$VAR/x`, globs), paths the line says are created or written (or will be,
    or would be), a path an `Example:` label introduces (a guide to writing skills shows what
    a file could be), `./` and `~` paths, URLs and paths in fenced blocks are not checked.
    """
    first: dict[tuple[str, str], Hit] = {}  # one finding per file and missing path
    count: dict[tuple[str, str], int] = {}
    # a file often names one path many times: each is judged once per file
    judged: dict[tuple[object, ...], tuple[str, Hit] | None] = {}
    cases = _Cases(facts)
    for mention, base, where, plugin in _bundles(facts):
        file = mention.position.path
        same = (file, mention.path, mention.kind, mention.bare, mention.here, base, plugin)
        if same in judged:
            verdict = judged[same]
            if verdict is not None:
                count[file, verdict[0]] += 1  # the first of them made the finding
            continue
        found: tuple[str, Hit] | None = None
        if mention.kind in _VARIABLES:
            root = base if mention.kind == "skill-dir" else plugin
            if root is not None:
                found = _check_strict(facts, cases, mention, root, f"{_VARIABLES[mention.kind]}/")
        elif mention.kind == "license":
            roots = (base, plugin, "")
            if not any(
                _exists(facts, _join(r, mention.path) or "") for r in roots if r is not None
            ):
                found = _check_strict(facts, cases, mention, base, "")
        else:
            found = _check_text(facts, cases, mention, base, where, plugin)
        judged[same] = found
        if found is not None:
            key = (mention.position.path, found[0])
            first.setdefault(key, found[1])
            count[key] = count.get(key, 0) + 1
    for key, hit in first.items():
        times = f" (named {count[key]} times in this file)" if count[key] > 1 else ""
        yield hit._replace(message=hit.message + times)


def _check_strict(
    facts: Facts, cases: _Cases, mention: Mention, base: str, prefix: str
) -> tuple[str, Hit] | None:
    """The missing path and its finding, for a path that must be in `base`."""
    target = _join(base, mention.path)
    if target is None or _exists(facts, target):
        return None
    written = f"`{prefix}{mention.path}`"
    cased = cases.other(target)
    if cased is not None:
        message = (
            f"{written} names `{target}`, but the file is `{cased}`: {_CASE_ONLY}; match the case"
        )
    elif mention.kind == "license":
        message = (
            f"`license:` names `{mention.path}`, which is not beside the SKILL.md; add the"
            " license file or fix the value"
        )
    else:
        message = (
            f"{written} resolves to `{target}`, which does not exist; add the file or fix the path"
        )
    return target, Hit(mention.position, message)


def _check_text(
    facts: Facts, cases: _Cases, mention: Mention, base: str, where: str, plugin: str | None
) -> tuple[str, Hit] | None:
    """The missing path and its finding, for a path written in plain text: only where the
    text must mean the bundle (see `missing_bundled_file`)."""
    target = _join(base, mention.path)
    if target is None or _exists(facts, target):
        return None
    folder = mention.position.path.rsplit("/", 1)[0] if "/" in mention.position.path else ""
    for other in (folder, plugin, ""):
        found = _join(other, mention.path) if other is not None else None
        if found is not None and _exists(facts, found):
            return None
    cased = cases.other(target)
    if cased is not None:
        message = (
            f"`{mention.path}` names `{target}`, but the file is `{cased}`: {_CASE_ONLY};"
            " match the case"
        )
        return target, Hit(mention.position, message)
    if mention.bare:
        if not mention.here:
            return None
    elif _join(base, mention.path.split("/", 1)[0]) not in facts.existing_dirs:
        return None  # no folder of the bundle starts it: a path of the user's project, perhaps
    # a plugin at the repository's root: the path is its own target
    at = f"`{target}` does not exist" if target != mention.path else "here, the repository's root"
    message = f"`{mention.path}` is not in {where} ({at}); add the file or fix the path"
    return target, Hit(mention.position, message)


RULES = (
    broken_link,
    broken_anchor,
    missing_sibling_document,
    unresolved_memory_import,
    missing_bundled_file,
)

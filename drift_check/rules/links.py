"""DC7xx: links and document mentions from skills and agents resolve inside the repository."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Facts, Link
from drift_check.rules.base import Hit, rule


def _links(facts: Facts) -> Iterator[tuple[Link, str]]:
    """Every link with the path of the file it sits in, skills first, sorted."""
    for path in sorted(facts.skills):
        for link in facts.skills[path].links:
            yield link, path
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        for link in agent.links:
            yield link, agent.path


def _is_mention(link: Link, facts: Facts) -> bool:
    return link.target in facts.settings.get("sibling-docs", []) and link.anchor is None


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
    """A relative Markdown link in a SKILL.md or agent points at no file or folder.

    Agents follow these links to load detail on demand; a broken one leaves them without it.
    Fix the path (it is relative to the file the link is in).
    """
    for link, path in _links(facts):
        if _is_mention(link, facts) or link.resolved is None or link.resolved == path:
            continue
        if link.resolved in facts.existing_paths or _is_dir(facts, link.resolved):
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
    renamed heading breaks every anchor to it. Fix the anchor.
    """
    for link, path in _links(facts):
        target = link.resolved
        if link.anchor is None or target is None or target not in facts.anchors:
            continue
        if link.anchor.lower() not in facts.anchors[target]:
            yield Hit(
                link.position,
                f"`#{link.anchor}` is not a heading of `{target}`; fix the anchor"
                + (f" (in {path})" if target != path else ""),
            )


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


RULES = (broken_link, broken_anchor, missing_sibling_document)

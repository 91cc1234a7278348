"""DC8xx: tables, lists and trees in READMEs that restate agents' frontmatter and the skills
folder must agree with them."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Facts, Position
from drift_check.rules.base import Hit, rule
from drift_check.rules.edits import rewrite_matrix_row


def _skills_line(facts: Facts, agent: str) -> str:
    a = facts.agents[agent]
    if "skills" not in a.frontmatter_lines:
        return f"{a.path} (which has no `skills:`)"
    return str(Position(a.path, a.frontmatter_lines["skills"], 1))


@rule(
    "DC801",
    "matrix-disagrees-with-frontmatter",
    fix="safe",
    failing="""
        skills/README.md:    | developer | agent-protocol, security-tiers, investigation | ... |
        agents/developer.md: skills: [agent-protocol, security-tiers]
    """,
    passing="""
        skills/README.md:    | developer | agent-protocol, security-tiers | ... |
    """,
)
def matrix_disagrees_with_frontmatter(facts: Facts) -> Iterator[Hit]:
    """A skill assignment matrix row disagrees with the agent's frontmatter `skills:`.

    Each skill in the row's frontmatter column must be in the agent's `skills:` list and each
    listed skill in the row; a skill in the row's on-demand column must not be in the list.
    The message names both sides. Update the table from the frontmatter.
    """
    matrix = facts.matrix
    if matrix is None:
        return
    for row in matrix.rows:
        agent = facts.agents.get(row.agent)
        if agent is None or agent.path in facts.frontmatter_errors:
            continue
        listed = {ref.name: ref for ref in agent.skills or ()}
        fix = rewrite_matrix_row(facts, row, list(listed))
        fm_line = _skills_line(facts, row.agent)
        claimed = {ref.name for ref in row.frontmatter}
        for ref in row.frontmatter:
            if ref.name not in listed:
                yield Hit(
                    ref.position,
                    f"the matrix lists `{ref.name}` in `{row.agent}`'s frontmatter skills, but"
                    f" {fm_line} does not; drop it from the row or add it to the agent",
                    agent=row.agent,
                    fix=fix,
                )
        for name, ref in listed.items():
            if name not in claimed:
                yield Hit(
                    row.position,
                    f"`{row.agent}` lists skill `{name}` in its frontmatter ({ref.position})"
                    " but its matrix row does not; add it to the row",
                    agent=row.agent,
                    fix=fix,
                )
        for ref in row.on_demand:
            if ref.name in listed:
                yield Hit(
                    ref.position,
                    f"the matrix says `{row.agent}` loads `{ref.name}` on demand, but its"
                    f" frontmatter injects it ({listed[ref.name].position}); move it to the"
                    " frontmatter column",
                    agent=row.agent,
                    fix=fix,
                )


@rule(
    "DC802",
    "matrix-row-missing-or-unknown",
    failing="""
        skills/README.md has no row for agents/developer.md, which lists skills
    """,
    passing="""
        skills/README.md:    | developer | agent-protocol, security-tiers | |
    """,
)
def matrix_row_missing_or_unknown(facts: Facts) -> Iterator[Hit]:
    """The skill assignment matrix has no row for an agent that lists skills, or a row for an
    agent that does not exist.

    A reader trusts the matrix to show every agent's skills. Add the row, or remove the row
    of the deleted agent.
    """
    matrix = facts.matrix
    if matrix is None:
        return
    rows = {row.agent for row in matrix.rows}
    for row in matrix.rows:
        if row.agent not in facts.agent_names:
            yield Hit(
                row.position,
                f"the matrix has a row for `{row.agent}`, but there is no such agent; remove"
                " the row or fix the name",
                agent=row.agent,
            )
    for name in sorted(facts.agents):
        if facts.agents[name].skills and name not in rows:
            yield Hit(
                matrix.position,
                f"`{name}` lists skills in its frontmatter ({_skills_line(facts, name)}) but"
                " has no row in the skill matrix; add one",
                agent=name,
            )


@rule(
    "DC803",
    "unassigned-list-names-assigned-skill",
    failing="""
        skills/README.md:  Workflow skills (not in any agent frontmatter):
                           - `execution` ...
        agents/developer.md:  skills: [agent-protocol, security-tiers, execution]
    """,
    passing="""
        agents/developer.md:  skills: [agent-protocol, security-tiers]
    """,
)
def unassigned_list_names_assigned_skill(facts: Facts) -> Iterator[Hit]:
    """A list introduced as skills in no agent's frontmatter names a skill an agent lists.

    The list documents skills loaded only on demand; one an agent injects at start-up has a
    different line budget and a different reader. Move it out of the list or out of the
    agent's `skills:`. The introducing phrases are the pack's `unassigned-phrases`.
    """
    listed: dict[str, Position] = {}
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        for ref in agent.skills or ():
            listed.setdefault(ref.name, ref.position)
    for block in facts.unassigned:
        for item in block.items:
            if item.name in listed:
                yield Hit(
                    item.position,
                    f"listed as in no agent's frontmatter (line {block.position.line}), but"
                    f" {listed[item.name]} lists `{item.name}`; fix the list or the agent",
                )


@rule(
    "DC804",
    "tree-omits-skill",
    failing="""
        skills/README.md tree lists agent-protocol/ but not skills/investigation/
    """,
    passing="""
        skills/README.md tree lists every folder under skills/ that holds a SKILL.md
    """,
)
def tree_omits_skill(facts: Facts) -> Iterator[Hit]:
    """A directory tree of the skills folder drawn in a README leaves out a skill folder.

    Readers use the tree as the index of skills. Add the folder to the tree.
    """
    tree = facts.tree
    if tree is None:
        return
    drawn = {e.path for e in tree.entries}
    for directory in sorted(facts.skill_dirs):
        if directory.startswith(tree.root + "/") and directory not in drawn:
            yield Hit(
                tree.position,
                f"the tree of `{tree.root}/` does not list `{directory}/`; add it",
            )


@rule(
    "DC805",
    "tree-lists-missing-path",
    failing="""
        skills/README.md tree:   ├── gmail-triage/     (no skills/gmail-triage/)
    """,
    passing="""
        the tree lists only folders and files that exist
    """,
)
def tree_lists_missing_path(facts: Facts) -> Iterator[Hit]:
    """A directory tree drawn in a README lists a file or folder that does not exist.

    The skill was renamed or deleted and the README was not. Remove the entry or fix it.
    """
    tree = facts.tree
    if tree is None:
        return
    for entry in tree.entries:
        exists = entry.path in facts.existing_paths or entry.path in facts.existing_dirs
        if not exists:
            kind = "folder" if entry.is_dir else "file"
            yield Hit(
                entry.position,
                f"the tree lists {kind} `{entry.path}`, which does not exist; remove or fix"
                " the entry",
            )


RULES = (
    matrix_disagrees_with_frontmatter,
    matrix_row_missing_or_unknown,
    unassigned_list_names_assigned_skill,
    tree_omits_skill,
    tree_lists_missing_path,
)

"""DC8xx: tables, lists and trees in READMEs that restate agents' frontmatter and the skills
folder must agree with them."""

from __future__ import annotations

from collections.abc import Iterator

from drift_check.facts import Agent, Facts, Position
from drift_check.fixes.edits import rewrite_matrix_row
from drift_check.rules.base import Hit, rule


def _skills_line(agent: Agent) -> str:
    if "skills" not in agent.frontmatter_lines:
        return f"{agent.path} (which has no `skills:`)"
    return str(Position(agent.path, agent.frontmatter_lines["skills"], 1))


def _stem(agent: Agent) -> str:
    return agent.path.rsplit("/", 1)[-1][: -len(".md")]


def _matrix_agents(facts: Facts) -> dict[str, Agent]:
    """The agents a matrix row may name: by file stem, else by frontmatter `name` (plugin
    agents are often named unlike their files)."""
    found: dict[str, Agent] = {}
    ordered = sorted(facts.all_agents, key=lambda a: a.path)
    for agent in ordered:
        found.setdefault(_stem(agent), agent)
    for agent in ordered:
        name = (agent.frontmatter or {}).get("name")
        if isinstance(name, str) and name.strip():
            found.setdefault(name.strip(), agent)
    return found


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

    Each skill in the row's frontmatter column must be in the agent's `skills:` list (an
    agent with no `skills:` lists none) and each listed skill in the row; a skill in the
    row's on-demand column must not be in the list. A column whose header does not say how
    its skills load (`Domain Skills`) may hold either kind. The message names both sides.
    Update the table from the frontmatter.

    The matrix is the first table of the `skill-matrix` file with an agent column, a column
    of frontmatter skills (a header saying `Frontmatter`, `Core`, `Injected`, `Always
    loaded`, `Preloaded`) and one of other skills (`On demand`, `Optional`, `Loaded when`;
    or `Domain`, `Skills`), whatever the rest of the header says; `skill-matrix` can name
    the columns instead.
    """
    matrix = facts.matrix
    if matrix is None:
        return
    agents = _matrix_agents(facts)
    for row in matrix.rows:
        agent = agents.get(row.agent)
        if agent is None or agent.path in facts.frontmatter_errors:
            continue
        listed = {ref.name: ref for ref in agent.skills or ()}
        either = {ref.name for ref in row.either}
        fix = rewrite_matrix_row(facts, row, [n for n in listed if n not in either])
        fm_line = _skills_line(agent)
        claimed = {ref.name for ref in row.frontmatter} | either
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
    agents = _matrix_agents(facts)
    rows = {row.agent for row in matrix.rows}
    for row in matrix.rows:
        if row.agent not in facts.agent_names and row.agent not in agents:
            yield Hit(
                row.position,
                f"the matrix has a row for `{row.agent}`, but there is no such agent; remove"
                " the row or fix the name",
                agent=row.agent,
            )
    for name in sorted(facts.agents):
        agent = facts.agents[name]
        known_as = {name, _stem(agent), str((agent.frontmatter or {}).get("name", "")).strip()}
        if agent.skills and not known_as & rows:
            yield Hit(
                matrix.position,
                f"`{name}` lists skills in its frontmatter ({_skills_line(agent)}) but"
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


@rule(
    "DC806",
    "skill-matrix-not-found",
    failing="""
        skills/README.md:  **Skill assignment matrix:**

                           | Agent | Skills |
                           |-------|--------|
    """,
    passing="""
        skills/README.md:  | Agent | Frontmatter (always loaded) | On demand |
                           |-------|-----------------------------|-----------|
    """,
)
def skill_matrix_not_found(facts: Facts) -> Iterator[Hit]:
    """The configured skill assignment matrix is not there: its file has no table of that
    shape, or the file the config names does not exist.

    Without the table nothing compares the README with the agents' frontmatter, and a
    passing run would say nothing about it. The finding sits on the table with an agent
    column that comes closest, else on the line that mentions the matrix, else on line 1.
    Give the table a column of frontmatter skills and one of other skills (see DC801 for
    the header words), or name its columns in `skill-matrix`. A pack's default file that
    this tree does not have is not reported.
    """
    for p in facts.problems:
        if p.kind == "matrix-missing":
            yield Hit(p.position, p.message)


RULES = (
    matrix_disagrees_with_frontmatter,
    matrix_row_missing_or_unknown,
    unassigned_list_names_assigned_skill,
    tree_omits_skill,
    tree_lists_missing_path,
    skill_matrix_not_found,
)

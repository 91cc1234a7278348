"""DC5xx: SKILL.md frontmatter and budgets, per the Agent Skills specification and the pack."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from drift_check.facts import Facts, Position, Skill
from drift_check.fixes.renames import rename
from drift_check.rules.base import Hit, rule

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def _at(skill: Skill, key: str) -> Position:
    return Position(skill.path, skill.frontmatter_lines.get(key, 1), 1)


def _skills(facts: Facts) -> list[Skill]:
    return [facts.skills[path] for path in sorted(facts.skills)]


def injected_skills(facts: Facts) -> dict[str, str]:
    """Skills some agent lists in its `skills:` frontmatter, with the first such agent."""
    out: dict[str, str] = {}
    for agent in sorted(facts.all_agents, key=lambda a: a.path):
        for ref in agent.skills or ():
            out.setdefault(ref.name, agent.name)
    return out


@rule(
    "DC501",
    "skill-frontmatter-missing",
    failing="""
        skills/deploy/SKILL.md:
            # Deploy
            Steps to deploy.
    """,
    passing="""
        skills/deploy/SKILL.md:
            ---
            name: deploy
            description: Use when deploying a service to production.
            ---
    """,
)
def skill_frontmatter_missing(facts: Facts) -> Iterator[Hit]:
    """A SKILL.md has no YAML frontmatter.

    Loaders find a skill by its frontmatter `name` and decide when to use it from its
    `description`; without them the skill is never offered. Start the file with a `---`
    block holding at least `name` and `description`.
    """
    for skill in _skills(facts):
        if not skill.has_frontmatter:
            yield Hit(
                Position(skill.path, 1, 1),
                f"skill `{skill.name}` has no frontmatter; start SKILL.md with a `---` block"
                " holding `name` and `description`",
            )


@rule(
    "DC502",
    "skill-name-invalid",
    failing="""
        skills/Deploy_Prod/SKILL.md:   name: Deploy_Prod
    """,
    passing="""
        skills/deploy-prod/SKILL.md:   name: deploy-prod
    """,
)
def skill_name_invalid(facts: Facts) -> Iterator[Hit]:
    """A skill's `name` is missing or breaks the specification's format.

    A name is 1-64 (the pack's `skill-name-max`) lowercase letters, digits and hyphens, with
    no leading, trailing or double hyphen. Other names are rejected or mangled by loaders.
    The specification requires a name; Claude Code takes the folder's name where none is
    given, so the `claude-code` pack reports only a name that is given and malformed
    (`skill-name-required`).
    """
    limit = facts.settings["skill-name-max"]
    required = facts.settings["skill-name-required"]
    for skill in _skills(facts):
        if skill.frontmatter is None:
            continue
        name = skill.frontmatter.get("name")
        if name is None:
            if not required:
                continue
            yield Hit(
                _at(skill, "name"),
                f"skill `{skill.name}` has no `name`; add `name: {skill.name}`"
                if _valid_name(skill.name, limit)
                else f"skill `{skill.name}` has no `name`; add one of 1-{limit} lowercase"
                " letters, digits and single hyphens, and name its directory alike",
            )
        elif not isinstance(name, str) or not _valid_name(name, limit):
            yield Hit(
                _at(skill, "name"),
                f"skill name `{name}` must be 1-{limit} lowercase letters, digits and single"
                " hyphens, not starting or ending with a hyphen",
            )


@rule(
    "DC503",
    "skill-name-mismatch",
    fix="sometimes",
    failing="""
        skills/deploy/SKILL.md:   name: deploy-prod
    """,
    passing="""
        skills/deploy/SKILL.md:   name: deploy
    """,
)
def skill_name_mismatch(facts: Facts) -> Iterator[Hit]:
    """A skill's `name` differs from its directory's name.

    Agents list skills by directory (`skills/<name>/`) and loaders by `name`; when they
    differ one of them points at nothing. Rename one so both agree. The fix sets `name` to
    the directory's name; it is unsafe while another file still uses the old name as a word
    (an agent's `skills: [old]`, `/plugin:old`), and the message lists those places. A
    directory whose name is no valid skill name (`skill_files`) gets no fix: give both one
    valid name.
    """
    limit = facts.settings["skill-name-max"]
    for skill in _skills(facts):
        name = (skill.frontmatter or {}).get("name")
        if isinstance(name, str) and name and name != skill.name:
            fix, note = rename(facts, skill.path, skill.frontmatter_lines, name, skill.name)
            if _valid_name(skill.name, limit):
                advice = f"set `name: {skill.name}` or rename the directory"
            else:
                fix = None
                advice = (
                    f"`{skill.name}` is no valid skill name, so rename the directory and give"
                    " both one valid name"
                )
            yield Hit(
                _at(skill, "name"),
                f"skill `name: {name}` differs from its directory `{skill.directory}`;"
                f" {advice}{note}",
                fix=fix,
            )


def _valid_name(name: str, limit: int) -> bool:
    return len(name) <= limit and _NAME.fullmatch(name) is not None


@rule(
    "DC504",
    "skill-description-invalid",
    failing="""
        skills/deploy/SKILL.md:   (no description, or one over 1024 characters)
    """,
    passing="""
        skills/deploy/SKILL.md:   description: Use when deploying a service to production.
    """,
)
def skill_description_invalid(facts: Facts) -> Iterator[Hit]:
    """A skill's `description` is missing, empty, not text, or longer than the limit.

    The description is what decides when the skill is used; the specification requires
    1-1024 characters (the pack's `skill-description-max`).
    """
    limit = facts.settings["skill-description-max"]
    for skill in _skills(facts):
        if skill.frontmatter is None:
            continue
        value = skill.frontmatter.get("description")
        if not isinstance(value, str) or not value.strip():
            yield Hit(
                _at(skill, "description"),
                f"skill `{skill.name}` needs a `description` saying what it does and when to"
                " use it",
            )
        elif len(value) > limit:
            yield Hit(
                _at(skill, "description"),
                f"skill `{skill.name}` description is {len(value)} characters; the limit is"
                f" {limit}: move detail into the body",
            )


@rule(
    "DC505",
    "skill-compatibility-too-long",
    failing="""
        skills/deploy/SKILL.md:   compatibility: (a 600-character paragraph)
    """,
    passing="""
        skills/deploy/SKILL.md:   compatibility: Needs kubectl 1.29+ and network access.
    """,
)
def skill_compatibility_too_long(facts: Facts) -> Iterator[Hit]:
    """A skill's `compatibility` is not text or is longer than the limit.

    The specification caps it at 500 characters (the pack's `skill-compatibility-max`).
    """
    limit = facts.settings["skill-compatibility-max"]
    for skill in _skills(facts):
        value = (skill.frontmatter or {}).get("compatibility")
        if value is None:
            continue
        if not isinstance(value, str) or len(value) > limit:
            size = f"{len(value)} characters" if isinstance(value, str) else "not text"
            yield Hit(
                _at(skill, "compatibility"),
                f"skill `{skill.name}` compatibility is {size}; keep it to {limit} characters"
                " of text",
            )


@rule(
    "DC506",
    "skill-unknown-key",
    failing="""
        skills/deploy/SKILL.md:   triggers: [deploy, ship]   (not a specification key)
    """,
    passing="""
        skills/deploy/SKILL.md:
            metadata:
              triggers: "deploy, ship"
    """,
)
def skill_unknown_key(facts: Facts) -> Iterator[Hit]:
    """A SKILL.md frontmatter key is not one the pack allows.

    Strict loaders (claude.ai uploads, the Skills API) reject unknown keys, and Claude Code
    ignores them without a word, so the setting never takes effect. The pack's
    `skill-allowed-keys` lists the keys allowed (an empty list allows any): the
    specification's six in `agent-skills`, those and the keys Claude Code documents
    (`argument-hint`, `disable-model-invocation`, `when_to_use`, ...) in `claude-code`. A key
    neither documents, such as the `version:` real plugins often add, is reported under both.
    A skill kept in a folder named for Claude (`.claude/skills/`, `claude-code-skills/`) is
    written for Claude Code: its keys (`claude-skill-keys`) are allowed there under any pack.
    Move custom data under `metadata`.
    """
    allowed = set(facts.settings["skill-allowed-keys"] or ())  # null: any key
    if not allowed:
        return
    claude = allowed | set(facts.settings["claude-skill-keys"])
    for skill in _skills(facts):
        keys = skill.frontmatter or {}
        here = claude if _for_claude(skill.path) else allowed
        for key in sorted(keys, key=lambda k: (skill.frontmatter_lines.get(str(k), 0), str(k))):
            if str(key) not in here:
                yield Hit(
                    _at(skill, str(key)),
                    f"skill `{skill.name}` has key `{key}`, which the {facts.preset} preset does"
                    " not allow; move it under `metadata`, or allow it in your config"
                    " (`skill-allowed-keys`) if your own tooling reads it there",
                )


def _for_claude(path: str) -> bool:
    """A skill kept in a folder named for Claude (`.claude/skills/x/`, `claude-code-skills/`)."""
    return any("claude" in folder.lower() for folder in path.split("/")[:-1])


@rule(
    "DC507",
    "skill-over-line-budget",
    failing="""
        skills/agent-protocol/SKILL.md: 140 lines, listed in an agent's `skills:` (Gaia: < 100)
    """,
    passing="""
        skills/agent-protocol/SKILL.md: 80 lines; the details moved to reference.md
    """,
)
def skill_over_line_budget(facts: Facts) -> Iterator[Hit]:
    """A SKILL.md has as many lines as its budget allows, or more.

    Skills are injected verbatim, so every line costs context in every session. The budget
    depends on how the skill is loaded where the pack says so: one listed in an agent's
    `skills:` is injected at start-up (`skill-injected-line-limit`), others are loaded on
    demand (`skill-line-limit`). How lines are counted is `skill-line-count`. Move detail to
    `reference.md` and keep SKILL.md an index.
    """
    limit = facts.settings["skill-line-limit"]
    injected_limit = facts.settings["skill-injected-line-limit"]
    injected = injected_skills(facts)
    for skill in _skills(facts):
        if injected_limit is not None and skill.name in injected:
            budget = int(injected_limit)
            why = f"injected into `{injected[skill.name]}` at start-up"
        else:
            budget, why = limit, "loaded on demand"
        if skill.line_count >= budget:
            yield Hit(
                Position(skill.path, 1, 1),
                f"skill `{skill.name}` has {skill.line_count} lines; {why} it must stay under"
                f" {budget}: move detail to reference.md",
            )


@rule(
    "DC508",
    "skill-over-token-budget",
    severity="info",
    failing="""
        skills/research/SKILL.md: about 7,000 tokens (the Agent Skills spec recommends < 5000)
    """,
    passing="""
        skills/research/SKILL.md: about 2,000 tokens
    """,
)
def skill_over_token_budget(facts: Facts) -> Iterator[Hit]:
    """A SKILL.md's estimated size in tokens reaches the pack's `skill-token-limit`.

    The Agent Skills specification recommends keeping a skill's instructions under 5000
    tokens, loaded whole when the skill activates; details belong in files the skill points
    to, read only when needed. A recommendation, not a limit: information only, it does not
    fail a run (raise it with `severity` in the config to enforce it). The estimate is
    characters divided by `chars-per-token` (4 by default): a guide, not a tokenizer.
    """
    limit = facts.settings["skill-token-limit"]
    if limit is None:
        return
    for skill in _skills(facts):
        if skill.token_estimate >= int(limit):
            yield Hit(
                Position(skill.path, 1, 1),
                f"skill `{skill.name}` is about {skill.token_estimate} tokens; the"
                f" recommendation is under {limit}: move detail to a reference file it"
                " points to",
            )


@rule(
    "DC509",
    "skill-metadata-invalid",
    failing="""
        skills/deploy/SKILL.md:
            metadata:
              owners: [ops, sre]
    """,
    passing="""
        skills/deploy/SKILL.md:
            metadata:
              owners: "ops, sre"
    """,
)
def skill_metadata_invalid(facts: Facts) -> Iterator[Hit]:
    """A skill's `metadata` is not a map of strings to strings.

    The Agent Skills specification defines `metadata` as string keys and string values;
    loaders that follow it drop or reject anything else. Quote numbers and flags, and join
    lists into one string.
    """
    for skill in _skills(facts):
        value = (skill.frontmatter or {}).get("metadata")
        if value is None:
            continue
        if not isinstance(value, dict):
            yield Hit(
                _at(skill, "metadata"),
                f"skill `{skill.name}` metadata must be a map of strings to strings",
            )
            continue
        for key, item in value.items():
            if not isinstance(key, str) or not isinstance(item, str):
                yield Hit(
                    _at(skill, "metadata"),
                    f"skill `{skill.name}` metadata `{key}` is {type(item).__name__}, not a"
                    " string; quote it",
                )


@rule(
    "DC510",
    "host-copy-lags",
    failing="""
        skills/review/SKILL.md:        name: review, metadata: {version: "1.4"}
        skills/review/SKILL.codex.md:  name: review, metadata: {version: "1.3"}
    """,
    passing="""
        skills/review/SKILL.md:        name: review, metadata: {version: "1.4"}
        skills/review/SKILL.codex.md:  name: review, metadata: {version: "1.4"}
    """,
    blind_spot=True,
)
def host_copy_lags(facts: Facts) -> Iterator[Hit]:
    """A host copy of a skill (`SKILL.<host>.md` beside its SKILL.md) has another `name` or
    `metadata.version` than the SKILL.md.

    Skills published for several hosts (Codex, Cursor, ...) keep one copy per host beside
    the main file. When the main file is renamed or its version bumped and a copy is not,
    that host loads a stale skill under the old identity. Update the copy's frontmatter
    (and its text) to match the SKILL.md.
    """
    for variant in sorted(facts.skill_variants):
        main = facts.skills.get(variant.main)
        if main is None or main.frontmatter is None or variant.frontmatter is None:
            continue
        for label, ours, theirs, key in (
            ("name", variant.frontmatter.get("name"), main.frontmatter.get("name"), "name"),
            (
                "metadata.version",
                _version(variant.frontmatter),
                _version(main.frontmatter),
                "metadata",
            ),
        ):
            if theirs is None or ours == theirs:
                continue
            line = variant.frontmatter_lines.get(key, 1)
            now = "has none" if ours is None else f"has `{ours}`"
            yield Hit(
                Position(variant.path, line, 1),
                f"host copy {now} as {label}, but {variant.main} has `{theirs}`;"
                f" update the copy to `{theirs}`",
            )


def _version(frontmatter: dict[str, Any]) -> object:
    metadata = frontmatter.get("metadata")
    return metadata.get("version") if isinstance(metadata, dict) else None


RULES = (
    skill_frontmatter_missing,
    skill_name_invalid,
    skill_name_mismatch,
    skill_description_invalid,
    skill_compatibility_too_long,
    skill_unknown_key,
    skill_over_line_budget,
    skill_over_token_budget,
    skill_metadata_invalid,
    host_copy_lags,
)

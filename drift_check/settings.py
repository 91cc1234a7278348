"""Every setting drift-check reads, declared once: name, type, default and a one-line doc.

Packs and config files are checked against `SETTINGS`, every list setting also has an
`extend-` form (appended to what the layers below say), `resolve` layers packs and config
over the defaults, and the settings table of docs/configuration.md is generated from it.
Rules and scanners read `settings["name"]`: the dict is complete and checked at load time.
To add a setting, add one `Setting(...)` line below and regenerate the docs
(`python -m drift_check.docs`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from drift_check.records import NamedTuple
from drift_check.yaml_loader import MAX_ALIASES, MAX_DEPTH


class SettingError(Exception):
    """A setting of the wrong type or an unknown key, as the rest of one error line."""


class Kind(NamedTuple):
    """A setting's type: its name in the docs, what an error says the value must be, and
    the test of a value. A list kind's values are read as tuples and get `extend-` forms; a
    mapping kind's keys are settings themselves (`fields`); a nullable kind also takes null
    (the check is off, or an allow-list allows anything)."""

    name: str
    want: str
    accepts: Callable[[Any], bool]
    is_list: bool = False
    fields: tuple[Setting, ...] = ()
    nullable: bool = False


class Setting(NamedTuple):
    name: str
    kind: Kind
    default: Any
    doc: str


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _regex(value: Any) -> bool:
    import re

    if not isinstance(value, str):
        return False
    try:
        re.compile(value)
    except re.error:
        return False
    return True


def optional(kind: Kind) -> Kind:
    """The kind, or null."""
    return kind._replace(nullable=True)


def one_of(*choices: str) -> Kind:
    listed = ", ".join(f"`{c}`" for c in choices)
    return Kind(f"one of {listed}", f"one of {', '.join(choices)}", lambda v: v in choices)


def _names_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def mapping(*fields: Setting) -> Kind:
    return Kind("mapping", "a mapping", lambda v: isinstance(v, dict), fields=fields)


STR = Kind("string", "a string", lambda v: isinstance(v, str))
INT = Kind("int", "a whole number, 0 or more", _whole)
BOOL = Kind("bool", "true or false", lambda v: isinstance(v, bool))
REGEX = Kind("regex", "a regular expression", _regex)
STRINGS = Kind("list of strings", "a list of strings", _strings, is_list=True)
GLOBS = STRINGS._replace(name="list of globs")
# one path (or column name) alone is read as a list of one
PATHS = Kind(
    "path or list of paths",
    "a path or a list of paths",
    lambda v: isinstance(v, str) or _strings(v),
    is_list=True,
)
NAME_MAP = Kind("mapping of name to name", "a mapping of strings to strings", _names_map)
COLUMNS = PATHS._replace(
    name="column name or list of names", want="a column name or a list of them"
)

SKILL_MATRIX = mapping(
    Setting("file", STR, "skills/README.md", "the file that holds the matrix (its first table of that shape)"),
    Setting("agent-column", optional(STR), None, "the header of the agent column; null: found by its words (`Agent`, ...)"),
    Setting("frontmatter-columns", COLUMNS, [], "columns restating the frontmatter `skills:`; none: found by their words"),
    Setting("on-demand-columns", COLUMNS, [], "columns of skills loaded on demand; none: found by their words"),
)  # fmt: skip

_VOCABULARY_KEYS = frozenset({"field", "source", "copies", "handlers"})


def _vocabulary_entries(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(entry, dict)
        and set(entry) <= _VOCABULARY_KEYS
        and isinstance(entry.get("field"), str)
        and entry["field"] != ""
        and isinstance(entry.get("source", ""), str)
        and all(_strings(entry.get(key, [])) for key in ("copies", "handlers"))
        for entry in value
    )


VOCABULARIES = Kind(
    "list of vocabularies",
    "a list of mappings with `field` and optional `source`, `copies` (lists) and `handlers` (globs)",
    _vocabulary_entries,
    is_list=True,
)

# skills the host provides with no SKILL.md in the tree: Claude Code's bundled skills
# (code.claude.com/docs/en/commands); a `Skill("x")` naming one of them names a skill
BUILTIN_SKILLS = [
    "batch", "claude-api", "code-review", "debug", "init", "loop", "review", "schedule",
    "security-review", "simplify", "update-config",
]  # fmt: skip

# The SKILL.md keys Claude Code documents beyond the specification's six (the claude-code
# pack's `skill-allowed-keys` holds both; tests/rules/test_packs.py keeps them in step)
CLAUDE_SKILL_KEYS = [
    *("when_to_use", "argument-hint", "arguments", "disable-model-invocation", "user-invocable"),
    *("disallowed-tools", "model", "effort", "context", "agent", "background", "hooks", "paths"),
    "shell",
]

# Claude Code's hook events (code.claude.com/docs/en/hooks)
HOOK_EVENTS = [
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
    "PermissionRequest", "PermissionDenied", "Notification", "UserPromptSubmit",
    "UserPromptExpansion", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
    "PreCompact", "PostCompact", "Elicitation", "ElicitationResult", "TeammateIdle",
    "TaskCreated", "TaskCompleted", "Setup", "InstructionsLoaded", "CwdChanged",
    "FileChanged", "ConfigChange", "WorktreeCreate", "WorktreeRemove", "SessionStart",
    "SessionEnd", "PreModelSwitch", "PostModelSwitch", "MessageDisplay", "DirectoryAdded",
]  # fmt: skip

# In globs `**` crosses folders and `*` does not; `{core}` is the registry file's top folder.
SETTINGS: tuple[Setting, ...] = (
    Setting("registry", PATHS, [], "candidate registry files; the first that exists is used; none: no contract checks"),
    Setting("registry-heading", STR, "Agent Registry", "the heading the registry table sits under"),
    Setting("agents", GLOBS, ["agents/*.md"], "agent files; the stem is the agent's name"),
    Setting("agents-exclude", GLOBS, ["agents/*.compact.md"], "agent files that are renderings of another agent"),
    Setting("exclude", GLOBS, [], "files never read or checked (vendored trees, fixtures that are agent repositories themselves); they still count as existing for links and `Consumed by` citations"),
    Setting("discovery-skip", GLOBS, ["**/fixtures/**", "**/__fixtures__/**", "**/testdata/**", "**/test-fixtures/**"], "files never discovered as components (test fixtures broken on purpose); they still exist for links and citations"),
    Setting("consumers", GLOBS, ["workflows/**/*.md", "commands/**/*.md", "agents/**/*.md"], "Markdown whose text can consume a marker"),
    Setting("dispatch-surfaces", GLOBS, ["workflows/**", "commands/**"], "files whose quoted `## TOKEN`s are match instructions (DC305, DC306)"),
    Setting("python-consumers", GLOBS, ["hooks/**/*.py"], "Python files whose string literals can consume a marker"),
    Setting("include-prefixes", STRINGS, ["~/.claude/", "$HOME/.claude/"], "install prefixes stripped from `@`-includes before resolving them in the repository"),
    Setting("include-follow", GLOBS, ["**/*.md"], "included documents whose fenced headings count as the agent's emissions (and must resolve)"),
    Setting("follow-read-mentions", BOOL, False, "also follow ``Read `path` `` instructions to documents matching `include-follow`"),
    Setting("marker-shape", REGEX, r"^[A-Z][A-Z0-9 _:'/-]*$", "the shape of an undeclared fenced heading that counts as a marker"),
    Setting("marker-max-length", INT, 60, "longer headings are never markers by shape"),
    Setting("non-agent-tokens", STRINGS, [], "quoted `## TOKEN`s that are not agent contracts (display headings)"),
    Setting("legacy-read-tags", STRINGS, ["<files_to_read>"], "retired read tags (DC401)"),
    Setting("read-gate-tag", STR, "<required_reading>", "the read-gate tag (DC401, DC402)"),
    Setting("write-tools", STRINGS, ["Write", "Edit", "NotebookEdit"], "tools that can write an artifact (DC206)"),
    Setting("shell-tools", STRINGS, ["Bash", "PowerShell"], "tools that run commands: they can write a file too, so DC206 accepts them (not taken as a sign that the agent writes an artifact)"),
    Setting("max-file-bytes", INT, 10 * 1024 * 1024, "larger files are reported (DC001) and skipped (a `.js`, `.cjs` or `.mjs` file, a bundle, silently); only this much is ever read"),
    Setting("max-line-length", INT, 100_000, "a file with a longer line (in characters) is reported (DC001) and skipped (a `.js`, `.cjs` or `.mjs` file, minified, silently)"),
    Setting("max-yaml-depth", INT, MAX_DEPTH, "frontmatter nested deeper is reported (DC004) and not parsed"),
    Setting("max-yaml-aliases", INT, MAX_ALIASES, "frontmatter with more `*alias` references is reported (DC004) and not parsed"),
    Setting("max-json-depth", INT, 64, "a JSON manifest nested deeper is reported (DC007) and not parsed"),
    Setting("skills", GLOBS, ["skills/*/SKILL.md"], "skill files; the folder name is the skill's name"),
    Setting("skill-allowed-keys", optional(STRINGS), None, "SKILL.md frontmatter keys allowed (DC506); null: any key"),
    Setting("claude-skill-keys", STRINGS, CLAUDE_SKILL_KEYS, "keys Claude Code documents for skills, allowed too in a skill kept in a folder named for Claude (`.claude/skills/`, `claude-code-skills/`), whatever the pack (DC506)"),
    Setting("skill-name-max", INT, 64, "longest skill name (DC502)"),
    Setting("skill-name-required", BOOL, True, "a SKILL.md must give a `name` (DC502), as the specification asks; Claude Code takes the folder's name where it is missing"),
    Setting("skill-description-max", INT, 1024, "longest description (DC504)"),
    Setting("skill-compatibility-max", INT, 500, "longest `compatibility` (DC505)"),
    Setting("skill-line-limit", INT, 500, "a SKILL.md must have fewer lines (DC507)"),
    Setting("skill-injected-line-limit", optional(INT), None, "the line limit of a skill listed in an agent's `skills:` (DC507); null: `skill-line-limit`"),
    Setting("skill-line-count", one_of("all", "body", "non-blank"), "all", "how SKILL.md lines are counted"),
    Setting("skill-token-limit", optional(INT), None, "estimated tokens a SKILL.md should stay under (DC508, information); null: no limit"),
    Setting("chars-per-token", INT, 4, "the token estimate: characters divided by this"),
    Setting("sibling-docs", STRINGS, ["reference.md", "examples.md"], "documents a SKILL.md or agent may mention, which must sit beside it (DC703)"),
    Setting("agent-links", BOOL, True, "also check links, sibling mentions and bundled-file mentions (DC706) in agent files"),
    Setting("memory-files", GLOBS, ["**/CLAUDE.md", "**/CLAUDE.local.md", "**/AGENTS.md", "**/GEMINI.md", "**/.claude/rules/**/*.md"], "memory files, whose links (DC701, DC702) and `@` imports (DC704) are checked"),
    Setting("agent-required-keys", STRINGS, [], "frontmatter keys every agent needs (DC601)"),
    Setting("agent-skills-prefix", STRINGS, [], "skills every agent's `skills:` starts with (DC604)"),
    Setting("agent-allowed-keys", optional(STRINGS), None, "agent frontmatter keys allowed (DC608); null: any key"),
    Setting("plugin-agent-ignored-keys", STRINGS, [], "agent keys Claude Code ignores in a plugin's agents (DC608)"),
    Setting("agent-name-matches-file", BOOL, True, "an agent's `name` must equal its file's stem (DC602); where false, an agent is known by its `name` alone"),
    Setting("known-tools", optional(STRINGS), None, "tools (names or patterns such as `mcp__*`) an agent, skill or command may name (DC605, DC610); null: any tool"),
    Setting("removed-tools", NAME_MAP, {}, "tools Claude Code removed, each with the tool that replaced it, or `\"\"` for none (DC607)"),
    Setting("commands", GLOBS, ["commands/**/*.md", ".claude/commands/**/*.md"], "slash command files, read for their frontmatter"),
    Setting("command-allowed-keys", optional(STRINGS), None, "command frontmatter keys allowed (DC609); null: any key"),
    Setting("skill-matrix", optional(SKILL_MATRIX), None, "the table restating agents' frontmatter skills (DC801, DC802, DC806)"),
    Setting("unassigned-phrases", STRINGS, [], "phrases introducing lists of skills in no frontmatter (DC803)"),
    Setting("hook-events", STRINGS, HOOK_EVENTS, "event names a hooks configuration may use (DC118); `extend-hook-events` adds one Claude Code gained since"),
    Setting("skill-tree-file", optional(STR), None, "the README whose fenced tree draws the skills folder (DC804, DC805)"),
    Setting("structured-info-strings", STRINGS, ["json", "json:contract"], "info strings of fenced blocks read as structured JSON blocks (DC92x); a block of these pairs with a schema only by `$schema`, `schema-pairs` or, for `contract-info-strings`, its owner"),
    Setting("contract-info-strings", STRINGS, ["json:contract"], "info strings that declare a contract block: one that is not valid JSON is reported (DC929), and a skill's only output schema is the one it claims"),
    Setting("structured-template-names", REGEX, r"^[A-Z][A-Z0-9_]*_(?:RESULT|REQUEST)$", "names of YAML-like templates (`CONTEXT_RESULT:` alone on its line, its fields indented below)"),
    Setting("dispatch-keys", STRINGS, ["ACTION", "DATA"], "a fenced block with one of these fields (`ACTION: collect`) at its left margin is a dispatch template"),
    Setting("structured-schemas", GLOBS, ["**/*.schema.json"], "JSON Schema files: each is checked itself (DC920-DC922) and may be claimed by blocks"),
    Setting("schema-pairs", NAME_MAP, {}, "which schema a block claims: a template name (`CONTEXT_RESULT`), or an info string with an optional ` in GLOB` (`json in skills/*/SKILL.md`), mapped to a schema file"),
    Setting("vocabularies", VOCABULARIES, [], "state vocabularies the shapes alone do not find (DC950-DC953): each names a `field`, its `source` (a file, or `path::NAME` for a code constant), `copies` that must hold every state, and `handlers` (globs of files whose branch lists handle the field)"),
    Setting("builtin-skills", STRINGS, BUILTIN_SKILLS, "skills the host provides without a SKILL.md in the tree, which `Skill(\"x\")` may name (DC960)"),
)  # fmt: skip

EXTEND = "extend-"
BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}
# every list setting's `extend-` form: appended to what the layers below say
EXTENDS: dict[str, Setting] = {
    EXTEND + s.name: s._replace(kind=s.kind._replace(nullable=False))
    for s in SETTINGS
    if s.kind.is_list
}
_ACCEPTED = {**BY_NAME, **EXTENDS}
KEYS = frozenset(_ACCEPTED)


def check(values: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """`values` (settings and `extend-` forms) with lists as tuples and mappings completed;
    SettingError for the first unknown key or value of the wrong type."""
    return _checked(values, _ACCEPTED, prefix)


def _checked(
    values: dict[str, Any], schema: dict[str, Setting], prefix: str, few: bool = False
) -> dict[str, Any]:
    """`few`: the schema is short enough to list in an unknown-key error (a mapping's)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        setting = schema.get(key)
        if setting is None:
            known = f" (known: {', '.join(schema)})" if few else ""
            raise SettingError(f"unknown key `{prefix}{key}`{known}")
        kind = setting.kind
        if value is None and kind.nullable:
            out[key] = value
            continue
        if not kind.accepts(value):
            raise SettingError(f"`{prefix}{key}` must be {kind.want}{' or null' * kind.nullable}")
        if kind.is_list:
            value = (value,) if isinstance(value, str) else tuple(value)
        elif kind.fields:
            value = _checked(value, {f.name: f for f in kind.fields}, f"{prefix}{key}.", True)
            for field in kind.fields:
                value.setdefault(field.name, _frozen(field.default))
        out[key] = value
    return out


def _frozen(value: Any) -> Any:
    """A default as settings hold it: lists as tuples, a mapping copied."""
    if isinstance(value, list):
        return tuple(value)
    return dict(value) if isinstance(value, dict) else value


def resolve(layers: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Every setting: the defaults, then each checked layer over them, lowest first; a
    layer's `extend-X` is appended to X as the layers below it (and its own `X`) left it.
    An allow-list that is null allows anything, so extending it leaves it null."""
    out = {s.name: _frozen(s.default) for s in SETTINGS}
    for layer in layers:
        out.update((k, v) for k, v in layer.items() if k in BY_NAME)
        for key, value in layer.items():
            name = EXTENDS[key].name if key in EXTENDS else None
            if name is not None and out[name] is not None:
                out[name] = (*out[name], *value)
    return out


def default(name: str) -> Any:
    """A setting's default, as `resolve` gives it."""
    return _frozen(BY_NAME[name].default)


def changed(settings: dict[str, Any]) -> list[str]:
    """The settings (complete, as `resolve` returns them) whose value is not the default."""
    return [s.name for s in SETTINGS if settings[s.name] != _frozen(s.default)]


def origins(layers: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, str]:
    """Where each setting's value comes from, for `--show-settings`: `default`, or the labels
    of the layers (lowest first) that set it and then extended it, as `resolve` layers them."""
    out: dict[str, list[str]] = {s.name: [] for s in SETTINGS}
    nulled = {s.name: s.default is None for s in SETTINGS}
    for label, layer in layers:
        for key, value in layer.items():
            if key in BY_NAME:
                out[key] = [label]
                nulled[key] = value is None
        for key in layer:
            name = EXTENDS[key].name if key in EXTENDS else None
            if name is not None and not nulled[name] and label not in out[name]:
                out[name] = [*(out[name] or ["default"]), label]
    return {name: ", ".join(labels) or "default" for name, labels in out.items()}

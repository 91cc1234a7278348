"""Documentation generated from metadata: `explain`, the README table and docs/rules/ from
the rules, the settings tables of docs/configuration.md from the settings schema."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from drift_check.rules import ALL_RULES, Rule
from drift_check.settings import EXTENDS, SETTINGS, SKILL_MATRIX


def rule_text(r: Rule) -> str:
    """Plain text for `drift-check explain`."""
    origin = "beyond GSD's own check" if r.blind_spot else "covers a GSD check-contract-drift kind"
    fix = f"; fix: {r.fix}" if r.fix else ""
    return (
        f"{r.code} {r.name} ({r.severity}; {origin}{fix})\n\n{r.summary}\n\n{r.explanation}\n\n"
        f"Fails:\n{_indent(r.failing)}\n\nPasses:\n{_indent(r.passing)}\n"
    )


def rule_page(r: Rule) -> str:
    """One Markdown page per rule, for docs/rules/CODE.md."""
    return (
        f"# {r.code} `{r.name}`\n\n"
        f"Default severity: **{r.severity}**."
        + (" Closes a blind spot of GSD's own check." if r.blind_spot else "")
        + (f" Fix: **{r.fix}**." if r.fix else "")
        + f"\n\n## What it does\n\n{r.summary}\n\n## Why it matters, and what to do\n\n"
        f"{r.explanation}\n\n## Fails\n\n{_fenced(r.failing)}\n\n"
        f"## Passes\n\n{_fenced(r.passing)}\n\n"
        "<!-- generated from rule metadata by `python -m drift_check.docs`; do not edit -->\n"
    )


def rules_table() -> str:
    rows = ["| Code | Name | Severity | What it finds |", "|---|---|---|---|"]
    for r in ALL_RULES:
        rows.append(
            f"| [{r.code}](docs/rules/{r.code}.md) | `{r.name}` | {r.severity} | {r.summary} |"
        )
    return "\n".join(rows) + "\n"


def _value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list | tuple):
        return ", ".join(f"`{v}`" for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"`{k}`: {_value(v)}" for k, v in value.items()) or "none"
    return f"`{value}`"


def _set_by(name: str, packs: dict[str, dict[str, Any]]) -> str:
    """The shipped packs whose own file sets (or extends) the setting, with short values."""
    out = []
    for pack, values in sorted(packs.items()):
        for key in (name, f"extend-{name}"):
            if key in values:
                value = values[key]
                short = not isinstance(value, list | dict) or len(value) <= 2
                shown = _value(value) if short else f"{len(value)} entries"
                out.append(f"`{pack}`{' extends' * (key != name)}: {shown}")
    return "; ".join(out)


def settings_tables(packs: dict[str, dict[str, Any]]) -> str:
    """For docs/configuration.md: every setting (with the shipped packs that change it), the
    `extend-` forms, and the fields of `skill-matrix`."""
    lines = ["| Setting | Type | Default | Shipped packs | Meaning |", "|---|---|---|---|---|"]
    for s in SETTINGS:
        default, set_by = _value(s.default), _set_by(s.name, packs)
        kind = s.kind.name + " or null" * s.kind.nullable
        lines.append(f"| `{s.name}` | {kind} | {default} | {set_by} | {s.doc} |")
    extends = ", ".join(f"`{key}`" for key in EXTENDS)
    lines += ["", f"The list settings' `extend-` forms: {extends}.", ""]
    lines += ["`skill-matrix` is a mapping of these fields:", ""]
    lines += ["| Field | Type | Default | Meaning |", "|---|---|---|---|"]
    for f in SKILL_MATRIX.fields:
        lines.append(f"| `{f.name}` | {f.kind.name} | {_value(f.default)} | {f.doc} |")
    return "\n".join(lines) + "\n"


def _detected_when(name: str, detect: tuple[Any, ...]) -> str:
    """A pack's `detect` entries in words (or what discovery looks for instead)."""
    from drift_check.config import DISCOVERED_BY, PROBED_PACKS

    def entry(probe: Any) -> str:
        if isinstance(probe, list):
            return " and ".join(entry(p) for p in probe)
        if isinstance(probe, dict):
            return f'`{probe.get("file")}` contains "{probe.get("contains")}"'
        return f"`{probe}` exists"

    if name in PROBED_PACKS:
        return " or ".join(entry(p) for p in detect)
    return DISCOVERED_BY.get(name, "never on its own (name it in `preset` or `extends`)")


def presets_table() -> str:
    """For docs/configuration.md: every shipped pack, in the order discovery tries them."""
    from drift_check.config import PACK_ORDER, known_presets, load_pack, packs_dir

    names = known_presets()
    ordered = [n for n in PACK_ORDER if n in names] + [n for n in names if n not in PACK_ORDER]
    lines = ["| Preset | Chosen when | Extends | What it is for |", "|---|---|---|---|"]
    for name in ordered:
        pack = load_pack(name, packs_dir())
        own = _shipped_pack(name)
        parents = own.get("extends") or []
        parents = [parents] if isinstance(parents, str) else parents
        extends = ", ".join(f"`{p}`" for p in parents) or "nothing"
        detected = _detected_when(name, pack.detect)
        lines.append(f"| `{name}` | {detected} | {extends} | {pack.summary} |")
    return "\n".join(lines) + "\n"


def _shipped_pack(name: str) -> dict[str, Any]:
    from drift_check.config import load_yaml_document, packs_dir

    path = Path(packs_dir()) / f"{name}.yaml"
    data = load_yaml_document(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def usage_text() -> str:
    """For the README: `drift-check --help` and each subcommand's `-h`, as they print."""
    import click

    from drift_check.cli import SUBCOMMANDS, check

    out = []
    commands = [("drift-check", "--help", check)]
    commands += [(f"drift-check {name}", "-h", command) for name, command in SUBCOMMANDS.items()]
    for name, flag, command in commands:
        ctx = click.Context(command, info_name=name, **command.context_settings)
        out.append(f"$ {name} {flag}\n{command.get_help(ctx)}\n")
    return "\n".join(out)


def _shipped_pack_settings() -> dict[str, dict[str, Any]]:
    from drift_check.config import known_presets

    return {name: _shipped_pack(name).get("settings") or {} for name in known_presets()}


BEGIN = "<!-- rules-table:begin -->"
END = "<!-- rules-table:end -->"
SETTINGS_BEGIN = "<!-- settings-table:begin -->"
SETTINGS_END = "<!-- settings-table:end -->"
PRESETS_BEGIN = "<!-- presets-table:begin -->"
PRESETS_END = "<!-- presets-table:end -->"
# the README's usage block: the help of every command, generated (a test keeps it equal)
USAGE_BEGIN = "<!-- usage:start -->"
USAGE_END = "<!-- usage:end -->"


def _replace_between(
    path: Path, begin: str, end: str, content: str, text: str | None = None
) -> str:
    text = path.read_text(encoding="utf-8") if text is None else text
    if begin not in text or end not in text:
        raise ValueError(f"{path}: no {begin} ... {end} to generate between")
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    return f"{head}{begin}\n{content}{end}{tail}"


def generate(project: Path) -> dict[Path, str]:
    """Every generated file and its content: docs/rules/*.md, the README's rule table and
    usage block, the settings and presets tables of docs/configuration.md."""
    out = {project / "docs" / "rules" / f"{r.code}.md": rule_page(r) for r in ALL_RULES}
    readme = project / "README.md"
    text = _replace_between(readme, BEGIN, END, rules_table())
    usage = f"```text\n{usage_text()}```\n"
    out[readme] = _replace_between(readme, USAGE_BEGIN, USAGE_END, usage, text)
    configuration = project / "docs" / "configuration.md"
    tables = settings_tables(_shipped_pack_settings())
    text = _replace_between(configuration, SETTINGS_BEGIN, SETTINGS_END, tables)
    out[configuration] = _replace_between(
        configuration, PRESETS_BEGIN, PRESETS_END, presets_table(), text
    )
    return out


def _fenced(example: str) -> str:
    """A text block whose fence is longer than any backtick run of the example it holds."""
    longest = max((len(run) for run in re.findall(r"`+", example)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{example}\n{fence}"


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent
    (root / "docs" / "rules").mkdir(parents=True, exist_ok=True)
    for path, content in generate(root).items():
        path.write_text(content, encoding="utf-8")

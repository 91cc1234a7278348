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


def _shipped_pack_settings() -> dict[str, dict[str, Any]]:
    from drift_check.config import known_presets, load_yaml_document, packs_dir

    out = {}
    for name in known_presets():
        path = Path(packs_dir()) / f"{name}.yaml"
        out[name] = load_yaml_document(path.read_text(encoding="utf-8")).get("settings") or {}
    return out


BEGIN = "<!-- rules-table:begin -->"
END = "<!-- rules-table:end -->"
SETTINGS_BEGIN = "<!-- settings-table:begin -->"
SETTINGS_END = "<!-- settings-table:end -->"


def _replace_between(path: Path, begin: str, end: str, content: str) -> str:
    text = path.read_text(encoding="utf-8")
    if begin not in text or end not in text:
        raise ValueError(f"{path}: no {begin} ... {end} to generate between")
    head, _, rest = text.partition(begin)
    _, _, tail = rest.partition(end)
    return f"{head}{begin}\n{content}{end}{tail}"


def generate(project: Path) -> dict[Path, str]:
    """Every generated file and its content: docs/rules/*.md, the README's rule table and
    the settings tables of docs/configuration.md."""
    out = {project / "docs" / "rules" / f"{r.code}.md": rule_page(r) for r in ALL_RULES}
    readme = project / "README.md"
    out[readme] = _replace_between(readme, BEGIN, END, rules_table())
    configuration = project / "docs" / "configuration.md"
    tables = settings_tables(_shipped_pack_settings())
    out[configuration] = _replace_between(configuration, SETTINGS_BEGIN, SETTINGS_END, tables)
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

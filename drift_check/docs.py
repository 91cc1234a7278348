"""Rule documentation generated from rule metadata: `explain`, the README table, docs/rules/."""

from __future__ import annotations

import re
from pathlib import Path

from drift_check.rules import ALL_RULES, Rule


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


BEGIN = "<!-- rules-table:begin -->"
END = "<!-- rules-table:end -->"


def generate(project: Path) -> dict[Path, str]:
    """Every generated file and its content: docs/rules/*.md and the README's rule table."""
    out = {project / "docs" / "rules" / f"{r.code}.md": rule_page(r) for r in ALL_RULES}
    readme = project / "README.md"
    text = readme.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    out[readme] = f"{head}{BEGIN}\n{rules_table()}{END}{tail}"
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

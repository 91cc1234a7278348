"""DC010: suppressions that do nothing. It reads the suppression stage's output (which
directives, and which codes in them, covered no finding), so it runs after every rule that
reads facts."""

from collections.abc import Iterator

from drift_check.facts import Directive, IdleSuppression, Suppressions
from drift_check.rules.base import Hit, rule

_KINDS = "ignore, ignore-file, disable-next-line, disable or enable"
# words of other linters' comments (markdownlint's, mostly): what drift-check reads instead
_MEANT = {
    "disable-line": "write `ignore[...]` after the text of the line",
    "ignore-line": "write `ignore[...]` after the text of the line",
    "disable-file": "write `ignore-file[...]`",
    "ignore-next-line": "write `disable-next-line[...]`",
}


@rule(
    "DC010",
    "unused-suppression",
    "warning",
    failing="""
        agents/gsd-planner.md:
            <!-- drift-check: ignore[DC103] kept from before the row was added -->
            (the agent has a row now: nothing is suppressed)
        skills/lint/SKILL.md:
            See [the guide](guide.md). <!-- drift-check: ignore[DC999] -->
            (no rule has the code DC999)
    """,
    passing="""
        the comment is removed once the finding it silenced is fixed
    """,
    reads="suppressions",
)
def unused_suppression(suppressions: Suppressions) -> Iterator[Hit]:
    """A suppression comment, or a code in it, suppresses no finding.

    A stale suppression hides the next, real finding at that place; one with a code no rule
    has, or written in a form drift-check does not read, never worked. Remove the comment
    (or the code from its list), or correct it. The forms (see docs/suppressions.md):
    `<!-- drift-check: ignore[CODE, ...] reason -->` after text covers its line, alone on a
    line its line and the next; `disable-next-line[CODE]` the next line;
    `disable[CODE]` ... `enable[CODE]` the lines between; `ignore-file[CODE]` the whole file;
    without brackets, every code. In Python and in YAML frontmatter the comment is
    `# drift-check: ignore[CODE] reason`. DC010 itself is silenced with `per-file-ignores`.
    """
    for idle in suppressions.idle:
        yield Hit(idle.position, _message(idle))


def _form(d: Directive, codes: tuple[str, ...] = ()) -> str:
    shown = codes or tuple(c.name for c in d.codes or ())
    return f"`{d.kind}[{', '.join(shown)}]`" if shown else f"`{d.kind}`"


def _message(idle: IdleSuppression) -> str:
    d, codes = idle.directive, idle.codes
    if idle.why == "unused":
        form = _form(d, codes)
        if d.kind == "disable":
            first, last = idle.lines
            if not last:
                return (
                    f"{form} suppresses nothing from line {first} to the end of the file; remove it"
                )
            return f"{form} suppresses nothing from line {first} to line {last}; remove both"
        if idle.next_line:
            return (
                f"{form} suppresses nothing here: after text it covers only its own line; for"
                f" the finding on line {idle.next_line}, put it at the end of that line or alone"
                " on a line above it"
            )
        return f"{form} suppresses nothing here; remove it"
    if idle.why == "unknown-code":
        return (
            f"unknown code {codes[0]} in a suppression: no rule has it, so it suppresses"
            " nothing; correct it (see `drift-check rules`) or remove it"
        )
    if idle.why == "rule-name":
        return (
            f"`{codes[0]}` in a suppression is a rule's name and suppresses nothing; write its"
            f" code, {codes[1]}"
        )
    if idle.why == "not-suppressible":
        return (
            f"a comment cannot suppress {codes[0]} (it reports on the comments themselves); remove"
            " the code, or list the file under `per-file-ignores` in the config"
        )
    if idle.why == "no-code":
        return (
            f"`{d.kind}[]` names no code and suppresses nothing; name the codes, or drop the"
            " brackets to cover every code"
        )
    if idle.why == "codes-unbracketed":
        return (
            f"`{d.kind} {codes[0]}` suppresses nothing: codes go in brackets, as in"
            f" `{d.kind}[{codes[0].upper()}]` (without brackets it would cover every code)"
        )
    if idle.why == "no-disable":
        form = f"`enable[{codes[0]}]`" if codes else "`enable`"
        what = f"`disable[{codes[0]}]`" if codes else "`disable`"
        return f"{form} ends no {what} above it; remove it"
    advice = _MEANT.get(d.kind, f"write {_KINDS}")
    return f"`{d.kind}` is not a drift-check directive and suppresses nothing; {advice}"


RULES = (unused_suppression,)

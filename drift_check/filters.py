"""After the rules that read facts: the suppression stage (comments in the files,
`per-file-ignores` in the config) decides which findings are reported and hands what its
directives did not do to the rules that read it (DC010); then the baseline.

What each directive covers (docs/suppressions.md):

- `ignore[CODES]` after other text on its line: that line; alone on its line (nothing but
  blanks and comments there): its own line and the next one;
- `disable-next-line[CODES]`: the next line;
- `disable[CODES]` ... `enable[CODES]`: from the `disable` line to the `enable` line that
  ends it, or to the end of the file (`enable` alone ends every open `disable`);
- `ignore-file[CODES]`: the whole file.

Without brackets a directive covers every code; a code may be a prefix (`DC7`).
"""

import json
import re
from typing import Any

from drift_check.facts import Directive, Facts, IdleSuppression, Named, Suppressions
from drift_check.records import NamedTuple
from drift_check.rules import ALL_RULES, Finding, lookup
from drift_check.scanners.directives import KINDS
from drift_check.scanners.files import matches

BASELINE_VERSION = 1
_END = 1 << 30  # the last line of any file
# `ignore DC701 why`: codes meant, but written outside the brackets
_UNBRACKETED = re.compile(r"DC\d+\b", re.I)


def _covers(codes: tuple[str, ...], code: str) -> str | None:
    """The entry of `codes` (a code or a prefix) that covers `code`, if any."""
    return next((c for c in codes if code.startswith(c)), None)


class Scope(NamedTuple):
    """What the stage needs to know of the run: which rules ran over the facts, and which
    the config selects (a `--select` on the command line may run fewer). A directive's code
    is called unused only when every configured rule it names ran: a code of a rule that did
    not run could not have been used."""

    ran: frozenset[str]
    configured: frozenset[str]


class _Entry(NamedTuple):
    """One code of a directive (None: every code) and the lines it covers."""

    directive: int  # its index among the file's directives
    code: str | None
    first: int
    last: int


def per_file_ignored(f: Finding, per_file: dict[str, list[str]]) -> bool:
    return any(
        matches(f.path, [glob]) and _covers(tuple(c.upper() for c in codes), f.code)
        for glob, codes in per_file.items()
    )


def suppress(
    findings: list[Finding], facts: Facts, per_file: dict[str, list[str]], scope: Scope
) -> tuple[list[Finding], Suppressions]:
    """The findings no per-file ignore or directive covers, and what the directives did not
    do: codes that covered nothing, codes no rule has, directives that are not ones."""
    kept: list[Finding] = []
    by_path: dict[str, list[Finding]] = {}
    for f in findings:
        if not per_file_ignored(f, per_file):
            by_path.setdefault(f.path, []).append(f)
    idle: list[IdleSuppression] = []
    for path in sorted(set(by_path) | set(facts.directives)):
        file_kept, file_idle = _file(by_path.get(path, []), facts.directives.get(path, ()), scope)
        kept.extend(file_kept)
        idle.extend(file_idle)
    return sorted(kept), Suppressions(tuple(idle))


def _file(
    findings: list[Finding], directives: tuple[Directive, ...], scope: Scope
) -> tuple[list[Finding], list[IdleSuppression]]:
    """One file: its kept findings and its idle directives."""
    if not directives:
        return findings, []
    entries, idle = _entries(directives)
    by_line: dict[int, list[_Entry]] = {}  # entries of a line or two, by line
    wide = []  # `disable` and `ignore-file` entries
    for e in entries:
        if e.last - e.first > 1:
            wide.append(e)
        else:
            for line in range(e.first, e.last + 1):
                by_line.setdefault(line, []).append(e)
    used: set[_Entry] = set()
    kept = []
    for f in findings:
        covering = [
            e
            for e in (*by_line.get(f.line, ()), *(e for e in wide if e.first <= f.line <= e.last))
            if e.code is None or f.code.startswith(e.code)
        ]
        if covering:  # the narrowest is the one used; a wider one may then be idle
            used.add(min(covering, key=lambda e: (e.last - e.first, e.code is None, e)))
        else:
            kept.append(f)
    kept_codes: dict[int, list[str]] = {}
    for f in kept:
        kept_codes.setdefault(f.line, []).append(f.code)
    of: dict[int, list[_Entry]] = {}
    for e in entries:
        of.setdefault(e.directive, []).append(e)
    for i, own in sorted(of.items()):
        unused = [e for e in own if e not in used and _knowable(e.code, scope)]
        if not unused:
            continue
        d = directives[i]
        last = max(e.last for e in own)
        lines = (min(e.first for e in own), 0 if last == _END else last)  # 0: to the end
        codes = tuple(e.code for e in unused if e.code is not None)
        missed = _missed(d, codes, kept_codes.get(d.position.line + 1, []))
        idle.append(IdleSuppression(d, d.position, "unused", codes, lines, missed))
    idle.sort(key=lambda s: (s.position.line, s.position.column))
    return kept, idle


def _knowable(code: str | None, scope: Scope) -> bool:
    """Whether every configured rule `code` names (None: every one) ran."""
    named = [c for c in scope.configured if code is None or c.startswith(code)]
    return bool(named) and all(c in scope.ran for c in named)


def _missed(d: Directive, codes: tuple[str, ...], next_line: list[str]) -> int:
    """For an `ignore` after text on its line: the next line, when a finding it names is
    left there (`next_line`: the codes of those findings); 0 otherwise."""
    if d.kind != "ignore" or d.alone:
        return 0
    wanted = codes or ("",)  # no codes: every code
    return d.position.line + 1 if any(_covers(wanted, c) for c in next_line) else 0


def _entries(directives: tuple[Directive, ...]) -> tuple[list[_Entry], list[IdleSuppression]]:
    """The codes of the file's directives with the lines each covers, and the directives
    (or codes) that can cover nothing whatever the findings."""
    entries: list[_Entry] = []
    idle: list[IdleSuppression] = []
    open_: list[int] = []  # indices in `entries` of `disable`s no `enable` has ended yet
    for i, d in enumerate(directives):
        honoured, codes = _codes(d, idle)
        if not honoured:
            continue
        line = d.position.line
        if d.kind == "enable":
            _enable(d, codes, open_, entries, idle)
            continue
        if d.kind == "ignore-file":
            first, last = 1, _END
        elif d.kind == "ignore":
            first, last = line, line + 1 if d.alone else line
        elif d.kind == "disable-next-line":
            first = last = line + 1
        else:  # disable
            first, last = line, _END
        for code in (None,) if codes is None else codes:
            if d.kind == "disable":
                open_.append(len(entries))
            entries.append(_Entry(i, code, first, last))
    return entries, idle


def _codes(d: Directive, idle: list[IdleSuppression]) -> tuple[bool, tuple[str, ...] | None]:
    """Whether `d` is honoured at all, and the codes it may suppress (None: every code);
    what can suppress nothing is added to `idle`."""
    if d.kind not in KINDS:
        idle.append(IdleSuppression(d, d.position, "unknown-kind"))
        return False, None
    if d.codes is None:
        unbracketed = _UNBRACKETED.match(d.reason)
        if unbracketed:  # as written it would cover every code
            idle.append(IdleSuppression(d, d.position, "codes-unbracketed", (unbracketed[0],)))
            return False, None
        return True, None
    if not d.codes:
        idle.append(IdleSuppression(d, d.position, "no-code"))
        return False, None
    valid = []
    for code in d.codes:
        problem = _code_problem(d, code)
        if problem is None:
            valid.append(code.name)
        else:
            idle.append(problem)
    return bool(valid), tuple(valid)


def _code_problem(d: Directive, code: Named) -> IdleSuppression | None:
    """Why a code in the brackets of `d` can suppress nothing, if it cannot."""
    named = [r for r in ALL_RULES if r.code.startswith(code.name)]
    if not named:
        rule = lookup(code.name.lower())
        if rule is not None:
            return IdleSuppression(d, code.position, "rule-name", (rule.name, rule.code))
        return IdleSuppression(d, code.position, "unknown-code", (code.name,))
    if all(r.reads != "facts" for r in named):
        return IdleSuppression(d, code.position, "not-suppressible", (code.name,))
    return None


def _enable(
    d: Directive,
    codes: tuple[str, ...] | None,
    open_: list[int],
    entries: list[_Entry],
    idle: list[IdleSuppression],
) -> None:
    """End the open `disable` entries `d` names (every one when it names no code) at its
    line; an `enable`, or a code of it, that ends nothing is idle."""
    ending = [i for i in open_ if codes is None or entries[i].code in codes]
    for i in ending:
        open_.remove(i)
        entries[i] = entries[i]._replace(last=d.position.line)
    if codes is None:
        if not ending:
            idle.append(IdleSuppression(d, d.position, "no-disable"))
        return
    ended = {entries[i].code for i in ending}
    for code in d.codes or ():
        if code.name in codes and code.name not in ended:
            idle.append(IdleSuppression(d, code.position, "no-disable", (code.name,)))


class BaselineEntry(NamedTuple):
    code: str
    path: str
    key: str  # what the finding is about: agent, marker and the text of its line

    def as_dict(self, count: int) -> dict[str, Any]:
        return {"code": self.code, "path": self.path, "key": self.key, "count": count}


def baseline_key(f: Finding, facts: Facts) -> BaselineEntry:
    """Findings are matched by code, path and content, not line number, so edits above a
    finding do not break the baseline."""
    source = facts.sources.get(f.path)
    line = ""
    if source is not None:
        line = " ".join(source.line_text(f.line).split())
    return BaselineEntry(f.code, f.path, f"{f.agent or ''}|{f.marker or ''}|{line}")


def baseline_text(findings: list[Finding], facts: Facts) -> str:
    counts: dict[BaselineEntry, int] = {}
    for f in findings:
        key = baseline_key(f, facts)
        counts[key] = counts.get(key, 0) + 1
    entries = [key.as_dict(n) for key, n in sorted(counts.items())]
    data = {"version": BASELINE_VERSION, "findings": entries}
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def read_baseline(text: str, where: str) -> dict[BaselineEntry, int]:
    """The entries of a baseline file; ValueError with a plain message when it is not one."""
    try:
        data = json.loads(text)
        if data.get("version") != BASELINE_VERSION:
            raise ValueError(f"unsupported baseline version {data.get('version')!r}")
        return {
            BaselineEntry(str(e["code"]), str(e["path"]), str(e["key"])): int(e.get("count", 1))
            for e in data["findings"]
        }
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{where}: not a drift-check baseline ({exc})") from None


def apply_baseline(
    findings: list[Finding], facts: Facts, baseline: dict[BaselineEntry, int]
) -> tuple[list[Finding], list[BaselineEntry]]:
    """The findings the baseline does not hold, and the baseline entries that no longer
    occur (fixed drift: the baseline can shrink)."""
    left = dict(baseline)
    new = []
    for f in findings:
        key = baseline_key(f, facts)
        if left.get(key, 0) > 0:
            left[key] -= 1
        else:
            new.append(f)
    stale = sorted(k for k, n in left.items() if n > 0 and k in baseline)
    return new, stale

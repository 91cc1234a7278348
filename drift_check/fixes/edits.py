"""Fixes, computed from the facts: the edits a rule offers next to its finding. Applying
them (atomically, keeping line endings) is `drift_check.fixes`."""

import re

from drift_check.facts import (
    Agent,
    CitedPath,
    DeclaredMarker,
    Facts,
    MatrixRow,
    Named,
    RegistryRow,
    Source,
)
from drift_check.fixes.model import Edit, Fix
from drift_check.scanners.frontmatter import simple_yaml
from drift_check.scanners.registry import NO_MARKER, split_outside


def add_to_row(
    row: RegistryRow, marker: str, rows: tuple[RegistryRow, ...] = (), why_unsafe: str = ""
) -> Fix | None:
    """Append `## marker` to the row's Completion Markers cell (replacing `No marker`), in
    the style of the table's entries, before a trailing note such as `(non-standard)`
    (notes stay last; an `(unconsumed: ...)` note waives one marker, so it stays with it).
    None for a marker no entry can declare (a backtick, or `No marker` itself). Unsafe, with
    `why_unsafe` in its description, when that is given."""
    if "`" in marker or marker.strip().lower() == NO_MARKER:
        return None
    start, end = row.markers_cell
    line = row.position.line
    entry = _marker_entry(marker, _entry_style(rows))
    if row.markers:
        last = row.markers[-1]
        at = end
        if last.annotation is not None and not last.unconsumed:
            note = _note_start(row.line_text[last.position.column - 1 : last.end_column - 1])
            at = last.position.column + len(
                row.line_text[last.position.column - 1 : last.position.column - 1 + note].rstrip()
            )
        edit = Edit(row.position.path, line, at, line, at, f", {entry}")
    else:
        edit = Edit(row.position.path, line, start, line, end, entry)
    description = f"add `## {marker}` to the registry row"
    if why_unsafe:
        return Fix(f"{description} (unsafe: {why_unsafe})", "unsafe", (edit,))
    return Fix(description, "safe", (edit,))


def _note_start(entry: str) -> int:
    """Where the trailing `(note)` of a marker entry starts, as the registry parser finds it."""
    depth = 0
    for i in range(len(entry) - 1, -1, -1):
        if entry[i] == ")":
            depth += 1
        elif entry[i] == "(":
            depth -= 1
            if depth == 0:
                return i
    return len(entry)


def remove_from_row(row: RegistryRow, marker: DeclaredMarker) -> Fix:
    """Drop one entry (and its comma) from the row's Completion Markers cell."""
    path, line = row.position.path, row.position.line
    entries = list(row.markers)
    i = entries.index(marker)
    if len(entries) == 1:
        start, end = row.markers_cell
        edit = Edit(path, line, start, line, end, "No marker")
    elif i == 0:
        edit = Edit(path, line, marker.position.column, line, entries[1].position.column, "")
    else:
        edit = Edit(path, line, entries[i - 1].end_column, line, marker.end_column, "")
    return Fix(f"remove `## {marker.text}` from the registry row", "unsafe", (edit,))


# `key: value  # comment`: the value ends at the first blank run before a `#` (or at the
# end of the line, trailing blanks included). Possessive, so a long run of blanks is
# scanned once; the lazy `(.*?)([ \t]+#.*)?$` it replaces (same matches, checked in
# tests/scanners/test_parser_properties.py) rescanned the run from each of its characters.
_KEY_VALUE = r"({key}[ \t]*:[ \t]*+)((?:[^ \t]|[ \t]++(?!#))*+)([ \t]+#.*)?$"


def set_frontmatter_value(
    facts: Facts, path: str, line: int, key: str, value: str, description: str
) -> Fix | None:
    """Replace the value of `key: ...` on `line` of `path`, keeping the key, its spacing and a
    trailing comment: every other byte of the frontmatter stays as it was. The value is
    written plain when YAML reads it back as that string, else quoted (see `yaml_scalar`)."""
    source = facts.sources.get(path)
    if source is None:
        return None
    if not 0 < line <= source.line_count:
        return None
    text = source.line_text(line)
    m = re.match(_KEY_VALUE.format(key=re.escape(key)), text)
    if m is None:
        return None
    start = m.end(1) + 1
    end = m.end(2) + 1
    old = m.group(2)
    quote = ""
    if not old or old[0] in "|>":
        return None  # the value is on the lines below (a block scalar): not one to replace
    if old[0] in "'\"":  # the quoting the author chose is kept; it may hold ` #`
        close = _closing_quote(text, m.start(2))
        if close < 0:
            return None  # a quoted value that goes on below
        quote, end = old[0], close + 2
    below = next(  # the next line not blank
        (b for n in range(line + 1, source.line_count + 1) if (b := source.line_text(n)).strip()),
        "",
    )
    if below[:1] in (" ", "\t") and not below.lstrip().startswith("#"):
        return None  # a plain value continued below
    # whether a plain value would do is decided (by the YAML parser, for an unusual one)
    # only when the fix is shown or applied
    return Fix(
        description,
        "safe",
        lambda: (Edit(path, line, start, line, end, yaml_scalar(value, quote)),),
    )


# a top-level `key: value` whose value is plain (not quoted, not a block, an anchor, an
# alias or a tag) and holds no ` #` (where a comment might start)
_PLAIN_PAIR = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:[ \t]+([^\s'\"|>&*!%@`#](?:(?! #).)*?)[ \t]*")


def quote_plain_value(facts: Facts, path: str, line: int, column: int) -> Fix | None:
    """Quote the one-line plain value in which the strict parser stops, at (line, column),
    in a frontmatter it rejects (`description: Use when: x`, `argument-hint: [name] | --all`),
    and any other such value it stops in after that, so that each key holds the text written
    after it. None where the error is not inside a top-level `key: value` on one line.
    Unsafe: the frontmatter now loads, so its keys (`tools`, `model`) take effect where the
    host ignored them all."""
    source = facts.sources.get(path)
    pair = None if source is None else _plain_value(source, line, column)
    if source is None or pair is None or not _keys_after(source, line):
        return None
    what = f"quote the value of `{pair.group(1)}`"
    return Fix(what, "unsafe", lambda: _quoted_lines(source, line, column))


# a top-level line the frontmatter may hold: a comment, or a key (plain or quoted) and `:`
_TOP_LINE = re.compile(r"""#|["']|[^\s#:][^:]*:(?:[ \t]|$)""")


def _keys_after(source: Source, line: int) -> bool:
    """Whether every line from `line` to the frontmatter's end that starts at column 0 is a
    comment or a key: a description that runs on as text below it (`Examples:` then
    `<example>` lines) stays invalid however its first line is quoted."""
    for n in range(line + 1, source.line_count + 1):
        text = source.line_text(n)
        if text.rstrip() == "---":
            return True
        if text[:1] not in ("", " ", "\t") and not _TOP_LINE.match(text):
            return False
    return True


def _plain_value(source: Source, line: int, column: int) -> re.Match[str] | None:
    """The `key: value` on `line`, when the column is inside its plain value and the value
    does not go on below."""
    if not 1 < line <= source.line_count:
        return None
    below = source.line_text(line + 1) if line < source.line_count else ""
    if below[:1] in (" ", "\t") and below.strip():
        return None  # a plain value continued below
    m = _PLAIN_PAIR.fullmatch(source.line_text(line))
    return m if m is not None and m.start(2) < column <= m.end(2) + 1 else None


def _quoted_lines(source: Source, line: int, column: int) -> tuple[Edit, ...]:
    from drift_check.yaml_loader import YamlError, safe_load  # ruamel.yaml, only for a fix

    lines = [source.line_text(n) for n in range(1, source.line_count + 1)]
    close = next((n for n in range(1, len(lines)) if lines[n].rstrip() == "---"), len(lines))
    edits: list[Edit] = []
    at: tuple[int, int] | None = (line, column)
    while at is not None and len(edits) < 20:
        m = _plain_value(source, *at)
        if m is None or any(e.line == at[0] for e in edits):
            break
        value = m.group(2)
        quote = '"' if "'" in value and '"' not in value and "\\" not in value else ""
        new = yaml_scalar(value, quote)
        if new == value:
            break
        edits.append(Edit(source.path, at[0], m.start(2) + 1, at[0], m.end(2) + 1, new))
        lines[at[0] - 1] = lines[at[0] - 1][: m.start(2)] + new + lines[at[0] - 1][m.end(2) :]
        try:
            safe_load("\n".join(lines[1:close]) + "\n")
            at = None
        except YamlError as exc:
            at = (exc.line + 1, exc.column)
        except Exception:
            break
    return tuple(edits) if at is None else ()  # no half fix: the frontmatter must load


def quote_flow_value(facts: Facts, path: str, line: int, key: str) -> Fix | None:
    """Quote a value written as a YAML list or mapping on one line (`argument-hint:
    [--repair]`), so that it reads as the text it shows. Safe: the host reads the text the
    author wrote where it read a list."""
    source = facts.sources.get(path)
    if source is None or not 0 < line <= source.line_count:
        return None
    text = source.line_text(line)
    m = re.match(_KEY_VALUE.format(key=re.escape(key)), text)
    if m is None or m.group(3) or m.group(2)[:1] not in ("[", "{"):
        return None
    written = m.group(2)
    if written[-1:] not in ("]", "}"):
        return None  # a list or mapping that goes on below
    quote = '"' if '"' not in written and "\\" not in written else ""
    edit = Edit(path, line, m.start(2) + 1, line, m.end(2) + 1, yaml_scalar(written, quote))
    return Fix(f"quote the `{key}` value", "safe", (edit,))


def _closing_quote(text: str, start: int) -> int:
    """The index of the quote that closes the one at `start` on this line, or -1."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        ch = text[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if quote == "'" and text[i + 1 : i + 2] == "'":
                i += 2
                continue
            return i
        i += 1
    return -1


def yaml_scalar(value: str, quote: str = "") -> str:
    """`value` written on one line so that a YAML parser reads it back as that string: plain
    when that reads back (`gsd-planner`) and no `quote` is asked for, else in single quotes
    (`'123'`, `'a #b'`), or in double quotes, with escapes, when `quote` is `"` or the value
    holds a character only an escape can write (a control character, a line break)."""
    if not quote and _reads_back_plain(value):
        return value
    if quote != '"' and all(_printable(ch) for ch in value):
        return "'" + value.replace("'", "''") + "'"
    return '"' + "".join(_escaped(ch) for ch in value) + '"'


def _printable(ch: str) -> bool:
    """A character YAML takes as itself inside a one-line quoted scalar: not a control
    character, a line break (ruamel.yaml counts U+0085, U+2028 and U+2029), a BOM or a
    surrogate."""
    code = ord(ch)
    return (
        ch == "\t"
        or 0x20 <= code <= 0x7E
        or (0xA0 <= code <= 0xD7FF and code not in (0x2028, 0x2029))
        or (0xE000 <= code <= 0xFFFD and code != 0xFEFF)
        or code >= 0x10000
    )


def _escaped(ch: str) -> str:
    if ch in '"\\':
        return "\\" + ch
    if ch == "\t":
        return "\\t"
    if _printable(ch):
        return ch
    code = ord(ch)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def _reads_back_plain(value: str) -> bool:
    if not value or value != value.strip(" \t") or not all(_printable(ch) for ch in value):
        return False
    simple = simple_yaml(f"k: {value}")  # the frontmatter fast path: as ruamel.yaml reads it
    if simple is not None:
        return simple == {"k": value}
    from drift_check.yaml_loader import safe_load  # ruamel.yaml, only for an unusual value

    try:
        return bool(safe_load(f"k: {value}\n") == {"k": value})
    except Exception:  # invalid YAML, or a date out of range (ValueError): quote it
        return False


def add_row(
    facts: Facts, agent: Agent, markers: list[str], consumers: dict[str, list[str]]
) -> Fix | None:
    """A registry row for an agent that has none, after the table's last row: the `markers`
    it emits (in the order it shows them), the files that consume them (`consumers`: for
    each marker, the files that contain it), and a Kind inferred from both and its tools.
    Unsafe when the row declares a marker nothing consumes (the registry then reports it
    until a person adds the branch that matches it or annotates it `(unconsumed: reason)`);
    the description names what the person must fill in."""
    registry = facts.registry
    if registry is None or not registry.rows or not _cell_safe(agent.name):
        return None  # a name that would split or garble the row is for a person to write
    description = f"add a registry row for `{agent.name}`"
    unconsumed = [m for m in markers if not consumers.get(m)]
    if unconsumed:
        listed = ", ".join(f"`## {m}`" for m in unconsumed)
        description += (
            f" (unsafe: nothing consumes {listed}; add the branch that matches it or annotate"
            " it `(unconsumed: reason)` in the new row"
            + ("; `Consumed by` is left empty" if registry.has_consumed_by else "")
            + ")"
        )
    return Fix(
        description,
        "unsafe" if unconsumed else "safe",
        lambda: _new_row(facts, agent, markers, consumers),
    )


def _new_row(
    facts: Facts, agent: Agent, markers: list[str], consumers: dict[str, list[str]]
) -> tuple[Edit, ...]:
    registry = facts.registry
    assert registry is not None
    last = registry.rows[-1]
    cited = sorted({c for m in markers for c in consumers.get(m, ()) if _cell_safe(c)})
    writes = agent.tools is None or bool(
        set(facts.settings["write-tools"]).intersection(agent.tools)
    )
    kind = "sentinel-match" if markers else "artifact+query" if writes else "structured-return"
    style = _entry_style(registry.rows)
    values = {
        "agent": agent.name,
        "role": _role(str((agent.frontmatter or {}).get("description", ""))),
        "completion_markers": ", ".join(_marker_entry(m, style) for m in markers) or "No marker",
        "consumed_by": ", ".join(f"`{c}`" for c in cited),
        "kind": kind,
    }
    cells = [values.get(column, "") for column in registry.columns]
    row = _registry_row(cells, registry.rows)
    line = last.position.line + 1
    return (Edit(registry.path, line, 1, line, 1, row),)


def _cell_safe(text: str) -> bool:
    """Text that reads back as itself in a table cell: no pipe, backtick, parenthesis,
    backslash or control character (a file name can hold any of them)."""
    return not any(ch in "|`()\\" or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in text)


# The last table's entry style and column layout, with its rows: a run adds rows or entries
# to one table for many findings, and each would otherwise read every row again (3,300 rows
# and 1,100 new ones made the fixes quadratic: 12 ms each).
_style_memo: tuple[tuple[RegistryRow, ...], tuple[bool, bool]] | None = None
_layout_memo: tuple[tuple[RegistryRow, ...], list[int] | None] | None = None


def _entry_style(rows: tuple[RegistryRow, ...]) -> tuple[bool, bool]:
    """How the table writes its markers: in backticks, and with a leading `## `, as most
    of its entries do (both, in a table with none)."""
    global _style_memo
    if _style_memo is None or _style_memo[0] is not rows:
        _style_memo = (rows, _count_style(rows))
    return _style_memo[1]


def _count_style(rows: tuple[RegistryRow, ...]) -> tuple[bool, bool]:
    ticks = hashes = total = 0
    for row in rows:
        for m in row.markers:
            raw = row.line_text[m.position.column - 1 : m.end_column - 1]
            raw = raw[: _note_start(raw)].strip()
            total += 1
            ticks += raw.startswith("`")
            hashes += raw.lstrip("`").startswith("#")
    if not total:
        return True, True
    return 2 * ticks >= total, 2 * hashes >= total


def _marker_entry(marker: str, style: tuple[bool, bool] = (True, True)) -> str:
    """`## marker` in backticks (or as the table writes its entries), a `|` escaped:
    drift-check reads `|` in a code span as text, but GitHub splits the table cell on it
    unless it is written `\\|`."""
    ticks, hashes = style
    text = ("## " if hashes else "") + marker.replace("|", "\\|")
    bare = ticks or any(ch in ",()" for ch in marker)  # those would split a bare entry
    return f"`{text}`" if bare else text


# Where a description's first clause ends, after its second word: punctuation, a dash, or a
# word that starts what the agent does it for, with or to (`Researches X to produce Y`).
_CLAUSE_END = (
    r",|;|: | [-\u2013\u2014] | \(| (?:to|for|from|in|into|with|and|as|of|by|that|which|"
    r"when|before|after|using|via) "
)
_ROLE_LIMIT = 60
_DANGLING = {"a", "an", "the", "and", "or", "of", "to", "for", "in", "with", "by", "as"}


def _role(description: str) -> str:
    """The Role cell for a new row, a short clause like its neighbours' (`Plan creation`):
    the description's first sentence up to where its first clause ends (`Reviews source
    files` of `Reviews source files for bugs, ...`), on one line, never cut with an
    ellipsis. A `. ` or a clause end inside parentheses or a code span (`(e.g. plans)`)
    does not count; a parenthesis or code span left open is closed, and `|` is escaped,
    since either would split the row in other places."""
    text = " ".join(description.split())  # one line: a line break would end the row
    inside = _grouped(text)
    end = next(
        (i for i in range(len(text) - 1) if text[i : i + 2] == ". " and not inside[i]),
        len(text),
    )
    role = text[:end].rstrip(". ")
    second_word = role.find(" ", role.find(" ") + 1)
    if second_word > 0:
        clause_end = re.compile(_CLAUSE_END, re.IGNORECASE)  # here, not at every start-up
        cut = next(
            (m.start() for m in clause_end.finditer(role, second_word) if not inside[m.start()]),
            len(role),
        )
        role = role[:cut].rstrip(" .")
    if len(role) > _ROLE_LIMIT:  # no clause end early enough: whole words, none dangling
        words = role[: _ROLE_LIMIT + 1].split(" ")[:-1]
        while len(words) > 2 and words[-1].lower() in _DANGLING:
            words.pop()
        role = " ".join(words).rstrip(",;:")
    in_code, depth = _open_groups(role)
    close = ("`" if in_code else "") + ")" * depth
    return (role + close).replace("|", "\\|")


def _open_groups(text: str) -> tuple[bool, int]:
    """Whether `text` ends inside a code span, and how many parentheses are open there,
    counted as the registry parser splits cells (parentheses in code spans do not count,
    nor does a `)` with none open)."""
    in_code, depth = False, 0
    for ch in text:
        if ch == "`":
            in_code = not in_code
        elif not in_code and ch == "(":
            depth += 1
        elif not in_code and ch == ")" and depth:
            depth -= 1
    return in_code, depth


def _grouped(text: str) -> list[bool]:
    """For each character, whether it lies in a code span or between parentheses that are
    closed later (a backtick or `(` never closed groups nothing)."""
    ticks = [i for i, ch in enumerate(text) if ch == "`"]
    delta = [0] * (len(text) + 1)
    code = [False] * len(text)
    for a, b in zip(ticks[0::2], ticks[1::2], strict=False):
        delta[a] += 1
        delta[b + 1] -= 1
        code[a : b + 1] = [True] * (b + 1 - a)
    opened: list[int] = []
    for i, ch in enumerate(text):
        if code[i]:
            continue
        if ch == "(":
            opened.append(i)
        elif ch == ")" and opened:
            delta[opened.pop()] += 1
            delta[i + 1] -= 1
    out, level = [], 0
    for d in delta[:-1]:
        level += d
        out.append(level > 0)
    return out


def replace_text(path: str, line: int, column: int, old: str, new: str, what: str) -> Fix:
    """Replace `old`, which starts at (line, column), with `new` (on one line)."""
    edit = Edit(path, line, column, line, column + len(old), new)
    return Fix(what, "unsafe", (edit,))


def rename_tag(facts: Facts, path: str, old: str, new: str) -> Fix | None:
    """Every opening and closing `old` tag of a file renamed to `new` (the edits are found
    only when the fix is applied)."""
    source = facts.sources.get(path)
    if source is None:
        return None
    return Fix(f"rename `{old}` to `{new}`", "safe", lambda: _tag_edits(source, old, new))


def _tag_edits(source: Source, old: str, new: str) -> tuple[Edit, ...]:
    path = source.path
    closing_old = old.replace("<", "</", 1)
    closing_new = new.replace("<", "</", 1)
    edits = []
    for tag, replacement in ((old, new), (closing_old, closing_new)):
        i = source.text.find(tag)
        while i >= 0:
            pos = source.position(i)
            edits.append(
                Edit(path, pos.line, pos.column, pos.line, pos.column + len(tag), replacement)
            )
            i = source.text.find(tag, i + len(tag))
    return tuple(sorted(edits))


def set_name(facts: Facts, path: str, key_lines: dict[str, int], name: str) -> Fix | None:
    """`name:` in the frontmatter of `path` set to `name`."""
    return set_frontmatter_value(
        facts, path, key_lines.get("name", 0), "name", name, f"set `name: {name}`"
    )


def rewrite_consumed_by(row: RegistryRow, consumers: list[str]) -> Fix | None:
    """The row's `Consumed by` cell listing the files that really consume its markers. Safe
    when the cell held only backticked paths; unsafe when prose would be dropped."""
    start, end = row.consumed_by_cell
    if not start or not consumers:
        return None
    old = row.line_text[start - 1 : end - 1]
    prose = re.sub(r"`[^`]*`|[,\s]", "", old)
    new = ", ".join(f"`{c}`" for c in consumers)
    line = row.position.line
    edit = Edit(row.position.path, line, start, line, end, new)
    return Fix("cite the files that consume the markers", "unsafe" if prose else "safe", (edit,))


def drop_cited(row: RegistryRow, cited: CitedPath) -> Fix | None:
    """The one `Consumed by` entry `cited` removed with its comma, every other byte of the
    cell kept. None unless the entry is a comma item of its own holding only that code span
    (a path inside a note, `(also spawned by `x.md`)`, or with words around it, is prose a
    person wrote), or when it is the only one (the cell would be left empty)."""
    start, end = row.consumed_by_cell
    if not start:
        return None
    items = split_outside(row.line_text[start - 1 : end - 1], ",", start)
    i = next((n for n, c in enumerate(items) if c.column == cited.position.column), -1)
    if i < 0 or len(items) < 2 or not re.fullmatch(r"`[^`]*`", items[i].text):
        return None
    path, line = row.position.path, row.position.line
    if i > 0:
        before = items[i - 1]
        edit = Edit(
            path,
            line,
            before.column + len(before.text),
            line,
            cited.position.column + len(items[i].text),
            "",
        )
    else:
        edit = Edit(path, line, cited.position.column, line, items[1].column, "")
    return Fix(f"drop `{cited.path}` from `Consumed by`", "safe", (edit,))


def rewrite_matrix_row(facts: Facts, row: MatrixRow, skills: list[str]) -> Fix | None:
    """The matrix row's frontmatter cell set to the agent's `skills:` list, and injected
    skills dropped from its on-demand cell."""
    matrix = facts.matrix
    if matrix is None or row.frontmatter_cell is None:
        return None
    line = row.position.line
    start, end = row.frontmatter_cell
    edits = [Edit(matrix.path, line, start, line, end, ", ".join(skills))]
    if row.on_demand_cell is not None and any(r.name in skills for r in row.on_demand):
        od_start, od_end = row.on_demand_cell
        kept = ", ".join(r.name for r in row.on_demand if r.name not in skills)
        edits.append(Edit(matrix.path, line, od_start, line, od_end, kept))
    edits.sort()
    return Fix("rewrite the matrix row from the agent's frontmatter", "safe", tuple(edits))


def _aligned_row(cells: list[str], rows: list[str]) -> str:
    """A table row in the style of the table whose rows are `rows`: padded to its columns
    when every row puts its pipes at the same places, one space around each cell
    otherwise."""
    return _laid_out(cells, rows[0], _shared_pipes(rows))


def _registry_row(cells: list[str], rows: tuple[RegistryRow, ...]) -> str:
    """`_aligned_row` for the registry's rows, their layout worked out once for them."""
    global _layout_memo
    if _layout_memo is None or _layout_memo[0] is not rows:
        _layout_memo = (rows, _shared_pipes([r.line_text for r in rows]))
    return _laid_out(cells, rows[0].line_text, _layout_memo[1])


def _laid_out(cells: list[str], first: str, pipes: list[int] | None) -> str:
    """A row padded to the columns `pipes` gives (where the table's pipes sit, as in its
    line `first`), or one space around each cell where they do not fit the cells."""
    if pipes is None or len(cells) + 1 != len(pipes):
        return "| " + " | ".join(cells) + " |\n"
    out = first[: pipes[0]]
    for i, cell in enumerate(cells):
        width = pipes[i + 1] - pipes[i] - 1
        out += "| " + cell.ljust(width - 2) + " "
    return out + "|\n"


def _shared_pipes(lines: list[str]) -> list[int] | None:
    """Where every line puts its pipes, when all put them at the same places."""
    first = [i for i, ch in enumerate(lines[0]) if ch == "|"]
    for line in lines[1:]:
        if line.count("|") != len(first) or any(line[i : i + 1] != "|" for i in first):
            return None
    return first


def replace_list_entry(
    facts: Facts, entries: tuple[Named, ...], index: int, old: str, new: str
) -> Fix | None:
    """Write `new` over the name `old` that starts entry `index` of a frontmatter list
    (`tools: Read, MultiEdit` or a `- MultiEdit` item); with `new` empty, remove the entry and
    the separator before it (or after it, for the first). None when the entry is not where
    the scan put it, is the only one, or is written in a way an edit could break."""
    entry = entries[index]
    path, line, column = entry.position
    source = facts.sources.get(path)
    if source is None:
        return None
    text = source.line_text(line)
    if not 0 < line <= source.line_count or text[column - 1 :][: len(old)] != old:
        return None
    end = column + len(entry.name)
    if new:
        edit = Edit(path, line, column, line, column + len(old), new)
        return Fix(f"replace `{old}` with `{new}`", "unsafe", (edit,))
    if len(entries) < 2:
        return None  # an empty list means something else than a short one
    if text.strip() == f"- {entry.name}":
        edit = Edit(path, line, 1, line + 1, 1, "")  # a block-list item: its whole line
    elif index > 0 and entries[index - 1].position.line == line:
        before = entries[index - 1]
        edit = Edit(path, line, before.position.column + len(before.name), line, end, "")
    elif index + 1 < len(entries) and entries[index + 1].position.line == line:
        edit = Edit(path, line, column, line, entries[index + 1].position.column, "")
    else:
        return None
    return Fix(f"remove `{entry.name}`", "unsafe", (edit,))

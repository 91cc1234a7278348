"""The immutable model of a repository's contracts.

Scanners build these facts from files; rules read them and never touch the file system.
Every fact that a finding can point at carries a `Position` (1-based line and column).
"""

from array import array
from bisect import bisect_right
from collections.abc import Iterable
from functools import total_ordering
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Protocol

from drift_check.records import NamedTuple

if TYPE_CHECKING:
    from drift_check.config import Config
    from drift_check.markers import Index  # built from the facts below, by the scan
    from drift_check.validation import Contracts  # the schemas' validators, built on first use


def text_digest(data: bytes) -> int:
    """What a file's bytes are checked against when it is read again: their size and hash
    (the interpreter's own: it only has to agree with itself within one run), in one int."""
    return len(data) << 64 | hash(data) & 0xFFFF_FFFF_FFFF_FFFF


class Position(NamedTuple):
    path: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


# A finding about the tree with no place in any file (a registry that only a `--preset` on
# the command line asks for): reporters print it without a path, line and column.
NOWHERE = Position("", 0, 0)


class InputProblem(NamedTuple):
    """A file that could not be read or parsed; the rest of the tree is still checked."""

    position: Position
    # "unreadable", "registry-missing", "registry-row", "frontmatter", "fence", "include",
    # "matrix-missing", "json"
    kind: str
    message: str


class DeclaredMarker(NamedTuple):
    """One entry of a registry row's `Completion Markers` cell."""

    text: str
    position: Position
    annotation: str | None = None
    unconsumed: bool = False
    unconsumed_reason: str = ""
    end_column: int = 0  # just after the entry (its annotation included)


class CitedPath(NamedTuple):
    """A repository path cited in a row's `Consumed by` cell."""

    path: str
    position: Position


class RegistryRow(NamedTuple):
    agent: str
    position: Position  # the agent cell
    markers: tuple[DeclaredMarker, ...]
    consumed_by: tuple[CitedPath, ...]
    kind: str | None
    kind_position: Position | None
    line_text: str
    markers_cell: tuple[int, int] = (0, 0)  # columns: first character, just after the last
    consumed_by_cell: tuple[int, int] = (0, 0)  # the same for `Consumed by`, if the column is there

    @property
    def all_marker_texts(self) -> tuple[str, ...]:
        return tuple(m.text for m in self.markers)


class Registry(NamedTuple):
    path: str
    heading_position: Position
    columns: tuple[str, ...]
    rows: tuple[RegistryRow, ...]

    @property
    def has_consumed_by(self) -> bool:
        return "consumed_by" in self.columns

    @property
    def has_kind(self) -> bool:
        return "kind" in self.columns


class Include(NamedTuple):
    """An `@path` include (or, where the pack enables it, a ``Read `path` `` instruction) in
    an agent file; `resolved` is a repository path or None."""

    token: str
    position: Position
    resolved: str | None
    read_mention: bool = False


class Emission(NamedTuple):
    """A fenced heading attributed to an agent, from its own file or an included document."""

    agent: str
    text: str
    position: Position  # where the heading really sits
    via: str | None = None  # how the agent reaches that document (`@...` or ``Read `...` ``)
    text_column: int = 0  # where the heading's text starts on its line (after `#`); 0: unknown


class Named(NamedTuple):
    """A name written somewhere: a `skills:` entry, a `tools:` entry, a matrix cell."""

    name: str
    position: Position


class Link(NamedTuple):
    """A relative Markdown link, or a mention of a sibling document (`reference.md`)."""

    target: str  # as written, without the anchor
    anchor: str | None
    resolved: str | None  # the repository path it points at; None if it leaves the root
    position: Position


class Mention(NamedTuple):
    """A path a SKILL.md or agent names in its text (``See `scripts/check.sh` ``), after
    `${CLAUDE_SKILL_DIR}/` or `${CLAUDE_PLUGIN_ROOT}/`, or in a skill's `license:` value."""

    path: str  # as written, without the variable, a leading `./` or a trailing `/`
    kind: str  # "text", "skill-dir", "plugin-root" or "license"
    position: Position
    bare: bool = False  # a file name with no folder (`FORMS.md`)
    here: bool = False  # the text says the file is in this folder ("in this directory")
    # (line, column) of each later mention in the text that is the same in all the above but
    # its position: a text often names one file on many lines (one record, not one each)
    repeats: tuple[tuple[int, int], ...] = ()


class MemoryImport(NamedTuple):
    """An `@path` import in a memory file (`CLAUDE.md`, `AGENTS.md`, ...); `resolved` is the
    repository path it names, None for `~/...`, absolute paths and paths leaving the root."""

    token: str
    resolved: str | None
    position: Position


class MemoryFile(NamedTuple):
    """A memory file: instructions a host loads at start-up, with its links and imports."""

    path: str
    links: tuple[Link, ...]
    imports: tuple[MemoryImport, ...]


class FencedHeading(NamedTuple):
    """A heading inside a fenced block: no anchor, whatever a link to it expects."""

    text: str
    line: int
    fence: Position  # where the fence holding it opens
    fence_closed: bool


class Agent(NamedTuple):
    name: str
    path: str
    frontmatter: dict[str, Any] | None
    frontmatter_lines: dict[str, int]
    tools: tuple[str, ...] | None
    emissions: tuple[Emission, ...]
    includes: tuple[Include, ...]
    texts: tuple["Source", ...]  # the agent's file followed by the documents it includes
    skills: tuple[Named, ...] | None = None  # the frontmatter `skills:` list, if any
    tool_names: tuple[Named, ...] = ()  # the `tools:` entries with their positions
    links: tuple[Link, ...] = ()
    disallowed_tool_names: tuple[Named, ...] = ()  # the `disallowedTools:` entries
    path_mentions: tuple[Mention, ...] = ()  # paths its text names, from the plugin root

    def emits(self, marker: str) -> bool:
        return any(e.text == marker for e in self.emissions)


class SourceChanged(Exception):
    """A file changed on disk after drift-check read it: a fix, a diff or a report that
    needs its text again would work on a text that is no longer the file's."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: changed on disk since drift-check read it; run it again")
        self.path = path


class TextStore(Protocol):
    """Where a `Source` that let its text go gets it back (`drift_check.scanners.files`)."""

    def reread(self, source: "Source") -> str: ...


# lines `Source.line_text` finds by counting where no table of line starts is built
_COUNTED_LINES = 64


@total_ordering
class Source:
    """One file as read (lines end in `\\n`), with line/column lookup.

    The text is held while the scan works on the file; after that the source keeps its
    path, its bytes' style and their digest, and reads the file again when a fix, a diff or
    a report asks for the text (`SourceChanged` if the file is no longer what was read). A
    source made from a text, not read from a file, always holds it.

    The first few positions are counted; then the line starts are found once and kept as
    4-byte offsets while the text is held: every lookup is a bisection or an index, and
    nobody splits the text again.
    """

    __slots__ = (
        "_counted",
        "_starts",
        "_store",
        "_text",
        "bom",
        "digest",
        "endings",
        "newline",
        "path",
    )

    def __init__(
        self,
        path: str,
        text: str,
        newline: str = "\n",
        bom: bool = False,
        digest: int | None = None,
        store: TextStore | None = None,
        endings: tuple[str, ...] | None = None,
    ) -> None:
        self.path = path
        self._text: str | None = text
        # how the file on disk ends its lines: "\n", "\r\n" or "\r" when all do so, else the
        # commonest, with `endings` the ending of each line but the last, in order
        self.newline = newline
        self.endings = endings
        self.bom = bom  # the file on disk starts with a UTF-8 byte-order mark
        # the size and hash of the bytes read (of the text's UTF-8 for a source made from one)
        self.digest = digest if digest is not None else text_digest(text.encode("utf-8"))
        self._store = store  # None: the text is never let go
        self._starts: array[int] | None = None
        self._counted = 0  # positions found by counting, before a table of line starts

    def __repr__(self) -> str:
        return f"Source({self.path!r}, {self.digest >> 64} bytes)"

    @property
    def text(self) -> str:
        """The decoded text, read again from the file if it was let go."""
        text = self._text
        if text is None:
            assert self._store is not None
            text = self._store.reread(self)
        return text

    @property
    def held(self) -> bool:
        return self._text is not None

    @property
    def rereadable(self) -> bool:
        """Whether the text can be let go (and read again from the file)."""
        return self._store is not None

    def hold(self, text: str) -> None:
        """Keep `text` (the store's, read again and checked) until `release`."""
        self._text = text

    def release(self) -> None:
        """Let the text (and the line starts) go, if the file can be read again."""
        if self._store is not None:
            self._text = None
            self._starts = None
            self._counted = 0

    def _key(self) -> tuple[str, int, str, bool]:
        return (self.path, self.digest, self.newline, self.bom)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Source) else NotImplemented

    def __lt__(self, other: "Source") -> bool:  # facts holding sources sort by path first
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash((self.path, self.digest))

    @property
    def starts(self) -> "array[int]":
        """The offset where each line starts: one more entry than the text has `\\n`s."""
        if self._starts is None:
            text = self.text
            # each line's length plus its newline, summed in C: the start of the next line
            lengths = map((1).__add__, map(len, text.split("\n")))
            starts = array("q" if len(text) >= 1 << 32 else "I", accumulate(lengths, initial=0))
            starts.pop()  # past the end of the text
            if self._text is not None:  # kept only with the text they index
                self._starts = starts
            return starts
        return self._starts

    @property
    def line_count(self) -> int:
        """As many as `text.split("\\n")` gives: a final newline ends a last, empty line."""
        if self._starts is None:
            return self.text.count("\n") + 1  # no table built for this alone
        return len(self.starts)

    def line(self, offset: int) -> int:
        """The 1-based line of a text offset."""
        return bisect_right(self.starts, offset)

    def position(self, offset: int) -> Position:
        if self._starts is None and self._counted < 3:
            # a few positions cost less counted than a table of every line start (a file
            # read again for one search asks for one or two)
            text = self.text
            if 0 <= offset <= len(text):
                self._counted += 1
                start = text.rfind("\n", 0, offset) + 1
                return Position(self.path, text.count("\n", 0, start) + 1, offset - start + 1)
        starts = self.starts
        line = bisect_right(starts, offset)
        return Position(self.path, line, offset - starts[line - 1] + 1)

    def positions(self, offsets: Iterable[int]) -> dict[int, Position]:
        """The position of each offset, found by counting lines in one pass over the text
        up to the last of them: for a few places in a file that nothing else asks a line
        of, cheaper than a table of every line start (which is used when there is one)."""
        if self._starts is not None:
            return {offset: self.position(offset) for offset in offsets}
        text, path = self.text, self.path
        out: dict[int, Position] = {}
        line, counted = 1, 0
        for offset in sorted(set(offsets)):
            line += text.count("\n", counted, offset)
            counted = offset
            out[offset] = Position(path, line, offset - text.rfind("\n", 0, offset))
        return out

    def offset(self, line: int, column: int) -> int:
        """The text offset of a 1-based (line, column); past the last line, the end of the
        text. The column is not checked against the line's length."""
        starts = self.starts
        if line > len(starts):
            return len(self.text)
        return starts[line - 1] + column - 1

    def line_text(self, line: int) -> str:
        """The text of 1-based `line` without its `\\n`; "" for a line the text lacks."""
        if self._starts is None and 0 < line <= _COUNTED_LINES:
            # without a table of line starts (a text let go, or read for a fix's few
            # lines), a line near the top (frontmatter) costs less found by counting
            text = self.text
            start = 0
            for _ in range(line - 1):
                start = text.find("\n", start) + 1
                if not start:
                    return ""
            end = text.find("\n", start)
            return text[start:] if end < 0 else text[start:end]
        starts = self.starts
        if not 0 < line <= len(starts):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end]

    def find(self, needle: str) -> Position | None:
        i = self.text.find(needle)
        return None if i < 0 else self.position(i)


class StringLiteral(NamedTuple):
    value: str
    position: Position


class Consumer(NamedTuple):
    """A file whose text can consume markers.

    Markdown consumers match anywhere in their text; Python consumers only in string
    literals (comments and identifiers are not consumptions).
    """

    source: Source
    literals: tuple[StringLiteral, ...] | None = None  # set for Python files
    dispatch_surface: bool = False  # workflows and commands, not agents
    # the known agents it dispatches to (`subagent_type=NAME`), each where it is written
    dispatches: tuple[Named, ...] = ()

    @property
    def path(self) -> str:
        return self.source.path

    def find(self, needle: str) -> Position | None:
        if self.literals is None:
            return self.source.find(needle)
        for lit in self.literals:
            i = lit.value.find(needle)
            if i >= 0:
                return lit.position
        return None


class Occurrence(NamedTuple):
    """Where a consumer first contains a marker's text (in a Python consumer, the string
    literal holding it)."""

    path: str
    position: Position
    written: str  # the text found there: the marker itself, or another case of it


class MarkerOccurrences(NamedTuple):
    """For each text searched (every declared marker, every fenced heading an agent emits,
    every quoted `## TOKEN`), the consumers that contain it, each once, sorted by path."""

    exact: dict[str, tuple[Occurrence, ...]]
    folded: dict[str, tuple[Occurrence, ...]]  # ignoring ASCII case (exact ones included)


NO_OCCURRENCES = MarkerOccurrences({}, {})


class QuotedMarker(NamedTuple):
    """A `## TOKEN` quoted in a consumer (in backticks or quotes): a match instruction."""

    text: str
    position: Position
    dispatched_agent: str | None  # the agent the surrounding text dispatches to, if named
    dispatch_surface: bool = False  # quoted in a workflow or command
    block_line: int = 0  # first line of the paragraph or list the quote sits in


class Skill(NamedTuple):
    """A `skills/<name>/SKILL.md`: the name is its directory's."""

    name: str
    path: str
    directory: str
    has_frontmatter: bool
    frontmatter: dict[str, Any] | None  # None when absent or invalid
    frontmatter_lines: dict[str, int]
    line_count: int  # counted as the pack says (`skill-line-count`)
    token_estimate: int
    links: tuple[Link, ...]  # relative links and sibling-document mentions
    allowed_tools: tuple[Named, ...] = ()  # the `allowed-tools:` entries
    disallowed_tools: tuple[Named, ...] = ()  # the `disallowed-tools:` entries
    path_mentions: tuple[Mention, ...] = ()  # paths its text names, from the skill folder


class Command(NamedTuple):
    """A slash command file (`commands/**/*.md`): its name is its path under `commands/`,
    folders joined with `:` (`commands/db/migrate.md` is `db:migrate`)."""

    name: str
    path: str
    frontmatter: dict[str, Any] | None  # None when absent or invalid
    frontmatter_lines: dict[str, int]
    allowed_tools: tuple[Named, ...] = ()  # the `allowed-tools:` entries
    disallowed_tools: tuple[Named, ...] = ()  # the `disallowed-tools:` entries


class SkillVariant(NamedTuple):
    """A host copy `SKILL.<host>.md` beside a SKILL.md (`SKILL.codex.md`, `SKILL.cursor.md`):
    the same skill published for another host, whose frontmatter must keep up with it."""

    path: str
    main: str  # the SKILL.md beside it
    frontmatter: dict[str, Any] | None
    frontmatter_lines: dict[str, int]


class UndeclaredAgent(NamedTuple):
    """An agent file beside the agents a plugin manifest lists by path, missing from that
    list: Claude Code loads only the listed ones."""

    path: str
    manifest: str
    key_line: int  # the manifest's `agents` line


class MatrixRow(NamedTuple):
    agent: str
    position: Position
    frontmatter: tuple[Named, ...]  # the skills the row says the agent lists in frontmatter
    on_demand: tuple[Named, ...]  # the skills the row says the agent loads on demand
    # (first column, column just after) of the frontmatter and on-demand cells, when the
    # matrix has one column of each
    frontmatter_cell: tuple[int, int] | None = None
    on_demand_cell: tuple[int, int] | None = None
    # skills of columns whose header does not say how they load (`Domain Skills`): Gaia's
    # trees have used that column both for per-agent frontmatter skills and for on-demand ones
    either: tuple[Named, ...] = ()


class SkillMatrix(NamedTuple):
    """A table restating agents' frontmatter skills (Gaia's skill assignment matrix)."""

    path: str
    position: Position
    rows: tuple[MatrixRow, ...]


class UnassignedList(NamedTuple):
    """A list introduced as naming skills that are in no agent's frontmatter."""

    path: str
    position: Position
    items: tuple[Named, ...]


class TreeEntry(NamedTuple):
    path: str  # repository path the drawn entry stands for
    is_dir: bool
    position: Position


class SkillTree(NamedTuple):
    """A directory tree of the skills folder drawn in a README."""

    path: str
    root: str  # the folder the tree is drawn from, e.g. `skills`
    position: Position
    entries: tuple[TreeEntry, ...]


class Directive(NamedTuple):
    """A suppression comment as written (`<!-- drift-check: ignore[DC701] reason -->`, or
    `# drift-check: ...` in Python and in YAML frontmatter). What it covers is decided by
    the suppression stage (`drift_check/filters.py`); see docs/suppressions.md."""

    position: Position  # where the comment starts: `<!--` or `#`
    kind: str  # ignore, ignore-file, disable-next-line, disable, enable; or a word that is none
    codes: tuple[Named, ...] | None  # each code (upper-cased) where written; None: no brackets
    reason: str
    alone: bool = False  # nothing but blanks and comments on its line


class IdleSuppression(NamedTuple):
    """A directive, or a code in it, that does nothing: what the suppression stage hands to
    the rules that read it (DC010). `why` says what is wrong:

    - `unused`: it covered no finding (`codes`: its idle entries; empty: all codes);
      `lines`: the lines it covers (last 0: to the end of the file); `next_line`: for an
      `ignore` after text, the next line when a finding it names is left there (0: none);
    - `unknown-code`: a code no rule has (at the code, `codes` holds it); `rule-name`: a
      rule's name instead of its code (`codes`: the name and the code); `not-suppressible`:
      the code of a rule that reports on suppressions themselves;
    - `no-code`: empty brackets; `unknown-kind`: a word that is no directive's;
      `codes-unbracketed`: a code written after the word without brackets (`codes`: it);
      `no-disable`: an `enable`, or a code of it (`codes`), that ends no `disable`."""

    directive: Directive
    position: Position
    why: str
    codes: tuple[str, ...] = ()
    lines: tuple[int, int] = (0, 0)
    next_line: int = 0


class Suppressions(NamedTuple):
    """The suppression stage's output, as the rules that run after it read it."""

    idle: tuple[IdleSuppression, ...] = ()


class ReadGate(NamedTuple):
    """An occurrence of a read tag in a consumer: files sent to an agent to read. The tag is
    the read-gate tag (`Facts.read_gates`) or a retired one (`Facts.legacy_reads`)."""

    position: Position
    dispatched_agent: str | None  # the agent the surrounding section dispatches to, if named
    tag: str = ""


class JsonValue(NamedTuple):
    """A JSON value and where it starts. `value` is the Python value for a string, number,
    boolean or null; a tuple of `JsonValue` for an array; a tuple of `JsonMember` for an
    object, in file order, a repeated key kept each time."""

    kind: str  # "object", "array", "string", "number", "boolean", "null"
    value: Any
    position: Position

    def member(self, key: str) -> "JsonMember | None":
        """The member named `key` (the last one, as JSON.parse keeps it), if any."""
        if self.kind != "object":
            return None
        return next((m for m in reversed(self.value) if m.key == key), None)

    def get(self, key: str) -> "JsonValue | None":
        found = self.member(key)
        return None if found is None else found.value

    def text(self, key: str) -> str | None:
        """The string value of `key`, or None when it is absent or not a string."""
        found = self.get(key)
        return found.value if found is not None and found.kind == "string" else None

    def plain(self) -> Any:
        """The value as `json.loads` gives it (built without recursion: depth is bounded
        by the parser's limit, not by Python's stack)."""
        if self.kind not in ("object", "array"):
            return self.value
        root: Any = {} if self.kind == "object" else []
        todo: list[tuple[JsonValue, Any]] = [(self, root)]
        while todo:
            node, out = todo.pop()
            pairs = (
                ((m.key, m.value) for m in node.value)
                if node.kind == "object"
                else enumerate(node.value)
            )
            for key, child in pairs:
                if child.kind in ("object", "array"):
                    value: Any = {} if child.kind == "object" else []
                    todo.append((child, value))
                else:
                    value = child.value
                if node.kind == "object":
                    out[key] = value
                else:
                    out.append(value)
        return root


class JsonMember(NamedTuple):
    key: str
    key_position: Position
    value: JsonValue


# manifest keys whose value is a `./` path or a list of them; the inline ones may also be
# an object holding the configuration itself
COMPONENT_KEYS = (
    "agents",
    "commands",
    "skills",
    "outputStyles",
    "hooks",
    "mcpServers",
    "lspServers",
)
INLINE_COMPONENT_KEYS = ("hooks", "mcpServers", "lspServers")


class ComponentPath(NamedTuple):
    """A path a plugin manifest (or a marketplace entry) declares for a component: the
    `agents`, `skills`, `commands`, `hooks`, `mcpServers`, `outputStyles` or `lspServers`
    key, as a string or one entry of a list."""

    key: str
    written: str
    resolved: str | None  # repository path, for a `./` path inside a plugin root in the tree
    position: Position
    problem: str = ""  # "prefix": not a `./` path; "outside": leaves the plugin root


class Plugin(NamedTuple):
    """A plugin root: the folder holding `.claude-plugin/plugin.json`, or the folder a
    marketplace's relative `source` names (the manifest is optional)."""

    root: str  # "" for the tree's root
    manifest: str | None  # its `.claude-plugin/plugin.json`, when there is one
    name: Named | None  # the manifest's `name`, when it is a string
    components: tuple[ComponentPath, ...]  # declared by the manifest


class MarketplaceEntry(NamedTuple):
    """One entry of a marketplace's `plugins` list."""

    position: Position  # the entry's opening brace
    name: Named | None
    source: Named | None  # a string `source`, as written
    source_kind: str  # "path", "object" (github, url, ...) or "other"
    root: str | None  # the plugin root a relative source names, inside the tree
    components: tuple[ComponentPath, ...]  # component paths set on the entry itself
    strict: bool  # false: the entry, not the plugin's manifest, defines the plugin


class Marketplace(NamedTuple):
    path: str  # its `.claude-plugin/marketplace.json`
    root: str  # the folder holding `.claude-plugin/`; `./` sources resolve from here
    entries: tuple[MarketplaceEntry, ...]
    plugin_root: str | None = None  # `metadata.pluginRoot`, where bare-name sources resolve


class HookCommand(NamedTuple):
    """A `command` hook and the script it runs, when the command names one inside the tree
    (through `${CLAUDE_PLUGIN_ROOT}` in a plugin, `$CLAUDE_PROJECT_DIR` in settings)."""

    event: str
    command: str
    position: Position  # the script's path inside the command string, or the string
    script: str | None  # repository path of the script; None when not checkable
    written: str  # the script's path as the command writes it


class HookConfig(NamedTuple):
    """Hooks read from one place: a plugin's hooks file, hooks inline in a plugin.json, or
    the `hooks` of `.claude/settings*.json`."""

    path: str
    document: JsonValue  # the file's top level (a hooks file, a plugin.json, settings)
    hooks: JsonValue | None  # the event -> matcher groups mapping; None when missing
    plugin_root: str | None  # for `${CLAUDE_PLUGIN_ROOT}`
    project_dir: str | None  # for `$CLAUDE_PROJECT_DIR` (the folder holding `.claude/`)
    commands: tuple[HookCommand, ...]


class Manifests(NamedTuple):
    """Every JSON manifest found by name, parsed with positions, and the model built from
    them: plugins, marketplaces, hooks and MCP configurations."""

    documents: dict[str, JsonValue]  # every manifest that parsed, by path
    plugins: tuple[Plugin, ...]  # by root
    marketplaces: tuple[Marketplace, ...]
    hooks: tuple[HookConfig, ...]
    mcp_files: tuple[str, ...]  # `.mcp.json` files
    settings_files: tuple[str, ...]  # `.claude/settings.json`, `.claude/settings.local.json`


EMPTY_MANIFESTS = Manifests({}, (), (), (), (), ())


class BlockValue(NamedTuple):
    """A value of a structured block, with where it is written. Kinds: the JSON kinds
    (`object`: a tuple of `BlockMember`; `array`: a tuple of `BlockValue`; `string`,
    `number`, `boolean`, `null`: the Python value), `placeholder` (`<id>`, `{{VAR}}`, a string
    holding one, `...`: any value; `value` is the text) and `alternatives` (`a | b`: a tuple
    of `BlockValue`, each a literal to check)."""

    kind: str
    value: Any
    position: Position
    # a bare template scalar (`version: 1.0`): a string too, whatever it looks like
    loose: bool = False
    blank: bool = False  # `""` or `[]` in a template: a slot to fill, of its kind

    def member(self, key: str) -> "BlockMember | None":
        if self.kind != "object":
            return None
        return next((m for m in reversed(self.value) if m.key == key), None)


class BlockMember(NamedTuple):
    key: str
    key_position: Position
    value: BlockValue


class SchemaExample(NamedTuple):
    """One of a schema's own `examples` entries, or a `default`, with the subschema it must
    satisfy (a JSON pointer into the schema)."""

    pointer: str  # of the subschema holding the keyword
    keyword: str  # "examples" or "default"
    index: int  # the entry's index in `examples` (0 for a default)
    # the entry as `json.loads` gives it: enough to tell whether it satisfies the schema;
    # `SchemaFile.example_value` reads it as a block, each node at its place
    value: Any

    @property
    def at(self) -> str:
        """The JSON pointer of the entry itself."""
        keyword = f"{self.pointer}/{self.keyword}"
        return f"{keyword}/{self.index}" if self.keyword == "examples" else keyword


class SchemaPointer(NamedTuple):
    """The schema side of a finding: a schema file, a JSON pointer into it, and where the
    node it points at is written."""

    path: str
    pointer: str  # RFC 6901, "" for the document
    position: Position

    def __str__(self) -> str:
        return f"{self.path}:{self.position.line} (`#{self.pointer}`)"

    @property
    def reference(self) -> str:
        """How a finding's message names it: `` `#/required` in schema.json:12 ``."""
        return f"`#{self.pointer}` in {self.path}:{self.position.line}"


class SchemaFile:
    """A JSON Schema file of the tree (`*.schema.json`, or named by `schema-pairs`). Its
    owner is the skill folder it sits in (directly, or in a `schemas/`, `contracts/` or
    `assets/contracts/` subfolder of it), else the agent file it is named after, else the
    plugin root whose `schemas/` folder holds it; "" for none.

    `plain` is the document as `json.loads` gives it. Where a node is written is looked up
    in `source` only when asked (`position`, `document`): a run reports on few of them."""

    __slots__ = (
        "_document",
        "_locator",
        "conditions",
        "examples",
        "identifier",
        "names",
        "owner",
        "path",
        "plain",
        "refs",
        "role",
        "source",
        "subresources",
        "valid",
    )

    def __init__(
        self,
        path: str,
        source: Source,
        plain: Any,
        owner: str,
        role: str,
        names: tuple[str, ...],
        identifier: str,
        examples: tuple[SchemaExample, ...] = (),
        valid: bool = True,
        locator: Any = None,
        subresources: bool = True,
        refs: bool = True,
        conditions: bool = True,
    ) -> None:
        self.path = path
        self.source = source
        self.plain = plain  # None also when the file is not valid JSON (`valid`; DC920 says why)
        self.owner = owner
        self.role = role  # "input" or "output" (from the file name, else the title), or ""
        self.names = names  # block names (`CONTEXT_RESULT`) its title or description name
        self.identifier = identifier  # its `$id`, "" without one
        self.examples = examples  # its own `examples` and `default`s
        self.valid = valid
        self._document: JsonValue | None = None
        self._locator = locator  # a json_parser.Locator of `source`, made on first use
        # whether a crawl of it (`referencing`) would find an anchor or an `$id` below the
        # root; True unless the scan could tell from the text that it would not
        self.subresources = subresources
        # whether it may have a `$ref` key, an `if` key: True unless the scan could tell from
        # the text that it has none (the walks that look for them are then spared)
        self.refs = refs
        self.conditions = conditions

    def __repr__(self) -> str:
        return f"SchemaFile({self.path!r})"

    @property
    def document(self) -> JsonValue | None:
        """The document with the position of every node (parsed on first use)."""
        if self._document is None and self.valid:
            from drift_check.scanners.json_parser import parse_source

            self._document = parse_source(self.source, max_depth=1 << 30)  # depth checked
        return self._document

    def at(self, pointer: str) -> JsonValue | None:
        """The node at a JSON pointer (RFC 6901, "" for the document), if there is one."""
        return None if self.document is None else json_at(self.document, pointer)

    def locate(self, pointer: str) -> tuple[int, int] | None:
        """The text offsets of the node at a JSON pointer and of its key (-1 for none)."""
        if not self.valid:
            return None
        if self._locator is None:
            from drift_check.scanners.json_parser import Locator

            self._locator = Locator(self.source.text)
        return self._locator.find(pointer)  # type: ignore[no-any-return]

    def position(self, pointer: str, key: bool = False) -> Position | None:
        """Where the node at a JSON pointer is written (with `key`, its member's key; the
        value for an array item or the document); None when there is no such node."""
        found = self.locate(pointer)
        if found is None:
            return None
        value, key_at = found
        return self.source.position(key_at if key and key_at >= 0 else value)

    def example_value(self, example: SchemaExample) -> BlockValue:
        """An example's value with every node at its own place in the file."""
        from drift_check.scanners.structured import block_value

        node = self.at(example.at)
        assert node is not None
        return block_value(node, template=False)

    def enums(self) -> tuple[tuple[str, JsonValue], ...]:
        """Every `enum` array of the schema with its JSON pointer, in file order."""
        out: list[tuple[str, JsonValue]] = []
        todo: list[tuple[str, JsonValue]] = [] if self.document is None else [("", self.document)]
        while todo:
            pointer, node = todo.pop()
            if node.kind == "object":
                for member in node.value:
                    child = f"{pointer}/{escape_pointer(member.key)}"
                    if member.key == "enum" and member.value.kind == "array":
                        out.append((child, member.value))
                    todo.append((child, member.value))
            elif node.kind == "array":
                todo.extend((f"{pointer}/{i}", item) for i, item in enumerate(node.value))
        return tuple(sorted(out, key=lambda e: (e[1].position.line, e[1].position.column)))


MISSING = object()  # `plain_at`'s answer for a pointer to nothing


def plain_at(value: Any, pointer: str) -> Any:
    """`json_at` on a document as `json.loads` gives it; `MISSING` for no node."""
    if pointer.startswith("#"):
        pointer = pointer[1:]
    for token in pointer.split("/")[1:] if pointer else ():
        key = token.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict):
            value = value.get(key, MISSING)
        elif isinstance(value, list) and key.isdigit() and key.isascii() and int(key) < len(value):
            value = value[int(key)]
        else:
            return MISSING
        if value is MISSING:
            return value
    return value


def escape_pointer(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def chained_pointer(chain: list[tuple[int, str | int]], at: int) -> str:
    """The JSON pointer of the node at index `at` of a walk's `chain`, which holds for each
    node met (the document at 0) its parent's index and its key or array index: a walk
    keeps that and spells the pointers of the few nodes that need one."""
    parts = []
    while at > 0:
        at, key = chain[at]
        parts.append(escape_pointer(key) if isinstance(key, str) else str(key))
    return "".join(f"/{p}" for p in reversed(parts))


def json_at(node: JsonValue, pointer: str) -> JsonValue | None:
    """The node of `node` at a JSON pointer (`/properties/status`; "" is `node` itself)."""
    if pointer.startswith("#"):
        pointer = pointer[1:]
    for token in pointer.split("/")[1:] if pointer else ():
        key = token.replace("~1", "/").replace("~0", "~")
        if node.kind == "object":
            found = node.get(key)
        elif node.kind == "array" and key.isdigit() and int(key) < len(node.value):
            found = node.value[int(key)]
        else:
            found = None
        if found is None:
            return None
        node = found
    return node


class StructuredBlock(NamedTuple):
    """A structured block in a Markdown file: a fenced JSON block (```` ```json ````,
    ```` ```json:contract ````, a `structured-info-strings` info string), a `<NAME>_RESULT:`
    or `<NAME>_REQUEST:` template (inside a fence or not), or a dispatch template (a fenced
    block whose fields start with `ACTION:` or `DATA:`)."""

    path: str
    position: Position  # the fence's opening run, or the template's name
    kind: str  # "json", "template" or "dispatch"
    info: str  # the fence's info string (its first word, lower case); "" outside a fence
    name: str  # the template's name (`CONTEXT_RESULT`); "" for JSON and dispatch blocks
    value: BlockValue | None  # None: JSON that does not parse (`problem` says why)
    problem: str = ""
    problem_position: Position | None = None
    section: int = 0  # line of the heading whose section holds it (0: before any heading)
    skills_named: tuple[str, ...] = ()  # skill folders its text names (`skills/x/SKILL.md`)
    schema: str | None = None  # the schema file it claims to be, once paired
    claim: str = ""  # how it was paired: "config", "$schema", "declared" or "owner"
    # False: a JSON block whose value was read without its nodes' places (each at
    # `position`): one that can claim no schema (nothing checks it), or one whose places
    # `placed_value` finds in `text` when a finding needs them
    placed: bool = True
    text: str = ""  # an unplaced block's JSON as written, from the line after `position`

    def placed_value(self) -> BlockValue | None:
        """`value`, each node at its place (read again from `text` for an unplaced block)."""
        if self.placed or not self.text:
            return self.value
        from drift_check.scanners.json_parser import parse_json
        from drift_check.scanners.structured import block_value

        node = parse_json(self.text, self.path)
        return block_value(node, template=True, line_shift=self.position.line)


class FieldRow(NamedTuple):
    """A row of a Markdown field table: the field (a dotted path, `[]` for an array's
    items) and whether the table says it is required (None: no column, or a condition)."""

    field: str
    position: Position
    required: bool | None


class FieldTable(NamedTuple):
    """A Markdown table documenting fields: a name column (`Field`, `Key`, `Property`,
    `Name`, `Parameter`, `Attribute`) and a `Type` or `Required` column."""

    path: str
    position: Position  # the header row
    section: int  # line of the heading whose section holds it
    rows: tuple[FieldRow, ...]
    mentions: tuple[str, ...]  # block names and `*.schema.json` names its section names
    schema: str | None = None  # the schema it documents, once paired


class FieldRead(NamedTuple):
    """A consumer reading a field of a named block: `CONTEXT_RESULT.status` in Markdown,
    `result["status"]` in Python, `result.status` in TypeScript."""

    name: str  # the block name (`CONTEXT_RESULT`)
    fields: tuple[str, ...]  # the path read (`("sections", "local_sources")`)
    position: Position  # the name (or the variable holding the block)
    language: str  # "markdown", "python" or "typescript"


class Structured(NamedTuple):
    """Structured contracts: schemas, the blocks and tables that claim them, and who reads
    their fields."""

    schemas: dict[str, SchemaFile]  # by path
    blocks: tuple[StructuredBlock, ...]
    tables: tuple[FieldTable, ...]
    reads: tuple[FieldRead, ...]
    names: dict[str, str] = {}  # noqa: RUF012 (never mutated) template name -> its schema


EMPTY_STRUCTURED = Structured({}, (), (), ())


class StateName(NamedTuple):
    """A state name as written in one place (`"COMPLETE"` in a block, `` `REVIEW` `` in a
    table row)."""

    name: str
    position: Position


class StateList(NamedTuple):
    """State names listed together in one place: a schema `enum`, a states table, a constant
    in code (a source or a copy of one), or the branches of a handler (a table, a list, an
    arrow tree, comparisons in code)."""

    kind: str  # "schema-enum", "table", "alternatives", "python", "typescript", "list", "tree"
    label: str  # how a message names it: "the `enum` of `status`", "`VALID_STATES`"
    position: Position  # where the list starts
    states: tuple[StateName, ...]
    complete: bool = False  # it claims every state of the field (a schema `enum`, `VALID_X`)


class Vocabulary(NamedTuple):
    """One field's state names: the list that defines them, the other lists that restate
    them, the states producers give the field, and the handlers that branch on it."""

    field: str  # the key (`plan_status`), as producers write it
    source: StateList | None
    copies: tuple[StateList, ...]
    emitted: tuple[StateName, ...]  # every literal value a producer gives the field
    handlers: tuple[StateList, ...]
    configured: bool = False  # named by the pack's `vocabularies` setting

    @property
    def defined(self) -> frozenset[str]:
        return frozenset(s.name for s in self.source.states) if self.source else frozenset()


class NameReference(NamedTuple):
    """A skill, agent or command named in text as something that runs: `Skill("x")`, or
    "spawned by `x`" / "dispatched by `/x`"."""

    name: str  # as it must exist: `x`, `plugin:x`, `gsd:plan-phase` for `/gsd:plan-phase`
    kind: str  # "skill" (the Skill tool loads it) or "spawner" (it spawns this file's agent)
    written: str  # the text as it stands, for the message
    position: Position


class PythonModule(NamedTuple):
    """What a Python file defines, read with `ast`: top-level functions, classes and
    assignments (also under `if`/`try` at the top level), and `Class.member` names."""

    path: str
    symbols: dict[str, int]  # name -> line of its definition
    line_count: int
    parsed: bool  # False: the file does not parse (its citations are not checked)
    # classes whose members are all known (no base class): any other `X.member` may be
    # inherited or set elsewhere
    closed: frozenset[str] = frozenset()


class Citation(NamedTuple):
    """A document citing a place in a Python file of the tree: `path.py::NAME` or
    `path.py:LINE` (`:LINE-LINE`)."""

    written: str  # as written: `hooks/load.py::Loader.run`
    target: str  # the repository path it resolves to
    position: Position
    symbol: str = ""  # after `::`, pytest's `Class::test` joined with `.`
    line: int = 0  # after `:`
    end_line: int = 0  # the end of a `:LINE-LINE` range (= `line` for one line)
    expects: str = ""  # the identifier the text puts next to the citation, if any
    # the cited lines name what it `expects` (its last part, as a whole word)
    holds: bool = False


class Facts(NamedTuple):
    """Everything the rules read. Nothing in here changes after the scan (`contracts`
    compiles each schema's validator the first time a rule asks, and remembers its answers,
    which depend on nothing but these facts)."""

    root: str
    preset: str  # the pack (or `a+b` composite) the run used; "" when nothing was found
    reason: str  # why: the config file, or what discovery found
    components: Any  # drift_check.discovery.Components: what discovery found
    registry: Registry | None
    agents: dict[str, Agent]  # by name; the first file of a name (the contract rules' view)
    consumers: dict[str, Consumer]
    quoted_markers: tuple[QuotedMarker, ...]
    problems: tuple[InputProblem, ...]
    settings: dict[str, Any]
    existing_paths: frozenset[str]
    existing_dirs: frozenset[str]  # every folder holding a file, at any depth
    agent_names: frozenset[str]  # every agent file's stem, readable or not
    read_gates: dict[str, tuple[ReadGate, ...]]
    skills: dict[str, Skill]  # by SKILL.md path
    all_agents: tuple[Agent, ...]  # every agent file, also two with one name
    frontmatter_errors: frozenset[str]  # files whose frontmatter is invalid
    skill_dirs: frozenset[str]  # every skill folder, readable SKILL.md or not
    anchors: dict[str, frozenset[str]]  # path -> heading slugs
    matrix: SkillMatrix | None
    unassigned: tuple[UnassignedList, ...]
    tree: SkillTree | None
    mentions: dict[str, frozenset[str]]  # skill -> files naming it, till one outside its folder
    directives: dict[str, tuple[Directive, ...]]  # by path, for every file read
    sources: dict[str, Source]  # every file read, by path
    config: "Config"  # the config the tree was scanned with, its packs chosen
    skill_variants: tuple[SkillVariant, ...] = ()
    undeclared_agents: tuple[UndeclaredAgent, ...] = ()
    skill_names: frozenset[str] = frozenset()  # folder names and frontmatter names of skills
    # by path; a NamedTuple default, never mutated
    commands: dict[str, Command] = {}  # noqa: RUF012
    # retired read tags (`legacy-read-tags`) in consumers, by path; in Python, at the literal
    legacy_reads: dict[str, tuple[ReadGate, ...]] = {}  # noqa: RUF012 (never mutated)
    manifests: Manifests = EMPTY_MANIFESTS
    memory_files: dict[str, MemoryFile] = {}  # noqa: RUF012 (by path; never mutated)
    # path -> slug -> the fenced heading of that slug, for files links point into
    fenced_headings: dict[str, dict[str, FencedHeading]] = {}  # noqa: RUF012
    # for each frontmatter `name` that differs from its file's stem or skill folder (what a
    # `name:` fix replaces), every place a file read names it as a whole word
    name_uses: dict[str, tuple[Position, ...]] = {}  # noqa: RUF012 (never mutated)
    # retired read tags in documents agents include or are told to Read that are not
    # consumers themselves (`references/planner-reviews.md`: "from `<files_to_read>`"), by path
    reference_reads: dict[str, tuple[ReadGate, ...]] = {}  # noqa: RUF012 (never mutated)
    structured: Structured = EMPTY_STRUCTURED  # schemas, structured blocks and their readers
    # state vocabularies: sources, copies, producers' values and handlers, per field
    vocabularies: tuple[Vocabulary, ...] = ()
    # skills, agents and commands named in text as things that run
    name_references: tuple[NameReference, ...] = ()
    # `path.py::NAME` and `path.py:LINE` citations in documents, and the files they cite
    citations: tuple[Citation, ...] = ()
    python_modules: dict[str, PythonModule] = {}  # noqa: RUF012 (by path; never mutated)
    # where consumers contain the markers, fenced headings and quoted tokens of the tree
    occurrences: MarkerOccurrences = NO_OCCURRENCES
    # agent file -> the declared markers and read tags its text or its included documents name
    agent_mentions: dict[str, frozenset[str]] = {}  # noqa: RUF012 (never mutated)
    # the marker lookups the contract rules share (`drift_check.markers.index`)
    marker_index: "Index | None" = None
    contracts: "Contracts | None" = None  # the structured-contract rules' validators
    registry_path: str | None = None  # the registry file found
    core: str = ""  # `{core}` in globs: the registry file's top folder (see `settings.py`)

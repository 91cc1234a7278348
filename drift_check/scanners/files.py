"""Reading the repository: one walk, never outside the root. A file is read and decoded once
for the scan; a large tree's texts are let go as it goes and read again, checked against the
bytes first read, when a later pass, a fix or a report asks for them."""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from drift_check.facts import InputProblem, Position, Source, SourceChanged, text_digest
from drift_check.records import NamedTuple
from drift_check.scanners.gitignore import (
    MAX_GITIGNORE_BYTES,
    IgnorePattern,
    ignored,
    parse_gitignore,
)
from drift_check.scanners.patterns import lazy

SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache"}
)
_Ignores = list[tuple[str, tuple[IgnorePattern, ...]]]  # (folder prefix, its patterns)
# Folders a build writes code into (ruff leaves the same names out of its checks): a bundle
# there restates the sources beside it, and its megabytes take seconds to search.
BUILD_DIRS = frozenset({"dist", "build", "_build", "buck-out", "site-packages"})
# scripts a minifier or bundler writes, on lines longer than any person does or over the
# size limit: such a file is a build's output (a bundled hook, a web viewer, a CLI), skipped
# without a word, not a file to fix
SCRIPT_SUFFIXES = (".js", ".cjs", ".mjs")
# what esbuild and bun (`var __defProp = Object.defineProperty;`) and webpack (`/******/`)
# write first in a bundle, after a shebang, line comments and blank lines (possessive: a
# file of comment lines that is no bundle is passed once, not backtracked through)
_BUNDLE_START = lazy(
    r"(?:#![^\n]*+\n)?+(?:[ \t\r]*+(?://[^\n]*+)?+\n)*+"
    r"(?:var __(?:create|defProp) = Object\.|/\*{6}/)"
)
# ... and, after a banner of code of its own (esbuild's `banner` option: a `require` shim,
# a module path set-up), the first two of esbuild's helper lines, near the top
_BUNDLE_HELPERS = lazy(
    r"^var __(?:create = Object\.create|defProp = Object\.defineProperty);\r?\n"
    r"var __(?:defProp|getOwnPropDesc) = Object\.",
    re.M,
)
BUNDLE_BANNER_REACH = 16_384


def build_output(path: str, text: str | None = None) -> bool:
    """Whether a code file is what a build wrote: under a build folder, minified
    (`x.min.js`, `x.bundle.js`), or, given its text, a bundle by its first lines. The states
    and field reads in it are its sources', found there."""
    folders, _, name = path.rpartition("/")
    if folders and not BUILD_DIRS.isdisjoint(folders.split("/")):
        return True
    if ".min." in name or ".bundle." in name:
        return True
    if text is None:
        return False
    if _BUNDLE_START.match(text) is not None:
        return True
    at = text.find("var __", 0, BUNDLE_BANNER_REACH)  # a plain search first: most have none
    return at >= 0 and _BUNDLE_HELPERS.search(text, at, BUNDLE_BANNER_REACH) is not None


class Limits(NamedTuple):
    """What one file may cost: a file over a limit is reported and skipped, not parsed.
    Each is a pack setting (`max-file-bytes`, `max-line-length`, `max-yaml-depth`,
    `max-yaml-aliases`, `max-json-depth`)."""

    max_bytes: int
    max_line_length: int  # characters
    max_yaml_depth: int  # nested mappings and sequences in frontmatter
    max_yaml_aliases: int  # `*alias` references in frontmatter
    max_json_depth: int  # nested objects and arrays in a JSON manifest

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> Limits:
        keys = (
            "max-file-bytes",
            "max-line-length",
            "max-yaml-depth",
            "max-yaml-aliases",
            "max-json-depth",
        )
        return cls(*(settings[key] for key in keys))


# A glob is a list of tokens: a literal character, `?`, `*` (within a folder), `**` (across
# folders) and `**/` (any number of whole folders).
_Token = tuple[str, str]


def _tokens(glob: str) -> list[_Token]:
    out: list[_Token] = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append(("folders", ""))
            i += 3
        elif glob.startswith("**", i):
            out.append(("any", ""))
            i += 2
        else:
            c = glob[i]
            out.append(("star", "") if c == "*" else ("one", "") if c == "?" else ("char", c))
            i += 1
    return out


class _WildcardMatcher:
    """Matches a glob by running its tokens as a finite automaton over the path: time
    proportional to the path's length times the glob's, whatever the glob. The regex a glob
    translates to backtracks polynomially in its number of stars (`*a*a*a*a*b` against a long
    name takes seconds), and globs come from config, which a pull request can change."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        # the literal runs between wildcards: a path that lacks one of them, in order, or
        # does not start or end with the glob's literal ends, cannot match (most paths, and
        # the automaton costs about 100 microseconds a path)
        chunks: list[str] = []
        run = ""
        for kind, value in [*tokens, ("end", "")]:
            if kind == "char":
                run += value
            elif run:
                chunks.append(run)
                run = ""
        self.chunks = chunks
        self.head = chunks[0] if tokens and tokens[0][0] == "char" else ""
        self.tail = chunks[-1] if tokens and tokens[-1][0] == "char" else ""

    def _possible(self, path: str) -> bool:
        if not (path.startswith(self.head) and path.endswith(self.tail)):
            return False
        at = 0
        for chunk in self.chunks:
            at = path.find(chunk, at)
            if at < 0:
                return False
            at += len(chunk)
        return True

    def _closure(self, states: set[tuple[int, bool]]) -> set[tuple[int, bool]]:
        todo = list(states)
        while todo:
            i, inside = todo.pop()
            skips = not inside and i < len(self.tokens) and self.tokens[i][0] not in ("char", "one")
            if skips and (i + 1, False) not in states:
                states.add((i + 1, False))  # a star, `**` or `**/` may match nothing
                todo.append((i + 1, False))
        return states

    def match(self, path: str) -> bool:
        if not self._possible(path):
            return False
        tokens = self.tokens
        states = self._closure({(0, False)})
        for ch in path:
            after: set[tuple[int, bool]] = set()
            for i, _inside in states:
                if i == len(tokens):
                    continue
                kind, value = tokens[i]
                if kind == "char":
                    if ch == value:
                        after.add((i + 1, False))
                elif kind == "one":
                    if ch != "/":
                        after.add((i + 1, False))
                elif kind == "star":
                    if ch != "/":
                        after.add((i, False))
                elif kind == "any":
                    after.add((i, False))
                else:  # folders: inside a folder name until its `/`
                    after.add((i, ch != "/"))
            if not after:
                return False
            states = self._closure(after)
        return (len(tokens), False) in states


_REGEX = {"folders": "(?:[^/]*+/)*", "any": ".*", "star": "[^/]*", "one": "[^/]"}


@lru_cache(maxsize=256)
def glob_pattern(glob: str) -> re.Pattern[str] | _WildcardMatcher:
    """A repository glob (`**` crosses directories, `*` does not) as something with a
    `match(path)`: a regex when it has at most two stars within names and three in all (as
    every shipped glob does, and a regex is faster), otherwise an automaton that cannot be
    made to backtrack. A `**/` backtracks only over whole folders (a name is matched
    possessively up to its `/`), so it costs the path's depth, not its length."""
    regex = _glob_regex(glob)
    return _WildcardMatcher(_tokens(glob)) if regex is None else re.compile(regex)


@lru_cache(maxsize=256)
def _glob_regex(glob: str) -> str | None:
    """The regular expression of `glob_pattern`, not compiled; None for an automaton."""
    tokens = _tokens(glob)
    within = sum(kind in ("any", "star") for kind, _ in tokens)
    if within > 2 or within + sum(kind == "folders" for kind, _ in tokens) > 3:
        return None
    return "".join(_REGEX.get(kind) or re.escape(value) for kind, value in tokens) + r"\Z"


def matches(path: str, globs: Iterable[str]) -> bool:
    patterns = _patterns(tuple(globs))
    if len(patterns) == 1:  # the usual case: no generator a file
        return bool(patterns[0].match(path))
    return any(p.match(path) for p in patterns)


@lru_cache(maxsize=64)
def _patterns(
    globs: tuple[str, ...],
) -> tuple[re.Pattern[str] | _WildcardMatcher | _InFolders, ...]:
    """The globs' matchers, the regular expressions joined into one: a path is matched
    against all of them in one call (discovery matches every file of the tree)."""
    regexes = [r for r in map(_glob_regex, globs) if r is not None]
    if len(regexes) < 2:
        return tuple(glob_pattern(g) for g in globs)
    others = tuple(glob_pattern(g) for g in globs if _glob_regex(g) is None)
    joined = re.compile("|".join(f"(?:{r})" for r in regexes))
    folders = [g[3:-3] for g in globs if _FOLDER_GLOB.fullmatch(g)]
    if not others and len(folders) == len(globs):
        return (_InFolders(folders, joined),)
    return (joined, *others)


# `**/NAME/**`: anything in a folder called NAME, at any depth (the test-fixture folders)
_FOLDER_GLOB = re.compile(r"\*\*/[^*?/]+/\*\*")


class _InFolders:
    """The matcher of globs that are all `**/NAME/**`: a path with no `/NAME/` in it (most)
    is no match, found by a substring test; any other is matched by their joined pattern."""

    def __init__(self, names: list[str], joined: re.Pattern[str]) -> None:
        self.needles = tuple(f"/{name}/" for name in names)
        self.joined = joined

    def match(self, path: str) -> re.Match[str] | None:
        inside = "/" + path
        for needle in self.needles:
            if needle in inside:
                return self.joined.match(path)
        return None


# Characters of text held at once while the scan works: each text is let go when the texts
# read after it pass this (the last one read is always held), and read again when asked for.
# A run's memory is then its facts, not its files; a tree of this much text is scanned
# without a second read of any file.
TEXT_BUDGET = 4 << 20
# A tree whose text files take at most this many bytes on disk has all its texts held
# through the scan (no file read twice); its texts' memory is then about the facts' own.
TEXT_HOLD_ALL = 64 << 20
# the kinds of file the scanners read as text: images, fonts and archives beside them are
# never read, so they do not count against `TEXT_HOLD_ALL`
TEXT_SUFFIXES = (
    *(".md", ".json", ".py", ".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs"),
    *(".yaml", ".yml", ".toml", ".txt"),
)


def _size_at_most(root: str, paths: list[str], limit: int) -> bool:
    """Whether the files at `paths` take at most `limit` bytes on disk (one `stat` each,
    until the sum passes it; a file that cannot be stated counts nothing)."""
    return _size_sum(root, paths, limit) <= limit


def _size_sum(root: str, paths: list[str], limit: int) -> int:
    """The bytes the files at `paths` take on disk, added up until the sum passes `limit`."""
    total = 0
    for path in paths:
        try:
            total += os.stat(os.path.join(root, path)).st_size
        except OSError:
            continue
        if total > limit:
            break
    return total


class _Sized(NamedTuple):
    files: frozenset[str]  # the files a shared walk sized
    size: int  # their bytes, added up until the sum passed `TEXT_HOLD_ALL`


# The tree is walked by every process once its top folders (down to this depth) hold this
# many folders: walking about 5,000 folders took 40 ms of one process.
LEAST_FOLDERS_TO_SHARE = 128
SHARED_WALK_DEPTH = 2


class Texts:
    """The texts of the files read: each held until the texts read after it pass `budget`
    characters, then let go, and read again from disk when a source is asked for it (the
    bytes checked against those first read: `SourceChanged` if they differ)."""

    def __init__(self, root: str, max_bytes: int, budget: int) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.budget = budget
        self._held: OrderedDict[str, tuple[Source, int]] = OrderedDict()  # in the order read
        self._size = 0
        self.hold_all = False  # a small tree's: every text held until `release`

    def hold(self, source: Source, text: str) -> None:
        source.hold(text)
        held = self._held
        if source.path in held:
            self._size -= held.pop(source.path)[1]
        held[source.path] = (source, len(text))
        self._size += len(text)
        while self._size > self.budget and len(held) > 1 and not self.hold_all:
            oldest, size = held.popitem(last=False)[1]
            self._size -= size
            oldest.release()

    def reread(self, source: Source) -> str:
        size = source.digest >> 64
        try:
            fd = os.open(os.path.join(self.root, source.path), _READ_FLAGS)
            try:
                data = os.read(fd, size + 1)  # one byte more shows a file that grew
                while len(data) < size and (more := os.read(fd, size + 1 - len(data))):
                    data += more
            finally:
                os.close(fd)
        except OSError:
            raise SourceChanged(source.path) from None
        if text_digest(data) != source.digest:
            raise SourceChanged(source.path)
        text = _normalised(data[3:] if source.bom else data)
        self.hold(source, text)
        return text

    def release(self) -> None:
        """Let every text go."""
        for source, _ in self._held.values():
            source.release()
        self._held.clear()
        self._size = 0


class ReadMark(NamedTuple):
    files: int  # files asked for, read or not
    problems: int


class Reads(NamedTuple):
    """What one process read, for another (see `Repo.reads_since`)."""

    files: tuple[tuple[str, Source | None], ...]  # None: a file asked for and not read
    problems: tuple[InputProblem, ...]
    naming_tool: frozenset[str]


class Repo:
    """The repository root: lists files once and reads each at most once (a text let go
    is read again when asked for: see `Texts`).

    Reading returns a `Source` or records an `InputProblem` (binary, undecodable, too
    large, unreadable, or a symlink that leaves the root) and returns None.
    """

    def __init__(
        self,
        root: str,
        limits: Limits | None = None,
        exclude: tuple[str, ...] = (),
        gitignore: bool = True,
        overlay: dict[str, str] | None = None,
        budget: int | None = None,
    ) -> None:
        self.root = os.path.realpath(root)
        # texts that stand in for files on disk: --fix checks its edits on them, in memory
        self.overlay = overlay or {}
        if limits is None:
            from drift_check.settings import resolve

            limits = Limits.from_settings(resolve(()))
        self.limits = limits
        self.exclude = exclude  # globs of files never listed, so never read
        self.max_bytes = limits.max_bytes
        self.texts = Texts(self.root, self.max_bytes, TEXT_BUDGET if budget is None else budget)
        self._budget_given = budget
        self.problems: list[InputProblem] = []
        # files whose text names `drift-check:`, the only ones that can hold a suppression
        # comment (noted as each is read: the texts are let go before directives are found)
        self.naming_tool: set[str] = set()
        self._sources: dict[str, Source | None] = {}
        self._files: list[str] | None = None
        self._file_set: frozenset[str] | None = None
        self._links: set[str] = set()  # in-root symlinks to files, re-checked when read
        self._outside_links: list[tuple[str, bool]] = []
        self._reported: set[str] = set()
        self.gitignore = gitignore  # skip what the tree's `.gitignore` files ignore

    def files(self) -> list[str]:
        """Every regular file (or in-root symlink to one) as a sorted repository path."""
        if self._files is None:
            found: list[str] = []
            sized = self._walk_tree(found)  # the text bytes of the files walked elsewhere
            found.sort()
            self._file_set = frozenset(found)  # an excluded file still exists (links, citations)
            if self.exclude:
                found = [f for f in found if not matches(f, self.exclude)]
            self._files = found
            if self._budget_given is None:
                texts = [f for f in found if f.endswith(TEXT_SUFFIXES) and f not in sized.files]
                left = TEXT_HOLD_ALL - sized.size
                self.texts.hold_all = left >= 0 and _size_at_most(self.root, texts, left)
        return self._files

    def _walk_tree(self, found: list[str]) -> _Sized:
        """Every file of the tree into `found`. The top folders are walked here until there
        are `LEAST_FOLDERS_TO_SHARE` folders below them (at most `SHARED_WALK_DEPTH` levels
        down), which every process then takes in turn (`parallel.map_files`), each walking
        its folders whole and adding up the size of their text files (`files.TEXT_HOLD_ALL`
        asks for it): the files walked so and the sum of their sizes."""
        level: list[tuple[str, str, _Ignores]] = [(self.root, "", [])]
        for _ in range(SHARED_WALK_DEPTH):
            deeper: list[tuple[str, str, _Ignores]] = []
            for absdir, reldir, ignores in level:
                self._walk(absdir, reldir, found, ignores, deeper)
            level = deeper
            if len(level) >= LEAST_FOLDERS_TO_SHARE:
                break
        if len(level) < LEAST_FOLDERS_TO_SHARE:
            for absdir, reldir, ignores in level:
                self._walk(absdir, reldir, found, ignores)
            return _Sized(frozenset(), 0)
        from drift_check.parallel import map_files

        walked, size = [], 0
        for files, links, outside, problems, held in map_files(self._walk_folder, level, self):
            walked += files
            self._links.update(links)
            self._outside_links += outside
            self.problems += problems
            size += held
        found += walked
        return _Sized(frozenset(walked), size)

    def _walk_folder(
        self, folder: tuple[str, str, _Ignores]
    ) -> tuple[list[str], set[str], list[tuple[str, bool]], list[InputProblem], int]:
        """The files below one folder (`_walk`), the links and problems met there, and the
        bytes of its text files that are not excluded, added up until they pass
        `TEXT_HOLD_ALL`; in whichever process takes the folder."""
        absdir, reldir, ignores = folder
        kept = self._links, self._outside_links, self.problems
        self._links, self._outside_links, self.problems = set(), [], []
        try:
            found: list[str] = []
            self._walk(absdir, reldir, found, ignores)
            texts = [
                f
                for f in found
                if f.endswith(TEXT_SUFFIXES) and not (self.exclude and matches(f, self.exclude))
            ]
            size = _size_sum(self.root, texts, TEXT_HOLD_ALL) if self._budget_given is None else 0
            return found, self._links, self._outside_links, self.problems, size
        finally:
            self._links, self._outside_links, self.problems = kept

    def bytes_at_least(self, paths: list[str], least: int) -> bool:
        """Whether the files at `paths` take `least` bytes or more on disk (one `stat` a
        file, until the sum reaches it)."""
        return _size_sum(self.root, paths, least - 1) >= least

    def existing(self) -> frozenset[str]:
        """Every file of the tree, the excluded ones too."""
        self.files()
        assert self._file_set is not None
        return self._file_set

    def _walk(
        self,
        absdir: str,
        reldir: str,
        found: list[str],
        ignores: _Ignores,
        deeper: list[tuple[str, str, _Ignores]] | None = None,
    ) -> None:
        """The files below `absdir` into `found`; with `deeper`, its own files only, and its
        folders into `deeper`, each with the ignore rules in force there."""
        try:
            entries = list(os.scandir(absdir))
        except OSError as exc:
            self._problem(reldir or ".", f"cannot list directory: {exc.strerror}")
            return
        if self.gitignore:
            ignores = self._gitignore(entries, reldir, ignores)
        for entry in entries:
            rel = reldir + entry.name
            try:
                if ignores and ignored(ignores, rel, entry.is_dir()):
                    continue
                # a regular file or folder first: the directory entry says so, and most are
                if entry.is_file(follow_symlinks=False):
                    found.append(rel)
                elif entry.is_dir(follow_symlinks=False):
                    if entry.name in SKIPPED_DIRS:
                        continue
                    if deeper is None:
                        self._walk(entry.path, rel + "/", found, ignores)
                    else:
                        deeper.append((entry.path, rel + "/", ignores))
                elif entry.is_symlink():
                    if not self._inside(os.path.realpath(entry.path)):
                        # reported only if a scan wants it (or, for a folder, its files)
                        self._outside_links.append((rel, entry.is_dir()))
                    elif entry.is_file():  # in-root folder links would be walked twice or loop
                        self._links.add(rel)
                        found.append(rel)
            except OSError as exc:
                self._problem(rel, f"cannot stat: {exc.strerror}")

    def _gitignore(self, entries: list[os.DirEntry[str]], reldir: str, above: _Ignores) -> _Ignores:
        """The ignore rules in force in a folder: those above it, then its own `.gitignore`
        (a regular file inside the root, read within a bound; anything else is not one)."""
        entry = next((e for e in entries if e.name == ".gitignore"), None)
        if entry is None or not entry.is_file(follow_symlinks=False):
            return above
        try:
            with open(entry.path, "rb") as fh:
                data = fh.read(MAX_GITIGNORE_BYTES)
        except OSError:
            return above
        patterns = parse_gitignore(data.decode("utf-8", "replace"))
        return [*above, (reldir, patterns)] if patterns else above

    def exists(self, path: str) -> bool:
        return path in self.existing()

    def glob(self, globs: Iterable[str]) -> list[str]:
        """Files matching any of `globs`; a matching symlink that leaves the root is
        reported (once) instead of returned."""
        globs = tuple(globs)
        joined = _patterns(globs)  # most often one pattern: one call a file
        if len(joined) == 1:
            match = joined[0].match
            found = [f for f in self.files() if match(f)]
        else:
            found = [f for f in self.files() if any(p.match(f) for p in joined)]
        pats = [glob_pattern(g) for g in globs]
        for link, is_dir in self._outside_links:
            probes = [f"{link}/x.md", f"{link}/x/x.md", f"{link}/x.py"] if is_dir else [link]
            wanted = any(p.match(probe) for p in pats for probe in probes)
            if wanted and link not in self._reported:
                self._reported.add(link)
                self._problem(link, "symlink points outside the repository; not read")
        return found

    def resolve(self, path: str) -> str | None:
        """Normalise a repository-relative path; None if it leaves the root."""
        norm = os.path.normpath(path).replace(os.sep, "/")
        if norm.startswith("../") or norm == ".." or os.path.isabs(norm):
            return None
        return norm

    def sources(self) -> dict[str, Source]:
        """Every file read so far that could be decoded."""
        return {path: src for path, src in self._sources.items() if src is not None}

    def release(self) -> None:
        """Let the texts read go: the sources read them again when asked for."""
        self.texts.release()

    def read(self, path: str) -> Source | None:
        if path in self._sources:
            return self._sources[path]
        src = self._read(path)
        self._sources[path] = src
        return src

    def mark(self) -> ReadMark:
        """Where the reads stand now: `reads_since` says what was read after."""
        return ReadMark(len(self._sources), len(self.problems))

    def reads_since(self, mark: ReadMark) -> Reads:
        """What was read after `mark`, to send to another process (`learn`)."""
        files = [(path, self._sources[path]) for path in list(self._sources)[mark.files :]]
        problems = tuple(self.problems[mark.problems :])
        return Reads(tuple(files), problems, frozenset(self.naming_tool))

    def learn(self, reads: Reads) -> None:
        """Take what another process read (`reads_since`) as read here; a file read here
        too keeps this process's source and problems."""
        known = {path for path, _ in reads.files if path in self._sources}
        for path, source in reads.files:
            if path not in known:
                self._sources[path] = source
        self.problems.extend(p for p in reads.problems if p.position.path not in known)
        self.naming_tool.update(reads.naming_tool)

    def received(
        self,
        path: str,
        newline: str,
        bom: bool,
        digest: int,
        text: str | None = None,
        endings: tuple[str, ...] | None = None,
    ) -> Source:
        """A source another process read: this process's own if it read the file too, else
        one holding the `text` sent, or reading it again when asked (checked against the
        digest)."""
        source = self._sources.get(path)
        if source is not None and source.digest == digest:
            return source
        source = Source(path, text or "", newline, bom, digest, self.texts, endings)
        if text is None:
            source.release()
        else:
            self.texts.hold(source, text)
        return source

    def _inside(self, real: str) -> bool:
        return real == self.root or real.startswith(self.root + os.sep)

    def _read(self, path: str) -> Source | None:
        abspath = os.path.join(self.root, path)
        if not self.exists(path):
            self._problem(path, "not a file inside the repository; not read")
            return None
        if self.exclude and matches(path, self.exclude):
            return None  # excluded by config: never read
        if path in self._links and not self._inside(os.path.realpath(abspath)):
            self._problem(path, "symlink points outside the repository; not read")
            return None
        store: Texts | None = None  # an overlay's text is held: the file on disk is not it
        try:
            if path in self.overlay:
                data = self.overlay[path].encode("utf-8")
            else:
                data = _read_bytes(abspath, self.max_bytes)
                store = self.texts
        except OSError as exc:
            self._problem(path, f"cannot read file: {exc.strerror or exc}")
            return None
        if len(data) > self.max_bytes:
            if path.endswith(SCRIPT_SUFFIXES):
                return None  # a bundle (`cli.js` of 16 MB): a build's output, not read
            self._problem(
                path, f"file is larger than {self.max_bytes} bytes (max-file-bytes); skipped"
            )
            return None
        digest = text_digest(data)
        bom = data.startswith(b"\xef\xbb\xbf")
        if bom:
            data = data[3:]
        elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
            self._problem(path, "file is UTF-16; drift-check reads UTF-8 only; skipped")
            return None
        if b"\0" in data:
            self._problem(path, "file contains NUL bytes (binary?); skipped")
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line_start = data.rfind(b"\n", 0, exc.start) + 1
            line = data.count(b"\n", 0, exc.start) + 1
            col = len(data[line_start : exc.start].decode("utf-8", "replace")) + 1
            self.problems.append(
                InputProblem(
                    Position(path, line, col),
                    "unreadable",
                    f"file is not valid UTF-8 (byte 0x{data[exc.start]:02x}); skipped",
                )
            )
            return None
        newline, endings = "\n", None
        if "\r" in text:
            newline, endings = line_endings(text)
            text = _lines_joined(text)
        longest = self.limits.max_line_length
        line = first_long_line(text, longest)
        if line is not None:
            if path.endswith(SCRIPT_SUFFIXES):
                return None
            self.problems.append(
                InputProblem(
                    Position(path, line, 1),
                    "unreadable",
                    f"line {line} is longer than {longest} characters"
                    " (max-line-length); file skipped",
                )
            )
            return None
        if "drift-check:" in text:
            self.naming_tool.add(path)
        source = Source(path, text, newline, bom, digest, store, endings)
        if store is not None:
            store.hold(source, text)
        return source

    def _problem(self, path: str, message: str) -> None:
        self.problems.append(InputProblem(Position(path, 1, 1), "unreadable", message))


def _read_bytes(abspath: str, limit: int) -> bytes:
    """The file's bytes, at most `limit` + 1 (one byte more shows a file over the limit).

    A buffer sized by the file, not by the limit: a limit-sized buffer for every file costs
    more than reading them all. Plain `os.read`: a buffered file object costs more to make
    than reading a typical prompt file (about 14 of 23 microseconds a file here)."""
    fd = os.open(abspath, _READ_FLAGS)
    try:
        size = os.fstat(fd).st_size
        want = min(size, limit) + 1
        data = os.read(fd, want)
        # short of the size the file had: a read cut short, so read on (one more read at
        # the end of every file would cost a system call each)
        while len(data) < min(size, want):
            more = os.read(fd, want - len(data))
            if not more:
                break
            data += more
        return data
    finally:
        os.close(fd)


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0)


_ENDING = re.compile(r"\r\n|\r|\n")


def line_endings(text: str) -> tuple[str, tuple[str, ...] | None]:
    """How a text that holds a `\r` ends its lines: the one ending all its lines share
    (`\r\n`, or a lone `\r` as old Mac files have it) and None; or, where they differ, the
    commonest (`\n` on a tie) and each line's ending, so that a fix writes back every line
    it leaves as it was, ending and all."""
    crlf = text.count("\r\n")
    lf, cr = text.count("\n") - crlf, text.count("\r") - crlf
    if not lf and not cr:
        return "\r\n", None
    if not lf and not crlf:
        return "\r", None
    counts = {"\n": lf, "\r\n": crlf, "\r": cr}
    commonest = max(counts, key=lambda e: (counts[e], e == "\n"))
    return commonest, tuple(_ENDING.findall(text))


def _lines_joined(text: str) -> str:
    """`text` with every line ending a `\\n`, as the scanners read it."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _normalised(data: bytes) -> str:
    """The text of bytes read before (already known to be UTF-8, BOM removed)."""
    text = data.decode("utf-8")
    return _lines_joined(text) if "\r" in text else text


def first_long_line(text: str, longest: int) -> int | None:
    """The 1-based number of the first line of `text` longer than `longest` characters, if
    any. Each step looks at the next `longest + 1` characters: no line break there is a line
    too long; else every line up to the last break there is short, and the search goes on
    after it (a step per window, not per line: a 5 MB bundle of short lines in 50 steps)."""
    start = 0
    while len(text) - start > longest:
        last = text.rfind("\n", start, start + longest + 1)
        if last < 0:
            return text.count("\n", 0, start) + 1
        start = last + 1
    return None

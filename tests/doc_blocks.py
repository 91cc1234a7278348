"""The fenced blocks of README.md and docs/*.md: found, run and refreshed from real runs.

An output in the documentation is never typed by hand. Two kinds of block show one:

- a ```` ```console ```` block: each line starting with `$ ` is a shell command, and the lines
  after it, up to the next `$ `, are what it prints (stdout and stderr as a terminal shows
  them, in order);
- any block right after a line `<!-- $ COMMAND -->`: its whole text is what COMMAND prints
  (the JSON and SARIF examples, where a `$` line would break the highlighting).

Commands run in bash, from a scratch folder that holds a copy of `examples/` and
`examples-baseline.json` (so `--fix` or `init` never touch the repository), with `../shared`
pointing at the shared corpora when they are present, and `path/to/your/agent-repo`, a copy
of `examples/` without its config, for a page that speaks of "your repository";
`<!-- in: FOLDER -->` before a block runs it in that folder of the scratch copy.
`tests/docs/test_doc_blocks.py` compares every output with a run, and checks what cannot be run
(install lines, the YAML, TOML and JSON examples, suppression comments).

Refresh every output after a change: `python -m tests.doc_blocks`.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
# docs/rules/ is generated from rule metadata (tests/docs/test_docs.py keeps it equal); its blocks
# are the rules' failing and passing examples, not commands
PAGES = ("README.md", "docs/*.md")
# regions generated from elsewhere and tested there: the usage block is `--help` itself
GENERATED = (("<!-- usage:start -->", "<!-- usage:end -->"),)

_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*([^`\s]*)[^`\n]*$")
_COMMAND = re.compile(r"^<!-- \$ (.+) -->$")
_IN = re.compile(r"^<!-- in: (\S+) -->$")


class Block(NamedTuple):
    page: str  # path relative to the repository
    line: int  # the opening fence's line, 1-based
    lang: str
    body: str
    span: tuple[int, int]  # offsets of the body in the page's text
    command: str | None  # from a `<!-- $ COMMAND -->` line just before the fence
    where: str  # the folder the block runs in, relative to the scratch folder

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    found: list[Path] = []
    for pattern in PAGES:
        found.extend(sorted(ROOT.glob(pattern)))
    return found


def blocks(page: Path, text: str | None = None) -> list[Block]:
    """The fenced blocks of a Markdown page, outside the generated regions."""
    text = page.read_text(encoding="utf-8") if text is None else text
    rel = page.relative_to(ROOT).as_posix()
    generated = [
        (text.index(begin), text.index(end))
        for begin, end in GENERATED
        if begin in text and end in text
    ]
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i].rstrip("\n"))
        if m is None:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3)
        close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j].rstrip("\n")):
            j += 1
        start, end = offsets[i + 1], offsets[min(j, len(lines))]
        before = [ln.strip() for ln in lines[max(0, i - 2) : i]]
        command = next((c.group(1) for ln in before if (c := _COMMAND.match(ln))), None)
        where = next((w.group(1) for ln in before if (w := _IN.match(ln))), ".")
        if not any(b <= offsets[i] <= e for b, e in generated):
            inside = lines[i + 1 : j]
            body = "".join(ln[len(indent) :] if ln.startswith(indent) else ln for ln in inside)
            out.append(Block(rel, i + 1, lang, body, (start, end), command, where))
        i = j + 1
    return out


def console_steps(body: str) -> list[tuple[str, str]]:
    """A console block's commands, each with the text shown after it."""
    steps: list[tuple[str, str]] = []
    for line in body.splitlines(keepends=True):
        if line.startswith("$ "):
            steps.append((line[2:].rstrip("\n"), ""))
        elif steps:
            steps[-1] = (steps[-1][0], steps[-1][1] + line)
        else:
            raise ValueError(f"a console block must start with a `$ ` line: {line!r}")
    return steps


def needs_shared(block: Block) -> bool:
    return "../shared" in block.body or "../shared" in (block.command or "")


# a page speaking to a user about their own repository runs on this: examples/ without the
# config that makes it a project of this repository's
YOUR_REPO = "path/to/your/agent-repo"


def scratch(parent: Path) -> Path:
    """A fresh folder to run a block in, as the repository's root would be."""
    work = parent / "repo"
    shutil.copytree(ROOT / "examples", work / "examples")
    shutil.copytree(ROOT / "examples", work / YOUR_REPO)
    (work / YOUR_REPO / ".drift-check.yaml").unlink()
    shutil.copy(ROOT / "examples-baseline.json", work / "examples-baseline.json")
    if SHARED.is_dir() and not (parent / "shared").exists():
        (parent / "shared").symlink_to(SHARED)
    return work


def run(command: str, cwd: Path) -> tuple[int, str]:
    """The exit code of `command` in bash and what it prints (stdout and stderr merged, as
    on a terminal), with this environment's drift-check first on PATH and no colour. A
    plain `drift-check ...` (perhaps `> /dev/null`) runs in this process: the same output,
    without the start-up of a process per command."""
    words = _plain_drift_check(command)
    if words is not None:
        return _in_process(words[1:], cwd, keep_stdout=words[-2:] != [">", "/dev/null"])
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["NO_COLOR"] = "1"
    proc = subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    return proc.returncode, proc.stdout


def _plain_drift_check(command: str) -> list[str] | None:
    """The words of `drift-check ARGS` or `drift-check ARGS > /dev/null`; None for any other
    shell (pipes, lists, other redirections, other programs)."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return None
    plain = words[:-2] if words[-2:] == [">", "/dev/null"] else words
    if not plain or plain[0] != "drift-check":
        return None
    if any(set(w) <= set("|&;<>()") for w in plain):
        return None
    return words


def _in_process(args: list[str], cwd: Path, keep_stdout: bool) -> tuple[int, str]:
    from drift_check.cli import main

    if not keep_stdout:
        args = args[:-2]
    merged, dropped = io.StringIO(), io.StringIO()
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        with (
            contextlib.redirect_stdout(merged if keep_stdout else dropped),
            contextlib.redirect_stderr(merged),
        ):
            code = main(args)
    finally:
        os.chdir(previous)
    return code, merged.getvalue()


def shown_and_real(block: Block, parent: Path) -> list[tuple[str, str, str]]:
    """For an output block: (command, output shown, output now) per command."""
    cwd = scratch(parent) / block.where
    if block.command is not None:
        return [(block.command, block.body, run(block.command, cwd)[1])]
    return [(cmd, shown, run(cmd, cwd)[1]) for cmd, shown in console_steps(block.body)]


def is_output(block: Block) -> bool:
    return block.command is not None or block.lang == "console"


def refreshed(page: Path) -> str:
    """The page with every output block rewritten from a real run (blocks that need the
    shared corpora are left as they are when the corpora are absent)."""
    text = page.read_text(encoding="utf-8")
    for block in reversed(blocks(page, text)):
        if not is_output(block) or (needs_shared(block) and not SHARED.is_dir()):
            continue
        with tempfile.TemporaryDirectory() as parent:
            steps = shown_and_real(block, Path(parent))
        if block.command is not None:
            body = steps[0][2]
        else:
            body = "".join(f"$ {cmd}\n{now}" for cmd, _, now in steps)
        start, end = block.span
        text = text[:start] + body + text[end:]
    return text


def main() -> int:
    changed = 0
    for page in pages():
        new = refreshed(page)
        if new != page.read_text(encoding="utf-8"):
            page.write_text(new, encoding="utf-8")
            print(f"refreshed {page.relative_to(ROOT)}")
            changed += 1
    print(f"{changed} page{'s' if changed != 1 else ''} refreshed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

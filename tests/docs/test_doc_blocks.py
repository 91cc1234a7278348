"""Every command and output block of README.md and docs/*.md is checked (tests/doc_blocks.py
says how blocks are written): outputs are compared with a real run, shell commands are run,
install lines name this project's distribution, and the YAML, TOML, JSON and suppression
examples are valid for what drift-check, pre-commit and the Action read. The prose is held
to a few facts too: the files it names exist, no paragraph is said twice, no tracker text."""

from __future__ import annotations

import difflib
import json
import re
import shlex
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.doc_blocks import (
    ROOT,
    SHARED,
    Block,
    blocks,
    console_steps,
    is_output,
    needs_shared,
    pages,
    run,
    scratch,
    shown_and_real,
)

pytestmark = pytest.mark.slow  # every documented command run in a subprocess

ALL = [b for page in pages() for b in blocks(page)]
RUNNABLE = ("sh", "shell", "bash")
CHECKED = ("json", "yaml", "toml", "markdown", "python")
DISTRIBUTION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]
# other tools a page may install: the benchmark's yardstick
OTHER_TOOLS = {"agnix"}


def _params(kind: str) -> list[object]:
    chosen = [b for b in ALL if _kind(b) == kind]
    return [pytest.param(b, id=str(b)) for b in chosen]


def _kind(block: Block) -> str:
    if is_output(block):
        return "output"
    if block.lang in RUNNABLE:
        return "sh"
    if block.lang in CHECKED:
        return block.lang
    return "prose" if block.lang == "" else "unknown"


def test_every_block_is_of_a_kind_that_is_checked() -> None:
    """A text block must say what printed it; a block of another language must be one the
    tests check. A plain fence (no language) is prose: a diagram or a quotation."""
    unchecked = [
        f"{b} ({b.lang or 'no language'})"
        for b in ALL
        if _kind(b) == "unknown" or (b.lang == "text" and not is_output(b))
    ]
    assert not unchecked, (
        "blocks no test checks: show an output as a console block or after"
        f" `<!-- $ COMMAND -->`, or add a check: {unchecked}"
    )
    assert {_kind(b) for b in ALL} >= {"output", "sh", "yaml", "toml", "json", "markdown"}


def test_no_indented_code_blocks() -> None:
    """An indented code block cannot say what printed it: fence it."""
    found = []
    for page in pages():
        lines = page.read_text(encoding="utf-8").splitlines()
        fenced = False
        for n, line in enumerate(lines):
            if line.lstrip().startswith(("```", "~~~")):
                fenced = not fenced
            if fenced or not line.startswith("    ") or n == 0 or lines[n - 1].strip():
                continue
            above = next((lines[k] for k in range(n - 1, -1, -1) if lines[k].strip()), "")
            if not re.match(r"\s*([-*+]|\d+\.)\s|\s{2}", above):  # not inside a list item
                found.append(f"{page.relative_to(ROOT)}:{n + 1}")
    assert not found


@pytest.mark.parametrize("block", _params("output"))
def test_output_blocks_are_real_output(block: Block, tmp_path: Path) -> None:
    if needs_shared(block) and not SHARED.is_dir():
        pytest.skip("../shared is not present")
    for command, shown, real in shown_and_real(block, tmp_path):
        diff = "".join(difflib.unified_diff(shown.splitlines(True), real.splitlines(True)))
        assert shown == real, (
            f"{block}: `{command}` prints something else now; refresh the docs with"
            f" `python -m tests.doc_blocks`\n{diff}"
        )


def _words(line: str) -> list[list[str]]:
    """The simple commands of one shell line (a `&&`, `||` or `;` list, or a pipeline),
    comments dropped; a command that reads a pipe starts with `|`."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    out: list[list[str]] = [[]]
    for token in lexer:
        if token in ("&&", "||", ";"):
            out.append([])
        elif token == "|":
            out.append(["|"])
        else:
            out[-1].append(token)
    return [words for words in out if words]


def _commands(body: str) -> list[list[str]]:
    """The simple commands of a shell block."""
    return [words for line in body.replace("\\\n", " ").splitlines() for words in _words(line)]


def _requirements(words: list[str]) -> list[str] | None:
    """What an install command installs, or None when `words` installs nothing."""
    prog = Path(words[0]).name
    rest = words[1:]
    if prog.startswith("python") and rest[:2] == ["-m", "pip"]:
        prog, rest = "pip", rest[2:]
    if prog in ("pip", "pip3", "pipx") and rest[:1] == ["install"]:
        rest = rest[1:]
    elif prog == "uv" and rest[:2] in (["tool", "install"], ["pip", "install"]):
        rest = rest[2:]
    else:
        return None
    return [w for w in rest if not w.startswith("-")]


def _check_requirement(spec: str, where: str) -> None:
    if spec.startswith((".", "/", "$", "<")):  # a local checkout (or the action's own copy)
        local = re.fullmatch(r"\.\[([\w,-]+)\]", spec)
        if local:
            extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
            for extra in local.group(1).split(","):
                assert extra in extras["optional-dependencies"], f"{where}: no extra {extra}"
        return
    name = re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0]
    canonical = re.sub(r"[-_.]+", "-", name).lower()
    assert canonical in {DISTRIBUTION, *OTHER_TOOLS}, (
        f"{where}: installs `{name}`, but the distribution is `{DISTRIBUTION}` (pyproject.toml)"
    )


def test_install_lines_name_the_distribution() -> None:
    """Every `pip install`, `pipx install` and `uv tool install` in the README, the docs and
    the Action installs this project's distribution (or a local checkout)."""
    sources = [*pages(), ROOT / "action.yml"]
    named = 0
    for path in sources:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            for m in re.finditer(r"(?:pip3?|pipx|uv tool|uv pip) install [^`|;&\n]*", line):
                text = re.sub(r"\$\{\{ *inputs\.version *\}\}|\$VERSION", "1.0", m.group(0))
                requirements = _requirements(_words(text)[0])
                assert requirements is not None, where
                for spec in requirements:
                    _check_requirement(spec, where)
                    named += not spec.startswith((".", "/", "$", "<"))
    assert named >= 3  # getting-started, its pipx and uv lines, the action's `version`


def _tree(tmp_path: Path, block: Block) -> Path:
    return scratch(tmp_path) / block.where


@pytest.mark.parametrize("block", _params("sh"))
def test_shell_blocks_run(block: Block, tmp_path: Path) -> None:
    """Each command of a shell block is run or checked: drift-check commands run (`cd` as
    a shell would) and exit 0 or 1; installs name the distribution; a benchmark command
    uses options the benchmark has."""
    _run_shell(block, block.body, _tree(tmp_path, block))


def _run_shell(block: Block, body: str, cwd: Path) -> None:
    drawn: list[str] = []  # the last drift-check command, which a pipe reads
    for words in _commands(body):
        piped = words[0] == "|"
        if piped and words[1] == "dot":  # Graphviz reads what drift-check wrote
            if shutil.which("dot") is None:
                continue  # checked where Graphviz is installed (.ci/run installs it)
            command = f"drift-check {shlex.join(drawn[1:])} | {shlex.join(words[1:])}"
            code, out = run(command, cwd)
            assert code == 0, f"{block}: `{command}` exits {code}:\n{out}"
            continue
        assert not piped, f"{block}: no check for a pipe into `{words[1]}`; add one"
        while words[0] == "env":  # `env -u NAME VAR=value command ...`
            words = words[3:] if words[1] == "-u" else words[1:]
            words = words[1:] if "=" in words[0] else words
        prog = Path(words[0]).name
        requirements = _requirements(words)
        if requirements is not None:
            for spec in requirements:
                _check_requirement(spec, str(block))
        elif prog == "cd":
            cwd = cwd / words[1]
            assert cwd.is_dir(), f"{block}: no folder {words[1]}"
        elif prog == "drift-check":
            drawn = words
            code, out = run(shlex.join(["drift-check", *words[1:]]), cwd)
            assert code in (0, 1), f"{block}: `{' '.join(words)}` exits {code}:\n{out}"
            assert "Traceback" not in out and "internal error" not in out, out
        elif prog == "echo":
            continue
        elif words[1:2] == ["-m"] and words[2] in ("venv", "pytest", "compileall"):
            continue  # a virtual environment, the test suite itself, compiling an install
        elif prog.startswith("python") and words[1].endswith(".py"):
            script = ROOT / words[1]
            assert script.is_file(), f"{block}: no {words[1]}"
            usage = run(f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} --help", ROOT)[1]
            for option in (w.split("=")[0] for w in words[2:] if w.startswith("--")):
                assert option in usage, f"{block}: {words[1]} has no option {option}"
        else:
            raise AssertionError(f"{block}: no check for `{' '.join(words)}`; add one")


def _yaml_blocks() -> list[object]:
    return _params("yaml")


def _action() -> dict:  # type: ignore[type-arg]
    return YAML(typ="safe").load((ROOT / "action.yml").read_text())


def _steps(data: object) -> list[dict]:  # type: ignore[type-arg]
    if isinstance(data, list):
        return [s for s in data if isinstance(s, dict)]
    jobs = data.get("jobs", {}) if isinstance(data, dict) else {}
    return [s for job in jobs.values() for s in job.get("steps", [])]


@pytest.mark.parametrize("block", _yaml_blocks())
def test_yaml_blocks_are_valid(block: Block, tmp_path: Path) -> None:
    """Frontmatter examples hold suppression comments drift-check reads; pre-commit configs
    name hooks this repository ships; workflows use the Action's inputs and outputs; a pack
    passes `drift-check packs`; a config loads."""
    if re.search(r"#[ \t]*drift-check:", block.body):  # frontmatter with a suppression comment
        framed = block.body.startswith("---\n")
        text = block.body if framed else f"---\n{block.body}---\n"
        _check_directives(block, text, 0 if framed else 1)
        return
    data = YAML(typ="safe").load(block.body)
    shipped = YAML(typ="safe").load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hooks = {h["id"] for h in shipped}
    if isinstance(data, dict) and "repos" in data:
        ids = [h["id"] for r in data["repos"] if "drift-check" in r["repo"] for h in r["hooks"]]
        assert ids and set(ids) <= hooks, f"{block}: hooks {ids}, shipped {sorted(hooks)}"
    elif isinstance(data, list) and all(isinstance(h, dict) and "id" in h for h in data):
        # a part of a pre-commit config: hooks of this repository, with overrides
        assert {h["id"] for h in data} <= hooks, f"{block}: shipped hooks are {sorted(hooks)}"
        for hook in data:
            assert set(hook) <= set(shipped[0]) | {"args", "exclude", "stages"}, block
    elif _steps(data):
        action = _action()
        ours = [s for s in _steps(data) if "drift-check repository" in str(s.get("uses", ""))]
        runs = [str(s["run"]) for s in _steps(data) if "drift-check" in str(s.get("run", ""))]
        assert ours or runs, f"{block}: a workflow without the Action or drift-check"
        tree = scratch(tmp_path) / "examples" if runs else tmp_path
        for script in runs:  # the steps' own commands, run in a copy of examples/
            _run_shell(block, script, tree)
        for step in ours:
            assert set(step.get("with") or {}) <= set(action["inputs"]), block
        for name in re.findall(r"steps\.drift\.outputs\.([\w-]+)", block.body):
            assert name in action["outputs"], f"{block}: the Action has no output {name}"
    elif isinstance(data, dict) and "name" in data and {"extends", "rules", "settings"} & set(data):
        tree = scratch(tmp_path) / "examples"
        (tree / "my-pack.yaml").write_text(block.body)
        code, out = run("drift-check packs my-pack.yaml", tree)
        assert code == 0, f"{block}: not a valid pack:\n{out}"
    else:
        tree = scratch(tmp_path) / "examples"
        (tree / ".drift-check.yaml").write_text(block.body)
        code, out = run("drift-check . -q > /dev/null", tree)
        assert code in (0, 1), f"{block}: not a valid config:\n{out}"


@pytest.mark.parametrize("block", _params("toml"))
def test_toml_blocks_are_valid_config(block: Block, tmp_path: Path) -> None:
    data = tomllib.loads(block.body)
    assert "drift-check" in data["tool"]
    tree = scratch(tmp_path) / "examples"
    (tree / ".drift-check.yaml").unlink(missing_ok=True)  # it would win over pyproject.toml
    (tree / "pyproject.toml").write_text(block.body)
    code, out = run("drift-check . -q > /dev/null", tree)
    assert code in (0, 1), f"{block}: not a valid config:\n{out}"


@pytest.mark.parametrize("block", _params("json"))
def test_json_blocks_parse(block: Block) -> None:
    json.loads(block.body)


def _check_directives(block: Block, text: str, shift: int, suffix: str = ".md") -> None:
    """Every line of the example that holds `drift-check:` is read as a suppression comment
    by the scanner, with one of its words and codes that name rules. `shift`: lines added in
    front of the example to make it a file."""
    from drift_check.facts import Source
    from drift_check.rules import parse_codes
    from drift_check.scanners.directives import KINDS, find_directives

    lines = [n for n, line in enumerate(text.splitlines(), 1) if "drift-check:" in line]
    assert lines, f"{block}: an example that shows no suppression comment; check it another way"
    found = find_directives(Source(f"example{suffix}", text))
    assert sorted({d.position.line for d in found}) == lines, f"{block}: not all read as comments"
    for d in found:
        where = f"{block}: line {d.position.line - shift}"
        assert d.kind in KINDS, f"{where}: `{d.kind}` is not a directive word"
        parse_codes([c.name for c in d.codes or ()])  # ValueError names an unknown code


@pytest.mark.parametrize("block", _params("markdown"))
def test_suppression_examples_are_directives(block: Block) -> None:
    _check_directives(block, block.body, 0)


@pytest.mark.parametrize("block", _params("python"))
def test_python_examples_parse(block: Block) -> None:
    import ast

    ast.parse(block.body)
    if "drift-check:" in block.body:
        _check_directives(block, block.body, 0, ".py")


def test_the_console_blocks_show_commands_first() -> None:
    for b in ALL:
        if b.lang == "console":
            assert console_steps(b.body), b


def test_the_readme_promise_on_examples_holds(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"it\s+reports\s+(\d+)\s+findings\s+and\s+exits\s+(\d)", text)
    assert m is not None
    monkeypatch.chdir(ROOT)
    run_ = cli("examples", "--format", "json", "-q")
    assert (run_.json()["summary"]["findings"], run_.code) == (int(m[1]), int(m[2]))


def test_the_json_schema_lists_every_field(cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """docs/json-schema.md documents every field the JSON output has on examples/."""
    page = (ROOT / "docs" / "json-schema.md").read_text(encoding="utf-8")
    top, finding = page.split("Each finding:")
    documented = set()
    for part, prefix in ((top, ""), (finding, "findings[].")):
        for cell in re.findall(r"^\| ([^|]+) \|", part, re.M):
            documented.update(prefix + name for name in re.findall(r"`([\w.]+)`", cell))
    monkeypatch.chdir(ROOT)
    report = cli("examples", "--format", "json", "-q").json()
    real = (set(report) - {"summary"}) | {f"summary.{k}" for k in report["summary"]}
    real |= {f"findings[].{k}" for f in report["findings"] for k in f}
    assert real <= documented, f"fields docs/json-schema.md does not list: {real - documented}"
    assert "findings[].fix" in real and "findings[].marker" in real  # the run shows them


SOURCE_PATH = re.compile(r"`((?:drift_check|tests|bench|action|examples)/[^`\s*<{]*)`")


def test_the_files_the_docs_name_exist() -> None:
    missing = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for m in SOURCE_PATH.finditer(text):
            path = m.group(1).split("::")[0].rstrip(".,:")
            if not (ROOT / path).exists():
                line = text[: m.start()].count("\n") + 1
                missing.append(f"{page.relative_to(ROOT)}:{line}: {path}")
    assert not missing


def test_no_tracker_text_in_the_docs() -> None:
    """The docs describe the product, not the work that made it."""
    tracker = re.compile(r"\b(?:issue|ticket) #?\d+|\bthis issue\b|\bthe issue asks\b", re.I)
    found = [
        f"{page.relative_to(ROOT)}:{n}: {line.strip()}"
        for page in pages()
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if tracker.search(line)
    ]
    assert not found


def test_no_paragraph_is_said_twice() -> None:
    for page in pages():
        paragraphs = [
            " ".join(p.split())
            for p in page.read_text(encoding="utf-8").split("\n\n")
            if len(p) > 80 and not p.lstrip().startswith(("|", "```", "<!--"))
        ]
        repeated = {p for p in paragraphs if paragraphs.count(p) > 1}
        assert not repeated, f"{page.relative_to(ROOT)} repeats: {sorted(repeated)[0][:80]}"


_LINK = re.compile(r"\]\(([\w./-]*\.md)?#([^)\s]+)\)")


def test_links_between_the_pages_find_their_headings() -> None:
    """A `[text](#anchor)` or `[text](page.md#anchor)` names a heading that exists (a heading
    renamed without its links breaks them silently on GitHub)."""
    from drift_check.scanners.links import slugs

    broken = []
    for page in [*pages(), *sorted((ROOT / "docs" / "rules").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        for m in _LINK.finditer(text):
            target = (page.parent / m.group(1)).resolve() if m.group(1) else page
            if not (target.suffix == ".md" and target.is_file()):
                continue
            if m.group(2) not in slugs(target.read_text(encoding="utf-8")):
                broken.append(f"{page.relative_to(ROOT)}: {m.group(0)}")
    assert not broken
